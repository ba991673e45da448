// Command fidelity runs clustersim's Karpenter provisioning solve and
// upstream Karpenter's on the same generated cases (the pinned set of the
// first generator, the wide set of GenerateWide, whose cases also have
// a second round, the overlay set of GenerateOverlays, with NodeOverlays,
// and the minValues set of GenerateMinValues) and prints how often they
// agree. It exits 1 when a
// target of issues 10 and 22 is missed (unless -check=false), 2 on an
// error.
//
//	go run ./cmd/fidelity [-cases 240] [-wide 20] [-overlays 60] [-minvalues 40] [-seed 1] [-k 6] [-v]
//	                      [-only case-004] [-workers 5] [-check=false]
//	go run ./cmd/fidelity -timing [-runs 2] [-workers 5] > timing.txt
//	go run ./cmd/fidelity -fit timing.txt [more.txt ...]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/clustersim/clustersim/fidelity"
	"github.com/clustersim/clustersim/sim/catalog"
)

func main() {
	n := flag.Int("cases", 240, "number of cases of the pinned set (the first generator)")
	nWide := flag.Int("wide", 20, "number of cases of the wide set (whole catalogue, up to 1,000 pods, second round)")
	nOverlay := flag.Int("overlays", 60, "number of cases of the overlay set (NodeOverlays on the first generator's kind of case)")
	nMinValues := flag.Int("minvalues", 40, "number of cases of the minValues set (NodePools with minValues, Strict)")
	nReserved := flag.Int("reservations", 40, "number of cases of the reservation set (ODCRs selected by id, pools allowing reserved)")
	seed := flag.Uint64("seed", 1, "seed of the case generator")
	check := flag.Bool("check", true, "exit 1 when a target is missed")
	verbose := flag.Bool("v", false, "print one line per case")
	only := flag.String("only", "", "run only this case (e.g. case-004) and print both answers in full")
	flag.IntVar(&fidelity.Workers, "workers", fidelity.Workers, "goroutines upstream's solve may use (its benchmark uses 5)")
	flag.IntVar(&fidelity.Runs, "k", fidelity.Runs, "upstream runs per case and per second round (upstream breaks topology ties in map order)")
	timing := flag.Bool("timing", false, "time upstream's and our solve over a grid of pod and instance-type counts instead (docs/performance.md)")
	runs := flag.Int("runs", 2, "with -timing: runs per grid point (the fastest is kept)")
	fit := flag.Bool("fit", false, "fit the solve-time model to the fastest of earlier -timing outputs named as arguments")
	flag.Parse()

	if *fit {
		var all [][]fidelity.Timing
		for _, name := range flag.Args() {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fidelity:", err)
				os.Exit(2)
			}
			ts, err := fidelity.ParseTimings(f)
			f.Close()
			if err != nil {
				fmt.Fprintf(os.Stderr, "fidelity: %s: %v\n", name, err)
				os.Exit(2)
			}
			all = append(all, ts)
		}
		printFit(fidelity.FastestTimings(all...))
		return
	}

	cat, err := catalog.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	if *timing {
		var ts []fidelity.Timing
		for _, tc := range fidelity.TimingGrid() {
			t, err := fidelity.MeasureTiming(cat, tc, *runs)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fidelity:", err)
				os.Exit(2)
			}
			if *verbose {
				fidelity.PrintTimings(os.Stderr, []fidelity.Timing{t})
			}
			ts = append(ts, t)
		}
		fmt.Printf("solve times, %s with %d workers, fastest of %d runs\n\n", upstreamVersion(), fidelity.Workers, *runs)
		fidelity.PrintTimings(os.Stdout, ts)
		printFit(ts)
		return
	}
	cases, err := fidelity.Generate(cat, *seed, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	wide, err := fidelity.GenerateWide(cat, *seed, *nWide)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	cases = append(cases, wide...)
	overlays, err := fidelity.GenerateOverlays(cat, *seed, *nOverlay)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	cases = append(cases, overlays...)
	minValues, err := fidelity.GenerateMinValues(cat, *seed, *nMinValues)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	cases = append(cases, minValues...)
	reserved, err := fidelity.GenerateReservations(cat, *seed, *nReserved)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	cases = append(cases, reserved...)
	var results []*fidelity.Result
	for _, c := range cases {
		if *only != "" && c.Name != *only {
			continue
		}
		r, err := fidelity.Compare(cat, c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fidelity:", err)
			os.Exit(2)
		}
		if *only != "" {
			fidelity.Detail(os.Stdout, r)
		}
		if *verbose {
			fmt.Println(fidelity.Describe(r))
		}
		results = append(results, r)
	}
	s := fidelity.Summarize(results)
	fmt.Printf("clustersim sim/karpenter against %s, upstream with %d workers, %d runs per case, seed %d\n\n",
		upstreamVersion(), fidelity.Workers, fidelity.Runs, *seed)
	s.Print(os.Stdout)
	if miss := s.Check(); *check && len(miss) > 0 {
		for _, m := range miss {
			fmt.Fprintln(os.Stderr, "fidelity: target missed:", m)
		}
		os.Exit(1)
	}
}

// printFit prints the timings and the solve-time model fitted to them.
func printFit(ts []fidelity.Timing) {
	f, err := fidelity.FitSolve(ts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(2)
	}
	fmt.Println()
	f.Print(os.Stdout)
}

// upstreamVersion names the sigs.k8s.io/karpenter module this binary was
// built with.
func upstreamVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "sigs.k8s.io/karpenter" {
				return m.Path + " " + m.Version
			}
		}
	}
	return "sigs.k8s.io/karpenter"
}
