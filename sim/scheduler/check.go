package scheduler

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
)

// CheckIndexes recomputes each of the scheduler's incremental structures
// (every second copy of a cluster fact it keeps to go fast) from the
// cluster's nodes and pods and compares it with the kept copy. It returns
// an error naming the structure, the node or pod and both values at the
// first difference, or nil when every copy agrees. sim run --check calls
// it every few thousand events and at the end (sim/invariants).
//
// It changes nothing: not the structures, not the plugins' scratch state,
// not the cluster, not the tie-break stream. A checked run decides and
// reports exactly as an unchecked one.
//
// The rule for caches whose entries carry an epoch: an entry is compared
// only where a cycle would use it, that is when its stamp is current. A
// stale entry is recomputed before any use and may hold anything; a fit
// index's bitset likewise is compared only while it follows the current
// scan order (its epoch is the scheduler's orderEpoch), as a cycle
// rebuilds it first otherwise.
//
// What each check compares, in the order they run:
//
//   - node tree: the zones and their nodes against the Ready nodes in
//     arrival order grouped by the zone their labels give (checkNodeTree);
//     the scan list, each node's slot, zone and name entry against that
//     rebuilt tree;
//   - reason and failure tables: each interned message against its ID;
//   - label columns: every node's value of each key against its labels;
//   - static verdicts: each current entry of every spec class's table
//     (first rejecting static filter, its reason, node selector match,
//     taint toleration) against running the filters;
//   - fit indexes: each node's verdict (and a static rejection's reason)
//     against a fresh evaluation in filter order, the reason counts, the
//     rejects per filter, nFeas, and while current the feasible bitset,
//     over the verdicts recomputed;
//   - score caches: each current NodeResourcesFit and BalancedAllocation
//     entry against the score computed from the node;
//   - topology: the bound-pod table, the match memos, every counter per
//     node and in total, every term group, every kept domain's node
//     assignment and sum, against counting the pods on every node;
//   - spread preparations: each spec's soft constraints, self-match and
//     counters against the spec;
//   - bound priorities against counting the bound pods by priority;
//   - the scheduling queue: heaps, lists and slots against each other and
//     each pod's priority, every Pending pod a profile serves is in it,
//     and a waiting one has its timer;
//   - equivalence-class failures: each one a pod would reuse now, where
//     the check can evaluate its spec from the nodes alone (only static
//     filters and NodeResourcesFit decide it), against that evaluation.
//
// Per-cycle scratch (the feasible list, reason counts of the last cycle,
// score buffers, the plugins' cycle state) is no copy of a fact between
// cycles and is not checked.
func (s *Scheduler) CheckIndexes() error {
	c := &checker{s: s}
	for _, check := range []func() error{
		c.checkNodeTree, c.checkTables, c.checkLabelColumns, c.checkStatics, c.checkFitIndexes,
		c.checkScoreCaches, c.checkTopology, c.checkSpreadPreps, c.checkBoundPriorities, c.checkQueue,
		c.checkClassFailures,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checker holds one CheckIndexes run's recomputations and scratch.
type checker struct {
	s     *Scheduler
	extra []Reason
	// groups are the bound pods by spec and namespace, counted from the
	// nodes (checkTopology); groupOf finds a group's index.
	groups  []freshGroup
	groupOf map[groupKey]int
}

// freshGroup is the bound pods of one spec and namespace: one of them,
// and the node of each.
type freshGroup struct {
	key   groupKey
	rep   cluster.PodID
	nodes []cluster.NodeID
}

func (c *checker) node(id cluster.NodeID) string {
	return fmt.Sprintf("node %s (id %d)", c.s.cl.Nodes[id].Name, id)
}

func (c *checker) pod(id cluster.PodID) string {
	return fmt.Sprintf("pod %s (id %d)", c.s.cl.Pods[id].Name, id)
}

func (c *checker) zone(k zoneKey) string {
	return fmt.Sprintf("%q/%q", c.s.cl.Syms.Name(k.region), c.s.cl.Syms.Name(k.zone))
}

func (c *checker) nodeNames(ids []cluster.NodeID) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = c.s.cl.Nodes[id].Name
	}
	return "[" + strings.Join(names, " ") + "]"
}

// profiles returns the frameworks by scheduler name.
func (c *checker) profiles() []*framework {
	names := slices.Sorted(maps.Keys(c.s.fws))
	out := make([]*framework, len(names))
	for i, n := range names {
		out[i] = c.s.fws[n]
	}
	return out
}

