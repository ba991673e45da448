// Command fidelity-ca-scaledown runs clustersim's Cluster Autoscaler
// scale-down planner and upstream's on the same generated clusters and
// prints how often they agree on the unneeded nodes, the removable ones
// and each node's reason. It exits 1 when a target of issue 34 is missed
// (unless -check=false), 2 on an error.
//
//	go run ./cmd/fidelity-ca-scaledown [-cases 300] [-seed 1] [-v] [-only sd-004] [-check=false]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/clustersim/clustersim/fidelity/ca"
	"github.com/clustersim/clustersim/sim/catalog"
)

func main() {
	n := flag.Int("cases", 300, "number of generated cases")
	seed := flag.Uint64("seed", 1, "seed of the case generator")
	check := flag.Bool("check", true, "exit 1 when a target is missed")
	verbose := flag.Bool("v", false, "print one line per case")
	only := flag.String("only", "", "run only this case (e.g. sd-004) and print both plans in full")
	flag.Parse()

	cat, err := catalog.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity-ca-scaledown:", err)
		os.Exit(2)
	}
	var results []*ca.SDResult
	for _, c := range ca.GenerateScaleDown(*seed, *n) {
		if *only != "" && c.Name != *only {
			continue
		}
		r, err := ca.CompareScaleDown(cat, c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fidelity-ca-scaledown:", err)
			os.Exit(2)
		}
		if *only != "" {
			ca.DetailScaleDown(os.Stdout, r)
		}
		if *verbose {
			fmt.Println(ca.DescribeScaleDown(r))
		}
		results = append(results, r)
	}
	s := ca.SummarizeScaleDown(results)
	fmt.Printf("clustersim sim/clusterautoscaler against sigs.k8s.io/cluster-autoscaler (scale-down planner), seed %d\n\n", *seed)
	s.Print(os.Stdout)
	if miss := s.Check(); *check && len(miss) > 0 {
		for _, m := range miss {
			fmt.Fprintln(os.Stderr, "fidelity-ca-scaledown: target missed:", m)
		}
		os.Exit(1)
	}
}
