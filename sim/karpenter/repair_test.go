package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/manifest"
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

// withRepair turns the NodeRepair feature gate on (and StaticCapacity,
// for the static pools' tests).
func withRepair(h *harness) *harness {
	st := apis.DefaultSettings()
	st.NodeRepair, st.StaticCapacity = true, true
	h.settings = &st
	return h
}

// failAt runs to at and sets cond on the first of Karpenter's nodes.
func failAt(h *harness, at time.Duration, cond cluster.NodeCondition) *cluster.Node {
	h.run(at)
	n := h.karpenterNodes()[0]
	for _, kn := range h.k.nodes.live {
		if h.cl.Nodes[kn.ID].Name == n.Name {
			h.cl.SetNodeCondition(kn.ID, cond)
		}
	}
	return n
}

func nodeNamed(h *harness, name string) *cluster.Node {
	for i := range h.cl.Nodes {
		if h.cl.Nodes[i].Name == name {
			return &h.cl.Nodes[i]
		}
	}
	return nil
}

// A do-not-disrupt pod blocks repair while its pool has no
// terminationGracePeriod (KC Repair.ShouldDisrupt: "repair requires a
// termination grace period to bypass blocking pods"); with one, repair
// replaces the node and the drain ends at the grace period.
func TestRepairBlockedByDoNotDisruptPod(t *testing.T) {
	for _, c := range []struct {
		extra    string
		repaired int64
	}{
		{"  disruption: {consolidateAfter: Never}", 0},
		{"      terminationGracePeriod: 30m\n  disruption: {consolidateAfter: Never}", 1},
	} {
		h := withRepair(newHarness(t))
		h.deploy("pin", h.podSpec("500m", "512Mi", map[string]string{"app": "pin"}, withDoNotDisrupt()), time.Duration(0), 1)
		h.start(poolWith("p", odLarge, c.extra))
		failed := failAt(h, 10*time.Minute, cluster.AcceleratedHardwareNotReady)
		h.run(2 * time.Hour)
		require.Equal(t, c.repaired, h.k.Stats().Disruptions.Unhealthy, c.extra)
		if c.repaired == 0 {
			require.Equal(t, cluster.NodeReady, nodeNamed(h, failed.Name).State)
		} else {
			gone := nodeNamed(h, failed.Name)
			require.Equal(t, cluster.NodeGone, gone.State)
			// Eligible at 20 min; its replacement first, then a drain the
			// do-not-disrupt pod holds until the 30 min grace period.
			require.Greater(t, gone.Deleted, 50*time.Minute)
			require.Less(t, gone.Deleted, time.Hour)
		}
	}
}

// An unhealthy node of a static pool is replaced as static drift
// replaces: one NodeClaim of the pool launched first where limits.nodes
// leaves room; at the limit it stays, unless TerminateFirstRepair deletes
// it first and the pool refills.
func TestRepairStaticPool(t *testing.T) {
	for _, c := range []struct {
		limit          string
		terminateFirst bool
		repaired       int64
	}{{"3", false, 1}, {"2", false, 0}, {"2", true, 1}} {
		h := withRepair(newHarness(t))
		h.settings.TerminateFirstRepair = c.terminateFirst
		h.start(poolWith("fixed", odLarge, "  replicas: 2\n  limits: {nodes: "+c.limit+"}"))
		failed := failAt(h, 10*time.Minute, cluster.KernelNotReady)
		peak := 0
		for at := 10 * time.Minute; at < 2*time.Hour; at += 10 * time.Second {
			h.run(at)
			peak = max(peak, len(h.karpenterNodes()))
		}
		what := "limit " + c.limit
		require.Equal(t, c.repaired, h.k.Stats().Disruptions.Unhealthy, what)
		require.Len(t, h.karpenterNodes(), 2, what)
		if c.repaired == 1 {
			require.Equal(t, cluster.NodeGone, nodeNamed(h, failed.Name).State, what)
		}
		require.LessOrEqual(t, peak, 3)
		if c.limit == "2" {
			require.Equal(t, 2, peak, "never above limits.nodes")
		}
	}
}

