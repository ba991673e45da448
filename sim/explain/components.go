package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/trace"
	"github.com/clustersim/clustersim/sim/workload"
)

// What the story asks of one component, one function each and named by
// the component, so that a component contract can answer these questions
// later without the story changing. Each reads the component's settings
// from the scenario or its entries of the trace; none changes a model.

// Karpenter.

// karpenterNoLaunch tells Karpenter's reason for launching nothing for
// the pod (a karpenterNoLaunch entry of the trace).
func karpenterNoLaunch(e trace.Entry) string { return "Karpenter: " + e.Message }

// karpenterDisruption tells why Karpenter removed node: the command of a
// disruptionCommand entry that took it (commandThatTook), its method and
// reason, where the pods went, and the budget that allowed it.
func karpenterDisruption(e trace.Entry, node string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "node %s was removed by Karpenter's %s (%s)", node, e.Method, e.Reason)
	var others []string
	for _, c := range e.Candidates {
		if c.Node != node {
			others = append(others, c.Node)
		}
	}
	with := ""
	if len(others) > 0 {
		with = " and those of " + strings.Join(others, ", ")
	}
	switch {
	case e.Reason == "empty":
		b.WriteString(": it had no pods to move")
	case e.Reason == "unhealthy" && len(e.Replacements) == 0:
		fmt.Fprintf(&b, ": its condition stayed unhealthy past its toleration, and its pods%s fit on the rest of the cluster", with)
	case len(e.Replacements) == 0:
		fmt.Fprintf(&b, ": its pods%s fit on the rest of the cluster", with)
	default:
		switch e.Reason {
		case "drifted":
			b.WriteString(": it no longer matched its NodePool; its pods went to ")
		case "unhealthy":
			b.WriteString(": its condition stayed unhealthy past its toleration; its pods went to ")
		default:
			fmt.Fprintf(&b, ": its pods%s fit on ", with)
		}
		for i, r := range e.Replacements {
			if i > 0 {
				b.WriteString(" and ")
			}
			if e.Reason != "drifted" && e.Reason != "unhealthy" {
				b.WriteString("a cheaper ")
			}
			b.WriteString("replacement")
			if len(r.InstanceTypes) > 0 {
				fmt.Fprintf(&b, " %s (%s", r.InstanceTypes[0], r.CapacityType)
				if r.Options > 1 {
					fmt.Fprintf(&b, ", or one of %d more types", r.Options-1)
				}
				b.WriteString(")")
			}
			fmt.Fprintf(&b, " from NodePool %s", r.NodePool)
		}
	}
	for _, bud := range e.Budgets {
		for _, c := range e.Candidates {
			if c.Node == node && c.NodePool == bud.NodePool {
				b.WriteString("; " + budgetWords(bud, e.Reason))
			}
		}
	}
	for _, sc := range e.Scores {
		for _, c := range e.Candidates {
			if c.Node == node && c.NodePool == sc.NodePool {
				b.WriteString("; " + scoreWords(sc))
			}
		}
	}
	return b.String()
}

// scoreWords says how a Balanced NodePool scored the move that took a
// node (a score of -1 stands for +Inf: the move disrupted nothing).
func scoreWords(sc trace.CommandScore) string {
	score := "infinite"
	if sc.Score >= 0 {
		score = fmt.Sprintf("%.2f", sc.Score)
	}
	return fmt.Sprintf("NodePool %s is Balanced: the move saves %.1f%% of its cost for %.1f%% of its disruption cost, a score of %s (at least %.2f approves it)",
		sc.NodePool, sc.SavingsPct, sc.DisruptionPct, score, sc.Threshold)
}

// budgetWords says which budget of a NodePool allowed a command.
func budgetWords(bud trace.CommandBudget, reason string) string {
	if bud.Nodes == "" {
		return fmt.Sprintf("no budget of NodePool %s limits reason %s", bud.NodePool, reason)
	}
	s := fmt.Sprintf("allowed by NodePool %s's budget %s", bud.NodePool, bud.Nodes)
	if len(bud.Reasons) > 0 {
		s += " for " + strings.Join(bud.Reasons, ", ")
	}
	if bud.Schedule != "" {
		s += " (scheduled " + bud.Schedule + ")"
	}
	if bud.Allowed >= 0 {
		s += fmt.Sprintf(", which let %d more of its nodes be disrupted then", bud.Allowed)
	}
	return s
}

// The Cluster Autoscaler.

// caNoScaleUp tells the Cluster Autoscaler's reason for not scaling up for
// the pod (a caNoScaleUp entry of the trace).
func caNoScaleUp(e trace.Entry) string { return "Cluster Autoscaler: " + e.Message }

// Every component.

// joinExplainer is the component that owns n, as it explains a node that
// does not register, and its configuration; nil for a static node.
func joinExplainer(sc *scenario.Scenario, n *cluster.Node) (component.JoinExplainer, component.Config) {
	name := n.Owner.String()
	c, ok := component.Lookup(name)
	cfg, runs := sc.Components.Get(name)
	je, is := c.(component.JoinExplainer)
	if !ok || !runs || !is {
		return nil, nil
	}
	return je, cfg
}

// The kubelet.

// kubeletStartDelay is how long after binding the kubelet starts a pod
// that does not wait for anything.
func kubeletStartDelay(sc *scenario.Scenario) time.Duration { return sc.PodStartDelay }

// The workload controllers.

// orderedReady reports whether w is a StatefulSet with
// podManagementPolicy OrderedReady: one that creates a replica only once
// every lower ordinal is Running and Ready.
func orderedReady(w *workload.Spec) bool {
	return w.Kind == workload.StatefulSet && w.OrderedReady
}

// Every capacity source (static nodes, NodePools, node groups), as sim
// lint asks the models: the scheduler's filters, Karpenter's solver, the
// Cluster Autoscaler's scale-up check.

// capacityFor is what each capacity source can do for the pods of the
// workload ref, one placement per variant of its pod template.
func capacityFor(sc *scenario.Scenario, ref string) []lint.Placement {
	var out []lint.Placement
	for _, p := range lint.Check(sc).Placements {
		if p.Workload == ref {
			out = append(out, p)
		}
	}
	return out
}

// capacityInZone is what each capacity source can do in zone for the pods
// of the workload ref.
func capacityInZone(sc *scenario.Scenario, ref, zone string) []lint.Cell {
	return lint.ZoneCells(sc, ref, zone)
}
