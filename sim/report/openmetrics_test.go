package report_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

func runEmbedded(t *testing.T, name string, upTo ...time.Duration) *report.Report {
	t.Helper()
	file, ok := scenarios.File(name)
	require.True(t, ok)
	sc, err := scenario.LoadFS(scenarios.FS, file)
	require.NoError(t, err)
	if len(upTo) > 0 {
		sc.Duration = upTo[0]
	}
	rep, err := simulation.Run(sc, simulation.Options{KeepObjects: true}) // as sim run --metrics
	require.NoError(t, err)
	return rep
}

// perNode are the families with a series per node, which has samples only
// while its node exists.
var perNode = map[string]bool{"karpenter_nodes_allocatable": true, "karpenter_nodes_total_pod_requests": true,
	"karpenter_nodes_total_daemon_requests": true, "kube_node_info": true, "kube_node_labels": true}

// documented reads docs/report.md's OpenMetrics table: name -> labels.
func documented(t *testing.T) map[string][]string {
	data, err := os.ReadFile("../../docs/report.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(data), "## OpenMetrics")
	require.True(t, ok)
	out := map[string][]string{}
	row := regexp.MustCompile("(?m)^\\| (`[a-z_]+`(?:, `[a-z_]+`)*) \\| (gauge|counter) \\| ([^|]*)\\|")
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		var labels []string
		for _, l := range strings.Split(m[3], ",") {
			if l = strings.Trim(strings.TrimSpace(l), "`"); l != "" {
				labels = append(labels, l)
			}
		}
		for _, n := range strings.Split(m[1], ", ") {
			out[strings.Trim(n, "`")+"|"+m[2]] = labels
		}
	}
	require.NotEmpty(t, out)
	return out
}

// --metrics: the Prometheus OpenMetrics parser reads it; it ends with
// # EOF; every family and its labels are in docs/report.md's list (and
// every listed family is written by a scenario with both autoscalers);
// counters never go down; timestamps start at --metrics-start and rise;
// the same run gives the same bytes.
func TestOpenMetrics(t *testing.T) {
	// Karpenter and the Cluster Autoscaler, through the first spot
	// reclaims (40m); the first hour only, as prometheus/common's
	// OpenMetrics decoder (an ABNF parser) takes a second per ~250 lines
	// of per-node series.
	rep := runEmbedded(t, "hybrid-naive", time.Hour)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteOpenMetrics(&buf, start))
	text := buf.String()
	require.True(t, strings.HasSuffix(text, "\n# EOF\n"))
	var again bytes.Buffer
	require.NoError(t, runEmbedded(t, "hybrid-naive", time.Hour).WriteOpenMetrics(&again, start))
	require.Equal(t, text, again.String(), "same run, same bytes")

	docs := documented(t)
	dec := expfmt.NewDecoder(strings.NewReader(text), expfmt.FmtOpenMetrics_1_0_0)
	seen := map[string]bool{}
	n := len(rep.Timeline.T)
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		typ := strings.ToLower(mf.GetType().String())
		name := mf.GetName()
		if typ == "counter" && !strings.HasSuffix(name, "_total") {
			name += "_total"
		}
		want, ok := docs[name+"|"+typ]
		require.True(t, ok, "%s (%s) is in docs/report.md's list", name, typ)
		seen[name+"|"+typ] = true
		last := map[string]float64{}
		lastTS := map[string]int64{}
		count := map[string]int{}
		for _, m := range mf.Metric {
			var labels []string
			var key string
			for _, l := range m.Label {
				labels = append(labels, l.GetName())
				key += l.GetName() + "=" + l.GetValue() + ","
			}
			slices.Sort(labels)
			require.Equal(t, want, labels, "%s's labels are the documented ones", name)
			ts := m.GetTimestampMs()
			switch {
			case count[key] == 0 && perNode[name]:
				require.GreaterOrEqual(t, ts, start.UnixMilli(), "%s{%s} starts at or after --metrics-start", name, key)
			case count[key] == 0:
				require.Equal(t, start.UnixMilli(), ts, "%s{%s} starts at --metrics-start", name, key)
			case perNode[name]:
				step := int64(rep.Timeline.IntervalSeconds * 1000)
				require.Equal(t, lastTS[key]+step, ts, "%s{%s}: one sample per timeline sample while its node exists", name, key)
			default:
				require.Greater(t, ts, lastTS[key], "%s{%s}: time rises", name, key)
			}
			lastTS[key] = ts
			count[key]++
			if m.Counter != nil {
				v := m.Counter.GetValue()
				if count[key] > 1 {
					require.GreaterOrEqual(t, v, last[key], "counter %s{%s} never goes down", name, key)
				}
				last[key] = v
			}
		}
		for key, c := range count {
			if perNode[name] {
				require.LessOrEqual(t, c, n, "%s{%s}", name, key)
				continue
			}
			require.Equal(t, n, c, "%s{%s}: one sample per timeline sample", name, key)
		}
	}
	for k := range docs {
		if k == "karpenter_nodepools_limit|gauge" {
			continue // only for a NodePool with limits: hybrid-naive's has none (fidelity/dashboards checks one)
		}
		require.True(t, seen[k], "documented %s is written", k)
	}

	// Spot-check values against the report: the NodePool's launches at
	// the end of the timeline, and its spot interruptions (every one in
	// hybrid-naive is a burst-spot node).
	var launched int32 = -1
	for _, p := range rep.Timeline.Pools {
		if p.Owner == "karpenter" && p.Name == "burst-spot" {
			launched = p.Launched[len(p.Launched)-1]
		}
	}
	require.Positive(t, launched, "burst-spot launched nodes")
	require.Contains(t, text, fmt.Sprintf("\nkarpenter_nodeclaims_created_total{min_values_relaxed=\"false\",nodepool=\"burst-spot\",reason=\"provisioning\"} %d ", launched))
	require.Positive(t, rep.Spot.Interruptions)
	require.Contains(t, text, fmt.Sprintf("\nkarpenter_nodeclaims_disrupted_total{nodepool=\"burst-spot\",reason=\"spot_interrupted\"} %d ", rep.Spot.Interruptions))
}

// Karpenter's families only where Karpenter runs.
func TestOpenMetricsWithoutAutoscalers(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, runEmbedded(t, "static-burst").WriteOpenMetrics(&buf, report.DefaultMetricsStart))
	require.NotContains(t, buf.String(), "\nkarpenter_") // kube_node_labels' label_karpenter_sh_* labels aside
	require.NotContains(t, buf.String(), "cluster_autoscaler_")
	require.Contains(t, buf.String(), "kube_pod_status_phase{phase=\"Running\"}")
}
