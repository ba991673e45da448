package simulation

import (
	"fmt"
	"math"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	comp "github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/invariants"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scheduler"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/taintmanager"
	"github.com/clustersim/clustersim/sim/trace"
	"github.com/clustersim/clustersim/sim/workload"
)

// part is one piece of a run: a model, an observer, or a step such as
// adding the initial nodes.
type part struct {
	name string
	// needed says whether the run has the part (nil: every run has it).
	needed func(s *Sim) bool
	// build makes the part on the run's engine and cluster.
	build func(s *Sim) error
	// report, when set, adds the part's figures to the report's inputs; a
	// model with figures of its own adds itself (a report.Section).
	report func(s *Sim, in *report.Inputs)
}

// parts are built in this order, and the order is behaviour:
//   - the cluster tells its watchers of a change in the order they were
//     built (cluster.Watch), and a model reacts by scheduling events; events
//     at the same time are dispatched in the order they were scheduled, so
//     an earlier model's reaction comes first;
//   - events scheduled while building (a market script's start, the
//     Cluster Autoscaler's first loop, the workloads' first arrivals) keep
//     the building order in the same way;
//   - the market tells its subscribers of a signal in the order they
//     subscribed;
//   - engine handler IDs, which the timeline and error messages name, count
//     up in it.
//
// Moving a part changes the reports: keep the order unless a change means
// to change them. The report's model sections follow it too.
var parts = []part{
	// Observers: they record and schedule nothing, so their place changes
	// no run, and a run with or without them is the same run.
	{name: "invariant checker", needed: checking, build: (*Sim).buildChecker},
	{name: "report collector", build: (*Sim).buildCollector},
	// The scheduler reacts to a pod before any other model does.
	{name: "kube-scheduler", build: (*Sim).buildScheduler, report: (*Sim).reportScheduler},
	// An observer too; after the scheduler, whose last message for a pod
	// it writes, and before the market, which it subscribes to first.
	{name: "timeline recorder", needed: tracing, build: (*Sim).buildRecorder},
	{name: "kubelet", build: (*Sim).buildKubelet, report: (*Sim).reportKubelet},
	{name: "taint manager", build: (*Sim).buildTaintManager},
	{name: "eviction API", build: (*Sim).buildEvictor, report: (*Sim).reportEvictions},
	// EC2 exists when an autoscaler launches instances, so before them.
	{name: "EC2 market", needed: autoscaled, build: (*Sim).buildMarket, report: (*Sim).reportMarket},
	// Karpenter comes before the initial nodes: it learns of them as they
	// are added. Its section is the report's first.
	component("karpenter"),
	// The scenario's static nodes and Node manifests, Ready at time 0
	// (those of a component built above, Karpenter's NodePools, adopted
	// by it; those of a component built below, the Cluster Autoscaler's
	// node groups, left to it, which adopts them when built).
	{name: "initial nodes", build: (*Sim).addInitialNodes},
	// The Cluster Autoscaler comes after the initial nodes, which it finds
	// in the cluster when built; its groups' initial nodes are launched by
	// an event it schedules at once, before the workloads' first pods.
	component("cluster-autoscaler"),
	// The workload controllers come last of the models: their first
	// arrivals are scheduled after every other model's first events, so
	// at time 0 the Cluster Autoscaler's groups are up before pods come.
	{name: "workload controllers", build: (*Sim).buildControllers, report: (*Sim).reportControllers},
	// Components that need what exists only once the controllers do
	// (Karpenter counts the DaemonSets' pods on the nodes it plans, and
	// reads the namespaces' labels in affinity terms) get it here, before
	// the first event.
	{name: "components' late inputs", needed: wantsLate, build: (*Sim).lateInputs},
	// With --check, the models' incremental structures are verified
	// against recomputations; once every model exists.
	{name: "structure checks", needed: checking, build: (*Sim).checkStructures},
}

// indexed is a model with incremental structures (indexes, caches,
// mirrors of the cluster): CheckIndexes recomputes each from scratch and
// returns an error naming the first that drifted.
type indexed interface{ CheckIndexes() error }

