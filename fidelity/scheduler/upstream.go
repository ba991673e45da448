package schedfidelity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Answer is one cycle's result for a pod, in scheduler-neutral terms.
type Answer struct {
	Feasible []string // sorted
	Top      []string // the feasible nodes of the highest total score, sorted
	Chosen   string   // "" if none
	Message  string   // the fit error of an unschedulable pod
	// Scores maps each scored node to its total score (empty when fewer
	// than two nodes are feasible: neither side scores then).
	Scores map[string]int64
	// Plugins maps each score plugin to its weighted score per node.
	Plugins map[string]map[string]int64
}

// recorderName is the harness's PreScore plugin that records the nodes a
// cycle scores: the feasible set the real findNodesThatFitPod returned.
const recorderName = "FidelityRecorder"

type recorder struct{ nodes []fwk.NodeInfo }

func (r *recorder) Name() string { return recorderName }

func (r *recorder) PreScore(_ context.Context, _ fwk.CycleState, _ *corev1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	r.nodes = append(r.nodes[:0], nodes...)
	return nil
}

// Upstream is a case loaded into upstream's scheduler: its cache (node
// tree and all), snapshot and default profile, built by scheduler.New with
// a fake clientset and informers.
type Upstream struct {
	sched  *scheduler.Scheduler
	fw     framework.Framework
	snap   *cache.Snapshot
	rec    *recorder
	ctx    context.Context
	cancel context.CancelFunc
	logger klog.Logger
	// Elapsed sums the CPU time spent in SchedulePod.
	Elapsed time.Duration
}

// QuietUpstream silences upstream's klog output (it notes, for instance,
// that the harness's recorder plugin disables OpportunisticBatching's pod
// signatures).
func QuietUpstream() {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// Parallelism of upstream's filter and score loops. 1 makes the sampled
// feasible set (percentageOfNodesToScore below 100) deterministic: with
// more workers, which nodes fill the quota first is a race. Ours is single
// threaded too.
var Parallelism int32 = 1

// defaultProfile is the profile scheduler.New builds when none is given
// (the v1 defaults), with the recorder added at PreScore.
func defaultProfile() (schedulerapi.KubeSchedulerProfile, error) {
	var versioned configv1.KubeSchedulerConfiguration
	scheme.Scheme.Default(&versioned)
	var cfg schedulerapi.KubeSchedulerConfiguration
	if err := scheme.Scheme.Convert(&versioned, &cfg, nil); err != nil {
		return schedulerapi.KubeSchedulerProfile{}, err
	}
	if len(cfg.Profiles) != 1 {
		return schedulerapi.KubeSchedulerProfile{}, fmt.Errorf("upstream defaults have %d profiles, want 1", len(cfg.Profiles))
	}
	p := cfg.Profiles[0]
	p.Plugins.PreScore.Enabled = append(p.Plugins.PreScore.Enabled, schedulerapi.Plugin{Name: recorderName})
	return p, nil
}

// NewUpstream builds upstream's scheduler for a case and loads its nodes
// (in the case's order, as informer events would add them) and existing
// pods into the cache.
func NewUpstream(c *Case) (*Upstream, error) {
	prof, err := defaultProfile()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	logger := klog.Background()
	cs := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(cs, 0)
	snap := cache.NewEmptySnapshot()
	rec := &recorder{}
	reg := frameworkruntime.Registry{recorderName: func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return rec, nil }}
	pct := c.Percentage
	s, err := scheduler.New(ctx, cs, factory, nil, func(string) events.EventRecorderLogger { return events.NewFakeRecorder(100) },
		scheduler.WithProfiles(prof), scheduler.WithFrameworkOutOfTreeRegistry(reg), scheduler.WithNodeInfoSnapshot(snap),
		scheduler.WithPercentageOfNodesToScore(&pct), scheduler.WithParallelism(Parallelism))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: upstream scheduler: %w", c.Name, err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	u := &Upstream{sched: s, fw: s.Profiles[corev1.DefaultSchedulerName], snap: snap, rec: rec, ctx: ctx, cancel: cancel, logger: logger}
	for _, n := range c.Nodes {
		s.Cache.AddNode(logger, n.DeepCopy())
	}
	for _, p := range c.Existing {
		if err := s.Cache.AddPod(logger, p.DeepCopy()); err != nil {
			u.Close()
			return nil, fmt.Errorf("%s: upstream cache: %w", c.Name, err)
		}
	}
	return u, nil
}

// Close stops the scheduler's goroutines.
func (u *Upstream) Close() { u.cancel() }

// Evaluate runs upstream's SchedulePod (filters from nextStartNodeIndex,
// PreScore, Score, selectHost) for the pod on the current state, then
// re-runs Score on the same cycle state for every feasible node's total.
func (u *Upstream) Evaluate(pod *corev1.Pod) (Answer, error) {
	if err := u.sched.Cache.UpdateSnapshot(u.logger, u.snap); err != nil {
		return Answer{}, err
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return Answer{}, err
	}
	qpi := &framework.QueuedPodInfo{PodInfo: pi}
	state := framework.NewCycleState()
	u.rec.nodes = u.rec.nodes[:0]
	start := processCPU()
	res, err := u.sched.SchedulePod(u.ctx, u.fw, state, qpi)
	u.Elapsed += processCPU() - start
	var a Answer
	var fitErr *framework.FitError
	switch {
	case errors.As(err, &fitErr):
		a.Message = fitErr.Error()
		return a, nil
	case err != nil:
		return a, err
	}
	a.Chosen = res.SuggestedHost
	if res.FeasibleNodes == 1 {
		a.Feasible = []string{res.SuggestedHost}
		a.Top = a.Feasible
		return a, nil
	}
	scores, st := u.fw.RunScorePlugins(u.ctx, state, pod, u.rec.nodes)
	if !st.IsSuccess() {
		return a, st.AsError()
	}
	a.Scores = map[string]int64{}
	a.Plugins = map[string]map[string]int64{}
	best := int64(-1 << 63)
	for _, s := range scores {
		for _, ps := range s.Scores {
			if a.Plugins[ps.Name] == nil {
				a.Plugins[ps.Name] = map[string]int64{}
			}
			a.Plugins[ps.Name][s.Name] = ps.Score
		}
		a.Feasible = append(a.Feasible, s.Name)
		a.Scores[s.Name] = s.TotalScore
		best = max(best, s.TotalScore)
	}
	for _, s := range scores {
		if s.TotalScore == best {
			a.Top = append(a.Top, s.Name)
		}
	}
	sort.Strings(a.Feasible)
	sort.Strings(a.Top)
	if len(a.Feasible) != res.FeasibleNodes {
		return a, fmt.Errorf("upstream: recorded %d feasible nodes, SchedulePod found %d", len(a.Feasible), res.FeasibleNodes)
	}
	return a, nil
}

// Bind adds the pod to the cache on the node, as an assumed-then-bound pod
// ends up.
func (u *Upstream) Bind(pod *corev1.Pod, node string) error {
	p := pod.DeepCopy()
	p.Spec.NodeName = node
	return u.sched.Cache.AddPod(u.logger, p)
}
