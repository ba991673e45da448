package karpenter

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Existing nodes as the solver sees them, built for speed at scale. The
// solver's answer is that of a first-fit scan over the live nodes in a
// fixed order (initialized first, then by name), but:
//
//   - the order is kept up to date as nodes come and go (byName), so no
//     solve sorts;
//   - the nodes' snapshot (the base: free room, view, daemon room, whether
//     consolidateAfter protects the node) is built once per cluster state
//     and shared by every solve of that state (the what-ifs of one
//     disruption pass); a solve keeps only the nodes it changed, in an
//     overlay, and marks the nodes it excludes;
//   - per class of pods that fit alike (same static constraints and
//     requests), a jump table over the base remembers the next node that
//     fits in the base state, so a node is examined at most once per class
//     and state instead of once per pod and solve. A solve only ever
//     shrinks room, so a node that does not fit in the base does not fit
//     in the solve either; nodes the solve changed or excluded are checked
//     again;
//   - the pod-independent filters (taints, node selectors, cordon) are
//     cached per class and node until the node changes (cluster.NodeEpoch).

// schedNode is what solves read of one of Karpenter's nodes (its
// NodeClaim); the controller's record (knode) embeds it.
type schedNode struct {
	id          cluster.NodeID
	pool        *pool
	it          *itype
	offering    cloud.Offering
	capacity    cluster.Resources
	initialized bool
	// lastPodEvent is when the node's last pod event was recorded (KC
	// NodeClaim status.lastPodEventTime), or, before any, when the node
	// was initialized: what consolidateAfter counts from (KC
	// Consolidatable's timeToCheck). An adopted node's may be before the
	// run's start (negative).
	lastPodEvent engine.Time
	// deleting: the NodeClaim is being deleted (tainted, draining).
	deleting bool
	// inCommand: the node is a candidate of a disruption command waiting
	// for its replacements.
	inCommand bool
}

// nodeIndex holds Karpenter's nodes as solves read them, kept by the
// controller as it adds and removes them.
type nodeIndex struct {
	cl *cluster.Cluster
	// byID has Karpenter's nodes by NodeID (nil for others); live the
	// non-nil entries, by ID.
	byID []*schedNode
	live []*schedNode
	// antiBound counts bound pods with required anti-affinity.
	antiBound int
}

func (ni *nodeIndex) get(id cluster.NodeID) *schedNode {
	if int(id) < len(ni.byID) {
		return ni.byID[id]
	}
	return nil
}

func (ni *nodeIndex) add(n *schedNode) {
	for int(n.id) >= len(ni.byID) {
		ni.byID = append(ni.byID, nil)
	}
	ni.byID[n.id] = n
	ni.live = append(ni.live, n) // IDs only grow: live stays sorted
}

func (ni *nodeIndex) remove(n *schedNode) {
	ni.byID[n.id] = nil
	for i, o := range ni.live {
		if o == n {
			ni.live = append(ni.live[:i], ni.live[i+1:]...)
			break
		}
	}
}

// podOnDeletingNode reports whether a pod is bound to one of Karpenter's
// nodes being deleted.
func (ni *nodeIndex) podOnDeletingNode(id cluster.PodID) bool {
	p := &ni.cl.Pods[id]
	if p.Node == cluster.NoNode {
		return false
	}
	kn := ni.get(p.Node)
	return kn != nil && kn.deleting
}

// existingBase keeps the existing nodes as solves see them: their order,
// the shared snapshot (exCache) and what changed since it was made.
type existingBase struct {
	schedEnv
	nodes *nodeIndex
	pools *nodePools
	// byName: the live nodes (anyone's) by orderName, then ID;
	// orderNames caches orderName by NodeID.
	byName     []cluster.NodeID
	orderNames []string
	exCache    exCache
	// members changes with anything that changes the base other than
	// pods (exCache); baseDirty lists the nodes whose pods changed since
	// it was last brought up to date (baseMark: listed).
	members   uint64
	baseDirty []cluster.NodeID
	baseMark  []bool
}

// exNode is an existing node as a scheduling destination.
type exNode struct {
	id   cluster.NodeID
	node *cluster.Node
	// view is what filters see: the node itself, or a copy without the
	// startup taints while one of Karpenter's nodes initializes (KC
	// ignores ephemeral and startup taints on uninitialized nodes).
	view        *cluster.Node
	free        cluster.Resources
	initialized bool
	// ucaUntil: until then, in a consolidation simulation, pods being
	// moved may not land here (KC IsUnderConsolidateAfter); 0 for nodes
	// consolidateAfter does not protect.
	ucaUntil engine.Time
	// daemon is the room kept for DaemonSet pods not yet on the node.
	daemon     cluster.Resources
	got        []cluster.PodID
	gotPending bool
	pos        int32      // position in the base
	kn         *schedNode // Karpenter's record of the node, nil for others
}

