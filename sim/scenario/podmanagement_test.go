package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPodManagementPolicy: a StatefulSet is OrderedReady unless its
// manifest says Parallel (the API server's default), and its
// minReadySeconds is read.
func TestPodManagementPolicy(t *testing.T) {
	sts := func(name, extra string) string {
		return "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: " + name + "}\nspec:\n  replicas: 2\n  serviceName: " + name + "\n" + extra +
			"  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n" +
			"    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]\n"
	}
	sc, err := loadString(t, minimal+sts("a", "")+sts("b", "  podManagementPolicy: Parallel\n")+
		sts("c", "  podManagementPolicy: OrderedReady\n  minReadySeconds: 30\n"))
	require.NoError(t, err)
	require.Len(t, sc.Workloads, 3)
	require.True(t, sc.Workloads[0].OrderedReady, "the default")
	require.Zero(t, sc.Workloads[0].MinReady)
	require.False(t, sc.Workloads[1].OrderedReady)
	require.True(t, sc.Workloads[2].OrderedReady)
	require.Equal(t, 30*time.Second, sc.Workloads[2].MinReady)

	_, err = loadString(t, minimal+sts("d", "  podManagementPolicy: parallel\n"))
	require.ErrorContains(t, err, `scenario.yaml:13: spec.podManagementPolicy: unknown podManagementPolicy "parallel"; use OrderedReady (the default) or Parallel`)
}
