package clusterautoscaler

import (
	"cmp"
	"slices"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Why a node cannot be scaled down, in upstream's words
// (simulator/drain: BlockingPodReason, and the planner's unremovable
// reasons).
const (
	BlockNotReplicated        = "NotReplicated"               // a pod without a controller
	BlockKubeSystem           = "UnmovableKubeSystemPod"      // a kube-system pod without a PDB
	BlockNotSafeToEvict       = "NotSafeToEvictAnnotation"    // safe-to-evict: "false"
	BlockPDB                  = "NotEnoughPdb"                // a PDB allows no disruption
	BlockNoPlaceToMove        = "NoPlaceToMovePods"           // the pods fit nowhere else
	BlockScaleDownDisabled    = "ScaleDownDisabledAnnotation" // the node's scale-down-disabled label
	BlockMinSize              = "NodeGroupMinSizeReached"     // the group is at its minimum
	maxNonEmptyCandidatesLoop = 30                            // --scale-down-non-empty-candidates-count
)

// planner is the scale-down planner (core/scaledown/planner): it finds
// the unneeded nodes (eligibility: utilization below the threshold; the
// removal simulation: every pod movable and fitting elsewhere), keeps the
// soft taints, and outside the cool-downs picks the nodes to delete
// (NodesToDelete), which the actuator deletes. It records why nodes were
// kept and replays removal simulations whose answer cannot have changed
// (replay.go).
type planner struct {
	env
	parts

	scratch downScratch
	replay  replayState
	// blocked records, per blocking reason, the nodes it ever kept from
	// scale-down.
	blocked map[string]map[cluster.NodeID]bool
}

// downScratch holds the planner's buffers reused across loops.
type downScratch struct {
	dests    destSet
	unneeded []bool // by NodeID, all false between loops
	// findUnneeded's buffers.
	cands        []cand
	out          []cluster.NodeID // findUnneeded's result
	unneededKeys []unneededKey
	moves        []move
	placed       []placedPod
	softRel      []cluster.NodeID // updateSoftTaints' nodes
	room         []int            // nodesToDelete's room per group
	picked       []cluster.NodeID // nodesToDelete's dry picks
}

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

// scaleDown runs the scale-down half of a loop: it finds the unneeded
// nodes (utilization below the threshold, every pod movable and fitting
// elsewhere), soft-taints them, and outside the cool-downs removes those
// unneeded for --scale-down-unneeded-time. It returns whether it started
// a deletion.
func (a *planner) scaleDown(now engine.Time, hold bool) bool {
	unneeded := a.findUnneeded(now)
	a.updateSoftTaints(unneeded)
	if hold || a.inCooldown(now) {
		return false
	}
	if n := a.nodesToDelete(unneeded, now, true, false); n > 0 {
		a.lastScaleDownDelete = now
		return true
	}
	return false
}

// nodesToDelete picks the unneeded nodes (oldest unneeded first) to delete
// now (the planner's NodesToDelete): empty nodes first, in bulk, then
// nodes to drain, up to --max-scale-down-parallelism nodes being deleted
// and --max-drain-parallelism drains, never below a group's minimum
// (noted as BlockMinSize); with waited, only nodes unneeded for
// --scale-down-unneeded-time. It starts each deletion as it picks it
// (the actuator's StartDeletion), or with dry only lists it in
// scratch.picked. It returns how many it picked.
func (a *planner) nodesToDelete(unneeded []cluster.NodeID, now engine.Time, waited, dry bool) int {
	// Per group (by index), how many nodes may go without going below the
	// minimum.
	room := a.scratch.room[:0]
	for _, g := range a.groups {
		room = append(room, g.target-g.deleting-g.sel.Min)
	}
	a.scratch.room = room
	a.scratch.picked = a.scratch.picked[:0]
	inFlight := a.act.scaleDownsInFlight
	// dryDrains counts the drains a dry run would have started.
	started, dryDrains := 0, 0
	// Empty nodes first, in bulk; then drains, one at a time by default.
	for pass := 0; pass < 2; pass++ {
		for _, id := range unneeded {
			n := a.nodes.get(id)
			empty := a.podsToMove(id) == 0
			if n.deleting || empty != (pass == 0) || (waited && now-n.unneededSince < a.s.ScaleDownUnneededTime) {
				continue
			}
			if room[n.group.idx] <= 0 {
				a.noteBlocked(BlockMinSize, id)
				continue
			}
			if inFlight >= a.s.MaxScaleDownParallelism {
				continue
			}
			if !empty && a.act.drains+dryDrains >= a.s.MaxDrainParallelism {
				continue
			}
			room[n.group.idx]--
			inFlight++
			started++
			if dry {
				a.scratch.picked = append(a.scratch.picked, id)
				if !a.onlyDaemons(id) {
					dryDrains++ // startDelete drains it
				}
				continue
			}
			a.act.startDelete(id, now, deleteScaleDown)
		}
	}
	return started
}

func (a *planner) inCooldown(now engine.Time) bool {
	return a.lastScaleUp+a.s.ScaleDownDelayAfterAdd > now ||
		a.lastScaleDownDelete+a.s.ScaleDownDelayAfterDelete > now ||
		a.lastScaleDownFail+a.s.ScaleDownDelayAfterFailure > now
}

// podsToMove counts the pods a drain would evict.
func (a *clusterState) podsToMove(id cluster.NodeID) int {
	return int(a.state(id).movable)
}

// onlyDaemons reports whether the node's pods, terminating ones included,
// are all DaemonSet pods: a drain has nothing left to wait for.
func (a *clusterState) onlyDaemons(id cluster.NodeID) bool {
	st := a.state(id)
	return len(st.pods) == int(st.daemons)
}

// utilizationOf is the node's requested share of allocatable: the larger
// of cpu and memory, or the GPUs' for a GPU node (simulator/utilization),
// from the node's mirror record (requested = allocatable - free).
// gi is the index of nvidia.com/gpu, -1 when no GPU resource exists
// (gpuIndex).
func (a *planner) utilizationOf(id cluster.NodeID, gi int) (util float64, gpu bool) {
	st := a.state(id)
	free := &a.cache.free[id]
	if gi >= 0 && st.alloc[gi] > 0 {
		return float64(st.alloc[gi]-free[gi]) / float64(st.alloc[gi]), true
	}
	var u float64
	for _, r := range [2]int{cluster.CPU, cluster.Memory} {
		if st.alloc[r] > 0 {
			u = max(u, float64(st.alloc[r]-free[r])/float64(st.alloc[r]))
		}
	}
	return u, false
}

// underutilized returns the node's utilization and whether it is below
// the scale-down threshold (the GPU one for GPU nodes).
func (a *planner) underutilized(id cluster.NodeID, gi int) (float64, bool) {
	u, gpu := a.utilizationOf(id, gi)
	thr := a.s.ScaleDownUtilizationThreshold
	if gpu {
		thr = a.s.ScaleDownGPUUtilizationThreshold
	}
	return u, u < thr
}

// gpuIndex is the resource index of nvidia.com/gpu, or -1.
func (a *clusterState) gpuIndex() int {
	if gi, ok := a.cl.Resources.Lookup(catalog.GPUResourceName); ok {
		return gi
	}
	return -1
}

// destSet is a what-if simulation's view of the nodes pods may move to,
// in NodeID order (ids and pos are the shared list of destIDs). Entries
// of list are set up lazily (at): a loop touches a few hundred of
// thousands of destinations, and copying every node's room each loop was
// a large share of the loop's cost.
type destSet struct {
	ids  []cluster.NodeID
	pos  []int32             // by NodeID: index in ids, -1 when not a destination
	base []cluster.Resources // room at the start of the loop, by NodeID (caches.free)
	list []destination
	gen  uint32 // the loop: entries of other loops are stale
	jumps
	now jumps // nowFit tables
}

// at returns the destination at index i, set up for this loop.
func (d *destSet) at(i int) *destination {
	e := &d.list[i]
	if e.gen != d.gen {
		*e = destination{free: d.base[d.ids[i]], extra: e.extra[:0], gen: d.gen}
	}
	return e
}

func (d *destSet) get(id cluster.NodeID) *destination {
	if int(id) < len(d.pos) && d.pos[id] >= 0 {
		return d.at(int(d.pos[id]))
	}
	return nil
}

// destinations starts the scale-down simulation's destination set.
func (a *planner) destinations() *destSet {
	return a.startDests(&a.scratch.dests)
}

// startDests sets d up for a new simulation over the nodes pods may move
// to: schedulable and not being deleted. The cluster must not change
// while it is in use (the room is the caches' as it is). The set's
// buffers are reused across loops.
func (a *clusterState) startDests(d *destSet) *destSet {
	d.ids, d.pos = a.destIDs()
	d.base = a.cache.free
	d.gen++
	// Grow list to ids; its entries (and their extra buffers) are reused.
	if n := len(d.ids); n > len(d.list) {
		d.list = append(d.list, make([]destination, n-len(d.list))...)
	}
	d.jumps.reset(len(d.ids))
	d.now.reset(len(d.ids))
	return d
}

// destination is a node the scale-down simulation may move pods to.
type destination struct {
	free  cluster.Resources
	extra []placedPod
	gone  bool   // chosen for removal in this pass
	gen   uint32 // the destSet loop the entry was set up for
}

// findUnneeded evaluates the candidates and returns the unneeded nodes,
// oldest unneeded first. A node stays unneeded (keeping its
// unneededSince) as long as every pass finds it so.
func (a *planner) findUnneeded(now engine.Time) []cluster.NodeID {
	cands := a.scratch.cands[:0]
	defer func() { a.scratch.cands = cands[:0] }()
	gi := a.gpuIndex()
	// The nodes of the autoscaled groups, but for quiet ones (nothing to
	// do for them: see quiet), in no particular order (cands are sorted).
	for _, id := range a.scanList(gi) {
		n := a.nodes.get(id)
		if n == nil || !n.group.sel.Autoscaled {
			continue
		}
		st := a.nodeFlags(id)
		if !st.ready || n.deleting {
			continue
		}
		if st.sdDisabled {
			n.unneededSince = never
			a.noteBlocked(BlockScaleDownDisabled, id)
			continue
		}
		if now < n.recheckAt {
			// Recently unremovable: not simulated again before the
			// recheck timeout (eligibility: RecentlyUnremovable).
			n.unneededSince = never
			continue
		}
		u, low := a.underutilized(id, gi)
		if !low {
			n.unneededSince = never
			continue
		}
		cands = append(cands, cand{id: id, util: u, empty: a.podsToMove(id) == 0, was: n.unneededSince != never})
	}
	// A total order (IDs break ties): any sort gives the same result.
	slices.SortFunc(cands, func(ci, cj cand) int {
		if ci.empty != cj.empty {
			if ci.empty {
				return -1
			}
			return 1
		}
		if ci.was != cj.was {
			if ci.was {
				return -1
			}
			return 1
		}
		if ci.util != cj.util {
			if ci.util < cj.util {
				return -1
			}
			return 1
		}
		return cmp.Compare(ci.id, cj.id)
	})

	// The simulation's view of where pods can go.
	dests := a.destinations()
	a.startPass()

	// out is valid until the next call (scaleDown's use).
	out := a.scratch.out[:0]
	nonEmpty := 0
	for _, c := range cands {
		n := a.nodes.get(c.id)
		if !c.empty && !c.was {
			if nonEmpty >= maxNonEmptyCandidatesLoop {
				n.unneededSince = never
				continue
			}
			nonEmpty++
		}
		if why := a.removable(c.id, dests); why != "" {
			n.unneededSince = never
			n.recheckAt = now + a.s.UnremovableNodeRecheckTimeout
			a.noteBlocked(why, c.id)
			continue
		}
		if n.unneededSince == never {
			n.unneededSince = now
		}
		out = append(out, c.id)
	}
	a.scanPrune(gi)
	// Oldest unneeded first; a stable sort on (since, position) keys
	// read once.
	keyed := a.scratch.unneededKeys[:0]
	for i, id := range out {
		keyed = append(keyed, unneededKey{since: a.nodes.get(id).unneededSince, pos: int32(i), id: id})
	}
	slices.SortFunc(keyed, func(x, y unneededKey) int {
		if c := cmp.Compare(x.since, y.since); c != 0 {
			return c
		}
		return cmp.Compare(x.pos, y.pos)
	})
	for i := range keyed {
		out[i] = keyed[i].id
	}
	a.scratch.unneededKeys = keyed
	a.scratch.out = out
	return out
}

// cand is a scale-down candidate of findUnneeded.
type cand struct {
	id    cluster.NodeID
	util  float64
	empty bool
	was   bool // unneeded in the previous pass
}

// unneededKey orders the unneeded nodes (findUnneeded).
type unneededKey struct {
	since engine.Time
	pos   int32
	id    cluster.NodeID
}

// canRemove checks that no pod of the node blocks its removal and that
// its pods fit on the other nodes; on success ("") it commits the moves to
// the simulation and marks the node gone from it, else it says why not.
func (a *planner) canRemove(id cluster.NodeID, dests *destSet) string {
	moves := a.scratch.moves[:0]
	defer func() { a.scratch.moves = moves[:0] }()
	undo := func() {
		dests.resetNow() // room came back: passed-over nodes may fit again
		for _, m := range moves {
			d := dests.at(int(m.dest))
			d.free = d.free.Add(m.spec.Requests)
			if len(d.extra) > 0 {
				d.extra = d.extra[:len(d.extra)-1]
			}
		}
	}
	self := dests.get(id)
	if self != nil {
		self.gone = true
	}
	// The node's pods, in its own order, from the mirror (bound pods are
	// never terminal).
	pods := a.state(id).pods
	for i := range pods {
		r := &pods[i]
		if r.term || r.daemon {
			continue // DaemonSet pods are not rescheduled (drainability rule daemonset)
		}
		if why := a.blockerRef(r); why != "" {
			undo()
			if self != nil {
				self.gone = false
			}
			a.recordCall(id, nodeBlocked, nil, dests)
			return why
		}
		if r.spec.Priority < a.s.ExpendablePodsPriorityCutoff {
			continue // expendable: just killed
		}
		dest := a.findDestination(r, dests)
		if dest < 0 {
			undo()
			if self != nil {
				self.gone = false
			}
			a.recordCall(id, nodeBlocked, nil, dests)
			return BlockNoPlaceToMove
		}
		d := dests.at(dest)
		d.free = d.free.Sub(r.spec.Requests)
		d.extra = append(d.extra, placedPod{r.spec, r.ns})
		moves = append(moves, move{r.spec, r.ns, int32(dest)})
	}
	a.recordCall(id, nodeRemovable, moves, dests)
	return ""
}

// move is a pod the scale-down simulation moved to a destination (index
// in the destination set).
type move struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
	dest int32
}

