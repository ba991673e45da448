package scheduling

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

// Node is what solves read of one of Karpenter's nodes (its
// NodeClaim); the controller's record (knode) embeds it.
type Node struct {
	// ID is the node's cluster id.
	ID cluster.NodeID
	// Pool is the NodePool that launched the node.
	Pool *Pool
	// InstanceType is the node's instance type.
	InstanceType *InstanceType
	// Offering is what the node was launched as (type, zone, capacity type).
	Offering cloud.Offering
	// Capacity is the node's capacity, counted against its pool's limits.
	Capacity cluster.Resources
	// Initialized: the node is Ready and its startup taints are gone (KC
	// initialized).
	Initialized bool
	// LastPodEvent is when the node's last pod event was recorded (KC
	// NodeClaim status.lastPodEventTime), or, before any, when the node
	// was initialized: what consolidateAfter counts from (KC
	// Consolidatable's timeToCheck). An adopted node's may be before the
	// run's start (negative).
	LastPodEvent engine.Time
	// Deleting: the NodeClaim is being deleted (tainted, draining).
	Deleting bool
	// InCommand: the node is a candidate of a disruption command waiting
	// for its replacements.
	InCommand bool
}

// NodeIndex holds Karpenter's nodes as solves read them, kept by the
// controller as it adds and removes them.
type NodeIndex struct {
	cl *cluster.Cluster
	// byID has Karpenter's nodes by NodeID (nil for others); live the
	// non-nil entries, by ID.
	byID []*Node
	live []*Node
	// BoundAntiAffinityPods counts bound pods with required anti-affinity.
	BoundAntiAffinityPods int
}

func (ni *NodeIndex) get(id cluster.NodeID) *Node {
	if int(id) < len(ni.byID) {
		return ni.byID[id]
	}
	return nil
}

// Add indexes Karpenter's record of a node.
func (ni *NodeIndex) Add(n *Node) {
	for int(n.ID) >= len(ni.byID) {
		ni.byID = append(ni.byID, nil)
	}
	ni.byID[n.ID] = n
	ni.live = append(ni.live, n) // IDs only grow: live stays sorted
}

// Remove drops a node's record from the index.
func (ni *NodeIndex) Remove(n *Node) {
	ni.byID[n.ID] = nil
	for i, o := range ni.live {
		if o == n {
			ni.live = append(ni.live[:i], ni.live[i+1:]...)
			break
		}
	}
}

// PodOnDeletingNode reports whether a pod is bound to one of Karpenter's
// nodes marked for deletion: being deleted, or a candidate of a started
// command waiting for its replacements (KC StateNode.MarkedForDeletion:
// the orchestration queue marks them).
func (ni *NodeIndex) PodOnDeletingNode(id cluster.PodID) bool {
	p := &ni.cl.Pods[id]
	if p.Node == cluster.NoNode {
		return false
	}
	kn := ni.get(p.Node)
	return kn != nil && (kn.Deleting || kn.InCommand)
}

// ExistingBase keeps the existing nodes as solves see them: their order,
// the shared snapshot (exCache) and what changed since it was made.
type ExistingBase struct {
	env
	nodes *NodeIndex
	pools *NodePools
	// ByOrderName: the live nodes (anyone's) by orderName, then ID;
	// orderNames caches orderName by NodeID.
	ByOrderName []cluster.NodeID
	// OrderNames caches each node's order name by NodeID.
	OrderNames []string
	// Snapshot is the existing nodes as solves read them, rebuilt or merged
	// when stale.
	Snapshot exCache
	// MembershipVersion changes with anything that changes the base other than
	// pods (exCache); baseDirty lists the nodes whose pods changed since
	// it was last brought up to date (baseMark: listed).
	MembershipVersion uint64
	// DirtyNodes are the nodes whose pods changed since the snapshot was
	// brought up to date (DirtyMarks: listed, by NodeID).
	DirtyNodes []cluster.NodeID
	DirtyMarks []bool
}

