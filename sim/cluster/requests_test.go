package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func limitsOnly(name string, restart bool, kv ...string) corev1.Container {
	c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Limits: list(kv...)}}
	if restart {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	return c
}

// Limits become requests per resource, in init containers too; a sidecar
// counts for the init containers after it only; the spec is left as
// written.
func TestPodRequestsDefaultsLimits(t *testing.T) {
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{
			limitsOnly("setup", false, "cpu", "3"),
			limitsOnly("proxy", true, "cpu", "500m", "memory", "64Mi"),
			limitsOnly("migrate", false, "cpu", "3", "memory", "1Gi"),
		},
		Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: list("cpu", "250m"), Limits: list("cpu", "1", "memory", "2Gi", "nvidia.com/gpu", "1")}}},
		Overhead: list("cpu", "100m"),
	}
	got, fe := PodRequests(spec)
	require.Nil(t, fe)
	q := func(name string) string { v := got[corev1.ResourceName(name)]; return v.String() }
	// cpu: max(app 250m (its request stays) + proxy 500m, setup 3, migrate 3 + proxy 500m) + 100m overhead.
	require.Equal(t, "3600m", q("cpu"))
	require.Equal(t, "2112Mi", q("memory"), "app 2Gi + proxy 64Mi")
	require.Equal(t, "1", q("nvidia.com/gpu"))
	_, has := spec.Containers[0].Resources.Requests["memory"]
	require.False(t, has, "the spec is not modified")
	require.Nil(t, spec.InitContainers[0].Resources.Requests)
}
