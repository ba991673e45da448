package scheduler

import (
	"math"

	"github.com/clustersim/clustersim/sim/cluster"
)

// DefaultHardPodAffinityWeight is the score weight of existing pods'
// required affinity terms that select the incoming pod (k8s
// InterPodAffinityArgs.hardPodAffinityWeight, default 1).
const DefaultHardPodAffinityWeight = 1

// interPodAffinity enforces required pod affinity and anti-affinity, both
// the incoming pod's and the existing pods' anti-affinity towards it, and
// scores preferred terms both ways (k8s interpodaffinity filtering.go and
// scoring.go). Counts come from the shared Topology index.
type interPodAffinity struct {
	h          Handle
	syms       *cluster.Symbols
	hardWeight int64

	existingAnti Reason
	affinity     Reason
	anti         Reason

	// Filter state of the current cycle: topology pairs with existing
	// pods whose anti-affinity selects the incoming pod; pairs with pods
	// matching all the incoming pod's affinity terms; pairs with pods
	// matching its anti-affinity terms.
	forbidden   map[pair]int32
	affinityHit map[pair]int32
	antiHit     map[pair]int32
	selfAffine  bool

	// Score state: summed weights per topology pair.
	scores map[pair]int64
}

var (
	_ PreFilterPlugin  = (*interPodAffinity)(nil)
	_ FilterPlugin     = (*interPodAffinity)(nil)
	_ PreScorePlugin   = (*interPodAffinity)(nil)
	_ normalizedScorer = (*interPodAffinity)(nil)
)

func newInterPodAffinity(h Handle, args PluginArgs) (Plugin, error) {
	w := int64(args.HardPodAffinityWeight)
	if w == 0 {
		w = DefaultHardPodAffinityWeight
	}
	return &interPodAffinity{
		h:            h,
		syms:         h.Cluster().Syms,
		hardWeight:   w,
		existingAnti: h.Reason("node(s) didn't satisfy existing pods anti-affinity rules", Resolvable),
		affinity:     h.Reason("node(s) didn't match pod affinity rules", Unresolvable),
		anti:         h.Reason("node(s) didn't match pod anti-affinity rules", Resolvable),
		forbidden:    map[pair]int32{},
		affinityHit:  map[pair]int32{},
		antiHit:      map[pair]int32{},
		scores:       map[pair]int64{},
	}, nil
}

func (p *interPodAffinity) Name() string { return NameInterPodAffinity }
func (p *interPodAffinity) Events() Event {
	return EvNodeAdd | EvNodeUpdate | EvPodAssigned | EvPodUnassigned
}

// termCounter counts the bound pods one term of a pod in namespace ns
// selects.
func (p *interPodAffinity) termCounter(t *cluster.AffinityTerm, ns cluster.Sym) *Counter {
	type key struct {
		t  *cluster.AffinityTerm
		ns cluster.Sym
	}
	topo := p.h.Topology()
	return topo.Counter(key{t, ns}, func(pod *cluster.Pod) bool { return topo.TermSelects(t, ns, pod) })
}

// allTermsCounter counts the bound pods that all of a pod's required
// affinity terms select (upstream counts a pod for affinity only if it
// matches every term).
func (p *interPodAffinity) allTermsCounter(spec *cluster.PodSpec, ns cluster.Sym) *Counter {
	type key struct {
		spec *cluster.PodSpec
		ns   cluster.Sym
	}
	topo := p.h.Topology()
	return topo.Counter(key{spec, ns}, func(pod *cluster.Pod) bool {
		for i := range spec.PodAffinity {
			if !topo.TermSelects(&spec.PodAffinity[i], ns, pod) {
				return false
			}
		}
		return true
	})
}

// addPairs adds, for every node with pods counted, weight x count to the
// pair (key, the node's value of key).
func addPairs[T int32 | int64](cl *cluster.Cluster, nodes []cluster.NodeID, on func(cluster.NodeID) int32, key cluster.Sym, weight T, into map[pair]T) {
	for _, nid := range nodes {
		c := on(nid)
		if c == 0 {
			continue
		}
		if v, ok := cl.Nodes[nid].Labels.Get(key); ok {
			into[pair{key, v}] += weight * T(c)
		}
	}
}

func (p *interPodAffinity) PreFilter(cs *CycleState) bool {
	clear(p.forbidden)
	clear(p.affinityHit)
	clear(p.antiHit)
	cl := p.h.Cluster()
	nodes := p.h.Nodes()
	topo := p.h.Topology()
	pod := &cl.Pods[cs.Pod]
	for _, g := range topo.Groups() {
		if g.Total() == 0 || len(g.Spec.PodAntiAffinity) == 0 {
			continue
		}
		for i := range g.Spec.PodAntiAffinity {
			t := &g.Spec.PodAntiAffinity[i]
			if topo.TermSelects(t, g.Namespace, pod) {
				addPairs(cl, nodes, g.On, t.TopologyKey, int32(1), p.forbidden)
			}
		}
	}
	spec := cs.Spec
	if len(spec.PodAffinity) > 0 {
		c := p.allTermsCounter(spec, cs.Namespace)
		for i := range spec.PodAffinity {
			addPairs(cl, nodes, c.On, spec.PodAffinity[i].TopologyKey, int32(1), p.affinityHit)
		}
		p.selfAffine = true
		for i := range spec.PodAffinity {
			if !topo.TermSelects(&spec.PodAffinity[i], cs.Namespace, pod) {
				p.selfAffine = false
			}
		}
	}
	for i := range spec.PodAntiAffinity {
		t := &spec.PodAntiAffinity[i]
		addPairs(cl, nodes, p.termCounter(t, cs.Namespace).On, t.TopologyKey, int32(1), p.antiHit)
	}
	return len(p.forbidden) == 0 && len(spec.PodAffinity) == 0 && len(spec.PodAntiAffinity) == 0
}