// ExistingNode is an existing node as a scheduling destination.
type ExistingNode struct {
	// ID is the node's cluster id.
	ID cluster.NodeID
	// node is the cluster's record of the node.
	node *cluster.Node
	// View is what filters see: the node itself, or a copy without the
	// startup taints while one of Karpenter's nodes initializes (KC
	// ignores ephemeral and startup taints on uninitialized nodes).
	View *cluster.Node
	// Free is the allocatable room left (allocatable minus requests), per
	// resource.
	Free cluster.Resources
	// Initialized: the node is initialized (existing nodes that are not are
	// tried after those that are).
	Initialized bool
	// ConsolidateAfterUntil: until then, in a consolidation simulation, pods being
	// moved may not land here (KC IsUnderConsolidateAfter); 0 for nodes
	// consolidateAfter does not protect.
	ConsolidateAfterUntil engine.Time
	// DaemonReserve is the room kept for DaemonSet pods not yet on the node.
	DaemonReserve cluster.Resources
	// Placed are the pods the solve put on the node, in order; PlacedPending:
	// some of them are pending pods (real ones); PlacedVirtual: how many
	// are CapacityBuffers' virtual pods.
	Placed        []cluster.PodID
	PlacedPending bool
	PlacedVirtual int32
	BasePosition  int32 // position in the base
	record        *Node // Karpenter's record of the node, nil for others
}

// exCache is the base: the live nodes not being deleted, in solve order,
// for one cluster state. It is rebuilt when the set of nodes or what an
// entry reads of its node other than its pods changes (existingBase.members);
// otherwise only the entries of nodes whose pods changed are refreshed
// (existingBase.baseDirty), and consolidateAfter is read against the time of
// the solve (ucaUntil).
type exCache struct {
	// Valid: the snapshot is up to date as of At with membership
	// MembershipVersion.
	Valid             bool
	at                engine.Time
	MembershipVersion uint64
	// Nodes are the snapshot's existing nodes, in base order.
	Nodes []ExistingNode
	// slots is per base position the overlay of the solve that owns it
	// (stamp), pointer-free.
	slots []exSlot
	// JumpTables are the classes' jump tables for this base; spare ones are
	// reused.
	JumpTables map[FitClass]*jumpTable
	spare      []*jumpTable
	// PoolCapacity and poolNodes sum the capacity and count the nodes of each
	// pool in the base (for limits).
	PoolCapacity map[*Pool]cluster.Resources
	PoolNodes    map[*Pool]int64
	// Positions maps a NodeID to its base position (-1: not in the base).
	Positions []int32
	// Scratch: the nodes not Ready (put aside by a rebuild or a merge),
	// and the spare list a merge fills.
	notReady []cluster.NodeID
	next     []ExistingNode
}

type exSlot struct {
	stamp    uint32
	excluded bool
	touched  int32 // index in the solve's touched list, -1: unchanged
}

// FitClass identifies pods that the existing-node scan treats alike: the
// same static constraints and requests (spec content), the same
// relaxation, and whether nodes under consolidateAfter are skipped.
type FitClass struct {
	// SpecClass is the pods' spec class (podStatic.Class).
	SpecClass int32
	// Relaxation is the pods' relaxation state.
	Relaxation Relaxation
	// UnderConsolidateAfter: the jump table skips nodes consolidateAfter
	// protects (consolidation what-ifs).
	UnderConsolidateAfter bool
}

// verdictKey identifies the pod-independent filters' answer for a class.
type verdictKey struct {
	// specClass is the pods' spec class (podStatic.Class).
	specClass int32
	// relaxation is the pods' relaxation state.
	relaxation Relaxation
}

// jumpTable: nxt[i] is the first base position >= i that fits the class
// in the base state (len(list) for none), or -1 while unknown.
type jumpTable struct {
	// Next is, per base position, the first position at or after it where the
	// class may fit.
	Next []int32
}

// NodeOrderAdd keeps the live nodes sorted by orderName, then ID. The
// dirty marks cover every node in the order (remerge reads them): nodes
// that exist before New are never marked dirty.
func (b *ExistingBase) NodeOrderAdd(id cluster.NodeID) {
	for int(id) >= len(b.DirtyMarks) {
		b.DirtyMarks = append(b.DirtyMarks, false)
	}
	name := b.OrderName(id)
	i := sort.Search(len(b.ByOrderName), func(i int) bool {
		o := b.ByOrderName[i]
		if on := b.OrderName(o); on != name {
			return on > name
		}
		return o > id
	})
	b.ByOrderName = append(b.ByOrderName, 0)
	copy(b.ByOrderName[i+1:], b.ByOrderName[i:])
	b.ByOrderName[i] = id
}