// checkNodeTree rebuilds the node tree as upstream's would stand
// (nodetree.go): every Ready node in the zone its labels give, nodes of a
// zone in the order they arrived there (the scheduler stamps arrivals: the
// cluster keeps no such order, and a node whose zone changed arrived anew
// at the end of its new zone), zones in the order they were created. It
// compares the tree, then the scan list and each node's slot, zone and
// name entry, with the rebuilt tree.
func (c *checker) checkNodeTree() error {
	s := c.s
	byZone := map[zoneKey][]cluster.NodeID{}
	var ready []cluster.NodeID
	for i := range s.cl.Nodes {
		id := cluster.NodeID(i)
		if s.cl.Nodes[i].State != cluster.NodeReady {
			continue
		}
		if i >= len(s.arrived) || s.arrived[i] == 0 {
			return fmt.Errorf("node tree: Ready %s never arrived in the tree", c.node(id))
		}
		ready = append(ready, id)
	}
	sort.SliceStable(ready, func(i, j int) bool { return s.arrived[ready[i]] < s.arrived[ready[j]] })
	for _, id := range ready {
		k := s.zoneKeyOf(&s.cl.Nodes[id])
		byZone[k] = append(byZone[k], id)
	}
	seen := map[zoneKey]bool{}
	for i := range s.zones {
		z := &s.zones[i]
		if seen[z.key] {
			return fmt.Errorf("node tree: zone %s listed twice", c.zone(z.key))
		}
		seen[z.key] = true
		if len(z.nodes) == 0 {
			return fmt.Errorf("node tree: zone %s is empty: an emptied zone leaves the tree", c.zone(z.key))
		}
		if i > 0 && s.zones[i-1].since >= z.since {
			return fmt.Errorf("node tree: zone %s (created at arrival %d) after zone %s (created at arrival %d): zones are in creation order",
				c.zone(z.key), z.since, c.zone(s.zones[i-1].key), s.zones[i-1].since)
		}
		want := byZone[z.key]
		for j := 0; j < max(len(z.nodes), len(want)); j++ {
			var got, exp cluster.NodeID = cluster.NoNode, cluster.NoNode
			if j < len(z.nodes) {
				got = z.nodes[j]
			}
			if j < len(want) {
				exp = want[j]
			}
			if got != exp {
				return fmt.Errorf("node tree: zone %s holds %s, rebuilt from the Ready nodes in arrival order %s (first difference at position %d)",
					c.zone(z.key), c.nodeNames(z.nodes), c.nodeNames(want), j)
			}
		}
		if z.since > s.arrived[z.nodes[0]] {
			return fmt.Errorf("node tree: zone %s created at arrival %d, after its first %s arrived (%d)", c.zone(z.key), z.since, c.node(z.nodes[0]), s.arrived[z.nodes[0]])
		}
	}
	for _, id := range ready {
		if k := s.zoneKeyOf(&s.cl.Nodes[id]); !seen[k] {
			return fmt.Errorf("node tree: Ready %s is in zone %s, which the tree lacks", c.node(id), c.zone(k))
		}
		if k := s.zoneKeyOf(&s.cl.Nodes[id]); int(id) >= len(s.nodeZone) || s.nodeZone[id] != k {
			got := zoneKey{}
			if int(id) < len(s.nodeZone) {
				got = s.nodeZone[id]
			}
			return fmt.Errorf("node tree: %s: kept zone %s, labels give %s", c.node(id), c.zone(got), c.zone(k))
		}
	}
	// The scan list is the tree's round-robin listing (relist).
	var list []cluster.NodeID
	for j := 0; len(list) < len(ready); j++ {
		for i := range s.zones {
			if z := byZone[s.zones[i].key]; j < len(z) {
				list = append(list, z[j])
			}
		}
	}
	if !slices.Equal(list, s.nodes) {
		return fmt.Errorf("scan list: %s, rebuilt from the tree %s", c.nodeNames(s.nodes), c.nodeNames(list))
	}
	slot := make([]int32, len(s.cl.Nodes))
	for i := range slot {
		slot[i] = -1
	}
	for pos, id := range list {
		slot[id] = int32(pos)
	}
	for i := range s.cl.Nodes {
		id := cluster.NodeID(i)
		want := slot[i]
		got := int32(-1)
		if i < len(s.nodeSlot) {
			got = s.nodeSlot[i]
		}
		if got != want {
			return fmt.Errorf("scan slots: %s: slot %d, position in the scan list %d", c.node(id), got, want)
		}
	}
	if len(s.byName) != len(list) {
		return fmt.Errorf("node names: %d names for %d scanned nodes", len(s.byName), len(list))
	}
	for _, id := range list {
		if got, ok := s.byName[s.cl.Nodes[id].NameSym]; !ok || got != id {
			return fmt.Errorf("node names: %s found as node %d (found: %v)", c.node(id), got, ok)
		}
	}
	return nil
}

// checkTables compares the interned reasons and fit errors with their IDs.
func (c *checker) checkTables() error {
	s := c.s
	if len(s.unresolvable) != len(s.reasons) || len(s.reasonCount) != len(s.reasons) || len(s.reasonIDs) != len(s.reasons)-1 {
		return fmt.Errorf("reasons: %d messages, %d resolvabilities, %d counts, %d IDs", len(s.reasons), len(s.unresolvable), len(s.reasonCount), len(s.reasonIDs))
	}
	for i := 1; i < len(s.reasons); i++ {
		if r, ok := s.reasonIDs[s.reasons[i]]; !ok || int(r) != i {
			return fmt.Errorf("reasons: %q is reason %d, its ID %d", s.reasons[i], i, r)
		}
	}
	if len(s.failureIDs) != len(s.failures) {
		return fmt.Errorf("fit errors: %d messages, %d IDs", len(s.failures), len(s.failureIDs))
	}
	for i := range s.failures {
		if f, ok := s.failureIDs[s.failures[i].Message]; !ok || int(f) != i {
			return fmt.Errorf("fit errors: %q is error %d, its ID %d", s.failures[i].Message, i, f)
		}
	}
	return nil
}

// checkLabelColumns compares every column with the nodes' labels.
func (c *checker) checkLabelColumns() error {
	s := c.s
	for _, col := range s.labelCols {
		key := s.cl.Syms.Name(col.key)
		if len(col.vals) < len(s.cl.Nodes) {
			return fmt.Errorf("label column %q: %d values for %d nodes", key, len(col.vals), len(s.cl.Nodes))
		}
		for i := range s.cl.Nodes {
			v, ok := s.cl.Nodes[i].Labels.Get(col.key)
			if got := col.vals[i]; got != (labelVal{v, ok}) {
				return fmt.Errorf("label column %q: %s: kept %q (present %v), labels %q (present %v)", key, c.node(cluster.NodeID(i)),
					s.cl.Syms.Name(got.v), got.ok, s.cl.Syms.Name(v), ok)
			}
		}
	}
	return nil
}

