package experiment

import (
	"math"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/report"

	"github.com/clustersim/clustersim/sim/scenario"
)

func TestSummarizeAgainstHandComputedValues(t *testing.T) {
	s := Summarize("x", []float64{2, 4, 4, 4, 5, 5, 7, 9})
	require.Equal(t, 5.0, s.Mean)
	// Sample standard deviation: sqrt(32/7) = 2.138090.
	require.InDelta(t, 2.138090, s.Std, 1e-6)
	// 95% CI: t(0.975, 7) = 2.364624; half width 2.364624*2.138090/sqrt(8) = 1.787485.
	require.InDelta(t, 5-1.787485, s.CILow, 1e-5)
	require.InDelta(t, 5+1.787485, s.CIHigh, 1e-5)
	require.Equal(t, 2.0, s.Min)
	require.Equal(t, 9.0, s.Max)
	require.Equal(t, 4.0, s.P50)
	one := Summarize("y", []float64{3})
	require.Equal(t, Summary{Path: "y", N: 1, Mean: 3, CILow: 3, CIHigh: 3, Min: 3, P5: 3, P50: 3, P95: 3, Max: 3}, one)
}

func TestPairedTestByHand(t *testing.T) {
	// Differences 1,2,3,4,5: mean 3, sd sqrt(2.5) = 1.581139, se 0.707107,
	// t = 4.242641 with 4 degrees of freedom: two-sided p = 0.013236.
	lo, hi, p := pairedTest([]float64{1, 2, 3, 4, 5})
	require.InDelta(t, 0.013236, p, 1e-5)
	// t(0.975, 4) = 2.776445: 3 -+ 1.963243.
	require.InDelta(t, 3-1.963243, lo, 1e-5)
	require.InDelta(t, 3+1.963243, hi, 1e-5)
	_, _, p = pairedTest([]float64{2, 2, 2})
	require.Equal(t, 0.0, p, "a constant non-zero difference is certain")
	_, _, p = pairedTest([]float64{0, 0})
	require.Equal(t, 1.0, p)
	require.False(t, math.IsNaN(p))
}

func TestGates(t *testing.T) {
	ms := []Metric{{"pods.pendingSeconds.p99", 400}, {"cost.totalUSD", 11}}
	base := []Metric{{"pods.pendingSeconds.p99", 100}, {"cost.totalUSD", 10}}
	cases := map[string]bool{
		"pods.pendingSeconds.p99>300":   true,
		"pods.pendingSeconds.p99 > 500": false,
		"cost.totalUSD>1.1*baseline":    false, // 11 > 11 is false
		"cost.totalUSD>=1.1*baseline":   true,
		"cost.totalUSD > baseline":      true,
		"cost.totalUSD<baseline*2":      true,
		"pods.pendingSeconds.p99!=400":  false,
	}
	for expr, want := range cases {
		g, err := ParseGate(expr)
		require.NoError(t, err, expr)
		failed, _, err := g.Check(ms, base)
		require.NoError(t, err, expr)
		require.Equal(t, want, failed, expr)
	}
	_, err := ParseGate("p99 is big")
	require.ErrorContains(t, err, "write METRIC OP VALUE")
	_, err = ParseGate("pods.pendingSeconds.p90>1")
	require.ErrorContains(t, err, `no metric "pods.pendingSeconds.p90" in the report: did you mean pods.pendingSeconds.p50 or pods.pendingSeconds.p95 or pods.pendingSeconds.p99?`)
	_, err = ParseGate("karpenter.nodesMade>1")
	require.ErrorContains(t, err, "karpenter has karpenter.")
	// Metrics of the schema: summary and details fields, a model's stats,
	// keys under a map; a field an empty run omits is 0.
	for _, path := range []string{"pods.stranded", "cost.savingsPct", "nodes.failed", "clusterAutoscaler.scaleUps", "karpenter.disruptions.drifted", "complexity.nodesChurnedPerHour"} {
		known, hint := KnownMetric(path)
		require.True(t, known, "%s: %s", path, hint)
	}
	for _, path := range []string{"schemaVersion", "seed", "workloads", "scenario", "pods"} {
		known, _ := KnownMetric(path)
		require.False(t, known, "%s is not a metric", path)
	}
	g, err := ParseGate("nodes.failed>0")
	require.NoError(t, err)
	failed, detail, err := g.Check(ms, nil)
	require.NoError(t, err)
	require.False(t, failed)
	require.Equal(t, "nodes.failed = 0 > 0", detail)
	g, _ = ParseGate("cost.totalUSD>baseline")
	_, _, err = g.Check(ms, nil)
	require.ErrorContains(t, err, "there is none")
}

