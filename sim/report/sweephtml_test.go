package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The sweep's page draws every point, labels the frontier's and joins
// them by cost, escapes names, and is the same for the same input.
func TestSweepHTML(t *testing.T) {
	s := SweepPage{Name: "grid", Runs: 3, RootSeed: 1, Columns: []string{"cost.totalUSD", "pods.pendingSeconds.p99"},
		Points: []SweepPoint{
			{Name: "cheap", Frontier: true, Cost: 1, PendingP99: 600, Cells: []SweepCell{{Mean: 1, Low: 0.9, High: 1.1}, {Mean: 600}}},
			{Name: "fast", Frontier: true, Cost: 3, PendingP99: 60, Cells: []SweepCell{{Mean: 3}, {Missing: true}}},
			{Name: "<b>bad</b>", Cost: 3.5, PendingP99: 700, Cells: []SweepCell{{Mean: 3.5}, {Mean: 700}}},
		}}
	var a, b strings.Builder
	require.NoError(t, s.WriteSweepHTML(&a))
	require.NoError(t, s.WriteSweepHTML(&b))
	require.Equal(t, a.String(), b.String())
	html := a.String()
	require.True(t, strings.HasPrefix(html, "<!DOCTYPE html>"))
	require.Contains(t, html, `id="chart-sweep"`)
	require.Equal(t, 3, strings.Count(html, `<circle cx=`), "one dot per point")
	require.Equal(t, 2, strings.Count(html, `fill="`+frontierColor+`"><title>`), "the frontier's in red")
	require.Contains(t, html, `text-anchor="start">3</text>`, "dots are numbered")
	require.Contains(t, html, `<title>1. cheap: cost $1, pending p99 10m00s (on the frontier)</title>`)
	require.Contains(t, html, `<polyline class="series dash" stroke="`+frontierColor+`" points="`, "the frontier joined")
	require.NotContains(t, html, "<b>bad</b>", "names are escaped")
	require.Contains(t, html, "&lt;b&gt;bad&lt;/b&gt;")
	require.Contains(t, html, `<tr class="sig"><td class="n">1</td><td><code>cheap</code></td><td>*</td><td class="n">1 <span class="muted">[0.9, 1.1]</span></td>`)
	require.Contains(t, html, `<td class="n">-</td>`, "a missing metric")
	require.NotContains(t, html, "<script")
}