// freshStatic runs a framework's static filters on a node for a spec, as
// Scheduler.static does but without its cache.
func (c *checker) freshStatic(fw *framework, spec *cluster.PodSpec, nid cluster.NodeID) staticEntry {
	n := &c.s.cl.Nodes[nid]
	cs := CycleState{Spec: spec}
	e := staticEntry{fail: -1}
	for _, fi := range fw.static {
		c.extra = c.extra[:0]
		if r := fw.filters[fi].Filter(&cs, nid, n, &c.extra); r != Pass {
			e.fail, e.reason = int8(fi), r
			break
		}
	}
	e.sel = cluster.MatchesNodeSelectors(c.s.cl.Syms, spec, n)
	_, bad := spec.Tolerations.FirstUntolerated(n.Taints)
	e.tol = !bad
	return e
}

func (c *checker) describeStatic(fw *framework, e staticEntry) string {
	verdict := "passes"
	if e.fail >= 0 {
		verdict = fmt.Sprintf("rejected by %s (%q)", fw.filters[e.fail].Name(), c.s.reasons[e.reason])
	}
	return fmt.Sprintf("%s, selectors match %v, taints tolerated %v", verdict, e.sel, e.tol)
}

// checkStatics compares each current static verdict with running the
// filters, and the memos of the last table and view with the tables.
func (c *checker) checkStatics() error {
	s := c.s
	type entry struct {
		key staticTableKey
		t   *staticTable
	}
	var tables []entry
	for k, t := range s.statics {
		tables = append(tables, entry{k, t})
	}
	sort.Slice(tables, func(i, j int) bool {
		a, b := tables[i].key, tables[j].key
		if a.fw != b.fw {
			return a.fw.profile.SchedulerName < b.fw.profile.SchedulerName
		}
		return a.class < b.class
	})
	for _, tb := range tables {
		fw, t := tb.key.fw, tb.t
		if t.spec == nil || s.specClassOf(t.spec) != tb.key.class {
			return fmt.Errorf("static verdicts (profile %s, spec class %d): the table's spec is not of its class", fw.profile.SchedulerName, tb.key.class)
		}
		for i := range t.entries {
			nid := cluster.NodeID(i)
			e := t.entries[i]
			if i >= len(s.cl.Nodes) || e.ep == 0 || e.ep != s.cl.NodeEpoch(nid)+1 {
				continue // unknown or stale: recomputed before use
			}
			want := c.freshStatic(fw, t.spec, nid)
			if e.fail != want.fail || (e.fail >= 0 && e.reason != want.reason) || e.sel != want.sel || e.tol != want.tol {
				return fmt.Errorf("static verdicts (profile %s, spec class %d): %s: cached %s, recomputed %s", fw.profile.SchedulerName, tb.key.class,
					c.node(nid), c.describeStatic(fw, e), c.describeStatic(fw, want))
			}
		}
	}
	if lt := s.lastTable; lt.t != nil && s.statics[staticTableKey{lt.fw, s.specClassOf(lt.spec)}] != lt.t {
		return fmt.Errorf("static verdicts: the last table used is not its spec class's")
	}
	if v := &s.view; v.s != nil {
		if v.fw != s.fws[v.cs.Spec.SchedulerName] || s.statics[staticTableKey{v.fw, s.specClassOf(v.cs.Spec)}] != v.t {
			return fmt.Errorf("static verdicts: the spread plugin's view is not its spec's table")
		}
	}
	return nil
}

// freshVerdict is a node's verdict for a fit index as the node-by-node
// scan reaches it, from the node alone: the first filter in filter order,
// among the static filters and NodeResourcesFit (resFi; < 0: none), that
// rejects it.
func (c *checker) freshVerdict(fw *framework, resFi int, spec *cluster.PodSpec, req cluster.Resources, nid cluster.NodeID) (uint16, Reason) {
	n := &c.s.cl.Nodes[nid]
	cs := CycleState{Spec: spec}
	for fi, f := range fw.filters {
		if fi == resFi {
			var mask uint16
			for i := 0; i < cluster.MaxResources; i++ {
				if req[i] != 0 && req[i] > n.Allocatable[i]-n.Requested[i] {
					mask |= 1 << i
				}
			}
			if mask != 0 {
				return 0x100 | mask, Pass
			}
			continue
		}
		if !fw.isStatic[fi] {
			continue
		}
		c.extra = c.extra[:0]
		if r := f.Filter(&cs, nid, n, &c.extra); r != Pass {
			return 2 + uint16(fi), r
		}
	}
	return 1, Pass
}

// verdictReasons calls fn with each reason a verdict counts.
func verdictReasons(res *nodeResourcesFit, v uint16, sr Reason, fn func(Reason)) {
	switch {
	case v <= 1:
	case v&0x100 == 0:
		fn(sr)
	default:
		for i := 0; i < cluster.MaxResources; i++ {
			if v&(1<<i) != 0 {
				fn(res.reasons[i])
			}
		}
	}
}