// A static pool at limits.nodes = replicas cannot stage a repair's
// replacement: a finding names TerminateFirstRepair, which turns it off.
func TestRepairWarningStaticAtLimit(t *testing.T) {
	h := newHarness(t)
	pools := h.pools(poolWith("fixed", odLarge, "  replicas: 2\n  limits: {nodes: 2}"))
	st := apis.DefaultSettings()
	st.NodeRepair, st.StaticCapacity = true, true
	ws := repairWarnings(component.Env{}, pools, st)
	require.Len(t, ws, 1)
	require.Equal(t, "ineffective.static-node-limit", ws[0].Code)
	require.Contains(t, ws[0].Msg, "node repair never replaces an unhealthy node of it")
	require.Contains(t, ws[0].Fix, "TerminateFirstRepair")
	st.TerminateFirstRepair = true
	require.Empty(t, repairWarnings(component.Env{}, pools, st))
	st.NodeRepair = false
	require.Empty(t, repairWarnings(component.Env{}, pools, st), "no failure, no Unhealthy budget: nothing to say with the gate off")
}

// With the gate off, failures that may hit Karpenter's nodes get the one
// info line naming the gate, at the first such failure; failures of node
// groups alone get none.
func TestRepairGateOffLine(t *testing.T) {
	h := newHarness(t)
	pools := h.pools(poolWith("p", odLarge, ""))
	scenarioWith := func(failures string) component.Env {
		docs, err := manifest.ReadBytes("s.yaml", []byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  nodeFailures:\n"+failures))
		require.NoError(t, err)
		return component.Env{Scenario: docs[0]}
	}
	st := apis.DefaultSettings()
	require.Empty(t, repairWarnings(scenarioWith("    - {at: 1h, condition: Ready=False, count: 1, nodeGroups: [ng]}\n"), pools, st))
	ws := repairWarnings(scenarioWith("    - {at: 1h, condition: Ready=False, count: 1, nodeGroups: [ng]}\n    - {at: 2h, condition: Ready=False, count: 1}\n"), pools, st)
	require.Len(t, ws, 1)
	require.True(t, ws[0].Info)
	require.Equal(t, "karpenter.gate-off", ws[0].Code)
	require.Equal(t, "spec.nodeFailures[1]", ws[0].Path)
	require.Equal(t, 7, ws[0].Line)
	require.Contains(t, ws[0].Msg, "NodeRepair feature gate is off")
}

// With the gate off, a market join failure whose nodes register and never
// become Ready (mode registersNotReady) that may hit Karpenter's launches
// gets the info line too (KC liveness does not time out a Registered
// NodeClaim; only repair or expiry removes it); one naming node groups
// alone, or of the default mode, gets none.
func TestRepairGateOffNotReadyJoin(t *testing.T) {
	h := newHarness(t)
	pools := h.pools(poolWith("p", odLarge, ""))
	scenarioWith := func(events string) component.Env {
		docs, err := manifest.ReadBytes("s.yaml", []byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  market:\n    events:\n"+events))
		require.NoError(t, err)
		return component.Env{Scenario: docs[0]}
	}
	st := apis.DefaultSettings()
	require.Empty(t, repairWarnings(scenarioWith("      - {at: 1h, joinFailure: {mode: registersNotReady, nodeGroups: [ng]}}\n"), pools, st))
	require.Empty(t, repairWarnings(scenarioWith("      - {at: 1h, joinFailure: {nodePools: [p]}}\n"), pools, st))
	ws := repairWarnings(scenarioWith("      - {at: 1h, joinFailure: {nodePools: [p]}}\n      - at: 2h\n        joinFailure:\n          mode: registersNotReady\n"), pools, st)
	require.Len(t, ws, 1)
	require.True(t, ws[0].Info)
	require.Equal(t, "karpenter.gate-off", ws[0].Code)
	require.Equal(t, "spec.market.events[1].joinFailure.mode", ws[0].Path)
	require.Equal(t, 10, ws[0].Line)
	require.Contains(t, ws[0].Msg, "NodeRepair feature gate is off")
	st.NodeRepair = true
	require.Empty(t, repairWarnings(scenarioWith("      - {at: 2h, joinFailure: {mode: registersNotReady}}\n"), pools, st))
}
