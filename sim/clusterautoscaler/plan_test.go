package clusterautoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// DecideScaleUp reports every group's estimate and the groups the
// expander chain keeps, launches nothing, and gives the same answer when
// asked again.
func TestDecideScaleUp(t *testing.T) {
	h := newHarness(t)
	groups := h.groups(managedNodeGroups(
		"{name: small, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 0}",
		"{name: big, instanceType: m5.2xlarge, minSize: 0, maxSize: 10, desiredCapacity: 0}",
		"{name: other, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 0}",
	))
	h.start(groups, []string{"--expander=most-pods"}, nil)
	h.at(0)
	pods := h.pods(6, "1", "1Gi", bare())
	for _, p := range pods {
		h.cl.MarkUnschedulable(p)
	}
	d := h.ca.DecideScaleUp()
	require.ElementsMatch(t, pods, d.Pending)
	require.Len(t, d.Options, 3)
	byGroup := map[string]ScaleUpOption{}
	for _, o := range d.Options {
		byGroup[o.Group] = o
		require.Len(t, o.Pods, 6, o.Group)
	}
	// Groups at zero are sized from the ASG's template: nominal vCPUs,
	// no kubelet overhead, so two 1-cpu pods per m5.large.
	require.Equal(t, 3, byGroup["small"].Nodes)
	require.Equal(t, 1, byGroup["big"].Nodes)
	// most-pods ties all three: the chain keeps all.
	require.Len(t, d.Best, 3)
	require.Equal(t, 0, h.cl.LiveNodes())
	require.Equal(t, d, h.ca.DecideScaleUp())

	h.ca.s.Expanders = []string{"least-waste"}
	d = h.ca.DecideScaleUp()
	// least-waste: the two m5.large groups waste the same, less than big.
	require.Equal(t, []int{0, 2}, d.Best)
	h.ca.s.Expanders = []string{"least-nodes"}
	d = h.ca.DecideScaleUp()
	require.Equal(t, []int{1}, d.Best)
	require.Equal(t, "big", d.Options[d.Best[0]].Group)
}

// DecideScaleUp decides what the loop then does, zone spreads included: a
// zone-spread workload on a three-zone group whose nodes are full gets
// one node with maxSkew pods (the template sits in the first zone), in
// the decision and in the scale-up the next loop carries out.
func TestDecideScaleUpMatchesLoop(t *testing.T) {
	h := newHarness(t)
	groups := h.groups(managedNodeGroups(
		"{name: ng, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 3, availabilityZones: [us-east-1a, us-east-1b, us-east-1c]}"))
	h.start(groups, nil, nil)
	h.at(time.Second)
	nodes := h.nodesOf("ng")
	require.Len(t, nodes, 3)
	h.fill(nodes)
	h.unschedulable(6, "100m", "100Mi", bare(), zoneSpread("web"))
	d := h.ca.DecideScaleUp()
	require.Len(t, d.Options, 1)
	require.Equal(t, 1, d.Options[0].Nodes)
	require.Len(t, d.Options[0].Pods, 1)
	h.at(15 * time.Second)
	require.Equal(t, 1, h.groupStats("ng").ScaleUps)
	require.Len(t, h.nodesOf("ng"), 4)
}

// A hostname spread in a cluster with no node the pods may go to:
// upstream's only domains are the estimator's simulated nodes, so the
// first new node takes pods until its room runs out (4 of 3.5 cpu on an
// m5.4xlarge), then the next; with an eligible node that has none of the
// pods (here a full node of another group), maxSkew (1) per new node.
func TestHostSpreadMeasuredAgainstSimulatedNodes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		otherSize int
		nodes     int
	}{{"no eligible node", 0, 2}, {"an eligible node without the pods", 1, 5}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			groups := h.groups(managedNodeGroups(
				"{name: big, instanceType: m5.4xlarge, minSize: 0, maxSize: 10, desiredCapacity: 0}",
				fmt.Sprintf("{name: other, instanceType: m5.large, minSize: 0, maxSize: %d, desiredCapacity: %d}", tc.otherSize, tc.otherSize)))
			h.start(groups, []string{"--nodes=0:10:big"}, nil)
			h.at(time.Second)
			h.fill(h.nodesOf("other"))
			h.unschedulable(5, "3500m", "7Gi", bare(), hostSpread("web"))
			d := h.ca.DecideScaleUp()
			require.Len(t, d.Options, 1)
			require.Equal(t, "big", d.Options[0].Group)
			require.Equal(t, tc.nodes, d.Options[0].Nodes)
			require.Len(t, d.Options[0].Pods, 5)
		})
	}
}

