package karpenter

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// BenchmarkProvision is one provisioning solve of a batch of mixed pods
// against a NodePool of 400 instance types: the shape of Karpenter's own
// scheduling benchmark (KC scheduling_benchmark_test.go makeDiversePods:
// plain pods, zone spread, hostname anti-affinity and zone self-affinity,
// with its random cpu, memory and label values).
func BenchmarkProvision(b *testing.B) {
	for _, n := range []int{5000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) { benchProvision(b, n) })
	}
}

func benchProvision(b *testing.B, count int) {
	h := newHarness(b)
	k := newWideKarpenter(h)
	pods := diversePods(h, count)
	b.ResetTimer()
	var nodes int
	for i := 0; i < b.N; i++ {
		s := k.solvers.NewSolver(pods, scheduling.SolveOpts{})
		s.Solve(pods)
		if len(s.Failed) > 0 {
			b.Fatalf("%d pods failed", len(s.Failed))
		}
		nodes = len(s.Claims)
	}
	b.StopTimer()
	b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(nodes), "nodes")
}

type nopEvictor struct{}

func (nopEvictor) Evict(cluster.PodID, cluster.DeleteCause) bool { return true }
func (nopEvictor) Blocked(cluster.PodID) bool                    { return false }
func (nopEvictor) HasBudgets() bool                              { return false }
func (nopEvictor) FullyBlocked(cluster.PodID) bool               { return false }

// diversePods creates count pending pods, a quarter of each kind.
func diversePods(h *harness, count int) []cluster.PodID {
	rng := rand.New(rand.NewPCG(42, 42))
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	cpus := []string{"100m", "250m", "500m", "1", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	specs := map[string]*cluster.PodSpec{}
	var pods []cluster.PodID
	for i := 0; i < count; i++ {
		kind := i * 4 / count
		cpu, mem := cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))]
		labels := map[string]string{"my-label": values[rng.IntN(len(values))]}
		var sel string
		switch kind {
		case 1:
			sel = values[rng.IntN(len(values))]
		case 2:
			labels = map[string]string{"app": "nginx"}
		case 3:
			labels = map[string]string{"my-affinity": values[rng.IntN(len(values))]}
		}
		key := fmt.Sprint(kind, cpu, mem, labels, sel)
		spec, ok := specs[key]
		if !ok {
			ps := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}
			switch kind {
			case 1:
				ps.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"my-label": sel}}}}
			case 2:
				ps.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: "kubernetes.io/hostname"}}}}
			case 3:
				ps.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: "topology.kubernetes.io/zone"}}}}
			}
			cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: labels, Spec: &ps})
			if err != nil {
				panic(err)
			}
			spec = cs
			specs[key] = spec
		}
		id := h.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("p-%d", i), Namespace: h.cl.Syms.Intern("default"), Spec: spec, Workload: -1})
		h.cl.MarkUnschedulable(id)
		pods = append(pods, id)
	}
	return pods
}
