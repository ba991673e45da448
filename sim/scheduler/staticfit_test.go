package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// cluster.StaticFit, which the autoscalers and lint use, must agree with
// the scheduler's own filters on every node.
func TestStaticFitAgreesWithFilters(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("plain", 2000, 4096, map[string]string{"pool": "a"})
	h.node("tainted", 8000, 16384, map[string]string{"pool": "a"}, corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule})
	h.node("other-pool", 8000, 16384, map[string]string{"pool": "b"})
	h.node("small", 500, 4096, map[string]string{"pool": "a"})
	c := h.node("cordoned", 8000, 16384, map[string]string{"pool": "a"})
	h.cl.SetCordon(c, true)
	for _, spec := range []corev1.PodSpec{podSpec("1", "1Gi"), withTol(podSpec("1", "1Gi")),
		func() corev1.PodSpec {
			s := podSpec("1", "1Gi")
			s.NodeSelector = map[string]string{"pool": "b"}
			return s
		}()} {
		p := h.pod("p", spec)
		h.eng.Run(h.eng.Now() + time.Second)
		var feasible []string
		for i := range h.cl.Nodes {
			n := &h.cl.Nodes[i]
			free := n.Free()
			if m, _ := cluster.StaticFit(h.cl.Syms, h.cl.Pods[p].Spec, n, &free); m == cluster.Fits {
				feasible = append(feasible, n.Name)
			}
		}
		if len(feasible) == 0 {
			require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
		} else {
			require.Contains(t, feasible, h.nodeOf(p))
		}
		h.cl.DeletePod(p, cluster.CauseScaleDown)
	}
}
