package scheduler

import (
	"fmt"
	"math"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Spreading defaults (k8s podtopologyspread/plugin.go systemDefaultConstraints).
const (
	// SystemDefaultHostnameSkew and SystemDefaultZoneSkew are the maxSkew of
	// the system default constraints, both ScheduleAnyway.
	SystemDefaultHostnameSkew = 3
	SystemDefaultZoneSkew     = 5
)

// Defaulting types of PodTopologySpread.
const (
	SpreadDefaultingSystem = "System"
	SpreadDefaultingList   = "List"
)

// podTopologySpread enforces whenUnsatisfiable: DoNotSchedule constraints
// and scores ScheduleAnyway ones (and the default constraints for pods with
// none of their own), following k8s podtopologyspread filtering.go and
// scoring.go: counts per domain over the nodes that pass the node inclusion
// policies and carry every topology key; skew = count in the node's domain
// + 1 if the pod matches its own selector - the global minimum (0 when
// fewer domains than minDomains).
type podTopologySpread struct {
	h          Handle
	syms       *cluster.Symbols
	hostname   cluster.Sym
	zone       cluster.Sym
	defaulting string
	defaults   []cluster.SpreadConstraint
	missing    Reason
	skewed     Reason

	// Filter state of the current cycle.
	hard []spreadState
	// Score state of the current cycle.
	soft       []softState
	requireAll bool
	ignored    []bool // per feasible node, in order
	// slots holds, per soft constraint and feasible node (constraint-
	// major), the index of the node's domain in the constraint's counts,
	// or slotHost or slotMissing.
	slots      []int32
	nFeasible  int
	scoreIndex int
	acc        []float64 // per feasible node: raw score before rounding
	normMemo   []int64   // NormalizeScore's result by score - min
	softCache  map[*cluster.PodSpec]softConstraints
	// preps keeps per spec and namespace what does not change from one
	// cycle to the next; last is the latest, as pods come in template runs.
	preps    map[prepKey]*spreadPrep
	lastKey  prepKey
	lastPrep *spreadPrep
}

// Slots of Score: the node's own count (hostname key), or no label.
const (
	slotHost    int32 = -1
	slotMissing int32 = -2
)

type prepKey struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
}

// spreadPrep is the cycle-independent part of a (spec, namespace): its
// soft constraints with their counters and kept domain sums (created on
// first use, as before), and its hard constraints' counters.
type spreadPrep struct {
	soft       []cluster.SpreadConstraint
	requireAll bool
	counters   []*Counter   // per soft constraint
	sums       []*domainSum // per soft constraint; nil until kept
	hard       []*Counter   // per spec.Spread index (nil for soft ones)
	hardSelf   []int32      // per spec.Spread index: the pod matches the selector
}

// softState is one soft constraint in the current cycle.
type softState struct {
	c       *cluster.SpreadConstraint
	counter *Counter
	host    bool // topology key is the hostname: each node is its domain
	weight  float64
	// doms are the domains of the scored feasible nodes, in order of first
	// sight; counts[i] is doms[i]'s count over every node. index maps
	// doms when there are many.
	doms    []cluster.Sym
	counts  []int32
	index   map[cluster.Sym]int32
	indexed bool
	kept    bool
}

// maxLinearDomains is how many domains slot and find search linearly
// before they use the index map.
const maxLinearDomains = 16

// slot returns v's index in doms, adding it if new.
func (st *softState) slot(v cluster.Sym) int32 {
	if i, ok := st.find(v); ok {
		return i
	}
	i := int32(len(st.doms))
	st.doms = append(st.doms, v)
	st.counts = append(st.counts, 0)
	switch {
	case st.indexed:
		st.index[v] = i
	case len(st.doms) > maxLinearDomains:
		if st.index == nil {
			st.index = map[cluster.Sym]int32{}
		}
		for j, d := range st.doms {
			st.index[d] = int32(j)
		}
		st.indexed = true
	}
	return i
}

// find returns v's index in doms.
func (st *softState) find(v cluster.Sym) (int32, bool) {
	if st.indexed {
		i, ok := st.index[v]
		return i, ok
	}
	for i, d := range st.doms {
		if d == v {
			return int32(i), true
		}
	}
	return 0, false
}

// spreadState is one hard constraint in the current cycle.
type spreadState struct {
	c       *cluster.SpreadConstraint
	counter *Counter
	domains map[cluster.Sym]int32
	min     int32
	self    int32
}

