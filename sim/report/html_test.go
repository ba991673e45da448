package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// markup is a name from a user's manifest that tries to be HTML.
const markup = `<script>alert("x")</script><img src=x onerror=alert(1)>`

func markupReport() *Report {
	r := build(Inputs{Scenario: markup})
	r.Workloads = []Workload{{Ref: "Job/ns/" + markup, Pods: 2, Stranded: 1, StrandedReason: markup,
		PendingSeconds: Percentiles{P50: 10, P95: 300, P99: 400, Max: 500, Mean: 50}}}
	r.UnschedulablePods = []UnschedulablePod{{Pod: "ns/" + markup, Workload: "Job/ns/" + markup, Stranded: true, PendingSeconds: 500, Message: markup}}
	r.Timeline = &Timeline{IntervalSeconds: 60, T: []float64{0, 60, 120}, PendingPods: []int32{0, 2, 1}, StrandedPods: []int32{0, 0, 1},
		StartingPods: []int32{0, 0, 0}, RunningPods: []int32{1, 1, 2}, SpotNodes: []int32{1, 1, 1}, OnDemandNodes: []int32{0, 1, 1}, ReservedNodes: []int32{0, 0, 0},
		Pools:          []PoolSeries{{Owner: "karpenter", Name: markup, Nodes: []int32{1, 1, 1}, Launched: []int32{1, 1, 1}}},
		CostUSDPerHour: []float64{0.1, 0.2, 0.2}, CostUSD: []float64{0, 0.002, 0.005}, OnDemandEquivalentUSDPerHour: []float64{0.3, 0.4, 0.4},
		OnDemandEquivalentUSD: []float64{0, 0.005, 0.012},
		Events: []TimelineEvent{{T: 30, Kind: "launchError", Count: 2, Owner: "karpenter", Pool: "c5.large/a/spot", Cause: markup},
			{T: 40, Kind: "marketEvent", Count: 1, Owner: "market", Message: markup},
			{T: 100, Kind: "marketEventEnd", Count: 1, Owner: "market", Message: markup}}}
	return r
}

// Everything from users' manifests is escaped, in the page and in the
// charts; the page loads nothing.
func TestHTMLEscapesAndLoadsNothing(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, markupReport().WriteHTML(&buf))
	page := buf.String()
	require.NotContains(t, page, "<script")
	require.NotContains(t, page, "<img")
	require.Contains(t, page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;")
	requireOffline(t, page)
	// The charts: five of the timeline and the pending times, with their
	// series, the events as markers and the scripted event as a band.
	for _, id := range []string{"pods", "nodes", "pools", "costRate", "cost", "pending"} {
		require.Contains(t, page, `id="chart-`+id+`"`)
	}
	require.Equal(t, 5, strings.Count(page, `<rect class="span"`), "the market event on each timeline chart")
	require.Equal(t, 5, strings.Count(page, `<circle class="event"`), "the launch errors on each timeline chart")

	var cmp bytes.Buffer
	c := Comparison{Configs: []string{"base.yaml", markup}, Runs: 2, Cost: []float64{1, 2}, PendingP99: []float64{300, 10},
		Rows:      []CompareRow{{Metric: "cost.totalUSD", Base: 1, Others: []CompareCell{{Value: 2, Diff: 1, Significant: true}}}},
		Timelines: []*Timeline{markupReport().Timeline, markupReport().Timeline}}
	require.NoError(t, c.WriteCompareHTML(&cmp))
	page = cmp.String()
	require.NotContains(t, page, "<script")
	require.Contains(t, page, "&lt;script&gt;")
	requireOffline(t, page)
	require.Contains(t, page, `id="chart-scatter"`)
	require.Equal(t, 2, strings.Count(page, `<circle cx=`), "one point per configuration")
	require.Contains(t, page, `1 *`, "the significant delta is marked")
}

// requireOffline: no URL, no external reference of any kind.
func requireOffline(t *testing.T, page string) {
	t.Helper()
	for _, s := range []string{"://", "url(", "@import", "<link", "<iframe", "<object", "<script", "<img"} {
		require.NotContains(t, page, s)
	}
	require.NotRegexp(t, `<[^>]*\s(src|href|xlink:href)=`, page)
	require.Contains(t, page, `content="default-src 'none'; style-src 'unsafe-inline'"`, "and the browser is told to load nothing")
}

// MeanTimeline averages runs sample by sample.
func TestMeanTimeline(t *testing.T) {
	a, b := markupReport(), markupReport()
	b.Timeline.PendingPods = []int32{2, 4, 5}
	b.Timeline.CostUSD = []float64{1, 1, 1}
	m := MeanTimeline([]*Report{a, b})
	require.Equal(t, []int32{1, 3, 3}, m.PendingPods)
	require.Equal(t, []float64{0.5, 0.501, 0.5025}, m.CostUSD)
	require.Nil(t, MeanTimeline([]*Report{build(Inputs{})}))
}
