package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/internal/duration"
)

// tolerationSeconds past time.Duration's range tolerates for ever, as
// upstream's taint manager reads its overflow to a negative duration;
// terminationGracePeriodSeconds saturates beyond any run.
func TestHugeSecondsSaturate(t *testing.T) {
	syms := NewSymbols()
	for s, want := range map[int64]time.Duration{
		0:           0,
		-5:          0,
		300:         300 * time.Second,
		9223372037:  Forever,
		1 << 62:     Forever,
		1152921503:  1152921503 * time.Second,
		1152921504:  Forever,
		9223372036:  Forever,
		-1 << 62:    0,
		86400 * 365: 365 * 24 * time.Hour,
	} {
		tol, _, err := CompileToleration(syms, corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s})
		require.NoError(t, err)
		require.Equal(t, want, tol.Seconds, s)
	}
	g := int64(9223372036)
	spec, _, err := CompilePodSpec(syms, NewResourceNames(), PodSpecInput{Spec: &corev1.PodSpec{TerminationGracePeriodSeconds: &g,
		Containers: []corev1.Container{{Name: "c"}}}})
	require.NoError(t, err)
	require.Equal(t, duration.Saturated, spec.TerminationGrace)
}
