package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// A NodePool allowing spot and on-demand falls back to on-demand when spot
// is exhausted: the first batch's spot launch fails and marks the spot
// offerings unavailable; the next batch (10s later) launches on-demand.
func TestScenarioSpotFallback(t *testing.T) {
	h := newHarness(t)
	h.cloud.Exhaust(cloud.Offering{CapacityType: cluster.Spot})
	pools := h.pools(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: mixed}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c6i, m5]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
`)
	h.deploy("web", h.podSpec("500m", "512Mi", map[string]string{"app": "web"}), time.Duration(0), 4)
	h.start(pools, apis.DefaultSettings())
	h.run(3 * time.Minute)
	require.Equal(t, 4, h.podsIn(cluster.Running))
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 1)
	require.Equal(t, cluster.OnDemand, nodes[0].CapacityType)
	st := h.k.Stats()
	require.Equal(t, int64(1), st.LaunchFailures)
	require.Equal(t, int64(1), st.NodeClaimsLaunched)
	launches := h.cloud.Launches()
	require.Len(t, launches, 2)
	require.Equal(t, cloud.PriceCapacityOptimized, launches[0].Request.Strategy, "spot first")
	require.Equal(t, cloud.LowestPrice, launches[1].Request.Strategy, "then on-demand")
	require.LessOrEqual(t, nodes[0].Launched, 25*time.Second, "within a couple of batches")
}