// exCache is the base: the live nodes not being deleted, in solve order,
// for one cluster state. It is rebuilt when the set of nodes or what an
// entry reads of its node other than its pods changes (existingBase.members);
// otherwise only the entries of nodes whose pods changed are refreshed
// (existingBase.baseDirty), and consolidateAfter is read against the time of
// the solve (ucaUntil).
type exCache struct {
	valid   bool
	at      engine.Time
	members uint64
	list    []exNode
	// slots is per base position the overlay of the solve that owns it
	// (stamp), pointer-free.
	slots []exSlot
	// jumps are the classes' jump tables for this base; spare ones are
	// reused.
	jumps map[fitClass]*jumpTable
	spare []*jumpTable
	// poolCap and poolNodes sum the capacity and count the nodes of each
	// pool in the base (for limits).
	poolCap   map[*pool]cluster.Resources
	poolNodes map[*pool]int64
	// posOf maps a NodeID to its base position (-1: not in the base).
	posOf []int32
	// Scratch: the nodes not Ready (put aside by a rebuild or a merge),
	// and the spare list a merge fills.
	notReady []cluster.NodeID
	next     []exNode
}

type exSlot struct {
	stamp    uint32
	excluded bool
	touched  int32 // index in the solve's touched list, -1: unchanged
}

// fitClass identifies pods that the existing-node scan treats alike: the
// same static constraints and requests (spec content), the same
// relaxation, and whether nodes under consolidateAfter are skipped.
type fitClass struct {
	spec  int32
	relax relax
	uca   bool
}

// staticKey identifies the pod-independent filters' answer for a class.
type staticKey struct {
	spec  int32
	relax relax
}

// jumpTable: nxt[i] is the first base position >= i that fits the class
// in the base state (len(list) for none), or -1 while unknown.
type jumpTable struct {
	nxt []int32
}

// nodeOrderAdd keeps the live nodes sorted by orderName, then ID. The
// dirty marks cover every node in the order (remerge reads them): nodes
// that exist before New are never marked dirty.
func (b *existingBase) nodeOrderAdd(id cluster.NodeID) {
	for int(id) >= len(b.baseMark) {
		b.baseMark = append(b.baseMark, false)
	}
	name := b.orderName(id)
	i := sort.Search(len(b.byName), func(i int) bool {
		o := b.byName[i]
		if on := b.orderName(o); on != name {
			return on > name
		}
		return o > id
	})
	b.byName = append(b.byName, 0)
	copy(b.byName[i+1:], b.byName[i:])
	b.byName[i] = id
}

// orderName is the name KC would order a node by: its name, but for the
// nodes Karpenter launched the name upstream's would have. Upstream's
// NodeClaims get generated names (the pool's name, a dash and 5 random
// characters) and its nodes EC2's private DNS names, so its existing
// nodes come in an order unrelated to their creation; ours are named in
// sequence, for readable reports. A batch that finds NodeClaims in flight
// packs the pods again onto them in this order (KC sortExistingNodes:
// initialized first, then by name), and creation order, whose first
// NodeClaims were built around the largest pods, leaves more pods over
// than upstream's random order. So a node Karpenter launched is ordered
// by a name drawn as upstream's: the pool's name and 5 characters from a
// hash of the scenario's seed and the node's name (deterministic, in
// upstream's alphabet).
func (b *existingBase) orderName(id cluster.NodeID) string {
	if int(id) < len(b.orderNames) && b.orderNames[id] != "" {
		return b.orderNames[id]
	}
	name := b.deriveOrderName(id)
	if int(id) >= len(b.orderNames) {
		b.orderNames = append(b.orderNames, make([]string, int(id)+1-len(b.orderNames))...)
	}
	b.orderNames[id] = name
	return name
}

// deriveOrderName works out orderName without caching it (CheckIndexes
// recomputes the cache with it).
func (b *existingBase) deriveOrderName(id cluster.NodeID) string {
	n := &b.cl.Nodes[id]
	name := n.Name
	if n.Owner == cluster.OwnedByKarpenter && !n.Adopted {
		h := b.eng.Seed() ^ 0x9e3779b97f4a7c15
		for i := 0; i < len(n.Name); i++ {
			h = (h ^ uint64(n.Name[i])) * 0x100000001b3
		}
		// splitmix64's finalizer spreads the FNV-style hash.
		h ^= h >> 30
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 27
		h *= 0x94d049bb133111eb
		h ^= h >> 31
		name = n.OwnerName + "-" + nodeSuffix(int(h%nameSpace))
	}
	return name
}

