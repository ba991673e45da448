package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// karpenter.sh/do-not-disrupt: "true" protects a pod for good; a positive
// duration (Karpenter v1.12+) until the pod has run that long, counted
// from its start time (an imported pod's is before the run); a pod not
// started yet is protected (upstream fails safe without a start time);
// any other value is ignored, with a warning.
func TestDoNotDisruptDuration(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}
	compile := func(v string) (*PodSpec, []SpecWarning) {
		out, warns, err := CompilePodSpec(NewSymbols(), NewResourceNames(), PodSpecInput{Namespace: "default",
			Annotations: map[string]string{"karpenter.sh/do-not-disrupt": v}, Spec: &spec})
		require.NoError(t, err)
		return out, warns
	}
	always, warns := compile("true")
	require.True(t, always.DoNotDisrupt)
	require.Empty(t, warns)
	tenMin, warns := compile("10m")
	require.False(t, tenMin.DoNotDisrupt)
	require.Equal(t, 10*time.Minute, tenMin.DoNotDisruptFor)
	require.Empty(t, warns)
	for _, bad := range []string{"false", "-5m", "0s", "soon"} {
		s, warns := compile(bad)
		require.False(t, s.DoNotDisrupt, bad)
		require.Zero(t, s.DoNotDisruptFor, bad)
		require.Len(t, warns, 1, bad)
		require.Equal(t, CodeInvalidDoNotDisrupt, warns[0].Code)
		require.Contains(t, warns[0].Msg, bad)
	}

	p := Pod{Spec: tenMin}
	active, until := p.DoNotDisruptActive(time.Hour)
	require.True(t, active, "not started yet")
	require.Zero(t, until)
	p.Ran, p.Started = true, 2*time.Second
	active, until = p.DoNotDisruptActive(10*time.Minute + time.Second)
	require.True(t, active)
	require.Equal(t, 10*time.Minute+2*time.Second, until)
	active, _ = p.DoNotDisruptActive(10*time.Minute + 2*time.Second)
	require.False(t, active, "ran 10 minutes")
	// Imported, started 9 minutes before the run: a minute left.
	p.StartedBefore = 9 * time.Minute
	active, until = p.DoNotDisruptActive(59 * time.Second)
	require.True(t, active)
	require.Equal(t, time.Minute, until)
	active, _ = p.DoNotDisruptActive(time.Minute)
	require.False(t, active)

	p.Spec = always
	active, until = p.DoNotDisruptActive(1000 * time.Hour)
	require.True(t, active)
	require.Zero(t, until)
}
