// Package simulation wires one run: it builds the engine, the cluster and
// every model from a loaded scenario, runs the engine to the scenario's end,
// and returns the report. It owns no behaviour of its own.
package simulation

import (
	"context"
	"fmt"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/invariants"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/scheduler"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/taintmanager"
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
	// Context, when set and cancelled (Ctrl-C), stops the run early: the
	// report covers the time simulated so far and is marked partial.
	Context context.Context
}

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

	checker   *invariants.Checker
	collector *report.Collector
	sched     *scheduler.Scheduler
	ctrls     *workload.Controllers
	evictor   *eviction.Evictor
	market    *spotmarket.Market
	kp        *karpenter.Karpenter
	ca        *clusterautoscaler.Autoscaler

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
	return s.build(s.collector), nil
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
		s.err = fmt.Errorf("internal error at t=%s (seed %d): %v; please report it with the scenario", s.eng.Now(), s.seed, r)
		*err = s.err
	}
}

// wire builds the cluster and the models on the engine.
func (s *Sim) wire() (err error) {
	defer s.catch(&err)
	sc, opts, eng := s.sc, s.opts, s.eng
	if opts.Progress != nil || opts.Context != nil {
		every := uint64(ctxCheckEvery)
		if opts.Progress != nil && opts.ProgressEvery > 0 {
			every = opts.ProgressEvery
		}
		eng.SetProgress(every, func(now engine.Time, events uint64) {
			if opts.Progress != nil {
				opts.Progress(now, events)
			}
			if opts.Context != nil && opts.Context.Err() != nil {
				s.partial = true
				eng.Stop()
			}
		})
	}
	cl := cluster.New(eng, sc.Syms.Clone(), sc.Resources)
	s.cl = cl
	// The load-time estimate of pods created (an upper bound in practice),
	// capped so that a wild estimate costs no more than growing would.
	cl.ReservePods(int(min(sc.EstimatedPods, maxReservedPods)))
	if opts.Check {
		s.checker = invariants.New(eng, cl)
	}
	s.collector = report.NewCollector(cl, sc.StrandedAfter, len(sc.Workloads))
	s.sched, err = scheduler.New(eng, cl, scheduler.Config{
		Profiles:        sc.SchedulerProfiles,
		InitialBackoff:  sc.SchedulerBackoff[0],
		MaxBackoff:      sc.SchedulerBackoff[1],
		PDBs:            sc.PDBs,
		NamespaceLabels: sc.NamespaceLabels,
	})
	if err != nil {
		return err
	}
	var rec *trace.Recorder
	if opts.Trace != nil {
		rec = trace.New(cl, opts.Trace, func(w int32) string { return s.ctrls.Workload(w).Ref() }, s.sched.LastFailure)
	}
	kubelet.New(eng, cl, sc.PodStartDelay)
	taintmanager.New(eng, cl)
	s.evictor = eviction.New(eng, cl, sc.PDBs)

	// The EC2 side exists when an autoscaler launches instances.
	var ec2 *tracedCloud
	if len(sc.NodePools) > 0 || len(sc.NodeGroups) > 0 {
		s.market, err = spotmarket.New(eng, sc.Catalog, sc.Region, sc.Zones, sc.Market)
		if err != nil {
			return err
		}
		ec2 = &tracedCloud{m: s.market, rec: rec}
		if rec != nil {
			s.market.Subscribe(rec)
		}
	}
	if len(sc.NodePools) > 0 {
		s.kp, err = karpenter.New(eng, cl, sc.Catalog, ec2, s.evictor, sc.Region, sc.Zones, sc.NodePools, sc.KarpenterSettings)
		if err != nil {
			return err
		}
	}
	for _, n := range sc.Nodes {
		cl.AddNode(n)
	}
	if len(sc.NodeGroups) > 0 {
		s.ca, err = clusterautoscaler.New(eng, cl, sc.Catalog, ec2, s.evictor, sc.Region, sc.Zones, sc.NodeGroups, sc.CASettings)
		if err != nil {
			return err
		}
	}
	s.ctrls = workload.New(eng, cl, sc.Workloads)
	if s.kp != nil {
		s.kp.SetDaemonOverhead(s.ctrls.DaemonSetOverhead)
		s.kp.SetNamespaceLabels(sc.NamespaceLabels)
	}
	return nil
}

