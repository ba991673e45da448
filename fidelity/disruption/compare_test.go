package disruptionfidelity

import (
	"testing"
	"time"

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

// Widen draws more upstream runs only where upstream split and ours
// matched none, stops at the first that agrees, and keeps Self and Vs.
func TestWiden(t *testing.T) {
	infos := NodeInfos{"a": {Pool: "p"}, "b": {Pool: "q"}, "c": {Pool: "r"}}
	dec := func(n string) Decision { return Decision{Method: MethodEmptiness, Candidates: []string{n}} }
	queue := func(ns ...string) (func() (Decision, error), *int) {
		drawn := 0
		return func() (Decision, error) { d := dec(ns[drawn]); drawn++; return d, nil }, &drawn
	}

	split := Score(dec("a"), []Decision{dec("b"), dec("c")}, infos)
	draw, drawn := queue("b", "a", "c")
	s, more, err := Widen(split, dec("a"), 10, draw, infos)
	require.NoError(t, err)
	require.True(t, s.Within, "the second extra run agrees")
	require.Equal(t, 2, *drawn)
	require.Len(t, more, 2)
	require.Equal(t, split.Self, s.Self)
	require.Equal(t, split.Vs, s.Vs)

	draw, drawn = queue("b", "c", "b")
	s, _, err = Widen(split, dec("a"), 3, draw, infos)
	require.NoError(t, err)
	require.False(t, s.Within, "no extra run agrees")
	require.Equal(t, 3, *drawn, "at most n more")

	unanimous := Score(dec("a"), []Decision{dec("b"), dec("b")}, infos)
	draw, drawn = queue("a")
	s, more, err = Widen(unanimous, dec("a"), 10, draw, infos)
	require.NoError(t, err)
	require.False(t, s.Within, "a unanimous upstream is not sampled again")
	require.Zero(t, *drawn)
	require.Empty(t, more)
}

// The nodes a later decision finds in flight (case-016): those of every
// earlier command started by its instant, the same instant included, that
// the dump taken just before that instant still has; not its own, nor
// later ones decided at the same instant.
func TestInFlightBefore(t *testing.T) {
	drift := func(n string) Decision { return Decision{Method: MethodDrift, Candidates: []string{n}} }
	r := &OursResult{
		Decisions: []Decision{drift("empty"), drift("busy"), drift("next"), drift("late")},
		Started:   []time.Duration{3 * time.Second, 3 * time.Second, 3014 * time.Millisecond, -1},
		Removed:   map[string]time.Duration{"empty": 3 * time.Second},
	}
	// The second decision, at 3 s: the dump (at 3 s less 1 µs) still has
	// the empty node the first command removed at 3 s.
	require.Equal(t, []string{"empty"}, r.InFlightBefore(1, 3*time.Second-time.Microsecond, 3*time.Second))
	// The third, at 3.014 s: the empty node is gone from that dump; the
	// second's is in flight.
	require.Equal(t, []string{"busy"}, r.InFlightBefore(2, 3014*time.Millisecond-time.Microsecond, 3014*time.Millisecond))
	// A command that never started holds nothing.
	require.Equal(t, []string{"busy", "next"}, r.InFlightBefore(4, time.Minute, time.Minute))
}
