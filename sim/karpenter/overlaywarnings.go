package karpenter

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/overlay"
)

// overlayWarnings are the findings on NodeOverlays: the gate that leaves
// them off, an overlay that conflicts with another of its weight (never
// applied) or matches no instance type of any pool, and a reminder that
// overlaid prices steer Karpenter but do not change the bill. They are
// worked out on the catalogue's offerings (package overlay, as a run does
// on the market's).
func overlayWarnings(env component.Env, pools []NodePool, ovs []apis.NodeOverlay, st Settings) []component.Warning {
	if len(ovs) == 0 {
		return nil
	}
	first := ovs[0]
	for _, o := range ovs {
		if o.File < first.File || o.File == first.File && o.Line < first.Line {
			first = o
		}
	}
	if !st.NodeOverlay {
		return []component.Warning{{Code: "karpenter.gate-off", File: first.File, Line: first.Line, Info: true,
			Msg: fmt.Sprintf("%d NodeOverlay(s), but the NodeOverlay feature gate is off (its default in v1.15): Karpenter applies none of them", len(ovs)),
			Fix: "turn the gate on: FEATURE_GATES=NodeOverlay=true on Karpenter's controller (Helm: settings.featureGates.nodeOverlay=true), or spec.karpenter.featureGates.nodeOverlay: true"}}
	}
	if len(pools) == 0 {
		return nil
	}
	syms := env.Syms.Clone() // the evaluation's symbols must not renumber the run's
	keyPool := syms.Intern(apis.LabelNodePool)
	ps := make([]overlay.Pool, len(pools))
	for i := range pools {
		ps[i] = overlay.Pool{Name: pools[i].Name, Labels: pools[i].Labels.With(keyPool, syms.Intern(pools[i].Name))}
	}
	types := overlay.CatalogTypes(syms, env.Catalog, env.Region, env.Zones)
	res := overlay.Evaluate(syms, overlay.Keys{Zone: syms.Intern(apis.LabelZone), CapacityType: syms.Intern(apis.LabelCapacityType)}, ovs, ps, types)
	var out []component.Warning
	priced := false
	for i, s := range res.Status {
		o := &ovs[i]
		w := component.Warning{File: o.File, Line: o.Line}
		switch {
		case s.ConflictWith >= 0:
			other := &ovs[s.ConflictWith]
			what := "the price of"
			if s.ConflictOn == "capacity" {
				what = "an extended resource of"
			}
			w.Code = "ineffective.node-overlay-conflict"
			w.Msg = fmt.Sprintf("NodeOverlay/%s is never applied: it has the weight (%d) of NodeOverlay/%s (%s:%d), which already sets %s %s in NodePool/%s (upstream: ValidationSucceeded=False, reason Conflict)",
				o.Name, o.Weight, other.Name, other.File, other.Line, what, types.Name(s.ConflictType), ps[s.ConflictPool].Name)
			w.Fix = "give the two overlays different weights (the higher wins), or requirements that do not overlap"
		case s.Types == 0:
			w.Code = "ineffective.node-overlay-unmatched"
			w.Msg = fmt.Sprintf("NodeOverlay/%s matches no instance type of any NodePool (%s): it changes nothing", o.Name, poolNames(pools))
			w.Fix = "check its requirements against the instance types' labels; a custom label must be in the NodePool's spec.template.metadata.labels (its requirements are not matched)"
		default:
			priced = priced || o.Price != nil
			continue
		}
		out = append(out, w)
	}
	if priced {
		out = append(out, component.Warning{Code: "karpenter.overlay-prices", File: first.File, Line: first.Line, Info: true,
			Msg: "NodeOverlay prices steer Karpenter (its instance-type order, EC2 Fleet priorities, consolidation's savings); the report's cost is what EC2 bills, at its own prices, and cost.overlaidUSD (\"cost at NodeOverlay prices\") has the overlaid nodes at the overlays' prices"})
	}
	return out
}

func poolNames(pools []NodePool) string {
	names := make([]string, len(pools))
	for i := range pools {
		names[i] = pools[i].Name
	}
	return strings.Join(names, ", ")
}
