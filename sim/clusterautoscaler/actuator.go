package clusterautoscaler

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// actuator is the scale-down actuator (core/scaledown/actuation): it
// starts node deletions (taints, cordon), drains them through the
// eviction API, retries and gives up, and deletes the nodes; it also runs
// the drains of spot nodes (spotdrain.go).
type actuator struct {
	env
	parts

	drains             int // non-empty nodes being drained
	scaleDownsInFlight int // nodes being deleted by scale-down
	// onDelete, when set, hears of each node deletion started (OnDelete).
	onDelete func(node cluster.NodeID, reason string)
}

type deleteKind uint8

const (
	deleteScaleDown deleteKind = iota
	deleteRebalance            // the ASG's capacity rebalancing retires an at-risk spot node
	deleteInterrupt            // EKS or aws-node-termination-handler drains a spot node EC2 is about to reclaim; EC2 ends it
)

// drainState is a node deletion in progress.
type drainState struct {
	active   bool
	empty    bool // no pods: deleted after the taint delay, no drain
	kind     deleteKind
	start    engine.Time
	deadline engine.Time // refused evictions are retried until then
	evicted  bool        // every eviction was accepted
	waitEnd  engine.Time // after which the node goes, pods or not
	timer    engine.Timer
}

// startDelete taints (and cordons) a node and deletes it: an empty one
// after --node-delete-delay-after-taint, another after draining it.
func (ac *actuator) startDelete(id cluster.NodeID, now engine.Time, kind deleteKind) {
	ac.startDeleteFor(id, now, kind, deleteReasons[kind])
}

// startDeleteFor is startDelete with the reason OnDelete hears.
func (ac *actuator) startDeleteFor(id cluster.NodeID, now engine.Time, kind deleteKind, reason string) {
	n := ac.nodes.get(id)
	n.deleting = true
	n.drain = drainState{active: true, kind: kind, start: now, deadline: now + ac.s.MaxPodEvictionTime}
	ac.countDeleting(n, 1)
	if ac.onDelete != nil {
		ac.onDelete(id, reason)
	}
	ac.cl.AddTaint(id, cluster.Taint{Key: ac.symToBeDeleted, Effect: cluster.EffectNoSchedule})
	if ac.s.CordonNodeBeforeTerminating {
		ac.cl.SetCordon(id, true)
	}
	if ac.onlyDaemons(id) {
		n.drain.empty = true
		n.drain.timer = ac.eng.After(ac.s.NodeDeleteDelayAfterTaint, engine.Event{Handler: ac.id, Kind: evDelete, Obj: int32(id)})
		return
	}
	if kind == deleteScaleDown {
		ac.drains++
	}
	ac.drainStep(id)
}

// drainStep evicts the node's pods; refused evictions are retried every
// EvictionRetryTime until --max-pod-eviction-time, after which the
// scale-down fails. Once every eviction is accepted the node goes when its
// last pod is gone, or after the longest grace period (capped by
// --max-graceful-termination-sec) plus a headroom.
func (ac *actuator) drainStep(id cluster.NodeID) {
	n := ac.nodes.get(id)
	if n == nil || !n.drain.active || n.drain.empty {
		return
	}
	now := ac.eng.Now()
	ac.eng.Cancel(n.drain.timer)
	nd := &ac.cl.Nodes[id]
	if !n.drain.evicted {
		refused := false
		grace := engine.Time(0)
		pods := append([]cluster.PodID(nil), nd.Pods...)
		for _, p := range pods {
			pod := &ac.cl.Pods[p]
			if pod.Spec.DaemonSet {
				continue // left on the node; they end with it
			}
			if !pod.Terminating && !ac.ev.Evict(p, cluster.CauseEvicted) {
				refused = true
				continue
			}
			grace = max(grace, min(pod.Spec.TerminationGrace, ac.s.MaxGracefulTermination))
		}
		if refused {
			if now >= n.drain.deadline && n.drain.kind == deleteInterrupt {
				return // the instance goes anyway; the pods left die with it
			}
			if now >= n.drain.deadline {
				ac.abortDelete(id, now)
				return
			}
			n.drain.timer = ac.eng.After(ac.s.EvictionRetryTime, engine.Event{Handler: ac.id, Kind: evDrain, Obj: int32(id)})
			return
		}
		n.drain.evicted = true
		n.drain.waitEnd = now + grace + podEvictionHeadroom
		if n.drain.kind == deleteInterrupt {
			return // drained: EC2 takes the instance, not us
		}
	}
	if ac.onlyDaemons(id) || now >= n.drain.waitEnd {
		ac.finishDelete(id)
		return
	}
	n.drain.timer = ac.eng.Schedule(n.drain.waitEnd, engine.Event{Handler: ac.id, Kind: evDrain, Obj: int32(id)})
}

// countDeleting counts a node's deletion in (d = 1) or out (d = -1) of
// its group's and the scale-down's counts.
func (ac *actuator) countDeleting(n *caNode, d int) {
	n.group.deleting += d
	if n.drain.kind == deleteScaleDown {
		ac.scaleDownsInFlight += d
	}
}

// abortDelete gives up a drain: the node is untainted and uncordoned, and
// scale-down waits --scale-down-delay-after-failure.
func (ac *actuator) abortDelete(id cluster.NodeID, now engine.Time) {
	n := ac.nodes.get(id)
	if n.drain.kind == deleteScaleDown {
		ac.drains--
		ac.lastScaleDownFail = now
		ac.stats.failedScaleDowns++
	}
	ac.eng.Cancel(n.drain.timer)
	ac.countDeleting(n, -1)
	n.drain = drainState{}
	n.deleting = false
	n.unneededSince = never
	ac.cl.RemoveTaint(id, ac.symToBeDeleted, cluster.EffectNoSchedule)
	if ac.s.CordonNodeBeforeTerminating {
		ac.cl.SetCordon(id, false)
	}
}

// finishDelete terminates the node's instance and removes the node; a
// scale-down lowers the ASG's desired capacity with it.
func (ac *actuator) finishDelete(id cluster.NodeID) {
	n := ac.nodes.get(id)
	if n == nil || !n.drain.active || n.drain.kind == deleteInterrupt {
		return
	}
	if n.drain.empty && ac.podsToMove(id) > 0 {
		// A pod landed in the delay after the taint: drain it after all.
		n.drain.empty = false
		if n.drain.kind == deleteScaleDown {
			ac.drains++
		}
		ac.drainStep(id)
		return
	}
	g, inst, kind := n.group, n.instance, n.drain.kind
	ac.dropNode(id)
	ac.cl.RemoveNode(id)
	ac.cloud.Terminate(inst)
	if kind == deleteScaleDown {
		g.target--
		ac.stats.nodesRemoved++
		g.stats.NodesRemoved++
	}
	ac.refreshNow = true
}
