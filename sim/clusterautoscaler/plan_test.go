package clusterautoscaler

import (
	"testing"

	"github.com/stretchr/testify/require"
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
