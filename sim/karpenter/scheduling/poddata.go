package scheduling

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// Relaxation is how far a pod's preferences have been relaxed in one
// scheduling attempt (KC preferences.go, in its order: drop the first
// required node-affinity term while more than one remain, drop the
// heaviest preferred pod affinity term, then pod anti-affinity term, then
// node affinity term, drop a ScheduleAnyway spread constraint, and last
// tolerate PreferNoSchedule taints if a NodePool has one).
type Relaxation struct {
	// Steps of each kind taken: required node-affinity terms dropped, then
	// preferred pod affinity, pod anti-affinity and node affinity terms, and
	// ScheduleAnyway spread constraints.
	droppedRequiredTerms, droppedPreferredAffinity, droppedPreferredAntiAffinity, droppedPreferredNodeAffinity, droppedSpread uint8
	// toleratePreferNoSchedule: the last step, PreferNoSchedule taints
	// tolerated.
	toleratePreferNoSchedule bool
}

// PodKey identifies a pod template in a relaxation state: what placing its
// pods reads.
type PodKey struct {
	// Spec is the template's compiled spec.
	Spec *cluster.PodSpec
	// Namespace is the pods' namespace.
	Namespace cluster.Sym
	// relaxation is the preferences relaxed so far.
	relaxation Relaxation
}

type affTerm struct{ t *cluster.AffinityTerm }

// PodData is what scheduling derives from a pod spec in one relaxation
// state; replicas of a template share it.
type PodData struct {
	podStatic
	groups      []*tgroup // topology groups it owns
	inverseOwn  []*tgroup // inverse anti-affinity groups it owns
	inverseSel  []*tgroup // inverse groups that select it
	inverseDone bool
	// sel caches, per topology group index, whether the group selects
	// the pod: 0 unknown, 1 yes, 2 no.
	sel []uint8

	// tmplTol caches, per pool position, whether the pod tolerates the
	// template's taints: 0 unknown, 1 yes, 2 no.
	tmplTol []uint8
	// exCursor: existing nodes before it cannot take this pod (only kept
	// for pods without topology, for which failures are permanent within
	// a solve); [0] for pods a disruption moves, [1] for pending ones, [2]
	// for pods of deleting nodes (the destinations they may use differ).
	exCursor [3]int
	// JumpTables are the existing-node jump tables of its class in this solve,
	// without and with the consolidateAfter filter (nil until looked up).
	JumpTables [2]*jumpTable
}

// podStatic is the part of podData that depends only on the spec, the
// namespace and the relaxation, not on the solve: the solves of one
// instant (a disruption pass) share it.
type podStatic struct {
	// spec is the template's compiled spec.
	spec *cluster.PodSpec
	// namespace is the pods' namespace.
	namespace cluster.Sym
	// Relaxation is the preferences relaxed so far.
	Relaxation Relaxation
	// Requests are a pod's resource requests.
	Requests cluster.Resources
	// requirements include the heaviest preferred node-affinity term in force;
	// strict are the required ones only (nodeSelector and the node
	// affinity term in force).
	requirements, strictRequirements Requirements
	// requiredTerm is the required node affinity term in force when the pod has
	// several (nil otherwise); pref the preferred term treated as
	// required (nil if none).
	requiredTerm  *cluster.Term
	preferredTerm *cluster.Term
	// toleratesPreferNoSchedule: PreferNoSchedule taints are tolerated.
	toleratesPreferNoSchedule bool
	// Class numbers the spec's content for the existing-node scan.
	Class int32
	// Index numbers the static data of the instant (the solver's index).
	Index int32

	// affinityTerms and antiAffinityTerms are the required and preferred pod
	// (anti-)affinity terms in force.
	affinityTerms, antiAffinityTerms []affTerm
}

func (pd *PodData) topo() bool { return len(pd.groups) > 0 || len(pd.inverseSel) > 0 }

