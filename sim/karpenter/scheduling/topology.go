package scheduling

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Topology as Karpenter's scheduler tracks it (KC
// pkg/controllers/provisioning/scheduling/topology.go, topologygroup.go):
// a group counts, per domain of its key, the pods its selector matches;
// spread, affinity and anti-affinity turn the counts into the domains a pod
// may use on a node. Inverse groups come from pods with required
// anti-affinity: they keep pods their terms select out of the owners'
// domains. Only a pod's own constraints count, not the scheduler's system
// default spreading.

type tkind uint8

const (
	tSpread tkind = iota
	tAffinity
	tAnti
)

// tgroupKey identifies a group by content, so that every pod with the
// same constraint shares one (KC TopologyGroup.Hash).
type tgroupKey struct {
	kind       tkind
	key        cluster.Sym
	sel        string // canonical selector
	ns         string // namespace scope
	maxSkew    int32
	minDomains int32
	filter     string // canonical node filter of a spread constraint
}

// selectorKey renders a label selector canonically.
func selectorKey(s *cluster.LabelSelector) string {
	if s.Nothing {
		return "nothing"
	}
	b := make([]byte, 0, 16*len(s.Reqs))
	for i := range s.Reqs {
		b = appendReqKey(b, &s.Reqs[i])
	}
	return string(b)
}

func appendReqKey(b []byte, r *cluster.Requirement) []byte {
	b = strconv.AppendInt(b, int64(r.Key), 36)
	b = append(b, ':', byte('0'+r.Op), ':')
	for _, v := range r.Values {
		b = strconv.AppendInt(b, int64(v), 36)
		b = append(b, ',')
	}
	b = strconv.AppendInt(b, r.Num, 36)
	if r.Field {
		b = append(b, 'F')
	}
	return append(b, ';')
}

// nsKey renders the namespace scope of a term.
func nsKey(own cluster.Sym, namespaces []cluster.Sym, nsSel *cluster.LabelSelector) string {
	b := strconv.AppendInt(nil, int64(own), 36)
	b = append(b, '|')
	for _, n := range namespaces {
		b = strconv.AppendInt(b, int64(n), 36)
		b = append(b, ',')
	}
	if nsSel != nil {
		b = append(b, '|')
		b = append(b, selectorKey(nsSel)...)
	}
	return string(b)
}

// filterKey renders what a spread constraint's node filter depends on.
func filterKey(spec *cluster.PodSpec, c *cluster.SpreadConstraint) string {
	var b []byte
	if c.HonorNodeAffinity {
		b = append(b, 'A')
		for i := range spec.NodeSelector {
			b = appendReqKey(b, &spec.NodeSelector[i])
		}
		if spec.Affinity != nil {
			for i := range spec.Affinity.Terms {
				b = append(b, '|')
				for j := range spec.Affinity.Terms[i].Reqs {
					b = appendReqKey(b, &spec.Affinity.Terms[i].Reqs[j])
				}
			}
		}
	}
	if c.HonorTaints {
		b = append(b, 'T')
		for _, t := range spec.Tolerations {
			b = fmt.Appendf(b, "%d/%d/%d/%d;", t.Key, t.Value, t.Op, t.Effect)
		}
	}
	return string(b)
}

type tgroup struct {
	idx  int // position in topology.groups (-1 for inverse groups)
	kind tkind
	// Key is the group's topology key.
	Key        cluster.Sym
	hostname   bool
	sel        *cluster.LabelSelector
	ns         cluster.Sym            // the owner's namespace (default scope)
	namespaces []cluster.Sym          // explicit namespaces of an affinity term
	nsSel      *cluster.LabelSelector // namespace selector of an affinity term
	maxSkew    int32
	minDomains int32

	// Node filter of a spread constraint (nodeAffinityPolicy,
	// nodeTaintsPolicy): the owner's spec and its required terms as
	// requirement sets (ORed; empty: everything matches).
	filterSpec    *cluster.PodSpec
	filterTerms   []Requirements
	honorAffinity bool
	honorTaints   bool

	counts  map[cluster.Sym]int32
	domains []cluster.Sym // registered domains, in registration order
	nEmpty  int
}

