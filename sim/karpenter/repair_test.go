package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// A NotReady node takes from its pool's budget for every reason but
// Unhealthy (KC NodePoolStatsFromNodes: NotReady is repair's trigger,
// and counting it would let a wave of failures freeze repair). Six pods
// of 500m on m5.large: a few nodes, a budget of 1 (10%, rounded up).
func TestNotReadyTakesFromOtherBudgets(t *testing.T) {
	h := startWeb(t, 6, poolWith("p", odLarge, "  disruption: {consolidateAfter: Never}"))
	h.run(10 * time.Minute)
	nodes := h.karpenterNodes()
	require.GreaterOrEqual(t, len(nodes), 2)
	d := h.k.dis
	pool := h.k.nodes.live[0].Pool
	require.Equal(t, 1, d.budgets(apis.ReasonDrifted)[pool])
	require.Equal(t, 1, d.budgets(apis.ReasonUnhealthy)[pool])

	h.cl.SetNodeCondition(h.k.nodes.live[0].ID, cluster.ReadyFalse)
	require.Equal(t, 0, d.budgets(apis.ReasonDrifted)[pool], "the NotReady node uses the Drifted budget")
	require.Equal(t, 0, d.budgets(apis.ReasonUnderutilized)[pool])
	require.Equal(t, 1, d.budgets(apis.ReasonUnhealthy)[pool], "but not repair's")

	h.cl.SetNodeCondition(h.k.nodes.live[0].ID, cluster.AcceleratedHardwareNotReady)
	require.Equal(t, 1, d.budgets(apis.ReasonDrifted)[pool], "a node that is Ready, however unhealthy, takes nothing")
}

// The 20% rule rounds up: one unhealthy node of up to five never stops
// repair, two of ten do not, three of ten do.
func TestRepairThreshold(t *testing.T) {
	for _, c := range []struct{ nodes, threshold int }{{1, 1}, {5, 1}, {6, 2}, {10, 2}, {11, 3}, {100, 20}} {
		require.Equal(t, c.threshold, repairThreshold(c.nodes), c.nodes)
	}
}
