package scheduler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Topology indexes bound pods for the plugins that count pods (topology
// spread, inter-pod affinity), so that a scheduling cycle reads per-node
// counts instead of walking every pod in the cluster. Counters are created
// on first use, filled from the pods already bound, and then kept up to
// date on every bind and unbind.
type Topology struct {
	cl       *cluster.Cluster
	counters []*Counter
	byKey    map[any]*Counter
	groups   []*TermGroup
	byGroup  map[groupKey]*TermGroup
	sumByKey map[any]*domainSum
	// domGroups are the domain sums' groups by include (domainGroup).
	domGroups     []*domainGroup
	domGroupByKey map[any]*domainGroup
	memo          map[groupKey]*matchMemo
	// memos lists the memos by index: the (spec, namespace) groups of
	// the pods bound so far.
	memos []*matchMemo
	// bound lists the bound pods, in no order, with their group and node;
	// boundAt is per PodID the pod's index in bound (-1: not bound). A
	// new counter is filled by one sequential walk over it: the resident
	// pods only, not every pod ever created (pod records are never
	// recycled), and no pod record read.
	bound   []boundPod
	boundAt []int32
	// NamespaceLabels holds Namespace manifests' labels for namespace
	// selectors.
	NamespaceLabels map[cluster.Sym]cluster.Labels
}

// boundPod is a bound pod in Topology.bound.
type boundPod struct {
	pod   cluster.PodID
	group int32 // index in Topology.memos
	node  cluster.NodeID
}

// Counter counts, per node, the bound pods a predicate selects.
type Counter struct {
	match   func(p *cluster.Pod) bool
	perNode []int32 // by NodeID
	total   int
	// sums are the domain sums kept over this counter.
	sums []*domainSum
}

// On returns the count on a node.
func (c *Counter) On(n cluster.NodeID) int32 {
	if int(n) < len(c.perNode) {
		return c.perNode[n]
	}
	return 0
}

// Total is the count over all nodes.
func (c *Counter) Total() int { return c.total }

func (c *Counter) add(n cluster.NodeID, d int32) {
	for int(n) >= len(c.perNode) {
		c.perNode = append(c.perNode, 0)
	}
	c.perNode[n] += d
	c.total += int(d)
	for _, ds := range c.sums {
		ds.add(n, d)
	}
}

// domainSum keeps, per domain of one topology key, a counter's sum over
// the scanned nodes its group's include() admits, up to date on every
// count change (Counter.add) and node change (Topology.nodeChanged): what
// a cycle would get by walking every node, without the walk.
type domainSum struct {
	counter *Counter
	group   *domainGroup
	sums    []int64 // by index in group.doms
}

// domainGroup is what the domain sums of one node inclusion have in
// common (one include: the same topology key, node inclusion policies
// and spec class): which domain each node counts in. Domain sums of many
// templates share one, so a node change decides a node's domain once,
// and touches the sums only when it moved.
type domainGroup struct {
	// include says whether a node counts and in which domain; with
	// fresh, from the node alone, without the scheduler's caches
	// (CheckIndexes).
	include func(nid cluster.NodeID, fresh bool) (cluster.Sym, bool)
	doms    []cluster.Sym
	// contrib is per NodeID the index+1 in doms the node counts in (0:
	// none).
	contrib []uint8
	members []*domainSum
	// overflow: too many domains for contrib; the sums are not kept and
	// callers walk the nodes.
	overflow bool
}

const maxDomainSumDomains = 250

func (ds *domainSum) add(n cluster.NodeID, d int32) {
	if c := ds.group.contrib; int(n) < len(c) && c[n] > 0 {
		ds.sums[c[n]-1] += int64(d)
	}
}

// overflowed reports whether the sums are not kept.
func (ds *domainSum) overflowed() bool { return ds.group.overflow }

// refresh recomputes one node's domain and moves its counts in the
// members' sums if it changed; in: the node is scanned.
func (g *domainGroup) refresh(n cluster.NodeID, in bool) {
	if g.overflow {
		return
	}
	for int(n) >= len(g.contrib) {
		g.contrib = append(g.contrib, 0)
	}
	idx := uint8(0)
	if in {
		if v, ok := g.include(n, false); ok {
			i := -1
			for j, d := range g.doms {
				if d == v {
					i = j
					break
				}
			}
			if i < 0 {
				if len(g.doms) >= maxDomainSumDomains {
					g.overflow = true
					return
				}
				i = len(g.doms)
				g.doms = append(g.doms, v)
				for _, ds := range g.members {
					ds.sums = append(ds.sums, 0)
				}
			}
			idx = uint8(i + 1)
		}
	}
	old := g.contrib[n]
	if old == idx {
		return
	}
	g.contrib[n] = idx
	for _, ds := range g.members {
		cnt := int64(ds.counter.On(n))
		if old > 0 {
			ds.sums[old-1] -= cnt
		}
		if idx > 0 {
			ds.sums[idx-1] += cnt
		}
	}
}

// sum is the counter's sum over the domain's nodes.
func (ds *domainSum) sum(v cluster.Sym) int64 {
	for i, d := range ds.group.doms {
		if d == v {
			return ds.sums[i]
		}
	}
	return 0
}

// DomainSum returns the domain sum for key, creating it over the scanned
// nodes if new. key must identify counter and include; groupKey must
// identify include (domain sums of one groupKey share their nodes'
// domains).
func (t *Topology) domainSum(key, groupKey any, counter *Counter, nodes []cluster.NodeID, include func(nid cluster.NodeID, fresh bool) (cluster.Sym, bool)) *domainSum {
	if ds, ok := t.sumByKey[key]; ok {
		return ds
	}
	if t.sumByKey == nil {
		t.sumByKey = map[any]*domainSum{}
		t.domGroupByKey = map[any]*domainGroup{}
	}
	g := t.domGroupByKey[groupKey]
	if g == nil {
		g = &domainGroup{include: include}
		for _, n := range nodes {
			g.refresh(n, true)
		}
		t.domGroupByKey[groupKey] = g
		if !g.overflow {
			t.domGroups = append(t.domGroups, g)
		}
	}
	ds := &domainSum{counter: counter, group: g}
	t.sumByKey[key] = ds
	if g.overflow {
		return ds
	}
	ds.sums = make([]int64, len(g.doms))
	for _, n := range nodes {
		if i := g.contrib[n]; i > 0 {
			ds.sums[i-1] += int64(counter.On(n))
		}
	}
	g.members = append(g.members, ds)
	counter.sums = append(counter.sums, ds)
	return ds
}

// nodeChanged refreshes a node's domain in every domain group; in: the
// node is scanned (Ready).
func (t *Topology) nodeChanged(n cluster.NodeID, in bool) {
	for _, g := range t.domGroups {
		g.refresh(n, in)
	}
}

// TermGroup counts, per node, the bound pods of one PodSpec that carries
// pod (anti-)affinity terms: the existing pods whose terms an incoming pod
// must respect.
type TermGroup struct {
	Spec      *cluster.PodSpec
	Namespace cluster.Sym
	perNode   []int32
	total     int
}

// On returns the count on a node.
func (g *TermGroup) On(n cluster.NodeID) int32 {
	if int(n) < len(g.perNode) {
		return g.perNode[n]
	}
	return 0
}

// Total is the count over all nodes.
func (g *TermGroup) Total() int { return g.total }

type groupKey struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
}

