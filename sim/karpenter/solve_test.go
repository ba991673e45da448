package karpenter

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// The diverse benchmark batch, solved small, keeps every constraint: zone
// spread within maxSkew, self-affine pods in one zone, anti-affine pods on
// distinct NodeClaims, and every NodeClaim fits its pods.
func TestSolveDiverseKeepsConstraints(t *testing.T) {
	h := newHarness(t)
	k := newWideKarpenter(h)
	pods := diversePods(h, 800)
	s := k.solvers.NewSolver(pods, scheduling.SolveOpts{})
	s.Solve(pods)
	require.Empty(t, s.Failed)
	syms := h.cl.Syms
	zoneOf := func(c *scheduling.Claim) string {
		r := c.Requirements.Get(h.cl.KeyZone)
		if r == nil || r.Complement || len(r.Values) != 1 {
			return ""
		}
		return syms.Name(r.Values[0])
	}
	affinity := map[string]map[string]bool{}
	placed := 0
	for _, c := range s.Claims {
		nginx := 0
		var req cluster.Resources
		for _, id := range c.Pods {
			p := &h.cl.Pods[id]
			req = req.Add(p.Spec.Requests)
			placed++
			labels := p.Spec.Labels.Map(syms)
			if labels["app"] == "nginx" {
				nginx++
			}
			if v, ok := labels["my-affinity"]; ok {
				z := zoneOf(c)
				require.NotEmpty(t, z, "an affine pod's claim has one zone")
				if affinity[v] == nil {
					affinity[v] = map[string]bool{}
				}
				affinity[v][z] = true
			}
			if len(p.Spec.Spread) > 0 {
				z := zoneOf(c)
				require.NotEmpty(t, z, "a spread pod's claim has one zone")
			}
		}
		require.LessOrEqual(t, nginx, 1, "anti-affinity: one nginx pod per claim")
		fits := false
		for _, pos := range c.Options {
			pt := &c.Pool.Types[pos]
			fits = fits || req.Fits(pt.Allocatable)
			require.True(t, req.Fits(pt.Allocatable), "every option fits the claim's pods")
		}
		require.True(t, fits)
	}
	require.Equal(t, len(pods), placed)
	for v, zs := range affinity {
		require.Len(t, zs, 1, "affinity group %s in one zone", v)
	}
	t.Logf("claims=%d", len(s.Claims))
}

// The queue's lazy merge of prepared runs yields the pods in the order a
// full sort gives, for any number of runs.
func TestQueueMergeMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, runs := range []int{0, 1, 2, 3, 5, 17, 101} {
		var all []scheduling.QueueKey
		s := &scheduling.Solver{}
		for r := 0; r < runs; r++ {
			n := rng.IntN(40)
			keys := make([]scheduling.QueueKey, n)
			for i := range keys {
				// Few distinct values so that ties reach the id.
				keys[i] = scheduling.QueueKey{CPU: int64(rng.IntN(3)), Memory: int64(rng.IntN(3)), Created: engine.Time(rng.IntN(3)), ID: cluster.PodID(len(all) + i)}
			}
			slices.SortFunc(keys, scheduling.CompareQueueKeys)
			all = append(all, keys...)
			s.Sets = append(s.Sets, &scheduling.PodSet{QueueKeys: keys, QueueKeysSorted: true})
		}
		slices.SortFunc(all, scheduling.CompareQueueKeys)
		q := s.Queue(nil)
		var got []scheduling.QueueKey
		for q.Len() > 0 {
			got = append(got, *q.Peek())
			q.Next()
		}
		require.Equal(t, len(all), len(got), "runs %d", runs)
		for i := range all {
			require.Equal(t, all[i].ID, got[i].ID, "runs %d, position %d", runs, i)
		}
	}
}

// newWideKarpenter builds a controller over one NodePool of the first
// 400 instance types without GPUs, for solves called directly: no other
// model runs and nothing is evicted.
func newWideKarpenter(h *harness) *Karpenter {
	var names []string
	for _, it := range h.cat.Types() {
		if it.GPU == 0 && len(names) < 400 {
			names = append(names, it.Name)
		}
	}
	pools := h.pools(poolWith("default", "        - {key: node.kubernetes.io/instance-type, operator: In, values: ["+strings.Join(names, ", ")+"]}\n", ""))
	k, err := New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: nopEvictor{}},
		Config{Region: "us-east-1", Zones: testZones, NodePools: pools, Settings: apis.DefaultSettings()})
	require.NoError(h.t, err)
	return k
}
