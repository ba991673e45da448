package eviction

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

func TestEvictionRespectsBudgets(t *testing.T) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	sel, err := cluster.CompileLabelSelector(cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
	require.NoError(t, err)
	ns := cl.Syms.Intern("default")
	pdb := cluster.PDB{Namespace: ns, Name: "web", Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 2}}
	e := New(eng, cl, []cluster.PDB{pdb})
	var alloc cluster.Resources
	alloc[cluster.Pods] = 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	spec, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Labels: map[string]string{"app": "web"}, Spec: &corev1.PodSpec{}})
	require.NoError(t, err)
	var pods []cluster.PodID
	for range 3 {
		id := cl.CreatePod(cluster.Pod{Name: "w", Namespace: ns, Spec: spec, Workload: -1})
		cl.Bind(id, n)
		cl.StartPod(id)
		pods = append(pods, id)
	}
	// 3 healthy, 2 must stay: one eviction allowed, the second refused.
	require.True(t, e.Evict(pods[0], cluster.CauseEvicted))
	require.True(t, cl.Pods[pods[0]].Terminating)
	require.False(t, e.Evict(pods[1], cluster.CauseEvicted), "a terminating pod is no longer healthy")
	require.Equal(t, Stats{Evicted: 1, Refused: 1}, e.Stats())
	eng.Run(29 * time.Second)
	require.Equal(t, cluster.Running, cl.Pods[pods[0]].Phase, "keeps its room during the 30s grace")
	eng.Run(31 * time.Second)
	require.Equal(t, cluster.Deleted, cl.Pods[pods[0]].Phase)
	require.Equal(t, cluster.CauseEvicted, cl.Pods[pods[0]].Cause)
}
