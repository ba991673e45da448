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

// Run simulates the scenario once. A loaded scenario may be run many times
// (also concurrently): each run works on its own copies of mutable state.
func Run(sc *scenario.Scenario, opts Options) (rep *report.Report, err error) {
	seed := sc.Seed
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	eng := engine.New(seed)
	// A model bug must not crash the user's run without saying where.
	defer func() {
		if r := recover(); r != nil {
			rep, err = nil, fmt.Errorf("internal error at t=%s (seed %d): %v; please report it with the scenario", eng.Now(), seed, r)
		}
	}()
	partial := false
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
				partial = true
				eng.Stop()
			}
		})
	}
	cl := cluster.New(eng, sc.Syms.Clone(), sc.Resources)
	// The load-time estimate of pods created (an upper bound in practice),
	// capped so that a wild estimate costs no more than growing would.
	cl.ReservePods(int(min(sc.EstimatedPods, maxReservedPods)))
	var checker *invariants.Checker
	if opts.Check {
		checker = invariants.New(eng, cl)
	}
	collector := report.NewCollector(cl, sc.StrandedAfter, len(sc.Workloads))
	sched, err := scheduler.New(eng, cl, scheduler.Config{
		Profiles:        sc.SchedulerProfiles,
		InitialBackoff:  sc.SchedulerBackoff[0],
		MaxBackoff:      sc.SchedulerBackoff[1],
		PDBs:            sc.PDBs,
		NamespaceLabels: sc.NamespaceLabels,
	})
	if err != nil {
		return nil, err
	}
	var ctrls *workload.Controllers
	var rec *trace.Recorder
	if opts.Trace != nil {
		rec = trace.New(cl, opts.Trace, func(w int32) string { return ctrls.Workload(w).Ref() }, sched.LastFailure)
	}
	kubelet.New(eng, cl, sc.PodStartDelay)
	taintmanager.New(eng, cl)
	evictor := eviction.New(eng, cl, sc.PDBs)

	// The EC2 side exists when an autoscaler launches instances.
	var market *spotmarket.Market
	var ec2 *tracedCloud
	if len(sc.NodePools) > 0 || len(sc.NodeGroups) > 0 {
		market, err = spotmarket.New(eng, sc.Catalog, sc.Region, sc.Zones, sc.Market)
		if err != nil {
			return nil, err
		}
		ec2 = &tracedCloud{m: market, rec: rec}
		if rec != nil {
			market.Subscribe(rec)
		}
	}
	var kp *karpenter.Karpenter
	if len(sc.NodePools) > 0 {
		kp, err = karpenter.New(karpenter.Deps{Engine: eng, Cluster: cl, Catalog: sc.Catalog, Cloud: ec2, Evictor: evictor},
			karpenter.Config{Region: sc.Region, Zones: sc.Zones, NodePools: sc.NodePools, Settings: sc.KarpenterSettings})
		if err != nil {
			return nil, err
		}
	}
	for _, n := range sc.Nodes {
		cl.AddNode(n)
	}
	var ca *clusterautoscaler.Autoscaler
	if len(sc.NodeGroups) > 0 {
		ca, err = clusterautoscaler.New(eng, cl, sc.Catalog, ec2, evictor, sc.Region, sc.Zones, sc.NodeGroups, sc.CASettings)
		if err != nil {
			return nil, err
		}
	}
	ctrls = workload.New(eng, cl, sc.Workloads)
	if kp != nil {
		kp.SetDaemonOverhead(ctrls.DaemonSetOverhead)
		kp.SetNamespaceLabels(sc.NamespaceLabels)
	}

	eng.Run(sc.Duration)
	if checker != nil {
		if err := checker.Err(); err != nil {
			return nil, err
		}
		if err := checker.Final(); err != nil {
			return nil, err
		}
	}
	if opts.Context != nil && opts.Context.Err() != nil && eng.Now() < sc.Duration {
		partial = true
	}
	if opts.Inspect != nil {
		opts.Inspect(cl)
	}
	rep = build(sc, seed, eng, cl, collector, sched, ctrls, evictor, market, kp, ca)
	rep.Partial = partial
	return rep, nil
}

// build assembles the report from every model's figures.
// maxReservedPods caps ReservePods (about 0.8 GiB of pod records).
const maxReservedPods = 8_000_000

func build(sc *scenario.Scenario, seed uint64, eng *engine.Engine, cl *cluster.Cluster, collector *report.Collector,
	sched *scheduler.Scheduler, ctrls *workload.Controllers, evictor *eviction.Evictor, market *spotmarket.Market,
	kp *karpenter.Karpenter, ca *clusterautoscaler.Autoscaler) *report.Report {
	refs := make([]string, ctrls.Len())
	extras := make([]report.WorkloadExtra, ctrls.Len())
	for i := range refs {
		refs[i] = ctrls.Workload(int32(i)).Ref()
		ws := ctrls.WorkloadStats(int32(i))
		extras[i] = report.WorkloadExtra{JobsCompleted: ws.JobsCompleted, JobsFailed: ws.JobsFailed,
			Resubmissions: ws.Resubmissions, LostPodSeconds: ws.LostPodSeconds}
	}
	cs := ctrls.Stats()
	warnings := make([]string, 0, len(sc.Warnings))
	for _, w := range sc.Warnings {
		warnings = append(warnings, w.String())
	}
	st := sched.Stats()
	in := report.Inputs{
		Scenario:       sc.Name,
		Seed:           seed,
		End:            eng.Now(),
		Events:         eng.Events(),
		Attempts:       st.Attempts,
		Failed:         st.Failed,
		WorkloadRefs:   refs,
		WorkloadExtras: extras,
		Controllers: report.Controllers{PodsCreated: cs.PodsCreated, PodsReplaced: cs.PodsReplaced, Resubmissions: cs.Resubmissions,
			JobsArrived: cs.JobsArrived, JobsCompleted: cs.JobsCompleted, JobsFailed: cs.JobsFailed,
			JobPodFailures: cs.JobPodFailures, LostPodSeconds: cs.LostPodSeconds},
		Evictions: evictor.Stats().Evicted,
		Warnings:  warnings,
		OnDemandPrice: func(typ string) (float64, bool) {
			p, _, ok := sc.Catalog.OnDemandPrice(sc.Region, typ)
			return p, ok
		},
		Failure: func(id cluster.PodID) (report.Failure, int32, bool) {
			f := sched.FailureOf(id)
			if f == nil {
				return report.Failure{}, 0, false
			}
			reasons := make(map[string]int, len(f.Reasons))
			for _, rc := range f.Reasons {
				reasons[rc.Reason] = rc.Nodes
			}
			return report.Failure{Message: f.Message, Reasons: reasons}, sched.Attempts(id), true
		},
	}
	if market != nil {
		ms := market.Stats()
		in.Provisioning = report.Provisioning{LaunchRequests: ms.LaunchRequests, Launches: ms.Launches,
			LaunchFailures: ms.LaunchFailures, InsufficientCapacityErrors: ms.InsufficientCapacityErrors}
		in.Spot = report.Spot{Interruptions: ms.Interruptions, RebalanceRecommendations: ms.RebalanceRecommendations, Reclaims: ms.Reclaims}
		in.NodeCost = func(n *cluster.Node, until engine.Time) (float64, bool) {
			if n.Instance == 0 {
				return 0, false
			}
			return market.CostUSD(cloud.InstanceID(n.Instance), until), true
		}
	}
	if kp != nil {
		in.Karpenter = kp.Stats()
	}
	if ca != nil {
		in.ClusterAutoscaler = ca.Stats()
	}
	return collector.Build(in)
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
