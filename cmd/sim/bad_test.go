package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBadInputCatalogue runs every scenario under testdata/bad and pins
// the exact error a user sees (testdata/bad/NAME.err; regenerate with
// -update after a deliberate change and read the diff).
func TestBadInputCatalogue(t *testing.T) {
	forEachBadInput(t, "testdata/bad/*.yaml", func(t *testing.T, f string) string {
		_, stderr, code := sim(t, "run", f)
		require.Equal(t, 1, code, "bad input is an error (exit 1), never a run")
		return stderr
	})
}

// forEachBadInput runs check, in a subtest, on every file the glob matches
// (there must be some) and pins the messages check returns against the
// file's golden NAME.err (written with -update); they never tell of a
// panic.
func forEachBadInput(t *testing.T, glob string, check func(t *testing.T, f string) (stderr string)) {
	t.Helper()
	files, err := filepath.Glob(glob)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stderr := check(t, f)
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(stderr), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), stderr)
			require.NotContains(t, stderr, "panic")
		})
	}
}

func TestUnwritableOutputs(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := sim(t, "run", "static-burst", "--report", filepath.Join(dir, "missing", "r.json"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--report "+filepath.Join(dir, "missing", "r.json")+": open ")
	_, stderr, code = sim(t, "run", "static-burst", "--events", filepath.Join(dir, "missing", "e.jsonl"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--events "+filepath.Join(dir, "missing", "e.jsonl"))
	// A failed write leaves nothing half-written behind.
	entries, _ := os.ReadDir(dir)
	require.Empty(t, entries)
}

func TestMemoryEstimate(t *testing.T) {
	_, stderr, code := sim(t, "run", "hybrid-naive", "--memory-limit", "1Mi")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "hybrid-naive would need about")
	require.Contains(t, stderr, "raise --memory-limit")
	_, stderr, code = sim(t, "run", "hybrid-naive", "--memory-limit", "lots")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `--memory-limit "lots": write a size such as 8Gi, 8GiB or 500M`)
}
