package karpenter

import (
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
)

// podSet is a run of the pods a solve reschedules (solveOpts.sets),
// prepared once for many solves: the pods, the same in queue order, and
// their distinct templates (relaxation zero) in order of first appearance.
type podSet struct {
	pods []cluster.PodID
	// qkeys are the pods' queue keys, sorted on first use (queueKeys).
	qkeys  []qkey
	sorted bool
	keys   []pdKey
	counts []int32         // pods per template in keys
	first  []cluster.PodID // a pod of each template in keys
	// namesCapacityType: some template requires or prefers a capacity
	// type (or spreads over capacity types) in some relaxation state, so
	// a NodeClaim holding its pods may lose its spot offerings.
	namesCapacityType bool
	// topology: some template has topology spread or pod (anti-)affinity
	// (only such templates have groups to register before a solve).
	topology bool
	// classes: pods per spec class of the templates without topology
	// constraints (doomed), made on first use.
	classes []classCount
}

type classCount struct {
	class int32
	key   pdKey // a template of the class
	count int64
}

// setBuilder gathers a pod set in one read of its pods.
type setBuilder struct {
	ps   *podSet
	seen map[pdKey]int // position in keys
}

func (b *setBuilder) add(sv *solvers, e qkey) {
	ps := b.ps
	ps.qkeys = append(ps.qkeys, e)
	key := pdKey{spec: e.spec, ns: e.ns}
	// Nodes hold few templates: a scan beats a map until they are many.
	if b.seen == nil {
		for i := range ps.keys {
			if ps.keys[i] == key {
				ps.counts[i]++
				return
			}
		}
		if len(ps.keys) >= 16 {
			b.seen = make(map[pdKey]int, 2*len(ps.keys))
			for i, k := range ps.keys {
				b.seen[k] = i
			}
		}
	} else if i, ok := b.seen[key]; ok {
		ps.counts[i]++
		return
	}
	if b.seen != nil {
		b.seen[key] = len(ps.keys)
	}
	ps.keys = append(ps.keys, key)
	ps.counts = append(ps.counts, 1)
	ps.first = append(ps.first, e.id)
	ps.namesCapacityType = ps.namesCapacityType || specNamesKey(e.spec, sv.cl.KeyCapacityType)
	ps.topology = ps.topology || hasTopology(e.spec)
}

// queueOrder returns the set's pods in queue order.
func (ps *podSet) queueOrder() []qkey {
	if !ps.sorted {
		// The order is total (ids differ): any sort gives the same result.
		slices.SortFunc(ps.qkeys, compareQ)
		ps.sorted = true
	}
	return ps.qkeys
}

// classCounts returns the set's pods per spec class, leaving out the
// templates with topology constraints.
func (ps *podSet) classCounts(sv *solvers) []classCount {
	if ps.classes != nil || len(ps.keys) == 0 {
		return ps.classes
	}
	out := make([]classCount, 0, 1)
	for i, key := range ps.keys {
		if hasTopology(key.spec) {
			continue
		}
		c := sv.specClass(key.spec)
		j := slices.IndexFunc(out, func(cc classCount) bool { return cc.class == c })
		if j < 0 {
			out = append(out, classCount{class: c, key: key})
			j = len(out) - 1
		}
		out[j].count += int64(ps.counts[i])
	}
	ps.classes = out
	return out
}

// hasTopology reports whether the spec has topology spread constraints or
// pod affinity or anti-affinity terms (required or preferred).
func hasTopology(spec *cluster.PodSpec) bool {
	return len(spec.Spread)+len(spec.PodAffinity)+len(spec.PodAntiAffinity)+
		len(spec.PreferredPodAffinity)+len(spec.PreferredPodAntiAffinity) > 0
}

// specNamesKey reports whether any node requirement (selector, required
// or preferred node affinity term) or topology key of the spec uses key.
func specNamesKey(spec *cluster.PodSpec, key cluster.Sym) bool {
	inReqs := func(rs []cluster.Requirement) bool {
		for i := range rs {
			if rs[i].Key == key {
				return true
			}
		}
		return false
	}
	if inReqs(spec.NodeSelector) {
		return true
	}
	if spec.Affinity != nil {
		for i := range spec.Affinity.Terms {
			if inReqs(spec.Affinity.Terms[i].Reqs) {
				return true
			}
		}
	}
	for i := range spec.Preferred {
		if inReqs(spec.Preferred[i].Term.Reqs) {
			return true
		}
	}
	for i := range spec.Spread {
		if spec.Spread[i].TopologyKey == key {
			return true
		}
	}
	for _, ts := range [][]cluster.AffinityTerm{spec.PodAffinity, spec.PodAntiAffinity, spec.PreferredPodAffinity, spec.PreferredPodAntiAffinity} {
		for i := range ts {
			if ts[i].TopologyKey == key {
				return true
			}
		}
	}
	return false
}
