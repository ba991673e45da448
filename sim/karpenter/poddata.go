package karpenter

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// relax is how far a pod's preferences have been relaxed in one
// scheduling attempt (KC preferences.go, in its order: drop the first
// required node-affinity term while more than one remain, drop the
// heaviest preferred pod affinity term, then pod anti-affinity term, then
// node affinity term, drop a ScheduleAnyway spread constraint, and last
// tolerate PreferNoSchedule taints if a NodePool has one).
type relax struct {
	terms, prefAff, prefAnti, prefNode, spread uint8
	pns                                        bool
}

type pdKey struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
	r    relax
}

type affTerm struct{ t *cluster.AffinityTerm }

// podData is what scheduling derives from a pod spec in one relaxation
// state; replicas of a template share it.
type podData struct {
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
	// jts are the existing-node jump tables of its class in this solve,
	// without and with the consolidateAfter filter (nil until looked up).
	jts [2]*jumpTable
}

// podStatic is the part of podData that depends only on the spec, the
// namespace and the relaxation, not on the solve: the solves of one
// instant (a disruption pass) share it.
type podStatic struct {
	spec     *cluster.PodSpec
	ns       cluster.Sym
	relax    relax
	requests cluster.Resources
	// reqs include the heaviest preferred node-affinity term in force;
	// strict are the required ones only (nodeSelector and the node
	// affinity term in force).
	reqs, strict reqSet
	// term is the required node affinity term in force when the pod has
	// several (nil otherwise); pref the preferred term treated as
	// required (nil if none).
	term *cluster.Term
	pref *cluster.Term
	// tolPNS: PreferNoSchedule taints are tolerated.
	tolPNS bool
	// class numbers the spec's content for the existing-node scan.
	class int32
	// idx numbers the static data of the instant (the solver's index).
	idx int32

	affTerms, antiTerms []affTerm
}

func (pd *podData) topo() bool { return len(pd.groups) > 0 || len(pd.inverseSel) > 0 }

