// Command fidelity-scheduler runs clustersim's kube-scheduler model and
// upstream's scheduler framework pod by pod on the same generated cases
// and prints how often they agree, and how much faster ours is. It exits 1
// when a target of issue 23 is missed (unless -check=false), 2 on an
// error.
//
//	go run ./cmd/fidelity-scheduler [-cases 200] [-seed 1] [-v] [-only case-004] [-check=false]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	schedfidelity "github.com/clustersim/clustersim/fidelity/scheduler"
)

func main() {
	n := flag.Int("cases", 200, "number of generated cases (every fourth samples: more than 100 nodes, the adaptive percentageOfNodesToScore)")
	seed := flag.Uint64("seed", 1, "seed of the case generator")
	check := flag.Bool("check", true, "exit 1 when a target is missed")
	verbose := flag.Bool("v", false, "list the disagreeing pods")
	only := flag.String("only", "", "run only this case (e.g. case-004) and print both answers of every pod")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fidelity-scheduler:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "fidelity-scheduler:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	schedfidelity.QuietUpstream()

	var results []*schedfidelity.Result
	for _, c := range schedfidelity.Generate(*seed, *n) {
		if *only != "" && c.Name != *only {
			continue
		}
		r, err := schedfidelity.Compare(c, *only != "")
		if err != nil {
			fmt.Fprintln(os.Stderr, "fidelity-scheduler:", err)
			os.Exit(2)
		}
		if *only != "" {
			schedfidelity.Detail(os.Stdout, r)
		}
		results = append(results, r)
	}
	s := schedfidelity.Summarize(results)
	fmt.Printf("clustersim sim/scheduler against %s (default profile, parallelism %d), seed %d\n", upstreamVersion(), schedfidelity.Parallelism, *seed)
	if *verbose {
		for _, d := range s.Disagreements {
			fmt.Println("  disagree:", d)
		}
	}
	s.Print(os.Stdout)
	if miss := s.Check(); *check && len(miss) > 0 {
		for _, m := range miss {
			fmt.Fprintln(os.Stderr, "fidelity-scheduler: target missed:", m)
		}
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// upstreamVersion names the k8s.io/kubernetes module this binary was built
// with.
func upstreamVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "k8s.io/kubernetes" {
				return m.Path + " " + m.Version
			}
		}
	}
	return "k8s.io/kubernetes"
}
