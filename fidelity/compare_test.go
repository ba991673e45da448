package fidelity

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Unschedulable pods are compared per template: which replica of a
// template is left over is a tie, how many are left is not.
func TestUnschedulableComparedPerTemplate(t *testing.T) {
	for _, tc := range []struct {
		ours, up []string
		equal    bool
	}{
		{[]string{"app1-3"}, []string{"app1-0"}, true},
		{[]string{"app1-3", "app0-1"}, []string{"app0-4", "app1-0"}, true},
		{[]string{"app1-3"}, []string{"app2-0"}, false},
		{[]string{"app1-3", "app1-4"}, []string{"app1-0"}, false},
		{nil, []string{"app1-0"}, false},
	} {
		r := &Result{Ours: Outcome{Unschedulable: tc.ours}, Up: Outcome{Unschedulable: tc.up}}
		r.score()
		require.Equal(t, tc.equal, r.UnschedEqual, "%v vs %v", tc.ours, tc.up)
	}
}

func outcome(nodes int, price float64, unsched ...string) Outcome {
	o := Outcome{Unschedulable: unsched}
	for i := 0; i < nodes; i++ {
		o.Nodes = append(o.Nodes, Node{Cheapest: price / float64(nodes)})
	}
	return o
}

// Upstream's answers over k runs: the share of pairs that agree, the
// share of runs ours agrees with, and whether ours is one of them.
func TestSpreadOf(t *testing.T) {
	a, b := outcome(3, 1.0), outcome(4, 1.2)
	ups := []Outcome{a, a, b, a}
	sp := spreadOf(a, ups)
	require.InDelta(t, 3.0/6, sp.SelfAgree, 1e-9) // pairs among the three a's
	require.InDelta(t, 0.75, sp.OursVsUp, 1e-9)
	require.True(t, sp.InEnvelope)
	require.InDelta(t, 0.75, sp.SelfEnvelope, 1e-9) // b agrees with no other run
	sp = spreadOf(b, ups)
	require.InDelta(t, 0.25, sp.OursVsUp, 1e-9)
	require.True(t, sp.InEnvelope)
	sp = spreadOf(outcome(5, 1.0), ups)
	require.Zero(t, sp.OursVsUp)
	require.False(t, sp.InEnvelope)
	// Price within 5% agrees; unschedulable pods per template.
	require.True(t, agree(outcome(3, 1.0), outcome(3, 1.04)))
	require.False(t, agree(outcome(3, 1.0), outcome(3, 1.06)))
	require.False(t, agree(outcome(3, 1.0, "app1-0"), outcome(3, 1.0)))
}

// The gate: the envelope target, and ours against a random upstream run
// no worse than upstream against itself, less the sampling noise.
func TestCheckGates(t *testing.T) {
	ok := Summary{Cases: 100, Envelope: 97, SelfAgree: 90, OursVsUp: 88, Tolerance: 2.5, Speedup: 10}
	require.Empty(t, ok.Check())
	env := ok
	env.Envelope = 96
	require.Len(t, env.Check(), 1)
	worse := ok
	worse.OursVsUp = 87
	require.Len(t, worse.Check(), 1)
	sec := ok
	// Second round: ours must agree with upstream given our order of
	// the NodeClaims in flight on 97% of cases; the random-order envelope
	// is reported, not gated.
	sec.Cases2, sec.SameInOrder2, sec.Envelope2, sec.SelfAgree2, sec.OursVsUp2, sec.SelfEnvelope2 = 100, 97, 50, 80, 80, 100
	require.Empty(t, sec.Check())
	sec.SameInOrder2 = 96
	require.Len(t, sec.Check(), 1)
	sec.SameInOrder2, sec.OursVsUp2, sec.Tolerance2 = 100, 70, 9.9 // more than the noise below upstream's own
	require.Len(t, sec.Check(), 1)
	// Noise: none when upstream never varies and ours always or never
	// agrees; more with fewer runs.
	require.Zero(t, noise([]Spread{{SelfAgree: 1, OursVsUp: 1}, {SelfAgree: 1, OursVsUp: 0}}, 8))
	sp := []Spread{{SelfAgree: 0.5, OursVsUp: 0.5}, {SelfAgree: 1, OursVsUp: 1}}
	require.Greater(t, noise(sp, 4), noise(sp, 16))
	// gateSEs standard errors: one case of shares 1/2 over k = 4 runs
	// has variance 1/16 + 1/8, so sqrt(3/16) standard errors.
	require.InDelta(t, 100*gateSEs*math.Sqrt(3.0/16), noise(sp[:1], 4), 1e-9)
}
