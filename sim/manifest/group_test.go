package manifest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKubernetesGroup: the groups a custom resource may not have.
func TestKubernetesGroup(t *testing.T) {
	for g, want := range map[string]bool{
		"": true, "apps": true, "batch": true, "x": true, "storage.k8s.io": true, "k8s.io": true,
		"scheduling.kubernetes.io": true, "kwok.x-k8s.io": false, "batch.volcano.sh": false,
		"apps.kruise.io": false, "serving.knative.dev": false, "notk8s.io": false,
	} {
		require.Equal(t, want, KubernetesGroup(g), g)
	}
}
