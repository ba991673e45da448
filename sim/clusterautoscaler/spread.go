package clusterautoscaler

import (
	"math"

	"github.com/clustersim/clustersim/sim/cluster"
)

// domainSpread is a pending pod group's hard topology-spread constraint
// (whenUnsatisfiable: DoNotSchedule) on a key other than the hostname,
// usually topology.kubernetes.io/zone, as the scheduler's PodTopologySpread
// filter checks it inside the Cluster Autoscaler's simulations (the
// filter-out-schedulable processor's upcoming nodes and the binpacking
// estimator's template nodes, which upstream adds to its cluster snapshot
// with the template's labels, so all of a group's simulated nodes sit in
// its template's zone).
type domainSpread struct {
	c     *cluster.SpreadConstraint
	owner *podGroup
	// self is 1 when the owner's pods match their own selector.
	self int32
	// counts are the matching pods per domain: the domains of the Ready
	// nodes eligible for the owner (its node affinity, its tolerations
	// with nodeTaintsPolicy Honor, every key of its hard constraints)
	// with their pods (not terminating, same namespace, selector), then
	// those of the upcoming nodes and the pods filterSchedulable put there.
	counts map[cluster.Sym]int32
	// zone and added are one estimation's: the template's domain and the
	// pods the estimator put on its simulated nodes that count here.
	zone   cluster.Sym
	zoneOK bool
	added  int32
}

// count is the matching pods in domain d, this estimation's included.
func (s *domainSpread) count(d cluster.Sym) int32 {
	n := s.counts[d]
	if s.zoneOK && d == s.zone {
		n += s.added
	}
	return n
}

// ok reports whether one more of the owner's pods may go to a node in
// domain v: its domain's count plus itself, minus the smallest count over
// the domains (0 when there are fewer than minDomains), at most maxSkew.
// v is a domain since a node in it is being checked.
func (s *domainSpread) ok(v cluster.Sym) bool {
	low := int32(math.MaxInt32)
	n := len(s.counts)
	for d := range s.counts {
		low = min(low, s.count(d))
	}
	if _, known := s.counts[v]; !known {
		n++
		low = min(low, s.count(v))
	}
	if int32(n) < s.c.MinDomains {
		low = 0
	}
	return s.count(v)+s.self-low <= s.c.MaxSkew
}

// hasDomainSpread reports whether a spec has a hard spread constraint on a
// key other than the hostname.
func hasDomainSpread(spec *cluster.PodSpec, hostname cluster.Sym) bool {
	for i := range spec.Spread {
		if spec.Spread[i].Hard && spec.Spread[i].TopologyKey != hostname {
			return true
		}
	}
	return false
}

// onlySpreadBeyondHost reports whether every required pod (anti-)affinity
// term of a spec is keyed on the hostname (so its only other pod-level
// constraints are spreads).
func onlySpreadBeyondHost(spec *cluster.PodSpec, hostname cluster.Sym) bool {
	for i := range spec.PodAffinity {
		if spec.PodAffinity[i].TopologyKey != hostname {
			return false
		}
	}
	for i := range spec.PodAntiAffinity {
		if spec.PodAntiAffinity[i].TopologyKey != hostname {
			return false
		}
	}
	return true
}

// prepareSpreads sets up the domain spreads of the pending pod groups
// that have some: their counts over the Ready nodes, and for every group
// the spreads its pods count toward (feeds). Nothing happens, and nothing
// is allocated, when no group has one.
func (o *orchestrator) prepareSpreads(groups []*podGroup) {
	any := false
	for _, pg := range groups {
		any = any || pg.domainSpread
	}
	if !any {
		return
	}
	syms := o.cl.Syms
	var all []*domainSpread
	for _, pg := range groups {
		if !pg.domainSpread {
			continue
		}
		for i := range pg.spec.Spread {
			c := &pg.spec.Spread[i]
			if !c.Hard || c.TopologyKey == o.symHostname {
				continue
			}
			s := &domainSpread{c: c, owner: pg, counts: map[cluster.Sym]int32{}}
			if c.Selector.Matches(syms, pg.spec.Labels) {
				s.self = 1
			}
			pg.spreads = append(pg.spreads, s)
			all = append(all, s)
		}
	}
	for _, id := range o.cache.live {
		nd := &o.cl.Nodes[id]
		if nd.State != cluster.NodeReady {
			continue // launching: an upcoming node, simulated from its template
		}
		for _, s := range all {
			v, ok := o.spreadDomain(s.owner, nd, s.c)
			if !ok {
				continue
			}
			n := s.counts[v]
			for _, p := range o.state(id).pods {
				if !p.term && p.ns == s.owner.ns && s.c.Selector.Matches(syms, p.spec.Labels) {
					n++
				}
			}
			s.counts[v] = n
		}
	}
	for _, pg := range groups {
		for _, s := range all {
			if pg.ns == s.owner.ns && s.c.Selector.Matches(syms, pg.spec.Labels) {
				pg.feeds = append(pg.feeds, s)
			}
		}
	}
}

