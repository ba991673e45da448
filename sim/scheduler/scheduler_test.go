package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

type harness struct {
	t   *testing.T
	eng *engine.Engine
	cl  *cluster.Cluster
	s   *Scheduler
}

func newHarness(t *testing.T, seed uint64, cfg Config) *harness {
	return newHarnessSeeded(t, seed, cluster.NewSymbols(), cfg)
}

func newHarnessSyms(t *testing.T, syms *cluster.Symbols, cfg Config) *harness {
	return newHarnessSeeded(t, 1, syms, cfg)
}

func newHarnessSeeded(t *testing.T, seed uint64, syms *cluster.Symbols, cfg Config) *harness {
	eng := engine.New(seed)
	cl := cluster.New(eng, syms, cluster.NewResourceNames())
	s, err := New(eng, cl, cfg)
	require.NoError(t, err)
	return &harness{t: t, eng: eng, cl: cl, s: s}
}

// node adds a Ready node with cpu in millicores and memory in MiB.
func (h *harness) node(name string, cpu, memMiB int64, labels map[string]string, taints ...corev1.Taint) cluster.NodeID {
	var ct []cluster.Taint
	for _, t := range taints {
		c, err := cluster.CompileTaint(h.cl.Syms, t)
		require.NoError(h.t, err)
		ct = append(ct, c)
	}
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = cpu, memMiB<<20, 110
	return h.cl.AddNode(cluster.Node{Name: name, Labels: cluster.CompileLabels(h.cl.Syms, labels), Taints: ct, Allocatable: alloc, State: cluster.NodeReady})
}

func podSpec(cpu, mem string) corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}
}

func (h *harness) pod(name string, spec corev1.PodSpec) cluster.PodID {
	return h.podWithPriority(name, spec, 0)
}

func (h *harness) podWithPriority(name string, spec corev1.PodSpec, priority int32) cluster.PodID {
	return h.podLP(name, nil, spec, priority)
}

func (h *harness) podLP(name string, labels map[string]string, spec corev1.PodSpec, priority int32) cluster.PodID {
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: labels, Spec: &spec,
		Priority: func(string) (int32, bool, bool) { return priority, false, true }})
	require.NoError(h.t, err)
	return h.cl.CreatePod(cluster.Pod{Name: name, Namespace: h.cl.Syms.Intern("default"), Spec: cs, Workload: -1})
}

func (h *harness) nodeOf(p cluster.PodID) string {
	n := h.cl.Pods[p].Node
	if h.cl.Pods[p].Phase == cluster.Pending || n == cluster.NoNode {
		return ""
	}
	return h.cl.Nodes[n].Name
}

func TestLeastAllocatedSpreadsPods(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("a", 4000, 8192, nil)
	h.node("b", 4000, 8192, nil)
	var pods []cluster.PodID
	for _, n := range []string{"p1", "p2", "p3", "p4"} {
		pods = append(pods, h.pod(n, podSpec("1", "1Gi")))
	}
	h.eng.Run(time.Second)
	count := map[string]int{}
	for _, p := range pods {
		count[h.nodeOf(p)]++
	}
	require.Equal(t, map[string]int{"a": 2, "b": 2}, count, "LeastAllocated alternates between equal nodes")
}

func TestMostAllocatedPacks(t *testing.T) {
	p := DefaultProfile()
	p.Args.ScoringStrategy = MostAllocated
	h := newHarness(t, 1, Config{Profiles: []Profile{p}})
	h.node("a", 4000, 8192, nil)
	h.node("b", 4000, 8192, nil)
	first := h.pod("p0", podSpec("1", "1Gi"))
	h.eng.Run(time.Second)
	for _, n := range []string{"p1", "p2", "p3"} {
		id := h.pod(n, podSpec("1", "1Gi"))
		h.eng.Run(h.eng.Now() + time.Second)
		require.Equal(t, h.nodeOf(first), h.nodeOf(id), "MostAllocated fills the node already in use")
	}
}

func TestFiltersAndFitErrorMessage(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("small", 500, 8192, map[string]string{"tier": "batch"})
	h.node("tainted", 4000, 8192, map[string]string{"tier": "batch"}, corev1.Taint{Key: "capacity-type", Value: "on-demand", Effect: corev1.TaintEffectNoSchedule})
	h.node("other", 4000, 8192, map[string]string{"tier": "web"})
	cordoned := h.node("cordoned", 4000, 8192, map[string]string{"tier": "batch"})
	h.cl.SetCordon(cordoned, true)
	spec := podSpec("1", "1Gi")
	spec.NodeSelector = map[string]string{"tier": "batch"}
	p := h.pod("p", spec)
	h.eng.Run(time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
	require.True(t, h.cl.Pods[p].Unschedulable, "the PodScheduled=False/Unschedulable condition is set")
	require.Equal(t, "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable.",
		h.s.LastFailure(p))

	// Tolerating the taint makes the tainted node feasible.
	spec.Tolerations = []corev1.Toleration{{Key: "capacity-type", Operator: corev1.TolerationOpExists}}
	q := h.pod("q", spec)
	h.eng.Run(2 * time.Second)
	require.Equal(t, "tainted", h.nodeOf(q))
}

func TestRequiredNodeAffinity(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("a", 4000, 8192, map[string]string{"topology.kubernetes.io/zone": "us-east-1a", "gen": "5"})
	h.node("b", 4000, 8192, map[string]string{"topology.kubernetes.io/zone": "us-east-1b", "gen": "6"})
	spec := podSpec("100m", "100Mi")
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"5"}}}}}}}}
	for range 5 {
		p := h.pod("p", spec)
		h.eng.Run(h.eng.Now() + time.Second)
		require.Equal(t, "b", h.nodeOf(p))
	}
}