// Filter checks, in upstream's order (and with its reason for the first
// that fails): the pod's affinity, its anti-affinity, then the existing
// pods' anti-affinity.
func (p *interPodAffinity) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	spec := cs.Spec
	if len(spec.PodAffinity) > 0 {
		all := true
		for i := range spec.PodAffinity {
			k := spec.PodAffinity[i].TopologyKey
			v, ok := n.Labels.Get(k)
			if !ok {
				// Every topology key must be on the node, for a pod
				// with affinity to itself too.
				return p.affinity
			}
			if p.affinityHit[pair{k, v}] <= 0 {
				all = false
			}
		}
		// The first pod of a group with affinity to itself may go
		// anywhere (that has the keys), or it would wait for ever.
		if !all && (len(p.affinityHit) != 0 || !p.selfAffine) {
			return p.affinity
		}
	}
	for i := range spec.PodAntiAffinity {
		k := spec.PodAntiAffinity[i].TopologyKey
		if v, ok := n.Labels.Get(k); ok && p.antiHit[pair{k, v}] > 0 {
			return p.anti
		}
	}
	if len(p.forbidden) > 0 {
		for _, l := range n.Labels {
			if p.forbidden[pair{l.Key, l.Value}] > 0 {
				return p.existingAnti
			}
		}
	}
	return Pass
}

func (p *interPodAffinity) PreScore(cs *CycleState, _ []cluster.NodeID) bool {
	clear(p.scores)
	cl := p.h.Cluster()
	nodes := p.h.Nodes()
	topo := p.h.Topology()
	spec := cs.Spec
	for i := range spec.PreferredPodAffinity {
		t := &spec.PreferredPodAffinity[i]
		addPairs(cl, nodes, p.termCounter(t, cs.Namespace).On, t.TopologyKey, int64(t.Weight), p.scores)
	}
	for i := range spec.PreferredPodAntiAffinity {
		t := &spec.PreferredPodAntiAffinity[i]
		addPairs(cl, nodes, p.termCounter(t, cs.Namespace).On, t.TopologyKey, -int64(t.Weight), p.scores)
	}
	// Symmetry: existing pods' terms that select the incoming pod.
	pod := &cl.Pods[cs.Pod]
	for _, g := range topo.Groups() {
		if g.Total() == 0 {
			continue
		}
		gs := g.Spec
		for i := range gs.PodAffinity {
			if t := &gs.PodAffinity[i]; p.hardWeight > 0 && topo.TermSelects(t, g.Namespace, pod) {
				addPairs(cl, nodes, g.On, t.TopologyKey, p.hardWeight, p.scores)
			}
		}
		for i := range gs.PreferredPodAffinity {
			if t := &gs.PreferredPodAffinity[i]; topo.TermSelects(t, g.Namespace, pod) {
				addPairs(cl, nodes, g.On, t.TopologyKey, int64(t.Weight), p.scores)
			}
		}
		for i := range gs.PreferredPodAntiAffinity {
			if t := &gs.PreferredPodAntiAffinity[i]; topo.TermSelects(t, g.Namespace, pod) {
				addPairs(cl, nodes, g.On, t.TopologyKey, -int64(t.Weight), p.scores)
			}
		}
	}
	return len(p.scores) == 0
}

func (p *interPodAffinity) Score(_ *CycleState, _ cluster.NodeID, n *cluster.Node) int64 {
	var s int64
	for _, l := range n.Labels {
		s += p.scores[pair{l.Key, l.Value}]
	}
	return s
}

func (p *interPodAffinity) scoreAll(cs *CycleState, nodes []cluster.Node, feasible []cluster.NodeID, out []int64) {
	for i, nid := range feasible {
		out[i] = p.Score(cs, nid, &nodes[nid])
	}
}

// NormalizeScore maps [min, max] to [0, MaxNodeScore]; all equal gives 0.
func (p *interPodAffinity) NormalizeScore(_ *CycleState, scores []int64) {
	minS, maxS := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range scores {
		minS = min(minS, s)
		maxS = max(maxS, s)
	}
	diff := maxS - minS
	for i, s := range scores {
		if diff > 0 {
			scores[i] = int64(float64(MaxNodeScore) * float64(s-minS) / float64(diff))
		} else {
			scores[i] = 0
		}
	}
}
