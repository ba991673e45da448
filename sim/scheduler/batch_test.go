package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// TestScoreAllMatchesScore checks every plugin's batch scoring against
// its Score, node by node, under each scoring strategy and resource list,
// on random nodes (some with no cpu or memory, some full) and pods, over
// rounds of binds and deletions (the resource score caches must follow
// them), pods of a spec twice in a row and specs alternating.
func TestScoreAllMatchesScore(t *testing.T) {
	shape := []ShapePoint{{0, 0}, {50, 7}, {100, 10}}
	profiles := []Profile{DefaultProfile()}
	for i, args := range []PluginArgs{
		{ScoringStrategy: MostAllocated},
		{ScoringStrategy: RequestedToCapacityRatio, Shape: shape},
		{ScoringStrategy: LeastAllocated, Resources: []ResourceWeight{{"cpu", 3}, {"memory", 1}}},
		{ScoringStrategy: LeastAllocated, Resources: []ResourceWeight{{"memory", 2}, {"cpu", 1}}},
		{ScoringStrategy: LeastAllocated, Resources: []ResourceWeight{{"cpu", 1}, {"memory", 1}, {"pods", 2}}},
		{ScoringStrategy: LeastAllocated, Resources: []ResourceWeight{{"cpu", 1}}},
	} {
		p := DefaultProfile()
		p.SchedulerName = fmt.Sprint("s", i)
		p.Args = args
		profiles = append(profiles, p)
	}
	h := newHarness(t, 1, Config{Profiles: profiles})
	rng := rand.New(rand.NewPCG(1, 2))
	prefer := corev1.Taint{Key: "soft", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}
	for i := range 80 {
		var alloc cluster.Resources
		alloc[cluster.CPU] = []int64{0, 2000, 8000, 96000}[rng.IntN(4)]
		alloc[cluster.Memory] = []int64{0, 4 << 30, 32 << 30}[rng.IntN(3)]
		alloc[cluster.Pods] = 110
		labels := cluster.CompileLabels(h.cl.Syms, map[string]string{"topology.kubernetes.io/zone": fmt.Sprint("z", rng.IntN(3)), "pool": fmt.Sprint("p", rng.IntN(2))})
		n := cluster.Node{Name: fmt.Sprint("n", i), Labels: labels, Allocatable: alloc, State: cluster.NodeReady}
		if rng.IntN(3) == 0 {
			ct, err := cluster.CompileTaint(h.cl.Syms, prefer)
			require.NoError(t, err)
			n.Taints = []cluster.Taint{ct}
		}
		h.cl.AddNode(n)
	}
	var specs []*cluster.PodSpec
	for i := range 12 {
		spec := podSpec(fmt.Sprintf("%dm", []int{0, 100, 1500, 7000}[i%4]), fmt.Sprintf("%dMi", []int{0, 512, 6000}[i%3]))
		if i%3 == 1 {
			spec.Containers[0].Resources.Requests[corev1.ResourcePods] = resource.MustParse("1")
		}
		if i%2 == 0 {
			spec.Affinity = &corev1.Affinity{
				NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 5, Preference: corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"p1"}}}}}}},
				PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, TopologyKey: "topology.kubernetes.io/zone"}}}},
			}
		}
		if i%4 == 3 {
			spec.Tolerations = []corev1.Toleration{{Key: "soft", Operator: corev1.TolerationOpExists}}
		}
		cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: map[string]string{"app": "a"}, Spec: &spec,
			Priority: func(string) (int32, bool, bool) { return 0, false, true }})
		require.NoError(t, err)
		sel, err := cluster.CompileLabelSelector(h.cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}})
		require.NoError(t, err)
		cs.OwnerSelector = &sel
		specs = append(specs, cs)
	}
	// Fill nodes to random levels, then bind and delete at random between
	// rounds.
	ns := h.cl.Syms.Intern("default")
	var bound []cluster.PodID
	fill := func(nid cluster.NodeID, pods int) {
		for range pods {
			id := h.cl.CreatePod(cluster.Pod{Name: "f", Namespace: ns, Spec: specs[1+rng.IntN(3)], Workload: -1})
			h.s.dequeue(id)
			n := &h.cl.Nodes[nid]
			if !h.cl.Pods[id].Spec.Requests.Fits(n.Free()) {
				continue
			}
			h.cl.Bind(id, nid)
			bound = append(bound, id)
		}
	}
	for _, nid := range h.s.Nodes() {
		fill(nid, rng.IntN(6))
	}
	nodes := h.s.Nodes()
	compared := 0
	for round := range 6 {
		for range 20 {
			if rng.IntN(2) == 0 && len(bound) > 0 {
				i := rng.IntN(len(bound))
				h.cl.DeletePod(bound[i], cluster.CauseEvicted)
				bound = append(bound[:i], bound[i+1:]...)
				continue
			}
			fill(nodes[rng.IntN(len(nodes))], 1)
		}
		var order []int
		for _, si := range rng.Perm(len(specs)) {
			order = append(order, si)
			if round%2 == 1 {
				order = append(order, si) // the cache's entries hit
			}
		}
		for _, p := range profiles {
			fw := h.s.fws[p.SchedulerName]
			for _, si := range order {
				spec := specs[si]
				id := h.cl.CreatePod(cluster.Pod{Name: "x", Namespace: ns, Spec: spec, Workload: -1})
				h.s.dequeue(id)
				cs := CycleState{Pod: id, Spec: spec, Namespace: ns}
				feasible := append([]cluster.NodeID(nil), nodes...)
				rng.Shuffle(len(feasible), func(i, j int) { feasible[i], feasible[j] = feasible[j], feasible[i] })
				feasible = feasible[:2+rng.IntN(len(feasible)-1)]
				for k, sp := range fw.scorers {
					b := fw.batch[k]
					require.NotNil(t, b, sp.Name())
					if pre := fw.scorePre[k]; pre != nil && pre.PreScore(&cs, feasible) {
						continue
					}
					want := make([]int64, len(feasible))
					for i, nid := range feasible {
						want[i] = sp.Score(&cs, nid, &h.cl.Nodes[nid])
					}
					if pre := fw.scorePre[k]; pre != nil {
						pre.PreScore(&cs, feasible)
					}
					got := make([]int64, len(feasible))
					b.scoreAll(&cs, h.cl.Nodes, feasible, got)
					require.Equal(t, want, got, "%s %s", p.SchedulerName, sp.Name())
					compared++
				}
			}
		}
	}
	require.Greater(t, compared, 1000)
}
