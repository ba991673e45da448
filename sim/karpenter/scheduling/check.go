package scheduling

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
)

// CheckCounts says how much CheckIndexes compared, per kind of entry
// (tests make sure their runs reach every structure).
type CheckCounts struct {
	Entries, JumpPositions, Verdicts, PodStatics, ClaimStarts, Masks int
}

// CheckIndexes recomputes, from the cluster and the solve's own records
// (its NodeIndex, NodePools' specs, offerings), every structure of the
// solve's parts that keeps a copy of a fact for speed, and returns an
// error naming the first that differs (the structure, the node or pod,
// and both values); nil when all agree. The controller's CheckIndexes
// (package karpenter, sim run --check) calls it. It changes nothing: no
// cache is filled, no symbol or spec class is numbered, no price is
// refreshed, so a checked run decides exactly as an unchecked one.
// Without pools it leaves out the NodePools' derived data, which only a
// NodePool update or a new price list changes; hasStats says whether the
// controller keeps the stats of a pool (a pool in force without them is
// an error of the node pools).
//
// In order, it checks:
//
//   - node order (ExistingBase.ByOrderName, OrderNames): the live nodes
//     sorted by the order name worked out afresh, then ID;
//   - dirty marks: DirtyMarks and DirtyNodes list the same nodes, once,
//     and DirtyMarks covers every node in the order (remerge reads them
//     all);
//   - the existing-node snapshot (ExistingBase.Snapshot): while valid for
//     the current members, the entries of nodes not marked dirty equal a
//     fresh fill of their node (node record, filters' view, free room,
//     daemon room, readiness, consolidateAfter protection, NodeClaim), in
//     the order of a fresh build, no node missing or extra; positions and
//     posOf agree; the pools' capacity and node sums are those of its
//     entries; no solve wrote into a base entry. Dirty nodes are refreshed
//     before any use;
//   - spec classes (Solvers.SpecClasses, the controller's own numbering):
//     specs share a class exactly when their content is equal
//     (SpecClasses.Check), so a class's first spec stands for all in the
//     checks below;
//   - jump tables (Snapshot.JumpTables): only kept while the snapshot is
//     reused as is (same members, same instant, nothing dirty), and then
//     checked: every position a table says a class fits (does not fit)
//     fits (does not) with a fresh filter, as a representative spec of the
//     class sees it (cluster.SpecClasses.Spec);
//   - static-fit verdicts (Solvers.Verdicts): an entry is used only while
//     its node's epoch is the one stored, so only the entries of live
//     nodes at their current epoch are checked, against a fresh
//     staticFitsNow of the node for the class's representative spec;
//   - pod statics (Solvers.PodStatics): kept for one instant, so checked
//     only at the instant they were made, against derivePodStatic; their
//     indexes number them 0..n-1;
//   - placeholder hostnames: number n is "hostname-placeholder-n";
//   - node pools: all sorted by name and ByName agree; the weight order,
//     when kept, is orderPools of them; each pool's derived data
//     (requirements, instance types with their capacity, allocatable and
//     daemon overhead, TypePositions, PreferNoSchedule) equals a fresh
//     build; its stats are kept (hasStats); each cached NodeClaim start
//     equals the pool's requirements with its placeholder hostname;
//   - available offerings (Offerings.AvailableCache): when it would be
//     reused (same instant and table version), the masks computed afresh.
//
// The errors read "<structure>: <what differs>".
func (s *Scheduler) CheckIndexes(pools bool, hasStats func(pool string) bool) (CheckCounts, error) {
	ck := s.newIndexCheck()
	ck.hasStats = hasStats
	for _, c := range []struct {
		name  string
		check func() error
	}{
		{"node order", ck.nodeOrder},
		{"dirty marks", ck.dirtyMarks},
		{"existing-node snapshot", ck.snapshot},
		{"spec classes", s.Solvers.specClasses.Check},
		{"jump tables", ck.jumpTables},
		{"static-fit verdicts", ck.staticVerdicts},
		{"pod statics", ck.podStatics},
		{"placeholder hostnames", ck.placeholders},
		{"node pools", ck.nodePools},
		{"available offerings", ck.availability},
	} {
		if c.name == "node pools" && !pools {
			continue
		}
		if err := c.check(); err != nil {
			return ck.counts, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return ck.counts, nil
}

// CheckBoundAntiAffinity checks the node index's count of the bound pods
// with required pod anti-affinity against a count of the cluster's.
func (s *Scheduler) CheckBoundAntiAffinity() error {
	return s.newIndexCheck().antiBound()
}

// CheckPodSet compares a prepared set with one built afresh from pods
// (queue keys, in queue order once sorted, templates, counts, first
// pods, flags, classes per spec class): a candidate's when fromCand
// (every origin FromCandidate); else origins are not compared.
func (s *Scheduler) CheckPodSet(ps *PodSet, pods []cluster.PodID, fromCand bool) error {
	return s.newIndexCheck().podSet(ps, pods, fromCand)
}

func (s *Scheduler) newIndexCheck() *indexCheck {
	ck := &indexCheck{s: s, cl: s.env.cl}
	_, ck.haveUnsched = ck.cl.Syms.Lookup(unschedulableTaintKey)
	return ck
}

// unschedulableTaintKey is the key cluster.StaticFit interns for a
// cordoned node; a check evaluates the filters of a cordoned node only if
// it is interned already (it always is once the model has evaluated them).
const unschedulableTaintKey = "node.kubernetes.io/unschedulable"

// indexCheck is one check run.
type indexCheck struct {
	s           *Scheduler
	cl          *cluster.Cluster
	haveUnsched bool
	hasStats    func(pool string) bool
	order       []cluster.NodeID // freshOrder's answer
	counts      CheckCounts
}

// podSet compares a prepared set with one built afresh from pods (a
// candidate's when fromCand: every origin fromCandidate; else origins are
// not compared).
func (ck *indexCheck) podSet(ps *PodSet, pods []cluster.PodID, fromCand bool) error {
	sv := ck.s.Solvers
	if !slices.Equal(ps.Pods, pods) {
		return fmt.Errorf("set of pods %v, want %v", ps.Pods, pods)
	}
	b := SetBuilder{Set: &PodSet{Pods: pods}}
	for _, id := range pods {
		e := sv.queueKey(id, sv.pod(id))
		if fromCand {
			e.Origin = FromCandidate
		}
		b.Add(sv, e)
	}
	fresh := b.Set
	want := fresh.QueueKeys
	if ps.QueueKeysSorted {
		want = slices.Clone(want)
		slices.SortFunc(want, CompareQueueKeys)
	}
	if len(ps.QueueKeys) != len(want) {
		return fmt.Errorf("%d queue keys for %d pods", len(ps.QueueKeys), len(want))
	}
	for i := range want {
		got, w := ps.QueueKeys[i], want[i]
		if !fromCand {
			got.Origin = w.Origin
		}
		if got != w {
			return fmt.Errorf("queue key %d (%s): %+v, want %+v", i, ck.pod(w.ID), ps.QueueKeys[i], w)
		}
	}
	switch {
	case !slices.Equal(ps.Templates, fresh.Templates) || !slices.Equal(ps.TemplateCounts, fresh.TemplateCounts) || !slices.Equal(ps.TemplateFirstPods, fresh.TemplateFirstPods):
		return fmt.Errorf("templates %v x %v (first %v), want %v x %v (first %v)", ps.Templates, ps.TemplateCounts, ps.TemplateFirstPods, fresh.Templates, fresh.TemplateCounts, fresh.TemplateFirstPods)
	case ps.NamesCapacityType != fresh.NamesCapacityType:
		return fmt.Errorf("namesCapacityType %v, want %v", ps.NamesCapacityType, fresh.NamesCapacityType)
	case ps.HasTopology != fresh.HasTopology:
		return fmt.Errorf("topology %v, want %v", ps.HasTopology, fresh.HasTopology)
	}
	if ps.classes == nil {
		return nil
	}
	var classes []classCount
	for i, key := range fresh.Templates {
		if hasTopology(key.Spec) {
			continue
		}
		c, ok := sv.specClasses.Lookup(key.Spec)
		if !ok {
			return fmt.Errorf("classes counted for a template of %s without a spec class", ck.pod(fresh.TemplateFirstPods[i]))
		}
		j := slices.IndexFunc(classes, func(cc classCount) bool { return cc.Class == c })
		if j < 0 {
			classes = append(classes, classCount{Class: c, Key: key})
			j = len(classes) - 1
		}
		classes[j].Count += int64(fresh.TemplateCounts[i])
	}
	if !slices.Equal(ps.classes, classes) {
		return fmt.Errorf("pods per class %v, want %v", ps.classes, classes)
	}
	return nil
}

// freshOrder is the live nodes in the order byName keeps (worked out once
// per check).
func (ck *indexCheck) freshOrder() []cluster.NodeID {
	if ck.order != nil {
		return ck.order
	}
	b := ck.s.Base
	type named struct {
		id   cluster.NodeID
		name string
	}
	var ns []named
	for i := range ck.cl.Nodes {
		if ck.cl.Nodes[i].State != cluster.NodeGone {
			ns = append(ns, named{cluster.NodeID(i), b.deriveOrderName(cluster.NodeID(i))})
		}
	}
	sort.Slice(ns, func(i, j int) bool {
		if ns[i].name != ns[j].name {
			return ns[i].name < ns[j].name
		}
		return ns[i].id < ns[j].id
	})
	out := make([]cluster.NodeID, len(ns))
	for i := range ns {
		out[i] = ns[i].id
	}
	ck.order = out
	return out
}

func (ck *indexCheck) nodeOrder() error {
	b := ck.s.Base
	for id, name := range b.OrderNames {
		if name != "" {
			if want := b.deriveOrderName(cluster.NodeID(id)); name != want {
				return fmt.Errorf("%s: order name %q, want %q", ck.node(cluster.NodeID(id)), name, want)
			}
		}
	}
	want := ck.freshOrder()
	if !slices.Equal(b.ByOrderName, want) {
		return fmt.Errorf("live nodes in order %v, want %v", b.ByOrderName, want)
	}
	return nil
}

func (ck *indexCheck) dirtyMarks() error {
	b := ck.s.Base
	seen := map[cluster.NodeID]bool{}
	for _, id := range b.DirtyNodes {
		if seen[id] {
			return fmt.Errorf("%s listed dirty twice", ck.node(id))
		}
		seen[id] = true
		if int(id) >= len(b.DirtyMarks) || !b.DirtyMarks[id] {
			return fmt.Errorf("%s listed dirty, not marked", ck.node(id))
		}
	}
	for id, m := range b.DirtyMarks {
		if m && !seen[cluster.NodeID(id)] {
			return fmt.Errorf("%s marked dirty, not listed", ck.node(cluster.NodeID(id)))
		}
	}
	// remerge reads the mark of every node in the order.
	for _, id := range b.ByOrderName {
		if int(id) >= len(b.DirtyMarks) {
			return fmt.Errorf("%s is in the node order beyond the %d dirty marks", ck.node(id), len(b.DirtyMarks))
		}
	}
	return nil
}

// freshBase builds the snapshot's list afresh: the members in solve order
// (Ready ones first, then the others, each in the fresh node order).
func (ck *indexCheck) freshBase() []ExistingNode {
	b := ck.s.Base
	var ready, notReady []cluster.NodeID
	for _, id := range ck.freshOrder() {
		switch member, r := b.wants(id); {
		case !member:
		case r:
			ready = append(ready, id)
		default:
			notReady = append(notReady, id)
		}
	}
	list := make([]ExistingNode, 0, len(ready)+len(notReady))
	for i, id := range append(ready, notReady...) {
		ex := ExistingNode{BasePosition: int32(len(list))}
		b.fill(&ex, id, i < len(ready))
		list = append(list, ex)
	}
	return list
}

func (ck *indexCheck) dirty(id cluster.NodeID) bool {
	b := ck.s.Base
	return int(id) < len(b.DirtyMarks) && b.DirtyMarks[id]
}

func (ck *indexCheck) snapshot() error {
	b := ck.s.Base
	c := &b.Snapshot
	if !c.Valid || c.MembershipVersion != b.MembershipVersion {
		return nil // rebuilt before any use
	}
	for i := range c.Nodes {
		ex := &c.Nodes[i]
		if ex.BasePosition != int32(i) {
			return fmt.Errorf("%s at position %d says %d", ck.node(ex.ID), i, ex.BasePosition)
		}
		if int(ex.ID) >= len(c.Positions) || c.Positions[ex.ID] != int32(i) {
			return fmt.Errorf("%s at position %d, not in posOf", ck.node(ex.ID), i)
		}
		if len(ex.Placed) > 0 || ex.PlacedPending {
			return fmt.Errorf("%s: a solve placed pods %v on the base entry, not its own copy", ck.node(ex.ID), ex.Placed)
		}
	}
	inPos := 0
	for _, p := range c.Positions {
		if p >= 0 {
			inPos++
		}
	}
	if inPos != len(c.Nodes) {
		return fmt.Errorf("posOf places %d nodes, the list has %d", inPos, len(c.Nodes))
	}
	// The pools' sums are those of the entries.
	capacity, count := map[*Pool]cluster.Resources{}, map[*Pool]int64{}
	for i := range c.Nodes {
		if kn := c.Nodes[i].record; kn != nil {
			capacity[kn.Pool] = capacity[kn.Pool].Add(kn.Capacity)
			count[kn.Pool]++
		}
	}
	for _, p := range ck.s.Pools.All {
		if c.PoolCapacity[p] != capacity[p] || c.PoolNodes[p] != count[p] {
			return fmt.Errorf("pool %s: summed %d nodes of %v, the entries %d of %v", p.Spec.Name, c.PoolNodes[p], c.PoolCapacity[p], count[p], capacity[p])
		}
	}
	if len(c.PoolNodes) != len(count) || len(c.PoolCapacity) != len(count) {
		return fmt.Errorf("sums for %d pools, %d pools have entries", len(c.PoolNodes), len(count))
	}
	// Entries of nodes not marked dirty: as a fresh fill, in the fresh
	// order, none missing.
	fresh := ck.freshBase()
	var cached, want []cluster.NodeID
	for i := range c.Nodes {
		if !ck.dirty(c.Nodes[i].ID) {
			cached = append(cached, c.Nodes[i].ID)
		}
	}
	for i := range fresh {
		f := &fresh[i]
		if ck.dirty(f.ID) {
			continue
		}
		want = append(want, f.ID)
		ck.counts.Entries++
		pos := int32(-1)
		if int(f.ID) < len(c.Positions) {
			pos = c.Positions[f.ID]
		}
		if pos < 0 {
			return fmt.Errorf("%s belongs in the snapshot, is not in it nor marked dirty", ck.node(f.ID))
		}
		if err := ck.sameEntry(&c.Nodes[pos], f); err != nil {
			return fmt.Errorf("%s: %w", ck.node(f.ID), err)
		}
	}
	if !slices.Equal(cached, want) {
		return fmt.Errorf("clean nodes in order %v, want %v", cached, want)
	}
	return nil
}

// sameEntry compares a snapshot entry with a fresh fill of its node.
func (ck *indexCheck) sameEntry(ex, f *ExistingNode) error {
	switch {
	case ex.record != f.record:
		return fmt.Errorf("entry's NodeClaim record %p, the node's %p", ex.record, f.record)
	case ex.Initialized != f.Initialized:
		return fmt.Errorf("entry initialized %v, node Ready %v", ex.Initialized, f.Initialized)
	case ex.Free != f.Free:
		return fmt.Errorf("entry free %v, now %v", ex.Free, f.Free)
	case ex.DaemonReserve != f.DaemonReserve:
		return fmt.Errorf("entry daemon room %v, now %v", ex.DaemonReserve, f.DaemonReserve)
	case ex.ConsolidateAfterUntil != f.ConsolidateAfterUntil:
		return fmt.Errorf("entry protected by consolidateAfter until %v, now until %v", ex.ConsolidateAfterUntil, f.ConsolidateAfterUntil)
	case (ex.View == ex.node) != (f.View == f.node):
		return fmt.Errorf("entry's filters see a copy: %v, now %v", ex.View != ex.node, f.View != f.node)
	}
	// After the cluster's node table grew, the entry may point at the
	// node's old record: the same as long as the node did not change.
	if ex.node != f.node && !reflect.DeepEqual(*ex.node, *f.node) {
		return fmt.Errorf("entry reads a stale node record (labels %v taints %v cordoned %v pods %v; now %v %v %v %v)",
			ex.node.Labels, ex.node.Taints, ex.node.Unschedulable, ex.node.Pods, f.node.Labels, f.node.Taints, f.node.Unschedulable, f.node.Pods)
	}
	if ex.View != ex.node && !reflect.DeepEqual(*ex.View, *f.View) {
		return fmt.Errorf("entry's view has taints %v, now %v", ex.View.Taints, f.View.Taints)
	}
	return nil
}

// repStatic is the static data of a class's representative spec in a
// relaxation state, for recomputing answers cached per class.
func (ck *indexCheck) repStatic(class int32, r Relaxation) (*PodData, error) {
	sv := ck.s.Solvers
	spec := sv.specClasses.Spec(class)
	if spec == nil {
		return nil, fmt.Errorf("an answer cached for spec class %d, which has no spec", class)
	}
	return &PodData{podStatic: *sv.derivePodStatic(PodKey{Spec: spec, relaxation: r}, class)}, nil
}

func (ck *indexCheck) staticFitsNow(pd *PodData, n *cluster.Node) bool {
	return (&Solver{Shared: ck.s.Solvers}).staticFitsNow(pd, n)
}

func (ck *indexCheck) jumpTables() error {
	b := ck.s.Base
	c := &b.Snapshot
	if !c.Valid || c.MembershipVersion != b.MembershipVersion || c.at != ck.s.env.eng.Now() || len(b.DirtyNodes) > 0 {
		return nil // reset before any use
	}
	fcs := make([]FitClass, 0, len(c.JumpTables))
	for fc := range c.JumpTables {
		fcs = append(fcs, fc)
	}
	sort.Slice(fcs, func(i, j int) bool { return lessFitClass(fcs[i], fcs[j]) })
	n := len(c.Nodes)
	now := ck.s.env.eng.Now()
	for _, fc := range fcs {
		jt := c.JumpTables[fc]
		if len(jt.Next) != n {
			return fmt.Errorf("class %+v: table of %d positions, %d nodes", fc, len(jt.Next), n)
		}
		pd, err := ck.repStatic(fc.SpecClass, fc.Relaxation)
		if err != nil {
			return err
		}
		// claim: 0 unknown, 1 fits, 2 does not fit.
		claim := make([]uint8, n)
		reach := -1 // positions below it are claimed not to fit
		for i, v := range jt.Next {
			if v < 0 {
				if i >= reach {
					continue
				}
			} else {
				if int(v) < i || int(v) > n {
					return fmt.Errorf("class %+v: position %d jumps to %d", fc, i, v)
				}
				if int(v) < n {
					claim[v] = 1
				}
				reach = max(reach, int(v))
			}
			if i < reach && claim[i] == 0 {
				claim[i] = 2
			} else if i < reach && claim[i] == 1 {
				return fmt.Errorf("class %+v: position %d claimed to fit and not to", fc, i)
			}
		}
		for q := range n {
			if claim[q] == 0 {
				continue
			}
			ex := &c.Nodes[q]
			ck.counts.JumpPositions++
			fits := !(fc.UnderConsolidateAfter && now < ex.ConsolidateAfterUntil) && pd.Requests.Fits(ex.Free)
			if fits {
				if !ck.canFilter(ex.View) {
					continue
				}
				fits = ck.staticFitsNow(pd, ex.View)
			}
			if fits != (claim[q] == 1) {
				return fmt.Errorf("class %+v at %s: table says fits=%v, the filters %v", fc, ck.node(ex.ID), claim[q] == 1, fits)
			}
		}
	}
	return nil
}

func lessFitClass(a, b FitClass) bool {
	if a.SpecClass != b.SpecClass {
		return a.SpecClass < b.SpecClass
	}
	if a.UnderConsolidateAfter != b.UnderConsolidateAfter {
		return !a.UnderConsolidateAfter
	}
	return lessRelax(a.Relaxation, b.Relaxation)
}

func lessRelax(a, b Relaxation) bool {
	x := [...]int{int(a.droppedRequiredTerms), int(a.droppedPreferredAffinity), int(a.droppedPreferredAntiAffinity), int(a.droppedPreferredNodeAffinity), int(a.droppedSpread), boolToInt(a.toleratePreferNoSchedule)}
	y := [...]int{int(b.droppedRequiredTerms), int(b.droppedPreferredAffinity), int(b.droppedPreferredAntiAffinity), int(b.droppedPreferredNodeAffinity), int(b.droppedSpread), boolToInt(b.toleratePreferNoSchedule)}
	return slices.Compare(x[:], y[:]) < 0
}

func (ck *indexCheck) staticVerdicts() error {
	sv := ck.s.Solvers
	keys := make([]verdictKey, 0, len(sv.Verdicts))
	for sk := range sv.Verdicts {
		keys = append(keys, sk)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].specClass != keys[j].specClass {
			return keys[i].specClass < keys[j].specClass
		}
		return lessRelax(keys[i].relaxation, keys[j].relaxation)
	})
	var live []cluster.NodeID
	for i := range ck.cl.Nodes {
		if ck.cl.Nodes[i].State != cluster.NodeGone {
			live = append(live, cluster.NodeID(i))
		}
	}
	for _, sk := range keys {
		vs := sv.Verdicts[sk]
		var pd *PodData
		for _, id := range live {
			yes, known := vs.Get(id, ck.cl.NodeEpoch(id))
			n := &ck.cl.Nodes[id]
			if !known || !ck.canFilter(n) {
				continue
			}
			if pd == nil {
				var err error
				if pd, err = ck.repStatic(sk.specClass, sk.relaxation); err != nil {
					return err
				}
			}
			ck.counts.Verdicts++
			if fresh := ck.staticFitsNow(pd, n); fresh != yes {
				return fmt.Errorf("class %d %+v on %s at epoch %d: cached %v, the filters %v", sk.specClass, sk.relaxation, ck.node(id), ck.cl.NodeEpoch(id), yes, fresh)
			}
		}
	}
	return nil
}

