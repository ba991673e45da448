package experiment

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/clustersim/clustersim/sim/report"
)

// Confidence is the level of the intervals and the threshold of the tests.
const Confidence = 0.95

// Summary aggregates one metric over runs.
type Summary struct {
	Path string  `json:"metric"`
	N    int     `json:"runs"`
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	// CILow and CIHigh bound the mean at 95% (Student's t).
	CILow  float64 `json:"ciLow"`
	CIHigh float64 `json:"ciHigh"`
	Min    float64 `json:"min"`
	P5     float64 `json:"p5"`
	P50    float64 `json:"p50"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
}

// metricsOf flattens every report onto one list of paths (align).
func metricsOf(rs []*report.Report) ([][]Metric, error) {
	flat := make([][]Metric, len(rs))
	for i, r := range rs {
		ms, err := Flatten(r)
		if err != nil {
			return nil, err
		}
		flat[i] = ms
	}
	return align(flat), nil
}

// align puts every run's metrics onto one list of paths: the union of the
// runs' paths in first-seen order. A path a run lacks (an omitted zero, a
// map key that only some runs have, such as a scale-down blocker) counts
// as 0 there.
func align(flat [][]Metric) [][]Metric {
	index := map[string]int{}
	var paths []string
	for _, ms := range flat {
		for _, m := range ms {
			if _, ok := index[m.Path]; !ok {
				index[m.Path] = len(paths)
				paths = append(paths, m.Path)
			}
		}
	}
	out := make([][]Metric, len(flat))
	for i, ms := range flat {
		row := make([]Metric, len(paths))
		for j, p := range paths {
			row[j].Path = p
		}
		has := make([]bool, len(paths))
		for _, m := range ms {
			row[index[m.Path]].Value = m.Value
			has[index[m.Path]] = true
		}
		for j, p := range paths {
			if fb, ok := fallbacks[p]; ok && !has[j] {
				if k, ok := index[fb]; ok {
					row[j].Value = row[k].Value
				}
			}
		}
		out[i] = row
	}
	return out
}

// fallbacks are metrics whose absence from a report means another's
// value: a run without NodeOverlay prices costs, at them, what it costs
// (report.Cost.OverlaidUSD); "" means 0 (a run without capacity
// reservations pays nothing for them).
var fallbacks = map[string]string{"cost.overlaidUSD": "cost.totalUSD", "cost.reservationsUSD": ""}

// column is path's values over a configuration's runs, or its fallback's
// when the configuration has no such metric; false when neither.
func column(ms [][]Metric, index map[string]int, path string) ([]float64, bool) {
	j, ok := index[path]
	if !ok {
		if fb, has := fallbacks[path]; has {
			if fb == "" {
				return make([]float64, len(ms)), true
			}
			j, ok = index[fb]
		}
	}
	if !ok {
		return nil, false
	}
	out := make([]float64, len(ms))
	for i := range ms {
		out[i] = ms[i][j].Value
	}
	return out, true
}

// Aggregate summarises every metric over the runs.
func Aggregate(rs []*report.Report) ([]Summary, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	all, err := metricsOf(rs)
	if err != nil {
		return nil, err
	}
	return summarizeAligned(all), nil
}

// AggregateMetrics is Aggregate over runs already flattened (Flatten), in
// run order: a sweep keeps each run's metrics, not its report.
func AggregateMetrics(runs [][]Metric) ([]Summary, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	return summarizeAligned(align(runs)), nil
}

func summarizeAligned(all [][]Metric) []Summary {
	var out []Summary
	xs := make([]float64, len(all))
	tq := tQuantile(len(all))
	for j, m := range all[0] {
		for i := range all {
			xs[i] = all[i][j].Value
		}
		out = append(out, summarize(m.Path, xs, tq))
	}
	return out
}

// tQuantile is Student's t quantile of the interval for n runs (0 for
// fewer than 2): computed once per aggregate, as it is costly.
func tQuantile(n int) float64 {
	if n < 2 {
		return 0
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-Confidence)/2)
}

// Summarize computes the summary of one sample.
func Summarize(path string, xs []float64) Summary {
	return summarize(path, xs, tQuantile(len(xs)))
}

func summarize(path string, xs []float64, t float64) Summary {
	s := Summary{Path: path, N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	s.Mean, s.Std = stat.MeanStdDev(sorted, nil)
	if len(xs) < 2 || math.IsNaN(s.Std) {
		s.Std = 0
	}
	half := 0.0
	if len(xs) > 1 {
		half = t * s.Std / math.Sqrt(float64(len(xs)))
	}
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	q := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, sorted, nil) }
	s.P5, s.P50, s.P95 = q(0.05), q(0.50), q(0.95)
	return roundSummary(s)
}

func roundSummary(s Summary) Summary {
	r := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	s.Mean, s.Std, s.CILow, s.CIHigh = r(s.Mean), r(s.Std), r(s.CILow), r(s.CIHigh)
	s.Min, s.P5, s.P50, s.P95, s.Max = r(s.Min), r(s.P5), r(s.P50), r(s.P95), r(s.Max)
	return s
}

// Delta compares one metric between a baseline and a candidate run on the
// same seeds.
type Delta struct {
	Path  string  `json:"metric"`
	Base  float64 `json:"base"` // mean over runs
	Other float64 `json:"other"`
	Diff  float64 `json:"delta"` // Other - Base
	// DiffPct is Diff relative to Base, in percent (0 when Base is 0).
	DiffPct float64 `json:"deltaPct"`
	// CILow and CIHigh bound the mean paired difference at 95%.
	CILow  float64 `json:"ciLow"`
	CIHigh float64 `json:"ciHigh"`
	// PValue of the paired t-test on the per-seed differences;
	// Significant when below 1 - Confidence. With identical values on
	// every seed the difference is exact: p is 0 if they differ, 1 if
	// not.
	PValue      float64 `json:"pValue"`
	Significant bool    `json:"significant"`
}

// Compare pairs two configurations' runs by seed and tests each metric's
// difference. Metrics present in only one of them are skipped, but for a
// fallback (cost.overlaidUSD: the other's cost.totalUSD).
func Compare(base, other []*report.Report) ([]Delta, error) {
	if len(base) != len(other) || len(base) == 0 {
		return nil, fmt.Errorf("compare needs the same number of runs on both sides")
	}
	a, err := metricsOf(base)
	if err != nil {
		return nil, err
	}
	b, err := metricsOf(other)
	if err != nil {
		return nil, err
	}
	ia, ib := map[string]int{}, map[string]int{}
	for j, m := range a[0] {
		ia[m.Path] = j
	}
	for j, m := range b[0] {
		ib[m.Path] = j
	}
	// The base's paths, then the other's it lacks (a fallback may stand
	// in for them).
	var paths []string
	for _, m := range a[0] {
		paths = append(paths, m.Path)
	}
	for _, m := range b[0] {
		if _, ok := ia[m.Path]; !ok {
			paths = append(paths, m.Path)
		}
	}
	n := len(base)
	var out []Delta
	diffs := make([]float64, n)
	for _, path := range paths {
		va, okA := column(a, ia, path)
		vb, okB := column(b, ib, path)
		if !okA || !okB {
			continue
		}
		var ma, mb float64
		for i := range n {
			ma += va[i]
			mb += vb[i]
			diffs[i] = vb[i] - va[i]
		}
		ma, mb = ma/float64(n), mb/float64(n)
		d := Delta{Path: path, Base: ma, Other: mb, Diff: mb - ma}
		if ma != 0 {
			d.DiffPct = 100 * d.Diff / math.Abs(ma)
		}
		d.CILow, d.CIHigh, d.PValue = pairedTest(diffs)
		d.Significant = d.PValue < 1-Confidence
		out = append(out, roundDelta(d))
	}
	return out, nil
}

// pairedTest returns the 95% interval of the mean difference and the
// two-sided p-value that it is zero.
func pairedTest(diffs []float64) (lo, hi, p float64) {
	n := float64(len(diffs))
	mean, std := stat.MeanStdDev(diffs, nil)
	if len(diffs) < 2 || std == 0 || math.IsNaN(std) {
		if mean == 0 {
			return 0, 0, 1
		}
		return mean, mean, 0
	}
	se := std / math.Sqrt(n)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}
	q := t.Quantile(1 - (1-Confidence)/2)
	tstat := mean / se
	return mean - q*se, mean + q*se, 2 * t.CDF(-math.Abs(tstat))
}

func roundDelta(d Delta) Delta {
	r := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	d.Base, d.Other, d.Diff, d.DiffPct = r(d.Base), r(d.Other), r(d.Diff), r(d.DiffPct)
	d.CILow, d.CIHigh = r(d.CILow), r(d.CIHigh)
	d.PValue = math.Round(d.PValue*1e6) / 1e6
	return d
}
