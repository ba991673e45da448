// Package simulation wires one run: it builds the engine, the cluster and
// every model from a loaded scenario (in the order of parts, wiring.go),
// runs the engine to the scenario's end, and returns the report. A run can
// also be advanced in steps (Start, Sim.RunUntil) and read on the way. It
// owns no behaviour of its own.
package simulation

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	comp "github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/invariants"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/scheduler"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/trace"
	"github.com/clustersim/clustersim/sim/workload"
)

// Options adjust one run without changing the scenario.
type Options struct {
	// Seed, when set, overrides the scenario's seed.
	Seed *uint64
	// Progress, when set, is called every ProgressEvery events.
	Progress      func(now engine.Time, events uint64)
	ProgressEvery uint64
	// Trace, when set, receives the timeline (see sim/trace).
	Trace trace.Sink
	// Inspect, when set, is called with the final cluster state before the
	// report is built (sim explain reads who launched what for a pod).
	Inspect func(cl *cluster.Cluster)
	// Check turns on the invariant checks after every event
	// (sim/invariants); a violation fails the run.
	Check bool
	// CheckEvery is how often, in events, a checked run verifies the
	// models' incremental structures (0: invariants.DefaultStructureEvery).
	CheckEvery uint64
	// Context, when set and cancelled (Ctrl-C), stops the run early: the
	// report covers the time simulated so far and is marked partial.
	Context context.Context
	// At, when set, is called once when the run has reached AtTime (the
	// events at AtTime dispatched; AtTime within the scenario's duration),
	// then the run goes on: sim run --dump-state writes the state there
	// (Sim.WriteState). An error from it ends the run with that error.
	At     func(s *Sim) error
	AtTime engine.Time
	// NoTimeline leaves the report's timeline out: many-seed runs that
	// aggregate figures need none, and keep a report per seed.
	NoTimeline bool
	// Watch, when set, is called as often as the run looks at its
	// context, with the pods created so far; an error from it ends the
	// run with that error (sim run's --memory-limit, held while running).
	Watch func(now engine.Time, pods int) error
	// MaxPods bounds the pods a run may create (0: scenario.MaxPods): the
	// load-time estimate cannot foresee pods recreated as fast as they go
	// (evicted by a NoExecute taint tolerated 0s, say), so the run holds
	// the bound too.
	MaxPods int
	// KeepObjects keeps each node's and pod's life in the report's
	// timeline (report.Objects) for the per-node series of sim run
	// --metrics; off, a run keeps none (memory).
	KeepObjects bool
}

// ErrTooManyPods is wrapped by the error of a run stopped for creating
// more pods than it may hold.
var ErrTooManyPods = errors.New("too many pods")

// ctxCheckEvery is how often (in events) a run looks at its context.
const ctxCheckEvery = 20_000

// maxReservedPods caps ReservePods (about 0.8 GiB of pod records).
const maxReservedPods = 8_000_000

// Sim is one run in progress: Start builds it, RunUntil advances it, Now,
// Cluster and Report read it. Run is Start, RunUntil to the scenario's
// end and the final report; tests step a run to look at it on the way.
type Sim struct {
	sc   *scenario.Scenario
	seed uint64
	opts Options
	eng  *engine.Engine
	cl   *cluster.Cluster
	// built are the parts of this run, in building order (see parts).
	built []*part

	checker   *invariants.Checker
	collector *report.Collector
	sched     *scheduler.Scheduler
	rec       *trace.Recorder
	evictor   *eviction.Evictor
	market    *spotmarket.Market
	kubelet   *kubelet.Kubelet
	ec2       *tracedCloud
	ctrls     *workload.Controllers
	// models are the components' models by name, built in modelOrder
	// (package component; the list is parts).
	models     map[string]comp.Model
	modelOrder []string
	// initialNodes: the static and start nodes are in the cluster (a
	// component built later adopts its own at once).
	initialNodes bool

	// partial: the context stopped the run before the scenario's end.
	partial bool
	// err is the run's first failure (a model's panic, a violated
	// invariant): a failed run does not go on.
	err error
}

// Run simulates the scenario once. A loaded scenario may be run many times
// (also concurrently): each run works on its own copies of mutable state.
func Run(sc *scenario.Scenario, opts Options) (rep *report.Report, err error) {
	s, err := Start(sc, opts)
	if err != nil {
		return nil, err
	}
	if opts.At != nil {
		if opts.AtTime < 0 || opts.AtTime > sc.Duration {
			return nil, fmt.Errorf("time %s is outside the scenario's duration %s", opts.AtTime, sc.Duration)
		}
		if err := s.RunUntil(opts.AtTime); err != nil {
			return nil, err
		}
		if !s.partial {
			if err := opts.At(s); err != nil {
				return nil, err
			}
		}
	}
	if err := s.RunUntil(sc.Duration); err != nil {
		return nil, err
	}
	defer s.catch(&err)
	if s.checker != nil {
		if err := s.checker.Final(); err != nil {
			return nil, err
		}
	}
	if opts.Context != nil && opts.Context.Err() != nil && s.eng.Now() < sc.Duration {
		s.partial = true
	}
	if opts.Inspect != nil {
		opts.Inspect(s.cl)
	}
	// The run is over: the collector's books may be closed in place.
	rep = s.build(s.collector)
	if opts.KeepObjects && rep.Timeline != nil {
		rep.Timeline.Objects = s.objects()
	}
	return rep, nil
}

// Start builds a run of the scenario at time 0: the engine, the cluster
// and every model the scenario needs, with no event dispatched yet.
func Start(sc *scenario.Scenario, opts Options) (*Sim, error) {
	seed := sc.Seed
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	s := &Sim{sc: sc, seed: seed, opts: opts, eng: engine.New(seed)}
	if err := s.wire(); err != nil {
		return nil, err
	}
	return s, nil
}

