package scheduler

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

const benchPods = 10000

// benchCluster builds n nodes of 8 CPU / 32 GiB over three zones and three
// pools; a third of the nodes of every zone and pool carry a
// dedicated=batch:NoSchedule taint.
func benchCluster(b *testing.B, n int) (*engine.Engine, *cluster.Cluster, *Scheduler) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	s, err := New(eng, cl, Config{})
	if err != nil {
		b.Fatal(err)
	}
	taint, _ := cluster.CompileTaint(cl.Syms, corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule})
	for i := range n {
		labels := map[string]string{
			"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
			"pool":                        fmt.Sprintf("pool-%d", (i/3)%3),
		}
		var alloc cluster.Resources
		alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 8000, 32<<30, 110
		node := cluster.Node{Name: fmt.Sprintf("node-%d", i), Labels: cluster.CompileLabels(cl.Syms, labels), Allocatable: alloc, State: cluster.NodeReady}
		if (i/9)%3 == 2 {
			node.Taints = []cluster.Taint{taint}
		}
		cl.AddNode(node)
	}
	return eng, cl, s
}

// benchSpecs are ten templates: requests from 100m to 1 CPU, half tolerate
// the batch taint, a third select a pool.
func benchSpecs(b *testing.B, cl *cluster.Cluster, spread bool) []*cluster.PodSpec {
	var out []*cluster.PodSpec
	for t := range 10 {
		app := fmt.Sprintf("app-%d", t)
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(fmt.Sprintf("%dm", 100+100*(t%5))),
			corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dMi", 256*(1+t%4))),
		}}}}}
		if t%2 == 0 {
			spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
		}
		if t%3 == 0 {
			spec.NodeSelector = map[string]string{"pool": fmt.Sprintf("pool-%d", t%3)}
		}
		if spread {
			sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
			spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: sel, TopologyKey: "kubernetes.io/hostname"}}}}
		}
		cs, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: map[string]string{"app": app}, Spec: &spec,
			Priority: func(string) (int32, bool, bool) { return 0, false, true }})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, cs)
	}
	return out
}

func runSchedule(b *testing.B, nodes int, spread bool) {
	benchBinding(b, nodes, func(cl *cluster.Cluster) {
		specs := benchSpecs(b, cl, spread)
		ns := cl.Syms.Intern("default")
		for i := range benchPods {
			cl.CreatePod(cluster.Pod{Name: "p", Namespace: ns, Spec: specs[i%len(specs)], Workload: -1})
		}
	})
}

// benchBinding times the binding of benchPods pods, which fill creates in a
// fresh cluster of nodes nodes (untimed), and reports pods per second.
func benchBinding(b *testing.B, nodes int, fill func(cl *cluster.Cluster)) {
	var total time.Duration
	for range b.N {
		b.StopTimer()
		eng, cl, s := benchCluster(b, nodes)
		fill(cl)
		b.StartTimer()
		start := time.Now()
		eng.Run(time.Second)
		total += time.Since(start)
		b.StopTimer()
		if got := s.Stats().Bound; got != benchPods {
			b.Fatalf("bound %d of %d pods", got, benchPods)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(benchPods*b.N)/total.Seconds(), "pods/s")
}

// BenchmarkScheduleBasic: 10,000 pods with requests, taints and
// tolerations and nodeSelectors onto that many nodes.
func BenchmarkScheduleBasic(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { runSchedule(b, n, false) })
	}
}

// BenchmarkScheduleSpread: the same with zone topology spread and hostname
// anti-affinity on every pod.
func BenchmarkScheduleSpread(b *testing.B) {
	b.Run("nodes=5000", func(b *testing.B) { runSchedule(b, 5000, true) })
}

// BenchmarkScheduleDeployments: pods of 200 Deployment-like templates (an
// owner selector, so the system default spread constraints apply, and a
// nodeSelector), 50 consecutive replicas each, as the generated scale
// scenarios make them; nodes over three zones.
func BenchmarkScheduleDeployments(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			benchBinding(b, n, func(cl *cluster.Cluster) {
				ns := cl.Syms.Intern("default")
				for t := range 200 {
					app := fmt.Sprintf("svc-%d", t)
					spec := corev1.PodSpec{
						NodeSelector: map[string]string{"pool": fmt.Sprintf("pool-%d", t%2)},
						Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("250m"),
							corev1.ResourceMemory: resource.MustParse("1Gi"),
						}}}},
					}
					cs, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: map[string]string{"app": app}, Spec: &spec,
						Priority: func(string) (int32, bool, bool) { return 0, false, true }})
					if err != nil {
						b.Fatal(err)
					}
					sel, _ := cluster.CompileLabelSelector(cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}})
					cs.OwnerSelector = &sel
					for range benchPods / 200 {
						cl.CreatePod(cluster.Pod{Name: "p", Namespace: ns, Spec: cs, Workload: -1})
					}
				}
			})
		})
	}
}