func (c *checker) describeVerdict(fw *framework, res *nodeResourcesFit, v uint16, sr Reason) string {
	switch {
	case v == 0:
		return "none (not scanned)"
	case v == 1:
		return "feasible"
	case v&0x100 == 0:
		if int(v-2) >= len(fw.filters) {
			return fmt.Sprintf("rejected by filter %d", v-2)
		}
		return fmt.Sprintf("rejected by %s (%q)", fw.filters[v-2].Name(), c.s.reasons[sr])
	}
	var rs []string
	verdictReasons(res, v, sr, func(r Reason) { rs = append(rs, c.s.reasons[r]) })
	return "rejected by NodeResourcesFit (" + strings.Join(rs, ", ") + ")"
}

func (c *checker) describeRequests(req cluster.Resources) string {
	var parts []string
	for i, q := range req {
		if q != 0 && i < c.s.cl.Resources.Len() {
			parts = append(parts, fmt.Sprintf("%s=%d", c.s.cl.Resources.Name(i), q))
		}
	}
	return strings.Join(parts, ",")
}

// fitName names a fit index in an error (formatted only then).
type fitName struct {
	c     *checker
	x     *fitIndex
	class int32
}

func (n fitName) String() string {
	return fmt.Sprintf("fit index (profile %s, spec class %d, requests %s)", n.x.fw.profile.SchedulerName, n.class, n.c.describeRequests(n.x.req))
}

// checkFitIndexes compares every fit index with a fresh evaluation of
// every node (see freshVerdict).
func (c *checker) checkFitIndexes() error {
	s := c.s
	if len(s.fitIdx) != len(s.fitList) {
		return fmt.Errorf("fit indexes: %d by key, %d listed", len(s.fitIdx), len(s.fitList))
	}
	for _, x := range s.fitList {
		class := s.specClassOf(x.cs.Spec)
		name := fitName{c, x, class}
		if s.fitIdx[fitKey{x.fw, class, x.req}] != x {
			return fmt.Errorf("%s: not found under its key", name)
		}
		if x.req != x.cs.Spec.Requests || x.resFi != x.fw.resFi || x.res != x.fw.filters[x.fw.resFi] {
			return fmt.Errorf("%s: its requests or resource filter are not its spec's and profile's", name)
		}
		if s.statics[staticTableKey{x.fw, class}] != x.table {
			return fmt.Errorf("%s: its static table is not its spec class's", name)
		}
		counts := make([]int32, len(s.reasons))
		var rejects [32]int32
		nFeas := 0
		fresh := make([]uint16, len(s.cl.Nodes))
		for i := range s.cl.Nodes {
			nid := cluster.NodeID(i)
			var v uint16
			sr := Pass
			if s.scanned(nid) {
				v, sr = c.freshVerdict(x.fw, x.resFi, x.cs.Spec, x.req, nid)
			}
			fresh[i] = v
			got, gotR := uint16(0), Pass
			if i < len(x.verdict) {
				got, gotR = x.verdict[i], x.sreason[i]
			}
			if got != v || (v > 1 && v&0x100 == 0 && gotR != sr) {
				return fmt.Errorf("%s: %s: verdict %s, recomputed %s", name, c.node(nid),
					c.describeVerdict(x.fw, x.res, got, gotR), c.describeVerdict(x.fw, x.res, v, sr))
			}
			switch {
			case v == 1:
				nFeas++
			case v&0x100 != 0:
				rejects[x.resFi]++
			case v > 1:
				rejects[v-2]++
			}
			verdictReasons(x.res, v, sr, func(r Reason) { counts[r]++ })
		}
		for i := len(s.cl.Nodes); i < len(x.verdict); i++ {
			if x.verdict[i] != 0 {
				return fmt.Errorf("%s: a verdict for node %d, past the last node", name, i)
			}
		}
		for r := range max(len(counts), len(x.counts)) {
			var got, want int32
			if r < len(x.counts) {
				got = x.counts[r]
			}
			if r < len(counts) {
				want = counts[r]
			}
			if got != want {
				return fmt.Errorf("%s: reason %q counted on %d nodes, recounted %d", name, s.reasons[r], got, want)
			}
		}
		for fi := range rejects {
			if x.rejects[fi] != rejects[fi] {
				fname := fmt.Sprint("filter ", fi)
				if fi < len(x.fw.filters) {
					fname = x.fw.filters[fi].Name()
				}
				return fmt.Errorf("%s: %s rejects %d nodes, recounted %d", name, fname, x.rejects[fi], rejects[fi])
			}
		}
		if x.nFeas != nFeas {
			return fmt.Errorf("%s: %d feasible nodes, recounted %d", name, x.nFeas, nFeas)
		}
		if x.epoch != s.orderEpoch {
			continue // the bitset follows an old scan order: rebuilt before use
		}
		if len(x.feasible) < (len(s.nodes)+63)/64 {
			return fmt.Errorf("%s: %d bitset words for %d scanned nodes", name, len(x.feasible), len(s.nodes))
		}
		for w := range x.feasible {
			for b := range 64 {
				pos := w*64 + b
				got := x.feasible[w]&(1<<b) != 0
				want := pos < len(s.nodes) && fresh[s.nodes[pos]] == 1
				if got == want {
					continue
				}
				if pos >= len(s.nodes) {
					return fmt.Errorf("%s: bit %d set, past the last of %d scan positions", name, pos, len(s.nodes))
				}
				return fmt.Errorf("%s: scan position %d (%s): feasible bit %v, recomputed %v", name, pos, c.node(s.nodes[pos]), got, want)
			}
		}
	}
	return nil
}

