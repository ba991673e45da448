package karpenter

import (
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// terminator deletes Karpenter's nodes (KC termination controller): taint,
// drain through the eviction API within the grace period, terminate. It
// also runs the forceful deletions, expiration and interruption, that go
// around the disruption controller and its budgets.
type terminator struct {
	env
	parts
	// onDisruption, when set, hears of each node deletion started, with
	// its reason (Karpenter.OnDisruption).
	onDisruption func(node cluster.NodeID, reason string)
}

// Disruption reasons as the report counts them.
const (
	reasonEmpty         = "empty"
	reasonUnderutilized = "underutilized"
	reasonDrifted       = "drifted"
	reasonExpired       = "expired"
	reasonInterrupted   = "interrupted"
	// reasonOverprovisioned: a static pool scaled down (static.go).
	reasonOverprovisioned = "overprovisioned"
	// reasonUnhealthy: node repair (repair.go).
	reasonUnhealthy = "unhealthy"
)

// startDeletion deletes a NodeClaim (KC termination controller): taint the
// node karpenter.sh/disrupted:NoSchedule, drain it through the eviction API
// (PodDisruptionBudgets honoured, do-not-disrupt pods waited for), and
// terminate the instance once the node is empty or its
// terminationGracePeriod has passed. The pods' replacements are
// provisioned meanwhile: pods of deleting nodes join every batch.
func (tm *terminator) startDeletion(kn *knode, reason string) {
	if kn.Deleting {
		return
	}
	kn.Deleting = true
	kn.cmd, kn.InCommand = nil, false
	tm.base.NodeDirty(kn.ID)
	now := tm.eng.Now()
	kn.deletingSince = now
	if tgp := kn.Pool.Spec.TerminationGracePeriod; tgp > 0 {
		kn.tgpDeadline = now + tgp
	}
	tm.stats.Disruptions.add(reason)
	tm.poolStat(kn.Pool).Disruptions.add(reason)
	if kn.Pool.Spec.Static {
		tm.static.poke() // a NodeClaim of its is being deleted: refill
	}
	if tm.onDisruption != nil {
		tm.onDisruption(kn.ID, reason)
	}
	tm.cl.AddTaint(kn.ID, cluster.Taint{Key: tm.keyDisrupted, Effect: cluster.EffectNoSchedule})
	if tm.cl.Nodes[kn.ID].State == cluster.NodeLaunching {
		// Nothing runs there yet: terminate at once.
		tm.removeNode(kn, terminateInstance)
		return
	}
	tm.prov.trigger()
	tm.eng.Cancel(kn.drainTimer)
	kn.drainTimer = tm.eng.After(0, engine.Event{Handler: tm.id, Kind: evDrain, Obj: int32(kn.ID)})
}

// drain evicts what it can and finishes the node when it is empty (KC
// Terminator.Drain, requeued every DrainPollInterval).
func (tm *terminator) drain(id cluster.NodeID) {
	kn := tm.nodes.get(id)
	if kn == nil || !kn.Deleting {
		return
	}
	cl := tm.cl
	n := &cl.Nodes[id]
	now := tm.eng.Now()
	forced := kn.tgpDeadline > 0
	if forced && now >= kn.tgpDeadline {
		tm.endDrained(kn)
		return
	}
	// Copy: evictions of pending pods would change the slice.
	pods := append([]cluster.PodID(nil), n.Pods...)
	waiting, progress := false, false
	for _, pid := range pods {
		p := &cl.Pods[pid]
		if p.Phase.Terminal() {
			continue
		}
		if !movableSpec(p.Spec) || p.Spec.Tolerations.Tolerate(cluster.Taint{Key: tm.keyDisrupted, Effect: cluster.EffectNoSchedule}) {
			// Mirror pods and pods that tolerate the disruption taint are
			// not drained (KC pod.IsWaitingEviction): they end with the
			// node. DaemonSet pods are drained last upstream
			// (Terminator.groupPodsByPriority); here they end with the
			// node too (docs/models.md). Every other pod is drained,
			// however it came to the node (spec.nodeName included).
			continue
		}
		waiting = true
		if p.Terminating {
			continue
		}
		if forced && now >= kn.tgpDeadline-p.Spec.TerminationGrace {
			// Delete early enough that the pod gets its full grace period
			// before the node's deadline (KC DeleteExpiringPods).
			cl.MarkTerminating(pid)
			tm.eng.After(max(kn.tgpDeadline-now, time.Second), engine.Event{Handler: tm.id, Kind: evForceDelete, Obj: int32(pid)})
			progress = true
			continue
		}
		if active, _ := p.DoNotDisruptActive(now); active {
			// Waits for the pod to finish, its do-not-disrupt duration to
			// run out (the drain retries every 10 s at most), or the
			// deadline (KC pod.IsEvictable).
			continue
		}
		if tm.evictor.Evict(pid, cluster.CauseEvicted) {
			tm.stats.PodsEvicted++
			tm.poolStat(kn.Pool).PodsEvicted++
			progress = true
		}
	}
	if !waiting {
		// Empty, or only pods that tolerate the disruption taint are left:
		// those die with the node. The drain counts as done only once it
		// has run MinDrainTime (pods bound just after the taint are
		// drained too).
		if until := kn.deletingSince + MinDrainTime; now < until && !kn.instanceEnded {
			kn.drainTimer = tm.eng.After(until-now, engine.Event{Handler: tm.id, Kind: evDrain, Obj: int32(id)})
			return
		}
		tm.endDrained(kn)
		return
	}
	// Refused evictions are retried with backoff up to 10s (KC eviction
	// queue: 100ms doubling to 10s); pods leaving the node wake the drain
	// at once (see OnChange).
	switch {
	case progress || kn.drainBackoff == 0:
		kn.drainBackoff = tm.settings.DrainPollInterval
	default:
		kn.drainBackoff = min(2*kn.drainBackoff, maxDrainBackoff)
	}
	next := kn.drainBackoff
	if kn.tgpDeadline > 0 {
		next = min(next, max(kn.tgpDeadline-now, 0))
	}
	kn.drainTimer = tm.eng.After(next, engine.Event{Handler: tm.id, Kind: evDrain, Obj: int32(id)})
}

// endDrained goes on from a drained node (or one past its deadline): its
// instance is terminated (EC2 bills no more), and the node stays,
// deleting, until the termination controller's next poll finds the
// instance gone (KC awaitInstanceTermination requeues 5 s after its
// TerminateInstances call; KA reports a shutting-down instance as gone).
// It takes a budget slot while it drains, not once its instance is
// terminating (KC NodePoolStatsFromNodes). That poll drains again first (KC
// runs awaitDrain on every reconcile): a pod bound meanwhile by
// spec.nodeName is evicted before the node goes.
func (tm *terminator) endDrained(kn *knode) {
	if kn.instanceEnded {
		tm.removeNode(kn, instanceGone)
		return
	}
	tm.eng.Cancel(kn.drainTimer)
	tm.cloud.Terminate(kn.instance)
	kn.instanceEnded, kn.instanceEndedAt = true, tm.eng.Now()
	kn.drainTimer = tm.eng.After(InstanceTerminationPoll, engine.Event{Handler: tm.id, Kind: evDrain, Obj: int32(kn.ID)})
}

// MinDrainTime is the least time a drain takes (KC termination
// MinDrainTime); InstanceTerminationPoll is how long after the instance's
// termination call its node is removed (KC awaitInstanceTermination's
// requeue).
const (
	MinDrainTime            = 5 * time.Second
	InstanceTerminationPoll = 5 * time.Second
)

// maxDrainBackoff caps the retry interval of refused evictions (KC
// terminator evictionQueueMaxDelay).
const maxDrainBackoff = 10 * time.Second

// wakeDrain re-runs a deleting node's drain now (a pod left it).
func (tm *terminator) wakeDrain(kn *knode) {
	if !kn.Deleting || kn.instanceEnded || !tm.eng.Pending(kn.drainTimer) {
		return
	}
	tm.eng.Cancel(kn.drainTimer)
	kn.drainTimer = tm.eng.After(0, engine.Event{Handler: tm.id, Kind: evDrain, Obj: int32(kn.ID)})
}

// handleSignal reacts to an EC2 signal about one of Karpenter's
// instances (KA interruption controller).
func (tm *terminator) handleSignal(s cloud.Signal) {
	id, ok := tm.nodes.byInstance[s.Instance]
	if !ok {
		return
	}
	kn := tm.nodes.get(id)
	if kn == nil || kn.instanceEnded {
		return
	}
	switch s.Kind {
	case cloud.RebalanceRecommendation:
		// An event only.
		tm.stats.RebalanceRecommendations++
	case cloud.InterruptionNotice:
		tm.stats.InterruptionNotices++
		if !tm.settings.InterruptionQueue {
			return // nobody reads the notice
		}
		if s.Offering.CapacityType == cluster.Spot {
			tm.offerings.MarkUnavailable(s.Offering)
		}
		if kn.cmd != nil {
			tm.dis.abort(kn.cmd)
		}
		tm.startDeletion(kn, reasonInterrupted)
	case cloud.Terminated:
		tm.stats.InstancesReclaimed++
		tm.poolStat(kn.Pool).InstancesReclaimed++
		if kn.cmd != nil {
			tm.dis.abort(kn.cmd)
		}
		tm.removeNode(kn, instanceGone)
		tm.prov.trigger()
	}
}

// expire starts the forceful deletion of an expired node: no budget, no
// do-not-disrupt check (KC nodeclaim expiration).
func (tm *terminator) expire(id cluster.NodeID) {
	kn := tm.nodes.get(id)
	if kn == nil || kn.Deleting || tm.cl.Nodes[id].State == cluster.NodeGone {
		return
	}
	if kn.cmd != nil {
		tm.dis.abort(kn.cmd)
	}
	tm.startDeletion(kn, reasonExpired)
}

// instanceFate says whether removing a node must terminate its instance.
type instanceFate uint8

const (
	// terminateInstance: Karpenter ends the instance itself.
	terminateInstance instanceFate = iota
	// instanceGone: EC2 reclaimed it already; nothing to terminate.
	instanceGone
)

// removeNode terminates the instance (unless it is gone already) and
// deletes the node; its pods die with it.
func (tm *terminator) removeNode(kn *knode, fate instanceFate) {
	tm.eng.Cancel(kn.regTimer)
	tm.eng.Cancel(kn.expireTimer)
	tm.eng.Cancel(kn.drainTimer)
	if fate == terminateInstance {
		tm.cloud.Terminate(kn.instance)
	}
	tm.nodes.remove(kn)
	if kn.Pool.Spec.Static {
		tm.static.poke()
	}
	if kn.replacementOf != nil {
		tm.eng.After(0, engine.Event{Handler: tm.id, Kind: evCommandCheck})
	}
	tm.cl.RemoveNode(kn.ID)
}
