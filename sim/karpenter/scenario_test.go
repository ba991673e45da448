package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

const spotPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: burst-spot}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.large, c5a.large, c6i.large]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      taints:
        - {key: karpenter.sh/capacity-type, value: spot, effect: NoSchedule}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
`

// A spot NodePool whose three instance types are all exhausted leaves its
// spot-only pods pending; it keeps retrying, but each failed offering is
// skipped for 3 minutes, so a launch is attempted only once the cache
// expires: at 1s (the first batch), then about every 3 minutes.
func TestScenarioSpotExhausted(t *testing.T) {
	h := newHarness(t)
	h.cloud.Exhaust(cloud.Offering{CapacityType: cluster.Spot})
	spec := h.podSpec("500m", "512Mi", map[string]string{"app": "batch"},
		withNodeSelector("karpenter.sh/capacity-type", "spot"), withToleration("karpenter.sh/capacity-type", "spot"))
	h.deploy("batch", spec, time.Duration(0), 4)
	h.start(h.pools(spotPool), apis.DefaultSettings())
	h.run(10 * time.Minute)
	require.Equal(t, 4, h.podsIn(cluster.Pending), "spot-only pods stay pending")
	require.Empty(t, h.karpenterNodes())
	st := h.k.Stats()
	// Two NodeClaims per round (three 500m pods fit a large), every
	// offering of the three types in the two zones each time; a round
	// only once the 3-minute cache has expired.
	launches := h.cloud.Launches()
	require.Len(t, launches, 8)
	require.Equal(t, int64(8), st.LaunchFailures)
	require.Greater(t, st.Batches, int64(40), "it keeps retrying every ~10s")
	var launchAt []time.Duration
	for i, l := range launches {
		require.Len(t, l.Request.Offerings, 6)
		require.Equal(t, cloud.PriceCapacityOptimized, l.Request.Strategy)
		if i%2 == 1 {
			require.Equal(t, launches[i-1].At, l.At, "the two NodeClaims of a batch launch together")
		}
		launchAt = append(launchAt, l.At)
	}
	require.Equal(t, time.Second, launchAt[0])
	for i := 2; i < len(launchAt); i += 2 {
		gap := launchAt[i] - launchAt[i-2]
		require.GreaterOrEqual(t, gap, 3*time.Minute)
		require.Less(t, gap, 3*time.Minute+12*time.Second)
	}
	t.Logf("launches at %v, %d batches", launchAt, st.Batches)
}

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
