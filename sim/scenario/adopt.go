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
	idx      int // in l.out.Nodes
	doc      *manifest.Document
	nodePool string // karpenter.sh/nodepool, or ""
	// priced: the instance type is known and has a price in the region.
	priced bool
}

// adoptNodes gives the autoscalers the Node manifests' nodes that belong
// to them, as the real controllers find them after a restart: a node
// labelled karpenter.sh/nodepool with a NodePool of that name in the
// scenario becomes that pool's (Owner OwnedByKarpenter, OwnerName the
// pool), when its instance type is known and priced and it is bought on
// demand or as spot. The others stay static; a warning says why for a
// node whose owner is in the scenario, and an info line per NodePool
// counts the nodes it adopts.
func (l *loader) adoptNodes() {
	pools := map[string]bool{}
	for i := range l.out.NodePools {
		pools[l.out.NodePools[i].Name] = true
	}
	type tally struct {
		doc   *manifest.Document
		nodes []string
	}
	adopted := map[string]*tally{}
	var order []string
	for _, sn := range l.startNodes {
		if sn.nodePool == "" || !pools[sn.nodePool] {
			continue
		}
		n := &l.out.Nodes[sn.idx]
		why := ""
		switch {
		case !sn.priced:
			why = "its instance type is not in the catalogue or has no price"
		case n.CapacityType != cluster.OnDemand && n.CapacityType != cluster.Spot:
			why = fmt.Sprintf("Karpenter launches on-demand and spot only, not %s", n.CapacityType)
		case !l.hasZone(l.out.Syms.Name(n.Zone)):
			why = "its zone is not in spec.zones"
		}
		if why != "" {
			l.warn(sn.doc, "metadata.labels", "node %s belongs to NodePool %s but %s: it is simulated as a static node", n.Name, sn.nodePool, why)
			continue
		}
		n.Owner, n.OwnerName = cluster.OwnedByKarpenter, sn.nodePool
		t := adopted[sn.nodePool]
		if t == nil {
			t = &tally{doc: sn.doc}
			adopted[sn.nodePool] = t
			order = append(order, sn.nodePool)
		}
		t.nodes = append(t.nodes, n.Name)
	}
	for _, name := range order {
		t := adopted[name]
		l.warns = append(l.warns, Warning{File: t.doc.File, Line: t.doc.Line, Info: true,
			Msg: fmt.Sprintf("NodePool %s adopts the %d start node(s) labelled with its name as its NodeClaims (%s): Karpenter may consolidate, expire and drift them, and they count toward its limits",
				name, len(t.nodes), abbreviate(t.nodes))})
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
