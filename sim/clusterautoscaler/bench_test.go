package clusterautoscaler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
)

// BenchmarkEstimate: 50,000 pending pods of two shapes binpacked onto one
// node template (m5.2xlarge-like: 8 cpu, 32 GiB), as one scale-up
// estimation of one node group.
func BenchmarkEstimate(b *testing.B) {
	h := newHarness(&testing.T{})
	const n = 50000
	small, _ := h.spec("250m", "512Mi")
	large, _ := h.spec("1", "4Gi")
	ns := h.cl.Syms.Intern("default")
	groups := []*podGroup{{spec: small, ns: ns}, {spec: large, ns: ns}}
	for i := 0; i < n; i++ {
		g := groups[i%2]
		g.pods = append(g.pods, cluster.PodID(i))
	}
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 8000, 32<<30, 110
	e := &estimator{syms: h.cl.Syms, hostname: h.cl.KeyHostname}
	fits := []bool{true, true}
	var out estimate
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.run(groups, fits, &cluster.Node{Allocatable: alloc}, 1<<30, &out)
	}
	b.StopTimer()
	if out.nodes == 0 || len(out.pods) != n {
		b.Fatalf("estimated %d nodes for %d pods", out.nodes, len(out.pods))
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(out.nodes), "nodes")
}

// BenchmarkScaleUpLoop: one whole scale-up loop (collect, group, filter
// against 200 Ready nodes, estimate for three groups, expand, launch) for
// 10,000 pending pods of two shapes.
func BenchmarkScaleUpLoop(b *testing.B) {
	const pending = 10000
	b.ReportAllocs()
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t := &testing.T{}
		h := newManualHarness(t)
		settings := SettingsSpecFor(t, []string{"--scale-down-enabled=false"})
		settings.PodTimeBuffer = 0
		h.startSettings(h.groups(managedNodeGroups(
			"{name: small, instanceType: m5.large, minSize: 0, maxSize: 2000, desiredCapacity: 100}",
			"{name: medium, instanceType: m5.2xlarge, minSize: 0, maxSize: 2000, desiredCapacity: 100}",
			"{name: large, instanceType: m5.8xlarge, minSize: 0, maxSize: 2000}")), settings)
		h.at(time.Second)
		a := h.pods(pending/2, "500m", "1Gi")
		c := h.pods(pending/2, "2", "3Gi")
		for _, p := range append(a, c...) {
			h.cl.MarkUnschedulable(p)
		}
		b.StartTimer()
		start := time.Now()
		scaled, _ := h.ca.orch.scaleUp(h.eng.Now())
		elapsed += time.Since(start)
		if !scaled {
			b.Fatal("no scale-up")
		}
	}
	b.ReportMetric(float64(pending)*float64(b.N)/elapsed.Seconds(), "pods/s")
}

// BenchmarkScaleDownLoop: whole loops (no pending pods, so mostly
// scale-down) over 1,000 and 5,000 Ready m5.xlarge nodes of two groups
// with 16 pods each: one node in fifty is a quarter used (scale-down
// candidates), the others two thirds. Between loops, 11 s apart, 50 pods
// are deleted and 50 bound elsewhere (not timed). Nodes stay unneeded
// (--scale-down-unneeded-time=1000h), so every loop re-simulates them.
func BenchmarkScaleDownLoop(b *testing.B) {
	for _, nodes := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			benchScaleDownLoop(b, nodes)
		})
	}
}

func benchScaleDownLoop(b *testing.B, nodes int) {
	t := &testing.T{}
	h := newManualHarness(t)
	group := func(name string) string {
		return fmt.Sprintf("{name: %s, instanceType: m5.xlarge, minSize: 0, maxSize: %d, desiredCapacity: %[2]d}", name, nodes/2)
	}
	h.start(h.groups(managedNodeGroups(group("a"), group("b"))), []string{"--scale-down-unneeded-time=1000h", "--scale-down-delay-after-add=0s"}, nil)
	h.at(time.Second)
	ids := append(h.nodesOf("a"), h.nodesOf("b")...)
	if len(ids) != nodes {
		b.Fatalf("%d nodes, want %d", len(ids), nodes)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	small, _ := h.spec("60m", "240Mi")  // quarter-used nodes
	large, _ := h.spec("160m", "640Mi") // two-thirds-used nodes
	ns := h.cl.Syms.Intern("default")
	var bound []cluster.PodID
	bind := func(spec *cluster.PodSpec, node cluster.NodeID) {
		p := h.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("p-%d", len(h.cl.Pods)), Namespace: ns, Spec: spec})
		h.cl.Bind(p, node)
		bound = append(bound, p)
	}
	for i, id := range ids {
		spec := large
		if i%50 == 0 {
			spec = small
		}
		for k := 0; k < 16; k++ {
			bind(spec, id)
		}
	}
	loop := func() {
		h.ca.loop()
		h.eng.Cancel(h.ca.loopTimer)
	}
	now := h.eng.Now()
	loop()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for k := 0; k < 50; k++ {
			j := rng.IntN(len(bound))
			p := bound[j]
			spec := h.cl.Pods[p].Spec
			h.cl.DeletePod(p, cluster.CauseScaleDown)
			bound[j] = bound[len(bound)-1]
			bound = bound[:len(bound)-1]
			for {
				id := ids[rng.IntN(len(ids))]
				if spec.Requests.Fits(h.cl.Nodes[id].Free()) {
					bind(spec, id)
					break
				}
			}
		}
		now += 11 * time.Second
		h.at(now)
		b.StartTimer()
		loop()
	}
	b.StopTimer()
	unneeded := 0
	for _, id := range ids {
		if n := h.ca.nodes.get(id); n != nil && n.unneededSince != never {
			unneeded++
		}
	}
	b.ReportMetric(float64(unneeded), "unneeded")
}