// build assembles the report from every model's figures and the
// collector's books (closed by Build: a copy's, for a report mid-run).
func (s *Sim) build(collector *report.Collector) *report.Report {
	refs := make([]string, s.ctrls.Len())
	extras := make([]report.WorkloadExtra, s.ctrls.Len())
	for i := range refs {
		refs[i] = s.ctrls.Workload(int32(i)).Ref()
		ws := s.ctrls.WorkloadStats(int32(i))
		extras[i] = report.WorkloadExtra{JobsCompleted: ws.JobsCompleted, JobsFailed: ws.JobsFailed,
			Resubmissions: ws.Resubmissions, LostPodSeconds: ws.LostPodSeconds}
	}
	cs := s.ctrls.Stats()
	warnings := make([]string, 0, len(s.sc.Warnings))
	for _, w := range s.sc.Warnings {
		warnings = append(warnings, w.String())
	}
	st := s.sched.Stats()
	in := report.Inputs{
		Scenario:       s.sc.Name,
		Seed:           s.seed,
		End:            s.eng.Now(),
		Events:         s.eng.Events(),
		Attempts:       st.Attempts,
		Failed:         st.Failed,
		WorkloadRefs:   refs,
		WorkloadExtras: extras,
		Controllers: report.Controllers{PodsCreated: cs.PodsCreated, PodsReplaced: cs.PodsReplaced, Resubmissions: cs.Resubmissions,
			JobsArrived: cs.JobsArrived, JobsCompleted: cs.JobsCompleted, JobsFailed: cs.JobsFailed,
			JobPodFailures: cs.JobPodFailures, LostPodSeconds: cs.LostPodSeconds},
		Evictions: s.evictor.Stats().Evicted,
		Warnings:  warnings,
		OnDemandPrice: func(typ string) (float64, bool) {
			p, _, ok := s.sc.Catalog.OnDemandPrice(s.sc.Region, typ)
			return p, ok
		},
		Failure: func(id cluster.PodID) (report.Failure, int32, bool) {
			f := s.sched.FailureOf(id)
			if f == nil {
				return report.Failure{}, 0, false
			}
			reasons := make(map[string]int, len(f.Reasons))
			for _, rc := range f.Reasons {
				reasons[rc.Reason] = rc.Nodes
			}
			return report.Failure{Message: f.Message, Reasons: reasons}, s.sched.Attempts(id), true
		},
	}
	if s.market != nil {
		ms := s.market.Stats()
		in.Provisioning = report.Provisioning{LaunchRequests: ms.LaunchRequests, Launches: ms.Launches,
			LaunchFailures: ms.LaunchFailures, InsufficientCapacityErrors: ms.InsufficientCapacityErrors}
		in.Spot = report.Spot{Interruptions: ms.Interruptions, RebalanceRecommendations: ms.RebalanceRecommendations, Reclaims: ms.Reclaims}
		in.NodeCost = func(n *cluster.Node, until engine.Time) (float64, bool) {
			if n.Instance == 0 {
				return 0, false
			}
			return s.market.CostUSD(cloud.InstanceID(n.Instance), until), true
		}
	}
	if s.kp != nil {
		in.Karpenter = s.kp.Stats()
	}
	if s.ca != nil {
		in.ClusterAutoscaler = s.ca.Stats()
	}
	rep := collector.Build(in)
	rep.Partial = s.partial
	return rep
}

// tracedCloud is the market as the autoscalers see it, recording launches
// in the timeline when one is kept.
type tracedCloud struct {
	m   *spotmarket.Market
	rec *trace.Recorder
}

func (c *tracedCloud) Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error) {
	res, err := c.m.Launch(req)
	if c.rec != nil {
		c.rec.Launch(req.Owner, res, err)
	}
	return res, err
}

func (c *tracedCloud) Terminate(id cloud.InstanceID)          { c.m.Terminate(id) }
func (c *tracedCloud) Price(o cloud.Offering) (float64, bool) { return c.m.Price(o) }
func (c *tracedCloud) Available(o cloud.Offering) bool        { return c.m.Available(o) }
func (c *tracedCloud) Subscribe(s cloud.Subscriber)           { c.m.Subscribe(s) }
