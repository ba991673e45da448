package clusterautoscaler

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// podGroup is an equivalence group of pending pods: same compiled spec (so
// the same template) and namespace. The estimator treats its pods as
// identical, as upstream's PodEquivalenceGroup does.
type podGroup struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
	pods []cluster.PodID
	// podLevel: the spec has required pod (anti-)affinity or hard spread
	// constraints; hostOnly: all of them are keyed on the hostname, so
	// the simulation can check them per node.
	podLevel, hostOnly bool
	// domainSpread: the spec has a hard spread constraint on a key other
	// than the hostname; spreads are those constraints and feeds the
	// spreads (of any group) its pods count toward, set up by
	// prepareSpreads for the loop.
	domainSpread bool
	// spreadOnly: domain spreads are its only pod-level constraints not
	// keyed on the hostname, so existing nodes can be checked too.
	spreadOnly bool
	spreads    []*domainSpread
	feeds      []*domainSpread
	// hostSpread is its hard spread constraint on the hostname when it
	// has exactly one, and hostLow the fewest pods that constraint
	// matches on a node it counts, set by prepareHostSpreads: 0 when such
	// a node has none (the estimator then allows maxSkew pods per
	// simulated node), MaxInt32 when no node counts.
	hostSpread *cluster.SpreadConstraint
	hostLow    int32
	// oldest is the earliest creation time of its pods.
	oldest engine.Time
	gpu    bool
	// fake: the pods are a CapacityBuffer's fake pods (buffers.go).
	fake bool
}

// placedPod is a pod on a (real or simulated) node, as the pod-level
// checks see it.
type placedPod struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
}

// simNode is a node the estimator adds from a template.
type simNode struct {
	free   cluster.Resources
	npods  int32
	placed []placedPod // kept only for groups with pod-level constraints
}

// estimate is the result of one binpacking estimation: how many template
// nodes the pods need and which pods go on which node.
type estimate struct {
	nodes  int
	pods   []cluster.PodID
	nodeOf []int32
	// cpu and mem are the scheduled pods' requests (millicores, bytes).
	cpu, mem int64
}

func (e *estimate) reset() {
	e.nodes = 0
	e.pods = e.pods[:0]
	e.nodeOf = e.nodeOf[:0]
	e.cpu, e.mem = 0, 0
}

// estimator is the binpacking estimator (cluster-autoscaler/estimator/
// binpacking_estimator.go): first-fit decreasing over equivalence groups
// sorted by cpu/allocatable + memory/allocatable of the template, largest
// first. For each group it first fills the nodes already added, then adds
// nodes one at a time, trying only the last added node; it stops a group
// when a pod does not fit an empty new node and stops adding nodes at the
// limit. Its buffers are reused across calls: it allocates nothing in
// steady state.
type estimator struct {
	syms     *cluster.Symbols
	hostname cluster.Sym
	nodes    []simNode
	order    []int
	scores   []float64
	// record: some group has pod-level constraints, so nodes remember
	// their pods and every fit checks them.
	record bool
	// tpl is the template node of the current run.
	tpl *cluster.Node
}