// OrderName is the name KC would order a node by: its name, but for the
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
func (b *ExistingBase) OrderName(id cluster.NodeID) string {
	if int(id) < len(b.OrderNames) && b.OrderNames[id] != "" {
		return b.OrderNames[id]
	}
	name := b.deriveOrderName(id)
	if int(id) >= len(b.OrderNames) {
		b.OrderNames = append(b.OrderNames, make([]string, int(id)+1-len(b.OrderNames))...)
	}
	b.OrderNames[id] = name
	return name
}

// deriveOrderName works out orderName without caching it (CheckIndexes
// recomputes the cache with it).
func (b *ExistingBase) deriveOrderName(id cluster.NodeID) string {
	n := &b.cl.Nodes[id]
	name := n.Name
	if n.Owner == Owner && !n.Adopted {
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
		name = n.OwnerName + "-" + NodeNameSuffix(int(h%nameSpace))
	}
	return name
}

// nameSpace is the number of 5-character name suffixes.
const nameSpace = 27 * 27 * 27 * 27 * 27

// NodeOrderRemove drops a node from the existing nodes' order (it is gone).
func (b *ExistingBase) NodeOrderRemove(id cluster.NodeID) {
	for i, o := range b.ByOrderName {
		if o == id {
			b.ByOrderName = append(b.ByOrderName[:i], b.ByOrderName[i+1:]...)
			return
		}
	}
}

