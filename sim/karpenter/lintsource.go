package karpenter

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// This file is Karpenter as sim lint's capacity sources
// (component.CapacityLinter): each NodePool once per capacity type its
// requirements allow, judged by the Linter (the solver run for one pod)
// and its LaunchCheck failures worded for people.

func (karpenterComponent) LintName() string { return "Karpenter" }

// LintSources: the NodePools by name, each spot then on-demand.
func (karpenterComponent) LintSources(cfg component.Config, env *component.LintEnv) ([]component.LintSource, error) {
	c := cfg.(*Config)
	if len(c.NodePools) == 0 {
		return nil, nil
	}
	prices, err := env.Prices()
	if err != nil {
		return nil, fmt.Errorf("the EC2 offerings: %w", err)
	}
	l, err := NewLinter(env.Syms, env.Resources, env.Catalog, PriceFunc(prices), env.Region, env.Zones, c.NodePools, c.NodeOverlays, c.Settings,
		DaemonOverheadFunc(env.DaemonSetOverhead), env.Reservations...)
	if err != nil {
		return nil, fmt.Errorf("the Karpenter NodePools: %w", err)
	}
	var out []component.LintSource
	for i := range c.NodePools {
		np := &c.NodePools[i]
		var labels []string
		for _, lb := range np.Labels {
			labels = append(labels, env.Syms.Name(lb.Key)+"="+env.Syms.Name(lb.Value))
		}
		sort.Strings(labels)
		pool := "NodePool/" + np.Name
		replicas, gateOff, static := l.Static(np.Name)
		for _, ct := range l.CapacityTypes(np.Name) {
			// A static pool's row says "adds nodes: no" (Provisions).
			s := component.LintSource{ID: fmt.Sprintf("%s (%s)", pool, ct), Kind: "NodePool", Name: np.Name,
				CapacityType: ct.String(), File: np.File, Line: np.Line, Path: "spec.template.spec.requirements",
				Spot: ct == cluster.Spot, Taints: np.Taints, Labels: labels, Pool: pool, AnyZone: true,
				FlexibilityFix:  fmt.Sprintf("allow more instance types in %s: several families and sizes (karpenter.k8s.aws/instance-family, karpenter.k8s.aws/instance-size) rather than a list of types", pool),
				FlexibilityPath: "spec.template.spec.requirements",
			}
			if s.Spot {
				s.OnDemandFix = fmt.Sprintf("allow on-demand in %s (karpenter.sh/capacity-type In [spot, on-demand]): Karpenter then falls back to on-demand by itself", pool)
				if !static { // static pools are never consolidated
					s.SpotToSpot = spotToSpot(c.Settings, np)
				}
			}
			s.Judge = func(spec *cluster.PodSpec) component.LintVerdict {
				chk := l.Check(np.Name, spec, ct)
				// A static pool's nodes are there whatever the pods, and
				// Karpenter never launches from it for a pod.
				v := component.LintVerdict{CanLand: chk.Fits && (!static || replicas > 0 && !gateOff), Provisions: chk.Fits && !static, InstanceTypes: chk.InstanceTypes}
				switch {
				case !chk.Fits:
					v.Why = launchWhy(env, chk, np.Name, ct, spec)
					if chk.Fail == FailTooBig && !c.Settings.NodeOverlay {
						if ov, res := gatedOverlayFor(env, c.NodeOverlays, spec); ov != nil {
							v.Why.Text += fmt.Sprintf("; %s gives %s, but the NodeOverlay feature gate is off", ov, res)
							v.Why.Fix = "turn on the NodeOverlay feature gate (FEATURE_GATES=NodeOverlay=true, or spec.karpenter.featureGates.nodeOverlay: true)"
						}
					}
				case gateOff:
					v.Why = component.LintWhy{Kind: "not-autoscaled", Text: fmt.Sprintf("%s is static (spec.replicas) and the StaticCapacity feature gate is off: it keeps no nodes", pool),
						Fix: "turn on the StaticCapacity feature gate"}
				case replicas == 0:
					v.Why = component.LintWhy{Kind: "no-nodes", Text: fmt.Sprintf("%s is static with spec.replicas 0: it keeps no nodes, and Karpenter launches none from it for pods", pool),
						Fix: "raise spec.replicas"}
				}
				return v
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// gatedOverlayFor returns an overlay that gives an extended resource the
// pod asks for (and the resource), nil when none does: with the gate off,
// it is what would have made the pod fit.
func gatedOverlayFor(env *component.LintEnv, ovs []apis.NodeOverlay, spec *cluster.PodSpec) (*apis.NodeOverlay, string) {
	for i := range ovs {
		for _, r := range ovs[i].Capacity {
			if slot, ok := env.Resources.Lookup(corev1.ResourceName(r.Name)); ok && spec.Requests[slot] > 0 {
				return &ovs[i], r.Name
			}
		}
	}
	return nil, ""
}

// spotToSpot words the spot-to-spot-flexibility finding for a spot pool:
// with the SpotToSpotConsolidation feature gate on, a pool that
// consolidates underutilized nodes replaces a spot node by a cheaper spot
// one only with enough instance types to choose from; nil when that does
// not apply.
func spotToSpot(st Settings, np *NodePool) func(string, int) (string, string, bool) {
	if !st.SpotToSpotConsolidation || np.Disruption.ConsolidateNever || !np.Disruption.Policy.ConsolidatesUnderutilized() {
		return nil
	}
	return func(workload string, n int) (string, string, bool) {
		if n >= st.SpotToSpotMinTypes {
			return "", "", false
		}
		return fmt.Sprintf("NodePool/%s offers %s only %d spot instance type(s): spot-to-spot consolidation (feature gate on) needs at least %d, so Karpenter never replaces its spot nodes with cheaper ones",
				np.Name, workload, n, st.SpotToSpotMinTypes),
			fmt.Sprintf("allow at least %d instance types in NodePool/%s", st.SpotToSpotMinTypes, np.Name), true
	}
}

// launchWhy words a LaunchCheck failure of pool for capacity type ct.
func launchWhy(env *component.LintEnv, chk LaunchCheck, poolName string, ct cluster.CapacityType, spec *cluster.PodSpec) component.LintWhy {
	pool := "NodePool/" + poolName
	where := func(base string) string {
		if chk.Term >= 0 {
			return fmt.Sprintf("affinity term %d needs %s %s", chk.Term, chk.Key, chk.PodSide)
		}
		return base
	}
	type why = component.LintWhy
	switch chk.Fail {
	case FailCapacityType:
		if chk.Term < 0 && chk.PodSide == "In ["+ct.String()+"]" {
			return why{Kind: "capacity-type", Text: fmt.Sprintf("%s does not allow %s", pool, ct)}
		}
		return why{Kind: "capacity-type", Text: where(fmt.Sprintf("the pod needs %s %s", chk.Key, chk.PodSide)),
			Fix: "allow the capacity type the pod needs"}
	case FailTaint:
		return env.TaintWhy(chk.Taint)
	case FailLabel:
		text := where("missing label " + labelWant(chk.Key, chk.PodSide))
		return why{Kind: kindOfTerm(chk.Term, "label"), Text: text,
			Fix: fmt.Sprintf("add %s to %s's spec.template.metadata.labels (or requirements), or drop the pod's requirement", labelWant(chk.Key, chk.PodSide), pool)}
	case FailRequirement:
		text := where(fmt.Sprintf("needs label %s", labelWant(chk.Key, chk.PodSide))) + fmt.Sprintf("; %s has %s %s", pool, chk.Key, chk.PoolSide)
		return why{Kind: kindOfTerm(chk.Term, "label"), Text: text, Fix: fmt.Sprintf("make the pod's and %s's values of %s meet", pool, chk.Key)}
	case FailZone:
		text := "no zone in common"
		switch {
		case chk.PodSide != "" && chk.PoolSide != "":
			text += fmt.Sprintf(" (the pod needs %s; %s allows %s)", chk.PodSide, pool, chk.PoolSide)
		case chk.PoolSide != "":
			text += fmt.Sprintf(" (%s allows %s; the scenario's zones are %s)", pool, chk.PoolSide, strings.Join(env.Zones, ", "))
		}
		return why{Kind: "zone", Text: text, Fix: "allow a zone both have"}
	case FailInstanceType:
		text := "no instance type satisfies the requirements"
		if chk.Key != "" {
			text += fmt.Sprintf(" (the pod needs %s %s; %s has %s)", chk.Key, chk.PodSide, pool, orAny(chk.PoolSide))
		}
		return why{Kind: "instance-type", Text: text, Fix: fmt.Sprintf("widen %s's instance requirements or the pod's", pool)}
	case FailTooBig:
		rooms := make([]component.TypeRoom, len(chk.Rooms))
		for i, r := range chk.Rooms {
			rooms[i] = component.TypeRoom{Name: r.Name, Room: r.Room}
		}
		return env.TooBigWhy(spec, rooms, "allowed type", " in "+pool+"'s requirements")
	case FailLimit:
		return why{Kind: "limit", Text: fmt.Sprintf("NodePool limit: %s's spec.limits leave room for none of the %d instance types that fit", pool, chk.Candidates),
			Fix: fmt.Sprintf("raise %s's spec.limits", pool)}
	case FailMinValues:
		return why{Kind: "min-values", Text: fmt.Sprintf("minValues not met: the %d instance types left have fewer than %s values of %s", chk.Candidates, chk.PodSide, chk.Key),
			Fix: "lower minValues or widen the requirements"}
	}
	return why{Kind: "other", Text: "Karpenter's scheduling simulation finds no node for it"}
}

func kindOfTerm(term int, def string) string {
	if term >= 0 {
		return "affinity"
	}
	return def
}

func orAny(s string) string {
	if s == "" {
		return "no requirement on it"
	}
	return s
}

// labelWant renders key and "In [v]" as key=v, else "key (In [a, b])".
func labelWant(key, side string) string {
	if strings.HasPrefix(side, "In [") && !strings.Contains(side, ",") {
		return key + "=" + strings.TrimSuffix(strings.TrimPrefix(side, "In ["), "]")
	}
	if side == "Exists" || side == "" {
		return key
	}
	return key + " (" + side + ")"
}