// noteBlocked records that a reason kept a node from scale-down.
func (a *planner) noteBlocked(why string, id cluster.NodeID) {
	if a.blocked == nil {
		a.blocked = map[string]map[cluster.NodeID]bool{}
	}
	if a.blocked[why] == nil {
		a.blocked[why] = map[cluster.NodeID]bool{}
	}
	a.blocked[why][id] = true
}

// findDestination finds the first node, in ID order, where a pod fits in
// the simulation, and returns its index in the destination set (-1:
// none). Room only shrinks and nodes only go during a pass (until an
// undo), so nodes found full stay so: nowFit passes over them.
func (a *planner) findDestination(r *podRef, dests *destSet) int {
	spec := r.spec
	n := len(dests.ids)
	for i := 0; i < n; i++ {
		if i = a.nowFit(dests, r.fit, spec, i); i >= n {
			break
		}
		d := dests.at(i)
		id := dests.ids[i]
		// Pods without pod-level constraints can only be refused by
		// required anti-affinity of the pods there (or moved there).
		if r.has || (len(d.extra) > 0 && extraAnti(d.extra)) || a.anyAntiAffinity(id) {
			placed := a.scratch.placed[:0]
			for _, q := range a.state(id).pods {
				placed = append(placed, placedPod{q.spec, q.ns})
			}
			placed = append(placed, d.extra...)
			a.scratch.placed = placed
			if !podLevelOK(a.cl.Syms, a.symHostname, spec, r.ns, placed) {
				continue
			}
		}
		return i
	}
	return -1
}