// Current returns the base for the current state, bringing it up to
// date if needed.
func (b *ExistingBase) Current() *exCache {
	now := b.eng.Now()
	c := &b.Snapshot
	if !c.Valid || c.MembershipVersion != b.MembershipVersion {
		b.rebuild(c)
	} else if c.at == now && len(b.DirtyNodes) == 0 {
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
func (b *ExistingBase) wants(id cluster.NodeID) (member, ready bool) {
	st := b.cl.Nodes[id].State
	if st == cluster.NodeGone {
		return false, false
	}
	if kn := b.nodes.get(id); kn != nil && (kn.Deleting || kn.InCommand) {
		return false, false
	}
	return true, st == cluster.NodeReady
}

// update brings the base up to date with the nodes that changed
// (baseDirty): entries are refreshed in place, and when a node comes,
// goes or becomes Ready the list is merged anew in name order, copying
// the entries of nodes that did not change.
func (b *ExistingBase) update(c *exCache) {
	for len(c.Positions) < len(b.cl.Nodes) {
		c.Positions = append(c.Positions, -1)
	}
	moved := false
	for _, id := range b.DirtyNodes {
		member, ready := b.wants(id)
		pos := c.Positions[id]
		// Pool sums: the node out as it was, in as it is.
		if pos >= 0 {
			c.subPoolNode(c.Nodes[pos].record)
		}
		if member {
			c.addPoolNode(b.nodes.get(id))
		}
		switch {
		case pos >= 0 && member && c.Nodes[pos].Initialized == ready:
			b.fill(&c.Nodes[pos], id, ready)
		case pos < 0 && !member:
		default:
			moved = true
		}
	}
	if moved {
		b.remerge(c)
	}
	for _, id := range b.DirtyNodes {
		b.DirtyMarks[id] = false
	}
	b.DirtyNodes = b.DirtyNodes[:0]
}

// remerge rebuilds the list in solve order (Ready nodes first, then
// the others, each by name) from the old list, reading only the nodes
// that changed (baseMark).
func (b *ExistingBase) remerge(c *exCache) {
	old := c.Nodes
	list := c.next[:0]
	notReady := c.notReady[:0]
	place := func(id cluster.NodeID, ready bool) {
		pos := int32(len(list))
		if !b.DirtyMarks[id] {
			list = append(list, old[c.Positions[id]])
		} else {
			list = append(list, ExistingNode{})
			b.fill(&list[pos], id, ready)
		}
		list[pos].BasePosition = pos
	}
	for _, id := range b.ByOrderName {
		var member, ready bool
		if b.DirtyMarks[id] {
			member, ready = b.wants(id)
		} else if pos := c.Positions[id]; pos >= 0 {
			member, ready = true, old[pos].Initialized
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
		c.Positions[old[i].ID] = -1
	}
	for i := range list {
		c.Positions[list[i].ID] = int32(i)
	}
	c.notReady = notReady
	c.next, c.Nodes = old[:0], list
}

// rebuild builds the base from every node.
func (b *ExistingBase) rebuild(c *exCache) {
	for _, id := range b.DirtyNodes {
		b.DirtyMarks[id] = false
	}
	b.DirtyNodes = b.DirtyNodes[:0]
	cl := b.cl
	for i := range c.Nodes {
		c.Positions[c.Nodes[i].ID] = -1
	}
	for len(c.Positions) < len(cl.Nodes) {
		c.Positions = append(c.Positions, -1)
	}
	list := c.Nodes[:0]
	if c.PoolCapacity == nil {
		c.PoolCapacity = map[*Pool]cluster.Resources{}
		c.PoolNodes = map[*Pool]int64{}
	}
	clear(c.PoolCapacity)
	clear(c.PoolNodes)
	// Ready nodes first, then the others, each in name order: one walk,
	// the others put aside.
	notReady := c.notReady[:0]
	for _, id := range b.ByOrderName {
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
	c.Valid, c.MembershipVersion, c.Nodes = true, b.MembershipVersion, list
}

// resetOverlays drops the solves' overlays and the jump tables: the base
// changed.
func (c *exCache) resetOverlays() {
	if cap(c.slots) < len(c.Nodes) {
		c.slots = make([]exSlot, len(c.Nodes), cap(c.Nodes))
	}
	c.slots = c.slots[:len(c.Nodes)]
	clear(c.slots)
	for key, jt := range c.JumpTables {
		c.spare = append(c.spare, jt)
		delete(c.JumpTables, key)
	}
}

// NodeDirty notes that a node's pods changed (its base entry needs
// refreshing); invalidate that the base needs rebuilding.
func (b *ExistingBase) NodeDirty(id cluster.NodeID) {
	for int(id) >= len(b.DirtyMarks) {
		b.DirtyMarks = append(b.DirtyMarks, false)
	}
	if !b.DirtyMarks[id] {
		b.DirtyMarks[id] = true
		b.DirtyNodes = append(b.DirtyNodes, id)
	}
}

// Invalidate forces the next solve to rebuild the snapshot.
func (b *ExistingBase) Invalidate() { b.MembershipVersion++ }

// appendNode adds node id to the base unless it is being deleted or in a
// command.
func (b *ExistingBase) appendNode(c *exCache, list []ExistingNode, id cluster.NodeID, ready bool) []ExistingNode {
	kn := b.nodes.get(id)
	if kn != nil && (kn.Deleting || kn.InCommand) {
		return list
	}
	list = append(list, ExistingNode{BasePosition: int32(len(list))})
	b.fill(&list[len(list)-1], id, ready)
	c.addPoolNode(kn)
	c.Positions[id] = int32(len(list) - 1)
	return list
}

// fill sets a base entry from its node (all but its position).
func (b *ExistingBase) fill(ex *ExistingNode, id cluster.NodeID, ready bool) {
	n := &b.cl.Nodes[id]
	kn := b.nodes.get(id)
	got := ex.Placed[:0]
	*ex = ExistingNode{ID: id, node: n, View: n, Initialized: ready, BasePosition: ex.BasePosition, Placed: got, record: kn}
	if kn != nil && !kn.Initialized {
		// An uninitialized node's taints are its NodeClaim's: startup
		// taints and the node lifecycle controller's not-ready taint of a
		// node that registered and is not Ready aside (KC StateNode.Taints,
		// known ephemeral taints).
		if len(kn.Pool.Spec.StartupTaints) > 0 || n.Condition.NotReady() {
			v := *n
			v.Taints = withoutTaints(n.Taints, kn.Pool.Spec.StartupTaints)
			if n.Condition.NotReady() {
				v.Taints = b.withoutNotReady(v.Taints)
			}
			ex.View = &v
		}
		// DaemonSet pods start once the node is Ready: keep their
		// room (KC ExistingNode remaining daemon resources).
		if b.pools.daemonOverhead != nil {
			ex.DaemonReserve = b.pools.daemonOverhead(n)
		}
	}
	ex.Free = n.Allocatable
	for r := range ex.Free {
		ex.Free[r] -= n.Requested[r] + ex.DaemonReserve[r]
	}
	if kn != nil && ready {
		if pa := kn.Pool.Spec.Disruption; !pa.ConsolidateNever && pa.ConsolidateAfter > 0 {
			ex.ConsolidateAfterUntil = kn.LastPodEvent + pa.ConsolidateAfter
		}
	}
}

// addPoolNode and subPoolNode add and remove a node's capacity in the
// pools' sums (nil: not one of Karpenter's nodes).
func (c *exCache) addPoolNode(kn *Node) {
	if kn != nil {
		c.PoolCapacity[kn.Pool] = c.PoolCapacity[kn.Pool].Add(kn.Capacity)
		c.PoolNodes[kn.Pool]++
	}
}

func (c *exCache) subPoolNode(kn *Node) {
	if kn == nil {
		return
	}
	c.PoolCapacity[kn.Pool] = c.PoolCapacity[kn.Pool].Sub(kn.Capacity)
	if c.PoolNodes[kn.Pool]--; c.PoolNodes[kn.Pool] == 0 {
		delete(c.PoolCapacity, kn.Pool)
		delete(c.PoolNodes, kn.Pool)
	}
}

// JumpTable returns the class's jump table for the base.
func (c *exCache) JumpTable(fc FitClass) *jumpTable {
	if jt, ok := c.JumpTables[fc]; ok {
		return jt
	}
	if c.JumpTables == nil {
		c.JumpTables = map[FitClass]*jumpTable{}
	}
	var jt *jumpTable
	if n := len(c.spare); n > 0 {
		jt = c.spare[n-1]
		c.spare = c.spare[:n-1]
	} else {
		jt = &jumpTable{}
	}
	n := len(c.Nodes)
	if cap(jt.Next) < n {
		jt.Next = make([]int32, n)
	}
	jt.Next = jt.Next[:n]
	for i := range jt.Next {
		jt.Next[i] = -1
	}
	c.JumpTables[fc] = jt
	return jt
}

// StaticFits runs the pod-independent filters of the existing-node scan
// on a base node: cluster.StaticFit without resources, PreferNoSchedule
// taints unless tolerated, and the node affinity term and preferred term
// in force.
func (s *Solver) StaticFits(pd *PodData, ex *ExistingNode) bool {
	k := s.Shared
	if ex.View != ex.node {
		return s.staticFitsNow(pd, ex.View)
	}
	sk := verdictKey{specClass: pd.Class, relaxation: pd.Relaxation}
	sc := k.Verdicts[sk]
	if sc == nil {
		sc = &cluster.NodeVerdicts{}
		k.Verdicts[sk] = sc
	}
	ep := k.cl.NodeEpoch(ex.ID)
	if ok, known := sc.Get(ex.ID, ep); known {
		return ok
	}
	ok := s.staticFitsNow(pd, ex.View)
	sc.Set(ex.ID, ep, ok, len(k.cl.Nodes))
	return ok
}

// staticFitsNow reports whether a pod of pd fits node v as it is now,
// resources aside: StaticFits on the live node instead of the snapshot.
func (s *Solver) staticFitsNow(pd *PodData, v *cluster.Node) bool {
	syms := s.Shared.cl.Syms
	// Without spec.nodeName: the pods a solve places on existing nodes are
	// pending pods without it or bound pods being moved (StaticFitAnyNode).
	if m, _ := cluster.StaticFitAnyNode(syms, pd.spec, v, nil); m != cluster.Fits {
		return false
	}
	if !pd.toleratesPreferNoSchedule && !tolerates(pd.spec.Tolerations, pnsOnly(v.Taints), false) {
		return false
	}
	if pd.requiredTerm != nil && !pd.requiredTerm.Matches(syms, v.Labels, v.NameSym) {
		return false
	}
	if pd.preferredTerm != nil && !pd.preferredTerm.Matches(syms, v.Labels, v.NameSym) {
		return false
	}
	return true
}

// NextBaseFit returns the first base position >= p where a pod of the
// class fits in the base state, or len(base).
func (s *Solver) NextBaseFit(jt *jumpTable, pd *PodData, uca bool, p int) int {
	base := s.Base
	n := len(base)
	q := p
	r := n
	for ; q < n; q++ {
		if v := jt.Next[q]; v >= 0 {
			r = int(v)
			break
		}
		ex := &base[q]
		if (uca && s.Now < ex.ConsolidateAfterUntil) || !pd.Requests.Fits(ex.Free) || !s.StaticFits(pd, ex) {
			continue
		}
		jt.Next[q] = int32(q)
		r = q
		break
	}
	for i := p; i < q; i++ {
		jt.Next[i] = int32(r)
	}
	return r
}

// BasePosition is a node's position in the base, -1 if it is not there.
func (s *Solver) BasePosition(id cluster.NodeID) int {
	if int(id) < len(s.Snapshot.Positions) {
		return int(s.Snapshot.Positions[id])
	}
	return -1
}

// slot returns the solve's overlay entry of a base position, nil when the
// solve neither changed nor excluded it.
func (s *Solver) slot(pos int) *exSlot {
	sl := &s.Snapshot.slots[pos]
	if sl.stamp != s.stamp {
		return nil
	}
	return sl
}

// excluded reports whether the solve excludes a base position.
func (s *Solver) excludedPos(pos int) bool {
	sl := s.slot(pos)
	return sl != nil && sl.excluded
}

// touch returns the solve's own copy of a base node, making it on first
// use.
func (s *Solver) touch(pos int) *ExistingNode {
	sl := &s.Snapshot.slots[pos]
	if sl.stamp != s.stamp {
		*sl = exSlot{stamp: s.stamp, touched: -1}
	}
	if sl.touched >= 0 {
		return s.touched[sl.touched]
	}
	var ex *ExistingNode
	if n := len(s.Shared.exFree); n > 0 {
		ex = s.Shared.exFree[n-1]
		s.Shared.exFree = s.Shared.exFree[:n-1]
	} else {
		ex = new(ExistingNode)
	}
	got := ex.Placed[:0]
	*ex = s.Base[pos]
	ex.Placed = got
	sl.touched = int32(len(s.touched))
	s.touched = append(s.touched, ex)
	return ex
}

// finishExisting lists the nodes the solve changed, in base order.
func (s *Solver) finishExisting() {
	ex := append(s.Existing[:0], s.touched...)
	sort.Slice(ex, func(i, j int) bool { return ex[i].BasePosition < ex[j].BasePosition })
	s.Existing = ex
}

// NodeNameSuffix is the n-th 5-character suffix of a generated NodeClaim name
// (KC's <pool>-<5 characters>).
func NodeNameSuffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := 4; i >= 0; i-- {
		b[i] = alphabet[n%len(alphabet)]
		n /= len(alphabet)
	}
	return string(b)
}

// Get returns the index's record of node id, nil if it has none; Len
// counts its records (CheckIndexes compares them with the controller's).
func (ni *NodeIndex) Get(id cluster.NodeID) *Node { return ni.get(id) }
func (ni *NodeIndex) Len() int                    { return len(ni.live) }

// withoutNotReady drops the node lifecycle controller's not-ready and
// unreachable taints (known ephemeral taints to KC).
func (b *ExistingBase) withoutNotReady(taints []cluster.Taint) []cluster.Taint {
	notReady, okN := b.cl.Syms.Lookup(cluster.TaintNotReady)
	unreachable, okU := b.cl.Syms.Lookup(cluster.TaintUnreachable)
	out := taints[:0:0]
	for _, t := range taints {
		if !(okN && t.Key == notReady) && !(okU && t.Key == unreachable) {
			out = append(out, t)
		}
	}
	return out
}
