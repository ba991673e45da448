package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// launchedIn counts the nodes the autoscalers launched in each zone over
// a run.
func launchedIn(t *testing.T, sc *scenario.Scenario) map[string]int {
	t.Helper()
	out := map[string]int{}
	_, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		for i := range cl.Nodes {
			if n := &cl.Nodes[i]; n.Owner != cluster.OwnedByStatic {
				out[cl.Syms.Name(n.Zone)]++
			}
		}
	}})
	require.NoError(t, err)
	return out
}

// With one zone out from the start, neither Karpenter nor the Cluster
// Autoscaler gets a node there; they launch in the other zones.
func TestZoneOutFromTheStart(t *testing.T) {
	for _, name := range []string{"hybrid-naive", "karpenter-mixed"} {
		t.Run(name, func(t *testing.T) {
			base := launchedIn(t, load(t, name))
			require.Positive(t, base["us-east-1a"], "the baseline launches in us-east-1a: %v", base)
			sc := load(t, name)
			require.NoError(t, sc.ZoneOut("us-east-1a", 0))
			out := launchedIn(t, sc)
			require.Zero(t, out["us-east-1a"], "%v", out)
			require.Positive(t, out["us-east-1b"]+out["us-east-1c"], "%v", out)
		})
	}
}

// Scaling the workloads by 2 creates about twice the pods.
func TestScaleWorkloadsDoublesTheLoad(t *testing.T) {
	for _, name := range []string{"hybrid-naive", "web-steady-hybrid"} {
		t.Run(name, func(t *testing.T) {
			base, err := simulation.Run(load(t, name), simulation.Options{})
			require.NoError(t, err)
			sc := load(t, name)
			require.NoError(t, sc.ScaleWorkloads(2))
			scaled, err := simulation.Run(sc, simulation.Options{})
			require.NoError(t, err)
			ratio := float64(scaled.Controllers.PodsCreated) / float64(base.Controllers.PodsCreated)
			require.InDelta(t, 2, ratio, 0.5, "pods created: %d scaled, %d base", scaled.Controllers.PodsCreated, base.Controllers.PodsCreated)
		})
	}
}
