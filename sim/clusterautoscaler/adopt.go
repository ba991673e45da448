package clusterautoscaler

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
)

// Adopt adds node n, which exists when the scenario starts (a node of an
// imported cluster labelled with its node group), to the cluster as an
// instance of node group n.OwnerName, as the Cluster Autoscaler finds an
// ASG's instances when it starts. inst is the running instance behind it
// (the market's Adopt). The node is Ready with its own labels, taints and
// allocatable; it counts in the group's desired capacity (the group's
// desiredCapacity launches only what is missing beyond the adopted nodes)
// and toward maxSize, and scale-down, spot handling and the templates see
// it as any of the group's nodes. Call it after New and before the first
// event runs. It returns the node, or an error (and adds nothing) when
// the group or the instance type is unknown.
func (a *Autoscaler) Adopt(n cluster.Node, inst cloud.LaunchResult) (cluster.NodeID, error) {
	var g *group
	for _, x := range a.groups {
		if x.cfg.Name == n.OwnerName {
			g = x
		}
	}
	if g == nil {
		return cluster.NoNode, fmt.Errorf("clusterautoscaler: cannot adopt node %s: no node group %q", n.Name, n.OwnerName)
	}
	if _, ok := a.cat.Lookup(inst.Offering.InstanceType); !ok {
		return cluster.NoNode, fmt.Errorf("clusterautoscaler: cannot adopt node %s: unknown instance type %q", n.Name, inst.Offering.InstanceType)
	}
	n.State = cluster.NodeReady
	n.Owner, n.Adopted = ownedByCA, true
	n.Instance = int32(inst.Instance)
	n.PriceUSDPerHour = inst.PriceUSDPerHour
	g.target++
	if a.adopted == nil {
		a.adopted = map[string]bool{}
	}
	a.adopted[n.Name] = true
	id := a.cl.AddNode(n)
	cn := &caNode{group: g, instance: inst.Instance, firstPending: never, unneededSince: never, replaces: cluster.NoNode}
	a.nodes.set(id, cn)
	a.byInstance[inst.Instance] = id
	g.nodes = append(g.nodes, id)
	if inst.Offering.CapacityType == cluster.Spot {
		g.spot++
	} else {
		g.onDemand++
	}
	g.zoneCount[inst.Offering.Zone]++
	g.stats.NodesAdopted++
	return id, nil
}