// With the skew measured against the simulated nodes, later pods of the
// group go back to the nodes added for other pods once every node has
// one: 5 large pods take two c6g.4xlarge nodes and 6 small hostname-spread
// pods share them, 3 each (a single pass over the nodes needs a third).
func TestHostSpreadFillsEarlierNodes(t *testing.T) {
	h := newHarness(t)
	groups := h.groups(managedNodeGroups("{name: ng, instanceType: c6g.4xlarge, minSize: 0, maxSize: 10, desiredCapacity: 0}"))
	h.start(groups, nil, nil)
	h.at(time.Second)
	h.unschedulable(5, "3500m", "7Gi", bare())
	h.unschedulable(6, "100m", "128Mi", bare(), hostSpread("web"))
	d := h.ca.DecideScaleUp()
	require.Len(t, d.Options, 1)
	require.Equal(t, 2, d.Options[0].Nodes)
	require.Len(t, d.Options[0].Pods, 11)
}

// hostSpread and zoneSpread label a pod app: app and spread the pods of
// that label over hosts or zones, maxSkew 1, DoNotSchedule.
func hostSpread(app string) podOpt { return spreadOver("kubernetes.io/hostname", app) }
func zoneSpread(app string) podOpt { return spreadOver("topology.kubernetes.io/zone", app) }

func spreadOver(key, app string) podOpt {
	return func(s *corev1.PodSpec, m *podMeta) {
		m.labels = map[string]string{"app": app}
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: key,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: labelSelector("app", app)}}
	}
}

// unschedulable creates n pods of the spec that the scheduler could not
// place, for DecideScaleUp.
func (h *harness) unschedulable(n int, cpu, mem string, opts ...podOpt) {
	h.t.Helper()
	for _, p := range h.pods(n, cpu, mem, opts...) {
		h.cl.MarkUnschedulable(p)
	}
}

// fill binds to each node a pod that takes all its cpu.
func (h *harness) fill(nodes []cluster.NodeID) {
	for _, id := range nodes {
		nd := &h.cl.Nodes[id]
		spec := &cluster.PodSpec{}
		spec.Requests[cluster.CPU] = nd.Allocatable[cluster.CPU]
		h.cl.Bind(h.cl.CreatePod(cluster.Pod{Name: "filler-" + nd.Name, Namespace: h.cl.Syms.Intern("default"), Spec: spec, Workload: -1}), id)
	}
}

// A zone-spread pod that a new node refuses leaves that node empty in the
// estimate, as in upstream's snapshot, and the next group's pods take it
// (upstream places them round-robin over the simulated nodes): the option
// counts two nodes where the pods would fit one.
func TestEmptyNodeLeftBySpreadTakesLaterPods(t *testing.T) {
	h := newHarness(t)
	groups := h.groups(managedNodeGroups(
		"{name: ng, instanceType: c5.2xlarge, minSize: 0, maxSize: 10, desiredCapacity: 2, availabilityZones: [us-east-1a, us-east-1b]}"))
	h.start(groups, nil, nil)
	h.at(time.Second)
	h.fill(h.nodesOf("ng"))
	h.unschedulable(2, "1", "512Mi", bare(), zoneSpread("web"))
	h.unschedulable(8, "250m", "128Mi", bare())
	d := h.ca.DecideScaleUp()
	require.Len(t, d.Options, 1)
	require.Equal(t, 2, d.Options[0].Nodes)
	require.Len(t, d.Options[0].Pods, 9)
}
