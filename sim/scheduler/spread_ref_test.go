package scheduler

// The PodTopologySpread plugin as it was before the per-spec preparation
// and the domain slots (commit bff12eb), with the kept domain sums off so
// that it always counts by walking every node: the reference the plugin's
// scores and filter verdicts are checked against
// (TestSpreadMatchesReference).

import (
	"math"

	"github.com/clustersim/clustersim/sim/cluster"
)

// refSpread enforces whenUnsatisfiable: DoNotSchedule constraints
// and scores ScheduleAnyway ones (and the default constraints for pods with
// none of their own), following k8s podtopologyspread filtering.go and
// scoring.go: counts per domain over the nodes that pass the node inclusion
// policies and carry every topology key; skew = count in the node's domain
// + 1 if the pod matches its own selector - the global minimum (0 when
// fewer domains than minDomains).
type refSpread struct {
	h          Handle
	syms       *cluster.Symbols
	hostname   cluster.Sym
	zone       cluster.Sym
	defaulting string
	defaults   []cluster.SpreadConstraint
	missing    Reason
	skewed     Reason

	// Filter state of the current cycle.
	hard []refSpreadState
	// Score state of the current cycle.
	soft       []refSpreadState
	requireAll bool
	ignored    []bool // per feasible node, in order
	scoreIndex int
	softCache  map[*cluster.PodSpec]refSoftConstraints
}

type refSpreadState struct {
	c       *cluster.SpreadConstraint
	counter *Counter
	domains map[cluster.Sym]int32
	min     int32
	self    int32
	weight  float64
	// kept: domains were filled from a kept domain sum.
	kept bool
}

func newRefSpread(h Handle, args PluginArgs) (Plugin, error) {
	syms := h.Cluster().Syms
	p := &refSpread{
		h:          h,
		syms:       syms,
		hostname:   h.Cluster().KeyHostname,
		zone:       h.Cluster().KeyZone,
		defaulting: args.SpreadDefaulting,
		defaults:   args.DefaultConstraints,
		missing:    h.Reason("node(s) didn't match pod topology spread constraints (missing required label)", Unresolvable),
		skewed:     h.Reason("node(s) didn't match pod topology spread constraints", Resolvable),
		softCache:  map[*cluster.PodSpec]refSoftConstraints{},
	}
	if p.defaulting == "" {
		p.defaulting = SpreadDefaultingSystem
	}
	return p, nil
}

func (p *refSpread) Name() string { return NamePodTopologySpread }
func (p *refSpread) Events() Event {
	return EvNodeAdd | EvNodeUpdate | EvNodeRemove | EvPodAssigned | EvPodUnassigned
}

