package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunsAreDeterministicAcrossWorkers(t *testing.T) {
	one, stderr, code := sim(t, "run", "static-burst", "--runs", "6", "--workers", "1", "-o", "json")
	require.Equal(t, 0, code, stderr)
	four, _, code := sim(t, "run", "static-burst", "--runs", "6", "--workers", "4", "-o", "json")
	require.Equal(t, 0, code)
	require.Equal(t, one, four, "the aggregate does not depend on the number of workers")
	var m multiReport
	require.NoError(t, json.Unmarshal([]byte(one), &m))
	require.Equal(t, 6, m.Runs)
	require.Len(t, m.Seeds, 6)
	require.NotEmpty(t, m.Metrics)
	csv, _, code := sim(t, "run", "static-burst", "--runs", "3", "-o", "csv")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(csv, "metric,runs,mean,std,ciLow,ciHigh,min,p5,p50,p95,max\n"))
}

func TestGateExitCodes(t *testing.T) {
	_, stderr, code := sim(t, "run", "static-burst", "--fail-if", "pods.stranded>1000")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "gate pass: pods.stranded>1000")
	_, stderr, code = sim(t, "run", "static-burst", "--fail-if", "pods.stranded>1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "gate FAIL: pods.stranded>1 (pods.stranded = 30 > 1)")
	_, stderr, code = sim(t, "run", "static-burst", "--fail-if", "pods.strandd>1")
	require.Equal(t, 1, code, "a bad gate is an error, not a failed gate")
	require.Contains(t, stderr, `no metric "pods.strandd" in the report: did you mean pods.stranded?`)
	// A malformed expression, or a metric no report has, is refused
	// before anything runs.
	for _, cmd := range [][]string{{"run", "static-burst"}, {"compare", "static-burst", "static-burst", "--runs", "2"}} {
		for _, gate := range []string{"pods.stranded >> 3", "pods.strandd>0"} {
			_, stderr, code = sim(t, append(cmd, "--fail-if", gate)...)
			require.Equal(t, 1, code)
			require.Regexp(t, `is not a number|did you mean pods.stranded\?`, stderr)
			require.NotContains(t, stderr, "simulated", "no simulation ran")
			require.NotContains(t, stderr, "runs in", "no simulation ran")
		}
	}
	// A metric the schema has but this run's report leaves out (no
	// Karpenter runs in static-burst? then its section is absent) is 0.
	_, stderr, code = sim(t, "run", "web-steady", "--fail-if", "karpenter.nodeClaimsLaunched>0")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "gate pass: karpenter.nodeClaimsLaunched>0 (karpenter.nodeClaimsLaunched = 0 > 0)")

	// Against a baseline report.
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	_, _, code = sim(t, "run", "static-burst", "-o", "json", "--report", base)
	require.Equal(t, 0, code)
	_, stderr, code = sim(t, "run", "static-burst", "--baseline", base, "--fail-if", "cost.totalUSD>1.1*baseline")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = sim(t, "run", "static-burst", "--baseline", base, "--fail-if", "cost.totalUSD>0.5*baseline")
	require.Equal(t, 2, code, stderr)

	// In a comparison the first configuration is the baseline.
	_, stderr, code = sim(t, "compare", "static-burst", "static-burst", "--runs", "3", "--fail-if", "cost.totalUSD>baseline")
	require.Equal(t, 0, code, stderr)
}

func TestCompareOutputs(t *testing.T) {
	out, stderr, code := sim(t, "compare", "static-burst", "static-burst", "--runs", "3", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var c comparison
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	require.Len(t, c.Comparisons, 1)
	for _, d := range c.Comparisons[0].Deltas {
		require.Equal(t, 0.0, d.Diff, "the same configuration on the same seeds: %s", d.Path)
		require.False(t, d.Significant)
	}
	_, stderr, code = sim(t, "compare", "static-burst", "--runs", "3")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "requires at least 2 arg(s)")
}

func TestEventsAndExplain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	_, stderr, code := sim(t, "run", "static-burst", "--events", path)
	require.Equal(t, 0, code, stderr)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	kinds := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		kinds[e["kind"].(string)]++
	}
	require.Equal(t, 46, kinds["podCreated"])
	require.Equal(t, 46, kinds["podBound"])
	require.Equal(t, 5, kinds["nodeLaunched"])
	require.Equal(t, 34, kinds["podUnschedulable"])

	// render-12 waits for the spot nodes' room, as its story says.
	out, stderr, code := sim(t, "explain", "static-burst", "--pod", "render-12")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Pod batch/render-12 (Job/batch/render)")
	require.Contains(t, out, "unschedulable: 0/5 nodes are available: 2 Insufficient cpu, 2 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector.")
	require.Contains(t, out, "bound to batch-spot-1 (c5.xlarge, us-east-1a, spot, static batch-spot) after waiting 15m07s")
	require.Contains(t, out, "No autoscaler launched a node for it.")
	_, stderr, code = sim(t, "explain", "static-burst", "--pod", "nope")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `no pod "nope" in this run`)
}

func TestRunsWithAutoscalers(t *testing.T) {
	// Runs differ in which scale-down blockers they report: metrics a run
	// lacks count as 0 instead of failing the aggregate.
	out, stderr, code := sim(t, "run", "hybrid-naive", "--runs", "4", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var m multiReport
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	paths := map[string]bool{}
	for _, s := range m.Metrics {
		paths[s.Path] = true
	}
	require.True(t, paths["karpenter.nodeClaimsLaunched"])
	require.True(t, paths["clusterAutoscaler.scaleUps"])
	require.True(t, paths["provisioning.insufficientCapacityErrors"])
}

// Ctrl-C stops --runs and compare at once, with a clear error and no
// aggregate of a partial set of seeds; profiles are refused with --runs.
func TestManyRunsInterrupted(t *testing.T) {
	fakeTerminal(t, 120)
	for _, args := range [][]string{{"run", "static-burst", "--runs", "20", "--workers", "1"}, {"compare", "static-burst", "static-burst", "--runs", "20", "--workers", "1"}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		errb := &cancelOnProgress{cancel: cancel, cause: context.Canceled}
		var out bytes.Buffer
		code := run(ctx, args, &out, errb)
		require.Equal(t, exitInterrupt, code, errb.String())
		require.Contains(t, errb.String(), "interrupted: the runs were stopped and no aggregate is written")
		require.Empty(t, out.String())
	}
	_, stderr, code := sim(t, "run", "static-burst", "--runs", "3", "--cpuprofile", filepath.Join(t.TempDir(), "cpu.prof"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--cpuprofile and --memprofile profile one run")
}
