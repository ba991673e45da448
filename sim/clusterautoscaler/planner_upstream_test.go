package clusterautoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Behaviours of upstream's planner the scale-down comparison
// (fidelity/ca, fidelity-ca-scaledown) found ours without; each test
// fails on the model before its fix.

// planOf runs PlanScaleDown and returns each node's verdict by ID.
func (h *harness) planOf() (ScaleDownPlan, map[cluster.NodeID]ScaleDownNode) {
	h.t.Helper()
	plan := h.ca.PlanScaleDown()
	by := map[cluster.NodeID]ScaleDownNode{}
	for _, v := range plan.Nodes {
		by[v.Node] = v
	}
	require.NoError(h.t, h.ca.CheckIndexes())
	return plan, by
}

// threeNodes starts one m5.large group of three nodes (minimum 0) with
// the cool-downs off.
func (h *harness) threeNodes(args ...string) []cluster.NodeID {
	h.t.Helper()
	h.start(h.groups(managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 0, maxSize: 5, desiredCapacity: 3}")),
		append(append([]string(nil), quickScaleDown...), append(args, "--scale-down-delay-after-failure=0s")...), nil)
	h.at(time.Second)
	nodes := h.nodesOf("ng")
	require.Len(h.t, nodes, 3)
	return nodes
}

// A node used exactly at --scale-down-utilization-threshold is a
// candidate: upstream keeps a node only when its utilization is above
// the threshold (core/scaledown/eligibility
// isNodeAtOrBelowUtilizationThreshold).
func TestPlanScaleDownAtThreshold(t *testing.T) {
	h := newManualHarness(t)
	nodes := h.threeNodes()
	half := h.cl.Nodes[nodes[0]].Allocatable[cluster.Memory] / 2
	require.Zero(t, h.cl.Nodes[nodes[0]].Allocatable[cluster.Memory]%2)
	h.podOn(nodes[0], "100m", fmt.Sprint(half)) // memory at exactly half
	h.podOn(nodes[1], "1100m", "256Mi")         // cpu above half: kept
	h.podOn(nodes[2], "1100m", "256Mi")
	h.at(5 * time.Second)
	_, by := h.planOf()
	require.InDelta(t, 0.5, by[nodes[0]].Utilization, 1e-12)
	require.True(t, by[nodes[0]].Unneeded, "at the threshold: %+v", by[nodes[0]])
	require.Equal(t, ReasonNotUnderutilized, by[nodes[1]].Reason)
}

// A group at its minimum has no scale-down candidates
// (processors/nodes PreFilteringScaleDownNodeProcessor), so its empty
// node is not simulated away and stays a place for another group's pods:
// here ng-b's node can go, its pod moving to ng-a's empty node.
func TestPlanScaleDownMinSizeNodeStaysDestination(t *testing.T) {
	h := newManualHarness(t)
	h.start(h.groups(managedNodeGroups(
		"{name: ng-a, instanceType: m5.large, minSize: 1, maxSize: 5, desiredCapacity: 1}",
		"{name: ng-b, instanceType: m5.large, minSize: 0, maxSize: 5, desiredCapacity: 1}")),
		append([]string{"--scale-down-delay-after-failure=0s"}, quickScaleDown...), nil)
	h.at(time.Second)
	a, b := h.nodesOf("ng-a"), h.nodesOf("ng-b")
	require.Len(t, a, 1)
	require.Len(t, b, 1)
	h.podOn(b[0], "500m", "512Mi")
	h.at(5 * time.Second)
	plan, by := h.planOf()
	require.False(t, by[a[0]].Unneeded)
	require.Equal(t, BlockMinSize, by[a[0]].Reason)
	require.True(t, by[b[0]].Unneeded, "%+v", by[b[0]])
	require.Equal(t, []cluster.NodeID{b[0]}, plan.ToDelete)
}