// checkStructures registers every model's structures with the checker.
func (s *Sim) checkStructures() error {
	var ss []invariants.Structure
	add := func(name string, m any) {
		if x, ok := m.(indexed); ok {
			ss = append(ss, invariants.Structure{Name: name, Check: x.CheckIndexes})
		}
	}
	add("cluster", s.cl)
	add("kube-scheduler", s.sched)
	for _, name := range s.modelOrder {
		add(name, s.models[name])
	}
	every := s.opts.CheckEvery
	if every == 0 {
		every = invariants.DefaultStructureEvery
	}
	s.checker.CheckStructures(every, ss...)
	return nil
}

func checking(s *Sim) bool { return s.opts.Check }
func tracing(s *Sim) bool  { return s.opts.Trace != nil }

// autoscaled: a component that launches instances runs (an autoscaler).
func autoscaled(s *Sim) bool { return comp.Launching(s.sc.Components) }

func (s *Sim) buildChecker() error {
	s.checker = invariants.New(s.eng, s.cl)
	return nil
}

func (s *Sim) buildCollector() error {
	s.collector = report.NewCollector(s.cl, s.sc.StrandedAfter, len(s.sc.Workloads))
	s.startTimeline()
	return nil
}

func (s *Sim) buildScheduler() (err error) {
	sc := s.sc
	s.sched, err = scheduler.New(s.eng, s.cl, scheduler.Config{
		Profiles:        sc.SchedulerProfiles,
		InitialBackoff:  sc.SchedulerBackoff[0],
		MaxBackoff:      sc.SchedulerBackoff[1],
		PDBs:            sc.PDBs,
		NamespaceLabels: sc.NamespaceLabels,
		ComputeTime:     sc.ComputeTime,
	})
	return err
}

func (s *Sim) reportScheduler(in *report.Inputs) {
	st := s.sched.Stats()
	in.Attempts, in.Failed = st.Attempts, st.Failed
	if s.cl.HasStorage() {
		vs := s.cl.VolumeStats()
		in.Volumes = &report.Volumes{ClaimsCreated: vs.ClaimsCreated, VolumesProvisioned: vs.VolumesProvisioned,
			WaitedOnAttach: vs.AttachWaits, AttachWaitSeconds: vs.AttachWaited.Seconds(), ForceDetached: vs.ForceDetaches}
	}
	in.SchedulerBusy, in.SchedulerMaxWait = st.Busy, st.MaxWait
	in.Failure = func(id cluster.PodID) (report.Failure, int32, bool) {
		f := s.sched.FailureOf(id)
		if f == nil {
			return report.Failure{}, 0, false
		}
		reasons := make(map[string]int, len(f.Reasons))
		for _, rc := range f.Reasons {
			reasons[rc.Reason] = rc.Nodes
		}
		return report.Failure{Message: f.Message, Reasons: reasons}, s.sched.Attempts(id), true
	}
}

func (s *Sim) buildRecorder() error {
	// The controllers are built later; the recorder asks them only once
	// the run is under way.
	workloadRef := func(w int32) string { return s.ctrls.Workload(w).Ref() }
	s.rec = trace.New(s.cl, s.opts.Trace, workloadRef, s.sched.LastFailure)
	return nil
}

func (s *Sim) buildKubelet() error {
	s.kubelet = kubelet.New(s.eng, s.cl, s.sc.PodStartDelay)
	s.kubelet.SetNodeFailures(s.sc.NodeFailures)
	return nil
}

func (s *Sim) reportKubelet(in *report.Inputs) {
	in.NodeFailures, in.UnhealthyHours = s.kubelet.NodeFailures(), s.kubelet.UnhealthyHours()
}

func (s *Sim) buildTaintManager() error {
	taintmanager.New(s.eng, s.cl)
	return nil
}

func (s *Sim) buildEvictor() error {
	s.evictor = eviction.New(s.eng, s.cl, s.sc.PDBs)
	return nil
}

func (s *Sim) reportEvictions(in *report.Inputs) { in.Evictions = s.evictor.Stats().Evicted }

