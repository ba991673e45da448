package scheduler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// With ComputeTime a burst is placed one cycle at a time: pod i binds
// after the cost of the i cycles before it, and the last one waited for
// them all. Without it every pod binds at once.
func TestComputeTimeSerializesCycles(t *testing.T) {
	for _, on := range []bool{false, true} {
		h := newHarness(t, 1, Config{ComputeTime: on})
		for i := range 10 {
			h.node(fmt.Sprintf("n%d", i), 64000, 256<<10, nil)
		}
		var pods []cluster.PodID
		for i := range 100 {
			pods = append(pods, h.pod(fmt.Sprintf("p%d", i), podSpec("100m", "100Mi")))
		}
		h.eng.Run(time.Hour)
		cycle := CycleBase + 10*CyclePerNode // fewer than 100 nodes: every node is evaluated
		for i, id := range pods {
			p := &h.cl.Pods[id]
			require.NotEqual(t, cluster.Pending, p.Phase)
			want := time.Duration(0)
			if on {
				want = time.Duration(i) * cycle
			}
			require.Equal(t, want, time.Duration(p.BoundAt), "pod %d, computeTime %v", i, on)
		}
		st := h.s.Stats()
		if on {
			require.Equal(t, 100*cycle, st.Busy)
			require.Equal(t, 100*cycle, st.MaxWait)
		} else {
			require.Zero(t, st.Busy)
			require.Zero(t, st.MaxWait)
		}
	}
}

// A pod with pod anti-affinity costs the extra per node of the cluster;
// a pod that finds no node costs a scan of every node.
func TestCycleCostByWork(t *testing.T) {
	h := newHarness(t, 1, Config{ComputeTime: true})
	for i := range 200 {
		h.node(fmt.Sprintf("n%d", i), 1000, 4096, map[string]string{corev1.LabelHostname: fmt.Sprintf("n%d", i)})
	}
	anti := podSpec("100m", "100Mi")
	anti.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, TopologyKey: corev1.LabelHostname}}}}
	h.podLP("anti", map[string]string{"app": "a"}, anti, 0)
	h.eng.Run(time.Hour)
	// 200 nodes: the adaptive percentage is 50-200/125 = 49%, 98 nodes,
	// raised to the minimum of 100.
	want := CycleBase + 100*CyclePerNode + 200*CycleInterPodAffinityPerNode
	require.Equal(t, want, h.s.Stats().Busy)

	h.pod("huge", podSpec("64", "1Gi"))
	h.eng.Run(time.Hour + time.Second) // its first cycle only
	require.Equal(t, want+CycleBase+200*CyclePerNode, h.s.Stats().Busy)
}
