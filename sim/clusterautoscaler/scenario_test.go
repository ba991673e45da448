package clusterautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
)

var spotAndOnDemand = managedNodeGroups(
	"{name: spot, instanceType: m5.large, spot: true, minSize: 0, maxSize: 10, desiredCapacity: 0}",
	"{name: on-demand, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 0}")

var spotFirst = map[string][]string{"10": {"spot"}, "1": {".*"}}

// latestBinding is when the last of the pods was bound.
func (h *harness) latestBinding(pods []cluster.PodID) time.Duration {
	h.t.Helper()
	var last time.Duration
	for _, p := range pods {
		at, ok := h.boundAt(p)
		require.True(h.t, ok, "pod %d never bound", p)
		last = max(last, at)
	}
	return last
}

// requireOnGroup fails the test unless every pod runs on a node of group.
func (h *harness) requireOnGroup(pods []cluster.PodID, group string) {
	h.t.Helper()
	for _, p := range pods {
		require.Equal(h.t, group, h.nodeOfPod(p), "pod %d", p)
	}
}

func TestPriorityPicksSpotWhenItHasCapacity(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(spotAndOnDemand), []string{"--expander=priority"}, spotFirst)
	pods := h.pods(3, "500m", "1Gi")
	h.at(20 * time.Minute)
	h.requireOnGroup(pods, "spot")
	// Pending for one loop (the pods are new at t=0, the next loop is a
	// loop duration plus the scan interval later), then the ASG launch.
	require.Equal(t, 11*time.Second+h.cloud.ReadyAfter, h.latestBinding(pods))
	require.Equal(t, 0, h.groupStats("on-demand").ScaleUps)
	require.Equal(t, 0, h.ca.Stats().FailedScaleUps)
	for _, req := range h.cloud.Requests() {
		require.Equal(t, cloud.CapacityOptimized, req.Strategy)
		require.Equal(t, cloud.ASGLaunch, req.Latency)
		require.Equal(t, cluster.Spot, req.Offerings[0].CapacityType)
	}
}

// The spot node is launched but never becomes Ready: the scale-up times
// out after --max-node-provision-time and the pods go to on-demand.
func TestPrioritySpotFallsBackAfterProvisionTimeout(t *testing.T) {
	h := newHarness(t)
	h.cloud.ReadyAfterFor = map[cluster.CapacityType]time.Duration{cluster.Spot: 2 * time.Hour}
	h.start(h.groups(spotAndOnDemand), []string{"--expander=priority", "--max-node-provision-time=10m"}, spotFirst)
	pods := h.pods(2, "1", "1Gi")
	h.at(40 * time.Minute)
	h.requireOnGroup(pods, "on-demand")
	spot := h.groupStats("spot")
	require.Equal(t, 1, spot.FailedScaleUps)
	require.Equal(t, 1, spot.NodesAdded)
	require.Equal(t, 1, spot.NodesRemoved)
	require.Len(t, h.cloud.Terminated(), 1)
	// Launched at 11 s, given up at the first loop after 10m11s.
	waited := h.latestBinding(pods)
	require.GreaterOrEqual(t, waited, 10*time.Minute+11*time.Second+h.cloud.ReadyAfter)
	require.Less(t, waited, 12*time.Minute+h.cloud.ReadyAfter)
	require.Empty(t, h.nodesOf("spot"))
}

func TestSpotReclaimIsReplacedByTheASG(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(clusterConfig(`nodeGroups:
  - name: spot
    minSize: 2
    maxSize: 4
    instancesDistribution:
      instanceTypes: [m5.large, m5a.large]
      onDemandPercentageAboveBaseCapacity: 0
`)), nil, nil)
	h.at(time.Minute)
	require.Equal(t, 2, h.readyNodesOf("spot"))
	first := cloud.InstanceID(h.cl.Nodes[h.nodesOf("spot")[0]].Instance)
	h.cloud.SignalAt(5*time.Minute, cloud.Terminated, first)
	h.at(5*time.Minute + time.Second)
	require.Len(t, h.nodesOf("spot"), 2, "the replacement is launching")
	require.Equal(t, 1, h.readyNodesOf("spot"))
	h.at(10 * time.Minute)
	require.Equal(t, 2, h.readyNodesOf("spot"))
	gs := h.groupStats("spot")
	require.Equal(t, 1, gs.NodesReclaimed)
	require.Equal(t, 1, gs.Replacements)
	require.Equal(t, 2, gs.DesiredAtEnd)
	for _, req := range h.cloud.Requests() {
		require.Equal(t, cloud.LowestPrice, req.Strategy)
		require.Len(t, req.Offerings, 6)
	}
	// Replacements are spread over zones: least-used zone first.
	require.NotEqual(t, h.cloud.Requests()[0].Offerings[0].Zone, h.cloud.Requests()[1].Offerings[0].Zone)
}

// A scale-up for pods Karpenter already launched a node for is a race.
func TestRaceNodes(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(oneGroup), nil, nil)
	pods := h.pods(2, "1", "1Gi")
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 4000, 16<<30, 50
	karp := h.cl.AddNode(cluster.Node{Name: "karpenter-1", Allocatable: alloc, State: cluster.NodeLaunching, Owner: cluster.RegisterOwner("karpenter"), OwnerName: "default"})
	for _, p := range pods {
		h.cl.NoteLaunchFor(p, karp)
	}
	h.at(time.Minute)
	st := h.ca.Stats()
	require.Equal(t, 1, st.ScaleUps)
	require.Equal(t, st.NodesAdded, st.RaceNodes)
	require.Positive(t, st.RaceNodes)
	for _, p := range pods {
		require.Len(t, h.cl.LaunchedFor(p), 2)
	}
}

var oneGroup = managedNodeGroups("{name: od, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 0}")

func TestDeterministic(t *testing.T) {
	run := func() Stats {
		h := newHarness(t)
		h.cloud.Exhaust(cloud.Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: cluster.Spot})
		h.start(h.groups(spotAndOnDemand), []string{"--expander=random"}, nil)
		h.pods(7, "700m", "1Gi")
		h.at(time.Hour)
		return h.ca.Stats()
	}
	require.Equal(t, run(), run())
}