var (
	_ PreFilterPlugin  = (*podTopologySpread)(nil)
	_ FilterPlugin     = (*podTopologySpread)(nil)
	_ PreScorePlugin   = (*podTopologySpread)(nil)
	_ normalizedScorer = (*podTopologySpread)(nil)
)

func newPodTopologySpread(h Handle, args PluginArgs) (Plugin, error) {
	syms := h.Cluster().Syms
	p := &podTopologySpread{
		h:          h,
		syms:       syms,
		hostname:   h.Cluster().KeyHostname,
		zone:       h.Cluster().KeyZone,
		defaulting: args.SpreadDefaulting,
		defaults:   args.DefaultConstraints,
		missing:    h.Reason("node(s) didn't match pod topology spread constraints (missing required label)", Unresolvable),
		skewed:     h.Reason("node(s) didn't match pod topology spread constraints", Resolvable),
		softCache:  map[*cluster.PodSpec]softConstraints{},
		preps:      map[prepKey]*spreadPrep{},
	}
	if p.defaulting == "" {
		p.defaulting = SpreadDefaultingSystem
	}
	return p, nil
}

func (p *podTopologySpread) Name() string { return NamePodTopologySpread }
func (p *podTopologySpread) Events() Event {
	return EvNodeAdd | EvNodeUpdate | EvNodeRemove | EvPodAssigned | EvPodUnassigned
}

func (p *podTopologySpread) counter(c *cluster.SpreadConstraint, ns cluster.Sym) *Counter {
	type key struct {
		sel *cluster.LabelSelector
		ns  cluster.Sym
	}
	sel := &c.Selector
	syms := p.syms
	return p.h.Topology().Counter(key{sel, ns}, func(pod *cluster.Pod) bool {
		return pod.Namespace == ns && sel.Matches(syms, pod.Spec.Labels)
	})
}

// staticNodeInfo is implemented by the Scheduler: cached node selector
// and taint verdicts for a spec and node (staticcache.go).
type staticNodeInfo interface {
	staticView(spec *cluster.PodSpec) *specStatic
}

// eligibleID is eligible through the scheduler's cache when it has one
// (view, nil without).
func (p *podTopologySpread) eligibleID(cs *CycleState, view *specStatic, c *cluster.SpreadConstraint, nid cluster.NodeID, n *cluster.Node) bool {
	if !c.HonorNodeAffinity && !c.HonorTaints {
		return true
	}
	if view == nil {
		return p.eligible(cs, c, n)
	}
	e := view.at(nid)
	return (!c.HonorNodeAffinity || e.sel) && (!c.HonorTaints || e.tol)
}

// view returns the scheduler's static cache for the cycle's spec, if any.
func (p *podTopologySpread) view(cs *CycleState) *specStatic {
	if si, ok := p.h.(staticNodeInfo); ok {
		return si.staticView(cs.Spec)
	}
	return nil
}

// eligible applies the node inclusion policies of one constraint.
func (p *podTopologySpread) eligible(cs *CycleState, c *cluster.SpreadConstraint, n *cluster.Node) bool {
	if c.HonorNodeAffinity && !cluster.MatchesNodeSelectors(p.syms, cs.Spec, n) {
		return false
	}
	if c.HonorTaints {
		if _, bad := cs.Spec.Tolerations.FirstUntolerated(n.Taints); bad {
			return false
		}
	}
	return true
}

func hasKeys(n *cluster.Node, states []spreadState) bool {
	for i := range states {
		if !n.Labels.Has(states[i].c.TopologyKey) {
			return false
		}
	}
	return true
}

// prep returns the cycle-independent state of the cycle's spec and
// namespace.
func (p *podTopologySpread) prep(cs *CycleState) *spreadPrep {
	k := prepKey{cs.Spec, cs.Namespace}
	if p.lastPrep != nil && p.lastKey == k {
		return p.lastPrep
	}
	pr := p.preps[k]
	if pr == nil {
		soft, system := p.softConstraints(cs.Spec)
		pr = &spreadPrep{
			soft:       soft,
			requireAll: len(cs.Spec.Spread) > 0 || !system,
			counters:   make([]*Counter, len(soft)),
			sums:       make([]*domainSum, len(soft)),
			hard:       make([]*Counter, len(cs.Spec.Spread)),
			hardSelf:   make([]int32, len(cs.Spec.Spread)),
		}
		for i := range cs.Spec.Spread {
			if c := &cs.Spec.Spread[i]; c.Hard && c.Selector.Matches(p.syms, cs.Spec.Labels) {
				pr.hardSelf[i] = 1
			}
		}
		p.preps[k] = pr
	}
	p.lastKey, p.lastPrep = k, pr
	return pr
}