// checkScoreCaches compares each current resource score entry with the
// score computed from the node.
func (c *checker) checkScoreCaches() error {
	s := c.s
	for _, fw := range c.profiles() {
		for _, sp := range fw.scorers {
			var cache *scoreCache
			var fresh func(n *cluster.Node) int64
			switch p := sp.(type) {
			case *nodeResourcesFit:
				cache = &p.cache
				cs := CycleState{Spec: &cluster.PodSpec{ScoreCPU: cache.key[0], ScoreMemory: cache.key[1]}}
				fresh = func(n *cluster.Node) int64 { return p.Score(&cs, cluster.NoNode, n) }
			case *balancedAllocation:
				if len(p.resources) != 2 {
					continue
				}
				cache = &p.cache
				s0, s1 := p.resources[0].slot, p.resources[1].slot
				r0, r1 := cache.key[0], cache.key[1]
				fresh = func(n *cluster.Node) int64 {
					c0, c1, u0, u1 := n.Allocatable[s0], n.Allocatable[s1], n.Requested[s0], n.Requested[s1]
					return balancedScore(balance2(u0+r0, u1+r1, c0, c1), balance2(u0, u1, c0, c1))
				}
			default:
				continue
			}
			if cache.gen == 0 {
				continue // never used
			}
			for i, e := range cache.ents {
				if i >= len(s.roomEpoch) || i >= len(s.cl.Nodes) || e.gen != cache.gen || e.ep != s.roomEpoch[i]+1 {
					continue // stale: recomputed before use
				}
				if want := fresh(&s.cl.Nodes[i]); e.score != want {
					return fmt.Errorf("score cache (profile %s, %s, requests %v): %s: cached %d, recomputed %d", fw.profile.SchedulerName, sp.Name(),
						cache.key, c.node(cluster.NodeID(i)), e.score, want)
				}
			}
		}
	}
	return nil
}

// checkTopology counts the pods on every node and compares the counts
// kept by the topology index: its table of bound pods, its match memos,
// every counter, every term group and every kept domain sum.
func (c *checker) checkTopology() error {
	s := c.s
	t := s.topo
	// Pods are read through their nodes' PodRefs (sequential), consecutive
	// pods of one group found without the map.
	memoKeys := make([]groupKey, len(t.memos))
	for i, m := range t.memos {
		memoKeys[i] = groupKey{s.cl.Pods[m.rep].Spec, s.cl.Pods[m.rep].Namespace}
	}
	c.groupOf = map[groupKey]int{}
	bound := 0
	last, lastG := groupKey{}, -1
	for i := range s.cl.Nodes {
		n := &s.cl.Nodes[i]
		nid := cluster.NodeID(i)
		for j, id := range n.Pods {
			bound++
			k := groupKey{n.PodRefs[j].Spec, n.PodRefs[j].Namespace}
			g := lastG
			if g < 0 || k != last {
				var ok bool
				if g, ok = c.groupOf[k]; !ok {
					g = len(c.groups)
					c.groupOf[k] = g
					c.groups = append(c.groups, freshGroup{key: k, rep: id})
				}
				last, lastG = k, g
			}
			c.groups[g].nodes = append(c.groups[g].nodes, nid)
			if int(id) >= len(t.boundAt) || t.boundAt[id] < 0 || int(t.boundAt[id]) >= len(t.bound) {
				return fmt.Errorf("topology: bound %s on %s is not in the table of bound pods", c.pod(id), c.node(nid))
			}
			b := t.bound[t.boundAt[id]]
			if b.pod != id || b.node != nid {
				return fmt.Errorf("topology: bound %s on %s: its table entry holds pod %d on node %d", c.pod(id), c.node(nid), b.pod, b.node)
			}
			if int(b.group) >= len(t.memos) {
				return fmt.Errorf("topology: bound %s: group %d of %d", c.pod(id), b.group, len(t.memos))
			}
			if memoKeys[b.group] != k {
				return fmt.Errorf("topology: bound %s: its group is that of %s, of another spec or namespace", c.pod(id), c.pod(t.memos[b.group].rep))
			}
		}
	}
	if len(t.bound) != bound {
		return fmt.Errorf("topology: %d pods in the table of bound pods, %d on the nodes", len(t.bound), bound)
	}
	if len(t.memo) != len(t.memos) {
		return fmt.Errorf("topology: %d match memos by key, %d listed", len(t.memo), len(t.memos))
	}
	for i, m := range t.memos {
		rep := &s.cl.Pods[m.rep]
		if m.idx != int32(i) || t.memo[groupKey{rep.Spec, rep.Namespace}] != m {
			return fmt.Errorf("topology: match memo %d (of %s) is not found under its index and key", i, c.pod(m.rep))
		}
		if m.seen > len(t.counters) {
			return fmt.Errorf("topology: match memo of %s has seen %d of %d counters", c.pod(m.rep), m.seen, len(t.counters))
		}
		var want []*Counter
		for _, ct := range t.counters[:m.seen] {
			if ct.match(rep) {
				want = append(want, ct)
			}
		}
		if !slices.Equal(m.counters, want) {
			return fmt.Errorf("topology: match memo of %s lists %d counters, %d of the first %d select it", c.pod(m.rep), len(m.counters), len(want), m.seen)
		}
	}
	if err := c.checkDomainGroups(); err != nil {
		return err
	}
	if len(t.byKey) != len(t.counters) {
		return fmt.Errorf("topology: %d counters by key, %d listed", len(t.byKey), len(t.counters))
	}
	listed := map[*Counter]bool{}
	for _, ct := range t.counters {
		listed[ct] = true
	}
	for _, ct := range t.byKey {
		if !listed[ct] {
			return fmt.Errorf("topology: a counter by key is not listed")
		}
	}
	want := make([]int32, len(s.cl.Nodes))
	for ci, ct := range t.counters {
		clear(want)
		total := 0
		for _, g := range c.groups {
			if ct.match(&s.cl.Pods[g.rep]) {
				for _, nid := range g.nodes {
					want[nid]++
				}
				total += len(g.nodes)
			}
		}
		for i := range want {
			if got := ct.On(cluster.NodeID(i)); got != want[i] {
				return fmt.Errorf("topology: counter %d: %s: %d pods, recounted %d", ci, c.node(cluster.NodeID(i)), got, want[i])
			}
		}
		if ct.total != total {
			return fmt.Errorf("topology: counter %d: %d pods in total, recounted %d", ci, ct.total, total)
		}
		for _, ds := range ct.sums {
			if ds.counter != ct {
				return fmt.Errorf("topology: counter %d keeps a domain sum of another counter", ci)
			}
			g := ds.group
			if g.overflow {
				continue // not kept: callers walk the nodes
			}
			if len(ds.sums) != len(g.doms) {
				return fmt.Errorf("topology: counter %d: a domain sum of %d domains in a group of %d", ci, len(ds.sums), len(g.doms))
			}
			sums := make([]int64, len(g.doms))
			for i, k := range g.contrib {
				if k > 0 {
					sums[k-1] += int64(want[i])
				}
			}
			for i := range sums {
				if ds.sums[i] != sums[i] {
					return fmt.Errorf("topology: counter %d: domain %q sums %d pods, recounted %d", ci, s.cl.Syms.Name(g.doms[i]), ds.sums[i], sums[i])
				}
			}
		}
	}
	if len(t.byGroup) != len(t.groups) {
		return fmt.Errorf("topology: %d term groups by key, %d listed", len(t.byGroup), len(t.groups))
	}
	for _, tg := range t.groups {
		k := groupKey{tg.Spec, tg.Namespace}
		if t.byGroup[k] != tg {
			return fmt.Errorf("topology: a term group is not found under its key")
		}
		clear(want)
		total := 0
		if g, ok := c.groupOf[k]; ok {
			for _, nid := range c.groups[g].nodes {
				want[nid]++
			}
			total = len(c.groups[g].nodes)
		}
		for i := range want {
			if got := tg.On(cluster.NodeID(i)); got != want[i] {
				return fmt.Errorf("topology: term group of namespace %q: %s: %d pods, recounted %d", s.cl.Syms.Name(tg.Namespace), c.node(cluster.NodeID(i)), got, want[i])
			}
		}
		if tg.total != total {
			return fmt.Errorf("topology: term group of namespace %q: %d pods in total, recounted %d", s.cl.Syms.Name(tg.Namespace), tg.total, total)
		}
	}
	for _, g := range c.groups {
		if hasPodTerms(g.key.spec) && t.byGroup[g.key] == nil {
			return fmt.Errorf("topology: bound %s has pod affinity terms and no term group", c.pod(g.rep))
		}
	}
	return nil
}

