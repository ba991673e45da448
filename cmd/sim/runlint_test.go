package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A pod no capacity source can ever host (2,000 CPUs) is a lint error:
// sim run prints it before the run (the cause before its consequence,
// pods pending to the end), and --fail-on-lint error stops the run on it
// with exit code 2 before anything is simulated.
func TestRunPrintsLintErrorsFirst(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"eks-workshop.yaml", "eks-workshop-manifests.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "autoscalers", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	huge := filepath.Join(dir, "huge.yaml")
	require.NoError(t, os.WriteFile(huge, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: enormous, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: enormous}}
  template:
    metadata: {labels: {app: enormous}}
    spec:
      containers:
        - name: app
          image: busybox
          resources: {requests: {cpu: "2000", memory: 1Gi}}
`), 0o644))
	scen := filepath.Join(dir, "eks-workshop.yaml")
	require.NoError(t, os.WriteFile(scen, []byte(`apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: eks-workshop-huge}
spec:
  duration: 30m
  region: us-west-2
  zones: [us-west-2a, us-west-2b, us-west-2c]
  include: [eks-workshop-manifests.yaml, huge.yaml]
`), 0o644))

	_, stderr, code := sim(t, "run", scen, "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^lint error: .*huge.yaml:\d+: .*Deployment/default/enormous`, stderr)
	require.Less(t, strings.Index(stderr, "lint error:"), strings.Index(stderr, "simulated "), "the cause is printed before the run")

	_, stderr, code = sim(t, "run", scen, "--fail-on-lint", "error")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "(--fail-on-lint error): nothing ran")
	require.NotContains(t, stderr, "simulated ", "no simulation ran")

	// sim compare lints every configuration before running any.
	_, stderr, code = sim(t, "compare", "web-steady", scen, "--runs", "2", "--fail-on-lint", "error")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "lint "+scen+": error:")
	require.NotContains(t, stderr, "runs in", "no simulation ran")

	// A clean scenario prints no lint line.
	_, stderr, code = sim(t, "run", "web-karpenter", "-o", "json", "--fail-on-lint", "warning")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "lint ")
}