func (ck *indexCheck) podStatics() error {
	sv := ck.s.Solvers
	if sv.PodStatics == nil || sv.podStaticsAt != ck.s.env.eng.Now() {
		return nil // dropped before any use
	}
	byIdx := make([]*podStatic, len(sv.PodStatics))
	keys := make([]PodKey, len(sv.PodStatics))
	for key, st := range sv.PodStatics {
		if st.Index < 0 || int(st.Index) >= len(byIdx) || byIdx[st.Index] != nil {
			return fmt.Errorf("index %d of %d entries is out of range or taken twice", st.Index, len(byIdx))
		}
		byIdx[st.Index], keys[st.Index] = st, key
	}
	for i, st := range byIdx {
		key := keys[i]
		class, ok := sv.specClasses.Lookup(key.Spec)
		if !ok {
			return fmt.Errorf("entry %d: spec without a class", i)
		}
		fresh := sv.derivePodStatic(key, class)
		fresh.Index = st.Index
		ck.counts.PodStatics++
		if err := samePodStatic(st, fresh); err != nil {
			return fmt.Errorf("entry %d (relaxation %+v): %w", i, key.relaxation, err)
		}
	}
	return nil
}

func samePodStatic(a, b *podStatic) error {
	switch {
	case a.spec != b.spec || a.namespace != b.namespace || a.Relaxation != b.Relaxation:
		return fmt.Errorf("keyed by another spec, namespace or relaxation")
	case a.Class != b.Class:
		return fmt.Errorf("class %d, want %d", a.Class, b.Class)
	case a.Requests != b.Requests:
		return fmt.Errorf("requests %v, want %v", a.Requests, b.Requests)
	case !sameReqSet(a.requirements, b.requirements):
		return fmt.Errorf("requirements %+v, want %+v", a.requirements, b.requirements)
	case !sameReqSet(a.strictRequirements, b.strictRequirements):
		return fmt.Errorf("strict requirements %+v, want %+v", a.strictRequirements, b.strictRequirements)
	case a.requiredTerm != b.requiredTerm || a.preferredTerm != b.preferredTerm:
		return fmt.Errorf("node affinity terms in force differ")
	case a.toleratesPreferNoSchedule != b.toleratesPreferNoSchedule:
		return fmt.Errorf("tolPNS %v, want %v", a.toleratesPreferNoSchedule, b.toleratesPreferNoSchedule)
	case !slices.Equal(a.affinityTerms, b.affinityTerms) || !slices.Equal(a.antiAffinityTerms, b.antiAffinityTerms):
		return fmt.Errorf("pod (anti-)affinity terms in force differ")
	}
	return nil
}

