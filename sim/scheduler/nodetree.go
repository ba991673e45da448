package scheduler

import "github.com/clustersim/clustersim/sim/cluster"

// The scan order of the nodes, as upstream's node tree lists them
// (pkg/scheduler/backend/cache/node_tree.go): the nodes are grouped by
// zone (region and zone labels; the failure-domain.beta ones first, as
// component-helpers GetZoneKey reads them), zones in the order their
// first node arrived, nodes of a zone in the order they arrived; the list
// takes the first node of every zone in turn, then the second of every
// zone, and so on. A cycle starts where the previous one stopped, so with
// percentageOfNodesToScore below 100 successive pods sample every zone
// rather than the oldest nodes of one.
//
// The order is rebuilt on every node addition or removal, in place (no
// allocation once the slices have grown); cycles only read it. Fit
// indexes, whose bitsets follow scan positions, rebuild lazily on their
// next use after the order changed (orderEpoch).

// zoneKey is a node's zone for the tree: its region and zone label values
// (NoSym when absent).
type zoneKey struct{ region, zone cluster.Sym }

// treeZone is one zone of the tree with its nodes in arrival order.
type treeZone struct {
	key   zoneKey
	nodes []cluster.NodeID
	// since is the arrival stamp (Scheduler.arrived) of the node that
	// created the zone: zones are in order of it.
	since uint64
}

// zoneKeyOf reads a node's zone key from its labels.
func (s *Scheduler) zoneKeyOf(n *cluster.Node) zoneKey {
	get := func(beta, ga cluster.Sym) cluster.Sym {
		if v, ok := n.Labels.Get(beta); ok {
			return v
		}
		v, _ := n.Labels.Get(ga)
		return v
	}
	return zoneKey{region: get(s.keyBetaRegion, s.keyRegion), zone: get(s.keyBetaZone, s.cl.KeyZone)}
}

// treeAdd appends a node to its zone (a new zone goes last) and stamps
// its arrival there.
func (s *Scheduler) treeAdd(id cluster.NodeID) {
	k := s.zoneKeyOf(&s.cl.Nodes[id])
	for int(id) >= len(s.nodeZone) {
		s.nodeZone = append(s.nodeZone, zoneKey{})
		s.arrived = append(s.arrived, 0)
	}
	s.nodeZone[id] = k
	s.arrivals++
	s.arrived[id] = s.arrivals
	for i := range s.zones {
		if s.zones[i].key == k {
			s.zones[i].nodes = append(s.zones[i].nodes, id)
			return
		}
	}
	s.zones = append(s.zones, treeZone{key: k, nodes: []cluster.NodeID{id}, since: s.arrivals})
}

// treeRemove takes a node out of its zone, keeping the order of the
// others; an emptied zone leaves the tree.
func (s *Scheduler) treeRemove(id cluster.NodeID) {
	k := s.nodeZone[id]
	for i := range s.zones {
		z := &s.zones[i]
		if z.key != k {
			continue
		}
		for j, n := range z.nodes {
			if n == id {
				z.nodes = append(z.nodes[:j], z.nodes[j+1:]...)
				break
			}
		}
		if len(z.nodes) == 0 {
			s.zones = append(s.zones[:i], s.zones[i+1:]...)
		}
		return
	}
}

// relist rebuilds the scan list from the tree (upstream's nodeTree.list)
// and every scanned node's position.
func (s *Scheduler) relist() {
	total := 0
	for i := range s.zones {
		total += len(s.zones[i].nodes)
	}
	s.nodes = s.nodes[:0]
	for j := 0; len(s.nodes) < total; j++ {
		for i := range s.zones {
			if z := s.zones[i].nodes; j < len(z) {
				s.nodes = append(s.nodes, z[j])
			}
		}
	}
	for pos, id := range s.nodes {
		s.nodeSlot[id] = int32(pos)
	}
	s.orderEpoch++
}
