// Command fidelity-ca runs clustersim's Cluster Autoscaler scale-up
// decision and upstream's on the same generated cases and prints how often
// they agree. It exits 1 when a target of issue 22 is missed (unless
// -check=false), 2 on an error.
//
//	go run ./cmd/fidelity-ca [-cases 400] [-seed 1] [-v] [-only case-004] [-check=false]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/clustersim/clustersim/fidelity/ca"
	"github.com/clustersim/clustersim/sim/catalog"
)

func main() {
	n := flag.Int("cases", 400, "number of generated cases")
	seed := flag.Uint64("seed", 1, "seed of the case generator")
	check := flag.Bool("check", true, "exit 1 when a target is missed")
	verbose := flag.Bool("v", false, "print one line per case")
	only := flag.String("only", "", "run only this case (e.g. case-004) and print both decisions in full")
	flag.Parse()

	cat, err := catalog.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity-ca:", err)
		os.Exit(2)
	}
	cases, err := ca.Generate(cat, *seed, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity-ca:", err)
		os.Exit(2)
	}
	var results []*ca.Result
	for _, c := range cases {
		if *only != "" && c.Name != *only {
			continue
		}
		r, err := ca.Compare(cat, c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fidelity-ca:", err)
			os.Exit(2)
		}
		if *only != "" {
			ca.Detail(os.Stdout, r)
		}
		if *verbose {
			fmt.Println(ca.Describe(r))
		}
		results = append(results, r)
	}
	s := ca.Summarize(results)
	fmt.Printf("clustersim sim/clusterautoscaler against sigs.k8s.io/cluster-autoscaler (scale-up orchestrator), seed %d\n\n", *seed)
	s.Print(os.Stdout)
	if miss := s.Check(); *check && len(miss) > 0 {
		for _, m := range miss {
			fmt.Fprintln(os.Stderr, "fidelity-ca: target missed:", m)
		}
		os.Exit(1)
	}
}
