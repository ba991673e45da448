package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
)

// fakeTerminal makes stdout and stderr terminals of the given width for
// one test (tests of this package do not run in parallel).
func fakeTerminal(t *testing.T, width int) {
	t.Helper()
	old := terminal
	terminal = func(io.Writer) (bool, int) { return true, width }
	t.Cleanup(func() { terminal = old })
}

// A pipe gets kubectl's plain columns; a terminal box-drawn tables.
func TestTablesFollowTheTerminal(t *testing.T) {
	out, stderr, code := sim(t, "scenarios")
	require.Equal(t, exitOK, code, stderr)
	require.NotContains(t, out, "│")
	require.True(t, strings.HasPrefix(out, "NAME "), out)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		require.Equal(t, strings.TrimRight(l, " "), l, "no trailing spaces")
	}

	fakeTerminal(t, 200)
	out, stderr, code = sim(t, "scenarios")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "│ Name ")

	// --report writes a file, not the terminal: plain.
	path := filepath.Join(t.TempDir(), "r.txt")
	_, stderr, code = sim(t, "run", "static-burst", "--report", path)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), "\nMETRIC ")
	require.NotContains(t, string(data), "│")
}

func TestScenariosOutputs(t *testing.T) {
	out, stderr, code := sim(t, "scenarios", "-o", "name")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, strings.Join(scenarios.Names(), "\n")+"\n", out)

	out, stderr, code = sim(t, "scenarios", "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	var list []scenarioEntry
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, len(scenarios.Names()))
	require.Equal(t, scenarios.Names()[0], list[0].Name)
	require.NotEmpty(t, list[0].Description)
	require.NotEmpty(t, list[0].Zones)

	out, _, _ = sim(t, "scenarios", "-o", "wide")
	require.True(t, strings.HasPrefix(out, "NAME "), out)
	require.Contains(t, strings.SplitN(out, "\n", 2)[0], "ZONES")

	_, stderr, code = sim(t, "scenarios", "-o", "yaml")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, `--output "yaml": use table, wide, name or json`)
}

// -o wide adds columns and keeps long cells whole.
func TestRunWide(t *testing.T) {
	out, stderr, code := sim(t, "run", "static-burst")
	require.Equal(t, exitOK, code, stderr)
	require.NotContains(t, out, "PENDING P99")
	out, stderr, code = sim(t, "run", "static-burst", "-o", "wide")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "PENDING P50   PENDING P99   PENDING MAX")
}

// sim compare on a narrow terminal puts configurations in rows.
func TestCompareNarrowTerminal(t *testing.T) {
	args := []string{"compare", "static-burst", "static-burst", "static-burst", "--runs", "2"}
	fakeTerminal(t, 300)
	out, stderr, code := sim(t, args...)
	require.Equal(t, exitOK, code, stderr)
	require.NotContains(t, out, "│ Configuration ")
	wideLines := maxLineWidth(out)
	require.LessOrEqual(t, wideLines, 300)

	fakeTerminal(t, wideLines-1)
	out, stderr, code = sim(t, args...)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "│ Metric ")
	require.Contains(t, out, "│ Configuration ")
	require.Contains(t, out, "baseline")
	require.Less(t, maxLineWidth(out), wideLines)

	// -o wide keeps the columns whatever the width.
	out, stderr, code = sim(t, append(args, "-o", "wide")...)
	require.Equal(t, exitOK, code, stderr)
	require.NotContains(t, out, "│ Configuration ")
}

// A single run on a terminal shows its simulated time on stderr, and
// clears the line when done; not on a pipe.
func TestSingleRunProgress(t *testing.T) {
	old := progressEvery
	progressEvery = 500
	t.Cleanup(func() { progressEvery = old })
	_, stderr, code := sim(t, "run", "web-steady")
	require.Equal(t, exitOK, code, stderr)
	require.NotContains(t, stderr, "\r[")

	fakeTerminal(t, 120)
	_, stderr, code = sim(t, "run", "web-steady")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "\r[")
	require.Contains(t, stderr, " of 48h0m0s")
	require.Contains(t, stderr, "\r\x1b[K")
}
