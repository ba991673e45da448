package karpenter

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// CheckIndexes recomputes, from the cluster and from Karpenter's own
// records, every structure that keeps a copy of a fact for speed, and
// returns an error naming the first that differs (the structure, the node
// or pod, and both values); nil when all agree. sim run --check calls it
// between events (sim/invariants). It changes nothing: no cache is
// filled, no symbol or spec class is numbered, no price is refreshed, so a
// checked run decides exactly as an unchecked one.
//
// Karpenter's own records (its NodeClaims: pools, instance types,
// launch times, commands) and the cluster are the truth; everything
// below is checked against them:
//
//   - node records (nodeTracker): byID, live and byInstance agree with one
//     another; every record's node is live, Karpenter's, runs its
//     instance, is Ready exactly when the record is initialized, and no
//     live node of Karpenter's lacks a record; the last pod event is
//     recorded no earlier than podEventDedupe before the bind of any pod on
//     the node that countsAsPodEvent, but the start state's; a node in a command is in a running
//     command among its candidates;
//   - antiBound: the bound pods with required pod anti-affinity, counted;
//   - pending pods (provisioner.pending): exactly the Pending pods marked
//     unschedulable that awaitsProvisioning admits;
//   - pod scans (knode.scan, when scanValid): a fresh scan of the node's
//     pods with the shared predicate reschedulable (pods, eviction cost,
//     do-not-disrupt), and its prepared set (below);
//   - prepared pod sets: one is used when its pods are the ones a solve
//     reschedules, so a node's set (knode.set) is checked when its pods
//     are the node's reschedulable pods now and the node may be a
//     candidate, and the provisionable set (disrupter.provSet) when its
//     pods are the provisionable pods now; either must equal a set built
//     afresh from those pods (queue keys, in queue order once sorted,
//     templates, counts, first pods, flags, classes per spec class). The
//     provisionable set's origins are refreshed on use and not compared;
//   - node order (existingBase.byName, orderNames): the live nodes sorted
//     by the order name worked out afresh, then ID;
//   - dirty marks: baseMark and baseDirty list the same nodes, once, and
//     baseMark covers every node in the order (remerge reads them all);
//   - the existing-node snapshot (exCache): while valid for the current
//     members, the entries of nodes not marked dirty equal a fresh fill of
//     their node (node record, filters' view, free room, daemon room,
//     readiness, consolidateAfter protection, NodeClaim), in the order of
//     a fresh build, no node missing or extra; positions and posOf agree;
//     the pools' capacity and node sums are those of its entries; no solve
//     wrote into a base entry. Dirty nodes are refreshed before any use;
//   - spec classes (solvers.specs, Karpenter's own numbering): specs share
//     a class exactly when their content is equal (SpecClasses.Check), so
//     a class's first spec stands for all in the checks below;
//   - jump tables (exCache.jumps): only kept while the snapshot is reused
//     as is (same members, same instant, nothing dirty), and then checked:
//     every position a table says a class fits (does not fit) fits (does
//     not) with a fresh filter, as a representative spec of the class sees
//     it (cluster.SpecClasses.Spec);
//   - static-fit verdicts (solvers.statics): an entry is used only while
//     its node's epoch is the one stored, so only the entries of live
//     nodes at their current epoch are checked, against a fresh
//     staticFitsNow of the node for the class's representative spec;
//   - pod statics (solvers.podStatics): kept for one instant, so checked
//     only at the instant they were made, against derivePodStatic; their
//     indexes number them 0..n-1;
//   - node pools: all sorted by name and byName agree; the weight order,
//     when kept, is orderPools of them; each pool's derived data
//     (requirements, instance types with their capacity, allocatable and
//     daemon overhead, typeByIdx, PreferNoSchedule) equals a fresh build;
//     its stats are the pool's; each cached NodeClaim start (newClaim)
//     equals the pool's requirements with its placeholder hostname;
//   - placeholder hostnames: number n is "hostname-placeholder-n";
//   - available offerings (offerings.availBuf): when it would be reused
//     (same instant and table version), the masks computed afresh;
//   - the disruption pass's shared state (disrupter.pass): empty between
//     events (a pass begins and ends within one).
//
// Not checked: the what-if shortcuts (earlyNo, doomed, and a provisioning
// batch skipped as the same as the last) answer inside one event, or from
// state a full solve would need to recompute; a solve at check time would
// refresh prices early, number spec classes and placeholder hostnames and
// bring the snapshot up to date, which could change a checked run. The
// tests check them instead by computing everything whole
// (whatIfHooks.full) and comparing decisions, and by verifying each
// doomed what-if (TestKarpenterIndexes, TestEarlyVerdictsChangeNothing,
// TestDoomedWhatIfsFail). Also not checked: the consolidation state
// (consolidation.marked, disrupter.version) and the drift verdicts
// (knode.drifted, driftChecked), worked out once per NodePool version:
// they model upstream's own caching rather than copy a fact; solve stamps (podMark, exSlot.stamp), which only ever
// match the solve in progress; the free lists of recycled solver parts.
func (k *Karpenter) CheckIndexes() error {
	_, err := k.checkIndexes(true)
	return err
}

