package upstream

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	pscheduling "sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"

	disruptionfidelity "github.com/clustersim/clustersim/fidelity/disruption"
)

// methodName maps upstream's method types to the report's names.
func methodName(m disruption.Method) string {
	switch m.(type) {
	case *disruption.Emptiness:
		return disruptionfidelity.MethodEmptiness
	case *disruption.StaticDrift:
		return disruptionfidelity.MethodStaticDrift
	case *disruption.Drift:
		return disruptionfidelity.MethodDrift
	case *disruption.MultiNodeConsolidation:
		return disruptionfidelity.MethodMultiNode
	case *disruption.SingleNodeConsolidation:
		return disruptionfidelity.MethodSingleNode
	case *disruption.Repair:
		return disruptionfidelity.MethodRepair
	}
	return fmt.Sprintf("%T", m)
}

// decisionOf converts a method's commands (one, except static drift's one
// per NodePool) into a decision.
func decisionOf(m disruption.Method, cmds []disruption.Command, at time.Duration) disruptionfidelity.Decision {
	d := disruptionfidelity.Decision{Method: methodName(m), Reason: string(m.Reason()), At: at}
	for _, cmd := range cmds {
		for _, c := range cmd.Candidates {
			d.Candidates = append(d.Candidates, c.Name())
		}
		for _, r := range cmd.Replacements {
			d.Replacements = append(d.Replacements, replacementOf(r.NodeClaim))
		}
	}
	sort.Strings(d.Candidates)
	sort.SliceStable(d.Replacements, func(i, j int) bool { return d.Replacements[i].Cheapest < d.Replacements[j].Cheapest })
	return d
}

// replacementOf is a new NodeClaim: its pool, the capacity types its
// requirements allow, and its instance types by their cheapest compatible
// available offering (ties by name).
func replacementOf(nc *pscheduling.NodeClaim) disruptionfidelity.Replacement {
	r := disruptionfidelity.Replacement{Pool: nc.NodePoolName}
	ct := nc.Requirements.Get(karpv1.CapacityTypeLabelKey)
	var cts []string
	for _, t := range []string{karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand} {
		if ct.Has(t) {
			cts = append(cts, t)
		}
	}
	r.CapacityType = strings.Join(cts, ",")
	type priced struct {
		name  string
		price float64
	}
	var its []priced
	for _, it := range nc.InstanceTypeOptions {
		p := math.Inf(1)
		if o := it.Offerings.Available().Compatible(nc.Requirements).Cheapest(); o != nil {
			p = o.Price
		}
		its = append(its, priced{it.Name, p})
	}
	sort.Slice(its, func(i, j int) bool {
		if its[i].price != its[j].price {
			return its[i].price < its[j].price
		}
		return its[i].name < its[j].name
	})
	r.Cheapest = math.Inf(1)
	for i, it := range its {
		if i == 0 {
			r.Cheapest = it.price
		}
		r.Types = append(r.Types, it.name)
	}
	return r
}

func expirationDecision(nodes []string, at time.Duration) disruptionfidelity.Decision {
	sort.Strings(nodes)
	return disruptionfidelity.Decision{Method: disruptionfidelity.MethodExpiration, Reason: "Expired", Candidates: nodes, At: at}
}