// A PDB that allows one disruption lets one of two nodes holding its
// pods be unneeded: the planner counts the pods of each node it finds
// removable against the budget (core/scaledown/pdb RemainingPdbTracker,
// RemovePods in planner.categorizeNodes), and the pdb rule then blocks
// the other (NotEnoughPdb).
func TestPlanScaleDownPDBBudgetAcrossNodes(t *testing.T) {
	h := newManualHarness(t)
	sel, err := cluster.CompileLabelSelector(h.cl.Syms, labelSelector("app", "db"))
	require.NoError(t, err)
	h.pdbs = []cluster.PDB{{Namespace: h.cl.Syms.Intern("default"), Name: "db", Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 1}}}
	nodes := h.threeNodes()
	db := withLabels(map[string]string{"app": "db"})
	h.podOn(nodes[0], "300m", "256Mi", db)
	h.podOn(nodes[1], "300m", "256Mi", db)
	h.podOn(nodes[2], "1200m", "1Gi")
	h.at(5 * time.Second)
	require.Equal(t, 1, h.pdbs[0].DisruptionsAllowed(h.cl))
	plan, by := h.planOf()
	require.Len(t, plan.Unneeded, 1, "%+v", plan.Nodes)
	kept := nodes[0]
	if plan.Unneeded[0] == nodes[0] {
		kept = nodes[1]
	}
	require.Equal(t, BlockPDB, by[kept].Reason)
	require.False(t, by[nodes[2]].Unneeded)
}

// Pods an earlier node of the pass moved to a later candidate move on
// with it (upstream's removal simulations persist in the snapshot): n0's
// 300m goes to n1 (first fit), and n1's 600m plus those 300m do not fit
// on n2, which holds 1200m of about 1930m, so n1 stays
// (NoPlaceToMovePods). Ours used to move n1's own pod only and found all
// three pods' room on n2.
func TestPlanScaleDownMovedPodsMoveOn(t *testing.T) {
	h := newManualHarness(t)
	nodes := h.threeNodes()
	h.podOn(nodes[0], "300m", "256Mi")
	h.podOn(nodes[1], "600m", "256Mi")
	h.podOn(nodes[2], "1200m", "256Mi")
	h.at(5 * time.Second)
	alloc := h.cl.Nodes[nodes[2]].Allocatable[cluster.CPU]
	require.GreaterOrEqual(t, alloc, int64(1200+600), "n2 takes n1's own pod")
	require.Less(t, alloc, int64(1200+600+300), "but not n0's too")
	plan, by := h.planOf()
	require.Equal(t, []cluster.NodeID{nodes[0]}, plan.Unneeded, "%+v", plan.Nodes)
	require.Equal(t, BlockNoPlaceToMove, by[nodes[1]].Reason)
}

// The blocking pods of a node are its reason even when an earlier pod
// fits nowhere: upstream checks the drainability rules of every pod
// (GetPodsToMove) before it looks for places (simulator/cluster.go
// SimulateNodeRemoval).
func TestPlanScaleDownBlockerBeforePlace(t *testing.T) {
	h := newManualHarness(t)
	nodes := h.threeNodes()
	h.podOn(nodes[0], "900m", "256Mi") // fits on neither other node
	h.podOn(nodes[0], "50m", "64Mi", withAnnotation("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"))
	h.podOn(nodes[1], "1200m", "1Gi")
	h.podOn(nodes[2], "1200m", "1Gi")
	h.at(5 * time.Second)
	_, by := h.planOf()
	require.Equal(t, BlockNotSafeToEvict, by[nodes[0]].Reason)
}

// The minimum is checked for every unneeded node before the budgets crop
// the list (unneeded.Nodes.RemovableAt, then budgets.CropNodes): of
// three unneeded nodes to drain in a group of four with minimum two, the
// first is deleted, the second left by --max-drain-parallelism (1) but
// taking the group's last room, and the third kept for the minimum. Ours
// used to leave the third for the parallelism too.
func TestPlanScaleDownMinSizeBeforeBudgets(t *testing.T) {
	h := newManualHarness(t)
	h.start(h.groups(managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 2, maxSize: 5, desiredCapacity: 4}")),
		append([]string{"--scale-down-delay-after-failure=0s"}, quickScaleDown...), nil)
	h.at(time.Second)
	nodes := h.nodesOf("ng")
	require.Len(t, nodes, 4)
	for _, id := range nodes[:3] {
		h.podOn(id, "200m", "256Mi")
	}
	h.podOn(nodes[3], "1200m", "1Gi")
	h.at(5 * time.Second)
	plan, by := h.planOf()
	require.Len(t, plan.Unneeded, 3, "%+v", plan.Nodes)
	require.Len(t, plan.ToDelete, 1)
	reasons := map[string]int{}
	for _, v := range by {
		reasons[v.Reason]++
	}
	require.Equal(t, map[string]int{"": 1, ReasonParallelism: 1, BlockMinSize: 1, ReasonNotUnderutilized: 1}, reasons, "%+v", plan.Nodes)
}