// indexCounts says how much a check compared, per kind of entry (tests
// make sure their runs reach every structure).
type indexCounts struct {
	scans, nodeSets, provSets, entries, jumpPositions, verdicts, podStatics, claimStarts, masks int
}

// checkIndexes is CheckIndexes, saying what it compared; without pools it
// leaves out the NodePools' derived data, which only a NodePool update or
// a new price list changes (tests that check after every event check them
// after every change they make).
func (k *Karpenter) checkIndexes(pools bool) (indexCounts, error) {
	ck := &indexCheck{k: k, cl: k.cl}
	_, ck.haveUnsched = k.cl.Syms.Lookup(unschedulableTaintKey)
	for _, c := range []struct {
		name  string
		check func() error
	}{
		{"node records", ck.nodeRecords},
		{"antiBound", ck.antiBound},
		{"pending pods", ck.pending},
		{"pod scans", ck.scans},
		{"prepared pod sets", ck.podSets},
		{"node order", ck.nodeOrder},
		{"dirty marks", ck.dirtyMarks},
		{"existing-node snapshot", ck.snapshot},
		{"spec classes", k.solvers.SpecClasses.Check},
		{"jump tables", ck.jumpTables},
		{"static-fit verdicts", ck.staticVerdicts},
		{"pod statics", ck.podStatics},
		{"placeholder hostnames", ck.placeholders},
		{"node pools", ck.nodePools},
		{"available offerings", ck.availability},
		{"disruption pass cache", ck.passCache},
	} {
		if c.name == "node pools" && !pools {
			continue
		}
		if err := c.check(); err != nil {
			return ck.counts, fmt.Errorf("karpenter %s: %w", c.name, err)
		}
	}
	return ck.counts, nil
}

// unschedulableTaintKey is the key cluster.StaticFit interns for a
// cordoned node; a check evaluates the filters of a cordoned node only if
// it is interned already (it always is once the model has evaluated them).
const unschedulableTaintKey = "node.kubernetes.io/unschedulable"

// indexCheck is one CheckIndexes run.
type indexCheck struct {
	k           *Karpenter
	cl          *cluster.Cluster
	haveUnsched bool
	order       []cluster.NodeID // freshOrder's answer
	counts      indexCounts
}

func (ck *indexCheck) node(id cluster.NodeID) string {
	if int(id) < 0 || int(id) >= len(ck.cl.Nodes) {
		return fmt.Sprintf("node #%d", id)
	}
	return fmt.Sprintf("node %s (#%d)", ck.cl.Nodes[id].Name, id)
}

func (ck *indexCheck) pod(id cluster.PodID) string {
	return fmt.Sprintf("pod %s (#%d)", ck.cl.Pods[id].Name, id)
}

// canFilter reports whether the static filters of n can be evaluated
// without interning a symbol.
func (ck *indexCheck) canFilter(n *cluster.Node) bool { return !n.Unschedulable || ck.haveUnsched }

