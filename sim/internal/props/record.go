// Package props states what must hold of every run, whatever the
// scenario, and checks it on a run's record: the timeline the trace
// recorder writes (sim run --events, what sim explain reads) and a few
// facts about the pods, budgets, NodePools and workloads taken from the
// scenario and from the final cluster state. The checks read only the
// record, so a test can hand them a made-up sequence of events; Observe
// makes the record of a real run under --check.
//
// The properties (Check runs them all; each has its own function):
//
//   - (a) NoInternalError: the run under Options.Check ends without an
//     error (no model panic, no broken invariant or index).
//   - (b) DrainedBeforeRemoval: a controller's pod dies with its node
//     (cause nodeGone) only if the node was reclaimed or warned of by EC2
//     (a spot signal), or removed at its NodePool's terminationGracePeriod
//     deadline, or the pod was already terminating: Karpenter and the
//     Cluster Autoscaler drain a node before removing it.
//   - (c) BudgetsRespected: no eviction finds a PodDisruptionBudget with
//     no disruption left (Kubernetes' rule: a healthy pod may be evicted
//     while healthy-1 >= desiredHealthy, another while healthy >=
//     desiredHealthy). Only evictions count; pods lost to reclaims,
//     preemption or a deadline are not the budget's business.
//   - (d) NothingLost: every event names a pod that exists, a pod ends
//     once, with a cause; a removed node keeps no pod; the timeline agrees
//     with the final cluster state pod by pod; and every Deployment and
//     StatefulSet has its desired replicas at the end (pending, bound or
//     running; a pod being replaced counts until its replacement exists).
//   - (e) DoNotDisruptRespected: Karpenter never evicts a pod annotated
//     karpenter.sh/do-not-disrupt (it waits for it, or for the deadline),
//     and never removes its node under it without a spot signal or a
//     deadline.
//
// What the timeline does not say is inferred, and the inference is the
// properties' contract: a pod's termination is an eviction when the pod
// is then deleted with cause evicted, unless it began inside the
// terminationGracePeriod window of a Karpenter node's deletion (from the
// karpenter.sh/disrupted taint's time), where Karpenter deletes pods
// without asking the eviction API. A budget's healthy pods are the
// Running, not terminating ones it selects (readiness is not in the
// timeline); its expected count is the desired replicas of the workloads
// whose pods it selects (the disruption controller reads their scale),
// plus the bare pods it selects that exist.
package props

import (
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
	"github.com/clustersim/clustersim/sim/workload"
)

// Record is what the properties read of one run.
type Record struct {
	// End is the run's end, in seconds.
	End float64
	// Err is the run's error (nil: it ran to the end).
	Err error
	// Entries are the timeline, in event order.
	Entries []trace.Entry
	// Pods are the facts about each pod, by namespace/name (a
	// StatefulSet's pods of one ordinal share a name and their facts).
	Pods map[string]Pod
	// PDBs are the scenario's PodDisruptionBudgets, by namespace/name.
	PDBs map[string]PDB
	// Pools are Karpenter's NodePools, by name.
	Pools map[string]Pool
	// Workloads are the scenario's workloads, by reference
	// (Kind/namespace/name, as the timeline names them).
	Workloads map[string]Workload
	// Final is every pod of the final cluster state, in creation order
	// (nil: not known, the run failed).
	Final []FinalPod
}

// Pod is what the properties know of a pod besides its timeline.
type Pod struct {
	Workload     string // its workload's reference ("" for none)
	DaemonSet    bool
	DoNotDisrupt bool // karpenter.sh/do-not-disrupt: "true"
	// Grace is its terminationGracePeriodSeconds, in seconds.
	Grace float64
	// PDBs are the budgets that select it, by namespace/name.
	PDBs []string
}

// PDB is a PodDisruptionBudget's rule: exactly one of MinAvailable and
// MaxUnavailable is set.
type PDB struct {
	MinAvailable, MaxUnavailable *Amount
}

// Amount is a count or a percentage (of the expected pods, rounded up as
// the disruption controller rounds).
type Amount struct {
	Value   int
	Percent bool
}

// Of resolves the amount against a total.
func (a Amount) Of(total int) int {
	if !a.Percent {
		return a.Value
	}
	return (a.Value*total + 99) / 100
}

// Pool is what the properties know of a NodePool.
type Pool struct {
	// TerminationGracePeriod bounds its nodes' drains, in seconds (0:
	// none).
	TerminationGracePeriod float64
}

