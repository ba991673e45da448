// Package simulation wires one run: it builds the engine, the cluster and
// every model from a loaded scenario, runs the engine to the scenario's end,
// and returns the report. It owns no behaviour of its own.
package simulation

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/scheduler"
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
}

// Run simulates the scenario once. A loaded scenario may be run many times
// (also concurrently): each run works on its own copies of mutable state.
func Run(sc *scenario.Scenario, opts Options) (*report.Report, error) {
	seed := sc.Seed
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	eng := engine.New(seed)
	if opts.Progress != nil {
		eng.SetProgress(opts.ProgressEvery, opts.Progress)
	}
	cl := cluster.New(eng, sc.Syms.Clone(), sc.Resources)
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
	if opts.Trace != nil {
		trace.New(cl, opts.Trace, func(w int32) string { return ctrls.Workload(w).Ref() }, sched.LastFailure)
	}
	kubelet.New(eng, cl, sc.PodStartDelay)
	taintmanager.New(eng, cl)
	for _, n := range sc.Nodes {
		cl.AddNode(n)
	}
	ctrls = workload.New(eng, cl, sc.Workloads)

	eng.Run(sc.Duration)
	if opts.Inspect != nil {
		opts.Inspect(cl)
	}

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
	return collector.Build(report.Inputs{
		Scenario:     sc.Name,
		Seed:         seed,
		End:          eng.Now(),
		Events:       eng.Events(),
		Attempts:     st.Attempts,
		Failed:       st.Failed,
		WorkloadRefs: refs,
		OnDemandPrice: func(typ string) (float64, bool) {
			p, _, ok := sc.Catalog.OnDemandPrice(sc.Region, typ)
			return p, ok
		},
		WorkloadExtras: extras,
		Controllers: report.Controllers{PodsCreated: cs.PodsCreated, PodsReplaced: cs.PodsReplaced, Resubmissions: cs.Resubmissions,
			JobsArrived: cs.JobsArrived, JobsCompleted: cs.JobsCompleted, JobsFailed: cs.JobsFailed,
			JobPodFailures: cs.JobPodFailures, LostPodSeconds: cs.LostPodSeconds},
		Warnings: warnings,
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
	}), nil
}