// RunUntil dispatches the events up to t (those at t included), never
// past the scenario's end, and moves the clock there. It returns the
// run's failure, if any: a model's panic or, with Options.Check, a
// violated invariant. A failed run, or one its context stopped, goes no
// further.
func (s *Sim) RunUntil(t engine.Time) (err error) {
	if s.err != nil || s.partial {
		return s.err
	}
	defer s.catch(&err)
	s.eng.Run(min(t, s.sc.Duration))
	if s.checker != nil && s.checker.Err() != nil {
		s.err = s.checker.Err()
	}
	return s.err
}

// Now is the simulated time the run has reached.
func (s *Sim) Now() engine.Time { return s.eng.Now() }

// End is the scenario's end: RunUntil goes no further.
func (s *Sim) End() engine.Time { return s.sc.Duration }

// Cluster is the run's cluster state, to read (not to change).
func (s *Sim) Cluster() *cluster.Cluster { return s.cl }

// Report is the report as of now, as if the run ended here. It leaves the
// run undisturbed: RunUntil may go on afterwards.
func (s *Sim) Report() *report.Report { return s.build(s.collector.Clone()) }

// catch turns a model's panic into the run's error: a bug must not crash
// the user's run without saying where. Deferred by every step of a run.
func (s *Sim) catch(err *error) {
	if r := recover(); r != nil {
		ie := &InternalError{At: s.eng.Now(), Seed: s.seed, Panic: fmt.Sprint(r), Stack: string(debug.Stack()), Events: s.eng.Events()}
		if s.checker != nil {
			ie.Recent = s.checker.Recent()
		}
		s.err = ie
		*err = s.err
	}
}

// InternalError is a model's panic during a run: a bug of ours, not of
// the scenario. It carries what a crash report needs (sim run writes one).
type InternalError struct {
	At     engine.Time
	Seed   uint64
	Panic  string
	Stack  string
	Events uint64 // events dispatched before it
	// Recent are the last events dispatched, oldest first; only a run
	// with Options.Check keeps them.
	Recent []string
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error at t=%s (seed %d): %s; please report it with the scenario", e.At, e.Seed, e.Panic)
}

// wire builds the cluster, then the parts the run needs, in order.
func (s *Sim) wire() (err error) {
	defer s.catch(&err)
	sc, opts, eng := s.sc, s.opts, s.eng
	every := uint64(ctxCheckEvery)
	if opts.Progress != nil && opts.ProgressEvery > 0 {
		every = opts.ProgressEvery
	}
	maxPods := opts.MaxPods
	if maxPods <= 0 {
		maxPods = scenario.MaxPods
	}
	eng.SetProgress(every, func(now engine.Time, events uint64) {
		if opts.Progress != nil {
			opts.Progress(now, events)
		}
		if n := len(s.cl.Pods); n > maxPods {
			s.err = fmt.Errorf("%w: at %s the run had created %d pods, more than the %d a run may hold (%d were estimated at load): pods are recreated as fast as they go, "+
				"such as pods evicted at once by a NoExecute taint they tolerate for 0s (tolerationSeconds); check the workloads' tolerations, or shorten the run",
				ErrTooManyPods, time.Duration(now), n, maxPods, sc.EstimatedPods)
			eng.Stop()
			return
		}
		if opts.Watch != nil {
			if err := opts.Watch(now, len(s.cl.Pods)); err != nil {
				s.err = err
				eng.Stop()
				return
			}
		}
		if opts.Context != nil && opts.Context.Err() != nil {
			s.partial = true
			eng.Stop()
		}
	})
	s.cl = cluster.New(eng, sc.Syms.Clone(), sc.Resources)
	s.cl.SetStorage(sc.Storage)
	if cat := sc.Catalog; cat != nil {
		// NodeVolumeLimits and Karpenter's existing-node check: the EBS CSI
		// driver's per-type attach limit (catalog ebs.go).
		s.cl.SetAttachLimit(func(typ string) int32 {
			if it, ok := cat.Lookup(typ); ok {
				return int32(it.EBSVolumeLimit())
			}
			return int32(catalog.DefaultEBSVolumeLimit())
		})
	}
	// The load-time estimate of pods created (an upper bound in practice),
	// capped so that a wild estimate costs no more than growing would.
	s.cl.ReservePods(int(min(sc.EstimatedPods, maxReservedPods)))
	for i := range parts {
		p := &parts[i]
		if p.needed != nil && !p.needed(s) {
			continue
		}
		if err := p.build(s); err != nil {
			return err
		}
		s.built = append(s.built, p)
	}
	return nil
}

// build assembles the report: the run's own figures, each part's, and the
// collector's books (closed by Build: a copy's, for a report mid-run).
func (s *Sim) build(collector *report.Collector) *report.Report {
	warnings := make([]string, 0, len(s.sc.Warnings))
	for _, w := range s.sc.Warnings {
		warnings = append(warnings, w.String())
	}
	in := report.Inputs{
		Scenario: s.sc.Name,
		Seed:     s.seed,
		End:      s.eng.Now(),
		Events:   s.eng.Events(),
		Warnings: warnings,
		OnDemandPrice: func(typ string) (float64, bool) {
			p, _, ok := s.sc.Catalog.OnDemandPrice(s.sc.Region, typ)
			return p, ok
		},
	}
	for _, p := range s.built {
		if p.report != nil {
			p.report(s, &in)
		}
	}
	rep := collector.Build(in)
	rep.Partial = s.partial
	return rep
}