func TestPreferredAffinityAndPreferNoScheduleScore(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("plain", 4000, 8192, map[string]string{"disk": "hdd"})
	h.node("ssd", 4000, 8192, map[string]string{"disk": "ssd"})
	h.node("ssd-soft-tainted", 4000, 8192, map[string]string{"disk": "ssd"}, corev1.Taint{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule})
	spec := podSpec("100m", "100Mi")
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
		Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}}}
	p := h.pod("p", spec)
	h.eng.Run(time.Second)
	require.Equal(t, "ssd", h.nodeOf(p), "preferred affinity wins, the PreferNoSchedule taint breaks the tie")
}

// TestBackoffPoppedWhenActiveQueueEmpty: SchedulerPopFromBackoffQ (on
// by default since 1.33): a pod moved back by an event while its backoff
// runs waits in the backoff queue, but an idle scheduler (no active pod)
// pops it at once rather than at the end of its backoff.
func TestBackoffPoppedWhenActiveQueueEmpty(t *testing.T) {
	h := newHarness(t, 1, Config{})
	p := h.pod("p", podSpec("1", "1Gi"))
	h.eng.Run(0) // first attempt at t=0 fails: no nodes
	require.Equal(t, "0/0 nodes are available.", h.s.LastFailure(p))
	// A node appears at 300ms: the pod moves to backoff (until t=1s) and,
	// the active queue being empty, is tried at once.
	h.eng.Run(300 * time.Millisecond)
	h.node("a", 4000, 8192, nil)
	h.eng.Run(300 * time.Millisecond)
	require.Equal(t, cluster.Bound, h.cl.Pods[p].Phase)
	require.Equal(t, 300*time.Millisecond, h.cl.Pods[p].BoundAt)
	require.Equal(t, uint64(2), h.s.Stats().Attempts)
}

// TestActiveQueueBeforeBackoff: a pod in backoff is tried only once the
// active queue is empty, whatever its priority: a new pod takes the one
// free slot first; the backed-off pod is then tried, fails, and waits for
// the next event.
func TestActiveQueueBeforeBackoff(t *testing.T) {
	h := newHarness(t, 1, Config{})
	high := h.podWithPriority("high", podSpec("1", "1Gi"), 1000)
	h.eng.Run(0)
	h.eng.Run(300 * time.Millisecond)
	low := h.pod("low", podSpec("1", "1Gi"))
	h.node("a", 1500, 8192, nil) // room for one
	h.eng.Run(300 * time.Millisecond)
	require.Equal(t, "a", h.nodeOf(low))
	require.Equal(t, cluster.Pending, h.cl.Pods[high].Phase)
	require.Equal(t, int32(2), h.s.Attempts(high), "tried from the backoff queue after the active one")
	require.Equal(t, "0/1 nodes are available: 1 Insufficient cpu.", h.s.LastFailure(high))
	h.eng.Run(10 * time.Second)
	require.Equal(t, int32(2), h.s.Attempts(high), "no event since: it waits in the unschedulable list")
}

func TestUnschedulablePodsRetryAfterFiveMinutes(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("tiny", 100, 8192, nil)
	p := h.pod("p", podSpec("1", "1Gi"))
	h.eng.Run(4 * time.Minute)
	require.Equal(t, uint64(1), h.s.Stats().Attempts, "no event: no retry before 5 minutes")
	h.eng.Run(5 * time.Minute)
	require.Equal(t, uint64(2), h.s.Stats().Attempts, "retried at 5 minutes")
	require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
}

func TestBackoffDoublesToMax(t *testing.T) {
	for attempts, want := range map[int32]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 40: 10 * time.Second} {
		require.Equal(t, want, backoff(attempts, DefaultInitialBackoff, DefaultMaxBackoff), "attempts %d", attempts)
	}
}

func TestHigherPriorityFirst(t *testing.T) {
	h := newHarness(t, 1, Config{})
	low := h.pod("low", podSpec("1", "1Gi"))
	high := h.podWithPriority("high", podSpec("1", "1Gi"), 1000)
	// Both are queued; one node with room for one pod arrives before the
	// first cycle runs.
	h.node("a", 1500, 8192, nil)
	h.eng.Run(time.Second)
	require.Equal(t, "a", h.nodeOf(high))
	require.Equal(t, cluster.Pending, h.cl.Pods[low].Phase)
}

