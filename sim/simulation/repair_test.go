package simulation_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// repairScenario is ten web pods, one per m5.large of Karpenter's
// general-purpose NodePool (examples/v1/general-purpose.yaml, reduced;
// consolidation off so that only repair deletes nodes), with failures
// and Karpenter settings added.
func repairScenario(t *testing.T, karpenterSpec, failures, budgets string) *scenario.Scenario {
	t.Helper()
	doc := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: repair}
spec:
  duration: 4h
  zones: [us-east-1a]
` + karpenterSpec + failures + fixtures.GeneralPurposeNodePool + `      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidateAfter: Never
` + budgets + fixtures.EC2NodeClassDemo + fixtures.WebDeployment(10, "1500m", "1Gi")
	sc, err := scenario.LoadManifests("repair.yaml", []byte(doc), nil)
	require.NoError(t, err)
	return sc
}

const repairOn = "  karpenter: {featureGates: {nodeRepair: true}}\n"

// failedNode is what became of a node a failure hit.
type failedNode struct {
	name          string
	since, gone   time.Duration
	state         cluster.NodeState
	podsAtTheEnd  int
	conditionText string
}

func runRepair(t *testing.T, sc *scenario.Scenario) ([]failedNode, karpenter.Stats, *report.Report) {
	t.Helper()
	var failed []failedNode
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		for i := range cl.Nodes {
			n := &cl.Nodes[i]
			if n.Condition != cluster.Healthy {
				failed = append(failed, failedNode{n.Name, n.ConditionSince, n.Deleted, n.State, len(n.Pods), n.Condition.String()})
			}
		}
	}})
	require.NoError(t, err)
	f, ok := rep.Figures("karpenter")
	require.True(t, ok)
	return failed, f.(karpenter.Stats), rep
}

// A node whose kubelet stops posting (Ready=Unknown) at 1h: its pod is
// evicted by the taint manager after the admission default of 300 s and
// rescheduled; with NodeRepair, Karpenter replaces the node once the AWS
// provider's 30-minute toleration has passed (upstream docs,
// concepts/disruption "Node Auto Repair": Ready Unknown, 30 minutes).
// Without the gate the node stays to the end, billed, and the loader says
// which gate.
func TestRepairReplacesNotReadyNode(t *testing.T) {
	failure := "  nodeFailures: [{at: 1h, condition: Ready=Unknown, count: 1, nodePools: [general-purpose]}]\n"
	failed, st, rep := runRepair(t, repairScenario(t, repairOn, failure, ""))
	require.Len(t, failed, 1)
	n := failed[0]
	require.Equal(t, time.Hour, n.since.Round(time.Second))
	require.Equal(t, cluster.NodeGone, n.state)
	// Eligible at 1h30m; the pass that finds it runs within its 10 s
	// period, and the candidate is empty (its pod left at 1h05m), so the
	// deletion is at once and the instance ends within the drain's 5 s
	// and the termination's 5 s.
	require.GreaterOrEqual(t, n.gone, time.Hour+30*time.Minute)
	require.Less(t, n.gone, time.Hour+31*time.Minute)
	require.Equal(t, int64(1), st.Disruptions.Unhealthy)
	require.Equal(t, int64(0), st.RepairsBlocked)
	require.Equal(t, 1, rep.Nodes.Failed)
	require.InDelta(t, 0.5, rep.Nodes.UnhealthyHours, 0.01)
	require.Equal(t, 0, rep.Pods.PendingAtEnd)

	sc := repairScenario(t, "", failure, "")
	info := warningsCoded(sc, "karpenter.gate-off")
	require.Len(t, info, 1)
	require.Contains(t, info[0], "NodeRepair feature gate is off")
	failed, st, rep = runRepair(t, sc)
	require.Len(t, failed, 1)
	require.Equal(t, cluster.NodeReady, failed[0].state, "without repair the node stays")
	require.Equal(t, 0, failed[0].podsAtTheEnd, "its pod was evicted (NoExecute unreachable taint, 300 s)")
	require.Equal(t, int64(0), st.Disruptions.Unhealthy)
	require.InDelta(t, 3.0, rep.Nodes.UnhealthyHours, 0.01)
	require.Equal(t, 0, rep.Pods.PendingAtEnd, "its pod runs on a new node")
}

// AcceleratedHardwareReady=False (the EKS node monitoring agent) has a
// 10-minute toleration; the node's pod stays on it (no taint), so repair
// launches a replacement first and deletes the node once it is up.
func TestRepairAcceleratedHardwareReplacesFirst(t *testing.T) {
	failure := "  nodeFailures: [{at: 1h, condition: AcceleratedHardwareReady=False, count: 1}]\n"
	failed, st, rep := runRepair(t, repairScenario(t, repairOn, failure, ""))
	require.Len(t, failed, 1)
	require.Equal(t, cluster.NodeGone, failed[0].state)
	require.GreaterOrEqual(t, failed[0].gone, time.Hour+10*time.Minute)
	require.Less(t, failed[0].gone, time.Hour+15*time.Minute)
	require.Equal(t, int64(1), st.Disruptions.Unhealthy)
	require.Equal(t, 11, rep.Nodes.Launched, "one replacement")
	require.Equal(t, 0, rep.Pods.PendingAtEnd)
}

// More than 20% of a NodePool unhealthy (3 of 10; the threshold rounds
// up to 2) stops repair for the pool (KC repairUnhealthyThreshold): none
// is replaced, each counted once as blocked (AcceleratedHardwareReady:
// the pods stay, so no new node grows the pool). 2 of 10 are repaired.
// A scripted share above 20% gets a lint finding.
func TestRepairTwentyPercentRule(t *testing.T) {
	failed, st, _ := runRepair(t, repairScenario(t, repairOn, "  nodeFailures: [{at: 1h, condition: AcceleratedHardwareReady=False, count: 3}]\n", ""))
	require.Len(t, failed, 3)
	for _, n := range failed {
		require.Equal(t, cluster.NodeReady, n.state, n.name)
	}
	require.Equal(t, int64(0), st.Disruptions.Unhealthy)
	require.Equal(t, int64(3), st.RepairsBlocked)

	failed, st, _ = runRepair(t, repairScenario(t, repairOn, "  nodeFailures: [{at: 1h, condition: AcceleratedHardwareReady=False, count: 2}]\n", ""))
	require.Len(t, failed, 2)
	require.Equal(t, int64(2), st.Disruptions.Unhealthy)
	require.Equal(t, int64(0), st.RepairsBlocked)

	sc := repairScenario(t, repairOn, "  nodeFailures: [{at: 1h, condition: Ready=False, share: 0.3}]\n", "")
	w := warningsCoded(sc, "ineffective.repair-threshold")
	require.Len(t, w, 1)
	require.Contains(t, w[0], "share 0.3 fails more than 20% of every NodePool's nodes")
}

// A budget of 0 nodes for reason Unhealthy (the v1.15 reason; upstream
// docs, concepts/disruption budgets) stops repair: a finding says so and
// nothing is replaced.
func TestRepairUnhealthyBudget(t *testing.T) {
	budget := "    budgets:\n      - {nodes: \"0\", reasons: [Unhealthy]}\n"
	sc := repairScenario(t, repairOn, "  nodeFailures: [{at: 1h, condition: Ready=False, count: 1}]\n", budget)
	w := warningsCoded(sc, "ineffective.repair-budget")
	require.Len(t, w, 1, strings.Join(w, "\n"))
	_, st, _ := runRepair(t, sc)
	require.Equal(t, int64(0), st.Disruptions.Unhealthy)

	// With the gate off and no failure, the budget gets one info line.
	info := warningsCoded(repairScenario(t, "", "", budget), "karpenter.gate-off")
	require.Len(t, info, 1)
	require.Contains(t, info[0], `budget "{nodes: 0, reasons: [Unhealthy]}" paces node repair`)
	require.Contains(t, info[0], "it limits nothing")
}

// The Unhealthy budget paces repair: two NotReady nodes (emptied by the
// taint manager, so delete-only commands) go in one pass after another
// with a budget of 100%, and a pass apart (10 s, the first no longer
// draining) with a budget of 1 for Unhealthy.
func TestRepairBudgetPaces(t *testing.T) {
	failure := "  nodeFailures: [{at: 1h, condition: Ready=False, count: 2}]\n"
	gap := func(budgets string) time.Duration {
		failed, st, _ := runRepair(t, repairScenario(t, repairOn, failure, budgets))
		require.Len(t, failed, 2)
		require.Equal(t, int64(2), st.Disruptions.Unhealthy)
		d := failed[1].gone - failed[0].gone
		return max(d, -d)
	}
	require.Less(t, gap("    budgets: [{nodes: \"100%\"}]\n"), time.Second)
	require.GreaterOrEqual(t, gap("    budgets: [{nodes: \"1\", reasons: [Unhealthy]}]\n"), 10*time.Second)
}

// Bad input is refused at its field.
func TestNodeFailureErrors(t *testing.T) {
	for _, c := range []struct{ failure, want string }{
		{"{at: 1h, condition: Ready=Maybe, count: 1}", `spec.nodeFailures[0].condition: unknown condition "Ready=Maybe"`},
		{"{at: 1h, condition: Ready=False}", "spec.nodeFailures[0]: the failure needs exactly one of count, share or ratePerNodeHour (0 given)"},
		{"{at: 1h, condition: Ready=False, share: 1.5}", "spec.nodeFailures[0].share: share 1.5 is not in (0, 1]"},
		{"{at: 1h, for: 1h, condition: Ready=False, count: 1}", "spec.nodeFailures[0].for: for is the window of a ratePerNodeHour"},
		{"{at: 1h, condition: Ready=False, count: 1, nodePools: [general]}", `spec.nodeFailures[0].nodePools[0]: no NodePool "general"`},
		{"{condition: Ready=False, count: 1}", "spec.nodeFailures[0].at: missing at"},
	} {
		doc := fmt.Sprintf("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: f}\nspec:\n  nodeFailures: [%s]\n", c.failure) +
			fixtures.GeneralPurposeNodePool + fixtures.EC2NodeClassDemo
		_, err := scenario.LoadManifests("f.yaml", []byte(doc), nil)
		require.Error(t, err, c.failure)
		require.Contains(t, err.Error(), c.want)
	}
}

// A rate per node-hour fails about rate x node-hours nodes: 0.01 on ten
// nodes for 100 h is 10 expected; the draw is seeded, so the count is
// the same each run.
func TestNodeFailureRate(t *testing.T) {
	doc := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: rate}
spec:
  duration: 100h
  staticNodes: [{name: a, instanceType: m5.large, count: 10}]
  nodeFailures: [{at: 0s, condition: KernelReady=False, ratePerNodeHour: 0.01, recoverAfter: 1m}]
`
	sc, err := scenario.LoadManifests("rate.yaml", []byte(doc), nil)
	require.NoError(t, err)
	rep, err := simulation.Run(sc, simulation.Options{})
	require.NoError(t, err)
	require.GreaterOrEqual(t, rep.Nodes.Failed, 4)
	require.LessOrEqual(t, rep.Nodes.Failed, 18)
	require.InDelta(t, float64(rep.Nodes.Failed)/60, rep.Nodes.UnhealthyHours, 0.001, "each lasts its minute (rounded to 3 decimals)")
	again, err := simulation.Run(sc, simulation.Options{})
	require.NoError(t, err)
	require.Equal(t, rep.Nodes.Failed, again.Nodes.Failed)
}

// The state dump shows a failed node as kubectl would: Ready Unknown
// since the failure, the unreachable taint; a node monitoring agent's
// condition beside a True Ready.
func TestRepairStateDump(t *testing.T) {
	sc := repairScenario(t, "", "  nodeFailures: [{at: 1h, condition: Ready=Unknown, count: 1},"+
		" {at: 1h, condition: AcceleratedHardwareReady=False, count: 1}]\n", "")
	s, err := simulation.Start(sc, simulation.Options{})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(2*time.Hour))
	var buf bytes.Buffer
	require.NoError(t, s.WriteState(&buf))
	out := buf.String()
	require.Equal(t, 1, strings.Count(out, "status: Unknown"), "one Ready=Unknown")
	require.Contains(t, out, "reason: NodeStatusUnknown")
	require.Contains(t, out, "key: node.kubernetes.io/unreachable")
	require.Equal(t, 1, strings.Count(out, "type: AcceleratedHardwareReady"))
}
