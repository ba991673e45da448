package clusterautoscaler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Incremental state for the loops' what-ifs at scale. None of it changes
// an answer: it only saves rescans.
//
//   - The pod-independent part of cluster.StaticFit (cordon, node name,
//     taints, node selector/affinity) is cached per spec class (specs with
//     the same tolerations, node name, selectors and affinity) and node,
//     until the node changes (cluster.NodeEpoch, moved on every node
//     notification). StaticFit(spec, node, &free) == Fits exactly when the
//     cached part passes and the requests fit free.
//   - antiPods counts, per node, the bound pods with required pod
//     anti-affinity, so "might a pod here refuse a newcomer?" is one read
//     instead of a walk over the node's pods.
//   - destList lists the nodes pods may move to in the what-ifs
//     (destOK), by ID, updated from the nodes notified since the last
//     loop.
//   - scan lists the nodes findUnneeded looks at: a quiet node (see
//     quiet) leaves it nothing to do, so it is skipped until its pods or
//     its node change.
//   - replay (replay.go) repeats removal simulations whose answer cannot
//     have changed since the previous loop.
//
// CheckIndexes (check.go) recomputes each from the cluster and says
// where one drifted (sim run --check).

type caches struct {
	// live lists the nodes not gone, by ID.
	live        []cluster.NodeID
	antiPods    []int32
	specs       cluster.SpecClasses
	fits        []*cluster.NodeVerdicts // by spec class
	lastSpec    *cluster.PodSpec
	lastCache   *cluster.NodeVerdicts
	nodes       []nodeState         // by NodeID
	free        []cluster.Resources // by NodeID: the node's room (nodeState)
	fitOf       map[*cluster.PodSpec]int32
	fitIDs      map[jumpKey]int32
	lastFitSpec *cluster.PodSpec
	lastFit     int32

	scan   []cluster.NodeID // nodes findUnneeded looks at, no duplicates
	inScan []bool           // by NodeID
	scanGI int              // the gpuIndex scan was kept for (-2: none yet)
	// soft lists the soft-tainted nodes (and forgotten nodes that were).
	soft []cluster.NodeID
	// launching lists the groups' launching nodes (and nodes that were:
	// launchingNodes drops them).
	launching []cluster.NodeID

	destList   []cluster.NodeID // live nodes with destOK, by ID
	destPos    []int32          // by NodeID: index in destList, -1 when not in it
	isDest     []bool           // by NodeID: in destList
	destDirty  []cluster.NodeID // nodes notified since the last destIDs
	destMarked []bool           // by NodeID: in destDirty
}

// scanTouch puts a node on findUnneeded's list: its pods, room or flags
// changed.
func (cs *clusterState) scanTouch(id cluster.NodeID) {
	c := &cs.cache
	for int(id) >= len(c.inScan) {
		c.inScan = append(c.inScan, false)
	}
	if !c.inScan[id] {
		c.inScan[id] = true
		c.scan = append(c.scan, id)
	}
}

// scanList returns the nodes findUnneeded looks at (in no particular
// order; nodes of other owners are left to the caller to skip). A change
// of the GPU resource's index changes every utilization: all nodes are
// looked at again.
func (pl *planner) scanList(gi int) []cluster.NodeID {
	if c := &pl.cache; c.scanGI != gi {
		c.scanGI = gi
		for _, g := range pl.groups {
			for _, id := range g.nodes {
				pl.scanTouch(id)
			}
		}
	}
	return pl.cache.scan
}

// scanPrune drops the quiet nodes from findUnneeded's list, after a pass.
func (pl *planner) scanPrune(gi int) {
	c := &pl.cache
	keep := c.scan[:0]
	for _, id := range c.scan {
		// A node a CapacityBuffer's fake pods fill stays: they leave it
		// without a notification (buffers.go).
		if pl.quiet(id, gi) && !pl.bufs.keepsBuffer(id) {
			c.inScan[id] = false
			continue
		}
		keep = append(keep, id)
	}
	c.scan = keep
}

// quiet reports whether findUnneeded has nothing to do for a node, ready
// or not, deleting or not, whatever its recheck time, until its pods or
// node change: it is not a node of an autoscaled group, or it is not
// unneeded, is used above its threshold and is not a
// scale-down-disabled node yet to be recorded as blocked. What quiet
// reads changes only with the node's pods and room (binds, unbinds),
// its flags (node notifications), findUnneeded itself and gi.
func (pl *planner) quiet(id cluster.NodeID, gi int) bool {
	n := pl.nodes.get(id)
	if n == nil || !n.group.sel.Autoscaled {
		return true
	}
	if n.unneededSince != never {
		return false
	}
	if st := pl.nodeFlags(id); st.sdDisabled && !pl.blocked[BlockScaleDownDisabled][id] {
		return false
	}
	_, low := pl.underutilized(id, gi)
	return !low
}