// NewTopology returns an empty index over the cluster.
func NewTopology(cl *cluster.Cluster) *Topology {
	return &Topology{cl: cl, byKey: map[any]*Counter{}, byGroup: map[groupKey]*TermGroup{}}
}

// Counter returns the counter for key, creating it with match if new. key
// must identify match (e.g. a selector pointer and a namespace), and match
// must depend only on the pod's namespace and spec.
func (t *Topology) Counter(key any, match func(p *cluster.Pod) bool) *Counter {
	if c, ok := t.byKey[key]; ok {
		return c
	}
	c := &Counter{match: match}
	// match depends only on spec and namespace: ask it once per group,
	// of the group's first pod, then count the bound pods by group.
	sel := make([]bool, len(t.memos))
	for g, m := range t.memos {
		sel[g] = match(&t.cl.Pods[m.rep])
	}
	for _, b := range t.bound {
		if sel[b.group] {
			c.add(b.node, 1)
		}
	}
	t.byKey[key] = c
	t.counters = append(t.counters, c)
	return c
}

// Groups lists the term groups in creation order.
func (t *Topology) Groups() []*TermGroup { return t.groups }

func hasPodTerms(s *cluster.PodSpec) bool {
	return len(s.PodAffinity)+len(s.PodAntiAffinity)+len(s.PreferredPodAffinity)+len(s.PreferredPodAntiAffinity) > 0
}