func (s *Sim) buildMarket() (err error) {
	sc := s.sc
	s.market, err = spotmarket.New(s.eng, sc.Catalog, sc.Region, sc.Zones, sc.Market)
	if err != nil {
		return err
	}
	if len(sc.Subnets) > 0 {
		// EC2 takes the nodes' addresses, the kubelet the pods'.
		subnets := cloud.NewSubnets(sc.Subnets, sc.IPsPerNode)
		s.market.SetSubnets(subnets)
		s.kubelet.SetSubnets(subnets)
	}
	s.ec2 = &tracedCloud{m: s.market, rec: s.rec}
	if s.rec != nil {
		s.market.Subscribe(s.rec)
	}
	if !s.opts.NoTimeline {
		s.ec2.timeline = trace.NewCloud(s.cl, s.timelineEntry)
		s.market.Subscribe(s.ec2.timeline)
	}
	return nil
}

func (s *Sim) reportMarket(in *report.Inputs) {
	ms := s.market.Stats()
	in.Provisioning = report.Provisioning{LaunchRequests: ms.LaunchRequests, Launches: ms.Launches,
		LaunchFailures: ms.LaunchFailures, InsufficientCapacityErrors: ms.InsufficientCapacityErrors,
		DepthRefusals: ms.DepthRefusals, PartialFulfilments: ms.PartialFulfilments,
		InsufficientAddressErrors: ms.InsufficientAddressErrors, Pools: []report.PoolLaunches{}}
	for _, p := range ms.ByPool {
		if p.Asked > 0 {
			in.Provisioning.Pools = append(in.Provisioning.Pools, report.PoolLaunches{Pool: p.Offering.String(),
				Asked: p.Asked, Obtained: p.Launches, Refused: p.InsufficientCapacityErrors, DepthRefused: p.DepthRefusals})
		}
	}
	in.IPWaitPods, in.IPWaitSeconds = s.kubelet.IPWaits()
	in.Spot = report.Spot{Interruptions: ms.Interruptions, RebalanceRecommendations: ms.RebalanceRecommendations, Reclaims: ms.Reclaims}
	for _, rs := range s.market.ReservationStats(s.eng.Now()) {
		r := rs.Reservation
		use := report.Reservation{ID: r.ID, InstanceType: r.InstanceType, Zone: r.Zone, Type: r.Kind.String(), Count: r.Count,
			ReservedHours: round3(rs.ReservedHours), UsedHours: round3(rs.UsedHours), CostUSD: math.Round(rs.CostUSD*1e6) / 1e6}
		if rs.ReservedHours > 0 {
			use.UtilizationPct = round3(100 * rs.UsedHours / rs.ReservedHours)
		}
		in.Reservations = append(in.Reservations, use)
	}
	in.NodeCost = func(n *cluster.Node, until engine.Time) (float64, bool) {
		if n.Instance == 0 {
			return 0, false
		}
		return s.market.CostUSD(cloud.InstanceID(n.Instance), until), true
	}
	in.OnDemandEquivalent = func(n *cluster.Node, until engine.Time) (float64, bool) {
		if n.Instance == 0 {
			return 0, false
		}
		return s.market.OnDemandEquivalentUSD(cloud.InstanceID(n.Instance), until), true
	}
}

// component is the part that builds the registered component called
// name, when the scenario runs it (its configuration compiled), and adds
// its report section (a model that is a report.Section).
func component(name string) part {
	return part{name: name,
		needed: func(s *Sim) bool { _, ok := s.sc.Components.Get(name); return ok },
		build:  func(s *Sim) error { return s.buildComponent(name) },
		report: func(s *Sim, in *report.Inputs) {
			if sec, ok := s.models[name].(report.Section); ok {
				in.Models = append(in.Models, sec)
			}
		}}
}