// run estimates groups (those with fits[i] true) onto copies of template
// node tpl, adding at most maxNodes nodes, into out.
func (e *estimator) run(groups []*podGroup, fits []bool, tpl *cluster.Node, maxNodes int, out *estimate) {
	alloc := tpl.Allocatable
	e.tpl = tpl
	out.reset()
	e.nodes = e.nodes[:0]
	e.order = e.order[:0]
	e.scores = e.scores[:0]
	e.record = false
	for i, g := range groups {
		e.scores = append(e.scores, podScore(g.spec, alloc))
		if fits[i] {
			e.order = append(e.order, i)
			e.record = e.record || g.podLevel
		}
		// Every simulated node is in the template's domain.
		for _, s := range g.spreads {
			s.zone, s.zoneOK = tpl.Labels.Get(s.c.TopologyKey)
			s.added = 0
		}
	}
	sort.SliceStable(e.order, func(a, b int) bool { return e.scores[e.order[a]] > e.scores[e.order[b]] })

	last := -1
	for _, gi := range e.order {
		g := groups[gi]
		req := g.spec.Requests
		check := e.record
		i := 0
		// Fill the nodes added so far. Pods of a group are identical and
		// room only shrinks, so a node that refused one refuses the rest:
		// a cursor keeps this linear.
		// With a hostname spread measured against the simulated nodes
		// (hostLow), a node may take more once the others caught up: pass
		// over the nodes again while a pass placed something.
		// A new node an earlier group's pod did not fit for pod-level
		// reasons (a zone spread) stays in upstream's snapshot, and its
		// later pods go round-robin over the simulated nodes (the plugin
		// runner starts after its last match), so the empty node soon
		// gets one: try it first.
		if last >= 0 && e.nodes[last].npods == 0 && i < len(g.pods) && e.fits(&e.nodes[last], g, req, check) {
			e.place(last, g, i, check, out)
			i++
		}
		cursor, placedInPass := 0, false
		for i < len(g.pods) {
			for cursor < len(e.nodes) && !e.fits(&e.nodes[cursor], g, req, check) {
				cursor++
			}
			if cursor == len(e.nodes) {
				if g.hostLow == 0 || !placedInPass {
					break
				}
				cursor, placedInPass = 0, false
				continue
			}
			e.place(cursor, g, i, check, out)
			i++
			placedInPass = true
		}
		for ; i < len(g.pods); i++ {
			if last >= 0 && e.fits(&e.nodes[last], g, req, check) {
				e.place(last, g, i, check, out)
				continue
			}
			if last >= 0 && e.nodes[last].npods == 0 {
				break // an empty node refused it: so would another
			}
			if len(e.nodes) >= maxNodes {
				break
			}
			e.nodes = append(e.nodes, simNode{free: alloc, placed: e.reuse(len(e.nodes))})
			last = len(e.nodes) - 1
			if !e.fits(&e.nodes[last], g, req, check) {
				break
			}
			e.place(last, g, i, check, out)
		}
	}
	out.nodes = len(e.nodes)
	if out.nodes > 0 && e.nodes[out.nodes-1].npods == 0 {
		out.nodes--
	}
}

// reuse returns the placed slice of a previously used node slot, emptied.
func (e *estimator) reuse(i int) []placedPod {
	if i < cap(e.nodes) {
		if p := e.nodes[:i+1][i].placed; p != nil {
			return p[:0]
		}
	}
	return nil
}

func (e *estimator) fits(n *simNode, g *podGroup, req cluster.Resources, check bool) bool {
	if !req.Fits(n.free) {
		return false
	}
	if !check {
		return true
	}
	low := int32(0)
	if g.hostLow > 0 {
		low = e.hostLow(g)
	}
	return podLevelOKLow(e.syms, e.hostname, g.spec, g.ns, n.placed, low) && (g.spreads == nil || spreadOK(g, e.tpl))
}

// hostLow is the minimum, for a group whose hostname spread no node of
// the cluster has an empty domain for, over the cluster's nodes
// (g.hostLow) and the simulated ones, of the pods the spread matches:
// upstream's PodTopologySpread sees the simulated nodes as domains too,
// so in a cluster without a node the pods may go to, the first new node
// is its own minimum and takes pods until its room runs out.
func (e *estimator) hostLow(g *podGroup) int32 {
	low := g.hostLow
	c := g.hostSpread
	for k := range e.nodes {
		n := int32(0)
		for _, p := range e.nodes[k].placed {
			if p.ns == g.ns && c.Selector.Matches(e.syms, p.spec.Labels) {
				n++
			}
		}
		low = min(low, n)
	}
	return low
}

func (e *estimator) place(ni int, g *podGroup, i int, check bool, out *estimate) {
	n := &e.nodes[ni]
	n.free = n.free.Sub(g.spec.Requests)
	n.npods++
	if check {
		n.placed = append(n.placed, placedPod{spec: g.spec, ns: g.ns})
	}
	for _, s := range g.feeds {
		s.added++
	}
	out.pods = append(out.pods, g.pods[i])
	out.nodeOf = append(out.nodeOf, int32(ni))
	out.cpu += g.spec.Requests[cluster.CPU]
	out.mem += g.spec.Requests[cluster.Memory]
}

