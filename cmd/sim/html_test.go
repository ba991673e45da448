package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sim run --html writes the default scenario's page, under 2 MB, next to
// the unchanged report, and leaves no temporary file; sim compare --html
// writes the comparison's.
func TestHTMLPages(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "run.html")
	plain, _, code := sim(t, "run", "hybrid-naive", "-o", "json")
	require.Equal(t, 0, code)
	out, stderr, code := sim(t, "run", "hybrid-naive", "-o", "json", "--html", page)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, plain, out, "the report itself is unchanged")
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	require.Less(t, len(data), 2<<20, "the default scenario's page stays under 2 MB")
	html := string(data)
	require.True(t, strings.HasPrefix(html, "<!DOCTYPE html>"))
	for _, want := range []string{`id="chart-pods"`, `id="chart-cost"`, `id="chart-pending"`, "Job/batch/render", "untolerated taint", `class="span"`, `class="event"`} {
		require.Contains(t, html, want)
	}
	// The verdict leads the page: before the summary table.
	verdictAt := strings.Index(html, `<p id="verdict" class="verdict">41 of 113 pods of Job/batch/render stranded`)
	require.Positive(t, verdictAt, "the page opens with the verdict")
	require.Less(t, verdictAt, strings.Index(html, "<h2>Summary</h2>"))
	require.Contains(t, html, "Next: <code>sim explain hybrid-naive --pod batch/render-")
	again := filepath.Join(dir, "again.html")
	_, _, code = sim(t, "run", "hybrid-naive", "--html", again)
	require.Equal(t, 0, code)
	data2, err := os.ReadFile(again)
	require.NoError(t, err)
	require.Equal(t, string(data), string(data2), "same scenario and seed, same page")

	cmp := filepath.Join(dir, "compare.html")
	_, stderr, code = sim(t, "compare", "hybrid-naive", "karpenter-mixed", "--runs", "2", "--html", cmp)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(cmp)
	require.NoError(t, err)
	html = string(data)
	for _, want := range []string{`id="chart-scatter"`, `id="chart-pending"`, `id="metrics"`, "karpenter-mixed", "cost.totalUSD"} {
		require.Contains(t, html, want)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 3, "no temporary file left behind")

	_, stderr, code = sim(t, "run", "hybrid-naive", "--runs", "2", "--html", page)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--html shows one run")
}

// sim run --metrics writes the OpenMetrics text stamped from
// --metrics-start; a bad time is refused before anything runs.
func TestMetricsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.txt")
	_, stderr, code := sim(t, "run", "hybrid-naive", "--metrics", path, "--metrics-start", "2026-03-01T00:00:00Z")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(data), "# EOF\n"))
	require.Contains(t, string(data), "kube_pod_status_phase{phase=\"Running\"} 0 1772323200\n", "the first sample at --metrics-start")
	require.Contains(t, string(data), "karpenter_nodeclaims_created_total{")

	_, stderr, code = sim(t, "run", "hybrid-naive", "--metrics", path, "--metrics-start", "yesterday")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--metrics-start \"yesterday\": not an RFC 3339 time")
	_, stderr, code = sim(t, "run", "hybrid-naive", "--runs", "2", "--metrics", path)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--metrics writes one run's timeline")
}

// promtool, where installed, backfills the --metrics file into TSDB
// blocks: one series per labelled series, every sample kept.
func TestMetricsBackfillWithPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not found, so the --metrics file is not backfilled here: install it (Debian/Ubuntu: apt-get install -y prometheus)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "m.om")
	_, stderr, code := sim(t, "run", "hybrid-naive", "--metrics", path, "--metrics-start", "2026-11-30T00:00:00Z")
	require.Equal(t, 0, code, stderr)
	out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", path, filepath.Join(dir, "tsdb")).CombinedOutput()
	require.NoError(t, err, string(out))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	samples := strings.Count(string(data), "\n") - strings.Count(string(data), "\n#") - 1 // lines but metadata and # EOF
	out, err = exec.Command(promtool, "tsdb", "list", filepath.Join(dir, "tsdb")).CombinedOutput()
	require.NoError(t, err, string(out))
	total := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
		f := strings.Fields(line)
		n, err := strconv.Atoi(f[len(f)-4]) // NUM SAMPLES
		require.NoError(t, err, line)
		total += n
	}
	require.Equal(t, samples, total, "every sample is in the blocks")
}
