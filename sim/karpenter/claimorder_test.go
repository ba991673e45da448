package karpenter

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// The solve tries its NodeClaims in the order KC's add leaves them: one
// slice re-sorted in place by pod count with sort.Slice before every pod,
// new NodeClaims appended. Replaying random growth (a pod joins one of
// the first NodeClaims in the order, or a new one starts) on both, the
// orders stay identical, beyond 12 NodeClaims too where the sort is not
// stable, and getting the order allocates nothing.
func TestClaimOrderIsKCsSortSlice(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := &scheduling.Solver{}
		var kc []*scheduling.Claim // upstream's newNodeClaims
		seq := 0
		for step := 0; step < 400; step++ {
			order := s.TryOrder()
			sort.Slice(kc, func(a, b int) bool { return len(kc[a].Pods) < len(kc[b].Pods) })
			require.Equal(t, seqs(kc), seqs(order), "seed %d step %d", seed, step)
			if len(order) == 0 || rng.IntN(4) == 0 {
				seq++
				c := &scheduling.Claim{Sequence: seq, Pods: []cluster.PodID{0}}
				s.AppendClaim(c)
				kc = append(kc, c)
				continue
			}
			i := rng.IntN(min(3, len(order)))
			order[i].Pods = append(order[i].Pods, 0)
			s.Joined(i)
		}
		require.Greater(t, len(s.Order), 12)
		require.Zero(t, testing.AllocsPerRun(10, func() { s.Unsorted = true; s.TryOrder() }))
	}
}

func seqs(cs []*scheduling.Claim) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.Sequence
	}
	return out
}
