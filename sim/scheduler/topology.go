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
	// NamespaceLabels holds Namespace manifests' labels for namespace
	// selectors.
	NamespaceLabels map[cluster.Sym]cluster.Labels
}

// Counter counts, per node, the bound pods a predicate selects.
type Counter struct {
	match   func(p *cluster.Pod) bool
	perNode []int32 // by NodeID
	total   int
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
// must identify match (e.g. a selector pointer and a namespace).
func (t *Topology) Counter(key any, match func(p *cluster.Pod) bool) *Counter {
	if c, ok := t.byKey[key]; ok {
		return c
	}
	c := &Counter{match: match}
	for i := range t.cl.Pods {
		p := &t.cl.Pods[i]
		if p.Phase.OnNode() && match(p) {
			c.add(p.Node, 1)
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

// update applies a bind (d = 1) or an unbind (d = -1).
func (t *Topology) update(p *cluster.Pod, n cluster.NodeID, d int32) {
	for _, c := range t.counters {
		if c.match(p) {
			c.add(n, d)
		}
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