func (p *podTopologySpread) PreFilter(cs *CycleState) bool {
	p.hard = p.hard[:0]
	var pr *spreadPrep
	for i := range cs.Spec.Spread {
		c := &cs.Spec.Spread[i]
		if !c.Hard {
			continue
		}
		if pr == nil {
			pr = p.prep(cs)
		}
		if pr.hard[i] == nil {
			pr.hard[i] = p.counter(c, cs.Namespace)
		}
		p.hard = p.appendState(p.hard, c, pr.hard[i], pr.hardSelf[i])
	}
	if len(p.hard) == 0 {
		return true
	}
	cl := p.h.Cluster()
	view := p.view(cs)
	for _, nid := range p.h.Nodes() {
		n := &cl.Nodes[nid]
		if !hasKeys(n, p.hard) {
			continue
		}
		for i := range p.hard {
			st := &p.hard[i]
			if !p.eligibleID(cs, view, st.c, nid, n) {
				continue
			}
			v, _ := n.Labels.Get(st.c.TopologyKey)
			st.domains[v] += st.counter.On(nid)
		}
	}
	for i := range p.hard {
		st := &p.hard[i]
		st.min = math.MaxInt32
		for _, cnt := range st.domains {
			st.min = min(st.min, cnt)
		}
		if int32(len(st.domains)) < st.c.MinDomains || len(st.domains) == 0 {
			st.min = 0
		}
	}
	return false
}

// appendState appends a hard constraint's state for this cycle, reusing
// the domains map of the slot it overwrites (one map per constraint per
// cycle was most of the plugin's allocation).
func (p *podTopologySpread) appendState(list []spreadState, c *cluster.SpreadConstraint, counter *Counter, self int32) []spreadState {
	var domains map[cluster.Sym]int32
	if n := len(list); n < cap(list) {
		domains = list[:n+1][n].domains
	}
	if domains == nil {
		domains = map[cluster.Sym]int32{}
	} else {
		clear(domains)
	}
	return append(list, spreadState{c: c, counter: counter, domains: domains, self: self})
}

func (p *podTopologySpread) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	for i := range p.hard {
		st := &p.hard[i]
		v, ok := n.Labels.Get(st.c.TopologyKey)
		if !ok {
			return p.missing
		}
		if st.domains[v]+st.self-st.min > st.c.MaxSkew {
			return p.skewed
		}
	}
	return Pass
}

// softConstraints are the pod's ScheduleAnyway constraints, or the default
// ones when the pod has no constraints at all. They are computed once per
// spec, so their selectors keep their addresses (and counters) across
// cycles.
func (p *podTopologySpread) softConstraints(spec *cluster.PodSpec) (cs []cluster.SpreadConstraint, systemDefaulted bool) {
	if cached, ok := p.softCache[spec]; ok {
		return cached.cs, cached.system
	}
	cs, systemDefaulted = p.computeSoft(spec)
	p.softCache[spec] = softConstraints{cs, systemDefaulted}
	return cs, systemDefaulted
}

type softConstraints struct {
	cs     []cluster.SpreadConstraint
	system bool
}

func (p *podTopologySpread) computeSoft(spec *cluster.PodSpec) (cs []cluster.SpreadConstraint, systemDefaulted bool) {
	if len(spec.Spread) > 0 {
		for _, c := range spec.Spread {
			if !c.Hard {
				cs = append(cs, c)
			}
		}
		return cs, false
	}
	if spec.OwnerSelector == nil {
		return nil, false
	}
	if p.defaulting == SpreadDefaultingList {
		for _, c := range p.defaults {
			c.Selector = *spec.OwnerSelector
			cs = append(cs, c)
		}
		return cs, false
	}
	cs = []cluster.SpreadConstraint{
		{MaxSkew: SystemDefaultHostnameSkew, TopologyKey: p.hostname, Selector: *spec.OwnerSelector, HonorNodeAffinity: true},
		{MaxSkew: SystemDefaultZoneSkew, TopologyKey: p.zone, Selector: *spec.OwnerSelector, HonorNodeAffinity: true},
	}
	return cs, true
}

func hasKeysC(n *cluster.Node, cs []cluster.SpreadConstraint) bool {
	for i := range cs {
		if !n.Labels.Has(cs[i].TopologyKey) {
			return false
		}
	}
	return true
}