func TestPodFreedRoomRequeues(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("a", 1500, 8192, nil)
	first := h.pod("first", podSpec("1", "1Gi"))
	h.eng.Run(time.Second)
	second := h.pod("second", podSpec("1", "1Gi"))
	h.eng.Run(30 * time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[second].Phase)
	h.cl.DeletePod(first, cluster.CauseScaleDown)
	h.eng.Run(31 * time.Second)
	require.Equal(t, "a", h.nodeOf(second), "a deleted pod frees room and moves unschedulable pods back at once")
	require.Equal(t, 30*time.Second, h.cl.Pods[second].BoundAt)
}

func TestTieBreakIsSeeded(t *testing.T) {
	place := func(seed uint64) []string {
		h := newHarness(t, seed, Config{})
		for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			h.node(n, 64000, 65536, nil)
		}
		var out []string
		for range 8 {
			p := h.pod("p", podSpec("0", "0"))
			h.eng.Run(h.eng.Now() + time.Second)
			out = append(out, h.nodeOf(p))
		}
		return out
	}
	require.Equal(t, place(7), place(7), "same seed, same placements")
	differ := false
	for seed := uint64(1); seed < 20 && !differ; seed++ {
		differ = !slices.Equal(place(seed), place(seed+100))
	}
	require.True(t, differ, "ties are broken by the seed, not by node order")
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	cases := []struct {
		pct  int32
		all  int
		want int
	}{
		{0, 50, 50},     // under 100 nodes: all
		{0, 150, 100},   // 49% of 150 = 73, raised to the minimum of 100
		{0, 1000, 420},  // 50 - 1000/125 = 42%
		{0, 5000, 500},  // 10%
		{0, 10000, 500}, // floor 5%
		{30, 1000, 300},
		{100, 5000, 5000},
	}
	for _, c := range cases {
		require.Equal(t, c.want, numFeasibleNodesToFind(c.pct, c.all), "%+v", c)
	}
}

func TestUnknownSchedulerNameStaysPending(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("a", 4000, 8192, nil)
	spec := podSpec("100m", "100Mi")
	spec.SchedulerName = "my-scheduler"
	p := h.pod("p", spec)
	h.eng.Run(time.Minute)
	require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
	require.False(t, h.cl.Pods[p].Unschedulable, "no scheduler ever looked at it")
}

// A pod naming its node (DaemonSet pods) is evaluated on that node only;
// the others count as rejected by NodeName in the fit error.
func TestPodNamingItsNode(t *testing.T) {
	h := newHarness(t, 1, Config{})
	for _, n := range []string{"a", "b", "c", "d"} {
		h.node(n, 2000, 4096, nil)
	}
	spec := podSpec("500m", "256Mi")
	spec.NodeName = "c"
	before := h.s.Stats().NodesTested
	p := h.pod("ds-c", spec)
	h.eng.Run(time.Second)
	require.Equal(t, "c", h.nodeOf(p))
	require.Equal(t, uint64(1), h.s.Stats().NodesTested-before, "only the named node is evaluated")

	big := podSpec("3", "256Mi")
	big.NodeName = "b"
	q := h.pod("ds-b", big)
	missing := podSpec("100m", "64Mi")
	missing.NodeName = "gone"
	r := h.pod("ds-gone", missing)
	h.eng.Run(2 * time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[q].Phase)
	require.Equal(t, "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match the requested node name.", h.s.LastFailure(q))
	require.Equal(t, "0/4 nodes are available: 4 node(s) didn't match the requested node name.", h.s.LastFailure(r))
}

// A pod that names its node and is not a DaemonSet's never meets the real
// scheduler: the kubelet admits it on node name, resources and node
// affinity only, so a NoSchedule taint it does not tolerate and a cordon
// do not keep it off; too little room still does.
func TestNamedPodIsAdmittedAsTheKubeletDoes(t *testing.T) {
	h := newHarness(t, 1, Config{})
	tainted := h.node("tainted", 2000, 4096, nil, corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule})
	h.node("plain", 2000, 4096, nil)
	h.cl.SetCordon(tainted, true)
	spec := podSpec("500m", "256Mi")
	spec.NodeName = "tainted"
	p := h.pod("imported", spec)
	free := podSpec("500m", "256Mi")
	q := h.pod("scheduled", free)
	big := podSpec("3", "256Mi")
	big.NodeName = "tainted"
	r := h.pod("too-big", big)
	h.eng.Run(time.Second)
	require.Equal(t, "tainted", h.nodeOf(p))
	require.Equal(t, "plain", h.nodeOf(q), "a pod the scheduler places still avoids the taint and the cordon")
	require.Equal(t, cluster.Pending, h.cl.Pods[r].Phase)
	require.Equal(t, "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match the requested node name.", h.s.LastFailure(r))
}
