package catalog

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every region of the embedded Spot Advisor data has zones, and no other.
func TestZonesOfEveryAdvisorRegion(t *testing.T) {
	c := defaultCatalog(t)
	require.Equal(t, c.Regions(), slices.Sorted(maps.Keys(zoneLetters)))
	for _, r := range c.Regions() {
		require.GreaterOrEqual(t, len(Zones(r)), 3, r)
		require.Len(t, DefaultZones(r), 3, r)
	}
	require.Equal(t, []string{"eu-west-2a", "eu-west-2b", "eu-west-2c"}, Zones("eu-west-2"))
	require.Equal(t, []string{"us-east-1a", "us-east-1b", "us-east-1c"}, DefaultZones("us-east-1"))
	require.Equal(t, []string{"ca-central-1a", "ca-central-1b", "ca-central-1d"}, DefaultZones("ca-central-1"))
	require.Nil(t, Zones("cn-north-1"))
	require.Nil(t, DefaultZones("cn-north-1"))
}

func TestCheckZone(t *testing.T) {
	require.Empty(t, CheckZone("us-east-1", "us-east-1f"))
	require.Empty(t, CheckZone("eu-west-2", "eu-west-2c"))
	require.Equal(t, "us-east-1z is not a zone of us-east-1 (its zones are us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f)",
		CheckZone("us-east-1", "us-east-1z"))
	require.Equal(t, "eu-west-2d is not a zone of eu-west-2 (its zones are eu-west-2a, eu-west-2b, eu-west-2c)", CheckZone("eu-west-2", "eu-west-2d"))
	require.Equal(t, "us-east-1a is a zone of us-east-1, not of eu-west-2 (whose zones are eu-west-2a, eu-west-2b, eu-west-2c)",
		CheckZone("eu-west-2", "us-east-1a"))
	require.Equal(t, "ca-central-1c is not a zone of ca-central-1 (its zones are ca-central-1a, ca-central-1b, ca-central-1d)", CheckZone("ca-central-1", "ca-central-1c"))
	require.Equal(t, "cn-north-1 is not a region with EC2 data", CheckZone("cn-north-1", "cn-north-1a"))
}

func TestRegionOf(t *testing.T) {
	require.Equal(t, "eu-west-2", RegionOf("eu-west-2a"))
	require.Equal(t, "us-east-1", RegionOf("us-east-1f"))
	require.Equal(t, "", RegionOf("us-east-1z"))
	require.Equal(t, "", RegionOf("us-east-1-bos-1a"))
	require.Equal(t, "", RegionOf(""))
}
