// Package experiment turns single runs into decisions: many seeds of one
// scenario run in parallel and aggregated with confidence intervals, and
// several configurations compared on the same seeds (common random
// numbers), with paired tests saying whether each difference is real or
// luck of the draw.
//
// Determinism: the seeds of a multi-run are derived from the root seed by
// name (engine.DeriveSeed(root, "run/i")), every run is independent, and
// results are kept by run index, so the aggregate is the same whatever the
// number of cores.
package experiment

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// Seeds derives n run seeds from a root seed. n == 1 gives the root itself,
// so a single run matches `sim run` without --runs.
func Seeds(root uint64, n int) []uint64 {
	if n == 1 {
		return []uint64{root}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = engine.DeriveSeed(root, fmt.Sprintf("run/%d", i))
	}
	return out
}

// RunFunc runs one seed of a scenario.
type RunFunc func(sc *scenario.Scenario, seed uint64) (*report.Report, error)

// DefaultRun runs the plain simulation, without the report's timeline
// (aggregates do not use it).
func DefaultRun(sc *scenario.Scenario, seed uint64) (*report.Report, error) {
	s := seed
	return simulation.Run(sc, simulation.Options{Seed: &s, NoTimeline: true})
}

// RunMany runs the scenario once per seed on up to workers goroutines
// (0 = GOMAXPROCS) and returns the reports in seed order. progress, if set,
// is called after each run with the number done (from one goroutine at a
// time).
func RunMany(sc *scenario.Scenario, seeds []uint64, workers int, run RunFunc, progress func(done, total int)) ([]*report.Report, error) {
	if run == nil {
		run = DefaultRun
	}
	out := make([]*report.Report, len(seeds))
	errs := ForEach(len(seeds), workers, func(i int) (err error) {
		out[i], err = run(sc, seeds[i])
		return err
	}, Counter(progress, len(seeds)))
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %d (seed %d): %w", i, seeds[i], err)
		}
	}
	return out, nil
}

// ForEach calls do(i) for i from 0 to n-1 on up to workers goroutines
// (0 = GOMAXPROCS) and returns each call's error at its index. done, if
// set, is called after each call, from one goroutine at a time.
func ForEach(n, workers int, do func(i int) error, done func()) []error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = do(i)
				if done != nil {
					mu.Lock()
					done()
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// Counter turns progress into ForEach's done: each call reports one more
// of total done. It is nil if progress is.
func Counter(progress func(done, total int), total int) func() {
	if progress == nil {
		return nil
	}
	n := 0
	return func() {
		n++
		progress(n, total)
	}
}
