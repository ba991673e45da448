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
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(seeds))
	out := make([]*report.Report, len(seeds))
	errs := make([]error, len(seeds))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = run(sc, seeds[i])
				if progress != nil {
					mu.Lock()
					done++
					progress(done, len(seeds))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range seeds {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %d (seed %d): %w", i, seeds[i], err)
		}
	}
	return out, nil
}
