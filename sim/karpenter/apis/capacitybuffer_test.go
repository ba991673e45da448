package apis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The CapacityBuffer CRD's rules (KC pkg/apis/crds/
// autoscaling.x-k8s.io_capacitybuffers.yaml, v1.15.0) are errors at their
// field; v1alpha1, which the CRD does not serve, is read with a warning.
func TestCapacityBufferRules(t *testing.T) {
	// The User Experience example of KC designs/capacity-buffers.md
	// (v1.15.0), verbatim.
	design := `# User creates a CapacityBuffer resource
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata:
  name: web-app-buffer
  namespace: production
spec:
  # Reference existing workload to derive capacity requirements
  scalableRef:
    apiGroup: apps
    kind: Deployment
    name: web-app
  replicas: 5  # Maintain capacity for 5 additional replicas
`
	res, _, err := compileYAML(t, "cb.yaml", design)
	require.NoError(t, err)
	require.Len(t, res.CapacityBuffers, 1)
	b := res.CapacityBuffers[0]
	require.Equal(t, "production", b.Namespace)
	require.Equal(t, "Deployment", b.ScalableKind)
	require.Equal(t, "web-app", b.ScalableName)
	require.Equal(t, ActiveCapacity, b.Strategy, "the CRD's default")
	require.Equal(t, int32(5), *b.Replicas)
	require.Len(t, res.Warnings, 1)
	require.Equal(t, CodeBufferVersion, res.Warnings[0].Code)

	buffer := func(spec string) string {
		return "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {name: b}\nspec:\n" + spec
	}
	for spec, want := range map[string]string{
		"  podTemplateRef: {name: t}\n  scalableRef: {kind: Deployment, name: web}\n  replicas: 1\n": "cb.yaml:6: spec.scalableRef: You must define either PodTemplateRef or ScalableRef, but not both",
		"  podTemplateRef: {name: t}\n":                                    "cb.yaml:5: spec.podTemplateRef: If podTemplateRef is set, replicas or limits must also be set",
		"  scalableRef: {kind: Deployment, name: web}\n  replicas: -1\n":   "cb.yaml:6: spec.replicas: spec.replicas -1: should be greater than or equal to 0",
		"  scalableRef: {kind: Deployment, name: web}\n  percentage: -5\n": "spec.percentage -5: should be greater than or equal to 0",
		"  scalableRef: {kind: Deployment, name: web}\n  replica: 2\n":     `unknown field "replica"`,
	} {
		_, _, err := compileYAML(t, "cb.yaml", buffer(spec))
		require.Error(t, err, spec)
		require.Contains(t, err.Error(), want, spec)
	}
	_, _, err = compileYAML(t, "cb.yaml", strings.Replace(buffer("  replicas: 1\n"), "v1beta1", "v2", 1))
	require.ErrorContains(t, err, `CapacityBuffer apiVersion "autoscaling.x-k8s.io/v2" is not served`)
}

// Chunks follows KC capacitybuffer computeReplicas and its helpers'
// tests: replicas and percentage combine by max, limits cap them (floor
// of limit / request, the least over the resources both name), limits
// alone size a buffer with neither.
func TestCapacityBufferChunks(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
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
	scalable := CapacityBuffer{ScalableKind: "Deployment", ScalableName: "web"}
	cases := []struct {
		name     string
		b        CapacityBuffer
		workload int32
		want     int32
	}{
		{"replicas", CapacityBuffer{ScalableName: "web", Replicas: i32(5)}, 10, 5},
		{"percentage rounds up", CapacityBuffer{ScalableName: "web", Percentage: i32(20)}, 9, 2},
		{"percentage at least 1", CapacityBuffer{ScalableName: "web", Percentage: i32(1)}, 3, 1},
		{"max of replicas and percentage", CapacityBuffer{ScalableName: "web", Replicas: i32(5), Percentage: i32(80)}, 10, 8},
		{"limits cap", CapacityBuffer{ScalableName: "web", Replicas: i32(10), Limits: []BufferLimit{{"cpu", 3000}}}, 10, 3},
		{"limits floor", CapacityBuffer{ScalableName: "web", Replicas: i32(10), Limits: []BufferLimit{{"cpu", 3500}}}, 10, 3},
		{"least over resources", CapacityBuffer{ScalableName: "web", Replicas: i32(10), Limits: []BufferLimit{{"cpu", 8000}, {"memory", 4 << 30 * 1000}}}, 10, 2},
		{"limits alone", CapacityBuffer{ScalableName: "web", Limits: []BufferLimit{{"cpu", 5000}}}, 10, 5},
		{"limit on a resource not requested", CapacityBuffer{ScalableName: "web", Replicas: i32(4), Limits: []BufferLimit{{"nvidia.com/gpu", 1000}}}, 10, 4},
		{"percentage of 0 replicas", CapacityBuffer{ScalableName: "web", Percentage: i32(50)}, 0, 0},
		{"percentage ignored with podTemplateRef", CapacityBuffer{PodTemplate: "t", Replicas: i32(2), Percentage: i32(90)}, 10, 2},
		{"nothing set", scalable, 10, 0},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.b.Chunks(c.workload, req), c.name)
	}
}
