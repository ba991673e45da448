package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

func zoned(zone string, extra map[string]string) map[string]string {
	m := map[string]string{"topology.kubernetes.io/zone": zone}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// podL creates a pod with labels.
func (h *harness) podL(name string, labels map[string]string, spec corev1.PodSpec) cluster.PodID {
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: labels, Spec: &spec,
		Priority: func(string) (int32, bool, bool) { return 0, false, true }})
	require.NoError(h.t, err)
	return h.cl.CreatePod(cluster.Pod{Name: name, Namespace: h.cl.Syms.Intern("default"), Spec: cs, Workload: -1})
}

// bindTo binds a pod to a named node directly (bypassing the scheduler).
func (h *harness) bindTo(p cluster.PodID, node string) {
	for i := range h.cl.Nodes {
		if h.cl.Nodes[i].Name == node {
			h.s.dequeue(p)
			h.cl.Bind(p, cluster.NodeID(i))
			return
		}
	}
	h.t.Fatalf("no node %s", node)
}

func spreadSpec(key string, maxSkew int32, hard bool, minDomains *int32) corev1.PodSpec {
	spec := podSpec("100m", "100Mi")
	w := corev1.ScheduleAnyway
	if hard {
		w = corev1.DoNotSchedule
	}
	spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: w, MinDomains: minDomains,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}
	return spec
}

func TestSpreadSkewCounting(t *testing.T) {
	// Zones a, b, c with 3, 1, 0 matching pods (one non-matching pod in c
	// must not count). maxSkew 1: only zone c is allowed (0+1-0 <= 1);
	// a gives 3+1-0, b gives 1+1-0 = 2.
	h := newHarness(t, 1, Config{})
	h.node("a1", 8000, 16384, zoned("a", nil))
	h.node("a2", 8000, 16384, zoned("a", nil))
	h.node("b1", 8000, 16384, zoned("b", nil))
	h.node("c1", 8000, 16384, zoned("c", nil))
	for _, n := range []string{"a1", "a1", "a2", "b1"} {
		h.bindTo(h.podL("m", map[string]string{"app": "a"}, podSpec("100m", "100Mi")), n)
	}
	h.bindTo(h.podL("other", map[string]string{"app": "b"}, podSpec("100m", "100Mi")), "c1")
	p := h.podL("new", map[string]string{"app": "a"}, spreadSpec("topology.kubernetes.io/zone", 1, true, nil))
	h.eng.Run(time.Second)
	require.Equal(t, "c1", h.nodeOf(p))

	// With maxSkew 2, zone b is allowed too (1+1-0 = 2), a still is not.
	seen := map[string]bool{}
	for range 20 {
		h2 := newHarness(t, uint64(len(seen)+7), Config{})
		h2.node("a1", 8000, 16384, zoned("a", nil))
		h2.node("b1", 8000, 16384, zoned("b", nil))
		h2.node("c1", 8000, 16384, zoned("c", nil))
		for _, n := range []string{"a1", "a1", "a1", "b1"} {
			h2.bindTo(h2.podL("m", map[string]string{"app": "a"}, podSpec("100m", "100Mi")), n)
		}
		q := h2.podL("new", map[string]string{"app": "a"}, spreadSpec("topology.kubernetes.io/zone", 2, true, nil))
		h2.eng.Run(time.Second)
		seen[h2.nodeOf(q)] = true
	}
	require.False(t, seen["a1"])
}

