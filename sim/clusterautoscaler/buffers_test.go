package clusterautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/cluster"
)

var bufferFlags = []string{"--capacity-buffer-controller-enabled", "--capacity-buffer-pod-injection-enabled"}

// startBuffer starts the Cluster Autoscaler on an empty m5.xlarge group
// (3 pods of 1 cpu a node) with a buffer of replicas copies of a
// PodTemplate's 1 cpu pod (podTemplateRef and replicas, as the
// translators' test of CA pkg/capacitybuffer reads them), and returns the
// template's spec.
func startBuffer(t *testing.T, replicas int32, args ...string) (*harness, *cluster.PodSpec) {
	h := newHarness(t)
	spec, _ := h.spec("1", "1Gi")
	h.cl.SetScaleSource(func(ns, kind, name string) (*cluster.PodSpec, int32, bool) {
		return spec, 0, ns == "default" && kind == "PodTemplate" && name == "t"
	})
	h.buffers = []capacitybuffer.Buffer{{Name: "b", Namespace: "default", Strategy: capacitybuffer.ActiveCapacity, PodTemplate: "t", Replicas: &replicas}}
	h.start(h.groups(managedNodeGroups("{name: web, instanceType: m5.xlarge, minSize: 0, maxSize: 10, desiredCapacity: 0}")), args, nil)
	return h, spec
}

// A buffer of 4 pods scales the empty group up to 2 nodes with no pod in
// the cluster (in two scale-ups: the ASG's template has the type's
// nominal 4 cpu, its node 3.92 allocatable), and scale-down keeps them (the fake pods count in their
// utilization and have nowhere else to go). 4 real pods take the room at
// once; the loops after add the node the buffer is short of again.
func TestBufferScalesUpAndKeepsRoom(t *testing.T) {
	h, spec := startBuffer(t, 4, bufferFlags...)
	h.at(5 * time.Minute)
	require.Len(t, h.nodesOf("web"), 2)
	require.Empty(t, h.cl.Pods, "fake pods are no pods of the cluster")
	h.at(30 * time.Minute)
	require.Len(t, h.nodesOf("web"), 2)
	require.Zero(t, h.ca.Stats().NodesRemoved, "kept through scale-down (10 min unneeded), not removed and added again")
	var pods []cluster.PodID
	for range 4 {
		pods = append(pods, h.cl.CreatePod(cluster.Pod{Name: "real", Namespace: h.cl.Syms.Intern("default"), Spec: spec}))
	}
	h.at(30*time.Minute + 10*time.Second)
	for _, p := range pods {
		at, ok := h.boundAt(p)
		require.True(t, ok, "pod %d bound", p)
		require.Less(t, at, 30*time.Minute+5*time.Second, "into the buffer's room at once")
	}
	h.at(60 * time.Minute)
	// 4 real and 4 fake pods of 1 cpu: 3 nodes, kept.
	require.Len(t, h.nodesOf("web"), 3)
	require.Zero(t, h.ca.Stats().NodesRemoved)
}

// Either flag alone, or neither, keeps nothing (CA builder/autoscaler.go
// wires the controller and the pod list processor apart).
func TestBufferNeedsBothFlags(t *testing.T) {
	for _, args := range [][]string{nil, bufferFlags[:1], bufferFlags[1:]} {
		h, _ := startBuffer(t, 4, args...)
		h.at(10 * time.Minute)
		require.Empty(t, h.nodesOf("web"), "%v", args)
	}
}

// A buffer of another provisioning strategy is left alone (the
// controller's strategy filter and the pod list processor take
// buffer.x-k8s.io/active-capacity only).
func TestBufferOtherStrategy(t *testing.T) {
	h := newHarness(t)
	spec, _ := h.spec("1", "1Gi")
	h.cl.SetScaleSource(func(string, string, string) (*cluster.PodSpec, int32, bool) { return spec, 0, true })
	four := int32(4)
	h.buffers = []capacitybuffer.Buffer{{Name: "b", Namespace: "default", Strategy: "buffer.x-k8s.io/standby-capacity", PodTemplate: "t", Replicas: &four}}
	h.start(h.groups(managedNodeGroups("{name: web, instanceType: m5.xlarge, minSize: 0, maxSize: 10, desiredCapacity: 0}")), bufferFlags, nil)
	h.at(10 * time.Minute)
	require.Empty(t, h.nodesOf("web"))
}
