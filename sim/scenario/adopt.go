package scenario

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/manifest"
)

// startNode is a Node manifest's node and its labels.
type startNode struct {
	idx    int // in l.out.Nodes
	doc    *manifest.Document
	labels map[string]string
	// priced: the instance type is known and has a price in the region.
	priced bool
}

// adoptNodes gives the components the Node manifests' nodes that belong
// to them, as the real controllers find them after a restart: the first
// component (in registration order) whose configuration has the pool the
// node's labels name (component.Adopter: a karpenter.sh/nodepool label
// and a NodePool of that name; an eks.amazonaws.com/nodegroup or
// alpha.eksctl.io/nodegroup-name label and a node group of that name)
// becomes its owner (Owner the component's, OwnerName the pool). Only when
// its instance type is known and priced, its zone is one of spec.zones
// and it is bought on demand, as spot, or in a reservation of
// spec.market.reservations (its capacity-reservation-id label). The others stay static; a
// warning says why for a node whose owner is in the scenario, and an info
// line per pool counts the nodes it adopts.
func (l *loader) adoptNodes() {
	type adopter struct {
		c   component.Adopter
		cfg component.Config
		own cluster.OwnerKind
	}
	var adopters []adopter
	for _, cc := range l.out.Components {
		c, _ := component.Lookup(cc.Name)
		if a, ok := c.(component.Adopter); ok {
			adopters = append(adopters, adopter{c: a, cfg: cc.Config, own: cluster.RegisterOwner(cc.Name)})
		}
	}
	type tally struct {
		doc   *manifest.Document
		what  string
		nodes []string
	}
	adopted := map[string]*tally{}
	var order []string
	for _, sn := range l.startNodes {
		var by *adopter
		name := ""
		for i := range adopters {
			if name = adopters[i].c.Adopts(adopters[i].cfg, sn.labels); name != "" {
				by = &adopters[i]
				break
			}
		}
		if by == nil {
			continue
		}
		kind, what := by.c.AdoptNote()
		n := &l.out.Nodes[sn.idx]
		why := ""
		switch {
		case !sn.priced:
			why = "its instance type is not in the catalogue or has no price"
		case n.CapacityType == cluster.Reserved && !l.inReservation(n):
			why = "its " + labelReservationID + " label names no reservation of its type and zone in spec.market.reservations"
		case n.CapacityType != cluster.OnDemand && n.CapacityType != cluster.Spot && n.CapacityType != cluster.Reserved:
			why = fmt.Sprintf("the autoscalers launch on-demand, spot and reserved only, not %s", n.CapacityType)
		case !l.hasZone(l.out.Syms.Name(n.Zone)):
			why = "its zone is not in spec.zones"
		}
		if why != "" {
			l.warn(sn.doc, "metadata.labels", "node %s belongs to %s %s but %s: it is simulated as a static node", n.Name, kind, name, why)
			continue
		}
		n.Owner, n.OwnerName = by.own, name
		key := kind + " " + name
		t := adopted[key]
		if t == nil {
			t = &tally{doc: sn.doc, what: what}
			adopted[key] = t
			order = append(order, key)
		}
		t.nodes = append(t.nodes, n.Name)
	}
	for _, key := range order {
		t := adopted[key]
		l.warns = append(l.warns, Warning{File: t.doc.File, Line: t.doc.Line, Info: true, Code: "adopted-start-nodes",
			Msg: fmt.Sprintf("%s adopts the %d start node(s) labelled with its name "+t.what, key, len(t.nodes), abbreviate(t.nodes))})
	}
}

// labelReservationID names a reserved node's capacity reservation.
const labelReservationID = "karpenter.k8s.aws/capacity-reservation-id"

// inReservation reports whether reserved node n names a reservation of
// spec.market.reservations of its type and zone.
func (l *loader) inReservation(n *cluster.Node) bool {
	v, ok := n.Labels.Get(l.out.Syms.Intern(labelReservationID))
	if !ok {
		return false
	}
	id := l.out.Syms.Name(v)
	for _, r := range l.out.Market.Reservations {
		if r.ID == id && r.InstanceType == n.InstanceType && r.Zone == l.out.Syms.Name(n.Zone) {
			return true
		}
	}
	return false
}

// abbreviate lists the first names and how many more there are.
func abbreviate(names []string) string {
	const show = 3
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}
