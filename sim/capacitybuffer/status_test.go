package capacitybuffer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func i32(v int32) *int32 { return &v }

// Karpenter's rules follow KC capacitybuffer computeReplicas and its
// helpers' tests (v1.15.0): replicas and percentage combine by max,
// limits cap them (floor of limit / request, the least over the
// resources both name), limits alone size a buffer with neither.
func TestKarpenterReplicas(t *testing.T) {
	// One chunk: 1 cpu, 2Gi (milli-units).
	req := func(name string) int64 {
		switch name {
		case "cpu":
			return 1000
		case "memory":
			return 2 << 30 * 1000
		}
		return 0
	}
	scalable := Buffer{ScalableKind: "Deployment", ScalableName: "web"}
	cases := []struct {
		name     string
		b        Buffer
		workload int32
		want     int32
	}{
		{"replicas", Buffer{ScalableName: "web", Replicas: i32(5)}, 10, 5},
		{"percentage rounds up", Buffer{ScalableName: "web", Percentage: i32(20)}, 9, 2},
		{"percentage at least 1", Buffer{ScalableName: "web", Percentage: i32(1)}, 3, 1},
		{"max of replicas and percentage", Buffer{ScalableName: "web", Replicas: i32(5), Percentage: i32(80)}, 10, 8},
		{"limits cap", Buffer{ScalableName: "web", Replicas: i32(10), Limits: []Limit{{"cpu", 3000}}}, 10, 3},
		{"limits floor", Buffer{ScalableName: "web", Replicas: i32(10), Limits: []Limit{{"cpu", 3500}}}, 10, 3},
		{"least over resources", Buffer{ScalableName: "web", Replicas: i32(10), Limits: []Limit{{"cpu", 8000}, {"memory", 4 << 30 * 1000}}}, 10, 2},
		{"limits alone", Buffer{ScalableName: "web", Limits: []Limit{{"cpu", 5000}}}, 10, 5},
		{"limit on a resource not requested", Buffer{ScalableName: "web", Replicas: i32(4), Limits: []Limit{{"nvidia.com/gpu", 1000}}}, 10, 4},
		{"percentage of 0 replicas", Buffer{ScalableName: "web", Percentage: i32(50)}, 0, 0},
		{"percentage of 0 replicas, limits", Buffer{ScalableName: "web", Percentage: i32(50), Limits: []Limit{{"cpu", 5000}}}, 0, 5},
		{"percentage ignored with podTemplateRef", Buffer{PodTemplate: "t", Replicas: i32(2), Percentage: i32(90)}, 10, 2},
		{"nothing set", scalable, 10, 0},
	}
	for _, c := range cases {
		n, why := Karpenter.Replicas(&c.b, c.workload, req)
		require.Equal(t, c.want, n, c.name)
		require.Empty(t, why, c.name)
	}
}

// The Cluster Autoscaler's rules follow CA pkg/capacitybuffer/translators
// replicas_test.go (TestGetBufferNumberOfPods, TestReplicasFromPercentage,
// TestCalculateMaxPodsFromLimits), with its pod of 1 cpu (and 100m/200Mi
// for the limits case); a case the translator errs on leaves the buffer
// not ready (why != "").
func TestClusterAutoscalerReplicas(t *testing.T) {
	oneCPU := func(name string) int64 {
		if name == "cpu" {
			return 1000
		}
		return 0
	}
	cpu20 := []Limit{{"cpu", 20000}}
	cases := []struct {
		name     string
		b        Buffer
		workload int32
		want     int32
		notReady bool
	}{
		{"Only Replicas", Buffer{PodTemplate: "t", Replicas: i32(5)}, 0, 5, false},
		{"Only Percentage", Buffer{ScalableName: "w", Percentage: i32(200)}, 10, 20, false},
		{"Only Percentage Rounding Up", Buffer{ScalableName: "w", Percentage: i32(33)}, 10, 4, false},
		{"Replicas and Percentage (Replicas larger)", Buffer{ScalableName: "w", Replicas: i32(25), Percentage: i32(200)}, 10, 25, false},
		{"Replicas and Percentage (Percentage larger)", Buffer{ScalableName: "w", Replicas: i32(15), Percentage: i32(200)}, 10, 20, false},
		{"Replicas and Limits (Limits smaller)", Buffer{PodTemplate: "t", Replicas: i32(25), Limits: cpu20}, 0, 20, false},
		{"Replicas and Limits (Replicas smaller)", Buffer{PodTemplate: "t", Replicas: i32(15), Limits: cpu20}, 0, 15, false},
		{"Percentage and Limits (Limits smaller)", Buffer{ScalableName: "w", Percentage: i32(250), Limits: cpu20}, 10, 20, false},
		{"Only Limits", Buffer{PodTemplate: "t", Limits: cpu20}, 0, 20, false},
		{"Nothing specified", Buffer{ScalableName: "w"}, 10, 0, true},
		{"Percentage present but no scalable object", Buffer{PodTemplate: "t", Percentage: i32(200)}, 0, 0, true},
		{"50% of 0", Buffer{ScalableName: "w", Percentage: i32(50)}, 0, 0, false},
		{"50% of 0 with limits: 0, not the limits", Buffer{ScalableName: "w", Percentage: i32(50), Limits: cpu20}, 0, 0, false},
		{"limits on no requested resource", Buffer{PodTemplate: "t", Replicas: i32(4), Limits: []Limit{{"nvidia.com/gpu", 1000}}}, 0, 0, true},
	}
	for _, c := range cases {
		n, why := ClusterAutoscaler.Replicas(&c.b, c.workload, oneCPU)
		require.Equal(t, c.notReady, why != "", c.name+": "+why)
		require.Equal(t, c.want, n, c.name)
	}
	// TestCalculateMaxPodsFromLimits: 100m and 200Mi against 2 cpu and
	// 2000Mi: memory allows 10.
	small := func(name string) int64 {
		switch name {
		case "cpu":
			return 100
		case "memory":
			return 200 << 20 * 1000
		}
		return 0
	}
	b := Buffer{PodTemplate: "t", Limits: []Limit{{"cpu", 2000}, {"memory", 2000 << 20 * 1000}}}
	n, why := ClusterAutoscaler.Replicas(&b, 0, small)
	require.Empty(t, why)
	require.Equal(t, int32(10), n)
}

// Which scalableRefs each controller resolves: Karpenter the apps kinds
// (group apps or empty); the Cluster Autoscaler its resolvers' exact
// group and kind, Jobs too (CA scalable_object_resolvers.go).
func TestUnresolvable(t *testing.T) {
	ref := func(g, k string) *Buffer { return &Buffer{ScalableGroup: g, ScalableKind: k, ScalableName: "w"} }
	require.Empty(t, Karpenter.Unresolvable(ref("apps", "Deployment")))
	require.Empty(t, Karpenter.Unresolvable(ref("", "StatefulSet")))
	require.NotEmpty(t, Karpenter.Unresolvable(ref("batch", "Job")))
	require.Empty(t, ClusterAutoscaler.Unresolvable(ref("apps", "ReplicaSet")))
	require.Empty(t, ClusterAutoscaler.Unresolvable(ref("batch", "Job")))
	require.Equal(t, "kind /Deployment is not supported to use pod template", ClusterAutoscaler.Unresolvable(ref("", "Deployment")))
	require.NotEmpty(t, ClusterAutoscaler.Unresolvable(&Buffer{}))
	require.Empty(t, ClusterAutoscaler.Unresolvable(&Buffer{PodTemplate: "t"}))
}