// topology is the per-solve topology state.
type topology struct {
	k      *Solvers // the solvers part of the solve
	groups []*tgroup
	byKey  map[tgroupKey]*tgroup
	// Inverse are the inverse anti-affinity groups (of the pods already
	// placed).
	Inverse []*tgroup
	invKey  map[tgroupKey]*tgroup
	// universe holds, per key, the domains the NodePools could create
	// (KC buildDomainGroups).
	universe map[cluster.Sym][]cluster.Sym
	// s is the solve, whose existing nodes are the base minus those it
	// excludes.
	s *Solver
}

func (g *tgroup) register(d cluster.Sym) {
	if _, ok := g.counts[d]; ok {
		return
	}
	g.counts[d] = 0
	g.domains = append(g.domains, d)
	g.nEmpty++
}

func (g *tgroup) record(d cluster.Sym) {
	c, ok := g.counts[d]
	if !ok {
		g.domains = append(g.domains, d)
	} else if c == 0 {
		g.nEmpty--
	}
	g.counts[d] = c + 1
}

func (t *topology) nsMatches(g *tgroup, ns cluster.Sym) bool {
	switch {
	case g.nsSel != nil:
		if len(g.nsSel.Reqs) == 0 && !g.nsSel.Nothing {
			return true // an empty namespace selector selects every namespace
		}
		for _, n := range g.namespaces {
			if n == ns {
				return true
			}
		}
		return g.nsSel.Matches(t.k.cl.Syms, t.k.NamespaceLabels[ns])
	case len(g.namespaces) > 0:
		for _, n := range g.namespaces {
			if n == ns {
				return true
			}
		}
		return false
	}
	return g.ns == ns
}

// selects reports whether the group counts pods like this one.
func (t *topology) selects(g *tgroup, ns cluster.Sym, labels cluster.Labels) bool {
	return t.nsMatches(g, ns) && g.sel.Matches(t.k.cl.Syms, labels)
}

// filterExisting applies a spread group's node filter to an existing node.
func (t *topology) filterExisting(g *tgroup, n *cluster.Node) bool {
	if g.kind != tSpread {
		return true
	}
	if g.honorAffinity && g.filterSpec != nil && !cluster.MatchesNodeSelectors(t.k.cl.Syms, g.filterSpec, n) {
		return false
	}
	if g.honorTaints && g.filterSpec != nil {
		if _, bad := g.filterSpec.Tolerations.FirstUntolerated(n.Taints); bad {
			return false
		}
	}
	return true
}