const scn = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: e}
spec:
  duration: 2h
  staticNodes: [{name: a, instanceType: c5.xlarge, count: 1}]
  workloads: [{ref: Job/j, arrivals: {poisson: {ratePerHour: 20}}, runtime: {lognormal: {median: 10m, p90: 30m}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`

func TestRunManyIsDeterministicAcrossWorkers(t *testing.T) {
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(scn)}}, "s.yaml")
	require.NoError(t, err)
	seeds := Seeds(1, 8)
	one, err := RunMany(sc, seeds, 1, nil, nil)
	require.NoError(t, err)
	four, err := RunMany(sc, seeds, 4, nil, nil)
	require.NoError(t, err)
	require.Equal(t, one, four)
	a1, err := Aggregate(one)
	require.NoError(t, err)
	a4, err := Aggregate(four)
	require.NoError(t, err)
	require.Equal(t, a1, a4)
	differ := false
	for _, r := range one[1:] {
		differ = differ || r.Pods.Total != one[0].Pods.Total
	}
	require.True(t, differ, "different seeds give different runs")

	// Comparing a configuration with itself finds nothing significant.
	d, err := Compare(one, four)
	require.NoError(t, err)
	for _, x := range d {
		require.False(t, x.Significant, x.Path)
	}
}

// AggregateMetrics over flattened runs gives what Aggregate gives over the
// reports: paths in first-seen order, a path a run lacks counting as 0.
func TestAggregateMetrics(t *testing.T) {
	runs := [][]Metric{{{"a", 1}, {"c", 3}}, {{"a", 3}, {"b", 2}, {"c", 5}}}
	sums, err := AggregateMetrics(runs)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c", "b"}, []string{sums[0].Path, sums[1].Path, sums[2].Path})
	require.Equal(t, Summarize("b", []float64{0, 2}), sums[2])
	require.Equal(t, Summarize("c", []float64{3, 5}), sums[1])
	_, err = AggregateMetrics(nil)
	require.Error(t, err)
}

// cost.overlaidUSD is the cost at NodeOverlay prices; a report without
// any (no overlay, or no overlaid node in that run) costs its total at
// them, within a configuration's runs and across a comparison.
func TestOverlaidCostFallsBackToTotal(t *testing.T) {
	rep := func(total, overlaid float64) *report.Report {
		r := &report.Report{}
		r.Cost.TotalUSD, r.Cost.OverlaidUSD = total, overlaid
		return r
	}
	base := []*report.Report{rep(10, 0), rep(12, 0)}
	other := []*report.Report{rep(13, 8), rep(14, 0)} // the second run launched nothing overlaid
	d, err := Compare(base, other)
	require.NoError(t, err)
	byPath := map[string]Delta{}
	for _, x := range d {
		byPath[x.Path] = x
	}
	o, ok := byPath["cost.overlaidUSD"]
	require.True(t, ok, "compared although the base has none")
	require.InDelta(t, 11, o.Base, 1e-9)
	require.InDelta(t, (8+14)/2.0, o.Other, 1e-9)
	require.InDelta(t, 11, byPath["cost.totalUSD"].Base, 1e-9)
}