// blockerRef returns why a pod (its mirror record) keeps its node from
// being scaled down, or "" (the drainability rules, in upstream's order:
// safe-to-evict "true" allows any pod; then pods without a controller,
// kube-system pods without a PDB (until they are older than
// --blocking-system-pod-distruption-timeout, the system rule since CA
// 1.33), safe-to-evict "false", and PDBs that allow no disruption). Local
// storage is not modelled.
func (a *planner) blockerRef(r *podRef) string {
	if r.spec.SafeToEvict != nil && *r.spec.SafeToEvict {
		return ""
	}
	if r.workload < 0 {
		return BlockNotReplicated
	}
	if a.s.SkipNodesWithSystemPods && r.ns == a.symKubeSystem && (a.pdbs == nil || !a.pdbs.Covered(r.id)) &&
		a.eng.Now() <= a.cl.Pods[r.id].Created+a.s.BlockingSystemPodDisruptionTimeout {
		return BlockKubeSystem
	}
	if r.spec.SafeToEvict != nil && !*r.spec.SafeToEvict {
		return BlockNotSafeToEvict
	}
	if a.ev.Blocked(r.id) {
		return BlockPDB
	}
	return ""
}

// updateSoftTaints puts the DeletionCandidate taint (PreferNoSchedule) on
// up to maxBulkSoftTaint newly unneeded nodes per loop and takes it off
// nodes needed again, so the scheduler avoids nodes about to go.
func (a *planner) updateSoftTaints(unneeded []cluster.NodeID) {
	isUnneeded := a.scratch.unneeded[:0]
	for len(isUnneeded) < len(a.cl.Nodes) {
		isUnneeded = append(isUnneeded, false)
	}
	a.scratch.unneeded = isUnneeded
	for _, id := range unneeded {
		isUnneeded[id] = true
	}
	defer func() {
		for _, id := range unneeded {
			isUnneeded[id] = false
		}
	}()
	// Only unneeded and soft-tainted nodes can change: those, in the
	// groups' order.
	rel := append(a.scratch.softRel[:0], unneeded...)
	for _, id := range a.cache.soft {
		if n := a.nodes.get(id); n != nil && !isUnneeded[id] {
			rel = append(rel, id)
		}
	}
	a.sortByGroup(rel)
	a.scratch.softRel = rel
	budget := maxBulkSoftTaint
	soft := a.cache.soft[:0]
	for _, id := range rel {
		n := a.nodes.get(id)
		switch {
		case isUnneeded[id] && !n.softTainted && budget > 0:
			budget--
			n.softTainted = true
			a.cl.AddTaint(id, cluster.Taint{Key: a.symDeletionCandidate, Effect: cluster.EffectPreferNoSchedule})
		case !isUnneeded[id] && n.softTainted && !n.deleting:
			n.softTainted = false
			a.cl.RemoveTaint(id, a.symDeletionCandidate, cluster.EffectPreferNoSchedule)
		}
		if n.softTainted {
			soft = append(soft, id)
		}
	}
	a.cache.soft = soft
}

