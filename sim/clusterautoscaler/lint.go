package clusterautoscaler

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
)

// LintGroup is a node group as sim lint sees it: what the Cluster
// Autoscaler tests pending pods against, and the nodes the group adds.
type LintGroup struct {
	Config *NodeGroup
	// Autoscaled, Min and Max as config.Select decides them from the
	// flags (--nodes, --node-group-auto-discovery).
	Autoscaled bool
	Min, Max   int
	// Running says a Cluster Autoscaler runs at all (config.Settings).
	Running bool
	// ScaleUpFromZero is --scale-up-from-zero; ExpendableCutoff is
	// --expendable-pods-priority-cutoff (pods below it never trigger a
	// scale-up).
	ScaleUpFromZero  bool
	ExpendableCutoff int32
	// Template is the node a scale-up is simulated with: built from the
	// ASG's tags (and the EKS API) while the group starts empty, else a
	// copy of its first node, as the Cluster Autoscaler has it once that
	// node is Ready. Templates are all the templates the group's loops may
	// use: one per zone of its starting nodes (each loop copies one of its
	// Ready nodes, at random), or Template alone.
	Template  cluster.Node
	Templates []cluster.Node
	// Nodes are the nodes the group can add, one per instance type and
	// zone, built as its launches build them (labels, taints,
	// allocatable). A group with on-demand instances has on-demand nodes;
	// an all-spot group, spot ones.
	Nodes []cluster.Node
}

// LintGroups builds the groups' views with the model's own code for
// templates and nodes. syms is interned into (give a clone of the
// scenario's).
func LintGroups(syms *cluster.Symbols, res *cluster.ResourceNames, cat *catalog.Catalog, region string, zones []string,
	groups []NodeGroup, settings Settings) ([]LintGroup, error) {
	eng := engine.New(0)
	cl := cluster.New(eng, syms, res)
	a := &clusterState{env: env{eng: eng, cl: cl, cat: cat, region: region, zones: zones, s: &settings}}
	a.symHostname = cl.KeyHostname
	a.symToBeDeleted = syms.Intern(TaintToBeDeleted)
	a.symDeletionCandidate = syms.Intern(TaintDeletionCandidate)
	sel := config.Select(groups, &settings)
	out := make([]LintGroup, 0, len(groups))
	for i := range groups {
		cfg := &groups[i]
		g, err := a.newGroup(cfg, i, sel[i])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", cfg.File, cfg.Line, cfg.Path, err)
		}
		lg := LintGroup{Config: cfg, Autoscaled: sel[i].Autoscaled, Min: sel[i].Min, Max: sel[i].Max, Running: settings.Running,
			ScaleUpFromZero: settings.ScaleUpFromZero, ExpendableCutoff: settings.ExpendablePodsPriorityCutoff}
		ct := cluster.OnDemand
		if cfg.Spot() {
			ct = cluster.Spot
		}
		for _, z := range cfg.Zones {
			for _, t := range cfg.InstanceTypes {
				it, _ := a.cat.Lookup(t) // checked by newGroup
				lg.Nodes = append(lg.Nodes, a.lintNode(g, it, z, ct))
			}
		}
		lg.Template = g.tagTemplate.node
		lg.Templates = []cluster.Node{lg.Template}
		if cfg.DesiredCapacity > 0 && len(lg.Nodes) > 0 {
			// The first nodes: first type, the first zones (the ASG
			// balances zones from an empty group in the group's order).
			lg.Templates = lg.Templates[:0]
			for z := range min(cfg.DesiredCapacity, len(cfg.Zones)) {
				id := cl.AddNode(lg.Nodes[z*len(cfg.InstanceTypes)])
				lg.Templates = append(lg.Templates, a.templateFromNode(g, id).node)
			}
			lg.Template = lg.Templates[0]
		}
		out = append(out, lg)
	}
	return out, nil
}

// lintNode is the node a launch of type it in zone adds (nodeFor), named
// and labelled with its hostname as cluster.AddNode would.
func (cs *clusterState) lintNode(g *group, it *catalog.InstanceType, zone string, ct cluster.CapacityType) cluster.Node {
	n := cs.nodeFor(g, it, zone, ct)
	n.Name = fmt.Sprintf("%s-%s-%s", g.cfg.Name, it.Name, zone)
	n.SetIdentity(cs.cl.Syms, cs.symHostname)
	n.State = cluster.NodeReady
	return n
}

// CanGrow reports whether the Cluster Autoscaler ever grows the group: it
// is autoscaled, its maximum is above its starting or minimum size, and a
// group that starts empty may be scaled up from zero.
func (g *LintGroup) CanGrow() bool {
	if !g.Autoscaled || g.Max <= 0 || (g.Config.DesiredCapacity >= g.Max && g.Min >= g.Max) {
		return false
	}
	return g.Config.DesiredCapacity > 0 || g.ScaleUpFromZero
}

// ScalesUpFor reports whether the Cluster Autoscaler would scale the group
// up for a pending pod with this spec, as its scale-up options decide: the
// group can grow, the pod is not expendable nor a DaemonSet's, and it fits
// one of the templates (resources included). When the pod does not fit,
// m and t say why it does not fit Template (cluster.StaticFit).
func (g *LintGroup) ScalesUpFor(syms *cluster.Symbols, spec *cluster.PodSpec) (ok bool, m cluster.Mismatch, t cluster.Taint) {
	if !g.CanGrow() || spec.DaemonSet || spec.Priority < g.ExpendableCutoff {
		return false, cluster.Fits, cluster.Taint{}
	}
	for i := range g.Templates[min(1, len(g.Templates)):] {
		tpl := &g.Templates[1+i]
		if m, _ := cluster.StaticFit(syms, spec, tpl, &tpl.Allocatable); m == cluster.Fits {
			return true, m, cluster.Taint{}
		}
	}
	m, t = cluster.StaticFit(syms, spec, &g.Template, &g.Template.Allocatable)
	return m == cluster.Fits, m, t
}