// nameSpace is the number of 5-character name suffixes.
const nameSpace = 27 * 27 * 27 * 27 * 27

func (b *existingBase) nodeOrderRemove(id cluster.NodeID) {
	for i, o := range b.byName {
		if o == id {
			b.byName = append(b.byName[:i], b.byName[i+1:]...)
			return
		}
	}
}

// current returns the base for the current state, bringing it up to
// date if needed.
func (b *existingBase) current() *exCache {
	now := b.eng.Now()
	c := &b.exCache
	if !c.valid || c.members != b.members {
		b.rebuild(c)
	} else if c.at == now && len(b.baseDirty) == 0 {
		return c
	} else {
		b.update(c)
	}
	c.at = now
	c.resetOverlays()
	return c
}

// wants reports whether node id belongs in the base (live, not being
// deleted, in no command) and whether it is Ready.
func (b *existingBase) wants(id cluster.NodeID) (member, ready bool) {
	st := b.cl.Nodes[id].State
	if st == cluster.NodeGone {
		return false, false
	}
	if kn := b.nodes.get(id); kn != nil && (kn.deleting || kn.inCommand) {
		return false, false
	}
	return true, st == cluster.NodeReady
}

// update brings the base up to date with the nodes that changed
// (baseDirty): entries are refreshed in place, and when a node comes,
// goes or becomes Ready the list is merged anew in name order, copying
// the entries of nodes that did not change.
func (b *existingBase) update(c *exCache) {
	for len(c.posOf) < len(b.cl.Nodes) {
		c.posOf = append(c.posOf, -1)
	}
	moved := false
	for _, id := range b.baseDirty {
		member, ready := b.wants(id)
		pos := c.posOf[id]
		// Pool sums: the node out as it was, in as it is.
		if pos >= 0 {
			c.subPoolNode(c.list[pos].kn)
		}
		if member {
			c.addPoolNode(b.nodes.get(id))
		}
		switch {
		case pos >= 0 && member && c.list[pos].initialized == ready:
			b.fill(&c.list[pos], id, ready)
		case pos < 0 && !member:
		default:
			moved = true
		}
	}
	if moved {
		b.remerge(c)
	}
	for _, id := range b.baseDirty {
		b.baseMark[id] = false
	}
	b.baseDirty = b.baseDirty[:0]
}

// remerge rebuilds the list in solve order (Ready nodes first, then
// the others, each by name) from the old list, reading only the nodes
// that changed (baseMark).
func (b *existingBase) remerge(c *exCache) {
	old := c.list
	list := c.next[:0]
	notReady := c.notReady[:0]
	place := func(id cluster.NodeID, ready bool) {
		pos := int32(len(list))
		if !b.baseMark[id] {
			list = append(list, old[c.posOf[id]])
		} else {
			list = append(list, exNode{})
			b.fill(&list[pos], id, ready)
		}
		list[pos].pos = pos
	}
	for _, id := range b.byName {
		var member, ready bool
		if b.baseMark[id] {
			member, ready = b.wants(id)
		} else if pos := c.posOf[id]; pos >= 0 {
			member, ready = true, old[pos].initialized
		}
		switch {
		case !member:
		case ready:
			place(id, true)
		default:
			notReady = append(notReady, id)
		}
	}
	for _, id := range notReady {
		place(id, false)
	}
	for i := range old {
		c.posOf[old[i].id] = -1
	}
	for i := range list {
		c.posOf[list[i].id] = int32(i)
	}
	c.notReady = notReady
	c.next, c.list = old[:0], list
}

// rebuild builds the base from every node.
func (b *existingBase) rebuild(c *exCache) {
	for _, id := range b.baseDirty {
		b.baseMark[id] = false
	}
	b.baseDirty = b.baseDirty[:0]
	cl := b.cl
	for i := range c.list {
		c.posOf[c.list[i].id] = -1
	}
	for len(c.posOf) < len(cl.Nodes) {
		c.posOf = append(c.posOf, -1)
	}
	list := c.list[:0]
	if c.poolCap == nil {
		c.poolCap = map[*pool]cluster.Resources{}
		c.poolNodes = map[*pool]int64{}
	}
	clear(c.poolCap)
	clear(c.poolNodes)
	// Ready nodes first, then the others, each in name order: one walk,
	// the others put aside.
	notReady := c.notReady[:0]
	for _, id := range b.byName {
		switch cl.Nodes[id].State {
		case cluster.NodeGone:
		case cluster.NodeReady:
			list = b.appendNode(c, list, id, true)
		default:
			notReady = append(notReady, id)
		}
	}
	for _, id := range notReady {
		list = b.appendNode(c, list, id, false)
	}
	c.notReady = notReady
	c.valid, c.members, c.list = true, b.members, list
}

