package karpenter

import (
	"math"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// Consolidation what-ifs whose answer is known before they run. At scale
// most single-node what-ifs of a pass fail the same way: the candidate's
// pods fill the few holes left on other nodes, the next one starts a
// NodeClaim, and a spot candidate with spot-to-spot consolidation off
// cannot be replaced (earlyNo stops such a what-if at that NodeClaim).
// When this is certain from counting alone, the what-if is skipped; it
// still counts as computed (passTime), as upstream computes it.
//
// It is certain when, besides earlyNo's conditions for stopping at a spot
// NodeClaim, every NodePool's NodeClaims may launch spot (so whichever
// NodeClaim the what-if starts first stops it), and for some template
// without topology constraints the candidates hold more of its pods than
// the other nodes have room for (counting whole pods per node, on nodes
// consolidateAfter does not protect, in the state before the what-if,
// which only loses room), and a pod of it would start a NodeClaim in that
// state (limits only loosen when candidates are excluded). Then, when
// that template's pods come up in the queue, one finds no existing node
// and no NodeClaim to join (any earlier one would have stopped the
// what-if) and starts a NodeClaim, which may launch spot: the answer is
// no.

// doomState is what one pass's checks share.
type doomState struct {
	ok bool // the pass-wide conditions hold
	// probe is a what-if that excludes nothing, for asking what pods
	// would do; room and starts are its answers per class and template.
	probe  *scheduling.Solver
	room   map[int32]int64 // by spec class
	starts map[int32]bool
}

func (d *disrupter) passDoom() *doomState {
	if ds := d.pass.doom; ds != nil {
		return ds
	}
	ds := &doomState{}
	d.pass.doom = ds
	s := d.solvers.NewSolver(nil, scheduling.SolveOpts{Consolidation: true, Universe: d.universe(), ReservedFallback: true})
	ds.probe = s
	spotBits := d.offerings.CapacityTypeBits(scheduling.SpotIndex)
	for _, p := range s.Pools {
		if len(p.Types) > 0 && d.offerings.OfferingMask(p.Requirements)&spotBits == 0 {
			return ds
		}
	}
	for _, g := range s.Topology.Inverse {
		if g.Key == d.cl.KeyCapacityType {
			return ds
		}
	}
	ds.ok = true
	ds.room, ds.starts = map[int32]int64{}, map[int32]bool{}
	return ds
}

// doomed reports whether consolidating cs is known to fail (see above).
func (d *disrupter) doomed(cs []*candidate) bool {
	if !d.pass.on || whatIfHooks.full || d.settings.SpotToSpotConsolidation {
		return false
	}
	for _, c := range cs {
		if c.kn.Offering.CapacityType != cluster.Spot || c.podSet(d.solvers).NamesCapacityType {
			return false
		}
	}
	if d.provisionableSet().NamesCapacityType {
		return false
	}
	ds := d.passDoom()
	if !ds.ok {
		return false
	}
	s := ds.probe
	// Pods per class on the candidates, then room for them elsewhere.
	// Without inverse anti-affinity in the cluster, a template without
	// topology constraints has none in the solve either.
	if len(s.Topology.Inverse) > 0 {
		return false
	}
	type need struct {
		pd    *scheduling.PodData
		count int64
	}
	var needs []need
	for _, c := range cs {
		for _, cc := range c.podSet(d.solvers).ClassCounts(d.solvers) {
			j := slices.IndexFunc(needs, func(n need) bool { return n.pd.Class == cc.Class })
			if j < 0 {
				needs = append(needs, need{pd: s.PodData(cc.Key.Spec, cc.Key.Namespace, scheduling.Relaxation{})})
				j = len(needs) - 1
			}
			needs[j].count += cc.Count
		}
	}
	for _, n := range needs {
		room := d.roomFor(ds, n.pd)
		for _, c := range cs {
			if pos := s.BasePosition(c.kn.ID); pos >= 0 {
				room -= roomOn(s, &s.Base[pos], n.pd)
			}
		}
		if n.count > room && d.startsClaim(ds, n.pd) {
			return true
		}
	}
	return false
}

// roomFor counts the pods of pd's class the base can take, on nodes
// consolidateAfter does not protect (the pods are moved ones).
func (d *disrupter) roomFor(ds *doomState, pd *scheduling.PodData) int64 {
	if r, ok := ds.room[pd.Class]; ok {
		return r
	}
	s := ds.probe
	jt := pd.JumpTables[1]
	if jt == nil {
		jt = s.Snapshot.JumpTable(scheduling.FitClass{SpecClass: pd.Class, Relaxation: pd.Relaxation, UnderConsolidateAfter: true})
		pd.JumpTables[1] = jt
	}
	var room int64
	for i := s.NextBaseFit(jt, pd, true, 0); i < len(s.Base); i = s.NextBaseFit(jt, pd, true, i+1) {
		room += podsFitting(&s.Base[i].Free, &pd.Requests)
	}
	ds.room[pd.Class] = room
	return room
}

// roomOn counts the pods of pd's class one base node can take (0 if the
// node does not fit them or consolidateAfter protects it).
func roomOn(s *scheduling.Solver, ex *scheduling.ExistingNode, pd *scheduling.PodData) int64 {
	if s.Now < ex.ConsolidateAfterUntil || !pd.Requests.Fits(ex.Free) || !s.StaticFits(pd, ex) {
		return 0
	}
	return podsFitting(&ex.Free, &pd.Requests)
}

// podsFitting is how many pods of the requests fit in free, whole pods:
// the least over the resources requested (huge if none is).
func podsFitting(free, req *cluster.Resources) int64 {
	n := int64(math.MaxInt64 / 4)
	for r := range req {
		if req[r] <= 0 {
			continue
		}
		if free[r] < req[r] {
			return 0
		}
		n = min(n, free[r]/req[r])
	}
	return n
}

// startsClaim reports whether a pod of pd would start a NodeClaim in the
// probe's state.
func (d *disrupter) startsClaim(ds *doomState, pd *scheduling.PodData) bool {
	if v, ok := ds.starts[pd.Class]; ok {
		return v
	}
	_, _, _, _, ok := ds.probe.StartClaim(pd)
	ds.starts[pd.Class] = ok
	return ok
}
