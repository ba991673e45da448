package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// Karpenter's disruption cost of a pod: karpenter.sh/disruption-cost
// first, else controller.kubernetes.io/pod-deletion-cost; a value that is
// no int32 is ignored (KC disruption.EvictionCost logs and skips it).
func TestDisruptionCostAnnotation(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}
	for _, tc := range []struct {
		annotations map[string]string
		want        int32
		has         bool
	}{
		{nil, 0, false},
		{map[string]string{"controller.kubernetes.io/pod-deletion-cost": "100"}, 100, true},
		{map[string]string{"karpenter.sh/disruption-cost": "-5", "controller.kubernetes.io/pod-deletion-cost": "100"}, -5, true},
		{map[string]string{"controller.kubernetes.io/pod-deletion-cost": "lots"}, 0, false},
		{map[string]string{"controller.kubernetes.io/pod-deletion-cost": "3000000000"}, 0, false},
	} {
		out, _, err := CompilePodSpec(NewSymbols(), NewResourceNames(), PodSpecInput{Namespace: "default", Annotations: tc.annotations, Spec: &spec})
		require.NoError(t, err)
		require.Equal(t, tc.has, out.HasDisruptionCost, "%v", tc.annotations)
		require.Equal(t, tc.want, out.DisruptionCost, "%v", tc.annotations)
	}
}
