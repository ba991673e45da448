package taintmanager

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

func TestNoExecuteEviction(t *testing.T) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	m := New(eng, cl)
	var alloc cluster.Resources
	alloc[cluster.Pods] = 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	seconds := int64(60)
	mk := func(tols ...corev1.Toleration) cluster.PodID {
		spec, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Spec: &corev1.PodSpec{Tolerations: tols}})
		require.NoError(t, err)
		id := cl.CreatePod(cluster.Pod{Name: "p", Spec: spec, Workload: -1})
		cl.Bind(id, n)
		return id
	}
	plain := mk()
	brief := mk(corev1.Toleration{Key: "gone", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds})
	forever := mk(corev1.Toleration{Key: "gone", Operator: corev1.TolerationOpExists})

	eng.Run(10 * time.Second)
	taint := cluster.Taint{Key: cl.Syms.Intern("gone"), Effect: cluster.EffectNoExecute}
	cl.AddTaint(n, taint)
	eng.Run(10 * time.Second)
	require.True(t, cl.Pods[plain].Terminating, "an untolerated NoExecute taint evicts at once")
	require.False(t, cl.Pods[brief].Terminating)
	eng.Run(40 * time.Second)
	require.Equal(t, cluster.Deleted, cl.Pods[plain].Phase, "deleted after its 30s grace")
	require.Equal(t, cluster.CauseTaintEvicted, cl.Pods[plain].Cause)
	eng.Run(70 * time.Second)
	require.True(t, cl.Pods[brief].Terminating, "evicted when tolerationSeconds run out")
	require.False(t, cl.Pods[forever].Terminating, "tolerated for ever")
	require.Equal(t, uint64(2), m.Evictions)

	// Removing the taint cancels a running countdown.
	other := mk(corev1.Toleration{Key: "gone", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds})
	eng.Run(80 * time.Second)
	cl.RemoveTaint(n, taint.Key, taint.Effect)
	eng.Run(time.Hour)
	require.False(t, cl.Pods[other].Terminating)
}
