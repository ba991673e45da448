package scenario

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cloud"
)

// networkSpec is spec.network: the VPC's subnets and their free addresses.
type networkSpec struct {
	// Subnets lists subnets with their free addresses; a zone with none
	// listed has unlimited addresses. Several may share a zone.
	Subnets []subnetSpec `json:"subnets,omitempty"`
	// IPsPerNode is what a node takes of its subnet when it launches:
	// its primary address plus what the VPC CNI keeps warm. Default 1.
	IPsPerNode *int `json:"ipsPerNode,omitempty"`
}

type subnetSpec struct {
	Name    string `json:"name,omitempty"`
	Zone    string `json:"zone"`
	FreeIPs *int   `json:"freeIPs"`
}

// DefaultIPsPerNode: a node's primary address. The VPC CNI's warm pool
// (WARM_ENI_TARGET=1 by default keeps a spare ENI's addresses on each
// node; WARM_IP_TARGET/MINIMUM_IP_TARGET replace it with a count) comes on
// top: set spec.network.ipsPerNode to count it.
const DefaultIPsPerNode = 1

// compileNetwork checks spec.network and sets Scenario.Subnets (nil when
// no subnet is listed: addresses are unlimited).
func (l *loader) compileNetwork() {
	n := l.doc.Spec.Network
	if n == nil {
		return
	}
	d := l.scenarioDoc
	per := DefaultIPsPerNode
	if n.IPsPerNode != nil {
		per = *n.IPsPerNode
		if per < 1 {
			l.fail(d.Errorf("spec.network.ipsPerNode", "a node takes at least its own address: use 1 or more", "must be at least 1, got %d", per))
		}
	}
	names := map[string]bool{}
	var list []cloud.Subnet
	for i, s := range n.Subnets {
		base := fmt.Sprintf("spec.network.subnets[%d]", i)
		ok := true
		switch {
		case s.Zone == "":
			l.fail(d.Errorf(base+".zone", "use one of spec.zones: "+strings.Join(l.out.Zones, ", "), "missing zone"))
			ok = false
		case !l.hasZone(s.Zone):
			l.fail(d.Errorf(base+".zone", "use one of spec.zones: "+strings.Join(l.out.Zones, ", "), "zone %q is not in the scenario", s.Zone))
			ok = false
		}
		switch {
		case s.FreeIPs == nil:
			l.fail(d.Errorf(base+".freeIPs", "give the subnet's available addresses (aws ec2 describe-subnets: AvailableIpAddressCount)", "missing freeIPs"))
			ok = false
		case *s.FreeIPs < 0:
			l.fail(d.Errorf(base+".freeIPs", "use 0 or more", "must not be negative, got %d", *s.FreeIPs))
			ok = false
		}
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("subnet-%d", i)
		}
		if names[name] {
			l.fail(d.Errorf(base+".name", "subnet names must be unique", "duplicate subnet %q", name))
			ok = false
		}
		names[name] = true
		if ok {
			list = append(list, cloud.Subnet{Name: name, Zone: s.Zone, FreeIPs: *s.FreeIPs})
		}
	}
	if len(list) > 0 {
		l.out.Subnets = list
		l.out.IPsPerNode = per
	}
}
