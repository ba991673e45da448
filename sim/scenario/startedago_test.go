package scenario

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
)

// A bare Pod's status.startTime (sim import keeps it when a do-not-disrupt
// duration counts from it) is its age at spec.importedAt; a time after the
// export, a missing importedAt or a pod created later in the run is
// warned about and not used.
func TestBarePodStartTime(t *testing.T) {
	load := func(spec, start string) *Scenario {
		t.Helper()
		doc := "apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  duration: 1h\n" + spec + `---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, annotations: {karpenter.sh/do-not-disrupt: 10m}}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
status: {startTime: "` + start + `"}
`
		sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
		require.NoError(t, err)
		return sc
	}
	sc := load("  importedAt: \"2026-11-30T12:00:00Z\"\n", "2026-11-30T11:55:00Z")
	require.Equal(t, []time.Duration{5 * time.Minute}, sc.Workloads[0].StartedAgo)
	require.Empty(t, warningsOf(sc))

	sc = load("  importedAt: \"2026-11-30T12:00:00Z\"\n", "2026-11-30T12:05:00Z")
	require.Empty(t, sc.Workloads[0].StartedAgo)
	require.Contains(t, warningsOf(sc), "status.startTime")
	require.Contains(t, warningsOf(sc), "after spec.importedAt")

	sc = load("", "2026-11-30T11:55:00Z")
	require.Empty(t, sc.Workloads[0].StartedAgo)
	require.Contains(t, warningsOf(sc), "ignored without spec.importedAt")

	sc = load("  importedAt: \"2026-11-30T12:00:00Z\"\n  workloads: [{ref: Pod/default/p, arrivals: {at: 10m}}]\n", "2026-11-30T11:55:00Z")
	require.Empty(t, sc.Workloads[0].StartedAgo)
	require.Contains(t, warningsOf(sc), "created at 10m0s, after the start")
}