func TestSpreadMissingLabelAndMinDomains(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("nolabel", 8000, 16384, nil)
	h.node("a1", 8000, 16384, zoned("a", nil))
	h.bindTo(h.podL("m", map[string]string{"app": "a"}, podSpec("100m", "100Mi")), "a1")
	// minDomains 2 with a single zone: the global minimum is taken as 0,
	// so a1 (1 matching + 1 self - 0 = 2 > 1) fails.
	two := int32(2)
	p := h.podL("new", map[string]string{"app": "a"}, spreadSpec("topology.kubernetes.io/zone", 1, true, &two))
	h.eng.Run(time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
	require.Equal(t, "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) didn't match pod topology spread constraints (missing required label).",
		h.s.LastFailure(p))
	// Without minDomains the only domain is the minimum: skew 1+1-1 = 1 fits.
	q := h.podL("ok", map[string]string{"app": "a"}, spreadSpec("topology.kubernetes.io/zone", 1, true, nil))
	h.eng.Run(2 * time.Second)
	require.Equal(t, "a1", h.nodeOf(q))
}

func TestSpreadNodeAffinityPolicy(t *testing.T) {
	// Zone b's node does not match the pod's nodeSelector: with the default
	// Honor policy zone b is not a domain, so zone a (count 1) is the
	// minimum and the pod may go there.
	h := newHarness(t, 1, Config{})
	h.node("a1", 8000, 16384, zoned("a", map[string]string{"pool": "x"}))
	h.node("b1", 8000, 16384, zoned("b", map[string]string{"pool": "y"}))
	h.bindTo(h.podL("m", map[string]string{"app": "a"}, podSpec("100m", "100Mi")), "a1")
	spec := spreadSpec("topology.kubernetes.io/zone", 1, true, nil)
	spec.NodeSelector = map[string]string{"pool": "x"}
	p := h.podL("new", map[string]string{"app": "a"}, spec)
	h.eng.Run(time.Second)
	require.Equal(t, "a1", h.nodeOf(p))

	// With Ignore, zone b counts (0 pods), the minimum is 0 and a1 fails.
	h = newHarness(t, 1, Config{})
	h.node("a1", 8000, 16384, zoned("a", map[string]string{"pool": "x"}))
	h.node("b1", 8000, 16384, zoned("b", map[string]string{"pool": "y"}))
	h.bindTo(h.podL("m", map[string]string{"app": "a"}, podSpec("100m", "100Mi")), "a1")
	ignore := corev1.NodeInclusionPolicyIgnore
	spec.TopologySpreadConstraints[0].NodeAffinityPolicy = &ignore
	p = h.podL("new", map[string]string{"app": "a"}, spec)
	h.eng.Run(time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
}

func TestSpreadScoreAndSystemDefaults(t *testing.T) {
	// ScheduleAnyway prefers the emptier zone.
	h := newHarness(t, 3, Config{})
	h.node("a1", 8000, 16384, zoned("a", nil))
	h.node("b1", 8000, 16384, zoned("b", nil))
	for range 3 {
		h.bindTo(h.podL("m", map[string]string{"app": "a"}, podSpec("100m", "100Mi")), "a1")
	}
	p := h.podL("new", map[string]string{"app": "a"}, spreadSpec("topology.kubernetes.io/zone", 1, false, nil))
	h.eng.Run(time.Second)
	require.Equal(t, "b1", h.nodeOf(p))

	// Pods of a controller with no constraints get the system defaults
	// (hostname and zone, ScheduleAnyway): replicas spread over hosts.
	h = newHarness(t, 5, Config{})
	for _, n := range []string{"n1", "n2", "n3"} {
		h.node(n, 8000, 16384, zoned("a", nil))
	}
	sel, err := cluster.CompileLabelSelector(h.cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
	require.NoError(t, err)
	spec := podSpec("0", "0") // no requests: resource scores are equal everywhere
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: map[string]string{"app": "web"}, Spec: &spec,
		Priority: func(string) (int32, bool, bool) { return 0, false, true }})
	require.NoError(t, err)
	cs.OwnerSelector = &sel
	count := map[string]int{}
	for range 6 {
		id := h.cl.CreatePod(cluster.Pod{Name: "w", Namespace: h.cl.Syms.Intern("default"), Spec: cs, Workload: -1})
		h.eng.Run(h.eng.Now() + time.Second)
		count[h.nodeOf(id)]++
	}
	require.Equal(t, map[string]int{"n1": 2, "n2": 2, "n3": 2}, count)
}

func antiSpec(key string, required bool) corev1.PodSpec {
	spec := podSpec("100m", "100Mi")
	term := corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: key}
	if required {
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
	} else {
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}}}
	}
	return spec
}