// podScore is upstream's DecreasingPodOrderer score: cpu request over the
// template's cpu plus memory request over its memory.
func podScore(spec *cluster.PodSpec, alloc cluster.Resources) float64 {
	var s float64
	if alloc[cluster.CPU] > 0 {
		s += float64(spec.Requests[cluster.CPU]) / float64(alloc[cluster.CPU])
	}
	if alloc[cluster.Memory] > 0 {
		s += float64(spec.Requests[cluster.Memory]) / float64(alloc[cluster.Memory])
	}
	return s
}

// podConstraints reports whether a spec has required pod-level
// constraints (pod affinity, anti-affinity, hard topology spread) and
// whether every one of them is keyed on the hostname.
func podConstraints(spec *cluster.PodSpec, hostname cluster.Sym) (has, hostOnly bool) {
	hostOnly = true
	for i := range spec.PodAffinity {
		has = true
		hostOnly = hostOnly && spec.PodAffinity[i].TopologyKey == hostname
	}
	for i := range spec.PodAntiAffinity {
		has = true
		hostOnly = hostOnly && spec.PodAntiAffinity[i].TopologyKey == hostname
	}
	for i := range spec.Spread {
		if spec.Spread[i].Hard {
			has = true
			hostOnly = hostOnly && spec.Spread[i].TopologyKey == hostname
		}
	}
	return has, hostOnly
}

// podLevelOK checks a pod's hostname-keyed pod constraints against the pods
// on one node: required anti-affinity both ways, required affinity (met by
// a pod on the node, or by the pod itself, as the first pod of a
// self-affine group may go anywhere), and hard hostname spread (at most
// maxSkew matching pods per node, assuming an emptier node exists).
// Constraints on other topology keys are not checked here.
func podLevelOK(syms *cluster.Symbols, hostname cluster.Sym, spec *cluster.PodSpec, ns cluster.Sym, placed []placedPod) bool {
	return podLevelOKLow(syms, hostname, spec, ns, placed, 0)
}

// podLevelOKLow is podLevelOK with low as the smallest count of the
// hostname spreads' domains (podLevelOK assumes a node without any).
func podLevelOKLow(syms *cluster.Symbols, hostname cluster.Sym, spec *cluster.PodSpec, ns cluster.Sym, placed []placedPod, low int32) bool {
	self := placedPod{spec: spec, ns: ns}
	for i := range spec.PodAntiAffinity {
		t := &spec.PodAntiAffinity[i]
		if t.TopologyKey != hostname {
			continue
		}
		for _, p := range placed {
			if termMatches(syms, t, ns, p) {
				return false
			}
		}
	}
	for _, p := range placed {
		for i := range p.spec.PodAntiAffinity {
			t := &p.spec.PodAntiAffinity[i]
			if t.TopologyKey == hostname && termMatches(syms, t, p.ns, self) {
				return false
			}
		}
	}
	for i := range spec.PodAffinity {
		t := &spec.PodAffinity[i]
		if t.TopologyKey != hostname {
			continue
		}
		ok := termMatches(syms, t, ns, self)
		for _, p := range placed {
			ok = ok || termMatches(syms, t, ns, p)
		}
		if !ok {
			return false
		}
	}
	for i := range spec.Spread {
		c := &spec.Spread[i]
		if !c.Hard || c.TopologyKey != hostname {
			continue
		}
		n := int32(0)
		if c.Selector.Matches(syms, spec.Labels) {
			n++
		}
		for _, p := range placed {
			if p.ns == ns && c.Selector.Matches(syms, p.spec.Labels) {
				n++
			}
		}
		if n-low > c.MaxSkew {
			return false
		}
	}
	return true
}

// termMatches reports whether an affinity term of a pod in namespace
// ownerNS selects pod p.
func termMatches(syms *cluster.Symbols, t *cluster.AffinityTerm, ownerNS cluster.Sym, p placedPod) bool {
	switch {
	case t.NamespaceSelector != nil:
		// Namespace labels are not at hand: any namespace counts.
	case len(t.Namespaces) > 0:
		found := false
		for _, n := range t.Namespaces {
			found = found || n == p.ns
		}
		if !found {
			return false
		}
	default:
		if p.ns != ownerNS {
			return false
		}
	}
	return t.Selector.Matches(syms, p.spec.Labels)
}
