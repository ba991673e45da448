package sweep

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/scenario"
)

// Result is one (point, seed) pair's metrics.
type Result struct {
	Point int
	// Run is the seed's index (0..Runs-1), Seed the seed itself.
	Run     int
	Seed    uint64
	Metrics []experiment.Metric
}

// Pair is the pair's number in the sweep's order.
func (r *Result) Pair(runs int) int { return r.Point*runs + r.Run }

// Runner runs the pairs of one shard.
type Runner struct {
	Sweep *Sweep
	// Load loads a point's scenario (without its settings: Run applies
	// them). It is called once per point the shard holds.
	Load func(p *Point) (*scenario.Scenario, error)
	// Run runs one seed (experiment.DefaultRun if nil).
	Run experiment.RunFunc
	// Workers run seeds in parallel (0: GOMAXPROCS).
	Workers int
	// Progress, if set, is told of every run done.
	Progress func(done, total int)
}

// Count is the number of pairs shard sh holds.
func (s *Sweep) Count(sh Shard) int {
	n := s.Pairs()
	if sh.Index >= n {
		return 0
	}
	return (n-1-sh.Index)/sh.Of + 1
}

// Do runs the shard's pairs point by point and gives each result to emit
// in pair order as soon as its point's runs are done. A run's report is
// flattened and dropped in the worker that ran it: the shard holds one
// report per worker and the numbers of one point's runs.
func (r *Runner) Do(sh Shard, emit func(Result) error) error {
	s := r.Sweep
	run := r.Run
	if run == nil {
		run = experiment.DefaultRun
	}
	seeds := s.Seeds()
	done := experiment.Counter(r.Progress, s.Count(sh))
	for p := range s.Points {
		var runs []int
		for i := range s.Runs {
			if sh.Holds(p*s.Runs + i) {
				runs = append(runs, i)
			}
		}
		if len(runs) == 0 {
			continue
		}
		pt := &s.Points[p]
		sc, err := r.Load(pt)
		if err != nil {
			return err
		}
		if err := pt.Apply(sc); err != nil {
			return err
		}
		out := make([]Result, len(runs))
		errs := experiment.ForEach(len(runs), r.Workers, func(j int) error {
			i := runs[j]
			rep, err := run(sc, seeds[i])
			if err != nil {
				return err
			}
			out[j] = Result{Point: p, Run: i, Seed: seeds[i]}
			out[j].Metrics, err = experiment.Flatten(rep)
			return err
		}, done)
		for j, err := range errs {
			if err != nil {
				return fmt.Errorf("%s, run %d (seed %d): %w", pt.Name, runs[j], seeds[runs[j]], err)
			}
		}
		for _, res := range out {
			if err := emit(res); err != nil {
				return err
			}
		}
	}
	return nil
}
