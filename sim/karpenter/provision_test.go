package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// Ten pods of one Deployment run on on-demand m5 nodes Karpenter
// launches for them.
func TestProvisionBasic(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", map[string]string{"app": "web"}), time.Duration(0), 10)
	h.start(poolWith("default", onDemand+"        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, m5.2xlarge]}\n", ""))
	h.run(5 * time.Minute)
	require.Equal(t, 10, h.podsIn(cluster.Running))
	nodes := h.karpenterNodes()
	require.NotEmpty(t, nodes)
	st := h.k.Stats()
	t.Logf("nodes=%d stats=%+v", len(nodes), st)
	for _, n := range nodes {
		t.Logf("%s %s %s %s", n.Name, n.InstanceType, h.label(n, "topology.kubernetes.io/zone"), h.label(n, "karpenter.sh/capacity-type"))
	}
}

// A launched node records the pods it was launched for (sim explain reads
// it), under the instance Karpenter knows it by. The node's labels, price
// and the other provisioning rules are in testdata/provisioning.txt.
func TestLaunchRecordsItsPods(t *testing.T) {
	h := startWeb(t, 2, poolWith("p", odM5, ""))
	h.run(5 * time.Minute)
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 1)
	id := h.k.nodes.byInstance[cloud.InstanceID(nodes[0].Instance)]
	require.Equal(t, []cluster.NodeID{id}, h.cl.LaunchedFor(0), "NoteLaunchFor records the pods a node was launched for")
}

// Nomination: a node that just received pending pods is not a disruption
// candidate for max(2 x batchMaxDuration, 10s).
func TestNominationProtects(t *testing.T) {
	h := startWeb(t, 1, poolWith("p", odM5, "  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 0s}"))
	h.run(5 * time.Minute)
	kn := h.k.nodes.byID[0]
	require.NotNil(t, kn)
	kn.nominatedUntil = h.eng.Now() + 20*time.Second
	h.cl.DeletePod(0, cluster.CauseScaleDown) // the deployment recreates it...
	require.Empty(t, h.k.dis.candidates(methodOf[*emptiness](h.k.dis)), "nominated")
	kn.nominatedUntil = h.eng.Now()
	for _, c := range h.k.dis.candidates(methodOf[*singleNode](h.k.dis)) {
		require.Equal(t, kn, c.kn)
	}
}

// The launch-time check (KC Provisioner.Create): a pool whose usage
// exceeds a limit creates no NodeClaim, whatever the solve decided.
func TestLaunchAllowed(t *testing.T) {
	p := &scheduling.Pool{Spec: &apis.NodePool{Limits: apis.Limits{Nodes: 2}}}
	p.Spec.Limits.Max[cluster.CPU], p.Spec.Limits.Has[cluster.CPU] = 8000, true
	var at, over cluster.Resources
	at[cluster.CPU], over[cluster.CPU] = 8000, 8001
	require.True(t, scheduling.LaunchAllowed(p, map[*scheduling.Pool]scheduling.PoolUsage{}))
	require.True(t, scheduling.LaunchAllowed(p, map[*scheduling.Pool]scheduling.PoolUsage{p: {Capacity: at, Nodes: 2}}), "usage equal to the limit is not exceeded")
	require.False(t, scheduling.LaunchAllowed(p, map[*scheduling.Pool]scheduling.PoolUsage{p: {Capacity: at, Nodes: 3}}))
	require.False(t, scheduling.LaunchAllowed(p, map[*scheduling.Pool]scheduling.PoolUsage{p: {Capacity: over, Nodes: 1}}))
}

// A NodePool allowing spot and on-demand falls back to on-demand when spot
// is exhausted: the first batch's spot launch fails and marks the spot
// offerings unavailable; the next batch (10s later) launches on-demand.
func TestScenarioSpotFallback(t *testing.T) {
	h := newHarness(t)
	h.cloud.Exhaust(cloud.Offering{CapacityType: cluster.Spot})
	h.deploy("web", h.podSpec("500m", "512Mi", map[string]string{"app": "web"}), time.Duration(0), 4)
	h.start(poolWith("mixed", "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c6i, m5]}\n"+
		"        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}\n", ""))
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