func TestRequiredAntiAffinityOnePerHost(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("n1", 8000, 16384, nil)
	h.node("n2", 8000, 16384, nil)
	var pods []cluster.PodID
	for range 3 {
		pods = append(pods, h.podL("db", map[string]string{"app": "db"}, antiSpec("kubernetes.io/hostname", true)))
		h.eng.Run(h.eng.Now() + time.Second)
	}
	require.NotEqual(t, h.nodeOf(pods[0]), h.nodeOf(pods[1]))
	require.Equal(t, cluster.Pending, h.cl.Pods[pods[2]].Phase)
	// The pod's own anti-affinity is checked before the existing pods',
	// as upstream does.
	require.Equal(t, "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", h.s.LastFailure(pods[2]))

	// Symmetry: a pod without terms that the existing pods' anti-affinity
	// selects is kept away too.
	plain := h.podL("plain-db", map[string]string{"app": "db"}, podSpec("100m", "100Mi"))
	h.eng.Run(h.eng.Now() + time.Second)
	require.Equal(t, "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.", h.s.LastFailure(plain))

	// Deleting one frees its host (PodUnassigned is one of the plugin's events).
	h.cl.DeletePod(pods[0], cluster.CauseScaleDown)
	h.eng.Run(h.eng.Now() + 20*time.Second)
	require.NotEqual(t, cluster.Pending, h.cl.Pods[pods[2]].Phase)
}

func TestRequiredAffinityAndSelfAffinity(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("a1", 8000, 16384, zoned("a", nil))
	h.node("b1", 8000, 16384, zoned("b", nil))
	spec := podSpec("100m", "100Mi")
	spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, TopologyKey: "topology.kubernetes.io/zone"}}}}
	// The first pod with affinity to its own kind may go anywhere.
	first := h.podL("c1", map[string]string{"app": "cache"}, spec)
	h.eng.Run(time.Second)
	require.NotEqual(t, cluster.Pending, h.cl.Pods[first].Phase)
	zone := h.nodeOf(first)
	for range 4 {
		id := h.podL("c", map[string]string{"app": "cache"}, spec)
		h.eng.Run(h.eng.Now() + time.Second)
		require.Equal(t, zone, h.nodeOf(id), "followers join the first pod's zone")
	}
	// A pod that requires affinity to pods that do not exist waits.
	lonely := h.podL("web", map[string]string{"app": "web"}, spec)
	h.eng.Run(h.eng.Now() + time.Second)
	require.NotEqual(t, cluster.Pending, h.cl.Pods[lonely].Phase, "cache pods exist, so web may join them")
	other := podSpec("100m", "100Mi")
	other.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nothing"}}, TopologyKey: "topology.kubernetes.io/zone"}}}}
	w := h.podL("w2", map[string]string{"app": "web"}, other)
	h.eng.Run(h.eng.Now() + time.Second)
	require.Equal(t, "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.", h.s.LastFailure(w))
}

// TestSelfAffinityNeedsTheTopologyKey: the first pod of a group with
// affinity to itself may go anywhere that has the term's topology key; a
// node without a zone label is rejected (upstream: "All topology labels
// must exist on the node - also in case of self-affinity").
func TestSelfAffinityNeedsTheTopologyKey(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("nozone", 8000, 16384, nil)
	h.node("a1", 8000, 16384, zoned("a", nil))
	spec := podSpec("100m", "100Mi")
	spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, TopologyKey: "topology.kubernetes.io/zone"}}}}
	first := h.podL("c1", map[string]string{"app": "cache"}, spec)
	ev, err := h.s.Evaluate(first, false)
	require.NoError(t, err)
	require.Equal(t, []cluster.NodeID{1}, ev.Feasible)
}

func TestPreferredAntiAffinityScore(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("n1", 8000, 16384, nil)
	h.node("n2", 8000, 16384, nil)
	h.bindTo(h.podL("db", map[string]string{"app": "db"}, podSpec("100m", "100Mi")), "n1")
	for range 5 {
		p := h.podL("x", map[string]string{"app": "x"}, antiSpec("kubernetes.io/hostname", false))
		h.eng.Run(h.eng.Now() + time.Second)
		require.Equal(t, "n2", h.nodeOf(p))
		h.cl.DeletePod(p, cluster.CauseScaleDown)
	}
}

