package schedfidelity

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestMain(m *testing.M) {
	QuietUpstream()
	os.Exit(m.Run())
}

// Pinned cases: each is a disagreement the harness found between
// sim/scheduler and upstream's framework, fixed on our side; the test
// keeps both schedulers agreeing on it (docs/fidelity.md, "Scheduler").

func node(name, zone, cpu, mem string, taints ...corev1.Taint) *corev1.Node {
	labels := map[string]string{LabelHostname: name}
	if zone != "" {
		labels[LabelZone], labels[LabelRegion] = zone, Region
	}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods: resource.MustParse("110")}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels},
		Spec: corev1.NodeSpec{Taints: taints}, Status: corev1.NodeStatus{Allocatable: alloc, Capacity: alloc}}
}

func pod(name, app, cpu, mem string) *corev1.Pod {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	prio := int32(0)
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{SchedulerName: corev1.DefaultSchedulerName, Priority: &prio,
			Containers: []corev1.Container{{Name: "c", Image: "app", Resources: corev1.ResourceRequirements{Requests: req}}}}}
}

func on(p *corev1.Pod, n string) *corev1.Pod {
	p.Spec.NodeName = n
	return p
}

// agree runs the case and requires both schedulers to agree on every pod.
func agree(t *testing.T, c *Case) *Result {
	t.Helper()
	r, err := Compare(c, true)
	require.NoError(t, err)
	for _, p := range r.Pods {
		require.True(t, p.FeasibleEqual, "%s: feasible: upstream %v, ours %v", p.Pod, p.Up.Feasible, p.Ours.Feasible)
		require.True(t, p.TopEqual, "%s: top: upstream %v %v, ours %v %v", p.Pod, p.Up.Top, p.Up.Plugins, p.Ours.Top, p.Ours.Plugins)
		require.True(t, p.ChosenInTop, "%s: chosen %q not in %v", p.Pod, p.Ours.Chosen, p.Up.Top)
		require.Equal(t, p.Up.Message, p.Ours.Message, p.Pod)
	}
	return r
}

// Upstream names no taint since 1.35: "node(s) had untolerated taint(s)".
func TestPinnedTaintMessage(t *testing.T) {
	c := &Case{Name: "taints", Percentage: 100, Nodes: []*corev1.Node{
		node("a", "z1", "4", "8Gi", corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}),
		node("b", "z1", "4", "8Gi", corev1.Taint{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}),
	}, Pods: []*corev1.Pod{pod("p", "web", "1", "1Gi")}}
	r := agree(t, c)
	require.Equal(t, "0/2 nodes are available: 2 node(s) had untolerated taint(s).", r.Pods[0].Ours.Message)
}

// InterPodAffinity's Filter checks the pod's affinity, then its
// anti-affinity, then the existing pods' anti-affinity, and reports the
// first that fails.
func TestPinnedInterPodAffinityReasonOrder(t *testing.T) {
	anti := func(p *corev1.Pod, app string) *corev1.Pod {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: LabelHostname}}}}
		return p
	}
	c := &Case{Name: "interpod", Percentage: 100, Nodes: []*corev1.Node{node("a", "z1", "4", "8Gi"), node("b", "z2", "4", "8Gi")},
		Existing: []*corev1.Pod{on(anti(pod("db-0", "db", "100m", ""), "db"), "a"), on(anti(pod("db-1", "db", "100m", ""), "db"), "b")},
		Pods:     []*corev1.Pod{anti(pod("db-2", "db", "100m", ""), "db")}}
	r := agree(t, c)
	require.Equal(t, "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.", r.Pods[0].Ours.Message)
}

// A pod with required affinity to its own kind, first of its group, may
// go only to nodes that have the term's topology key.
func TestPinnedSelfAffinityNeedsTheKey(t *testing.T) {
	p := pod("cache-0", "cache", "100m", "")
	p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, TopologyKey: LabelZone}}}}
	c := &Case{Name: "self-affinity", Percentage: 100, Nodes: []*corev1.Node{node("nozone", "", "4", "8Gi"), node("a", "z1", "4", "8Gi")}, Pods: []*corev1.Pod{p}}
	r := agree(t, c)
	require.Equal(t, []string{"a"}, r.Pods[0].Ours.Feasible)
}

// NodeResourcesBalancedAllocation scores the change of balance the pod
// makes (since 1.36): a node the pod evens out beats an empty one.
func TestPinnedBalancedAllocationScoresTheChange(t *testing.T) {
	c := &Case{Name: "balanced", Percentage: 100, Nodes: []*corev1.Node{node("cpu-heavy", "z1", "4", "4Gi"), node("empty", "z1", "4", "4Gi"), node("even", "z1", "4", "4Gi")},
		Existing: []*corev1.Pod{on(pod("cpu", "batch", "2", ""), "cpu-heavy"), on(pod("both", "batch", "1", "1Gi"), "even")},
		Pods:     []*corev1.Pod{pod("mem", "db", "", "2Gi"), pod("web", "web", "500m", "512Mi")}}
	agree(t, c)
}

// With percentageOfNodesToScore below 100, a cycle stops at the first
// feasible node past its quota and the next starts there: rejected nodes
// in between are skipped. 200 nodes, quota 100, nodes 100-109 tainted.
func TestPinnedSampledScanStopsPastTheQuota(t *testing.T) {
	c := &Case{Name: "past-quota", Percentage: 0}
	for i := range 200 {
		var taints []corev1.Taint
		if i >= 100 && i < 110 {
			taints = []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectNoSchedule}}
		}
		c.Nodes = append(c.Nodes, node(fmt.Sprintf("n%03d", i), "z1", "4", "8Gi", taints...))
	}
	for i := range 4 {
		c.Pods = append(c.Pods, pod(fmt.Sprintf("p%d", i), "web", "100m", "128Mi"))
	}
	agree(t, c)
}

// Upstream's node tree lists the nodes zone by zone in turn, so a sampled
// cycle over nodes added zone after zone sees every zone; nodes without a
// zone form a zone of their own.
func TestPinnedNodeTreeOrder(t *testing.T) {
	c := &Case{Name: "node-tree", Percentage: 0}
	for z := range 3 {
		for i := range 100 {
			zone := fmt.Sprint("z", z)
			if i%25 == 24 {
				zone = ""
			}
			c.Nodes = append(c.Nodes, node(fmt.Sprintf("n%d-%02d", z, i), zone, "4", "8Gi"))
		}
	}
	for i := range 6 {
		c.Pods = append(c.Pods, pod(fmt.Sprintf("p%d", i), "web", "100m", "128Mi"))
	}
	r := agree(t, c)
	zones := map[string]bool{}
	for _, n := range r.Pods[0].Ours.Feasible {
		zones[n[:2]] = true
	}
	require.Len(t, zones, 3, "the first sample holds nodes of every zone")
}

// A few generated cases agree in full.
func TestGeneratedCasesAgree(t *testing.T) {
	for _, c := range Generate(1, 8) {
		agree(t, c)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(5, 12), Generate(5, 12)
	require.Equal(t, a, b)
	sampled := 0
	for _, c := range a {
		require.NotEmpty(t, c.Pods)
		if c.Percentage == 0 {
			sampled++
			require.Greater(t, len(c.Nodes), 100)
		}
	}
	require.Equal(t, 3, sampled)
}
