package karpenter

import (
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Disruption reasons as the report counts them.
const (
	reasonEmpty         = "empty"
	reasonUnderutilized = "underutilized"
	reasonDrifted       = "drifted"
	reasonExpired       = "expired"
	reasonInterrupted   = "interrupted"
)

// startDeletion deletes a NodeClaim (KC termination controller): taint the
// node karpenter.sh/disrupted:NoSchedule, drain it through the eviction API
// (PodDisruptionBudgets honoured, do-not-disrupt pods waited for), and
// terminate the instance once the node is empty or its
// terminationGracePeriod has passed. The pods' replacements are
// provisioned meanwhile: pods of deleting nodes join every batch.
func (k *Karpenter) startDeletion(kn *knode, reason string) {
	if kn.deleting {
		return
	}
	kn.deleting = true
	kn.cmd = nil
	k.baseNodeChanged(kn.id)
	now := k.eng.Now()
	if tgp := kn.pool.spec.TerminationGracePeriod; tgp > 0 {
		kn.tgpDeadline = now + tgp
	}
	k.stats.Disruptions.add(reason)
	kn.pool.stats.Disruptions.add(reason)
	k.cl.AddTaint(kn.id, cluster.Taint{Key: k.keyDisrupted, Effect: cluster.EffectNoSchedule})
	if k.cl.Nodes[kn.id].State == cluster.NodeLaunching {
		// Nothing runs there yet: terminate at once.
		k.removeNode(kn, true)
		return
	}
	k.trigger()
	k.eng.Cancel(kn.drainTimer)
	kn.drainTimer = k.eng.After(0, engine.Event{Handler: k.id, Kind: evDrain, Obj: int32(kn.id)})
}

// drain evicts what it can and finishes the node when it is empty (KC
// Terminator.Drain, requeued every DrainPollInterval).
func (k *Karpenter) drain(id cluster.NodeID) {
	kn := k.knodeOf(id)
	if kn == nil || !kn.deleting {
		return
	}
	cl := k.cl
	n := &cl.Nodes[id]
	now := k.eng.Now()
	forced := kn.tgpDeadline > 0
	if forced && now >= kn.tgpDeadline {
		k.removeNode(kn, true)
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
		if p.Spec.NodeName != "" || p.Spec.Tolerations.Tolerate(cluster.Taint{Key: k.keyDisrupted, Effect: cluster.EffectNoSchedule}) {
			// DaemonSet and static pods, and pods that tolerate the
			// disruption taint, are not drained: they end with the node.
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
			k.eng.After(max(kn.tgpDeadline-now, time.Second), engine.Event{Handler: k.id, Kind: evForceDelete, Obj: int32(pid)})
			progress = true
			continue
		}
		if p.Spec.DoNotDisrupt {
			continue // waits for the pod to finish, or for the deadline
		}
		if k.evictor.Evict(pid, cluster.CauseEvicted) {
			k.stats.PodsEvicted++
			kn.pool.stats.PodsEvicted++
			progress = true
		}
	}
	if !waiting {
		// Empty, or only pods that tolerate the disruption taint are left:
		// those die with the node.
		k.removeNode(kn, true)
		return
	}
	// Refused evictions are retried with backoff up to 10s (KC eviction
	// queue: 100ms doubling to 10s); pods leaving the node wake the drain
	// at once (see OnChange).
	switch {
	case progress || kn.drainBackoff == 0:
		kn.drainBackoff = k.settings.DrainPollInterval
	default:
		kn.drainBackoff = min(2*kn.drainBackoff, maxDrainBackoff)
	}
	next := kn.drainBackoff
	if kn.tgpDeadline > 0 {
		next = min(next, max(kn.tgpDeadline-now, 0))
	}
	kn.drainTimer = k.eng.After(next, engine.Event{Handler: k.id, Kind: evDrain, Obj: int32(id)})
}

// maxDrainBackoff caps the retry interval of refused evictions (KC
// terminator evictionQueueMaxDelay).
const maxDrainBackoff = 10 * time.Second

// wakeDrain re-runs a deleting node's drain now (a pod left it).
func (k *Karpenter) wakeDrain(kn *knode) {
	if !kn.deleting || !k.eng.Pending(kn.drainTimer) {
		return
	}
	k.eng.Cancel(kn.drainTimer)
	kn.drainTimer = k.eng.After(0, engine.Event{Handler: k.id, Kind: evDrain, Obj: int32(kn.id)})
}

// handleSignal reacts to an EC2 signal about one of Karpenter's
// instances (KA interruption controller).
func (k *Karpenter) handleSignal(s cloud.Signal) {
	id, ok := k.byInstance[s.Instance]
	if !ok {
		return
	}
	kn := k.knodeOf(id)
	if kn == nil {
		return
	}
	switch s.Kind {
	case cloud.RebalanceRecommendation:
		// An event only.
		k.stats.RebalanceRecommendations++
	case cloud.InterruptionNotice:
		k.stats.InterruptionNotices++
		if !k.settings.InterruptionQueue {
			return // nobody reads the notice
		}
		if s.Offering.CapacityType == cluster.Spot {
			k.markUnavailable(s.Offering)
		}
		if kn.cmd != nil {
			k.abortCommand(kn.cmd)
		}
		k.startDeletion(kn, reasonInterrupted)
	case cloud.Terminated:
		k.stats.InstancesReclaimed++
		kn.pool.stats.InstancesReclaimed++
		if kn.cmd != nil {
			k.abortCommand(kn.cmd)
		}
		k.removeNode(kn, false)
		k.trigger()
	}
}