// spreadDomain returns the domain of node nd for a spread of pod group pg,
// ok false when the node does not count for it: it lacks one of the keys
// of the group's hard constraints, or the constraint's node inclusion
// policies leave it out.
func (o *orchestrator) spreadDomain(pg *podGroup, nd *cluster.Node, c *cluster.SpreadConstraint) (cluster.Sym, bool) {
	for i := range pg.spec.Spread {
		if pg.spec.Spread[i].Hard && !nd.Labels.Has(pg.spec.Spread[i].TopologyKey) {
			return 0, false
		}
	}
	if c.HonorNodeAffinity && !cluster.MatchesNodeSelectors(o.cl.Syms, pg.spec, nd) {
		return 0, false
	}
	if c.HonorTaints {
		if _, bad := pg.spec.Tolerations.FirstUntolerated(nd.Taints); bad {
			return 0, false
		}
	}
	return nd.Labels.Get(c.TopologyKey)
}

// spreadOK checks a pod group's domain spreads on a simulated node (an
// upcoming node or a template copy): the node must carry every key, and
// its domain must not exceed maxSkew with one more pod.
func spreadOK(pg *podGroup, nd *cluster.Node) bool {
	for _, s := range pg.spreads {
		for i := range pg.spec.Spread {
			if pg.spec.Spread[i].Hard && !nd.Labels.Has(pg.spec.Spread[i].TopologyKey) {
				return false
			}
		}
		v, _ := nd.Labels.Get(s.c.TopologyKey)
		if !s.ok(v) {
			return false
		}
	}
	return true
}

// countOn adds one pod of group pg, placed on a simulated node nd outside
// an estimation (filterSchedulable), to the spreads it counts toward.
func (o *orchestrator) countOn(pg *podGroup, nd *cluster.Node) {
	for _, s := range pg.feeds {
		if v, ok := o.spreadDomain(s.owner, nd, s.c); ok {
			s.counts[v]++
		}
	}
}

// prepareHostSpreads sets hostSpread and hostLow of the pending pod groups
// with exactly one hard spread constraint on the hostname: the fewest
// pods it matches on a node it counts (by its node inclusion policies and
// keys), a node being launched or an upcoming one counting as empty. The
// scan stops at the first node without any, the common case, where the
// estimate is unchanged.
func (o *orchestrator) prepareHostSpreads(groups []*podGroup) {
	for _, pg := range groups {
		pg.hostSpread, pg.hostLow = nil, 0
		if !pg.podLevel {
			continue
		}
		for i := range pg.spec.Spread {
			if c := &pg.spec.Spread[i]; c.Hard && c.TopologyKey == o.symHostname {
				if pg.hostSpread != nil {
					pg.hostSpread = nil // several: assume an empty domain
					break
				}
				pg.hostSpread = c
			}
		}
		if pg.hostSpread != nil {
			pg.hostLow = o.hostSpreadLow(pg, pg.hostSpread)
		}
	}
}

func (o *orchestrator) hostSpreadLow(pg *podGroup, c *cluster.SpreadConstraint) int32 {
	syms := o.cl.Syms
	low := int32(math.MaxInt32)
	for _, id := range o.cache.live {
		nd := &o.cl.Nodes[id]
		if _, ok := o.spreadDomain(pg, nd, c); !ok {
			continue
		}
		if nd.State != cluster.NodeReady {
			return 0
		}
		n := int32(0)
		for _, p := range o.state(id).pods {
			if !p.term && p.ns == pg.ns && c.Selector.Matches(syms, p.spec.Labels) {
				n++
			}
		}
		if low = min(low, n); low == 0 {
			return 0
		}
	}
	for _, g := range o.groups {
		if o.upcoming(g, false) > 0 {
			if _, ok := o.spreadDomain(pg, &g.tpl.node, c); ok {
				return 0
			}
		}
	}
	return low
}
