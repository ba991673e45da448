package scheduler

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

func (h *harness) scanOrder() []string {
	var out []string
	for _, id := range h.s.Nodes() {
		out = append(out, h.cl.Nodes[id].Name)
	}
	return out
}

// TestScanOrderIsUpstreamsNodeTree: nodes are listed zone by zone in turn
// (zones in order of their first node), removals keep the others' order
// within their zone, an emptied zone leaves and comes back last, a node
// whose zone label changes goes to the end of its new zone, and the beta
// zone label wins over topology.kubernetes.io/zone (GetZoneKey).
func TestScanOrderIsUpstreamsNodeTree(t *testing.T) {
	h := newHarness(t, 1, Config{})
	zone := func(z string) map[string]string { return map[string]string{"topology.kubernetes.io/zone": z} }
	ids := map[string]cluster.NodeID{}
	for _, n := range []struct{ name, zone string }{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"b2", "b"}, {"c1", "c"}} {
		ids[n.name] = h.node(n.name, 1000, 1024, zone(n.zone))
	}
	require.Equal(t, []string{"a1", "b1", "c1", "a2", "b2", "a3"}, h.scanOrder())
	h.cl.RemoveNode(ids["a1"])
	require.Equal(t, []string{"a2", "b1", "c1", "a3", "b2"}, h.scanOrder())
	h.cl.RemoveNode(ids["c1"])
	ids["c2"] = h.node("c2", 1000, 1024, zone("c"))
	ids["x1"] = h.node("x1", 1000, 1024, nil) // no zone: a zone of its own
	require.Equal(t, []string{"a2", "b1", "c2", "x1", "a3", "b2"}, h.scanOrder())
	h.cl.SetLabel(ids["a2"], h.cl.KeyZone, h.cl.Syms.Intern("b"))
	require.Equal(t, []string{"a3", "b1", "c2", "x1", "b2", "a2"}, h.scanOrder())
	h.node("y1", 1000, 1024, map[string]string{"topology.kubernetes.io/zone": "a", "failure-domain.beta.kubernetes.io/zone": "c"})
	require.Equal(t, []string{"a3", "b1", "c2", "x1", "b2", "y1", "a2"}, h.scanOrder())
}

// TestSampledCyclesVisitEveryZone: 300 nodes added zone after zone; with
// the adaptive percentageOfNodesToScore (48% of 300: 144 nodes) a cycle's
// sample holds as many nodes of each zone, and the next cycle starts where
// it stopped. In insertion order the first sample was 100 nodes of zone a
// and 44 of zone b. Both the node-by-node scan (a pod with spread) and the
// fit index (a pod with requests only) sample so.
func TestSampledCyclesVisitEveryZone(t *testing.T) {
	h := newHarness(t, 1, Config{})
	for i := range 300 {
		h.node(fmt.Sprintf("n%03d", i), 4000, 8192, map[string]string{"topology.kubernetes.io/zone": fmt.Sprint("z", i/100)})
	}
	plain := h.pod("plain", podSpec("100m", "100Mi"))
	spec := podSpec("100m", "100Mi")
	spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
		WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}
	spread := h.podLP("spread", map[string]string{"app": "x"}, spec, 0)
	perZone := func(ev Evaluation) map[string]int {
		m := map[string]int{}
		for _, id := range ev.Feasible {
			z, _ := h.cl.Nodes[id].Labels.Get(h.cl.KeyZone)
			m[h.cl.Syms.Name(z)]++
		}
		return m
	}
	for _, id := range []cluster.PodID{plain, spread, plain} {
		start := h.s.nextStart
		ev, err := h.s.Evaluate(id, false)
		require.NoError(t, err)
		require.Len(t, ev.Feasible, 144)
		require.Equal(t, map[string]int{"z0": 48, "z1": 48, "z2": 48}, perZone(ev))
		require.Equal(t, h.s.Nodes()[start], ev.Feasible[0], "the sample starts where the last cycle stopped")
		require.Equal(t, (start+144)%300, h.s.nextStart)
	}
	require.NotEmpty(t, h.s.fitIdx, "the plain pod goes through a fit index")
	// After a removal the fit index follows the new order.
	h.cl.RemoveNode(h.s.Nodes()[0])
	ev, err := h.s.Evaluate(plain, false)
	require.NoError(t, err)
	want := []cluster.NodeID{}
	for i := range 143 {
		want = append(want, h.s.Nodes()[(h.s.nextStart-143+i+299)%299])
	}
	require.Equal(t, want, ev.Feasible)
}

// TestScanStopsAtTheNodePastTheQuota: upstream's search runs on until the
// first feasible node past the quota, so the rejected nodes before it
// count as processed and the next cycle starts at it. 200 nodes, quota
// 100; nodes 100-109 are tainted: the first cycle keeps nodes 0-99 and the
// next starts at node 110, through the scan and the fit index alike.
func TestScanStopsAtTheNodePastTheQuota(t *testing.T) {
	for _, spread := range []bool{false, true} {
		h := newHarness(t, 1, Config{})
		for i := range 200 {
			var taints []corev1.Taint
			if i >= 100 && i < 110 {
				taints = []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectNoSchedule}}
			}
			h.node(fmt.Sprintf("n%03d", i), 4000, 8192, nil, taints...)
		}
		spec := podSpec("100m", "100Mi")
		if spread {
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}
		}
		p := h.podLP("p", map[string]string{"app": "x"}, spec, 0)
		ev, err := h.s.Evaluate(p, false)
		require.NoError(t, err)
		require.Len(t, ev.Feasible, 100)
		require.Equal(t, "n099", h.cl.Nodes[ev.Feasible[99]].Name)
		require.Equal(t, 110, h.s.nextStart, "spread=%v", spread)
		require.Equal(t, !spread, len(h.s.fitIdx) > 0)
	}
}
