package clusterautoscaler

import (
	"maps"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// ScaleUpOption is one group a scale-up could grow: the nodes the
// binpacking estimate gives it and the pending pods they are for.
type ScaleUpOption struct {
	Group string // the node group's name
	Nodes int
	Pods  []cluster.PodID
}

// ScaleUpDecision is what a scale-up would decide now: every option the
// estimator found (in group order) and those the --expander chain keeps
// (Best, indexes into Options), among which the chain's random fallback
// picks. Pending holds the pods the scale-up considered (after those that
// fit existing and upcoming nodes were dropped).
type ScaleUpDecision struct {
	Pending []cluster.PodID
	Options []ScaleUpOption
	Best    []int
}

// DecideScaleUp runs the decision half of a loop's scale-up on the
// cluster as it is now, without acting on it: templates, the pending pods
// (the new-pod buffer is not waited for), the estimate per group and the
// expander chain. The caps a scale-up applies when it is carried out
// (--max-nodes-total, --cores-total, --memory-total) and balancing are not
// applied. It is the entry point of the upstream comparison
// (fidelity/ca); the simulation itself never calls it.
func (a *Autoscaler) DecideScaleUp() ScaleUpDecision {
	var d ScaleUpDecision
	groups, opts, _ := a.orch.scaleUpOptions(a.eng.Now(), false)
	for _, pg := range groups {
		if !pg.fake {
			d.Pending = append(d.Pending, pg.pods...)
		}
	}
	index := make(map[*option]int, len(opts))
	for i, o := range opts {
		index[o] = i
		d.Options = append(d.Options, ScaleUpOption{Group: o.g.cfg.Name, Nodes: o.est.nodes, Pods: append([]cluster.PodID(nil), o.est.pods...)})
	}
	if len(opts) > 0 {
		for _, o := range a.exp.bestOptions(opts) {
			d.Best = append(d.Best, index[o])
		}
	}
	return d
}

// Why a node of an autoscaled group is not unneeded, besides the Block*
// reasons (upstream's simulator.UnremovableReason names where it has one).
const (
	ReasonNotUnderutilized       = "NotUnderutilized"       // used at or above the threshold
	ReasonBeingDeleted           = "CurrentlyBeingDeleted"  // a deletion is in progress
	ReasonRecentlyUnremovable    = "RecentlyUnremovable"    // found unremovable within --unremovable-node-recheck-timeout
	ReasonNotReady               = "NotReady"               // not Ready (a registered node that never becomes Ready is scaleDownUnready's, outside this plan)
	ReasonNotUnneededOtherReason = "NotUnneededOtherReason" // past --scale-down-non-empty-candidates-count
	ReasonParallelism            = "MaxParallelismReached"  // unneeded, but the deletions in flight are at the maximum
)

// ScaleDownNode is the planner's verdict on one node of the autoscaled
// groups.
type ScaleDownNode struct {
	Node  cluster.NodeID
	Name  string
	Group string
	// Utilization is the requested share of allocatable the threshold is
	// compared with (cpu or memory, whichever is higher; GPUs on a GPU
	// node).
	Utilization float64
	// Unneeded: at or below the threshold, no pod blocks it and its pods fit
	// on the other nodes. Delete: a loop would start deleting it now, its
	// unneeded time and the cool-downs aside.
	Unneeded, Delete bool
	// Reason says why a node is not unneeded, or why an unneeded one is
	// not deleted (a Block* or Reason* constant); "" when it is deleted.
	Reason string
}

// ScaleDownPlan is what the scale-down planner would decide now: every
// node of the autoscaled groups (by NodeID) with its verdict, the
// unneeded nodes (oldest unneeded first) and those a loop would delete.
// InCooldown: a scale-down cool-down (--scale-down-delay-after-add,
// -after-delete, -after-failure) is running, so a loop would delete none
// of ToDelete now.
type ScaleDownPlan struct {
	Nodes      []ScaleDownNode
	Unneeded   []cluster.NodeID
	ToDelete   []cluster.NodeID
	InCooldown bool
}

// PlanScaleDown runs the scale-down planner on the cluster as it is now,
// without acting on it and without changing what the next loop decides:
// eligibility (readiness, the scale-down-disabled label, the recheck
// timeout, the utilization threshold), the removal simulation (blockers,
// a place for every pod on the other nodes, later candidates seeing
// earlier ones' pods) and the choice of the nodes to delete (empty ones
// first, group minimums, --max-scale-down-parallelism,
// --max-drain-parallelism). --scale-down-unneeded-time and the scale-down
// cool-downs are not applied (InCooldown says whether one runs), nor are
// soft taints put on. It is the entry
// point of the upstream comparison of scale-down (fidelity/ca), as
// DecideScaleUp is of scale-up; the simulation itself never calls it.
func (a *Autoscaler) PlanScaleDown() ScaleDownPlan {
	return a.plan.dryRun(a.eng.Now())
}

// dryRun is PlanScaleDown: a pass of findUnneeded and nodesToDelete
// between a save and a restore of what they change (the nodes' unneeded
// and recheck times, the blocked records, the replay state and the scan
// list).
func (pl *planner) dryRun(now engine.Time) ScaleDownPlan {
	type saved struct{ since, recheck engine.Time }
	var keep []saved
	var ids []cluster.NodeID
	for _, g := range pl.groups {
		for _, id := range g.nodes {
			n := pl.nodes.get(id)
			ids = append(ids, id)
			keep = append(keep, saved{n.unneededSince, n.recheckAt})
		}
	}
	blocked, replay := pl.blocked, pl.replay.clone()
	scan, scanGI := append([]cluster.NodeID(nil), pl.cache.scan...), pl.cache.scanGI
	pl.blocked = nil
	defer func() {
		for i, id := range ids {
			n := pl.nodes.get(id)
			n.unneededSince, n.recheckAt = keep[i].since, keep[i].recheck
		}
		pl.blocked, pl.replay = blocked, replay
		c := &pl.cache
		for _, id := range c.scan {
			c.inScan[id] = false
		}
		c.scan = append(c.scan[:0], scan...)
		for _, id := range c.scan {
			c.inScan[id] = true
		}
		c.scanGI = scanGI
	}()

	plan := ScaleDownPlan{InCooldown: pl.inCooldown(now)}
	unneeded := pl.findUnneeded(now)
	plan.Unneeded = append([]cluster.NodeID(nil), unneeded...)
	pl.nodesToDelete(unneeded, now, false, true)
	plan.ToDelete = append([]cluster.NodeID(nil), pl.scratch.picked...)
	why := map[cluster.NodeID]string{}
	for reason, nodes := range pl.blocked {
		for id := range nodes {
			why[id] = reason
		}
	}
	isUnneeded, isDeleted := map[cluster.NodeID]bool{}, map[cluster.NodeID]bool{}
	for _, id := range plan.Unneeded {
		isUnneeded[id] = true
	}
	for _, id := range plan.ToDelete {
		isDeleted[id] = true
	}
	recheck := make(map[cluster.NodeID]engine.Time, len(ids))
	for i, id := range ids {
		recheck[id] = keep[i].recheck
	}
	gi := pl.gpuIndex()
	for _, id := range slices.Sorted(maps.Keys(recheck)) {
		n := pl.nodes.get(id)
		if !n.group.sel.Autoscaled {
			continue
		}
		u, low := pl.underutilized(id, gi)
		v := ScaleDownNode{Node: id, Name: pl.cl.Nodes[id].Name, Group: n.group.cfg.Name, Utilization: u,
			Unneeded: isUnneeded[id], Delete: isDeleted[id]}
		st := pl.nodeFlags(id)
		switch {
		case v.Delete:
		case n.deleting:
			v.Reason = ReasonBeingDeleted
		case !st.ready:
			v.Reason = ReasonNotReady
		case why[id] != "":
			v.Reason = why[id]
		case !v.Unneeded && now < recheck[id]:
			v.Reason = ReasonRecentlyUnremovable
		case !low:
			v.Reason = ReasonNotUnderutilized
		case v.Unneeded:
			v.Reason = ReasonParallelism
		default:
			v.Reason = ReasonNotUnneededOtherReason
		}
		plan.Nodes = append(plan.Nodes, v)
	}
	return plan
}
