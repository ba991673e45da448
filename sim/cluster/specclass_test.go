package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSpecClasses(t *testing.T) {
	var r1, r2 Resources
	r1[CPU], r2[CPU] = 100, 200
	a := &PodSpec{NodeSelector: []Requirement{{Key: 1, Values: []Sym{2}}}, Requests: r1}
	sameContent := &PodSpec{NodeSelector: []Requirement{{Key: 1, Values: []Sym{2}}}, Requests: r2}
	other := &PodSpec{NodeSelector: []Requirement{{Key: 1, Values: []Sym{3}}}, Requests: r1}

	var plain SpecClasses
	ca, isNew := plain.Of(a)
	require.True(t, isNew)
	cs, isNew := plain.Of(sameContent)
	require.False(t, isNew, "requests are not part of the filter content")
	require.Equal(t, ca, cs)
	co, _ := plain.Of(other)
	require.NotEqual(t, ca, co)
	again, isNew := plain.Of(a)
	require.False(t, isNew)
	require.Equal(t, ca, again)

	scoring := SpecClasses{WithScoring: true}
	ca, _ = scoring.Of(a)
	cs, isNew = scoring.Of(sameContent)
	require.True(t, isNew, "with scoring, requests count")
	require.NotEqual(t, ca, cs)
}

func TestNodeVerdicts(t *testing.T) {
	var v NodeVerdicts
	_, known := v.Get(3, 0)
	require.False(t, known)
	v.Set(3, 7, true, 10)
	yes, known := v.Get(3, 7)
	require.True(t, known)
	require.True(t, yes)
	_, known = v.Get(3, 8)
	require.False(t, known, "a new epoch expires the answer")
	v.Set(3, 8, false, 10)
	yes, known = v.Get(3, 8)
	require.True(t, known)
	require.False(t, yes)
	_, known = v.Get(9, 0)
	require.False(t, known, "never set")
	v.Set(42, 1, true, 10) // beyond the hint: grows
	yes, known = v.Get(42, 1)
	require.True(t, known && yes)
}

func TestSpecClassesLookup(t *testing.T) {
	a := &PodSpec{NodeSelector: []Requirement{{Key: 1, Values: []Sym{2}}}}
	same := &PodSpec{NodeSelector: []Requirement{{Key: 1, Values: []Sym{2}}}}
	var c SpecClasses
	_, ok := c.Lookup(a)
	require.False(t, ok)
	require.Nil(t, c.Spec(0))
	id, _ := c.Of(a)
	got, ok := c.Lookup(a)
	require.True(t, ok)
	require.Equal(t, id, got)
	_, ok = c.Lookup(same)
	require.False(t, ok, "Lookup numbers nothing")
	c.Of(same)
	require.Same(t, a, c.Spec(id), "the first spec of the class stands for it")
	require.Nil(t, c.Spec(id+1))
}