// liveAdd and liveRemove keep the list of live nodes (IDs only grow).
func (cs *clusterState) liveAdd(id cluster.NodeID) {
	c := &cs.cache
	i := len(c.live)
	for i > 0 && c.live[i-1] > id {
		i--
	}
	c.live = append(c.live, 0)
	copy(c.live[i+1:], c.live[i:])
	c.live[i] = id
}

func (cs *clusterState) liveRemove(id cluster.NodeID) {
	c := &cs.cache
	for i, o := range c.live {
		if o == id {
			c.live = append(c.live[:i], c.live[i+1:]...)
			return
		}
	}
}

// nodeChanged puts a notified node on the lists to look at again (the
// cluster moved its epoch, expiring its cached verdicts and flags).
func (cs *clusterState) nodeChanged(id cluster.NodeID) {
	cs.scanTouch(id)
	cs.destTouch(id)
	cs.replay.touched(id)
}

// destTouch marks a node for destIDs to look at again.
func (cs *clusterState) destTouch(id cluster.NodeID) {
	c := &cs.cache
	for int(id) >= len(c.destMarked) {
		c.destMarked = append(c.destMarked, false)
		c.isDest = append(c.isDest, false)
		c.destPos = append(c.destPos, -1)
	}
	if !c.destMarked[id] {
		c.destMarked[id] = true
		c.destDirty = append(c.destDirty, id)
	}
}

// destIDs returns the live nodes pods may move to (destOK), by ID, and
// their positions by NodeID (-1: not a destination). Only notified nodes
// can have changed; the list is rebuilt from the live nodes when one did.
func (cs *clusterState) destIDs() ([]cluster.NodeID, []int32) {
	c := &cs.cache
	changed := false
	for _, id := range c.destDirty {
		c.destMarked[id] = false
		want := cs.cl.Nodes[id].State != cluster.NodeGone && cs.nodeFlags(id).destOK
		if want != c.isDest[id] {
			c.isDest[id] = want
			changed = true
		}
	}
	c.destDirty = c.destDirty[:0]
	if changed {
		for _, id := range c.destList {
			c.destPos[id] = -1
		}
		c.destList = c.destList[:0]
		for _, id := range c.live {
			if c.isDest[id] {
				c.destPos[id] = int32(len(c.destList))
				c.destList = append(c.destList, id)
			}
		}
	}
	return c.destList, c.destPos
}

// antiChanged applies a bind (d = 1) or unbind (d = -1) of a pod.
func (cs *clusterState) antiChanged(p *cluster.Pod, node cluster.NodeID, d int32) {
	if len(p.Spec.PodAntiAffinity) == 0 || node == cluster.NoNode {
		return
	}
	c := &cs.cache
	for int(node) >= len(c.antiPods) {
		c.antiPods = append(c.antiPods, 0)
	}
	c.antiPods[node] += d
}

// specClass numbers a spec by the content StaticFit reads.
func (cs *clusterState) specClass(spec *cluster.PodSpec) int32 {
	c := &cs.cache
	id, isNew := c.specs.Of(spec)
	if isNew {
		c.fits = append(c.fits, &cluster.NodeVerdicts{})
	}
	return id
}

// staticFits is StaticFit against a node of the cluster, from the cache.
func (cs *clusterState) staticFits(spec *cluster.PodSpec, id cluster.NodeID, free *cluster.Resources) bool {
	if free != nil && !spec.Requests.Fits(*free) {
		return false
	}
	c := &cs.cache
	fc := c.lastCache
	if c.lastSpec != spec {
		fc = c.fits[cs.specClass(spec)]
		c.lastSpec, c.lastCache = spec, fc
	}
	ep := cs.cl.NodeEpoch(id)
	if ok, known := fc.Get(id, ep); known {
		return ok
	}
	// Without spec.nodeName: the pods placed here are bound pods a
	// scale-down simulation moves, and upstream clears their nodeName
	// (simulator RemovalSimulator.findPlaceFor).
	m, _ := cluster.StaticFitAnyNode(cs.cl.Syms, spec, &cs.cl.Nodes[id], nil)
	fc.Set(id, ep, m == cluster.Fits, len(cs.cl.Nodes))
	return m == cluster.Fits
}

// anyAntiAffinity reports whether a pod on the node has required
// anti-affinity (which could refuse a newcomer).
func (cs *clusterState) anyAntiAffinity(id cluster.NodeID) bool {
	return int(id) < len(cs.cache.antiPods) && cs.cache.antiPods[id] > 0
}