// buildComponent builds the component's model on the run, wires it to the
// run's observers and, once the initial nodes exist, has it adopt the
// start nodes the loader gave it.
func (s *Sim) buildComponent(name string) error {
	c, ok := comp.Lookup(name)
	if !ok {
		return fmt.Errorf("component %q is in the scenario but not registered", name)
	}
	cfg, _ := s.sc.Components.Get(name)
	m, err := c.Build(comp.Deps{Engine: s.eng, Cluster: s.cl, Catalog: s.sc.Catalog, Cloud: s.ec2, Evictor: s.evictor}, cfg)
	if err != nil {
		return err
	}
	if s.models == nil {
		s.models = map[string]comp.Model{}
	}
	s.models[name] = m
	s.modelOrder = append(s.modelOrder, name)
	if s.initialNodes {
		if err := s.adoptStartNodes(name); err != nil {
			return err
		}
	}
	if w, ok := m.(comp.Wirer); ok {
		o := comp.Observers{NodeDeletion: s.nodeDeletion(name)}
		if s.rec != nil {
			o.NoCapacity = func(kind string, pods []cluster.PodID, class, message string) {
				s.rec.NoLaunch(kind, name, pods, class, message)
			}
			o.Disruption = func(c comp.DisruptionCommand) { s.rec.Disruption(name, traceCommand(c)) }
			o.ProvReqCondition = func(c comp.ProvReqCondition) {
				s.rec.ProvReq(name, c.Request, c.Class, c.Type, c.Status, c.Reason, c.Message)
			}
		}
		w.Wire(o)
	}
	return nil
}