// domainSum returns the kept per-domain counts of soft constraint i over
// every scanned node (overflowed when it cannot keep them: then the
// caller walks the nodes), or nil when the scheduler keeps none.
func (p *podTopologySpread) domainSum(cs *CycleState, pr *spreadPrep, i int) *domainSum {
	if ds := pr.sums[i]; ds != nil {
		return ds
	}
	si, ok := p.h.(staticNodeInfo)
	if !ok {
		return nil
	}
	type key struct {
		spec *cluster.PodSpec
		ns   cluster.Sym
		i    int
	}
	view := *si.staticView(cs.Spec)
	constraints := pr.soft
	c := &constraints[i]
	requireAll := pr.requireAll
	cl := p.h.Cluster()
	// What include reads: the static answers (by spec class) when a
	// policy is honored, the topology keys, the policies.
	type groupKey struct {
		t                *staticTable
		key              cluster.Sym
		aff, taints, all bool
		keys             string // every constraint's key when all
	}
	gk := groupKey{key: c.TopologyKey, aff: c.HonorNodeAffinity, taints: c.HonorTaints, all: requireAll}
	if c.HonorNodeAffinity || c.HonorTaints {
		gk.t = view.t
	}
	if requireAll {
		keys := make([]cluster.Sym, len(constraints))
		for j := range constraints {
			keys[j] = constraints[j].TopologyKey
		}
		gk.keys = fmt.Sprint(keys)
	}
	ds := p.h.Topology().domainSum(key{cs.Spec, cs.Namespace, i}, gk, pr.counters[i], p.h.Nodes(), func(nid cluster.NodeID, fresh bool) (cluster.Sym, bool) {
		n := &cl.Nodes[nid]
		if requireAll && !hasKeysC(n, constraints) {
			return cluster.NoSym, false
		}
		switch {
		case fresh:
			if !p.eligible(&view.cs, c, n) {
				return cluster.NoSym, false
			}
		case c.HonorNodeAffinity || c.HonorTaints:
			e := view.at(nid)
			if (c.HonorNodeAffinity && !e.sel) || (c.HonorTaints && !e.tol) {
				return cluster.NoSym, false
			}
		}
		return n.Labels.Get(c.TopologyKey)
	})
	pr.sums[i] = ds
	return ds
}

func (p *podTopologySpread) PreScore(cs *CycleState, feasible []cluster.NodeID) bool {
	pr := p.prep(cs)
	constraints := pr.soft
	if len(constraints) == 0 {
		return true
	}
	if cap(p.soft) < len(constraints) {
		p.soft = make([]softState, len(constraints))
	}
	p.soft = p.soft[:len(constraints)]
	for i := range constraints {
		c := &constraints[i]
		if pr.counters[i] == nil {
			pr.counters[i] = p.counter(c, cs.Namespace)
		}
		st := &p.soft[i]
		st.c, st.counter, st.host, st.kept = c, pr.counters[i], c.TopologyKey == p.hostname, false
		st.doms, st.counts = st.doms[:0], st.counts[:0]
		if st.indexed {
			clear(st.index)
			st.indexed = false
		}
	}
	// Nodes without every topology key are not scored, except under the
	// system defaults, so that nodes without a zone still spread by host.
	p.requireAll = pr.requireAll
	cl := p.h.Cluster()
	nf := len(feasible)
	p.nFeasible = nf
	p.ignored = resize(p.ignored, nf)
	scored := nf
	if p.requireAll {
		for i, nid := range feasible {
			if !hasKeysC(&cl.Nodes[nid], constraints) {
				p.ignored[i] = true
				scored--
			}
		}
	}
	p.slots = resize(p.slots, nf*len(p.soft))
	cols, _ := p.h.(labelColumns)
	for j := range p.soft {
		st := &p.soft[j]
		key := st.c.TopologyKey
		slots := p.slots[j*nf : (j+1)*nf]
		// The nodes' values of key from the scheduler's column, else
		// from their labels.
		var col []labelVal
		if cols != nil {
			col = cols.labelColumn(key)
		}
		for i, nid := range feasible {
			slot := slotMissing
			if p.ignored[i] {
				slots[i] = slot
				continue
			}
			var v cluster.Sym
			var ok bool
			if col != nil {
				v, ok = col[nid].v, col[nid].ok
			} else {
				v, ok = cl.Nodes[nid].Labels.Get(key)
			}
			if ok {
				slot = slotHost
				if !st.host {
					slot = st.slot(v)
				}
			}
			slots[i] = slot
		}
	}
	for i := range p.soft {
		st := &p.soft[i]
		size := len(st.doms)
		if st.host {
			size = scored
		}
		st.weight = math.Log(float64(size + 2))
	}
	// Counts per domain come from every node, not only the feasible ones:
	// kept up to date per domain (domainSum) where the scheduler can,
	// else counted here.
	walk := false
	for i := range p.soft {
		st := &p.soft[i]
		if st.host || len(st.doms) == 0 {
			continue
		}
		ds := p.domainSum(cs, pr, i)
		if ds == nil || ds.overflowed() {
			walk = true
			continue
		}
		st.kept = true
		for j, v := range st.doms {
			st.counts[j] = int32(ds.sum(v))
		}
	}
	if walk {
		view := p.view(cs)
		for _, nid := range p.h.Nodes() {
			n := &cl.Nodes[nid]
			if p.requireAll && !hasKeysC(n, constraints) {
				continue
			}
			for i := range p.soft {
				st := &p.soft[i]
				if st.kept || st.host || !p.eligibleID(cs, view, st.c, nid, n) {
					continue
				}
				v, _ := n.Labels.Get(st.c.TopologyKey)
				if j, candidate := st.find(v); candidate {
					st.counts[j] += st.counter.On(nid)
				}
			}
		}
	}
	p.scoreIndex = 0
	return false
}

