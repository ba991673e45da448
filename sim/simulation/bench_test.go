package simulation_test

import (
	"fmt"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/scalegen"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// BenchmarkScale runs generated scale scenarios (sim gen scale) end to end
// and reports engine events per wall second, simulated seconds per wall
// second, and live heap per resident pod at the end of the run. A week
// at 5,000 nodes takes many minutes: make bench-scale-week runs it.
func BenchmarkScale(b *testing.B) {
	sizes := []scalegen.Params{
		{Nodes: 500, Pods: 15000, Days: 1},
		{Nodes: 1000, Pods: 30000, Days: 1},
		{Nodes: 2000, Pods: 60000, Days: 1},
	}
	for _, p := range sizes {
		p.Seed = 1
		b.Run(fmt.Sprintf("nodes=%d/pods=%d/days=%d", p.Nodes, p.Pods, p.Days), func(b *testing.B) {
			text, err := scalegen.Generate(p)
			if err != nil {
				b.Fatal(err)
			}
			sc, err := scenario.LoadFS(fstest.MapFS{"scale.yaml": {Data: []byte(text)}}, "scale.yaml")
			if err != nil {
				b.Fatal(err)
			}
			var events uint64
			var heap, resident float64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rep, err := simulation.Run(sc, simulation.Options{Inspect: func(cl *cluster.Cluster) {
					// Live heap at the end over the pods then resident,
					// measured outside the timed region.
					b.StopTimer()
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					heap = float64(ms.HeapAlloc)
					resident = 0
					for i := range cl.Pods {
						if ph := cl.Pods[i].Phase; ph == cluster.Bound || ph == cluster.Running {
							resident++
						}
					}
					b.StartTimer()
				}})
				if err != nil {
					b.Fatal(err)
				}
				events += rep.Engine.Events
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(events)/sec, "events/s")
			b.ReportMetric(float64(b.N)*sc.Duration.Seconds()/sec, "sim-s/s")
			if resident > 0 {
				b.ReportMetric(heap/resident, "heapB/pod")
			}
		})
	}
}

// BenchmarkRuns is sim run hybrid-naive --runs 200: 200 seeds on every
// core (target: under 30 s on the 2-core reference machine).
func BenchmarkRuns(b *testing.B) {
	sc, err := scenario.LoadFS(scenarios.FS, "hybrid-naive.yaml")
	if err != nil {
		b.Fatal(err)
	}
	seeds := experiment.Seeds(sc.Seed, 200)
	b.ResetTimer()
	for b.Loop() {
		if _, err := experiment.RunMany(sc, seeds, 0, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(seeds))/b.Elapsed().Seconds(), "runs/s")
}
