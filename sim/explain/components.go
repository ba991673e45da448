package explain

import (
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