func TestBalancedAllocationScore(t *testing.T) {
	h := newHarness(t, 1, Config{})
	n1 := h.node("n1", 4000, 4096, nil)
	h.node("n2", 4000, 4096, nil)
	// n1 is CPU-heavy already; a memory-heavy pod balances it.
	h.bindTo(h.podL("cpu", nil, podSpec("2", "0")), "n1")
	f := &balancedAllocation{resources: []scoredResource{{cluster.CPU, 1}, {cluster.Memory, 1}}}
	specMem, _, _ := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Spec: ptr(podSpec("0", "2Gi"))})
	cs := &CycleState{Spec: specMem}
	// n1: with the pod cpu 2000/4000 = .5, mem 2048/4096 = .5 -> std 0 ->
	// balance 100; without it cpu .5, mem 0 -> std .25 -> 75; the score
	// is 50 + (50 + 100 - 75) / 2 = 87 (integer division).
	require.Equal(t, int64(87), f.Score(cs, n1, &h.cl.Nodes[n1]))
	// n2: with cpu 0, mem .5 -> 75; without 100: 50 + (50 + 75 - 100) / 2.
	require.Equal(t, int64(62), f.Score(cs, 1, &h.cl.Nodes[1]))
	require.True(t, f.PreScore(&CycleState{Spec: &cluster.PodSpec{}}, nil), "best-effort pods are not scored")
}

func ptr[T any](v T) *T { return &v }

func TestRequestedToCapacityRatioShape(t *testing.T) {
	p := &nodeResourcesFit{strategy: RequestedToCapacityRatio,
		shape: []ShapePoint{{0, 10}, {100, 0}}, resources: []scoredResource{{cluster.CPU, 1}}}
	// A shape from 10 down to 0 behaves like LeastAllocated.
	require.Equal(t, int64(100), p.shapeScore(0))
	require.Equal(t, int64(50), p.shapeScore(50))
	require.Equal(t, int64(0), p.shapeScore(100))
	p.shape = []ShapePoint{{20, 2}, {80, 8}}
	require.Equal(t, int64(20), p.shapeScore(10), "below the first point: its score")
	require.Equal(t, int64(50), p.shapeScore(50))
	require.Equal(t, int64(80), p.shapeScore(95), "above the last point: its score")
}

func TestQueueingHints(t *testing.T) {
	// A pod rejected only by a taint is not retried when another pod is
	// bound or deleted, only on node events.
	h := newHarness(t, 1, Config{})
	h.node("t", 8000, 16384, nil, corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule})
	p := h.pod("p", podSpec("100m", "100Mi"))
	h.eng.Run(time.Second)
	require.Equal(t, int32(1), h.s.Attempts(p))
	other := h.pod("o", withTol(podSpec("100m", "100Mi")))
	h.eng.Run(30 * time.Second)
	h.cl.DeletePod(other, cluster.CauseScaleDown)
	h.eng.Run(60 * time.Second)
	require.Equal(t, int32(1), h.s.Attempts(p), "pod events do not help a taint")
	h.cl.RemoveTaint(0, h.cl.Syms.Intern("k"), cluster.EffectNoSchedule)
	h.eng.Run(61 * time.Second)
	require.Equal(t, cluster.Bound, h.cl.Pods[p].Phase, "a node update does")
}

func withTol(spec corev1.PodSpec) corev1.PodSpec {
	spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	return spec
}