// checkDomainGroups recomputes, for every kept domain group, the domain
// each node counts in (from the node alone, without the static cache) and
// compares it with the group's.
func (c *checker) checkDomainGroups() error {
	s := c.s
	t := s.topo
	kept := map[*domainGroup]bool{}
	for gi, g := range t.domGroups {
		kept[g] = true
		if g.overflow {
			continue
		}
		for i, d := range g.doms {
			if slices.Index(g.doms[:i], d) >= 0 {
				return fmt.Errorf("topology: domain group %d lists domain %q twice", gi, s.cl.Syms.Name(d))
			}
		}
		for i := range s.cl.Nodes {
			nid := cluster.NodeID(i)
			want := uint8(0)
			if s.scanned(nid) {
				if v, ok := g.include(nid, true); ok {
					j := slices.Index(g.doms, v)
					if j < 0 {
						return fmt.Errorf("topology: domain group %d: %s counts in domain %q, not among the group's", gi, c.node(nid), s.cl.Syms.Name(v))
					}
					want = uint8(j + 1)
				}
			}
			got := uint8(0)
			if i < len(g.contrib) {
				got = g.contrib[i]
			}
			if got != want {
				name := func(k uint8) string {
					if k == 0 {
						return "none"
					}
					return fmt.Sprintf("%q", s.cl.Syms.Name(g.doms[k-1]))
				}
				return fmt.Errorf("topology: domain group %d: %s counts in domain %s, recomputed %s", gi, c.node(nid), name(got), name(want))
			}
		}
		for _, ds := range g.members {
			if ds.group != g || !slices.Contains(ds.counter.sums, ds) {
				return fmt.Errorf("topology: domain group %d has a member of another group or not kept by its counter", gi)
			}
		}
	}
	for _, g := range t.domGroupByKey {
		if !g.overflow && !kept[g] {
			return fmt.Errorf("topology: a domain group by key is not listed")
		}
	}
	return nil
}

