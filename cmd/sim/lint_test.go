package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/lint"
)

// simLint runs "sim lint ARGS" in-process through a root command wired as
// newRootCmd wires its commands (config loading, exit codes as run maps
// them).
func simLint(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	v := viper.New()
	root := &cobra.Command{Use: "sim", SilenceUsage: true, SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return loadConfig(v, cmd) }}
	root.PersistentFlags().String("config", "", "")
	root.SetOut(&out)
	root.SetErr(&errb)
	root.AddCommand(newLintCmd(v, &out, &errb))
	root.SetArgs(append([]string{"lint"}, args...))
	code = exitOK
	if err := root.ExecuteContext(context.Background()); err != nil {
		code = exitError
		if errors.Is(err, errGate) {
			code = exitGate
		}
		fmt.Fprintln(&errb, err)
	}
	return out.String(), errb.String(), code
}

func TestLintTable(t *testing.T) {
	out, stderr, code := simLint(t, "hybrid-naive")
	require.Equal(t, exitOK, code, stderr)
	for _, want := range []string{
		"Scenario hybrid-naive: 2 workload row(s), 2 capacity source(s)",
		"NodePool/burst-spot (spot)",
		"untolerated taint capacity-type=on-demand:NoSchedule",
		"Findings: 0 error(s), 2 warning(s), 2 info",
		"warning  spot-only-no-fallback  hybrid/workloads.yaml:27: spec.template.spec",
		"info     autoscalers-separated",
	} {
		require.Contains(t, out, want)
	}
	again, _, _ := simLint(t, "hybrid-naive")
	require.Equal(t, out, again, "same input, same bytes")
}

func TestLintFailOn(t *testing.T) {
	_, stderr, code := simLint(t, "hybrid-naive", "--fail-on", "warning")
	require.Equal(t, exitGate, code)
	require.Contains(t, stderr, "lint: 2 finding(s) at or above warning (--fail-on warning)")
	_, _, code = simLint(t, "hybrid-isolated", "--fail-on", "warning")
	require.Equal(t, exitGate, code, "spot flexibility is a warning")
	_, _, code = simLint(t, "karpenter-mixed", "--fail-on", "warning")
	require.Equal(t, exitOK, code)
	_, _, code = simLint(t, "karpenter-mixed", "--fail-on", "info")
	require.Equal(t, exitGate, code)

	t.Setenv("SIM_FAIL_ON", "warning")
	_, _, code = simLint(t, "hybrid-naive")
	require.Equal(t, exitGate, code, "SIM_FAIL_ON acts like --fail-on")
}

func TestLintJSON(t *testing.T) {
	out, stderr, code := simLint(t, "hybrid-naive", "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	var res lint.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, lint.SchemaVersion, res.SchemaVersion)
	require.Equal(t, "hybrid-naive", res.Scenario)
	require.Len(t, res.Sources, 2)
	require.Len(t, res.Placements, 2)
	require.Equal(t, lint.Summary{Errors: 0, Warnings: 2, Infos: 2}, res.Summary)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	for _, k := range []string{"schemaVersion", "scenario", "sources", "placements", "findings", "summary"} {
		require.Contains(t, m, k)
	}
	f := m["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"severity", "kind", "file", "line", "path", "message", "fix"} {
		require.Contains(t, f, k)
	}
}

func TestLintReportFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lint.json")
	out, _, code := simLint(t, "hybrid-isolated", "-o", "json", "--report", path)
	require.Equal(t, exitOK, code)
	require.Empty(t, out)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var res lint.Result
	require.NoError(t, json.Unmarshal(data, &res))
	require.Equal(t, "hybrid-isolated", res.Scenario)
}

// copyEmbedded writes embedded manifests to a folder and returns their
// paths.
func copyEmbedded(t *testing.T, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, n := range names {
		data, err := scenarios.FS.ReadFile(n)
		require.NoError(t, err)
		p := filepath.Join(dir, filepath.Base(n))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		paths = append(paths, p)
	}
	return paths
}

func TestLintFiles(t *testing.T) {
	files := copyEmbedded(t, "hybrid/eksctl-cluster.yaml", "hybrid/nodepool-spot.yaml", "hybrid/workloads.yaml")
	out, stderr, code := simLint(t, "-f", files[0], "-f", files[1], "-f", files[2], "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	var res lint.Result
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Placements, 2, "the Job needs no spec.workloads entry of the user's")
	kinds := map[string]string{}
	for _, f := range res.Findings {
		kinds[f.Kind] = f.File
		require.NotContains(t, f.File, "sim-lint-f.yaml", "nothing about the made-up scenario")
	}
	require.Equal(t, files[2], kinds[lint.KindSpotOnly])
	// The files hold no Cluster Autoscaler Deployment: the node group is a
	// plain ASG, so there are no two autoscalers to keep apart.
	require.NotContains(t, kinds, lint.KindSeparated)
	require.Contains(t, out, "no Cluster Autoscaler runs")

	// A folder works too.
	out, _, code = simLint(t, "-f", filepath.Dir(files[0]))
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "spot-only-no-fallback")
}

func TestLintLoadErrorsAreFindings(t *testing.T) {
	dir := t.TempDir()
	pool := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  disruption:
    consolidation: {enabled: false}
`
	p := filepath.Join(dir, "np.yaml")
	require.NoError(t, os.WriteFile(p, []byte(pool), 0o644))
	out, stderr, code := simLint(t, "-f", p)
	require.Equal(t, exitGate, code, stderr)
	require.Contains(t, out, "error    obsolete-setting  "+p+":11: spec.disruption.consolidation")
	require.Contains(t, out, "fix: to turn consolidation off write spec.disruption.consolidateAfter: Never")
}

func TestLintUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{nil, "give a scenario (a file or an embedded name) or manifests with -f FILE"},
		{[]string{"hybrid-naive", "-f", "x.yaml"}, "-f hybrid-naive: hybrid-naive is an embedded scenario, not a manifest file: lint it alone (sim lint hybrid-naive)"},
		{[]string{"a.yaml", "b.yaml"}, "give one scenario, not 2"},
		{[]string{"hybrid-naive", "--fail-on", "fatal"}, `--fail-on: unknown severity "fatal": use info, warning or error`},
		{[]string{"hybrid-naive", "-o", "csv"}, `--output "csv": use table, wide or json`},
		{[]string{"no-such-scenario"}, "no such file, and no embedded scenario of that name"},
		{[]string{"-f", "no-such-file.yaml"}, "-f no-such-file.yaml:"},
	} {
		_, stderr, code := simLint(t, tc.args...)
		require.Equal(t, exitError, code, tc.args)
		require.Contains(t, stderr, tc.msg)
	}
}
