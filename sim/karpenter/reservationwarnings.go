package karpenter

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// reservationWarnings are the findings on capacity reservations: the
// gate that leaves them off, an EC2NodeClass whose terms select none of
// spec.market.reservations, reservations selected but never allowed by
// a NodePool (billed, never used), NodePools that allow reserved without
// a reservation, reservations no class selects, and requirements on the
// reservation labels, which the simulation does not narrow by.
func reservationWarnings(env component.Env, pools []NodePool, st Settings) []component.Warning {
	var out []component.Warning
	if len(pools) == 0 {
		return nil
	}
	syms := env.Syms.Clone() // findings must not renumber the run's symbols
	reserved := syms.Intern("reserved")
	keyCT := syms.Intern(apis.LabelCapacityType)
	allows := func(p *NodePool) bool {
		ls := cluster.Labels{{Key: keyCT, Value: reserved}}
		for i := range p.Requirements {
			if r := &p.Requirements[i]; r.Key == keyCT && !r.Matches(syms, ls) {
				return false
			}
		}
		// A pool without a capacity-type requirement is on-demand only
		// (KC's default requirement).
		for i := range p.Requirements {
			if p.Requirements[i].Key == keyCT {
				return true
			}
		}
		return false
	}
	selectedBy := map[string]bool{}
	seen := map[string]bool{}
	for i := range pools {
		nc := &pools[i].NodeClass
		if len(nc.ReservationTerms) == 0 || seen[nc.Name] {
			continue
		}
		seen[nc.Name] = true
		if !st.ReservedCapacity {
			out = append(out, component.Warning{Code: "karpenter.gate-off", File: nc.File, Line: nc.Line, Info: true,
				Msg: fmt.Sprintf("EC2NodeClass/%s selects capacity reservations, but the ReservedCapacity feature gate is off: Karpenter offers none of them", nc.Name),
				Fix: "turn the gate on (its default since v1.6): FEATURE_GATES=ReservedCapacity=true, or spec.karpenter.featureGates.reservedCapacity: true"})
			continue
		}
		var ids []string
		for j := range env.Reservations {
			if r := &env.Reservations[j]; nc.SelectsReservation(r) {
				ids = append(ids, r.ID)
				selectedBy[r.ID] = true
			}
		}
		if len(ids) == 0 {
			out = append(out, component.Warning{Code: "ineffective.reservation-unmatched", File: nc.File, Line: nc.Line, Path: "spec.capacityReservationSelectorTerms",
				Msg: fmt.Sprintf("EC2NodeClass/%s's capacityReservationSelectorTerms select none of spec.market.reservations: no reserved offering exists here", nc.Name),
				Fix: "list the account's reservations in spec.market.reservations (id, instanceType, zone, count; tags and ownerID for tag terms)"})
			continue
		}
		allowed := false
		for j := range pools {
			allowed = allowed || (pools[j].NodeClass.Name == nc.Name && allows(&pools[j]))
		}
		if !allowed {
			out = append(out, component.Warning{Code: "ineffective.reservation-not-allowed", File: nc.File, Line: nc.Line, Path: "spec.capacityReservationSelectorTerms",
				Msg: fmt.Sprintf("EC2NodeClass/%s selects %s, but no NodePool using it allows karpenter.sh/capacity-type reserved: Karpenter launches nothing into them, and they are billed all the same", nc.Name, strings.Join(ids, ", ")),
				Fix: "add reserved to the NodePool's karpenter.sh/capacity-type requirement (e.g. values: [reserved, on-demand])"})
		}
	}
	for i := range pools {
		p := &pools[i]
		if st.ReservedCapacity && allows(p) && !anySelected(&p.NodeClass, env) {
			out = append(out, component.Warning{Code: "ineffective.reserved-without-reservation", File: p.File, Line: p.Line, Path: "spec.template.spec.requirements",
				Msg: fmt.Sprintf("NodePool/%s allows capacity type reserved, but its EC2NodeClass/%s selects no capacity reservation: it launches spot or on-demand only", p.Name, p.NodeClass.Name),
				Fix: "select the reservations in the EC2NodeClass's capacityReservationSelectorTerms (and list them in spec.market.reservations)"})
		}
		for j := range p.Requirements {
			if k := syms.Name(p.Requirements[j].Key); strings.HasPrefix(k, "karpenter.k8s.aws/capacity-reservation-") {
				out = append(out, component.Warning{Code: "karpenter.setting-not-modelled", File: p.File, Line: p.Line, Path: "spec.template.spec.requirements",
					Msg: fmt.Sprintf("NodePool/%s requires %s: the simulation does not narrow reserved offerings by it (nodes carry the label, pods selecting it schedule only on such nodes)", p.Name, k)})
			}
		}
	}
	if st.ReservedCapacity && len(pools) > 0 && env.Scenario != nil {
		for j := range env.Reservations {
			if r := &env.Reservations[j]; !selectedBy[r.ID] {
				out = append(out, component.Warning{Code: "ineffective.reservation-unused", File: env.Scenario.File, Line: env.Scenario.Line, Path: fmt.Sprintf("spec.market.reservations[%d]", j),
					Msg: fmt.Sprintf("capacity reservation %s (%d x %s in %s) is selected by no EC2NodeClass: Karpenter never launches into it, and it is billed all the same", r.ID, r.Count, r.InstanceType, r.Zone),
					Fix: "select it in an EC2NodeClass's capacityReservationSelectorTerms, e.g. - id: " + r.ID})
			}
		}
	}
	return out
}

func anySelected(nc *apis.NodeClass, env component.Env) bool {
	for j := range env.Reservations {
		if nc.SelectsReservation(&env.Reservations[j]) {
			return true
		}
	}
	return false
}
