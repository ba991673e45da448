package apis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
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
	require.Equal(t, capacitybuffer.ActiveCapacity, b.Strategy, "the CRD's default")
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