// resetOverlays drops the solves' overlays and the jump tables: the base
// changed.
func (c *exCache) resetOverlays() {
	if cap(c.slots) < len(c.list) {
		c.slots = make([]exSlot, len(c.list), cap(c.list))
	}
	c.slots = c.slots[:len(c.list)]
	clear(c.slots)
	for key, jt := range c.jumps {
		c.spare = append(c.spare, jt)
		delete(c.jumps, key)
	}
}

// nodeDirty notes that a node's pods changed (its base entry needs
// refreshing); invalidate that the base needs rebuilding.
func (b *existingBase) nodeDirty(id cluster.NodeID) {
	for int(id) >= len(b.baseMark) {
		b.baseMark = append(b.baseMark, false)
	}
	if !b.baseMark[id] {
		b.baseMark[id] = true
		b.baseDirty = append(b.baseDirty, id)
	}
}

func (b *existingBase) invalidate() { b.members++ }

// appendNode adds node id to the base unless it is being deleted or in a
// command.
func (b *existingBase) appendNode(c *exCache, list []exNode, id cluster.NodeID, ready bool) []exNode {
	kn := b.nodes.get(id)
	if kn != nil && (kn.deleting || kn.inCommand) {
		return list
	}
	list = append(list, exNode{pos: int32(len(list))})
	b.fill(&list[len(list)-1], id, ready)
	c.addPoolNode(kn)
	c.posOf[id] = int32(len(list) - 1)
	return list
}

// fill sets a base entry from its node (all but its position).
func (b *existingBase) fill(ex *exNode, id cluster.NodeID, ready bool) {
	n := &b.cl.Nodes[id]
	kn := b.nodes.get(id)
	got := ex.got[:0]
	*ex = exNode{id: id, node: n, view: n, initialized: ready, pos: ex.pos, got: got, kn: kn}
	if kn != nil && !kn.initialized {
		if len(kn.pool.spec.StartupTaints) > 0 {
			v := *n
			v.Taints = withoutTaints(n.Taints, kn.pool.spec.StartupTaints)
			ex.view = &v
		}
		// DaemonSet pods start once the node is Ready: keep their
		// room (KC ExistingNode remaining daemon resources).
		if b.pools.daemonOverhead != nil {
			ex.daemon = b.pools.daemonOverhead(n)
		}
	}
	ex.free = n.Allocatable
	for r := range ex.free {
		ex.free[r] -= n.Requested[r] + ex.daemon[r]
	}
	if kn != nil && ready {
		if pa := kn.pool.spec.Disruption; !pa.ConsolidateNever && pa.ConsolidateAfter > 0 {
			ex.ucaUntil = kn.lastPodEvent + pa.ConsolidateAfter
		}
	}
}

// addPoolNode and subPoolNode add and remove a node's capacity in the
// pools' sums (nil: not one of Karpenter's nodes).
func (c *exCache) addPoolNode(kn *schedNode) {
	if kn != nil {
		c.poolCap[kn.pool] = c.poolCap[kn.pool].Add(kn.capacity)
		c.poolNodes[kn.pool]++
	}
}

func (c *exCache) subPoolNode(kn *schedNode) {
	if kn == nil {
		return
	}
	c.poolCap[kn.pool] = c.poolCap[kn.pool].Sub(kn.capacity)
	if c.poolNodes[kn.pool]--; c.poolNodes[kn.pool] == 0 {
		delete(c.poolCap, kn.pool)
		delete(c.poolNodes, kn.pool)
	}
}

// jump returns the class's jump table for the base.
func (c *exCache) jump(fc fitClass) *jumpTable {
	if jt, ok := c.jumps[fc]; ok {
		return jt
	}
	if c.jumps == nil {
		c.jumps = map[fitClass]*jumpTable{}
	}
	var jt *jumpTable
	if n := len(c.spare); n > 0 {
		jt = c.spare[n-1]
		c.spare = c.spare[:n-1]
	} else {
		jt = &jumpTable{}
	}
	n := len(c.list)
	if cap(jt.nxt) < n {
		jt.nxt = make([]int32, n)
	}
	jt.nxt = jt.nxt[:n]
	for i := range jt.nxt {
		jt.nxt[i] = -1
	}
	c.jumps[fc] = jt
	return jt
}

