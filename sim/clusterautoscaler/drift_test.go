package clusterautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Regressions for drifts between the Cluster Autoscaler's copies of
// cluster facts and the cluster, found by its model-based check
// (TestCAIndexesModel).

// A node of a group that someone else removed leaves the group's
// instance counts, as one the Cluster Autoscaler removes does: before,
// sweepGone dropped it from the group's nodes but not from its
// capacity-type and zone counts, so the group went on counting a gone
// on-demand node toward its on-demand base and launched spot instead.
func TestNodeRemovedBySomeoneElseLeavesTheGroupCounts(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(clusterConfig(`nodeGroups:
  - name: mixed
    minSize: 0
    maxSize: 6
    desiredCapacity: 2
    instancesDistribution:
      instanceTypes: [m5.large]
      onDemandBaseCapacity: 1
      onDemandPercentageAboveBaseCapacity: 0
`)), []string{"--scale-down-enabled=false"}, nil)
	h.at(time.Second)
	nodes := h.nodesOf("mixed")
	require.Len(t, nodes, 2)
	od := nodes[0]
	if h.cl.Nodes[od].CapacityType != cluster.OnDemand {
		od = nodes[1]
	}
	require.Equal(t, cluster.OnDemand, h.cl.Nodes[od].CapacityType, "the on-demand base")
	h.cl.RemoveNode(od)
	before := len(h.cl.Nodes)
	h.pods(3, "1500m", "1Gi")
	h.at(5 * time.Minute)
	require.Greater(t, len(h.cl.Nodes), before, "a scale-up for the pods")
	require.Equal(t, cluster.OnDemand, h.cl.Nodes[before].CapacityType, "the first new instance restores the on-demand base")
	g := h.ca.groups[0]
	require.Equal(t, len(g.nodes), g.spot+g.onDemand)
}
