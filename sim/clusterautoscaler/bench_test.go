package clusterautoscaler

import (
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
		e.run(groups, fits, alloc, 1<<30, &out)
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
		h.startSettings(h.groups(`apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: small, instanceType: m5.large, minSize: 0, maxSize: 2000, desiredCapacity: 100}
  - {name: medium, instanceType: m5.2xlarge, minSize: 0, maxSize: 2000, desiredCapacity: 100}
  - {name: large, instanceType: m5.8xlarge, minSize: 0, maxSize: 2000}
`), settings)
		h.at(time.Second)
		a := h.pods(pending/2, "500m", "1Gi")
		c := h.pods(pending/2, "2", "3Gi")
		for _, p := range append(a, c...) {
			h.cl.MarkUnschedulable(p)
		}
		b.StartTimer()
		start := time.Now()
		scaled, _ := h.ca.scaleUp(h.eng.Now())
		elapsed += time.Since(start)
		if !scaled {
			b.Fatal("no scale-up")
		}
	}
	b.ReportMetric(float64(pending)*float64(b.N)/elapsed.Seconds(), "pods/s")
}