// canRelax applies the next relaxation; false when nothing is left.
func (sv *Solvers) nextRelax(spec *cluster.PodSpec, r Relaxation, anyPNS bool) (Relaxation, bool) {
	if sv.settings.PreferencePolicy == apis.PreferencesIgnore {
		if spec.Affinity != nil && len(spec.Affinity.Terms)-int(r.droppedRequiredTerms) > 1 {
			r.droppedRequiredTerms++
			return r, true
		}
		return r, false
	}
	switch {
	case spec.Affinity != nil && len(spec.Affinity.Terms)-int(r.droppedRequiredTerms) > 1:
		r.droppedRequiredTerms++
	case int(r.droppedPreferredAffinity) < len(spec.PreferredPodAffinity):
		r.droppedPreferredAffinity++
	case int(r.droppedPreferredAntiAffinity) < len(spec.PreferredPodAntiAffinity):
		r.droppedPreferredAntiAffinity++
	case int(r.droppedPreferredNodeAffinity) < len(spec.Preferred):
		r.droppedPreferredNodeAffinity++
	case int(r.droppedSpread) < countSoftSpread(spec):
		r.droppedSpread++
	case anyPNS && !r.toleratePreferNoSchedule:
		r.toleratePreferNoSchedule = true
	default:
		return r, false
	}
	return r, true
}

func countSoftSpread(spec *cluster.PodSpec) int {
	n := 0
	for i := range spec.Spread {
		if !spec.Spread[i].Hard {
			n++
		}
	}
	return n
}

// byWeight returns the terms sorted by weight, heaviest first (stable),
// without the first dropped ones.
func byWeight(terms []cluster.AffinityTerm, dropped int) []affTerm {
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return terms[idx[a]].Weight > terms[idx[b]].Weight })
	var out []affTerm
	for _, i := range idx[min(dropped, len(idx)):] {
		out = append(out, affTerm{&terms[i]})
	}
	return out
}

// TermRequirements converts a node selector term (matchExpressions only, as
// Karpenter does) into requirements.
func (sv *Solvers) TermRequirements(t *cluster.Term) []Requirement {
	var out []Requirement
	for i := range t.Reqs {
		if t.Reqs[i].Field {
			continue
		}
		r := fromRequirement(&t.Reqs[i])
		r.Key = sv.normalize(r.Key)
		out = append(out, r)
	}
	return out
}

// SelectorRequirements are the requirements of a pod's nodeSelector.
func (sv *Solvers) SelectorRequirements(spec *cluster.PodSpec) []Requirement {
	var out []Requirement
	for i := range spec.NodeSelector {
		r := fromRequirement(&spec.NodeSelector[i])
		r.Key = sv.normalize(r.Key)
		out = append(out, r)
	}
	return out
}

// filterTerms are the node filter of a spread constraint: nodeSelector with
// each required term (ORed).
func (sv *Solvers) filterTerms(spec *cluster.PodSpec) []Requirements {
	syms := sv.cl.Syms
	base := sv.SelectorRequirements(spec)
	if spec.Affinity == nil || len(spec.Affinity.Terms) == 0 {
		if len(base) == 0 {
			return nil
		}
		return []Requirements{SortRequirements(syms, base)}
	}
	var out []Requirements
	for i := range spec.Affinity.Terms {
		rs := append(append([]Requirement(nil), base...), sv.TermRequirements(&spec.Affinity.Terms[i])...)
		out = append(out, SortRequirements(syms, rs))
	}
	return out
}

// PodData returns the derived data of a pod spec in a relaxation state,
// creating its topology groups on first use.
func (s *Solver) PodData(spec *cluster.PodSpec, ns cluster.Sym, r Relaxation) *PodData {
	key := PodKey{spec, ns, r}
	// Consecutive pods are mostly replicas of one template.
	if s.lastPD != nil && s.lastKey == key {
		return s.lastPD
	}
	st := s.Shared.podStatic(key)
	if int(st.Index) >= len(s.pds) {
		if s.pds == nil {
			s.pds, s.Shared.pdsFree = s.Shared.pdsFree, nil
		}
		for int(st.Index) >= len(s.pds) {
			s.pds = append(s.pds, nil)
		}
	}
	pd := s.pds[st.Index]
	if pd == nil {
		pd = s.Shared.newPodData(st, len(s.Pools))
		pd.groups = s.Topology.addSpecGroups(pd)
		pd.inverseOwn = s.Topology.addInverse(spec, ns)
		s.pds[st.Index] = pd
	}
	s.lastKey, s.lastPD = key, pd
	return pd
}

// newPodData returns a podData for st, reusing one a finished what-if
// gave back (solvers.recycle).
func (sv *Solvers) newPodData(st *podStatic, pools int) *PodData {
	n := len(sv.pdFree)
	if n == 0 {
		return &PodData{podStatic: *st, tmplTol: make([]uint8, pools)}
	}
	pd := sv.pdFree[n-1]
	sv.pdFree = sv.pdFree[:n-1]
	tol := pd.tmplTol[:0]
	for range pools {
		tol = append(tol, 0)
	}
	*pd = PodData{podStatic: *st, tmplTol: tol, sel: pd.sel[:0]}
	return pd
}