// startDelete taints (and cordons) a node and deletes it: an empty one
// after --node-delete-delay-after-taint, another after draining it.
func (a *actuator) startDelete(id cluster.NodeID, now engine.Time, kind deleteKind) {
	n := a.nodes.get(id)
	n.deleting = true
	n.drain = drainState{active: true, kind: kind, start: now, deadline: now + a.s.MaxPodEvictionTime}
	a.countDeleting(n, 1)
	if a.onDelete != nil {
		a.onDelete(id, deleteReasons[kind])
	}
	a.cl.AddTaint(id, cluster.Taint{Key: a.symToBeDeleted, Effect: cluster.EffectNoSchedule})
	if a.s.CordonNodeBeforeTerminating {
		a.cl.SetCordon(id, true)
	}
	if a.onlyDaemons(id) {
		n.drain.empty = true
		n.drain.timer = a.eng.After(nodeDeleteDelayAfterTaint, engine.Event{Handler: a.id, Kind: evDelete, Obj: int32(id)})
		return
	}
	if kind == deleteScaleDown {
		a.drains++
	}
	a.drainStep(id)
}

// drainStep evicts the node's pods; refused evictions are retried every
// EvictionRetryTime until --max-pod-eviction-time, after which the
// scale-down fails. Once every eviction is accepted the node goes when its
// last pod is gone, or after the longest grace period (capped by
// --max-graceful-termination-sec) plus a headroom.
func (a *actuator) drainStep(id cluster.NodeID) {
	n := a.nodes.get(id)
	if n == nil || !n.drain.active || n.drain.empty {
		return
	}
	now := a.eng.Now()
	a.eng.Cancel(n.drain.timer)
	nd := &a.cl.Nodes[id]
	if !n.drain.evicted {
		refused := false
		grace := engine.Time(0)
		pods := append([]cluster.PodID(nil), nd.Pods...)
		for _, p := range pods {
			pod := &a.cl.Pods[p]
			if pod.Spec.DaemonSet {
				continue // left on the node; they end with it
			}
			if !pod.Terminating && !a.ev.Evict(p, cluster.CauseEvicted) {
				refused = true
				continue
			}
			grace = max(grace, min(pod.Spec.TerminationGrace, a.s.MaxGracefulTermination))
		}
		if refused {
			if now >= n.drain.deadline && n.drain.kind == deleteInterrupt {
				return // the instance goes anyway; the pods left die with it
			}
			if now >= n.drain.deadline {
				a.abortDelete(id, now)
				return
			}
			n.drain.timer = a.eng.After(a.s.EvictionRetryTime, engine.Event{Handler: a.id, Kind: evDrain, Obj: int32(id)})
			return
		}
		n.drain.evicted = true
		n.drain.waitEnd = now + grace + podEvictionHeadroom
		if n.drain.kind == deleteInterrupt {
			return // drained: EC2 takes the instance, not us
		}
	}
	if a.onlyDaemons(id) || now >= n.drain.waitEnd {
		a.finishDelete(id)
		return
	}
	n.drain.timer = a.eng.Schedule(n.drain.waitEnd, engine.Event{Handler: a.id, Kind: evDrain, Obj: int32(id)})
}