func (p *podTopologySpread) Score(_ *CycleState, id cluster.NodeID, _ *cluster.Node) int64 {
	i := p.scoreIndex
	p.scoreIndex++
	if p.ignored[i] {
		return 0
	}
	var score float64
	for j := range p.soft {
		st := &p.soft[j]
		slot := p.slots[j*p.nFeasible+i]
		if slot == slotMissing {
			continue
		}
		var cnt int32
		if slot == slotHost {
			cnt = st.counter.On(id)
		} else {
			cnt = st.counts[slot]
		}
		score += float64(cnt)*st.weight + float64(st.c.MaxSkew-1)
	}
	return int64(math.Round(score))
}

// scoreAll is Score over the feasible nodes, a constraint at a time: each
// node's terms are still added in constraint order, so the float sums are
// Score's.
func (p *podTopologySpread) scoreAll(_ *CycleState, _ []cluster.Node, feasible []cluster.NodeID, out []int64) {
	nf := len(feasible)
	first := p.scoreIndex
	p.scoreIndex += nf
	acc := resize(p.acc, nf)
	p.acc = acc
	for j := range p.soft {
		st := &p.soft[j]
		w, skew := st.weight, float64(st.c.MaxSkew-1)
		slots := p.slots[j*p.nFeasible+first : j*p.nFeasible+first+nf]
		if st.host {
			for i, slot := range slots {
				if slot != slotMissing {
					acc[i] += float64(st.counter.On(feasible[i]))*w + skew
				}
			}
			continue
		}
		counts := st.counts
		for i, slot := range slots {
			if slot != slotMissing {
				acc[i] += float64(counts[slot])*w + skew
			}
		}
	}
	for i, a := range acc {
		if p.ignored[first+i] {
			out[i] = 0
			continue
		}
		out[i] = int64(math.Round(a))
	}
}

// resize returns s with length n, zeroed, reusing its array.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, 2*n)
	}
	s = s[:n]
	clear(s)
	return s
}

// NormalizeScore gives the fewest matching pods the top score (k8s
// podtopologyspread NormalizeScore): MaxNodeScore x (max + min - s) / max.
func (p *podTopologySpread) NormalizeScore(_ *CycleState, scores []int64) {
	minS, maxS := int64(math.MaxInt64), int64(0)
	for i, s := range scores {
		if p.ignored[i] {
			continue
		}
		minS = min(minS, s)
		maxS = max(maxS, s)
	}
	// Scores take few values: with a small range, each value is divided
	// once (memo by s - minS; -1 not yet).
	var memo []int64
	if maxS > 0 && maxS-minS < 1024 {
		memo = p.normMemo[:0]
		for range maxS - minS + 1 {
			memo = append(memo, -1)
		}
		p.normMemo = memo
	}
	for i, s := range scores {
		switch {
		case p.ignored[i]:
			scores[i] = 0
		case maxS == 0:
			scores[i] = MaxNodeScore
		case memo != nil:
			m := &memo[s-minS]
			if *m < 0 {
				*m = MaxNodeScore * (maxS + minS - s) / maxS
			}
			scores[i] = *m
		default:
			scores[i] = MaxNodeScore * (maxS + minS - s) / maxS
		}
	}
}