// jumps remember, per class of pods (static content and requests), the
// next node of a list that fits in the list's initial state: within a
// loop room only shrinks (moves subtract, undone moves give back no more
// than they took), so a node that did not fit at the start never fits,
// and each node is examined once per class and loop instead of once per
// pod and candidate.
type jumps struct {
	tables [][]int32 // by fit ID
	gen    []uint32  // by fit ID: the list the table was made for
	cur    uint32
	n      int
}

// jumpKey identifies a fit class: spec class and requests.
type jumpKey struct {
	class int32
	req   cluster.Resources
}

// reset starts a new list of n nodes.
func (j *jumps) reset(n int) {
	j.cur++
	j.n = n
}

func (j *jumps) table(a *clusterState, spec *cluster.PodSpec) []int32 {
	return j.tableOf(a.fitID(spec))
}

// tableOf returns the table of a fit ID for the current list.
func (j *jumps) tableOf(f int32) []int32 {
	for int(f) >= len(j.tables) {
		j.tables = append(j.tables, nil)
		j.gen = append(j.gen, 0)
	}
	if j.gen[f] != j.cur {
		t := j.tables[f][:0]
		for range j.n {
			t = append(t, -1)
		}
		j.tables[f], j.gen[f] = t, j.cur
	}
	return j.tables[f]
}

// fitID numbers a spec's fit class (spec class and requests).
func (cs *clusterState) fitID(spec *cluster.PodSpec) int32 {
	c := &cs.cache
	if spec == c.lastFitSpec {
		return c.lastFit
	}
	f, ok := c.fitOf[spec]
	if !ok {
		if c.fitOf == nil {
			c.fitOf = map[*cluster.PodSpec]int32{}
			c.fitIDs = map[jumpKey]int32{}
		}
		key := jumpKey{cs.specClass(spec), spec.Requests}
		if f, ok = c.fitIDs[key]; !ok {
			f = int32(len(c.fitIDs))
			c.fitIDs[key] = f
		}
		c.fitOf[spec] = f
	}
	c.lastFitSpec, c.lastFit = spec, f
	return f
}

// next returns the first index >= p of the list ids where a pod of spec
// fits in the room at the start of the loop (base, by NodeID), or
// len(ids).
func (cs *clusterState) next(t []int32, ids []cluster.NodeID, base []cluster.Resources, spec *cluster.PodSpec, p int) int {
	n := len(ids)
	q, r := p, n
	for ; q < n; q++ {
		if v := t[q]; v >= 0 {
			r = int(v)
			break
		}
		if cs.staticFits(spec, ids[q], &base[ids[q]]) {
			t[q] = int32(q)
			r = q
			break
		}
	}
	for k := p; k < q; k++ {
		t[k] = int32(r)
	}
	return r
}

// extraAnti reports whether a pod the simulation placed has required
// anti-affinity.
func extraAnti(extra []placedPod) bool {
	for _, p := range extra {
		if len(p.spec.PodAntiAffinity) > 0 {
			return true
		}
	}
	return false
}

// nowFit finds, in a destination set during scale-down, the first
// destination at or after p where a pod of spec fits now: not gone, the
// static filters pass and the requests fit the room left. Between undos
// room only shrinks and nodes only go, so a destination found full or
// gone stays so: per class, cur[i] points at or before the first fitting
// destination from i (path-compressed, union-find style). An undo gives
// room back; it drops the tables (resetNow).
func (cs *clusterState) nowFit(d *destSet, fit int32, spec *cluster.PodSpec, p int) int {
	cur := d.now.tableOf(fit)
	base := d.jumps.tableOf(fit)
	n := len(d.ids)
	j := p
	for j < n {
		v := cur[j]
		if v >= 0 && int(v) != j {
			j = int(v)
			continue
		}
		if v < 0 {
			// Not looked at yet: skip what did not fit at the start.
			if b := cs.next(base, d.ids, d.base, spec, j); b != j {
				cur[j] = int32(b)
				j = b
				continue
			}
		}
		if dd := d.at(j); !dd.gone && spec.Requests.Fits(dd.free) {
			cur[j] = int32(j)
			break
		}
		cur[j] = int32(j + 1)
		j++
	}
	for k := p; k < j; {
		next := int(cur[k])
		cur[k] = int32(j)
		k = next
	}
	return j
}

// resetNow forgets the nowFit tables (room came back).
func (d *destSet) resetNow() {
	d.now.reset(len(d.ids))
}