// podStatic returns the solve-independent data of a pod spec in a
// relaxation state, cached for the current instant.
func (sv *Solvers) podStatic(key PodKey) *podStatic {
	if now := sv.eng.Now(); sv.podStaticsAt != now || sv.PodStatics == nil {
		sv.PodStatics = map[PodKey]*podStatic{}
		sv.podStaticsAt = now
	}
	if st, ok := sv.PodStatics[key]; ok {
		return st
	}
	st := sv.derivePodStatic(key, sv.specClass(key.Spec))
	st.Index = int32(len(sv.PodStatics))
	sv.PodStatics[key] = st
	return st
}

// derivePodStatic works out the solve-independent data of a pod spec in a
// relaxation state, of spec class class, without caching it (idx left 0).
// It changes nothing: CheckIndexes recomputes the cache with it.
func (sv *Solvers) derivePodStatic(key PodKey, class int32) *podStatic {
	spec, r := key.Spec, key.relaxation
	syms := sv.cl.Syms
	pd := &podStatic{spec: spec, namespace: key.Namespace, Relaxation: r, Requests: spec.Requests, toleratesPreferNoSchedule: r.toleratePreferNoSchedule, Class: class}
	strict := sv.SelectorRequirements(spec)
	if spec.Affinity != nil && len(spec.Affinity.Terms) > 0 {
		ti := min(int(r.droppedRequiredTerms), len(spec.Affinity.Terms)-1)
		strict = append(strict, sv.TermRequirements(&spec.Affinity.Terms[ti])...)
		if len(spec.Affinity.Terms) > 1 {
			pd.requiredTerm = &spec.Affinity.Terms[ti]
		}
	}
	pd.strictRequirements = SortRequirements(syms, strict)
	pd.requirements = pd.strictRequirements
	if sv.settings.PreferencePolicy == apis.PreferencesRespect && int(r.droppedPreferredNodeAffinity) < len(spec.Preferred) {
		// The heaviest preferred term still in force acts as required.
		idx := make([]int, len(spec.Preferred))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return spec.Preferred[idx[a]].Weight > spec.Preferred[idx[b]].Weight })
		pd.preferredTerm = &spec.Preferred[idx[r.droppedPreferredNodeAffinity]].Term
		pd.requirements = MergeRequirements(syms, pd.strictRequirements, SortRequirements(syms, sv.TermRequirements(pd.preferredTerm)))
	}
	if v := spec.Volume; v != nil {
		// The zones of the pod's volumes (bound ones, or an unbound
		// WaitForFirstConsumer claim's allowedTopologies) join the node
		// requirements, not the strict ones that topology spread counts
		// domains by (KC volumetopology.go).
		if zones, ok := v.Zones(); ok {
			pd.requirements = MergeRequirements(syms, pd.requirements, Requirements{{Key: sv.cl.KeyZone, Values: zones}})
		}
	}
	req := func(ts []cluster.AffinityTerm) []affTerm {
		out := make([]affTerm, 0, len(ts))
		for i := range ts {
			out = append(out, affTerm{&ts[i]})
		}
		return out
	}
	pd.affinityTerms = req(spec.PodAffinity)
	pd.antiAffinityTerms = req(spec.PodAntiAffinity)
	if sv.settings.PreferencePolicy == apis.PreferencesRespect {
		pd.affinityTerms = append(pd.affinityTerms, byWeight(spec.PreferredPodAffinity, int(r.droppedPreferredAffinity))...)
		pd.antiAffinityTerms = append(pd.antiAffinityTerms, byWeight(spec.PreferredPodAntiAffinity, int(r.droppedPreferredAntiAffinity))...)
	}
	return pd
}

// resolveInverse fills the inverse groups that select the pod; done once
// every pod of the solve has registered its own.
func (s *Solver) resolveInverse(pd *PodData) {
	if pd.inverseDone {
		return
	}
	pd.inverseDone = true
	for _, g := range s.Topology.Inverse {
		if s.Topology.selects(g, pd.namespace, pd.spec.Labels) {
			pd.inverseSel = append(pd.inverseSel, g)
		}
	}
}