// adoptStartNodes has the component's model adopt the start nodes the
// loader gave it; each one's instance runs in the market.
func (s *Sim) adoptStartNodes(name string) error {
	own := cluster.RegisterOwner(name)
	for _, n := range s.sc.Nodes {
		if n.Owner == own {
			if err := s.adopt(name, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// adopt has model name adopt start node n.
func (s *Sim) adopt(name string, n cluster.Node) error {
	a, ok := s.models[name].(comp.StartAdopter)
	if !ok {
		return fmt.Errorf("node %s belongs to %s, which does not adopt start nodes", n.Name, name)
	}
	o := cloud.Offering{InstanceType: n.InstanceType, Zone: s.cl.Syms.Name(n.Zone), CapacityType: n.CapacityType}
	if n.CapacityType == cluster.Reserved {
		// The loader adopts a reserved node only in a reservation of the
		// scenario's (its capacity-reservation-id label).
		if v, ok := n.Labels.Get(s.cl.Syms.Intern("karpenter.k8s.aws/capacity-reservation-id")); ok {
			o.Reservation = s.cl.Syms.Name(v)
		}
	}
	res, err := s.market.Adopt(name, n.OwnerName, o)
	if err != nil {
		return err
	}
	return a.AdoptStart(n, res)
}

// addInitialNodes adds the static pools' nodes and the Node manifests',
// in order; a node the loader gave a component is adopted by its model if
// built already, else left to it (adopted when built).
func (s *Sim) addInitialNodes() error {
	for _, n := range s.sc.Nodes {
		if n.Owner != cluster.OwnedByStatic {
			if name := n.Owner.String(); s.models[name] != nil {
				if err := s.adopt(name, n); err != nil {
					return err
				}
			}
			continue
		}
		s.cl.AddNode(n)
	}
	s.initialNodes = true
	return nil
}

func (s *Sim) buildControllers() error {
	s.ctrls = workload.New(s.eng, s.cl, s.sc.Workloads)
	s.cl.SetPDBScale(s.ctrls.PDBScale)
	s.cl.SetScaleSource(s.sc.ScaleSource(s.ctrls.ScaleOf))
	return nil
}

func (s *Sim) reportControllers(in *report.Inputs) {
	n := s.ctrls.Len()
	in.WorkloadRefs = make([]string, n)
	in.WorkloadExtras = make([]report.WorkloadExtra, n)
	for i := range n {
		in.WorkloadRefs[i] = s.ctrls.Workload(int32(i)).Ref()
		in.WorkloadExtras[i] = report.WorkloadExtra(s.ctrls.WorkloadStats(int32(i))) // the same fields
	}
	cs := s.ctrls.Stats()
	in.Controllers = report.Controllers{PodsCreated: cs.PodsCreated, PodsReplaced: cs.PodsReplaced, Resubmissions: cs.Resubmissions,
		JobsArrived: cs.JobsArrived, JobsCompleted: cs.JobsCompleted, JobsFailed: cs.JobsFailed,
		JobPodFailures: cs.JobPodFailures, LostPodSeconds: round3(cs.LostPodSeconds)}
	for _, f := range s.ctrls.FailedJobs() {
		in.Controllers.FailedJobs = append(in.Controllers.FailedJobs, report.FailedJob{Job: f.Job, Workload: in.WorkloadRefs[f.Workload],
			AtSeconds: round3(f.At.Seconds()), Reason: f.Reason})
	}
}

// wantsLate: a model built needs what exists once the controllers do.
func wantsLate(s *Sim) bool {
	for _, m := range s.models {
		if _, ok := m.(comp.Later); ok {
			return true
		}
	}
	return false
}

// lateInputs gives the models that need them what exists only once the
// workload controllers do.
func (s *Sim) lateInputs() error {
	late := comp.Late{DaemonSetOverhead: s.ctrls.DaemonSetOverhead, NamespaceLabels: s.sc.NamespaceLabels}
	for _, name := range s.modelOrder {
		if l, ok := s.models[name].(comp.Later); ok {
			l.Late(late)
		}
	}
	return nil
}

// tracedCloud is the market as the autoscalers see it, recording launches
// in the --events timeline when one is kept, and in the report's.
type tracedCloud struct {
	m        *spotmarket.Market
	rec      *trace.Recorder
	timeline *trace.Recorder
}

func (c *tracedCloud) Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error) {
	res, err := c.m.Launch(req)
	if c.rec != nil {
		c.rec.Launch(req.Owner, res, err)
	}
	if c.timeline != nil {
		c.timeline.Launch(req.Owner, res, err)
	}
	return res, err
}

func (c *tracedCloud) Terminate(id cloud.InstanceID)          { c.m.Terminate(id) }
func (c *tracedCloud) Price(o cloud.Offering) (float64, bool) { return c.m.Price(o) }
func (c *tracedCloud) Available(o cloud.Offering) bool        { return c.m.Available(o) }
func (c *tracedCloud) Subscribe(s cloud.Subscriber)           { c.m.Subscribe(s) }

// Reservations and ReservationFree are EC2's capacity reservations
// (scheduling.ReservationSource).
func (c *tracedCloud) Reservations() []cloud.Reservation { return c.m.Reservations() }
func (c *tracedCloud) ReservationFree(id string) (int, bool) {
	return c.m.ReservationFree(id)
}

// round3 rounds to three decimals, so the timeline stays short and stable.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// traceCommand is a component's disruption command as the timeline's
// disruptionCommand entry tells it.
func traceCommand(c comp.DisruptionCommand) trace.Command {
	tc := trace.Command{Phase: c.Phase, Why: c.Why, Method: c.Method, Reason: c.Reason}
	for _, n := range c.Candidates {
		tc.Candidates = append(tc.Candidates, trace.CommandNode{Node: n.Node, NodePool: n.Pool, InstanceType: n.InstanceType, CapacityType: n.CapacityType, Pods: n.Pods})
	}
	for _, p := range c.Replacements {
		tc.Replacements = append(tc.Replacements, trace.CommandReplacement{NodePool: p.Pool, CapacityType: p.CapacityType, InstanceTypes: p.InstanceTypes, Options: p.Options})
	}
	for _, b := range c.Budgets {
		tc.Budgets = append(tc.Budgets, trace.CommandBudget{NodePool: b.Pool, Nodes: b.Nodes, Reasons: b.Reasons, Schedule: b.Schedule, Allowed: b.Allowed})
	}
	for _, s := range c.Scores {
		score := s.Score
		if math.IsInf(score, 1) {
			score = -1
		}
		tc.Scores = append(tc.Scores, trace.CommandScore{NodePool: s.Pool, Score: round3(score), Threshold: s.Threshold,
			SavingsPct: round3(s.SavingsPct), DisruptionPct: round3(s.DisruptionPct)})
	}
	return tc
}