// podRef is what the scale-down simulation reads of a pod on a node.
type podRef struct {
	spec     *cluster.PodSpec
	id       cluster.PodID
	ns       cluster.Sym
	workload int32
	fit      int32 // fitID of the spec
	term     bool  // Terminating
	daemon   bool  // a DaemonSet's or mirror pod: never moved, left by drains
	has      bool  // required pod-level constraints (podConstraints)
}

// nodeState mirrors, per node, what the loops read of it, kept up to
// date on every notification: its pods in the node's own order (binds
// append, unbinds move the last pod into the freed slot, as the cluster
// does), how many are not terminating, and its allocatable; its free
// room is in the dense table caches.free, for the what-ifs' scans.
// Reading these compact records instead of the pod and node objects
// saves a cache miss per pod and node in every loop.
type nodeState struct {
	pods    []podRef
	movable int32 // pods not terminating nor DaemonSet pods (podsToMove)
	daemons int32 // DaemonSet pods
	alloc   cluster.Resources
	// destOK (Schedulable and not ToBeDeleted) and sdDisabled (the
	// scale-down-disabled label is "true") as of cluster.NodeEpoch
	// destEp-1 (0: not read yet).
	destEp     uint32
	destOK     bool
	sdDisabled bool
	ready      bool
}

func (cs *clusterState) state(id cluster.NodeID) *nodeState {
	c := &cs.cache
	for int(id) >= len(c.nodes) {
		c.nodes = append(c.nodes, nodeState{})
		c.free = append(c.free, cluster.Resources{})
	}
	return &c.nodes[id]
}

// onNodeAdded starts a node's record (a new node has no pods).
func (cs *clusterState) onNodeAdded(id cluster.NodeID) {
	nd := &cs.cl.Nodes[id]
	st := cs.state(id)
	*st = nodeState{alloc: nd.Allocatable}
	cs.cache.free[id] = nd.Allocatable
	cs.scanTouch(id)
	for _, p := range nd.Pods {
		cs.onBound(p, id)
	}
}

func (cs *clusterState) onBound(pid cluster.PodID, id cluster.NodeID) {
	p := &cs.cl.Pods[pid]
	st := cs.state(id)
	has, _ := podConstraints(p.Spec, cs.symHostname)
	// Mirror pods are skipped by drains as DaemonSet pods are (drainability
	// rule mirror) and do not make a node non-empty.
	daemon := p.Spec.DaemonSet || p.Spec.Mirror
	st.pods = append(st.pods, podRef{spec: p.Spec, id: pid, ns: p.Namespace, workload: p.Workload, fit: cs.fitID(p.Spec), term: p.Terminating, daemon: daemon, has: has})
	if daemon {
		st.daemons++
	} else if !p.Terminating {
		st.movable++
	}
	cs.cache.free[id] = cs.cache.free[id].Sub(p.Spec.Requests)
	cs.scanTouch(id)
	cs.replay.touched(id)
}

func (cs *clusterState) onUnbound(pid cluster.PodID, id cluster.NodeID) {
	st := cs.state(id)
	for i := range st.pods {
		if st.pods[i].id == pid {
			if st.pods[i].daemon {
				st.daemons--
			} else if !st.pods[i].term {
				st.movable--
			}
			cs.cache.free[id] = cs.cache.free[id].Add(st.pods[i].spec.Requests)
			last := len(st.pods) - 1
			st.pods[i] = st.pods[last]
			st.pods[last] = podRef{}
			st.pods = st.pods[:last]
			cs.scanTouch(id)
			cs.replay.touched(id)
			return
		}
	}
}

func (cs *clusterState) onTerminating(pid cluster.PodID, id cluster.NodeID) {
	if id == cluster.NoNode {
		return
	}
	st := cs.state(id)
	for i := range st.pods {
		if st.pods[i].id == pid && !st.pods[i].term {
			st.pods[i].term = true
			cs.replay.touched(id)
			if !st.pods[i].daemon {
				st.movable--
			}
			return
		}
	}
}

// nodeFlags returns a node's record with destOK and sdDisabled current.
func (cs *clusterState) nodeFlags(id cluster.NodeID) *nodeState {
	st := cs.state(id)
	if ep := cs.cl.NodeEpoch(id) + 1; st.destEp != ep {
		nd := &cs.cl.Nodes[id]
		st.destEp = ep
		st.destOK = nd.Schedulable() && !cs.hasTaint(nd, cs.symToBeDeleted)
		st.ready = nd.State == cluster.NodeReady
		v, ok := nd.Labels.Get(cs.symScaleDownDisabled)
		st.sdDisabled = ok && v == cs.symTrue
	}
	return st
}
