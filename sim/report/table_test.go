package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func tableReport() *Report {
	r := &Report{Summary: Summary{Scenario: "s", Seed: 1, DurationSeconds: 3600}}
	r.Workloads = []Workload{{Ref: "Deployment/default/web", Pods: 3, Scheduled: 2, PendingAtEnd: 1,
		PendingSeconds: Percentiles{P50: 30, P95: 90, P99: 95, Max: 100},
		WaitReason:     "0/3 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated taint {capacity-type: on-demand}, 1 node(s) didn't match Pod's node affinity/selector."}}
	return r
}

// Box-drawn by default (a terminal), long messages wrapped.
func TestWriteTableBoxed(t *testing.T) {
	var b strings.Builder
	require.NoError(t, tableReport().WriteTable(&b))
	out := b.String()
	require.Contains(t, out, "│ Workload ")
	require.Contains(t, out, "┌")
	require.Contains(t, out, "│ 0/3 nodes are available: 3 Insufficient cpu, 2 node(s) had │", "wrapped at 60")
}

// Plain (a pipe): kubectl's columns, one line per row, no trailing spaces,
// the long message cut; wide: more columns and the message in full.
func TestWriteTablePlainAndWide(t *testing.T) {
	var b strings.Builder
	require.NoError(t, tableReport().WriteTable(WithStyle(&b, TableStyle{Plain: true})))
	out := b.String()
	require.NotContains(t, out, "│")
	require.NotContains(t, out, "─")
	lines := strings.Split(out, "\n")
	var header, row string
	for i, l := range lines {
		require.Equal(t, strings.TrimRight(l, " "), l, "no trailing spaces: %q", l)
		if strings.HasPrefix(l, "WORKLOAD") {
			header, row = l, lines[i+1]
		}
	}
	require.Equal(t, "WORKLOAD                 PODS   SCHEDULED   PENDING AT END   STRANDED   PENDING P95   WHY PODS WAITED (MOST FREQUENT SCHEDULER MESSAGE)", header)
	require.Equal(t, "Deployment/default/web   3      2           1                0          1m30s         0/3 nodes are available: 3 Insufficient cpu, 2 node(s)...", row)
	require.Contains(t, out, "METRIC")
	require.Contains(t, out, "\npods total ")

	b.Reset()
	require.NoError(t, tableReport().WriteTable(WithStyle(&b, TableStyle{Plain: true, Wide: true})))
	out = b.String()
	require.Contains(t, out, "PENDING P50   PENDING P99   PENDING MAX")
	require.Contains(t, out, "1m30s         30s           1m35s         1m40s         0/3 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated taint {capacity-type: on-demand}, 1 node(s) didn't match Pod's node affinity/selector.\n")
}

func TestLongCell(t *testing.T) {
	var b strings.Builder
	s := "one two three four five six"
	require.Equal(t, "one two three\nfour five six", LongCell(&b, s, 14))
	require.Equal(t, "one two...", LongCell(WithStyle(&b, TableStyle{Plain: true}), s, 14))
	require.Equal(t, s, LongCell(WithStyle(&b, TableStyle{Plain: true, Wide: true}), s, 14))
	require.Equal(t, s, LongCell(WithStyle(&b, TableStyle{Wide: true}), s, 14))
	require.Equal(t, TableStyle{Plain: true}, StyleOf(WithStyle(WithStyle(&b, TableStyle{Wide: true}), TableStyle{Plain: true})))
}