// countDeleting counts a node's deletion in (d = 1) or out (d = -1) of
// its group's and the scale-down's counts.
func (a *actuator) countDeleting(n *caNode, d int) {
	n.group.deleting += d
	if n.drain.kind == deleteScaleDown {
		a.scaleDownsInFlight += d
	}
}

// abortDelete gives up a drain: the node is untainted and uncordoned, and
// scale-down waits --scale-down-delay-after-failure.
func (a *actuator) abortDelete(id cluster.NodeID, now engine.Time) {
	n := a.nodes.get(id)
	if n.drain.kind == deleteScaleDown {
		a.drains--
		a.lastScaleDownFail = now
		a.stats.failedScaleDowns++
	}
	a.eng.Cancel(n.drain.timer)
	a.countDeleting(n, -1)
	n.drain = drainState{}
	n.deleting = false
	n.unneededSince = never
	a.cl.RemoveTaint(id, a.symToBeDeleted, cluster.EffectNoSchedule)
	if a.s.CordonNodeBeforeTerminating {
		a.cl.SetCordon(id, false)
	}
}

// finishDelete terminates the node's instance and removes the node; a
// scale-down lowers the ASG's desired capacity with it.
func (a *actuator) finishDelete(id cluster.NodeID) {
	n := a.nodes.get(id)
	if n == nil || !n.drain.active || n.drain.kind == deleteInterrupt {
		return
	}
	if n.drain.empty && a.podsToMove(id) > 0 {
		// A pod landed in the delay after the taint: drain it after all.
		n.drain.empty = false
		if n.drain.kind == deleteScaleDown {
			a.drains++
		}
		a.drainStep(id)
		return
	}
	g, inst, kind := n.group, n.instance, n.drain.kind
	a.dropNode(id)
	a.cl.RemoveNode(id)
	a.cloud.Terminate(inst)
	if kind == deleteScaleDown {
		g.target--
		a.stats.nodesRemoved++
		g.stats.NodesRemoved++
	}
	a.refreshNow = true
}
