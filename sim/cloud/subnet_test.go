package cloud

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A node launches into its zone's subnet with the most free addresses
// (karpenter-provider-aws pkg/providers/subnet: ZonalSubnetsForLaunch
// picks the subnet with the most available IPs per zone), holds them
// until its instance ends, and its pods take theirs from that subnet.
func TestSubnets(t *testing.T) {
	s := NewSubnets([]Subnet{{Name: "a1", Zone: "us-east-1a", FreeIPs: 3}, {Name: "a2", Zone: "us-east-1a", FreeIPs: 10}, {Name: "b", Zone: "us-east-1b", FreeIPs: 1}}, 2)
	require.True(t, s.NodeFits("us-east-1a"))
	require.False(t, s.NodeFits("us-east-1b"), "1 free address, 2 per node")
	require.True(t, s.NodeFits("us-east-1c"), "no subnet listed: unlimited")

	s.TakeNode(7, "us-east-1a")
	require.Equal(t, int32(1), s.SubnetOf(7))
	require.Equal(t, 8, s.Free(1))
	s.TakeNode(8, "us-east-1c")
	require.Equal(t, int32(-1), s.SubnetOf(8))

	for range 8 {
		require.True(t, s.TakeIP(1))
	}
	require.False(t, s.TakeIP(1), "the subnet ran out")
	s.ReleaseNode(7)
	require.Equal(t, 2, s.Free(1))
	s.ReleaseIP(1)
	require.Equal(t, 3, s.Free(1))

	var none *Subnets
	require.True(t, none.NodeFits("us-east-1a"))
	require.Equal(t, int32(-1), none.SubnetOf(7))
}