func TestPreemption(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("n1", 2000, 8192, nil)
	h.node("n2", 2000, 8192, nil)
	// n1 holds two low pods (priority 1 and 5), n2 one medium pod (10).
	lowA := h.podWithPriority("lowA", podSpec("1", "1Gi"), 1)
	lowB := h.podWithPriority("lowB", podSpec("1", "1Gi"), 5)
	mid := h.podWithPriority("mid", podSpec("2", "1Gi"), 10)
	h.bindTo(lowA, "n1")
	h.bindTo(lowB, "n1")
	h.bindTo(mid, "n2")
	// A priority-100 pod needing 1 CPU: evicting lowA alone is enough, and
	// is cheaper than evicting mid (priority 10).
	high := h.podWithPriority("high", podSpec("1", "1Gi"), 100)
	h.eng.Run(time.Second)
	require.True(t, h.cl.Pods[lowA].Terminating, "the least important sufficient victim")
	require.False(t, h.cl.Pods[lowB].Terminating)
	require.False(t, h.cl.Pods[mid].Terminating)
	require.Equal(t, uint64(1), h.s.Stats().Preemptions)
	require.True(t, h.cl.Pods[high].Preempting, "nominated: the autoscalers leave it alone")
	// The victim keeps its room for its 30s grace; then the pod lands.
	h.eng.Run(29 * time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[high].Phase)
	require.True(t, h.cl.Pods[high].Preempting)
	require.Equal(t, uint64(1), h.s.Stats().Preemptions, "no second preemption while victims terminate")
	h.eng.Run(32 * time.Second)
	require.Equal(t, "n1", h.nodeOf(high))
	require.False(t, h.cl.Pods[high].Preempting, "bound: the nomination is cleared")
	require.Equal(t, cluster.CausePreempted, h.cl.Pods[lowA].Cause)

	// preemptionPolicy: Never waits instead.
	never := corev1.PreemptNever
	spec := podSpec("2", "1Gi")
	spec.PreemptionPolicy = &never
	waiter := h.podWithPriority("waiter", spec, 1000)
	h.eng.Run(40 * time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[waiter].Phase)
	require.False(t, h.cl.Pods[waiter].Preempting)
	require.Equal(t, uint64(1), h.s.Stats().Preemptions)
}

// A nomination is cleared when a later attempt finds nothing to preempt
// (upstream's PostFilter returns an empty nominated node), and the pod is
// then the autoscalers' again: they see PodUnschedulable anew.
func TestNominationClearedWhenNothingToPreempt(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.node("n1", 2000, 8192, nil)
	low := h.podWithPriority("low", podSpec("2", "1Gi"), 1)
	h.bindTo(low, "n1")
	high := h.podWithPriority("high", podSpec("2", "1Gi"), 100)
	h.eng.Run(time.Second)
	require.True(t, h.cl.Pods[low].Terminating)
	require.True(t, h.cl.Pods[high].Preempting)
	// Before high retries, an equally important pod takes the room freed
	// by the victim: nothing of lower priority is left to preempt.
	rival := h.podWithPriority("rival", podSpec("2", "1Gi"), 100)
	h.cl.DeletePod(low, cluster.CausePreempted)
	h.bindTo(rival, "n1")
	seen := &unschedulableSeen{}
	h.cl.Watch(seen)
	h.eng.Run(10 * time.Minute)
	require.Equal(t, cluster.Pending, h.cl.Pods[high].Phase)
	require.False(t, h.cl.Pods[high].Preempting, "no candidate: the nomination is cleared")
	require.Contains(t, seen.pods, high, "and the autoscalers are told")
}

type unschedulableSeen struct{ pods []cluster.PodID }

func (u *unschedulableSeen) OnChange(c cluster.Change) {
	if c.Kind == cluster.PodUnschedulable {
		u.pods = append(u.pods, c.Pod)
	}
}

func TestPreemptionRespectsPDB(t *testing.T) {
	syms := cluster.NewSymbols()
	sel, err := cluster.CompileLabelSelector(syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}})
	require.NoError(t, err)
	pdb := cluster.PDB{Namespace: syms.Intern("default"), Name: "g", Selector: sel, MaxUnavailable: &cluster.IntOrPercent{Value: 0}}
	h := newHarnessSyms(t, syms, Config{PDBs: []cluster.PDB{pdb}})
	h.node("n1", 1000, 8192, nil)
	h.node("n2", 1000, 8192, nil)
	guarded := h.podLP("g", map[string]string{"app": "guarded"}, podSpec("1", "1Gi"), 1)
	free := h.podLP("f", map[string]string{"app": "free"}, podSpec("1", "1Gi"), 5)
	h.bindTo(guarded, "n1")
	h.bindTo(free, "n2")
	h.eng.Run(10 * time.Second)
	h.podLP("high", nil, podSpec("1", "1Gi"), 100)
	h.eng.Run(11 * time.Second)
	require.False(t, h.cl.Pods[guarded].Terminating, "the budget protects the lower-priority pod")
	require.True(t, h.cl.Pods[free].Terminating, "the higher-priority but unprotected pod goes instead")
}
