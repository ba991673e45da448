package karpenter

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
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
		s := &solver{}
		var kc []*claim // upstream's newNodeClaims
		seq := 0
		for step := 0; step < 400; step++ {
			order := s.tryOrder()
			sort.Slice(kc, func(a, b int) bool { return len(kc[a].pods) < len(kc[b].pods) })
			require.Equal(t, seqs(kc), seqs(order), "seed %d step %d", seed, step)
			if len(order) == 0 || rng.IntN(4) == 0 {
				seq++
				c := &claim{seq: seq, pods: []cluster.PodID{0}}
				s.appendClaim(c)
				kc = append(kc, c)
				continue
			}
			i := rng.IntN(min(3, len(order)))
			order[i].pods = append(order[i].pods, 0)
			s.joined(i)
		}
		require.Greater(t, len(s.order), 12)
		require.Zero(t, testing.AllocsPerRun(10, func() { s.unsorted = true; s.tryOrder() }))
	}
}

func seqs(cs []*claim) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = c.seq
	}
	return out
}