// spreadPlugins returns the profiles' PodTopologySpread plugins.
func (c *checker) spreadPlugins() []*podTopologySpread {
	var out []*podTopologySpread
	for _, fw := range c.profiles() {
		for _, f := range fw.filters {
			if p, ok := f.(*podTopologySpread); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		for _, f := range fw.scorers {
			if p, ok := f.(*podTopologySpread); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// checkSpreadPreps compares every spread preparation with its spec. Its
// maps are keyed by spec pointer: every difference is collected and the
// least message returned, so that the report does not depend on map
// order.
func (c *checker) checkSpreadPreps() error {
	s := c.s
	counters := map[*Counter]bool{}
	for _, ct := range s.topo.counters {
		counters[ct] = true
	}
	var errs []string
	for _, p := range c.spreadPlugins() {
		for spec, soft := range p.softCache {
			want, system := p.computeSoft(spec)
			if !reflect.DeepEqual(soft.cs, want) || soft.system != system {
				errs = append(errs, fmt.Sprintf("spread preparation: soft constraints of a spec with labels %v: kept %d (system %v), recomputed %d (system %v)",
					spec.Labels.Map(s.cl.Syms), len(soft.cs), soft.system, len(want), system))
			}
		}
		for k, pr := range p.preps {
			what := fmt.Sprintf("spread preparation of a spec with labels %v in namespace %q", k.spec.Labels.Map(s.cl.Syms), s.cl.Syms.Name(k.ns))
			soft, ok := p.softCache[k.spec]
			if !ok || len(soft.cs) != len(pr.soft) || len(pr.soft) > 0 && &soft.cs[0] != &pr.soft[0] {
				errs = append(errs, what+": its soft constraints are not the spec's cached ones")
				continue
			}
			if want := len(k.spec.Spread) > 0 || !soft.system; pr.requireAll != want {
				errs = append(errs, fmt.Sprintf("%s: requireAll %v, recomputed %v", what, pr.requireAll, want))
			}
			if len(pr.hard) != len(k.spec.Spread) || len(pr.hardSelf) != len(k.spec.Spread) || len(pr.counters) != len(pr.soft) || len(pr.sums) != len(pr.soft) {
				errs = append(errs, what+": sized for another spec")
				continue
			}
			for i := range k.spec.Spread {
				sc := &k.spec.Spread[i]
				want := int32(0)
				if sc.Hard && sc.Selector.Matches(s.cl.Syms, k.spec.Labels) {
					want = 1
				}
				if pr.hardSelf[i] != want {
					errs = append(errs, fmt.Sprintf("%s: constraint %d: self-match %d, recomputed %d", what, i, pr.hardSelf[i], want))
				}
				if pr.hard[i] != nil && !counters[pr.hard[i]] {
					errs = append(errs, fmt.Sprintf("%s: constraint %d: its counter is not the topology's", what, i))
				}
			}
			for i := range pr.soft {
				if pr.counters[i] != nil && !counters[pr.counters[i]] {
					errs = append(errs, fmt.Sprintf("%s: soft constraint %d: its counter is not the topology's", what, i))
				}
				if ds := pr.sums[i]; ds != nil && ds.counter != pr.counters[i] {
					errs = append(errs, fmt.Sprintf("%s: soft constraint %d: its domain sum is of another counter", what, i))
				}
			}
		}
		if p.lastPrep != nil && p.preps[p.lastKey] != p.lastPrep {
			errs = append(errs, "spread preparation: the last one used is not its key's")
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", slices.Min(errs))
	}
	return nil
}

// checkBoundPriorities compares the count of bound pods per priority with
// the pods on the nodes (counted by checkTopology, which runs first).
func (c *checker) checkBoundPriorities() error {
	s := c.s
	want := map[int32]int{}
	for _, g := range c.groups { // the bound pods by group (checkTopology)
		want[g.key.spec.Priority] += len(g.nodes)
	}
	keys := map[int32]bool{}
	for pr := range want {
		keys[pr] = true
	}
	for pr := range s.boundPriorities {
		keys[pr] = true
	}
	for _, pr := range slices.Sorted(maps.Keys(keys)) {
		got, ok := s.boundPriorities[pr]
		if got != want[pr] || (ok && got == 0) {
			return fmt.Errorf("bound priorities: priority %d: %d bound pods, recounted %d", pr, got, want[pr])
		}
	}
	return nil
}

// checkQueue compares the scheduling queue's heaps and list with the pod
// states that point into them and with the pods: every Pending pod a
// profile serves is queued somewhere, and one in backoff or the
// unschedulable list has a timer pending (a pod that left Pending may
// stay queued until popped: a cycle skips it).
func (c *checker) checkQueue() error {
	s := c.s
	q := &s.q
	for i, e := range q.active {
		if !q.has(e.id) || q.at(e.id).where != inActive || q.at(e.id).slot != int32(i) {
			return fmt.Errorf("scheduling queue: active entry %d, %s, does not point back", i, c.pod(e.id))
		}
		if pr := s.cl.Pods[e.id].Spec.Priority; e.priority != pr {
			return fmt.Errorf("scheduling queue: active %s: priority %d, its spec's %d", c.pod(e.id), e.priority, pr)
		}
		if i > 0 && q.less(i, (i-1)/2) {
			return fmt.Errorf("scheduling queue: active %s sorts before its parent in the heap", c.pod(e.id))
		}
	}
	for i, e := range q.backoff.items {
		if !q.has(e.id) || q.at(e.id).where != inBackoff || q.at(e.id).slot != int32(i) {
			return fmt.Errorf("scheduling queue: backoff entry %d, %s, does not point back", i, c.pod(e.id))
		}
		if pr := s.cl.Pods[e.id].Spec.Priority; e.priority != pr {
			return fmt.Errorf("scheduling queue: backoff %s: priority %d, its spec's %d", c.pod(e.id), e.priority, pr)
		}
		if i > 0 && q.backoff.Less(i, (i-1)/2) {
			return fmt.Errorf("scheduling queue: backoff %s sorts before its parent in the heap", c.pod(e.id))
		}
	}
	for i, id := range q.unsch {
		if !q.has(id) || q.at(id).where != inUnschedulable || q.at(id).slot != int32(i) {
			return fmt.Errorf("scheduling queue: unschedulable entry %d, %s, does not point back", i, c.pod(id))
		}
	}
	for i := range s.cl.Pods {
		id := cluster.PodID(i)
		where := notQueued
		if q.has(id) {
			st := q.at(id)
			where = st.where
			var ok bool
			switch where {
			case notQueued:
				ok = st.slot == -1
			case inActive:
				ok = int(st.slot) < len(q.active) && q.active[st.slot].id == id
			case inBackoff:
				ok = int(st.slot) < len(q.backoff.items) && q.backoff.items[st.slot].id == id
			case inUnschedulable:
				ok = int(st.slot) < len(q.unsch) && q.unsch[st.slot] == id
			}
			if !ok {
				return fmt.Errorf("scheduling queue: %s: state %d slot %d points at no entry of it", c.pod(id), where, st.slot)
			}
			if int(st.failure) >= len(s.failures) {
				return fmt.Errorf("scheduling queue: %s: fit error %d of %d", c.pod(id), st.failure, len(s.failures))
			}
			// A waiting pod's timer ends its backoff or its stay in the
			// unschedulable list; one that left Pending may keep a fired
			// one (a cycle skips it).
			if (where == inBackoff || where == inUnschedulable) && s.cl.Pods[i].Phase == cluster.Pending && !s.eng.Pending(st.timer) {
				return fmt.Errorf("scheduling queue: %s waits (state %d) with no timer to end it", c.pod(id), where)
			}
		}
		if p := &s.cl.Pods[i]; p.Phase == cluster.Pending && where == notQueued {
			if _, served := s.fws[p.Spec.SchedulerName]; served {
				return fmt.Errorf("scheduling queue: %s is Pending and in no queue", c.pod(id))
			}
		}
	}
	return nil
}

// checkClassFailures re-evaluates the equivalence-class failures a pod
// would reuse now (recorded at the current version, for a spec that
// cannot preempt) where the spec's cycle runs only the static filters and
// NodeResourcesFit: no pod affinity terms or hard spread of its own, no
// volumes, no node name, and no bound pod's required anti-affinity
// selecting its pods (judged on a pod of the spec waiting in the
// unschedulable list; without one the entry is not checked). No scanned
// node may fit, and the message and queueing hints must be those of the
// nodes' reasons. Differences are collected and the least returned (the
// failures are keyed by spec).
func (c *checker) checkClassFailures() error {
	s := c.s
	waiting := map[*cluster.PodSpec]cluster.PodID{}
	for _, id := range s.q.unsch {
		if _, ok := waiting[s.cl.Pods[id].Spec]; !ok {
			waiting[s.cl.Pods[id].Spec] = id
		}
	}
	var errs []string
	for spec, f := range s.failedAt {
		if f.version != s.version || s.canPreempt(spec) {
			continue // not used: the next pod of the spec runs a full cycle
		}
		what := fmt.Sprintf("class failure of a spec with labels %v", spec.Labels.Map(s.cl.Syms))
		if f.failure < 0 || int(f.failure) >= len(s.failures) {
			errs = append(errs, fmt.Sprintf("%s: fit error %d of %d", what, f.failure, len(s.failures)))
			continue
		}
		if hasPodTerms(spec) || spec.Volume != nil || spec.NodeName != "" || slices.ContainsFunc(spec.Spread, func(sc cluster.SpreadConstraint) bool { return sc.Hard }) {
			continue
		}
		rep, ok := waiting[spec]
		if !ok || c.antiSelects(&s.cl.Pods[rep]) {
			continue
		}
		fw := s.fws[spec.SchedulerName]
		var res *nodeResourcesFit
		if fw.resFi >= 0 {
			res = fw.filters[fw.resFi].(*nodeResourcesFit)
		}
		counts := map[Reason]int{}
		hints := EvNodeAdd
		fits := cluster.NoNode
		for _, nid := range s.nodes {
			v, sr := c.freshVerdict(fw, fw.resFi, spec, spec.Requests, nid)
			switch {
			case v == 1:
				fits = nid
			case v&0x100 != 0:
				hints |= fw.filters[fw.resFi].Events()
			default:
				hints |= fw.filters[v-2].Events()
			}
			if fits != cluster.NoNode {
				break
			}
			verdictReasons(res, v, sr, func(r Reason) { counts[r]++ })
		}
		if fits != cluster.NoNode {
			errs = append(errs, fmt.Sprintf("%s: %q, but %s fits", what, s.failures[f.failure].Message, c.node(fits)))
			continue
		}
		parts := make([]string, 0, len(counts))
		for r, n := range counts {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.reasons[r]))
		}
		sort.Strings(parts)
		msg := fmt.Sprintf("0/%d nodes are available", len(s.nodes))
		if len(parts) > 0 {
			msg += ": " + strings.Join(parts, ", ")
		}
		msg += "."
		if got := s.failures[f.failure].Message; got != msg || f.hints != hints {
			errs = append(errs, fmt.Sprintf("%s: %q (hints %b), recomputed %q (hints %b)", what, got, f.hints, msg, hints))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", slices.Min(errs))
	}
	return nil
}

// antiSelects reports whether a bound pod's required anti-affinity term
// selects p: then p's cycle runs InterPodAffinity's filter.
func (c *checker) antiSelects(p *cluster.Pod) bool {
	for _, g := range c.s.topo.groups {
		if g.total == 0 {
			continue
		}
		for i := range g.Spec.PodAntiAffinity {
			if c.s.topo.TermSelects(&g.Spec.PodAntiAffinity[i], g.Namespace, p) {
				return true
			}
		}
	}
	return false
}