// staticFits runs the pod-independent filters of the existing-node scan
// on a base node: cluster.StaticFit without resources, PreferNoSchedule
// taints unless tolerated, and the node affinity term and preferred term
// in force.
func (s *solver) staticFits(pd *podData, ex *exNode) bool {
	k := s.k
	if ex.view != ex.node {
		return s.staticFitsNow(pd, ex.view)
	}
	sk := staticKey{spec: pd.class, relax: pd.relax}
	sc := k.statics[sk]
	if sc == nil {
		sc = &cluster.NodeVerdicts{}
		k.statics[sk] = sc
	}
	ep := k.cl.NodeEpoch(ex.id)
	if ok, known := sc.Get(ex.id, ep); known {
		return ok
	}
	ok := s.staticFitsNow(pd, ex.view)
	sc.Set(ex.id, ep, ok, len(k.cl.Nodes))
	return ok
}

func (s *solver) staticFitsNow(pd *podData, v *cluster.Node) bool {
	syms := s.k.cl.Syms
	// Without spec.nodeName: the pods a solve places on existing nodes are
	// pending pods without it or bound pods being moved (StaticFitAnyNode).
	if m, _ := cluster.StaticFitAnyNode(syms, pd.spec, v, nil); m != cluster.Fits {
		return false
	}
	if !pd.tolPNS && !tolerates(pd.spec.Tolerations, pnsOnly(v.Taints), false) {
		return false
	}
	if pd.term != nil && !pd.term.Matches(syms, v.Labels, v.NameSym) {
		return false
	}
	if pd.pref != nil && !pd.pref.Matches(syms, v.Labels, v.NameSym) {
		return false
	}
	return true
}

// nextBaseFit returns the first base position >= p where a pod of the
// class fits in the base state, or len(base).
func (s *solver) nextBaseFit(jt *jumpTable, pd *podData, uca bool, p int) int {
	base := s.base
	n := len(base)
	q := p
	r := n
	for ; q < n; q++ {
		if v := jt.nxt[q]; v >= 0 {
			r = int(v)
			break
		}
		ex := &base[q]
		if (uca && s.now < ex.ucaUntil) || !pd.requests.Fits(ex.free) || !s.staticFits(pd, ex) {
			continue
		}
		jt.nxt[q] = int32(q)
		r = q
		break
	}
	for i := p; i < q; i++ {
		jt.nxt[i] = int32(r)
	}
	return r
}

// basePos is a node's position in the base, -1 if it is not there.
func (s *solver) basePos(id cluster.NodeID) int {
	if int(id) < len(s.ec.posOf) {
		return int(s.ec.posOf[id])
	}
	return -1
}

// slot returns the solve's overlay entry of a base position, nil when the
// solve neither changed nor excluded it.
func (s *solver) slot(pos int) *exSlot {
	sl := &s.ec.slots[pos]
	if sl.stamp != s.stamp {
		return nil
	}
	return sl
}

// excluded reports whether the solve excludes a base position.
func (s *solver) excludedPos(pos int) bool {
	sl := s.slot(pos)
	return sl != nil && sl.excluded
}

// touch returns the solve's own copy of a base node, making it on first
// use.
func (s *solver) touch(pos int) *exNode {
	sl := &s.ec.slots[pos]
	if sl.stamp != s.stamp {
		*sl = exSlot{stamp: s.stamp, touched: -1}
	}
	if sl.touched >= 0 {
		return s.touched[sl.touched]
	}
	var ex *exNode
	if n := len(s.k.exFree); n > 0 {
		ex = s.k.exFree[n-1]
		s.k.exFree = s.k.exFree[:n-1]
	} else {
		ex = new(exNode)
	}
	got := ex.got[:0]
	*ex = s.base[pos]
	ex.got = got
	sl.touched = int32(len(s.touched))
	s.touched = append(s.touched, ex)
	return ex
}

// finishExisting lists the nodes the solve changed, in base order.
func (s *solver) finishExisting() {
	ex := append(s.exists[:0], s.touched...)
	sort.Slice(ex, func(i, j int) bool { return ex[i].pos < ex[j].pos })
	s.exists = ex
}

func nodeSuffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := 4; i >= 0; i-- {
		b[i] = alphabet[n%len(alphabet)]
		n /= len(alphabet)
	}
	return string(b)
}