// Workload is what the properties know of a workload.
type Workload struct {
	Kind string // Deployment, StatefulSet, Job, CronJob, Pod, DaemonSet
	// OrderedReady: a StatefulSet that creates one pod at a time.
	OrderedReady bool
	// Steps are its desired replicas over time (nil: no fixed plan, as
	// for Jobs, daily curves and HPAs).
	Steps []Step
}

// Step is a count of replicas from a time on (seconds).
type Step struct {
	At    float64
	Count int
}

// Desired is the workload's desired replicas at t, and whether it has a
// plan.
func (w Workload) Desired(t float64) (int, bool) {
	n, ok := 0, false
	for _, s := range w.Steps {
		if s.At <= t {
			n, ok = s.Count, true
		}
	}
	return n, ok
}

// FinalPod is a pod as the final cluster state has it.
type FinalPod struct {
	Name  string // namespace/name
	Phase string // Pending, Bound, Running, Succeeded, Failed, Deleted
	Cause string // for Deleted
	Node  string // for Bound and Running
}

// controllerKinds are the workloads whose pods a drain must evict
// before their node goes (DaemonSet pods are left to end with it).
var controllerKinds = map[string]bool{"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "Job": true, "CronJob": true}

// kindOf is the kind of a workload reference.
func kindOf(ref string) string {
	kind, _, _ := strings.Cut(ref, "/")
	return kind
}

// Observe runs the scenario under --check and records it.
func Observe(sc *scenario.Scenario) *Record {
	r := &Record{End: sc.Duration.Seconds(), Pods: map[string]Pod{}, PDBs: map[string]PDB{},
		Pools: map[string]Pool{}, Workloads: map[string]Workload{}}
	for _, b := range sc.PDBs {
		r.PDBs[sc.Syms.Name(b.Namespace)+"/"+b.Name] = PDB{MinAvailable: amount(b.MinAvailable), MaxUnavailable: amount(b.MaxUnavailable)}
	}
	for _, p := range kpConfig(sc).NodePools {
		r.Pools[p.Name] = Pool{TerminationGracePeriod: p.TerminationGracePeriod.Seconds()}
	}
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		wl := Workload{Kind: kindOf(w.Ref()), OrderedReady: w.Kind == workload.StatefulSet && w.OrderedReady}
		if plan := w.Replicas; plan.Daily == nil && plan.HPA == nil && (w.Kind == workload.Deployment || w.Kind == workload.StatefulSet) {
			for _, s := range plan.Steps {
				wl.Steps = append(wl.Steps, Step{At: s.At.Seconds(), Count: int(s.Count)})
			}
		}
		r.Workloads[w.Ref()] = wl
	}
	opts := simulation.Options{
		Check:   true,
		Trace:   func(e trace.Entry) { r.Entries = append(r.Entries, e) },
		Inspect: func(cl *cluster.Cluster) { r.inspect(sc, cl) },
	}
	_, r.Err = simulation.Run(sc, opts)
	return r
}

func amount(v *cluster.IntOrPercent) *Amount {
	if v == nil {
		return nil
	}
	return &Amount{Value: int(v.Value), Percent: v.Percent}
}

// inspect takes the pods' facts and the final state from the cluster.
func (r *Record) inspect(sc *scenario.Scenario, cl *cluster.Cluster) {
	r.Final = make([]FinalPod, len(cl.Pods))
	for i := range cl.Pods {
		p := &cl.Pods[i]
		name := cl.Syms.Name(p.Namespace) + "/" + p.Name
		f := FinalPod{Name: name, Phase: p.Phase.String()}
		if p.Phase == cluster.Deleted {
			f.Cause = p.Cause.String()
		}
		if p.Phase.OnNode() {
			f.Node = cl.Nodes[p.Node].Name
		}
		r.Final[i] = f
		if _, seen := r.Pods[name]; seen {
			continue
		}
		pf := Pod{DaemonSet: p.Spec.DaemonSet, DoNotDisrupt: p.Spec.DoNotDisrupt, Grace: p.Spec.TerminationGrace.Seconds()}
		if p.Workload >= 0 {
			pf.Workload = sc.Workloads[p.Workload].Ref()
		}
		for j := range sc.PDBs {
			if b := &sc.PDBs[j]; b.Covers(cl, p) {
				pf.PDBs = append(pf.PDBs, cl.Syms.Name(b.Namespace)+"/"+b.Name)
			}
		}
		r.Pods[name] = pf
	}
}