// matchMemo lists, for pods of one spec and namespace, the counters
// (among the first seen) that select them.
type matchMemo struct {
	seen     int
	counters []*Counter
	idx      int32         // index in Topology.memos
	rep      cluster.PodID // the group's first bound pod
}

// update applies a bind (d = 1) or an unbind (d = -1) of pod id. Which
// counters select a pod depends only on its spec and namespace (see
// Counter): the answer is kept per spec and namespace, extended as
// counters are added.
func (t *Topology) update(id cluster.PodID, n cluster.NodeID, d int32) {
	p := &t.cl.Pods[id]
	k := groupKey{p.Spec, p.Namespace}
	var m *matchMemo
	if d < 0 {
		m = t.memos[t.bound[t.boundAt[id]].group] // no map lookup
	} else {
		m = t.memo[k]
	}
	if m == nil {
		m = &matchMemo{idx: int32(len(t.memos)), rep: id}
		if t.memo == nil {
			t.memo = map[groupKey]*matchMemo{}
		}
		t.memo[k] = m
		t.memos = append(t.memos, m)
	}
	if d > 0 {
		for int(id) >= len(t.boundAt) {
			t.boundAt = append(t.boundAt, -1)
		}
		t.boundAt[id] = int32(len(t.bound))
		t.bound = append(t.bound, boundPod{pod: id, group: m.idx, node: n})
	} else {
		i, last := t.boundAt[id], len(t.bound)-1
		moved := t.bound[last]
		t.bound[i] = moved
		t.boundAt[moved.pod] = i
		t.bound = t.bound[:last]
		t.boundAt[id] = -1
	}
	for ; m.seen < len(t.counters); m.seen++ {
		if c := t.counters[m.seen]; c.match(p) {
			m.counters = append(m.counters, c)
		}
	}
	for _, c := range m.counters {
		c.add(n, d)
	}
	if hasPodTerms(p.Spec) {
		k := groupKey{p.Spec, p.Namespace}
		g, ok := t.byGroup[k]
		if !ok {
			g = &TermGroup{Spec: p.Spec, Namespace: p.Namespace}
			t.byGroup[k] = g
			t.groups = append(t.groups, g)
		}
		for int(n) >= len(g.perNode) {
			g.perNode = append(g.perNode, 0)
		}
		g.perNode[n] += d
		g.total += int(d)
	}
}

// TermSelects reports whether an affinity term of a pod in namespace ownNS
// selects pod p: p's namespace is among the term's namespaces (its own
// namespace when the term names none and has no namespace selector) and p's
// labels match the selector (k8s PodMatchesTermsNamespaceAndSelector).
func (t *Topology) TermSelects(term *cluster.AffinityTerm, ownNS cluster.Sym, p *cluster.Pod) bool {
	if !t.termNamespace(term, ownNS, p.Namespace) {
		return false
	}
	return term.Selector.Matches(t.cl.Syms, p.Spec.Labels)
}

func (t *Topology) termNamespace(term *cluster.AffinityTerm, ownNS, ns cluster.Sym) bool {
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		return ns == ownNS
	}
	for _, n := range term.Namespaces {
		if n == ns {
			return true
		}
	}
	if term.NamespaceSelector != nil {
		return term.NamespaceSelector.Matches(t.cl.Syms, t.NamespaceLabels[ns])
	}
	return false
}

// pair is a topology pair: a label key and one of its values.
type pair struct{ key, value cluster.Sym }
