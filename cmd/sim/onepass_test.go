package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOnePassErrors: sim lint -f with several files, one of which does not
// parse, and sim run of a scenario including them, list every file's
// errors and the missing references in one run (the Kubernetes docs'
// examples in sim/scenario/testdata/onepass: a pod whose claim is not
// there, a claim whose PersistentVolume is not there, a removed
// Deployment version, a syntax error).
func TestOnePassErrors(t *testing.T) {
	dir := filepath.Join("..", "..", "sim", "scenario", "testdata", "onepass")
	m := filepath.Join(dir, "manifests")
	want := []string{
		filepath.Join(m, "claim.yaml") + ":12: spec.volumeName",
		filepath.Join(m, "configmap.yaml") + ":4",
		filepath.Join(m, "deployment.yaml") + ":3: apiVersion",
		filepath.Join(m, "pod.yaml") + ":17: spec.volumes",
	}
	var args []string
	for _, f := range []string{"pod.yaml", "configmap.yaml", "claim.yaml", "deployment.yaml"} {
		args = append(args, "-f", filepath.Join(m, f))
	}
	stdout, _, code := simLint(t, args...)
	require.Equal(t, exitGate, code, stdout)
	require.Contains(t, stdout, "Findings: 4 error(s)")
	at := -1
	for _, w := range want {
		i := strings.Index(stdout, w)
		require.Greater(t, i, at, "%s after the one before:\n%s", w, stdout)
		at = i
	}

	_, stderr, code := sim(t, "run", filepath.Join(dir, "scenario.yaml"))
	require.NotEqual(t, 0, code)
	at = -1
	for _, w := range want {
		i := strings.Index(stderr, w)
		require.Greater(t, i, at, "%s after the one before:\n%s", w, stderr)
		at = i
	}
}