// sameReqSet compares requirement sets by content (nil and empty alike).
func sameReqSet(a, b Requirements) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].MinValues != b[i].MinValues || !sameRequirement(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

func (ck *indexCheck) nodePools() error {
	np := ck.s.Pools
	if len(np.ByName) != len(np.All) {
		return fmt.Errorf("%d pools by name, %d in force", len(np.ByName), len(np.All))
	}
	for i, p := range np.All {
		name := p.Spec.Name
		if i > 0 && np.All[i-1].Spec.Name >= name {
			return fmt.Errorf("pools not in name order at %s", name)
		}
		if np.ByName[name] != p {
			return fmt.Errorf("pool %s: byName holds another", name)
		}
		if !ck.hasStats(name) {
			return fmt.Errorf("pool %s: no stats", name)
		}
		if err := ck.samePool(p); err != nil {
			return fmt.Errorf("pool %s: %w", name, err)
		}
		for n, st := range p.ClaimStarts {
			if st.requirements == nil {
				continue
			}
			sv := ck.s.Solvers
			if n <= 0 || n >= len(sv.Placeholders) {
				return fmt.Errorf("pool %s: NodeClaim start %d without its placeholder", name, n)
			}
			reqs := p.Requirements.With(ck.cl.Syms, RequirementIn(ck.cl.KeyHostname, sv.Placeholders[n]))
			ck.counts.ClaimStarts++
			if !sameReqSet(st.requirements, reqs) || st.OfferingMask != ck.s.Offerings.OfferingMask(reqs) {
				return fmt.Errorf("pool %s: NodeClaim start %d has %+v mask %b, want %+v mask %b", name, n, st.requirements, st.OfferingMask, reqs, ck.s.Offerings.OfferingMask(reqs))
			}
		}
	}
	if np.weightOrder != nil {
		want := orderPools(np.All)
		if !slices.Equal(np.weightOrder, want) {
			return fmt.Errorf("weight order kept is not the pools' weight order")
		}
	}
	return nil
}

// samePool compares a pool's derived data with the pool's spec worked out
// afresh, as build would (without building it: checks run often).
func (ck *indexCheck) samePool(p *Pool) error {
	np := ck.s.Pools
	reqs := np.poolRequirements(p.Spec)
	switch {
	case !sameReqSet(p.Requirements, reqs):
		return fmt.Errorf("requirements %+v, want %+v", p.Requirements, reqs)
	case p.HasPreferNoSchedule != p.Spec.HasPreferNoScheduleTaint():
		return fmt.Errorf("PreferNoSchedule taint %v, want %v", p.HasPreferNoSchedule, !p.HasPreferNoSchedule)
	case len(p.TypePositions) != len(np.offerings.types):
		return fmt.Errorf("positions of %d instance types, want %d", len(p.TypePositions), len(np.offerings.types))
	}
	mask := np.offerings.OfferingMask(reqs)
	typeReqs := np.offerings.typeRequirements(p.Spec, reqs)
	n := 0
	for _, t := range np.offerings.types {
		pt, ok := np.poolType(p, t, typeReqs, mask)
		pos := p.TypePositions[t.Index]
		switch {
		case ok != (pos >= 0):
			return fmt.Errorf("instance type %s: in the pool %v, want %v", t.Name, pos >= 0, ok)
		case !ok:
			continue
		case int(pos) != n || n >= len(p.Types):
			return fmt.Errorf("instance type %s at position %d, want %d of %d", t.Name, pos, n, len(p.Types))
		case p.Types[pos] != pt:
			return fmt.Errorf("instance type %s: %+v, want %+v", t.Name, p.Types[pos], pt)
		}
		n++
	}
	if n != len(p.Types) {
		return fmt.Errorf("%d instance types, want %d", len(p.Types), n)
	}
	return nil
}

func (ck *indexCheck) placeholders() error {
	ps := ck.s.Solvers.Placeholders
	for n, sym := range ps {
		if n == 0 {
			if sym != cluster.NoSym {
				return fmt.Errorf("placeholder 0 is %q", ck.cl.Syms.Name(sym))
			}
			continue
		}
		if got, want := ck.cl.Syms.Name(sym), fmt.Sprintf("hostname-placeholder-%d", n); got != want {
			return fmt.Errorf("placeholder %d is %q, want %q", n, got, want)
		}
	}
	return nil
}

func (ck *indexCheck) availability() error {
	o := ck.s.Offerings
	now := ck.s.env.eng.Now()
	if !o.availableCacheValid || o.availableCacheAt != now || o.availableCacheVersion != o.Offers.version {
		return nil // recomputed before any use
	}
	if len(o.AvailableCache) < len(o.types) {
		return fmt.Errorf("%d masks for %d instance types", len(o.AvailableCache), len(o.types))
	}
	ck.counts.Masks++
	for _, t := range o.types {
		if got, want := o.AvailableCache[t.Index], o.availableMask(t, now); got != want {
			return fmt.Errorf("instance type %s: available offerings %b, now %b", t.Name, got, want)
		}
	}
	return nil
}

func (ck *indexCheck) antiBound() error {
	want := 0
	for i := range ck.cl.Nodes {
		n := &ck.cl.Nodes[i]
		if n.State == cluster.NodeGone {
			continue
		}
		for _, pid := range n.Pods {
			if len(ck.cl.Pods[pid].Spec.PodAntiAffinity) > 0 {
				want++
			}
		}
	}
	if got := ck.s.Nodes.BoundAntiAffinityPods; got != want {
		return fmt.Errorf("counted %d bound pods with required anti-affinity, there are %d", got, want)
	}
	return nil
}

func (ck *indexCheck) node(id cluster.NodeID) string { return DescribeNode(ck.cl, id) }

func (ck *indexCheck) pod(id cluster.PodID) string { return DescribePod(ck.cl, id) }

// DescribeNode names a node in a check's error: "node NAME (#ID)", or
// "node #ID" for an ID out of range.
func DescribeNode(cl *cluster.Cluster, id cluster.NodeID) string {
	if int(id) < 0 || int(id) >= len(cl.Nodes) {
		return fmt.Sprintf("node #%d", id)
	}
	return fmt.Sprintf("node %s (#%d)", cl.Nodes[id].Name, id)
}

// DescribePod names a pod in a check's error: "pod NAME (#ID)".
func DescribePod(cl *cluster.Cluster, id cluster.PodID) string {
	if IsVirtual(id) {
		return fmt.Sprintf("virtual pod #%d", id-VirtualBase)
	}
	return fmt.Sprintf("pod %s (#%d)", cl.Pods[id].Name, id)
}

// canFilter reports whether the static filters of n can be evaluated
// without interning a symbol.
func (ck *indexCheck) canFilter(n *cluster.Node) bool { return !n.Unschedulable || ck.haveUnsched }
