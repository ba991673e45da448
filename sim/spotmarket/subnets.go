package spotmarket

import "github.com/clustersim/clustersim/sim/cloud"

// CodeInsufficientAddresses: the zone's subnets have too few free
// addresses for the instance.
const CodeInsufficientAddresses = cloud.CodeInsufficientAddresses

// SetSubnets makes launches take their addresses from subnets: an offering
// in a zone whose best subnet has fewer than subnets.IPsPerNode free
// addresses fails with InsufficientFreeAddressesInSubnet, a launched
// instance holds them until it ends. Without it (or with nil) addresses
// are unlimited.
func (m *Market) SetSubnets(s *Subnets) { m.subnets = s }

// Subnets are the VPC's free addresses (see the cloud package).
type Subnets = cloud.Subnets

// addressCode is the error code for launching in zone: "" when the
// addresses are there.
func (m *Market) addressCode(zone string) string {
	if m.subnets.NodeFits(zone) {
		return ""
	}
	return CodeInsufficientAddresses
}

// noAddresses counts the offering errors for want of addresses.
func noAddresses(errs []OfferingError) int {
	n := 0
	for _, e := range errs {
		if e.Code == CodeInsufficientAddresses {
			n++
		}
	}
	return n
}
