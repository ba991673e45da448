package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sim runs the command line in-process.
func sim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// TestGoldenDefaultScenario pins the JSON report of the default scenario.
// After a deliberate change of behaviour: go test ./cmd/sim -update, then
// read the diff before committing.
func TestGoldenDefaultScenario(t *testing.T) {
	out, stderr, code := sim(t, "run", "static-burst", "-o", "json")
	require.Equal(t, 0, code, stderr)
	golden := filepath.Join("testdata", "static-burst.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(out), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), out)
}

func TestDeterministic(t *testing.T) {
	a, _, code := sim(t, "run", "static-burst", "-o", "json", "--seed", "9")
	require.Equal(t, 0, code)
	b, _, _ := sim(t, "run", "static-burst", "-o", "json", "--seed", "9")
	require.Equal(t, a, b, "same scenario and seed give identical bytes")
	c, _, _ := sim(t, "run", "static-burst", "-o", "json", "--seed", "10")
	require.NotEqual(t, a, c, "another seed gives another run")
	ta, _, _ := sim(t, "run", "static-burst")
	tb, _, _ := sim(t, "run", "static-burst")
	require.Equal(t, ta, tb, "the table too")
}

func TestReportKeys(t *testing.T) {
	out, _, code := sim(t, "run", "static-burst", "-o", "json")
	require.Equal(t, 0, code)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	// The keys scripts rely on (docs/report.md); never renamed.
	for _, path := range []string{"schemaVersion", "scenario", "seed", "pods.total", "pods.scheduled", "pods.pendingAtEnd",
		"pods.stranded", "pods.pendingSeconds.p50", "pods.pendingSeconds.p95", "pods.pendingSeconds.p99", "pods.pendingSeconds.max",
		"cost.totalUSD", "cost.spotUSD", "cost.onDemandUSD", "nodes.launched", "nodes.terminated", "nodes.peak", "engine.events"} {
		var cur any = m
		for _, k := range strings.Split(path, ".") {
			obj, ok := cur.(map[string]any)
			require.True(t, ok, path)
			cur, ok = obj[k]
			require.True(t, ok, "missing key %s", path)
		}
	}
}

func TestSeedFromEnvironmentAndConfig(t *testing.T) {
	flagOut, _, _ := sim(t, "run", "static-burst", "-o", "json", "--seed", "5")
	t.Setenv("SIM_SEED", "5")
	t.Setenv("SIM_OUTPUT", "json")
	envOut, _, code := sim(t, "run", "static-burst")
	require.Equal(t, 0, code)
	require.Equal(t, flagOut, envOut, "SIM_SEED and SIM_OUTPUT act like --seed and -o")

	os.Unsetenv("SIM_SEED")
	os.Unsetenv("SIM_OUTPUT")
	cfg := filepath.Join(t.TempDir(), "sim.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("seed: 5\noutput: json\n"), 0o644))
	cfgOut, _, code := sim(t, "run", "static-burst", "--config", cfg)
	require.Equal(t, 0, code)
	require.Equal(t, flagOut, cfgOut, "a config file acts like the flags")

	require.NoError(t, os.WriteFile(cfg, []byte("sede: 5\n"), 0o644))
	_, stderr, code := sim(t, "run", "static-burst", "--config", cfg)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `unknown key "sede"`)
}

func TestReportFileIsWrittenAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	out, stderr, code := sim(t, "run", "static-burst", "-o", "json", "--report", path)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, out, "the report goes to the file, not stdout")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, json.Valid(data))
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 1, "no temporary file left behind")

	_, stderr, code = sim(t, "run", "static-burst", "--report", filepath.Join(dir, "no-such-dir", "r.json"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--report")
}

func TestErrors(t *testing.T) {
	_, stderr, code := sim(t, "run", "no-such-scenario")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no-such-scenario: no such file, and no embedded scenario of that name (embedded: automode, ca-buffer, ca-priority-fallback, ca-provisioning-request, diversified-spot, gpu-capacity-block, gpu-inference, gpu-repair, gpu-timeslice, hybrid-isolated, hybrid-naive")
	// A typo of an embedded scenario's name gets the name, not the list.
	_, stderr, code = sim(t, "run", "hybrid-naiv")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "hybrid-naiv: no such file, and no embedded scenario of that name: did you mean hybrid-naive? (sim scenarios lists them all)")
	_, stderr, code = sim(t, "run", "static-burst", "-o", "xml")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `--output "xml": use table, wide, json or csv`)
	_, stderr, code = sim(t, "run")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "accepts 1 arg(s)")
}

func TestScenariosAndVersion(t *testing.T) {
	out, _, code := sim(t, "scenarios")
	require.Equal(t, 0, code)
	for _, name := range scenarios.Names() {
		require.Contains(t, out, name)
	}
	require.Contains(t, out, "\nEmbedded sweeps (sim sweep NAME): hybrid-frontier\n")
	out, _, code = sim(t, "version")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(out, "sim "))
}
