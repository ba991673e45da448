package scenario

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/manifest"
)

// startNode is a Node manifest's node and the owner its labels name.
type startNode struct {
	idx       int // in l.out.Nodes
	doc       *manifest.Document
	nodePool  string // karpenter.sh/nodepool, or ""
	nodeGroup string // eks.amazonaws.com/nodegroup or alpha.eksctl.io/nodegroup-name, or ""
	// priced: the instance type is known and has a price in the region.
	priced bool
}

// adoptNodes gives the autoscalers the Node manifests' nodes that belong
// to them, as the real controllers find them after a restart: a node
// labelled karpenter.sh/nodepool with a NodePool of that name in the
// scenario becomes that pool's (Owner OwnedByKarpenter, OwnerName the
// pool); one labelled eks.amazonaws.com/nodegroup or
// alpha.eksctl.io/nodegroup-name with a node group of that name becomes
// the group's (OwnedByClusterAutoscaler). Either only when its instance
// type is known and priced, its zone is one of spec.zones and it is
// bought on demand or as spot. The others stay static; a warning says why
// for a node whose owner is in the scenario, and an info line per
// NodePool and node group counts the nodes it adopts.
func (l *loader) adoptNodes() {
	pools, groups := map[string]bool{}, map[string]bool{}
	for i := range l.out.NodePools {
		pools[l.out.NodePools[i].Name] = true
	}
	for i := range l.out.NodeGroups {
		groups[l.out.NodeGroups[i].Name] = true
	}
	type tally struct {
		doc   *manifest.Document
		nodes []string
	}
	adopted := map[string]*tally{}
	var order []string
	for _, sn := range l.startNodes {
		owner, name, kind := cluster.OwnedByKarpenter, sn.nodePool, "NodePool"
		switch {
		case pools[sn.nodePool]:
		case groups[sn.nodeGroup]:
			owner, name, kind = cluster.OwnedByClusterAutoscaler, sn.nodeGroup, "node group"
		default:
			continue
		}
		n := &l.out.Nodes[sn.idx]
		why := ""
		switch {
		case !sn.priced:
			why = "its instance type is not in the catalogue or has no price"
		case n.CapacityType != cluster.OnDemand && n.CapacityType != cluster.Spot:
			why = fmt.Sprintf("the autoscalers launch on-demand and spot only, not %s", n.CapacityType)
		case !l.hasZone(l.out.Syms.Name(n.Zone)):
			why = "its zone is not in spec.zones"
		}
		if why != "" {
			l.warn(sn.doc, "metadata.labels", "node %s belongs to %s %s but %s: it is simulated as a static node", n.Name, kind, name, why)
			continue
		}
		n.Owner, n.OwnerName = owner, name
		key := kind + " " + name
		t := adopted[key]
		if t == nil {
			t = &tally{doc: sn.doc}
			adopted[key] = t
			order = append(order, key)
		}
		t.nodes = append(t.nodes, n.Name)
	}
	for _, key := range order {
		t := adopted[key]
		what := "as its NodeClaims (%s): Karpenter may consolidate, expire and drift them, and they count toward its limits"
		if !strings.HasPrefix(key, "NodePool ") {
			what = "as its instances (%s): they count in its size and toward maxSize, and the Cluster Autoscaler may scale them in"
		}
		l.warns = append(l.warns, Warning{File: t.doc.File, Line: t.doc.Line, Info: true,
			Msg: fmt.Sprintf("%s adopts the %d start node(s) labelled with its name "+what, key, len(t.nodes), abbreviate(t.nodes))})
	}
}

// abbreviate lists the first names and how many more there are.
func abbreviate(names []string) string {
	const show = 3
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

// nodePoolOf is the NodePool a node's labels name: karpenter.sh/nodepool,
// or the legacy karpenter.sh/provisioner-name (a Provisioner is compiled
// as a NodePool of its name).
func nodePoolOf(labels map[string]string) string {
	if v := labels[apis.LabelNodePool]; v != "" {
		return v
	}
	return labels["karpenter.sh/provisioner-name"]
}

// nodeGroupOf is the node group a node's labels name: an EKS managed node
// group's eks.amazonaws.com/nodegroup, or eksctl's
// alpha.eksctl.io/nodegroup-name.
func nodeGroupOf(labels map[string]string) string {
	if v := labels["eks.amazonaws.com/nodegroup"]; v != "" {
		return v
	}
	return labels["alpha.eksctl.io/nodegroup-name"]
}