// canRelax applies the next relaxation; false when nothing is left.
func (sv *solvers) nextRelax(spec *cluster.PodSpec, r relax, anyPNS bool) (relax, bool) {
	if sv.settings.PreferencePolicy == apis.PreferencesIgnore {
		if spec.Affinity != nil && len(spec.Affinity.Terms)-int(r.terms) > 1 {
			r.terms++
			return r, true
		}
		return r, false
	}
	switch {
	case spec.Affinity != nil && len(spec.Affinity.Terms)-int(r.terms) > 1:
		r.terms++
	case int(r.prefAff) < len(spec.PreferredPodAffinity):
		r.prefAff++
	case int(r.prefAnti) < len(spec.PreferredPodAntiAffinity):
		r.prefAnti++
	case int(r.prefNode) < len(spec.Preferred):
		r.prefNode++
	case int(r.spread) < countSoftSpread(spec):
		r.spread++
	case anyPNS && !r.pns:
		r.pns = true
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

// termReqs converts a node selector term (matchExpressions only, as
// Karpenter does) into requirements.
func (sv *solvers) termReqs(t *cluster.Term) []rq {
	var out []rq
	for i := range t.Reqs {
		if t.Reqs[i].Field {
			continue
		}
		r := fromRequirement(&t.Reqs[i])
		r.key = sv.normalize(r.key)
		out = append(out, r)
	}
	return out
}

func (sv *solvers) selectorReqs(spec *cluster.PodSpec) []rq {
	var out []rq
	for i := range spec.NodeSelector {
		r := fromRequirement(&spec.NodeSelector[i])
		r.key = sv.normalize(r.key)
		out = append(out, r)
	}
	return out
}

// filterTerms are the node filter of a spread constraint: nodeSelector with
// each required term (ORed).
func (sv *solvers) filterTerms(spec *cluster.PodSpec) []reqSet {
	syms := sv.cl.Syms
	base := sv.selectorReqs(spec)
	if spec.Affinity == nil || len(spec.Affinity.Terms) == 0 {
		if len(base) == 0 {
			return nil
		}
		return []reqSet{sortReqs(syms, base)}
	}
	var out []reqSet
	for i := range spec.Affinity.Terms {
		rs := append(append([]rq(nil), base...), sv.termReqs(&spec.Affinity.Terms[i])...)
		out = append(out, sortReqs(syms, rs))
	}
	return out
}

// podData returns the derived data of a pod spec in a relaxation state,
// creating its topology groups on first use.
func (s *solver) podData(spec *cluster.PodSpec, ns cluster.Sym, r relax) *podData {
	key := pdKey{spec, ns, r}
	// Consecutive pods are mostly replicas of one template.
	if s.lastPD != nil && s.lastKey == key {
		return s.lastPD
	}
	st := s.k.podStatic(key)
	if int(st.idx) >= len(s.pds) {
		if s.pds == nil {
			s.pds, s.k.pdsFree = s.k.pdsFree, nil
		}
		for int(st.idx) >= len(s.pds) {
			s.pds = append(s.pds, nil)
		}
	}
	pd := s.pds[st.idx]
	if pd == nil {
		pd = s.k.newPodData(st, len(s.pools))
		pd.groups = s.topo.addSpecGroups(pd)
		pd.inverseOwn = s.topo.addInverse(spec, ns)
		s.pds[st.idx] = pd
	}
	s.lastKey, s.lastPD = key, pd
	return pd
}

// newPodData returns a podData for st, reusing one a finished what-if
// gave back (solvers.recycle).
func (sv *solvers) newPodData(st *podStatic, pools int) *podData {
	n := len(sv.pdFree)
	if n == 0 {
		return &podData{podStatic: *st, tmplTol: make([]uint8, pools)}
	}
	pd := sv.pdFree[n-1]
	sv.pdFree = sv.pdFree[:n-1]
	tol := pd.tmplTol[:0]
	for range pools {
		tol = append(tol, 0)
	}
	*pd = podData{podStatic: *st, tmplTol: tol, sel: pd.sel[:0]}
	return pd
}

// podStatic returns the solve-independent data of a pod spec in a
// relaxation state, cached for the current instant.
func (sv *solvers) podStatic(key pdKey) *podStatic {
	if now := sv.eng.Now(); sv.staticsAt != now || sv.podStatics == nil {
		sv.podStatics = map[pdKey]*podStatic{}
		sv.staticsAt = now
	}
	if st, ok := sv.podStatics[key]; ok {
		return st
	}
	st := sv.derivePodStatic(key, sv.specClass(key.spec))
	st.idx = int32(len(sv.podStatics))
	sv.podStatics[key] = st
	return st
}

// derivePodStatic works out the solve-independent data of a pod spec in a
// relaxation state, of spec class class, without caching it (idx left 0).
// It changes nothing: CheckIndexes recomputes the cache with it.
func (sv *solvers) derivePodStatic(key pdKey, class int32) *podStatic {
	spec, r := key.spec, key.r
	syms := sv.cl.Syms
	pd := &podStatic{spec: spec, ns: key.ns, relax: r, requests: spec.Requests, tolPNS: r.pns, class: class}
	strict := sv.selectorReqs(spec)
	if spec.Affinity != nil && len(spec.Affinity.Terms) > 0 {
		ti := min(int(r.terms), len(spec.Affinity.Terms)-1)
		strict = append(strict, sv.termReqs(&spec.Affinity.Terms[ti])...)
		if len(spec.Affinity.Terms) > 1 {
			pd.term = &spec.Affinity.Terms[ti]
		}
	}
	pd.strict = sortReqs(syms, strict)
	pd.reqs = pd.strict
	if sv.settings.PreferencePolicy == apis.PreferencesRespect && int(r.prefNode) < len(spec.Preferred) {
		// The heaviest preferred term still in force acts as required.
		idx := make([]int, len(spec.Preferred))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return spec.Preferred[idx[a]].Weight > spec.Preferred[idx[b]].Weight })
		pd.pref = &spec.Preferred[idx[r.prefNode]].Term
		pd.reqs = merge(syms, pd.strict, sortReqs(syms, sv.termReqs(pd.pref)))
	}
	if v := spec.Volume; v != nil {
		// The zones of the pod's volumes (bound ones, or an unbound
		// WaitForFirstConsumer claim's allowedTopologies) join the node
		// requirements, not the strict ones that topology spread counts
		// domains by (KC volumetopology.go).
		if zones, ok := v.Zones(); ok {
			pd.reqs = merge(syms, pd.reqs, reqSet{{key: sv.cl.KeyZone, vals: zones}})
		}
	}
	req := func(ts []cluster.AffinityTerm) []affTerm {
		out := make([]affTerm, 0, len(ts))
		for i := range ts {
			out = append(out, affTerm{&ts[i]})
		}
		return out
	}
	pd.affTerms = req(spec.PodAffinity)
	pd.antiTerms = req(spec.PodAntiAffinity)
	if sv.settings.PreferencePolicy == apis.PreferencesRespect {
		pd.affTerms = append(pd.affTerms, byWeight(spec.PreferredPodAffinity, int(r.prefAff))...)
		pd.antiTerms = append(pd.antiTerms, byWeight(spec.PreferredPodAntiAffinity, int(r.prefAnti))...)
	}
	return pd
}

// resolveInverse fills the inverse groups that select the pod; done once
// every pod of the solve has registered its own.
func (s *solver) resolveInverse(pd *podData) {
	if pd.inverseDone {
		return
	}
	pd.inverseDone = true
	for _, g := range s.topo.inverse {
		if s.topo.selects(g, pd.ns, pd.spec.Labels) {
			pd.inverseSel = append(pd.inverseSel, g)
		}
	}
}
