package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --dump-state writes the List at the time asked and changes nothing of
// the run: the JSON report is byte-identical with and without it.
func TestDumpStateLeavesTheReportAlone(t *testing.T) {
	for _, name := range []string{"static-burst", "hybrid-naive"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.yaml")
			plain, stderr, code := sim(t, "run", name, "-o", "json")
			require.Equal(t, 0, code, stderr)
			dumped, stderr, code := sim(t, "run", name, "-o", "json", "--dump-state", "1h", "--state-out", path)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, plain, dumped)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(data), "apiVersion: v1\nitems:\n- apiVersion: "))
			require.Contains(t, string(data), "\n  kind: Node\n")
			require.Contains(t, string(data), "\n  kind: Pod\n")
			require.Contains(t, string(data), `lastHeartbeatTime: "2026-01-05T01:00:00Z"`, "the state is the one at 1h")
			entries, _ := os.ReadDir(dir)
			require.Len(t, entries, 1, "no temporary file is left")
		})
	}
}

func TestDumpStateFlagErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dump-state", "1h"}, "--dump-state 1h needs --state-out FILE"},
		{[]string{"--state-out", out}, "--state-out " + out + " needs --dump-state AT"},
		{[]string{"--dump-state", "5h", "--state-out", out}, "--dump-state 5h: after the scenario's end (duration 2h0m0s); use a time from 0s to 2h0m0s"},
		{[]string{"--dump-state", "soon", "--state-out", out}, "--dump-state soon: "},
		{[]string{"--dump-state", "1h", "--state-out", out, "--runs", "2"}, "--dump-state writes one run's state"},
		{[]string{"--dump-state", "1h", "--state-out", filepath.Join(dir, "missing", "s.yaml")}, "--state-out " + filepath.Join(dir, "missing", "s.yaml") + ": open "},
	} {
		_, stderr, code := sim(t, append([]string{"run", "static-burst"}, c.args...)...)
		require.Equal(t, 1, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.want, "%v", c.args)
	}
	entries, _ := os.ReadDir(dir)
	require.Empty(t, entries, "nothing is written, not even in part")
}

// The what-if flags change the run without editing files, in sim run and
// sim compare alike.
func TestWhatIfFlags(t *testing.T) {
	total := func(args ...string) float64 {
		t.Helper()
		out, stderr, code := sim(t, append([]string{"run", "hybrid-naive", "-o", "json"}, args...)...)
		require.Equal(t, 0, code, stderr)
		var rep struct {
			Controllers struct {
				PodsCreated float64 `json:"podsCreated"`
			} `json:"controllers"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		return rep.Controllers.PodsCreated
	}
	base, doubled := total(), total("--scale-workloads", "2")
	require.InDelta(t, 2, doubled/base, 0.5, "%v -> %v", base, doubled)
	plain, _, _ := sim(t, "run", "hybrid-naive", "-o", "json")
	zoned, stderr, code := sim(t, "run", "hybrid-naive", "-o", "json", "--zone-out", "us-east-1b@0s", "--zone-out", "us-east-1a@30m")
	require.Equal(t, 0, code, stderr)
	require.NotEqual(t, plain, zoned)
	require.Contains(t, zoned, `"insufficientCapacityErrors"`)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--scale-workloads", "0"}, "--scale-workloads: scale factor 0: use a number above 0 and at most 1000"},
		{[]string{"--zone-out", "us-east-1a"}, `--zone-out "us-east-1a": write ZONE@AT, e.g. us-east-1a@30m`},
		{[]string{"--zone-out", "us-east-1a@later"}, `--zone-out "us-east-1a@later": `},
		{[]string{"--zone-out", "eu-west-1a@0s"}, `--zone-out "eu-west-1a@0s": zone "eu-west-1a" is not one of the scenario's zones`},
	} {
		for _, cmd := range [][]string{{"run", "hybrid-naive"}, {"compare", "hybrid-naive", "hybrid-isolated", "--runs", "2"}} {
			_, stderr, code := sim(t, append(cmd, c.args...)...)
			require.Equal(t, 1, code, "%v %v: %s", cmd, c.args, stderr)
			require.Contains(t, stderr, c.want)
		}
	}
}

// The whole loop from the command line: dump a run, import the dump, and
// ask the what-ifs of the imported cluster.
func TestDumpImportWhatIf(t *testing.T) {
	dir := t.TempDir()
	state, imported := filepath.Join(dir, "state.yaml"), filepath.Join(dir, "imported.yaml")
	_, stderr, code := sim(t, "run", "hybrid-naive", "--dump-state", "1h30m", "--state-out", state)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = sim(t, "import", state, "-o", imported)
	require.Equal(t, 0, code, stderr)
	base, stderr, code := sim(t, "run", imported, "-o", "json")
	require.Equal(t, 0, code, stderr)
	whatIf, stderr, code := sim(t, "run", imported, "-o", "json", "--scale-workloads", "2", "--zone-out", "us-east-1a@10m")
	require.Equal(t, 0, code, stderr)
	require.NotEqual(t, base, whatIf)
	_, stderr, code = sim(t, "compare", imported, imported, "--runs", "2", "--scale-workloads", "2")
	require.Equal(t, 0, code, stderr)
}
