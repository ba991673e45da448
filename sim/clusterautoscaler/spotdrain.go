package clusterautoscaler

import (
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
)

// Who drains a node group's spot nodes before EC2 takes them back. The
// Cluster Autoscaler has no interruption handler; three setups are
// modelled:
//
//   - EKS managed node groups (spot): the ASG's capacity rebalancing
//     launches a replacement on the rebalance recommendation, and EKS
//     cordons and drains the at-risk node once the replacement is Ready,
//     or at once when the two-minute interruption notice comes first (EKS
//     user guide, managed node groups, "Spot Instances").
//   - Self-managed groups with aws-node-termination-handler: it cordons
//     and drains on the interruption notice; on a rebalance
//     recommendation the IMDS processor only cordons (unless
//     ENABLE_REBALANCE_DRAINING), the queue processor drains, and the
//     queue processor also drains the instance a capacity rebalance
//     terminates (ASG termination lifecycle hook).
//   - Self-managed groups without it: nothing drains; the pods die with
//     the instance, and a capacity rebalance terminates the old instance
//     without draining it once the replacement is in service (EC2 Auto
//     Scaling user guide, Capacity Rebalancing).

// spotSignal reacts to a rebalance recommendation or an interruption
// notice for node id of a group: drains or cordons it as the group's
// setup does.
func (ac *actuator) spotSignal(id cluster.NodeID, n *caNode, kind cloud.SignalKind) {
	if n.deleting {
		return // already on its way out (rebalanced, drained or scaled down)
	}
	h := ac.s.TerminationHandler
	drain, cordon := false, false
	switch {
	case n.group.cfg.Managed:
		// EKS drains on the notice; on the recommendation it waits for
		// the replacement to be Ready (nodeReady).
		drain = kind == cloud.InterruptionNotice
	case h.Mode == config.NTHNone:
		return
	case kind == cloud.InterruptionNotice:
		drain = h.DrainOnInterruption
	default: // a rebalance recommendation
		drain, cordon = h.DrainOnRebalance, true
	}
	switch {
	case drain:
		ac.stats.spotDrains++
		n.group.stats.SpotDrains++
		ac.startDelete(id, ac.eng.Now(), deleteInterrupt)
	case cordon:
		ac.cl.SetCordon(id, true)
	}
}

// retireRebalanced ends a node whose capacity-rebalancing replacement is
// Ready: EKS drains it (managed groups), as does aws-node-termination-handler
// in queue mode on the ASG's termination lifecycle hook; otherwise the ASG
// terminates it and its pods die with it. A node already drained for its
// interruption notice or a rebalance recommendation is terminated now; one
// a scale-down is deleting is left to it.
func (ac *actuator) retireRebalanced(id cluster.NodeID, n *caNode) {
	switch {
	case n.deleting && n.drain.kind != deleteInterrupt:
		return
	case n.deleting:
		// The ASG terminates it; pods still on it die with it.
	case n.group.cfg.Managed || ac.s.TerminationHandler.Mode == config.NTHQueue:
		ac.stats.spotDrains++
		n.group.stats.SpotDrains++
		ac.startDelete(id, ac.eng.Now(), deleteRebalance)
		return
	}
	inst := n.instance
	ac.dropNode(id)
	ac.cl.RemoveNode(id)
	ac.cloud.Terminate(inst)
	ac.refreshNow = true
}
