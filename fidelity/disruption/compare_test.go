package disruptionfidelity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompare(t *testing.T) {
	infos := NodeInfos{
		"a": {Pool: "p", Type: "m5.large", CapacityType: "spot", Zone: "z1", Pods: 2},
		"b": {Pool: "p", Type: "m5.large", CapacityType: "spot", Zone: "z1", Pods: 2},
		"c": {Pool: "p", Type: "m5.large", CapacityType: "spot", Zone: "z2", Pods: 2},
	}
	one := func(n string) Decision {
		return Decision{Method: MethodSingleNode, Reason: "Underutilized", Candidates: []string{n}}
	}
	require.Equal(t, Verdict{Agree: true, Exact: true}, Compare(one("a"), one("a"), infos))
	require.Equal(t, Verdict{Agree: true}, Compare(one("a"), one("b"), infos), "another node of the same shape: upstream's tie")
	require.False(t, Compare(one("a"), one("c"), infos).Agree, "another zone is another shape")
	require.False(t, Compare(one("a"), Decision{Method: MethodMultiNode, Candidates: []string{"a"}}, infos).Agree)
	require.True(t, Compare(Decision{Method: MethodNone}, Decision{}, infos).Agree)
	require.False(t, Compare(one("a"), Decision{Method: MethodNone}, infos).Agree)

	rep := func(price float64) Decision {
		d := one("a")
		d.Replacements = []Replacement{{Pool: "p", CapacityType: "spot", Types: []string{"m5.large"}, Cheapest: price}}
		return d
	}
	require.True(t, Compare(rep(1.00), rep(1.04), infos).Agree, "within 5%")
	require.False(t, Compare(rep(1.00), rep(1.10), infos).Agree)
	require.False(t, Compare(rep(1.00), one("a"), infos).Agree, "a replacement against none")
}

func TestScore(t *testing.T) {
	infos := NodeInfos{"a": {Pool: "p"}, "b": {Pool: "q"}}
	a := Decision{Method: MethodEmptiness, Candidates: []string{"a"}}
	b := Decision{Method: MethodEmptiness, Candidates: []string{"b"}}
	s := Score(a, []Decision{a, a, b, a}, infos)
	require.InDelta(t, 0.5, s.Self, 1e-9, "3 of the 6 pairs agree")
	require.InDelta(t, 0.75, s.Vs, 1e-9)
	require.True(t, s.Within)
	s = Score(a, []Decision{b, b}, infos)
	require.Equal(t, CaseScore{Self: 1, Vs: 0, Within: false}, s)
	m := Summarise([]CaseScore{{Self: 1, Vs: 1, Within: true}, {Self: 0.5, Vs: 0, Within: false}})
	require.Equal(t, Measures{Cases: 2, UpstreamSelf: 0.75, OursVsUpstream: 0.5, Envelope: 0.5}, m)
}
