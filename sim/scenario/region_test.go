package scenario

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// from eksctl-io/eksctl examples/05-advanced-nodegroups.yaml, reduced: a
// cluster in eu-west-2 with explicit availability zones and a single-zone
// node group.
const eksctlEUWest2 = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: cluster-5
  region: eu-west-2
nodeGroups:
  - name: ng1-public
    instanceType: m5.xlarge
    minSize: 2
    maxSize: 8
  - name: ng3-private-b
    instanceType: c5.9xlarge
    desiredCapacity: 4
    availabilityZones: ["eu-west-2a"]
availabilityZones: ["eu-west-2a", "eu-west-2b"]
`

// A scenario without spec.region runs where its eksctl ClusterConfig is,
// in the cluster's zones, with one warning about on-demand prices.
func TestRegionAndZonesFromClusterConfig(t *testing.T) {
	sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "---\n" + eksctlEUWest2)}}, "s.yaml")
	require.NoError(t, err)
	require.Equal(t, "eu-west-2", sc.Region)
	require.Equal(t, []string{"eu-west-2a", "eu-west-2b"}, sc.Zones)
	require.Len(t, caConfig(sc).NodeGroups, 2)
	require.Equal(t, []string{"eu-west-2a", "eu-west-2b"}, caConfig(sc).NodeGroups[0].Zones)
	require.Equal(t, []string{"eu-west-2a"}, caConfig(sc).NodeGroups[1].Zones)
	var prices []string
	for _, w := range sc.Warnings {
		if strings.Contains(w.Msg, "on-demand prices") {
			prices = append(prices, w.String())
		}
	}
	require.Equal(t, []string{"s.yaml:11: metadata.region: on-demand prices are known only for us-east-1; its prices stand in for eu-west-2 (real prices there differ; spot uses eu-west-2's Spot Advisor savings against them)"}, prices)

	// spec.region and spec.zones win; a region without zones in the
	// ClusterConfig gets its first three.
	sc, err = LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "  region: eu-west-2\n  zones: [eu-west-2a, eu-west-2b, eu-west-2c]\n---\n" + eksctlEUWest2)}}, "s.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"eu-west-2a", "eu-west-2b", "eu-west-2c"}, sc.Zones)
	sc, err = LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "  region: ca-central-1\n")}}, "s.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"ca-central-1a", "ca-central-1b", "ca-central-1d"}, sc.Zones)
	sc, err = LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal)}}, "s.yaml")
	require.NoError(t, err)
	require.Equal(t, "us-east-1", sc.Region)
	require.Equal(t, []string{"us-east-1a", "us-east-1b", "us-east-1c"}, sc.Zones)
	for _, w := range sc.Warnings {
		require.NotContains(t, w.Msg, "on-demand prices")
	}
}

// Every region of the Spot Advisor loads, a region without EC2 data is an
// error at the field that names it.
func TestEveryAdvisorRegion(t *testing.T) {
	for _, r := range []string{"af-south-1", "ap-southeast-4", "il-central-1", "mx-central-1", "us-west-1"} {
		sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "  region: " + r + "\n  staticNodes: [{name: a, instanceType: m5.large, count: 1}]\n")}}, "s.yaml")
		require.NoError(t, err, r)
		require.Equal(t, r, sc.Region)
	}
	_, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "---\n" + strings.Replace(eksctlEUWest2, "region: eu-west-2", "region: cn-north-1", 1))}}, "s.yaml")
	require.ErrorContains(t, err, `s.yaml:11: metadata.region: "cn-north-1" is not in the embedded EC2 data; set the Scenario's spec.region (sim lint -f: --region) to one of the regions with EC2 data: af-south-1, `)
}
