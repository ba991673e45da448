package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
)

// writeOutput writes one of the run's extra files (--html, --metrics)
// atomically: a reader never sees half a page.
func writeOutput(ctx context.Context, flag, path string, write func(w io.Writer) error) error {
	f, err := createAtomic(ctx, path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<16)
	if err := write(w); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

// comparisonPage gathers what sim compare --html shows: the headline
// metrics with deltas, cost against pending p99, and each
// configuration's timeline averaged over its seeds.
func comparisonPage(c comparison, results [][]*report.Report) report.Comparison {
	out := report.Comparison{Configs: c.Configs, Runs: c.Runs, RootSeed: c.RootSeed}
	for _, cmp := range c.Comparisons {
		if cmp.WorkGap != "" {
			out.Warnings = append(out.Warnings, cmp.WorkGap)
		}
	}
	byPath := compareDeltas(c)
	if len(c.Comparisons) > 0 {
		for _, d0 := range c.Comparisons[0].Deltas {
			if !headline(d0.Path) {
				continue
			}
			row := report.CompareRow{Metric: d0.Path, Base: d0.Base}
			for i := range c.Comparisons {
				d, ok := byPath[i][d0.Path]
				if !ok {
					row.Others = append(row.Others, report.CompareCell{Missing: true})
					continue
				}
				row.Others = append(row.Others, report.CompareCell{Value: d.Other, Diff: d.Diff, DiffPct: d.DiffPct,
					CILow: d.CILow, CIHigh: d.CIHigh, PValue: d.PValue, Significant: d.Significant})
			}
			out.Rows = append(out.Rows, row)
		}
	}
	mean := func(reps []*report.Report, path string) float64 {
		sum := 0.0
		for _, r := range reps {
			ms, err := experiment.Flatten(r)
			if err != nil {
				continue
			}
			v, _ := experiment.Lookup(ms, path)
			sum += v
		}
		return sum / float64(max(len(reps), 1))
	}
	for _, reps := range results {
		out.Cost = append(out.Cost, mean(reps, "cost.totalUSD"))
		out.PendingP99 = append(out.PendingP99, mean(reps, "pods.pendingSeconds.p99"))
		out.Timelines = append(out.Timelines, report.MeanTimeline(reps))
	}
	return out
}

// metricsStartOf reads --metrics-start.
func metricsStartOf(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--metrics-start %q: not an RFC 3339 time; write e.g. 2026-01-01T00:00:00Z", s)
	}
	return t, nil
}
