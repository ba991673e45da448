package karpenter

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// scoreMove against upstream's RFC example pool (KC
// disruption/balanced_test.go): ten nodes, eight m7i.xlarge ($4.84/day)
// and two m7i.2xlarge, $58.08/day in all, 80 pods: disruption cost 90.
func TestScoreMoveRFCExamples(t *testing.T) {
	rfc := poolTotals{cost: 58.08, disruption: 90}
	for _, tc := range []struct {
		name                string
		savings, disruption float64
		totals              poolTotals
		approved            bool
	}{
		{"oversized node replaced (2xlarge to large)", 7.26, 4, rfc, true},
		{"spare capacity deleted", 4.84, 5, rfc, true},
		{"marginal move (xlarge to large, 8 pods)", 2.42, 9, rfc, false},
		{"well-packed node, no savings", 0, 11, rfc, false},
		{"the marginal move in a uniform pool", 2.42, 9, poolTotals{cost: 48.40, disruption: 90}, true},
		{"low-disruption node", 4.84, 5, poolTotals{cost: 58.08, disruption: 117}, true},
		{"high-disruption node", 4.84, 32, poolTotals{cost: 58.08, disruption: 117}, false},
		{"nothing disrupted: +Inf", 4.84, 0, rfc, true},
		{"neither savings nor disruption", 0, 0, rfc, false},
		{"a pool of zero cost normalizes nothing", 4.84, 5, poolTotals{cost: 0, disruption: 90}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scoreMove(nil, tc.savings, tc.disruption, tc.totals)
			require.Equal(t, tc.approved, s.approved, "score %.3f", s.score())
			if tc.totals.cost > 0 && tc.disruption > 0 && tc.savings > 0 {
				want := (tc.savings / tc.totals.cost) / (tc.disruption / tc.totals.disruption)
				require.InDelta(t, want, s.score(), 1e-9)
			}
		})
	}
	// Scale invariance: the same move in a pool ten times the size.
	small := scoreMove(nil, 7.26, 4, rfc)
	big := scoreMove(nil, 7.26, 4, poolTotals{cost: 580.8, disruption: 900})
	require.InDelta(t, small.score(), big.score(), 1e-9, "both fractions shrink alike")
	require.True(t, math.IsInf(scoreMove(nil, 1, 0, rfc).score(), 1))
}
