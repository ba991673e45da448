package explain

import (
	"fmt"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
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

// karpenterJoinTimeout is how long Karpenter waits for a NodeClaim's node
// to register before it deletes the NodeClaim.
func karpenterJoinTimeout(sc *scenario.Scenario) time.Duration {
	return sc.KarpenterSettings.RegistrationTimeout
}

// karpenterGaveUp tells what Karpenter did with a node that did not join
// in time (why: what became of the join).
func karpenterGaveUp(sc *scenario.Scenario, n *cluster.Node, why string) string {
	return fmt.Sprintf("%s, and Karpenter deleted its NodeClaim at %s, after the %s registration timeout, and provisioned again",
		why, fmtTime(n.Deleted.Seconds()), fmtTime(karpenterJoinTimeout(sc).Seconds()))
}

// The Cluster Autoscaler.

// caNoScaleUp tells the Cluster Autoscaler's reason for not scaling up for
// the pod (a caNoScaleUp entry of the trace).
func caNoScaleUp(e trace.Entry) string { return "Cluster Autoscaler: " + e.Message }

// caJoinTimeout is --max-node-provision-time: how long the Cluster
// Autoscaler waits for a node to register before it removes it.
func caJoinTimeout(sc *scenario.Scenario) time.Duration {
	return sc.CASettings.MaxNodeProvisionTime
}

// caGaveUp tells what the Cluster Autoscaler did with a node that did not
// join in time.
func caGaveUp(sc *scenario.Scenario, n *cluster.Node, why string) string {
	return fmt.Sprintf("%s, and the Cluster Autoscaler removed it at %s as unregistered for longer than --max-node-provision-time (%s; a scale-up still waiting for it timed out then and backed node group %s off)",
		why, fmtTime(n.Deleted.Seconds()), fmtTime(caJoinTimeout(sc).Seconds()), n.OwnerName)
}

// caKeptUnregistered says why the Cluster Autoscaler left an unregistered
// node of its own in place.
func caKeptUnregistered() string {
	return " (the Cluster Autoscaler does not remove unregistered nodes below a node group's minimum size)"
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
