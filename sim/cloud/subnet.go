package cloud

import "cmp"

// Subnet is one VPC subnet the cluster's nodes launch into, and how many
// of its addresses are free when the scenario starts.
type Subnet struct {
	Name    string
	Zone    string
	FreeIPs int
}

// Subnets are the addresses the nodes and their pods take with the VPC
// CNI: a node takes IPsPerNode addresses of a subnet of its zone when it
// launches (the subnet with the most free addresses, as Karpenter's subnet
// provider picks) and gives them back when its instance ends; a pod takes
// one address of its node's subnet when its sandbox is created and gives
// it back when it ends. Zones with no subnet listed are unlimited, as are
// nodes not launched through EC2 (static nodes). Shared state: EC2
// (sim/spotmarket) takes and returns the nodes' addresses, the kubelet the
// pods'. A nil *Subnets is unlimited everywhere.
type Subnets struct {
	IPsPerNode int
	list       []Subnet
	byZone     map[string][]int32
	ofInstance map[InstanceID]int32
}

// NewSubnets builds the subnets; ipsPerNode below 1 counts as 1.
func NewSubnets(list []Subnet, ipsPerNode int) *Subnets {
	s := &Subnets{IPsPerNode: max(ipsPerNode, 1), list: append([]Subnet(nil), list...),
		byZone: map[string][]int32{}, ofInstance: map[InstanceID]int32{}}
	for i, sn := range s.list {
		s.byZone[sn.Zone] = append(s.byZone[sn.Zone], int32(i))
	}
	return s
}

// best is the zone's subnet with the most free addresses (the first
// listed among equals), or -1 when the zone has none listed.
func (s *Subnets) best(zone string) int32 {
	b := int32(-1)
	for _, i := range s.byZone[zone] {
		if b < 0 || cmp.Compare(s.list[i].FreeIPs, s.list[b].FreeIPs) > 0 {
			b = i
		}
	}
	return b
}

// NodeFits reports whether a node can launch in zone: the zone is
// unlimited, or its best subnet has IPsPerNode free addresses.
func (s *Subnets) NodeFits(zone string) bool {
	if s == nil {
		return true
	}
	b := s.best(zone)
	return b < 0 || s.list[b].FreeIPs >= s.IPsPerNode
}

// TakeNode gives instance id its addresses in the best subnet of zone
// (nothing when the zone is unlimited). Call it only after NodeFits.
func (s *Subnets) TakeNode(id InstanceID, zone string) {
	if s == nil {
		return
	}
	if b := s.best(zone); b >= 0 {
		s.list[b].FreeIPs -= s.IPsPerNode
		s.ofInstance[id] = b
	}
}

// ReleaseNode returns instance id's addresses when it ends.
func (s *Subnets) ReleaseNode(id InstanceID) {
	if s == nil {
		return
	}
	if b, ok := s.ofInstance[id]; ok {
		s.list[b].FreeIPs += s.IPsPerNode
		delete(s.ofInstance, id)
	}
}

// SubnetOf is the subnet instance id launched into, or -1 when its
// addresses are unlimited.
func (s *Subnets) SubnetOf(id InstanceID) int32 {
	if s == nil {
		return -1
	}
	if b, ok := s.ofInstance[id]; ok {
		return b
	}
	return -1
}

// TakeIP takes one address of subnet i for a pod; false when none is free.
func (s *Subnets) TakeIP(i int32) bool {
	if s.list[i].FreeIPs <= 0 {
		return false
	}
	s.list[i].FreeIPs--
	return true
}

// ReleaseIP returns a pod's address to subnet i.
func (s *Subnets) ReleaseIP(i int32) { s.list[i].FreeIPs++ }

// Free is subnet i's free addresses now.
func (s *Subnets) Free(i int32) int { return s.list[i].FreeIPs }

// Len is the number of subnets.
func (s *Subnets) Len() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}