func (p *refSpread) counter(c *cluster.SpreadConstraint, ns cluster.Sym) *Counter {
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

// eligibleID is eligible through the scheduler's cache when it has one
// (view, nil without).
func (p *refSpread) eligibleID(cs *CycleState, view *specStatic, c *cluster.SpreadConstraint, nid cluster.NodeID, n *cluster.Node) bool {
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
func (p *refSpread) view(cs *CycleState) *specStatic {
	if si, ok := p.h.(staticNodeInfo); ok {
		return si.staticView(cs.Spec)
	}
	return nil
}

// eligible applies the node inclusion policies of one constraint.
func (p *refSpread) eligible(cs *CycleState, c *cluster.SpreadConstraint, n *cluster.Node) bool {
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

func refHasKeys(n *cluster.Node, states []refSpreadState) bool {
	for i := range states {
		if !n.Labels.Has(states[i].c.TopologyKey) {
			return false
		}
	}
	return true
}

func (p *refSpread) PreFilter(cs *CycleState) bool {
	p.hard = p.hard[:0]
	for i := range cs.Spec.Spread {
		c := &cs.Spec.Spread[i]
		if c.Hard {
			p.hard = p.appendState(p.hard, cs, c)
		}
	}
	if len(p.hard) == 0 {
		return true
	}
	cl := p.h.Cluster()
	view := p.view(cs)
	for _, nid := range p.h.Nodes() {
		n := &cl.Nodes[nid]
		if !refHasKeys(n, p.hard) {
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

// appendState appends a constraint's state for this cycle, reusing the
// domains map of the slot it overwrites (one map per constraint per cycle
// was most of the plugin's allocation).
func (p *refSpread) appendState(list []refSpreadState, cs *CycleState, c *cluster.SpreadConstraint) []refSpreadState {
	var domains map[cluster.Sym]int32
	if n := len(list); n < cap(list) {
		domains = list[:n+1][n].domains
	}
	if domains == nil {
		domains = map[cluster.Sym]int32{}
	} else {
		clear(domains)
	}
	st := refSpreadState{c: c, counter: p.counter(c, cs.Namespace), domains: domains}
	if c.Selector.Matches(p.syms, cs.Spec.Labels) {
		st.self = 1
	}
	return append(list, st)
}

func (p *refSpread) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
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

// refSoftConstraints are the pod's ScheduleAnyway constraints, or the default
// ones when the pod has no constraints at all. They are computed once per
// spec, so their selectors keep their addresses (and counters) across
// cycles.
func (p *refSpread) refSoftConstraints(spec *cluster.PodSpec) (cs []cluster.SpreadConstraint, systemDefaulted bool) {
	if cached, ok := p.softCache[spec]; ok {
		return cached.cs, cached.system
	}
	cs, systemDefaulted = p.computeSoft(spec)
	p.softCache[spec] = refSoftConstraints{cs, systemDefaulted}
	return cs, systemDefaulted
}

type refSoftConstraints struct {
	cs     []cluster.SpreadConstraint
	system bool
}

func (p *refSpread) computeSoft(spec *cluster.PodSpec) (cs []cluster.SpreadConstraint, systemDefaulted bool) {
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

func refHasKeysC(n *cluster.Node, cs []cluster.SpreadConstraint) bool {
	for i := range cs {
		if !n.Labels.Has(cs[i].TopologyKey) {
			return false
		}
	}
	return true
}

// domainSum keeps no sums: the reference always walks the nodes.
func (p *refSpread) domainSum(*CycleState, []cluster.SpreadConstraint, int, *refSpreadState) *domainSum {
	return nil
}

func (p *refSpread) PreScore(cs *CycleState, feasible []cluster.NodeID) bool {
	constraints, systemDefaulted := p.refSoftConstraints(cs.Spec)
	if len(constraints) == 0 {
		return true
	}
	p.soft = p.soft[:0]
	for i := range constraints {
		p.soft = p.appendState(p.soft, cs, &constraints[i])
	}
	// Nodes without every topology key are not scored, except under the
	// system defaults, so that nodes without a zone still spread by host.
	p.requireAll = len(cs.Spec.Spread) > 0 || !systemDefaulted
	cl := p.h.Cluster()
	p.ignored = p.ignored[:0]
	scored := 0
	for _, nid := range feasible {
		n := &cl.Nodes[nid]
		ign := p.requireAll && !refHasKeys(n, p.soft)
		p.ignored = append(p.ignored, ign)
		if ign {
			continue
		}
		scored++
		for i := range p.soft {
			st := &p.soft[i]
			if st.c.TopologyKey == p.hostname {
				continue
			}
			if v, ok := n.Labels.Get(st.c.TopologyKey); ok {
				if _, seen := st.domains[v]; !seen {
					st.domains[v] = 0
				}
			}
		}
	}
	for i := range p.soft {
		st := &p.soft[i]
		size := len(st.domains)
		if st.c.TopologyKey == p.hostname {
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
		if st.c.TopologyKey == p.hostname || len(st.domains) == 0 {
			continue
		}
		ds := p.domainSum(cs, constraints, i, st)
		if ds == nil {
			walk = true
			continue
		}
		st.kept = true
		for v := range st.domains {
			st.domains[v] = int32(ds.sum(v))
		}
	}
	if walk {
		view := p.view(cs)
		for _, nid := range p.h.Nodes() {
			n := &cl.Nodes[nid]
			if p.requireAll && !refHasKeys(n, p.soft) {
				continue
			}
			for i := range p.soft {
				st := &p.soft[i]
				if st.kept || st.c.TopologyKey == p.hostname || !p.eligibleID(cs, view, st.c, nid, n) {
					continue
				}
				v, _ := n.Labels.Get(st.c.TopologyKey)
				if _, candidate := st.domains[v]; candidate {
					st.domains[v] += st.counter.On(nid)
				}
			}
		}
	}
	p.scoreIndex = 0
	return false
}

func (p *refSpread) Score(cs *CycleState, id cluster.NodeID, n *cluster.Node) int64 {
	i := p.scoreIndex
	p.scoreIndex++
	if p.ignored[i] {
		return 0
	}
	var score float64
	for k := range p.soft {
		st := &p.soft[k]
		v, ok := n.Labels.Get(st.c.TopologyKey)
		if !ok {
			continue
		}
		var cnt int32
		if st.c.TopologyKey == p.hostname {
			cnt = st.counter.On(id)
		} else {
			cnt = st.domains[v]
		}
		score += float64(cnt)*st.weight + float64(st.c.MaxSkew-1)
	}
	return int64(math.Round(score))
}

// NormalizeScore gives the fewest matching pods the top score (k8s
// podtopologyspread NormalizeScore): MaxNodeScore x (max + min - s) / max.
func (p *refSpread) NormalizeScore(_ *CycleState, scores []int64) {
	minS, maxS := int64(math.MaxInt64), int64(0)
	for i, s := range scores {
		if p.ignored[i] {
			continue
		}
		minS = min(minS, s)
		maxS = max(maxS, s)
	}
	for i, s := range scores {
		switch {
		case p.ignored[i]:
			scores[i] = 0
		case maxS == 0:
			scores[i] = MaxNodeScore
		default:
			scores[i] = MaxNodeScore * (maxS + minS - s) / maxS
		}
	}
}
