package karpenter

import (
	"sort"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// drift replaces nodes that no longer match their NodePool, one at a time,
// empty ones first, then the longest drifted (KC Drift). It is not
// consolidation: it runs whatever the cluster state, and its command
// starts at once, without validation.
type drift struct{ d *disrupter }

// shouldDisrupt: static pools' drifted nodes are staticDrift's.
func (dr *drift) shouldDisrupt(kn *knode, _ bool) bool { return !kn.Pool.Spec.Static && dr.drifted(kn) }

// computeCommand takes the first candidate within budget whose pods all
// fit elsewhere or on new NodeClaims.
func (dr *drift) computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command {
	d := dr.d
	sort.SliceStable(cs, func(i, j int) bool {
		ei, ej := len(cs[i].pods) == 0, len(cs[j].pods) == 0
		if ei != ej {
			return ei
		}
		if cs[i].kn.driftedAt != cs[j].kn.driftedAt {
			return cs[i].kn.driftedAt < cs[j].kn.driftedAt
		}
		return cs[i].kn.ID < cs[j].kn.ID
	})
	for _, c := range cs {
		if budget[c.kn.Pool] == 0 {
			continue
		}
		s := d.simulate([]*candidate{c}, forDrift)
		ok, claims := d.allMovedScheduled(s), s.Claims
		d.solvers.Recycle(s)
		if !ok {
			continue
		}
		return &command{method: dr, cands: []*candidate{c}, replacements: claims}
	}
	return nil
}

func (dr *drift) reason() apis.Reason                { return apis.ReasonDrifted }
func (dr *drift) stat() string                       { return reasonDrifted }
func (dr *drift) name() string                       { return "drift" }
func (dr *drift) class() disruptionClass             { return eventual }
func (dr *drift) consolidationState() *consolidation { return nil }

// validate is never asked: drift commands start at once.
func (dr *drift) validate(*command, []*candidate) bool { return true }

// driftNow is what drifted would say now, without recording it (the check
// is lazy: a node is asked when the drift method looks for candidates), and
// since when: an export's Drifted time, or now for a drift found now.
// For views (the state dump), which must not change the run.
func (dr *drift) driftNow(kn *knode) (bool, engine.Time) {
	if kn.drifted {
		return true, kn.driftedAt
	}
	p := kn.Pool
	if kn.driftChecked == p.Spec {
		return false, 0 // checked against this version of the pool already
	}
	if p.Spec.TemplateHash == kn.poolHash && p.Spec.NodeClass.Hash == kn.classHash &&
		scheduling.RequirementsCompatible(dr.d.cl.Syms, scheduling.RequirementsFromLabels(dr.d.cl.Nodes[kn.ID].Labels), p.Requirements, dr.d.wellKnown) {
		return false, 0
	}
	if kn.exportDrift {
		return true, kn.exportDriftAt // the drift order goes on from the export's
	}
	return true, dr.d.eng.Now()
}

// drifted reports whether the node no longer matches its NodePool: the
// template hash or node class hash changed, the pool is gone, or the
// node's labels no longer meet the pool's requirements (KC drift).
func (dr *drift) drifted(kn *knode) bool {
	drift, at := dr.driftNow(kn)
	if !kn.drifted {
		kn.driftChecked = kn.Pool.Spec
		kn.drifted, kn.driftedAt = drift, at
	}
	return drift
}
