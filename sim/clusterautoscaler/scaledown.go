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
	BlockNotReplicated     = "NotReplicated"               // a pod without a controller
	BlockKubeSystem        = "UnmovableKubeSystemPod"      // a kube-system pod without a PDB
	BlockNotSafeToEvict    = "NotSafeToEvictAnnotation"    // safe-to-evict: "false"
	BlockPDB               = "NotEnoughPdb"                // a PDB allows no disruption
	BlockNoPlaceToMove     = "NoPlaceToMovePods"           // the pods fit nowhere else
	BlockScaleDownDisabled = "ScaleDownDisabledAnnotation" // the node's scale-down-disabled label
	BlockMinSize           = "NodeGroupMinSizeReached"     // the group is at its minimum
)

// planner is the scale-down planner (core/scaledown/planner): it finds
// the unneeded nodes (eligibility: utilization at or below the threshold; the
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
	// The disruptions a pass's removable nodes use, by budget index
	// (useBudgets); pdbAny: some are used.
	pdbUsed []int32
	pdbIdx  []int
	pdbAny  bool
}

// scaleDown runs the scale-down half of a loop: it finds the unneeded
// nodes (utilization at or below the threshold, every pod movable and fitting
// elsewhere), soft-taints them, and outside the cool-downs removes those
// unneeded for --scale-down-unneeded-time. It returns whether it started
// a deletion.
func (pl *planner) scaleDown(now engine.Time, hold bool) bool {
	unneeded := pl.findUnneeded(now)
	pl.updateSoftTaints(unneeded)
	if hold || pl.inCooldown(now) {
		return false
	}
	if n := pl.nodesToDelete(unneeded, now, true, false); n > 0 {
		pl.lastScaleDownDelete = now
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
func (pl *planner) nodesToDelete(unneeded []cluster.NodeID, now engine.Time, waited, dry bool) int {
	// Per group (by index), how many nodes may go without going below the
	// minimum.
	room := pl.scratch.room[:0]
	for _, g := range pl.groups {
		room = append(room, g.target-g.deleting-g.sel.Min)
	}
	pl.scratch.room = room
	pl.scratch.picked = pl.scratch.picked[:0]
	inFlight := pl.act.scaleDownsInFlight
	// dryDrains counts the drains a dry run would have started.
	started, dryDrains := 0, 0
	// Empty nodes first, in bulk; then drains, one at a time by default.
	for pass := 0; pass < 2; pass++ {
		for _, id := range unneeded {
			n := pl.nodes.get(id)
			empty := pl.podsToMove(id) == 0
			if n.deleting || empty != (pass == 0) || (waited && now-n.unneededSince < pl.s.ScaleDownUnneededTime) {
				continue
			}
			if room[n.group.idx] <= 0 {
				pl.noteBlocked(BlockMinSize, id)
				continue
			}
			// The minimum is checked for every unneeded node before the
			// parallelism budgets crop the list (unneeded.Nodes.RemovableAt,
			// then budgets.CropNodes): a node the budgets leave out still
			// takes its group's room, so those past it are kept for the
			// minimum. The nodes picked are the same.
			room[n.group.idx]--
			if inFlight >= pl.s.MaxScaleDownParallelism {
				continue
			}
			if !empty && pl.act.drains+dryDrains >= pl.s.MaxDrainParallelism {
				continue
			}
			inFlight++
			started++
			if dry {
				pl.scratch.picked = append(pl.scratch.picked, id)
				if !pl.onlyDaemons(id) {
					dryDrains++ // startDelete drains it
				}
				continue
			}
			pl.act.startDelete(id, now, deleteScaleDown)
		}
	}
	return started
}

func (pl *planner) inCooldown(now engine.Time) bool {
	return pl.lastScaleUp+pl.s.ScaleDownDelayAfterAdd > now ||
		pl.lastScaleDownDelete+pl.s.ScaleDownDelayAfterDelete > now ||
		pl.lastScaleDownFail+pl.s.ScaleDownDelayAfterFailure > now
}

// podsToMove counts the pods a drain would evict.
func (cs *clusterState) podsToMove(id cluster.NodeID) int {
	return int(cs.state(id).movable)
}

// onlyDaemons reports whether the node's pods, terminating ones included,
// are all DaemonSet pods: a drain has nothing left to wait for.
func (cs *clusterState) onlyDaemons(id cluster.NodeID) bool {
	st := cs.state(id)
	return len(st.pods) == int(st.daemons)
}

// utilizationOf is the node's requested share of allocatable: the larger
// of cpu and memory, or the GPUs' for a GPU node (simulator/utilization),
// from the node's mirror record (requested = allocatable - free).
// gi is the index of nvidia.com/gpu, -1 when no GPU resource exists
// (gpuIndex).
func (pl *planner) utilizationOf(id cluster.NodeID, gi int) (util float64, gpu bool) {
	st := pl.state(id)
	free := &pl.cache.free[id]
	if held, ok := pl.bufs.heldOn(id); ok {
		// A CapacityBuffer's fake pods count (buffers.go).
		f := free.Sub(held)
		free = &f
	}
	if pl.s.IgnoreDaemonSetsUtilization || pl.s.IgnoreMirrorPodsUtilization {
		f := pl.freeIgnoring(st, *free)
		free = &f
	}
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

// freeIgnoring is a node's free room with the requests of the pods
// --ignore-daemonsets-utilization and --ignore-mirror-pods-utilization
// leave out of its utilization given back (simulator/utilization
// Calculate skips them).
func (pl *planner) freeIgnoring(st *nodeState, free cluster.Resources) cluster.Resources {
	for i := range st.pods {
		p := &st.pods[i]
		if (p.spec.Mirror && pl.s.IgnoreMirrorPodsUtilization) || (p.spec.DaemonSet && !p.spec.Mirror && pl.s.IgnoreDaemonSetsUtilization) {
			free = free.Add(p.spec.Requests)
		}
	}
	return free
}

// underutilized returns the node's utilization and whether it is at or below
// the scale-down threshold (the GPU one for GPU nodes).
func (pl *planner) underutilized(id cluster.NodeID, gi int) (float64, bool) {
	u, gpu := pl.utilizationOf(id, gi)
	thr := pl.s.ScaleDownUtilizationThreshold
	if gpu {
		thr = pl.s.ScaleDownGPUUtilizationThreshold
	}
	// At the threshold counts as underutilized (eligibility
	// isNodeAtOrBelowUtilizationThreshold: not above it).
	return u, u <= thr
}

// gpuIndex is the resource index of nvidia.com/gpu, or -1.
func (cs *clusterState) gpuIndex() int {
	if gi, ok := cs.cl.Resources.Lookup(catalog.GPUResourceName); ok {
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
func (pl *planner) destinations() *destSet {
	return pl.startDests(&pl.scratch.dests)
}

// startDests sets d up for a new simulation over the nodes pods may move
// to: schedulable and not being deleted. The cluster must not change
// while it is in use (the room is the caches' as it is). The set's
// buffers are reused across loops.
func (cs *clusterState) startDests(d *destSet) *destSet {
	d.ids, d.pos = cs.destIDs()
	d.base = cs.cache.free
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
func (pl *planner) findUnneeded(now engine.Time) []cluster.NodeID {
	cands := pl.scratch.cands[:0]
	defer func() { pl.scratch.cands = cands[:0] }()
	gi := pl.gpuIndex()
	// The nodes of the autoscaled groups, but for quiet ones (nothing to
	// do for them: see quiet), in no particular order (cands are sorted).
	for _, id := range pl.scanList(gi) {
		n := pl.nodes.get(id)
		if n == nil || !n.group.sel.Autoscaled {
			continue
		}
		if n.group.target <= n.group.sel.Min {
			// Not a candidate while its group is at its minimum
			// (processors/nodes PreFilteringScaleDownNodeProcessor, before
			// any other check): not simulated, so it stays a place for
			// other nodes' pods.
			n.unneededSince = never
			pl.noteBlocked(BlockMinSize, id)
			continue
		}
		st := pl.nodeFlags(id)
		if !st.ready || n.deleting {
			continue
		}
		if pl.prq.isBooked(id) {
			// A ProvisioningRequest's booked pods hold it (provreqs.go).
			n.unneededSince = never
			continue
		}
		if st.sdDisabled {
			n.unneededSince = never
			pl.noteBlocked(BlockScaleDownDisabled, id)
			continue
		}
		if now < n.recheckAt {
			// Recently unremovable: not simulated again before the
			// recheck timeout (eligibility: RecentlyUnremovable).
			n.unneededSince = never
			continue
		}
		u, low := pl.underutilized(id, gi)
		if !low {
			n.unneededSince = never
			continue
		}
		cands = append(cands, cand{id: id, util: u, empty: pl.podsToMove(id) == 0 && !pl.bufs.keepsBuffer(id), was: n.unneededSince != never})
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
	dests := pl.destinations()
	pl.startPass()
	if pl.bufs.holdRoom(dests) {
		pl.replay.on = false
	}
	pl.resetBudgets()
	defer pl.resetBudgets()

	// out is valid until the next call (scaleDown's use).
	out := pl.scratch.out[:0]
	nonEmpty := 0
	for _, c := range cands {
		n := pl.nodes.get(c.id)
		if !c.empty && !c.was {
			// --scale-down-non-empty-candidates-count; 0 or less: no limit.
			if lim := pl.s.ScaleDownNonEmptyCandidatesCount; lim > 0 && nonEmpty >= lim {
				n.unneededSince = never
				continue
			}
			nonEmpty++
		}
		if why := pl.removable(c.id, dests); why != "" {
			n.unneededSince = never
			n.recheckAt = now + pl.s.UnremovableNodeRecheckTimeout
			pl.noteBlocked(why, c.id)
			continue
		}
		if n.unneededSince == never {
			n.unneededSince = now
		}
		out = append(out, c.id)
	}
	pl.scanPrune(gi)
	// Oldest unneeded first; a stable sort on (since, position) keys
	// read once.
	keyed := pl.scratch.unneededKeys[:0]
	for i, id := range out {
		keyed = append(keyed, unneededKey{since: pl.nodes.get(id).unneededSince, pos: int32(i), id: id})
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
	pl.scratch.unneededKeys = keyed
	pl.scratch.out = out
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
func (pl *planner) canRemove(id cluster.NodeID, dests *destSet) string {
	moves := pl.scratch.moves[:0]
	defer func() { pl.scratch.moves = moves[:0] }()
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
	pods := pl.state(id).pods
	// Every pod's blockers first, then their places (GetPodsToMove before
	// findPlaceFor, simulator/cluster.go): a blocking pod is the reason
	// even when an earlier pod fits nowhere.
	for i := range pods {
		r := &pods[i]
		if r.term || r.daemon {
			continue // DaemonSet pods are not rescheduled (drainability rule daemonset)
		}
		if why := pl.blockerRef(r); why != "" {
			if self != nil {
				self.gone = false
			}
			pl.recordCall(id, nodeBlocked, nil, dests)
			return why
		}
	}
	// place moves one pod to a destination; false (the node's moves
	// undone) when none takes it.
	place := func(r *podRef) bool {
		dest := pl.findDestination(r, dests)
		if dest < 0 {
			undo()
			if self != nil {
				self.gone = false
			}
			pl.recordCall(id, nodeBlocked, nil, dests)
			return false
		}
		d := dests.at(dest)
		d.free = d.free.Sub(r.spec.Requests)
		d.extra = append(d.extra, placedPod{r.spec, r.ns})
		moves = append(moves, move{r.spec, r.ns, int32(dest)})
		return true
	}
	for i := range pods {
		r := &pods[i]
		if r.term || r.daemon {
			continue
		}
		if r.spec.Priority < pl.s.ExpendablePodsPriorityCutoff {
			continue // expendable: just killed
		}
		if !place(r) {
			return BlockNoPlaceToMove
		}
	}
	// A CapacityBuffer's fake pods here must move too (buffers.go; they
	// are safe to evict, nothing blocks them).
	for _, p := range pl.bufs.placedOn(id) {
		r := podRef{spec: p.spec, ns: p.ns, fit: pl.fitID(p.spec)}
		r.has, _ = podConstraints(p.spec, pl.symHostname)
		if !place(&r) {
			return BlockNoPlaceToMove
		}
	}
	// The pods earlier nodes of the pass moved here move on with it:
	// upstream's removal simulations persist in the snapshot, so a node's
	// pods there include them.
	if self != nil {
		for _, e := range self.extra {
			r := podRef{spec: e.spec, ns: e.ns, fit: pl.fitID(e.spec)}
			r.has, _ = podConstraints(e.spec, pl.symHostname)
			if !place(&r) {
				return BlockNoPlaceToMove
			}
		}
	}
	pl.recordCall(id, nodeRemovable, moves, dests)
	pl.useBudgets(id)
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
func (pl *planner) noteBlocked(why string, id cluster.NodeID) {
	if pl.blocked == nil {
		pl.blocked = map[string]map[cluster.NodeID]bool{}
	}
	if pl.blocked[why] == nil {
		pl.blocked[why] = map[cluster.NodeID]bool{}
	}
	pl.blocked[why][id] = true
}

// findDestination finds the first node, in ID order, where a pod fits in
// the simulation, and returns its index in the destination set (-1:
// none). Room only shrinks and nodes only go during a pass (until an
// undo), so nodes found full stay so: nowFit passes over them.
func (pl *planner) findDestination(r *podRef, dests *destSet) int {
	spec := r.spec
	n := len(dests.ids)
	for i := 0; i < n; i++ {
		if i = pl.nowFit(dests, r.fit, spec, i); i >= n {
			break
		}
		d := dests.at(i)
		id := dests.ids[i]
		// Pods without pod-level constraints can only be refused by
		// required anti-affinity of the pods there (or moved there).
		if r.has || (len(d.extra) > 0 && extraAnti(d.extra)) || pl.anyAntiAffinity(id) {
			placed := pl.scratch.placed[:0]
			for _, q := range pl.state(id).pods {
				placed = append(placed, placedPod{q.spec, q.ns})
			}
			placed = append(placed, d.extra...)
			pl.scratch.placed = placed
			if !podLevelOK(pl.cl.Syms, pl.symHostname, spec, r.ns, placed) {
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
func (pl *planner) blockerRef(r *podRef) string {
	if r.spec.SafeToEvict != nil && *r.spec.SafeToEvict {
		return ""
	}
	if r.workload < 0 {
		return BlockNotReplicated
	}
	if pl.s.SkipNodesWithSystemPods && r.ns == pl.symKubeSystem && (pl.pdbs == nil || !pl.pdbs.Covered(r.id)) &&
		pl.eng.Now() <= pl.cl.Pods[r.id].Created+pl.s.BlockingSystemPodDisruptionTimeout {
		return BlockKubeSystem
	}
	if r.spec.SafeToEvict != nil && !*r.spec.SafeToEvict {
		return BlockNotSafeToEvict
	}
	if pl.ev.Blocked(r.id) || pl.budgetSpent(r.id) {
		return BlockPDB
	}
	return ""
}

// resetBudgets starts (and ends) a pass's count of the disruptions its
// removable nodes use.
func (pl *planner) resetBudgets() {
	if pl.scratch.pdbAny {
		clear(pl.scratch.pdbUsed)
		pl.scratch.pdbAny = false
	}
}

// useBudgets counts the pods of a node found removable against their
// budgets (RemainingPdbTracker.RemovePods): later nodes of the pass see
// the disruptions left.
func (pl *planner) useBudgets(id cluster.NodeID) {
	if pl.budgets == nil {
		return
	}
	pods := pl.state(id).pods
	for i := range pods {
		r := &pods[i]
		if r.term || r.daemon {
			continue
		}
		idx := pl.budgets.CoveringBudgets(r.id, pl.scratch.pdbIdx[:0])
		pl.scratch.pdbIdx = idx
		for _, b := range idx {
			for len(pl.scratch.pdbUsed) <= b {
				pl.scratch.pdbUsed = append(pl.scratch.pdbUsed, 0)
			}
			pl.scratch.pdbUsed[b]++
			pl.scratch.pdbAny = true
		}
	}
}

// budgetSpent reports whether a budget of the pod has no disruption left
// after the pass's removable nodes (the pdb rule reads the remaining
// DisruptionsAllowed, drainability/rules/pdb).
func (pl *planner) budgetSpent(id cluster.PodID) bool {
	if !pl.scratch.pdbAny {
		return false
	}
	idx := pl.budgets.CoveringBudgets(id, pl.scratch.pdbIdx[:0])
	pl.scratch.pdbIdx = idx
	for _, b := range idx {
		if b < len(pl.scratch.pdbUsed) && pl.scratch.pdbUsed[b] > 0 && pl.budgets.BudgetAllowed(b)-int(pl.scratch.pdbUsed[b]) <= 0 {
			return true
		}
	}
	return false
}

// updateSoftTaints puts the DeletionCandidate taint (PreferNoSchedule) on
// up to --max-bulk-soft-taint-count newly unneeded nodes per loop and takes it off
// nodes needed again, so the scheduler avoids nodes about to go.
func (pl *planner) updateSoftTaints(unneeded []cluster.NodeID) {
	isUnneeded := pl.scratch.unneeded[:0]
	for len(isUnneeded) < len(pl.cl.Nodes) {
		isUnneeded = append(isUnneeded, false)
	}
	pl.scratch.unneeded = isUnneeded
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
	rel := append(pl.scratch.softRel[:0], unneeded...)
	for _, id := range pl.cache.soft {
		if n := pl.nodes.get(id); n != nil && !isUnneeded[id] {
			rel = append(rel, id)
		}
	}
	pl.sortByGroup(rel)
	pl.scratch.softRel = rel
	budget := pl.s.MaxBulkSoftTaintCount
	soft := pl.cache.soft[:0]
	for _, id := range rel {
		n := pl.nodes.get(id)
		switch {
		case isUnneeded[id] && !n.softTainted && budget > 0:
			budget--
			n.softTainted = true
			pl.cl.AddTaint(id, cluster.Taint{Key: pl.symDeletionCandidate, Effect: cluster.EffectPreferNoSchedule})
		case !isUnneeded[id] && n.softTainted && !n.deleting:
			n.softTainted = false
			pl.cl.RemoveTaint(id, pl.symDeletionCandidate, cluster.EffectPreferNoSchedule)
		}
		if n.softTainted {
			soft = append(soft, id)
		}
	}
	pl.cache.soft = soft
}
