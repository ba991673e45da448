package clusterautoscaler

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
)

// This file is the Cluster Autoscaler as sim lint's capacity sources
// (component.CapacityLinter): one per node group, judged on the nodes the
// group adds (LintGroups) and the scale-up check against its template.

func (caComponent) LintName() string { return "the Cluster Autoscaler" }

// LintSources: the node groups in manifest order.
func (caComponent) LintSources(cfg component.Config, env *component.LintEnv) ([]component.LintSource, error) {
	c := cfg.(*Config)
	if len(c.NodeGroups) == 0 {
		return nil, nil
	}
	groups, err := LintGroups(env.Syms, env.Resources, env.Catalog, env.Region, env.Zones, c.NodeGroups, c.Settings)
	if err != nil {
		return nil, fmt.Errorf("the Cluster Autoscaler's node groups: %w", err)
	}
	out := make([]component.LintSource, 0, len(groups))
	for i := range groups {
		g := &groups[i]
		ng := g.Config
		ct := "on-demand"
		switch {
		case ng.Spot():
			ct = "spot"
		case ng.OnDemandPercent < 100:
			ct = "mixed"
		}
		id := "NodeGroup/" + ng.Name
		s := component.LintSource{ID: id, Kind: "NodeGroup", Name: ng.Name, CapacityType: ct, File: ng.File, Line: ng.Line,
			Path: ng.Path, Spot: ng.Spot(), Zones: ng.Zones, TemplateZone: "another zone", Fixed: !g.Autoscaled,
			FlexibilityFix:  fmt.Sprintf("list more instance types of similar size in %s's instanceTypes", id),
			FlexibilityPath: ng.Path + ".instanceTypes",
		}
		if z := g.Template.Zone; z != cluster.NoSym {
			s.TemplateZone = env.Syms.Name(z)
		}
		if len(g.Nodes) > 0 {
			s.Taints = g.Nodes[0].Taints
		}
		for _, k := range slices.Sorted(maps.Keys(ng.Labels)) {
			if !strings.HasPrefix(k, "alpha.eksctl.io/") && !strings.HasPrefix(k, "eks.amazonaws.com/") {
				s.Labels = append(s.Labels, k+"="+ng.Labels[k])
			}
		}
		s.Judge = func(spec *cluster.PodSpec) component.LintVerdict { return g.judge(env, spec) }
		s.Unfit = func(who, why string) (string, string) {
			return fmt.Sprintf("the Cluster Autoscaler scales %s up for %s (its template matches) but the pods cannot run on the nodes it adds: %s", id, who, why),
				"make the group's template match its nodes: the ASG's node-template label and taint tags (eksctl propagateASGTags: true) must carry the group's labels and taints"
		}
		out = append(out, s)
	}
	return out, nil
}

// judge: the pods can land when a node the group adds takes them and the
// group has nodes from the start or is scaled up for them.
func (g *LintGroup) judge(env *component.LintEnv, spec *cluster.PodSpec) component.LintVerdict {
	var v component.LintVerdict
	fits, w := env.OnNodes(spec, g.Nodes)
	v.InstanceTypes = fits
	fitsNodes := len(fits) > 0
	scale, m, t := g.ScalesUpFor(env.Syms, spec)
	v.Provisions = scale
	v.Unfit = scale && !fitsNodes
	switch {
	case !fitsNodes:
		v.Why = w
	case g.Config.DesiredCapacity > 0 || scale:
		v.CanLand = true
	case !g.CanGrow():
		v.Why = component.LintWhy{Kind: "not-autoscaled", Text: "starts with no nodes and " + g.noGrowth()}
	case m == cluster.Fits:
		v.Why = component.LintWhy{Kind: "not-autoscaled", Text: "starts with no nodes and the Cluster Autoscaler ignores these pods (priority below --expendable-pods-priority-cutoff)",
			Fix: "give the pods a higher priority, or lower --expendable-pods-priority-cutoff"}
	default:
		tw := env.MismatchWhy(spec, []*cluster.Node{&g.Template}, m, t)
		v.Why = component.LintWhy{Kind: "template", Text: "starts with no nodes and the Cluster Autoscaler never scales it up for these pods (its template: " + tw.Text + ")",
			Fix: "make the group's ASG tags carry its labels and taints (eksctl propagateASGTags: true, or k8s.io/cluster-autoscaler/node-template/ tags)"}
	}
	return v
}

// noGrowth says why a node group never grows.
func (g *LintGroup) noGrowth() string {
	switch {
	case !g.Running:
		return "no Cluster Autoscaler runs (set spec.clusterAutoscaler or include its Deployment)"
	case !g.Autoscaled:
		return "the Cluster Autoscaler does not manage it (no --nodes entry or auto-discovery tags match its ASG)"
	case g.Max <= 0:
		return "its maximum size is 0"
	case !g.ScaleUpFromZero:
		return "--scale-up-from-zero is off"
	}
	return "the Cluster Autoscaler never grows it"
}