// filterClaim applies a spread group's node filter to a NodeClaim.
func (t *topology) filterClaim(g *tgroup, reqs Requirements, taints []cluster.Taint) bool {
	if g.kind != tSpread {
		return true
	}
	if g.honorAffinity && len(g.filterTerms) > 0 {
		ok := false
		for _, term := range g.filterTerms {
			if RequirementsCompatible(t.k.cl.Syms, reqs, term, t.k.wellKnown) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if g.honorTaints && g.filterSpec != nil && !tolerates(g.filterSpec.Tolerations, taints, false) {
		return false
	}
	return true
}

// newGroup builds (or finds) a group and counts the existing pods.
func (t *topology) group(gk tgroupKey, mk func() *tgroup, inverse bool) *tgroup {
	if t.byKey == nil {
		t.byKey, t.invKey = map[tgroupKey]*tgroup{}, map[tgroupKey]*tgroup{}
	}
	m := t.byKey
	if inverse {
		m = t.invKey
	}
	if g, ok := m[gk]; ok {
		return g
	}
	g := mk()
	g.counts = map[cluster.Sym]int32{}
	g.hostname = g.Key == t.k.cl.KeyHostname
	m[gk] = g
	g.idx = -1
	if inverse {
		t.Inverse = append(t.Inverse, g)
		for _, d := range t.universe[g.Key] {
			g.register(d)
		}
		return g
	}
	g.idx = len(t.groups)
	t.groups = append(t.groups, g)
	t.countDomains(g)
	return g
}

// countDomains registers the domains the pools can create and those of
// existing nodes that pass the filter, and counts the selected pods on
// them (KC Topology.countDomains).
func (t *topology) countDomains(g *tgroup) {
	for _, d := range t.universe[g.Key] {
		g.register(d)
	}
	cl := t.k.cl
	for i := range t.s.Base {
		if t.s.excludedPos(i) {
			continue
		}
		n := t.s.Base[i].node
		if !t.filterExisting(g, n) {
			continue
		}
		d, ok := domainOf(cl, n, g.Key)
		if !ok {
			continue
		}
		g.register(d)
	}
	// Pods on every live node count, including nodes being deleted (their
	// pods still run) but not the pods this solve moves.
	for i := range cl.Nodes {
		n := &cl.Nodes[i]
		if n.State == cluster.NodeGone || len(n.Pods) == 0 {
			continue
		}
		d, ok := domainOf(cl, n, g.Key)
		if !ok || !t.filterExisting(g, n) {
			continue
		}
		for _, pid := range n.Pods {
			p := &cl.Pods[pid]
			if p.Terminating || t.s.moves(pid) { // moved pods count where they land
				continue
			}
			if t.selects(g, p.Namespace, p.Spec.Labels) {
				g.record(d)
			}
		}
	}
}

func domainOf(cl *cluster.Cluster, n *cluster.Node, key cluster.Sym) (cluster.Sym, bool) {
	if key == cl.KeyHostname {
		if v, ok := n.Labels.Get(key); ok {
			return v, true
		}
		return n.NameSym, true
	}
	return n.Labels.Get(key)
}

// addSpecGroups creates the groups a pod owns in a relaxation state and
// returns them.
func (t *topology) addSpecGroups(pd *PodData) []*tgroup {
	spec := pd.spec
	var out []*tgroup
	ignore := t.k.settings.PreferencePolicy != 0
	dropped := 0
	for i := range spec.Spread {
		c := &spec.Spread[i]
		if !c.Hard {
			if ignore {
				continue
			}
			if dropped < int(pd.Relaxation.droppedSpread) {
				dropped++
				continue
			}
		}
		gk := tgroupKey{kind: tSpread, key: c.TopologyKey, sel: selectorKey(&c.Selector), ns: nsKey(pd.namespace, nil, nil), maxSkew: c.MaxSkew, minDomains: c.MinDomains, filter: filterKey(spec, c)}
		out = append(out, t.group(gk, func() *tgroup {
			g := &tgroup{kind: tSpread, Key: c.TopologyKey, sel: &c.Selector, ns: pd.namespace, maxSkew: c.MaxSkew, minDomains: c.MinDomains,
				filterSpec: spec, honorAffinity: c.HonorNodeAffinity, honorTaints: c.HonorTaints}
			g.filterTerms = t.k.filterTerms(spec)
			return g
		}, false))
	}
	affinity := func(kind tkind, terms []affTerm) {
		for _, term := range terms {
			a := term.t
			gk := tgroupKey{kind: kind, key: a.TopologyKey, sel: selectorKey(&a.Selector), ns: nsKey(pd.namespace, a.Namespaces, a.NamespaceSelector), maxSkew: math.MaxInt32}
			out = append(out, t.group(gk, func() *tgroup {
				return &tgroup{kind: kind, Key: a.TopologyKey, sel: &a.Selector, ns: pd.namespace, namespaces: a.Namespaces, nsSel: a.NamespaceSelector, maxSkew: math.MaxInt32}
			}, false))
		}
	}
	affinity(tAffinity, pd.affinityTerms)
	affinity(tAnti, pd.antiAffinityTerms)
	return out
}

// addInverse registers the required anti-affinity terms of a pod as
// inverse groups and returns them.
func (t *topology) addInverse(spec *cluster.PodSpec, ns cluster.Sym) []*tgroup {
	var out []*tgroup
	for i := range spec.PodAntiAffinity {
		a := &spec.PodAntiAffinity[i]
		gk := tgroupKey{kind: tAnti, key: a.TopologyKey, sel: selectorKey(&a.Selector), ns: nsKey(ns, a.Namespaces, a.NamespaceSelector), maxSkew: math.MaxInt32}
		out = append(out, t.group(gk, func() *tgroup {
			return &tgroup{kind: tAnti, Key: a.TopologyKey, sel: &a.Selector, ns: ns, namespaces: a.Namespaces, nsSel: a.NamespaceSelector, maxSkew: math.MaxInt32}
		}, true))
	}
	return out
}

// Domains of a node: an existing node has one value per key; a NodeClaim
// has its requirement.
type nodeView struct {
	node   *cluster.Node // existing node, or nil
	reqs   Requirements  // NodeClaim requirements
	taints []cluster.Taint
	// claim is the NodeClaim the pod is tried on (nil for existing nodes
	// and when only recording); launch caches the offering bits it could
	// launch with the pod (launchBits), set once computed.
	claim  *Claim
	launch uint64
	lset   bool
}

func (t *topology) nodeDomains(v *nodeView, key cluster.Sym) Requirement {
	if v.node != nil {
		if d, ok := domainOf(t.k.cl, v.node, key); ok {
			return RequirementIn(key, d)
		}
		return Requirement{Key: key} // DoesNotExist
	}
	if r := v.reqs.Get(key); r != nil {
		return *r
	}
	return exists(key)
}

func (t *topology) filter(g *tgroup, v *nodeView) bool {
	if v.node != nil {
		return t.filterExisting(g, v.node)
	}
	return t.filterClaim(g, v.reqs, v.taints)
}

// addRequirements returns the domain requirements the pod's topology puts
// on a node (KC Topology.AddRequirements); ok is false when a constraint
// cannot be met there.
func (t *topology) addRequirements(pd *PodData, v *nodeView) (out []Requirement, ok bool) {
	check := func(g *tgroup) bool {
		podDom := exists(g.Key)
		if r := pd.strictRequirements.Get(g.Key); r != nil {
			podDom = *r
		}
		nodeDom := t.nodeDomains(v, g.Key)
		d, ok := t.next(g, pd, &podDom, &nodeDom, v)
		if !ok {
			return false
		}
		out = append(out, d)
		return true
	}
	for _, g := range pd.groups {
		if !check(g) {
			return nil, false
		}
	}
	for _, g := range pd.inverseSel {
		if !t.filter(g, v) {
			continue
		}
		if !check(g) {
			return nil, false
		}
	}
	return out, true
}

// next computes the domains allowed by one group.
func (t *topology) next(g *tgroup, pd *PodData, podDom, nodeDom *Requirement, v *nodeView) (Requirement, bool) {
	switch g.kind {
	case tSpread:
		return t.nextSpread(g, pd, podDom, nodeDom, v)
	case tAffinity:
		return t.nextAffinity(g, pd, podDom, nodeDom, v)
	}
	return t.nextAnti(g, podDom, nodeDom)
}

func singleHost(r *Requirement) (cluster.Sym, bool) {
	if !r.Complement && len(r.Values) == 1 {
		return r.Values[0], true
	}
	return cluster.NoSym, false
}

// selectsPod is selects for a pod's data, cached per group.
func (t *topology) selectsPod(g *tgroup, pd *PodData) bool {
	if g.idx < 0 {
		return t.selects(g, pd.namespace, pd.spec.Labels)
	}
	for len(pd.sel) <= g.idx {
		pd.sel = append(pd.sel, 0)
	}
	switch pd.sel[g.idx] {
	case 1:
		return true
	case 2:
		return false
	}
	ok := t.selects(g, pd.namespace, pd.spec.Labels)
	pd.sel[g.idx] = 2
	if ok {
		pd.sel[g.idx] = 1
	}
	return ok
}

func (t *topology) nextSpread(g *tgroup, pd *PodData, podDom, nodeDom *Requirement, v *nodeView) (Requirement, bool) {
	syms := t.k.cl.Syms
	self := t.selectsPod(g, pd)
	if g.hostname {
		if h, ok := singleHost(nodeDom); ok {
			// Karpenter can always create a new hostname: the global
			// minimum is zero.
			c := g.counts[h]
			if self {
				c++
			}
			if c <= g.maxSkew {
				return RequirementIn(g.Key, h), true
			}
			return Requirement{}, false
		}
	}
	minCount := g.minCount(syms, podDom)
	best, bestCount := cluster.NoSym, int32(math.MaxInt32)
	bestLaunch := -1 // unknown
	consider := func(d cluster.Sym, c int32) {
		if self {
			c++
		}
		switch {
		case c-minCount > g.maxSkew:
		case c < bestCount:
			best, bestCount, bestLaunch = d, c, -1
		case c == bestCount && v.claim != nil:
			if bestLaunch < 0 {
				bestLaunch = boolToInt(t.launchable(v, pd, g.Key, best))
			}
			if bestLaunch == 0 && t.launchable(v, pd, g.Key, d) {
				best, bestLaunch = d, 1
			}
		}
	}
	// Domains in registration order (zones in the scenario's order, then
	// existing nodes by name): ties go to the first in which the NodeClaim
	// could launch, else the first, independent of how symbols were
	// numbered. KC picks among ties in map order, afresh for every
	// NodeClaim it tries and every pass of its queue, so it nearly always
	// ends up in a domain where it can launch.
	for _, d := range g.domains {
		if nodeDom.has(syms, d) {
			consider(d, g.counts[d])
		}
	}
	if bestCount == math.MaxInt32 {
		return Requirement{}, false
	}
	return RequirementIn(g.Key, best), true
}

func (g *tgroup) minCount(syms *cluster.Symbols, podDom *Requirement) int32 {
	if g.hostname {
		return 0
	}
	minC, n := int32(math.MaxInt32), int32(0)
	for _, d := range g.domains {
		if podDom.has(syms, d) {
			n++
			minC = min(minC, g.counts[d])
		}
	}
	if g.minDomains > 0 && n < g.minDomains {
		return 0
	}
	if minC == math.MaxInt32 {
		return 0
	}
	return minC
}

func (t *topology) anyCompatible(g *tgroup, podDom *Requirement) bool {
	syms := t.k.cl.Syms
	for _, d := range g.domains {
		if g.counts[d] > 0 && podDom.has(syms, d) {
			return true
		}
	}
	return false
}

func (t *topology) nextAffinity(g *tgroup, pd *PodData, podDom, nodeDom *Requirement, v *nodeView) (Requirement, bool) {
	syms := t.k.cl.Syms
	self := t.selectsPod(g, pd)
	bootstrap := func() bool {
		return self && (g.nEmpty == len(g.domains) || !t.anyCompatible(g, podDom))
	}
	if g.hostname {
		if h, ok := singleHost(nodeDom); ok {
			if !podDom.has(syms, h) {
				return Requirement{}, false
			}
			if g.counts[h] > 0 || bootstrap() {
				return RequirementIn(g.Key, h), true
			}
			return Requirement{}, false
		}
	}
	var opts []cluster.Sym
	if nodeDom.Operator() == OperatorIn {
		for _, d := range nodeDom.Values {
			if c, ok := g.counts[d]; ok && c > 0 && podDom.has(syms, d) {
				opts = append(opts, d)
			}
		}
	} else {
		for _, d := range g.domains {
			if g.counts[d] > 0 && podDom.has(syms, d) && nodeDom.has(syms, d) {
				opts = append(opts, d)
			}
		}
	}
	if len(opts) > 0 {
		return Requirement{Key: g.Key, Values: sortedSyms(opts)}, true
	}
	if bootstrap() {
		// Pick a domain to start in: one the node already allows if
		// possible (so an in-flight NodeClaim keeps its domain), then any
		// the pod allows (KC nextDomainAffinity). KC picks each in map
		// order; ours is the first in registration order in which the
		// NodeClaim could launch, else the first (as nextSpread).
		if d, ok := t.firstDomain(g, v, pd, func(d cluster.Sym) bool { return podDom.has(syms, d) && nodeDom.has(syms, d) }); ok {
			opts = append(opts, d)
		}
		if d, ok := t.firstDomain(g, v, pd, func(d cluster.Sym) bool { return podDom.has(syms, d) }); ok {
			if len(opts) == 0 || opts[0] != d {
				opts = append(opts, d)
			}
		}
	}
	if len(opts) == 0 {
		return Requirement{}, false
	}
	return Requirement{Key: g.Key, Values: sortedSyms(opts)}, true
}

func (t *topology) nextAnti(g *tgroup, podDom, nodeDom *Requirement) (Requirement, bool) {
	syms := t.k.cl.Syms
	if g.hostname {
		if h, ok := singleHost(nodeDom); ok {
			if g.counts[h] == 0 {
				return RequirementIn(g.Key, h), true
			}
			return Requirement{}, false
		}
	}
	var opts []cluster.Sym
	if nodeDom.Operator() == OperatorIn && len(nodeDom.Values) < g.nEmpty {
		for _, d := range nodeDom.Values {
			if c, ok := g.counts[d]; ok && c == 0 && podDom.has(syms, d) {
				opts = append(opts, d)
			}
		}
	} else {
		for _, d := range g.domains {
			if g.counts[d] == 0 && nodeDom.has(syms, d) && podDom.has(syms, d) {
				opts = append(opts, d)
			}
		}
	}
	if len(opts) == 0 {
		return Requirement{}, false
	}
	return Requirement{Key: g.Key, Values: sortedSyms(opts)}, true
}

// record counts a placed pod in every group that selects it (KC
// Topology.Record): spread and affinity only when the node's domain is
// known, anti-affinity in every domain the node could still be in.
func (t *topology) record(pd *PodData, v *nodeView) {
	for _, g := range t.groups {
		if !t.selectsPod(g, pd) || !t.filter(g, v) {
			continue
		}
		d := t.nodeDomains(v, g.Key)
		if g.kind == tAnti {
			if !d.Complement {
				for _, x := range d.Values {
					g.record(x)
				}
			}
		} else if !d.Complement && len(d.Values) == 1 {
			g.record(d.Values[0])
		}
	}
	for _, g := range pd.inverseOwn {
		d := t.nodeDomains(v, g.Key)
		if !d.Complement {
			for _, x := range d.Values {
				g.record(x)
			}
		}
	}
}

// registerHost makes a new NodeClaim's hostname a domain of hostname
// groups.
func (t *topology) registerHost(h cluster.Sym) {
	key := t.k.cl.KeyHostname
	for _, g := range t.groups {
		if g.Key == key {
			g.register(h)
		}
	}
	for _, g := range t.Inverse {
		if g.Key == key {
			g.register(h)
		}
	}
}

// firstDomain returns the first of g's domains that ok accepts, preferring
// one in which the NodeClaim of v could launch.
func (t *topology) firstDomain(g *tgroup, v *nodeView, pd *PodData, ok func(cluster.Sym) bool) (cluster.Sym, bool) {
	first, found := cluster.NoSym, false
	for _, d := range g.domains {
		if !ok(d) {
			continue
		}
		if v.claim == nil || t.launchable(v, pd, g.Key, d) {
			return d, true
		}
		if !found {
			first, found = d, true
		}
	}
	return first, found
}

// launchable reports whether the NodeClaim of v could launch in domain d
// of key with the pod: some instance type it keeps that fits the pod and
// meets the requirements has an available offering there. Keys other
// than zone and capacity type are always launchable.
func (t *topology) launchable(v *nodeView, pd *PodData, key, d cluster.Sym) bool {
	k := t.k
	var bits uint64
	switch key {
	case k.cl.KeyZone:
		for z, zs := range k.offerings.zoneSyms {
			if zs == d {
				bits = (1<<NumCapacityTypes - 1) << uint(z*NumCapacityTypes)
			}
		}
	case k.cl.KeyCapacityType:
		for ct, cs := range k.offerings.CapacityTypeSyms {
			if cs == d {
				bits = k.offerings.CapacityTypeBits(ct)
			}
		}
	default:
		return true
	}
	if !v.lset {
		v.launch, v.lset = t.s.launchBits(v.claim, pd, v.reqs), true
	}
	return v.launch&bits != 0
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sortedSyms sorts s in place and returns it.
func sortedSyms(s []cluster.Sym) []cluster.Sym {
	slices.Sort(s)
	return s
}