func (ck *indexCheck) nodeRecords() error {
	nt := ck.k.nodes
	nonNil := 0
	for id, kn := range nt.byID {
		if kn == nil {
			continue
		}
		nonNil++
		if kn.ID != cluster.NodeID(id) {
			return fmt.Errorf("byID[%d] holds the record of %s", id, ck.node(kn.ID))
		}
	}
	if nt.idx.Len() != len(nt.live) {
		return fmt.Errorf("the solve's node index has %d records, live %d", nt.idx.Len(), len(nt.live))
	}
	if nonNil != len(nt.live) {
		return fmt.Errorf("byID has %d records, live %d", nonNil, len(nt.live))
	}
	if len(nt.byInstance) != len(nt.live) {
		return fmt.Errorf("byInstance has %d instances, live %d records", len(nt.byInstance), len(nt.live))
	}
	for i, kn := range nt.live {
		if i > 0 && nt.live[i-1].ID >= kn.ID {
			return fmt.Errorf("live is not in ID order at %s", ck.node(kn.ID))
		}
		if nt.get(kn.ID) != kn {
			return fmt.Errorf("%s: live record is not byID's", ck.node(kn.ID))
		}
		if nt.idx.Get(kn.ID) != &kn.Node {
			return fmt.Errorf("%s: the solve's node index does not hold the record", ck.node(kn.ID))
		}
		if kn.InCommand != (kn.cmd != nil) {
			return fmt.Errorf("%s: inCommand %v, command %v", ck.node(kn.ID), kn.InCommand, kn.cmd != nil)
		}
		if got, ok := nt.byInstance[kn.instance]; !ok || got != kn.ID {
			return fmt.Errorf("%s: byInstance[%d] = %d (present %v), want the node", ck.node(kn.ID), kn.instance, got, ok)
		}
		if int(kn.ID) >= len(ck.cl.Nodes) {
			return fmt.Errorf("record of %s beyond the cluster's nodes", ck.node(kn.ID))
		}
		n := &ck.cl.Nodes[kn.ID]
		switch {
		case n.State == cluster.NodeGone:
			return fmt.Errorf("%s: recorded as a NodeClaim's node, gone from the cluster", ck.node(kn.ID))
		case n.Owner != ownedByKarpenter:
			return fmt.Errorf("%s: recorded as a NodeClaim's node, owned by %v", ck.node(kn.ID), n.Owner)
		case n.Instance != int32(kn.instance):
			return fmt.Errorf("%s: record says instance %d, the node %d", ck.node(kn.ID), kn.instance, n.Instance)
		case kn.Initialized != (n.State == cluster.NodeReady):
			return fmt.Errorf("%s: record initialized=%v, node state %s", ck.node(kn.ID), kn.Initialized, n.State)
		case kn.LastPodEvent > ck.k.eng.Now():
			return fmt.Errorf("%s: lastPodEvent %v is in the future", ck.node(kn.ID), kn.LastPodEvent)
		}
		for _, pid := range n.Pods {
			// A bind is a pod event (notePodEvent) unless of a pod that does
			// not count or of the imported start state (counted in the
			// imported last pod event), or within podEventDedupe of the one
			// recorded.
			p := &ck.cl.Pods[pid]
			if countsAsPodEvent(p) && !ck.k.startStatePod(kn.ID, pid) && (!kn.podEventSet || p.BoundAt-kn.LastPodEvent >= podEventDedupe) {
				return fmt.Errorf("%s: last pod event %v (recorded %v), before the bind of %s at %v", ck.node(kn.ID), kn.LastPodEvent, kn.podEventSet, ck.pod(pid), p.BoundAt)
			}
		}
		if cmd := kn.cmd; cmd != nil {
			if kn.Deleting {
				return fmt.Errorf("%s: deleting and still in a command", ck.node(kn.ID))
			}
			if !slices.Contains(ck.k.dis.running, cmd) {
				return fmt.Errorf("%s: in a command that is not running", ck.node(kn.ID))
			}
			if !slices.ContainsFunc(cmd.cands, func(c *candidate) bool { return c.kn == kn }) {
				return fmt.Errorf("%s: in a command it is not a candidate of", ck.node(kn.ID))
			}
		}
	}
	for i := range ck.cl.Nodes {
		n := &ck.cl.Nodes[i]
		if n.Owner == ownedByKarpenter && n.State != cluster.NodeGone && nt.get(cluster.NodeID(i)) == nil {
			return fmt.Errorf("%s: live node of Karpenter's without a record", ck.node(cluster.NodeID(i)))
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
	if got := ck.k.nodes.idx.BoundAntiAffinityPods; got != want {
		return fmt.Errorf("counted %d bound pods with required anti-affinity, there are %d", got, want)
	}
	return nil
}

func (ck *indexCheck) pending() error {
	pr := ck.k.prov
	want := func(p *cluster.Pod) bool {
		return p.Phase == cluster.Pending && p.Unschedulable && awaitsProvisioning(p)
	}
	ids := make([]cluster.PodID, 0, len(pr.pending))
	for id := range pr.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if p := &ck.cl.Pods[id]; !pr.pending[id] || !want(p) {
			return fmt.Errorf("%s recorded as pending: phase %s, unschedulable %v, nodeName %q", ck.pod(id), p.Phase, p.Unschedulable, p.Spec.NodeName)
		}
	}
	n := 0
	for i := range ck.cl.Pods {
		if want(&ck.cl.Pods[i]) {
			n++
			if !pr.pending[cluster.PodID(i)] {
				return fmt.Errorf("%s is pending and unschedulable, not recorded", ck.pod(cluster.PodID(i)))
			}
		}
	}
	if n != len(ids) {
		return fmt.Errorf("%d pods recorded, %d pending", len(ids), n)
	}
	return nil
}

// freshScan scans a node's pods afresh, from the pod records.
func (ck *indexCheck) freshScan(kn *knode) podScan {
	n := &ck.cl.Nodes[kn.ID]
	sc := podScan{cost: 1, pods: []cluster.PodID{}}
	for _, pid := range n.Pods {
		p := &ck.cl.Pods[pid]
		if p.Spec.DoNotDisrupt && !p.Terminating {
			sc.doNotDisrupt = true
		}
		if !reschedulable(p) {
			continue
		}
		sc.pods = append(sc.pods, pid)
		sc.cost += max(0, evictionCost(p.Spec))
	}
	return sc
}

func (ck *indexCheck) scans() error {
	for _, kn := range ck.k.nodes.live {
		if !kn.scanValid {
			continue
		}
		fresh := ck.freshScan(kn)
		sc := &kn.scan
		ck.counts.scans++
		switch {
		case !slices.Equal(sc.pods, fresh.pods):
			return fmt.Errorf("%s: scanned pods %v, rescheduled pods now %v", ck.node(kn.ID), sc.pods, fresh.pods)
		case sc.cost != fresh.cost:
			return fmt.Errorf("%s: scanned eviction cost %v, now %v", ck.node(kn.ID), sc.cost, fresh.cost)
		case sc.doNotDisrupt != fresh.doNotDisrupt:
			return fmt.Errorf("%s: scanned do-not-disrupt %v, now %v", ck.node(kn.ID), sc.doNotDisrupt, fresh.doNotDisrupt)
		case sc.set == nil:
			return fmt.Errorf("%s: scan without its prepared set", ck.node(kn.ID))
		}
		if err := ck.podSet(sc.set, fresh.pods, !kn.Deleting); err != nil {
			return fmt.Errorf("%s: scan's set: %w", ck.node(kn.ID), err)
		}
	}
	return nil
}

func (ck *indexCheck) podSets() error {
	for _, kn := range ck.k.nodes.live {
		if kn.set == nil || kn.Deleting || kn.cmd != nil {
			continue
		}
		if fresh := ck.freshScan(kn); slices.Equal(kn.set.Pods, fresh.pods) {
			ck.counts.nodeSets++
			if err := ck.podSet(kn.set, fresh.pods, true); err != nil {
				return fmt.Errorf("%s: %w", ck.node(kn.ID), err)
			}
		}
	}
	d := ck.k.dis
	if d.provSet != nil {
		if pods := d.prov.provisionable(); slices.Equal(d.provSet.Pods, pods) {
			ck.counts.provSets++
			if err := ck.podSet(d.provSet, pods, false); err != nil {
				return fmt.Errorf("provisionable pods: %w", err)
			}
		}
	}
	return nil
}

// podSet compares a prepared set with one built afresh from pods (a
// candidate's when fromCand: every origin fromCandidate; else origins are
// not compared).
func (ck *indexCheck) podSet(ps *scheduling.PodSet, pods []cluster.PodID, fromCand bool) error {
	sv := ck.k.solvers
	if !slices.Equal(ps.Pods, pods) {
		return fmt.Errorf("set of pods %v, want %v", ps.Pods, pods)
	}
	b := scheduling.SetBuilder{Set: &scheduling.PodSet{Pods: pods}}
	for _, id := range pods {
		e := sv.QueueKey(id, &ck.cl.Pods[id])
		if fromCand {
			e.Origin = scheduling.FromCandidate
		}
		b.Add(sv, e)
	}
	fresh := b.Set
	want := fresh.QueueKeys
	if ps.QueueKeysSorted {
		want = slices.Clone(want)
		slices.SortFunc(want, scheduling.CompareQueueKeys)
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
	if ps.Classes == nil {
		return nil
	}
	var classes []scheduling.ClassCount
	for i, key := range fresh.Templates {
		if scheduling.HasTopology(key.Spec) {
			continue
		}
		c, ok := sv.SpecClasses.Lookup(key.Spec)
		if !ok {
			return fmt.Errorf("classes counted for a template of %s without a spec class", ck.pod(fresh.TemplateFirstPods[i]))
		}
		j := slices.IndexFunc(classes, func(cc scheduling.ClassCount) bool { return cc.Class == c })
		if j < 0 {
			classes = append(classes, scheduling.ClassCount{Class: c, Key: key})
			j = len(classes) - 1
		}
		classes[j].Count += int64(fresh.TemplateCounts[i])
	}
	if !slices.Equal(ps.Classes, classes) {
		return fmt.Errorf("pods per class %v, want %v", ps.Classes, classes)
	}
	return nil
}

// freshOrder is the live nodes in the order byName keeps (worked out once
// per check).
func (ck *indexCheck) freshOrder() []cluster.NodeID {
	if ck.order != nil {
		return ck.order
	}
	b := ck.k.base
	type named struct {
		id   cluster.NodeID
		name string
	}
	var ns []named
	for i := range ck.cl.Nodes {
		if ck.cl.Nodes[i].State != cluster.NodeGone {
			ns = append(ns, named{cluster.NodeID(i), b.DeriveOrderName(cluster.NodeID(i))})
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
	b := ck.k.base
	for id, name := range b.OrderNames {
		if name != "" {
			if want := b.DeriveOrderName(cluster.NodeID(id)); name != want {
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
	b := ck.k.base
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
func (ck *indexCheck) freshBase() []scheduling.ExistingNode {
	b := ck.k.base
	var ready, notReady []cluster.NodeID
	for _, id := range ck.freshOrder() {
		switch member, r := b.Wants(id); {
		case !member:
		case r:
			ready = append(ready, id)
		default:
			notReady = append(notReady, id)
		}
	}
	list := make([]scheduling.ExistingNode, 0, len(ready)+len(notReady))
	for i, id := range append(ready, notReady...) {
		ex := scheduling.ExistingNode{BasePosition: int32(len(list))}
		b.Fill(&ex, id, i < len(ready))
		list = append(list, ex)
	}
	return list
}

func (ck *indexCheck) dirty(id cluster.NodeID) bool {
	b := ck.k.base
	return int(id) < len(b.DirtyMarks) && b.DirtyMarks[id]
}

func (ck *indexCheck) snapshot() error {
	b := ck.k.base
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
	capacity, count := map[*scheduling.Pool]cluster.Resources{}, map[*scheduling.Pool]int64{}
	for i := range c.Nodes {
		if kn := c.Nodes[i].Record; kn != nil {
			capacity[kn.Pool] = capacity[kn.Pool].Add(kn.Capacity)
			count[kn.Pool]++
		}
	}
	for _, p := range ck.k.pools.All {
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
		ck.counts.entries++
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
func (ck *indexCheck) sameEntry(ex, f *scheduling.ExistingNode) error {
	switch {
	case ex.Record != f.Record:
		return fmt.Errorf("entry's NodeClaim record %p, the node's %p", ex.Record, f.Record)
	case ex.Initialized != f.Initialized:
		return fmt.Errorf("entry initialized %v, node Ready %v", ex.Initialized, f.Initialized)
	case ex.Free != f.Free:
		return fmt.Errorf("entry free %v, now %v", ex.Free, f.Free)
	case ex.DaemonReserve != f.DaemonReserve:
		return fmt.Errorf("entry daemon room %v, now %v", ex.DaemonReserve, f.DaemonReserve)
	case ex.ConsolidateAfterUntil != f.ConsolidateAfterUntil:
		return fmt.Errorf("entry protected by consolidateAfter until %v, now until %v", ex.ConsolidateAfterUntil, f.ConsolidateAfterUntil)
	case (ex.View == ex.Node) != (f.View == f.Node):
		return fmt.Errorf("entry's filters see a copy: %v, now %v", ex.View != ex.Node, f.View != f.Node)
	}
	// After the cluster's node table grew, the entry may point at the
	// node's old record: the same as long as the node did not change.
	if ex.Node != f.Node && !reflect.DeepEqual(*ex.Node, *f.Node) {
		return fmt.Errorf("entry reads a stale node record (labels %v taints %v cordoned %v pods %v; now %v %v %v %v)",
			ex.Node.Labels, ex.Node.Taints, ex.Node.Unschedulable, ex.Node.Pods, f.Node.Labels, f.Node.Taints, f.Node.Unschedulable, f.Node.Pods)
	}
	if ex.View != ex.Node && !reflect.DeepEqual(*ex.View, *f.View) {
		return fmt.Errorf("entry's view has taints %v, now %v", ex.View.Taints, f.View.Taints)
	}
	return nil
}

// repStatic is the static data of a class's representative spec in a
// relaxation state, for recomputing answers cached per class.
func (ck *indexCheck) repStatic(class int32, r scheduling.Relaxation) (*scheduling.PodData, error) {
	sv := ck.k.solvers
	spec := sv.SpecClasses.Spec(class)
	if spec == nil {
		return nil, fmt.Errorf("an answer cached for spec class %d, which has no spec", class)
	}
	return &scheduling.PodData{PodStatic: *sv.DerivePodStatic(scheduling.PodKey{Spec: spec, Relaxation: r}, class)}, nil
}

func (ck *indexCheck) staticFitsNow(pd *scheduling.PodData, n *cluster.Node) bool {
	return (&scheduling.Solver{Shared: ck.k.solvers}).StaticFitsNow(pd, n)
}

func (ck *indexCheck) jumpTables() error {
	b := ck.k.base
	c := &b.Snapshot
	if !c.Valid || c.MembershipVersion != b.MembershipVersion || c.At != ck.k.eng.Now() || len(b.DirtyNodes) > 0 {
		return nil // reset before any use
	}
	fcs := make([]scheduling.FitClass, 0, len(c.JumpTables))
	for fc := range c.JumpTables {
		fcs = append(fcs, fc)
	}
	sort.Slice(fcs, func(i, j int) bool { return lessFitClass(fcs[i], fcs[j]) })
	n := len(c.Nodes)
	now := ck.k.eng.Now()
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
			ck.counts.jumpPositions++
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

func lessFitClass(a, b scheduling.FitClass) bool {
	if a.SpecClass != b.SpecClass {
		return a.SpecClass < b.SpecClass
	}
	if a.UnderConsolidateAfter != b.UnderConsolidateAfter {
		return !a.UnderConsolidateAfter
	}
	return lessRelax(a.Relaxation, b.Relaxation)
}

func lessRelax(a, b scheduling.Relaxation) bool {
	x := [...]int{int(a.DroppedRequiredTerms), int(a.DroppedPreferredAffinity), int(a.DroppedPreferredAntiAffinity), int(a.DroppedPreferredNodeAffinity), int(a.DroppedSpread), boolToInt(a.ToleratePreferNoSchedule)}
	y := [...]int{int(b.DroppedRequiredTerms), int(b.DroppedPreferredAffinity), int(b.DroppedPreferredAntiAffinity), int(b.DroppedPreferredNodeAffinity), int(b.DroppedSpread), boolToInt(b.ToleratePreferNoSchedule)}
	return slices.Compare(x[:], y[:]) < 0
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (ck *indexCheck) staticVerdicts() error {
	sv := ck.k.solvers
	keys := make([]scheduling.VerdictKey, 0, len(sv.Verdicts))
	for sk := range sv.Verdicts {
		keys = append(keys, sk)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].SpecClass != keys[j].SpecClass {
			return keys[i].SpecClass < keys[j].SpecClass
		}
		return lessRelax(keys[i].Relaxation, keys[j].Relaxation)
	})
	var live []cluster.NodeID
	for i := range ck.cl.Nodes {
		if ck.cl.Nodes[i].State != cluster.NodeGone {
			live = append(live, cluster.NodeID(i))
		}
	}
	for _, sk := range keys {
		vs := sv.Verdicts[sk]
		var pd *scheduling.PodData
		for _, id := range live {
			yes, known := vs.Get(id, ck.cl.NodeEpoch(id))
			n := &ck.cl.Nodes[id]
			if !known || !ck.canFilter(n) {
				continue
			}
			if pd == nil {
				var err error
				if pd, err = ck.repStatic(sk.SpecClass, sk.Relaxation); err != nil {
					return err
				}
			}
			ck.counts.verdicts++
			if fresh := ck.staticFitsNow(pd, n); fresh != yes {
				return fmt.Errorf("class %d %+v on %s at epoch %d: cached %v, the filters %v", sk.SpecClass, sk.Relaxation, ck.node(id), ck.cl.NodeEpoch(id), yes, fresh)
			}
		}
	}
	return nil
}

func (ck *indexCheck) podStatics() error {
	sv := ck.k.solvers
	if sv.PodStatics == nil || sv.PodStaticsAt != ck.k.eng.Now() {
		return nil // dropped before any use
	}
	byIdx := make([]*scheduling.PodStatic, len(sv.PodStatics))
	keys := make([]scheduling.PodKey, len(sv.PodStatics))
	for key, st := range sv.PodStatics {
		if st.Index < 0 || int(st.Index) >= len(byIdx) || byIdx[st.Index] != nil {
			return fmt.Errorf("index %d of %d entries is out of range or taken twice", st.Index, len(byIdx))
		}
		byIdx[st.Index], keys[st.Index] = st, key
	}
	for i, st := range byIdx {
		key := keys[i]
		class, ok := sv.SpecClasses.Lookup(key.Spec)
		if !ok {
			return fmt.Errorf("entry %d: spec without a class", i)
		}
		fresh := sv.DerivePodStatic(key, class)
		fresh.Index = st.Index
		ck.counts.podStatics++
		if err := samePodStatic(st, fresh); err != nil {
			return fmt.Errorf("entry %d (relaxation %+v): %w", i, key.Relaxation, err)
		}
	}
	return nil
}

func samePodStatic(a, b *scheduling.PodStatic) error {
	switch {
	case a.Spec != b.Spec || a.Namespace != b.Namespace || a.Relaxation != b.Relaxation:
		return fmt.Errorf("keyed by another spec, namespace or relaxation")
	case a.Class != b.Class:
		return fmt.Errorf("class %d, want %d", a.Class, b.Class)
	case a.Requests != b.Requests:
		return fmt.Errorf("requests %v, want %v", a.Requests, b.Requests)
	case !sameReqSet(a.Requirements, b.Requirements):
		return fmt.Errorf("requirements %+v, want %+v", a.Requirements, b.Requirements)
	case !sameReqSet(a.StrictRequirements, b.StrictRequirements):
		return fmt.Errorf("strict requirements %+v, want %+v", a.StrictRequirements, b.StrictRequirements)
	case a.RequiredTerm != b.RequiredTerm || a.PreferredTerm != b.PreferredTerm:
		return fmt.Errorf("node affinity terms in force differ")
	case a.ToleratesPreferNoSchedule != b.ToleratesPreferNoSchedule:
		return fmt.Errorf("tolPNS %v, want %v", a.ToleratesPreferNoSchedule, b.ToleratesPreferNoSchedule)
	case !slices.Equal(a.AffinityTerms, b.AffinityTerms) || !slices.Equal(a.AntiAffinityTerms, b.AntiAffinityTerms):
		return fmt.Errorf("pod (anti-)affinity terms in force differ")
	}
	return nil
}

// sameReqSet compares requirement sets by content (nil and empty alike).
func sameReqSet(a, b scheduling.Requirements) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].MinValues != b[i].MinValues || !scheduling.SameRequirement(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

func (ck *indexCheck) nodePools() error {
	np := ck.k.pools
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
		if ck.k.poolStats[name] == nil {
			return fmt.Errorf("pool %s: no stats", name)
		}
		if err := ck.samePool(p); err != nil {
			return fmt.Errorf("pool %s: %w", name, err)
		}
		for n, st := range p.ClaimStarts {
			if st.Requirements == nil {
				continue
			}
			sv := ck.k.solvers
			if n <= 0 || n >= len(sv.Placeholders) {
				return fmt.Errorf("pool %s: NodeClaim start %d without its placeholder", name, n)
			}
			reqs := p.Requirements.With(ck.cl.Syms, scheduling.RequirementIn(ck.cl.KeyHostname, sv.Placeholders[n]))
			ck.counts.claimStarts++
			if !sameReqSet(st.Requirements, reqs) || st.OfferingMask != ck.k.offerings.OfferingMask(reqs) {
				return fmt.Errorf("pool %s: NodeClaim start %d has %+v mask %b, want %+v mask %b", name, n, st.Requirements, st.OfferingMask, reqs, ck.k.offerings.OfferingMask(reqs))
			}
		}
	}
	if np.WeightOrder != nil {
		want := scheduling.OrderPools(np.All)
		if !slices.Equal(np.WeightOrder, want) {
			return fmt.Errorf("weight order kept is not the pools' weight order")
		}
	}
	return nil
}

// samePool compares a pool's derived data with the pool's spec worked out
// afresh, as build would (without building it: checks run often).
func (ck *indexCheck) samePool(p *scheduling.Pool) error {
	np := ck.k.pools
	reqs := np.PoolRequirements(p.Spec)
	switch {
	case !sameReqSet(p.Requirements, reqs):
		return fmt.Errorf("requirements %+v, want %+v", p.Requirements, reqs)
	case p.HasPreferNoSchedule != p.Spec.HasPreferNoScheduleTaint():
		return fmt.Errorf("PreferNoSchedule taint %v, want %v", p.HasPreferNoSchedule, !p.HasPreferNoSchedule)
	case len(p.TypePositions) != len(np.Offerings.Types):
		return fmt.Errorf("positions of %d instance types, want %d", len(p.TypePositions), len(np.Offerings.Types))
	}
	mask := np.Offerings.OfferingMask(reqs)
	n := 0
	for _, t := range np.Offerings.Types {
		pt, ok := np.PoolType(p, t, mask)
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
	ps := ck.k.solvers.Placeholders
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
	o := ck.k.offerings
	now := ck.k.eng.Now()
	if !o.AvailableCacheValid || o.AvailableCacheAt != now || o.AvailableCacheVersion != o.Offers.Version {
		return nil // recomputed before any use
	}
	if len(o.AvailableCache) < len(o.Types) {
		return fmt.Errorf("%d masks for %d instance types", len(o.AvailableCache), len(o.Types))
	}
	ck.counts.masks++
	for _, t := range o.Types {
		if got, want := o.AvailableCache[t.Index], o.AvailableMask(t, now); got != want {
			return fmt.Errorf("instance type %s: available offerings %b, now %b", t.Name, got, want)
		}
	}
	return nil
}

func (ck *indexCheck) passCache() error {
	p := &ck.k.dis.pass
	if p.on || p.scanned || p.scan != nil || p.prov != nil || p.universe != nil || p.doom != nil {
		return fmt.Errorf("a pass's shared state outlived the pass (on=%v scanned=%v)", p.on, p.scanned)
	}
	return nil
}
