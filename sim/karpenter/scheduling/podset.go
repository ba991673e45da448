package scheduling

import (
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
)

// PodSet is a run of the pods a solve reschedules (solveOpts.sets),
// prepared once for many solves: the pods, the same in queue order, and
// their distinct templates (relaxation zero) in order of first appearance.
type PodSet struct {
	// Pods are the set's pods, in the order given.
	Pods []cluster.PodID
	// QueueKeys are the pods' queue keys, sorted on first use (queueKeys).
	QueueKeys []QueueKey
	// QueueKeysSorted: QueueKeys are in queue order.
	QueueKeysSorted bool
	// Templates are the pods' templates, in order of first appearance;
	// TemplateCounts and TemplateFirstPods are per template.
	Templates         []PodKey
	TemplateCounts    []int32         // pods per template in keys
	TemplateFirstPods []cluster.PodID // a pod of each template in keys
	// NamesCapacityType: some template requires or prefers a capacity
	// type (or spreads over capacity types) in some relaxation state, so
	// a NodeClaim holding its pods may lose its spot offerings.
	NamesCapacityType bool
	// HasTopology: some template has topology spread or pod (anti-)affinity
	// (only such templates have groups to register before a solve).
	HasTopology bool
	// classes: pods per spec class of the templates without topology
	// constraints (doomed), made on first use.
	classes []classCount
}

// classCount is how many pods of a set share a spec class.
type classCount struct {
	// Class is the spec class (podStatic.Class).
	Class int32
	Key   PodKey // a template of the class
	// Count is the number of the set's pods of the class.
	Count int64
}

// SetBuilder gathers a pod set in one read of its pods.
type SetBuilder struct {
	// Set is the set being built.
	Set  *PodSet
	seen map[PodKey]int // position in keys
}

// Add appends a pod (its queue key) to the set.
func (b *SetBuilder) Add(sv *Solvers, e QueueKey) {
	ps := b.Set
	ps.QueueKeys = append(ps.QueueKeys, e)
	key := PodKey{Spec: e.Spec, Namespace: e.Namespace}
	// Nodes hold few templates: a scan beats a map until they are many.
	if b.seen == nil {
		for i := range ps.Templates {
			if ps.Templates[i] == key {
				ps.TemplateCounts[i]++
				return
			}
		}
		if len(ps.Templates) >= 16 {
			b.seen = make(map[PodKey]int, 2*len(ps.Templates))
			for i, k := range ps.Templates {
				b.seen[k] = i
			}
		}
	} else if i, ok := b.seen[key]; ok {
		ps.TemplateCounts[i]++
		return
	}
	if b.seen != nil {
		b.seen[key] = len(ps.Templates)
	}
	ps.Templates = append(ps.Templates, key)
	ps.TemplateCounts = append(ps.TemplateCounts, 1)
	ps.TemplateFirstPods = append(ps.TemplateFirstPods, e.ID)
	ps.NamesCapacityType = ps.NamesCapacityType || SpecUsesKey(e.Spec, sv.cl.KeyCapacityType)
	ps.HasTopology = ps.HasTopology || hasTopology(e.Spec)
}

// queueOrder returns the set's pods in queue order.
func (ps *PodSet) queueOrder() []QueueKey {
	if !ps.QueueKeysSorted {
		// The order is total (ids differ): any sort gives the same result.
		slices.SortFunc(ps.QueueKeys, CompareQueueKeys)
		ps.QueueKeysSorted = true
	}
	return ps.QueueKeys
}

// ClassCounts returns the set's pods per spec class, leaving out the
// templates with topology constraints.
func (ps *PodSet) ClassCounts(sv *Solvers) []classCount {
	if ps.classes != nil || len(ps.Templates) == 0 {
		return ps.classes
	}
	out := make([]classCount, 0, 1)
	for i, key := range ps.Templates {
		if hasTopology(key.Spec) {
			continue
		}
		c := sv.specClass(key.Spec)
		j := slices.IndexFunc(out, func(cc classCount) bool { return cc.Class == c })
		if j < 0 {
			out = append(out, classCount{Class: c, Key: key})
			j = len(out) - 1
		}
		out[j].Count += int64(ps.TemplateCounts[i])
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

// SpecUsesKey reports whether any node requirement (selector, required
// or preferred node affinity term) or topology key of the spec uses key.
func SpecUsesKey(spec *cluster.PodSpec, key cluster.Sym) bool {
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
