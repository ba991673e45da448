package clusterautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

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

// The loop keeps a group's cached template only when copying the node
// it would copy gives the same template: before, it kept it whenever the
// node was the one it had been copied from, so a label or taint that
// node got later never reached the template, and scale-up kept
// simulating the node as it had been.
func TestTemplateFollowsItsNodesLabels(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(managedNodeGroups("{name: a, instanceType: m5.large, minSize: 1, maxSize: 5, desiredCapacity: 1}")),
		[]string{"--scale-down-enabled=false"}, nil)
	h.pods(1, "1500m", "1Gi") // fills the node
	h.at(time.Minute)
	nodes := h.nodesOf("a")
	require.Len(t, nodes, 1)
	g := h.ca.groups[0]
	require.NotNil(t, g.cached, "the loops copied the node")
	before := h.groupStats("a").ScaleUps
	h.cl.SetLabel(nodes[0], h.cl.Syms.Intern("tier"), h.cl.Syms.Intern("gold"))
	gold := func(s *corev1.PodSpec, _ *podMeta) { s.NodeSelector = map[string]string{"tier": "gold"} }
	h.pods(1, "1000m", "1Gi", gold)
	h.at(2 * time.Minute)
	require.Greater(t, h.groupStats("a").ScaleUps, before, "a copy of the node now takes the pod")
	v, ok := g.cached.node.Labels.Get(h.cl.Syms.Intern("tier"))
	require.True(t, ok)
	require.Equal(t, "gold", h.cl.Syms.Name(v))
}
