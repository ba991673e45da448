// Command fidelity-disruption measures our Karpenter model's disruption
// decisions against upstream Karpenter v1.15.0's on generated clusters,
// through the user's path (sim import, then sim run), and prints one
// line per decision:
//
//	fidelity-disruption: cases=N upstream_self=P% ours_vs_upstream=P% envelope=P% extra_runs=N speedup=Fx
//
// and the same lines for the repair cases (-repair, fidelity-disruption-repair:
// some nodes unhealthy, the NodeRepair gate on), a set of their own with no
// target yet.
//
// The envelope is the share of cases where ours agrees with one of
// upstream's runs: k runs per decision, and up to -extra more where those
// k split among themselves and ours matches none (Widen); upstream_self
// and ours_vs_upstream are the first k runs' figures.
//
// Run it from fidelity/disruption with GOTOOLCHAIN=go1.27.3 (make
// fidelity does).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	df "github.com/clustersim/clustersim/fidelity/disruption"
	"github.com/clustersim/clustersim/fidelity/disruption/upstream"
	"github.com/clustersim/clustersim/sim/catalog"
)

func main() {
	var (
		seed    = flag.Uint64("seed", 1, "the generator's seed")
		cases   = flag.Int("cases", 100, "how many cases")
		static  = flag.Int("static", 20, "how many cases of the static set (a static NodePool with drifted nodes, StaticCapacity on)")
		k       = flag.Int("k", 5, "upstream runs per case (it breaks ties at random)")
		extra   = flag.Int("extra", 15, "more upstream runs, at most, where the k split and ours matches none of them")
		horizon = flag.Duration("horizon", 10*time.Minute, "how long each side may take to decide")
		later   = flag.Int("later", 2, "decisions after the first to compare (second, third)")
		only    = flag.String("only", "", "run only this case, printing both sides in full")
		verbose = flag.Bool("v", false, "one line per case")
		keep    = flag.String("dir", "", "keep the cases' files here (default: a temporary directory, removed)")
		simBin  = flag.String("sim", "", "the sim binary (default: built from ../../cmd/sim)")
		workers = flag.Int("workers", runtime.NumCPU(), "cases run in parallel")
		repair  = flag.Int("repair", 40, "how many repair cases (some nodes unhealthy, NodeRepair on), reported as their own set")
	)
	flag.Parse()
	if err := run(*seed, *cases, *repair, *static, *k, *extra, *horizon, *later, *only, *verbose, *keep, *simBin, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "fidelity-disruption:", err)
		os.Exit(1)
	}
}

func run(seed uint64, n, nRepair, nStatic, k, extra int, horizon time.Duration, later int, only string, verbose bool, dir, simBin string, workers int) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "fidelity-disruption-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if simBin == "" {
		simBin = filepath.Join(dir, "sim")
		// Built in the simulator's own module (the repository's root).
		cmd := exec.Command("go", "build", "-o", simBin, "./cmd/sim")
		cmd.Dir, cmd.Stderr = "../..", os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building sim: %w", err)
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	cc, err := df.BuildCatalogue(cat)
	if err != nil {
		return err
	}
	all := append(df.Generate(cc, seed, n), df.GenerateRepair(cc, seed, nRepair)...)
	all = append(all, df.GenerateStatic(cc, seed, nStatic)...)
	// The repair and static cases are sets of their own: the main set's figures
	// stay comparable with earlier runs.
	setOf := func(c *df.Case) int {
		if strings.HasPrefix(c.Name, "repair-") {
			return 1
		}
		if c.Static {
			return 2
		}
		return 0
	}
	ours := &df.Ours{Sim: simBin, Dir: dir, Horizon: horizon}
	rounds := 1 + later
	scores := [3][][]df.CaseScore{make([][]df.CaseScore, rounds), make([][]df.CaseScore, rounds), make([][]df.CaseScore, rounds)}
	var oursTime, upTime time.Duration
	var oursRuns, upRuns int
	var disagreements []string
	skipped := [3][]int{make([]int, rounds), make([]int, rounds), make([]int, rounds)}
	extraRuns := [3][]int{make([]int, rounds), make([]int, rounds), make([]int, rounds)} // Widen's runs, per decision
	var todo []*df.Case
	for _, c := range all {
		if only == "" || c.Name == only {
			todo = append(todo, c)
		}
	}
	// Cases run in parallel (each side's runs are independent); results
	// are reported in case order.
	results := make([]*caseResult, len(todo))
	errs := make([]error, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = evalCase(todo[i], ours, k, extra, horizon, rounds, verbose || only != "")
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil {
			return errs[i]
		}
		for _, l := range r.lines {
			fmt.Print(l)
		}
		disagreements = append(disagreements, r.disagreements...)
		oursTime += r.oursTime
		oursRuns++
		upTime += r.upTime
		upRuns += r.upRuns
		set := setOf(todo[i])
		for round := range rounds {
			if r.scored[round] {
				scores[set][round] = append(scores[set][round], r.scores[round])
			}
			skipped[set][round] += r.skipped[round]
			extraRuns[set][round] += r.extraRuns[round]
		}
	}
	for _, d := range disagreements {
		fmt.Print(d)
	}
	missed := false
	names := []string{"", "-second", "-third", "-fourth"}
	for set, prefix := range []string{"fidelity-disruption", "fidelity-disruption-repair", "fidelity-disruption-static"} {
		for round := 0; round < rounds; round++ {
			m := df.Summarise(scores[set][round])
			if set > 0 && m.Cases == 0 {
				continue
			}
			name := prefix
			if round < len(names) {
				name += names[round]
			} else {
				name += fmt.Sprintf("-%d", round+1)
			}
			line := fmt.Sprintf("%s: cases=%d upstream_self=%.1f%% ours_vs_upstream=%.1f%% envelope=%.1f%% extra_runs=%d", name,
				m.Cases, 100*m.UpstreamSelf, 100*m.OursVsUpstream, 100*m.Envelope, extraRuns[set][round])
			if round == 0 && set == 0 {
				speed := 0.0
				if oursRuns > 0 && upRuns > 0 {
					speed = (upTime.Seconds() / float64(upRuns)) / (oursTime.Seconds() / float64(oursRuns))
				}
				line += fmt.Sprintf(" speedup=%.1fx", speed)
				// Targets (issue 32): within upstream's envelope in 97% of
				// cases, and agreeing with a random upstream run at least as
				// often as upstream agrees with itself, less 2 points: both
				// move by a point between runs (upstream's random ties), and
				// a gate on the noise would fail CI at random.
				if m.Cases > 0 && only == "" && (m.Envelope < 0.97 || m.OursVsUpstream < m.UpstreamSelf-0.02) {
					missed = true
				}
			} else if round == 0 {
				// The repair and static sets: reported, no target yet.
			} else {
				line += fmt.Sprintf(" skipped=%d", skipped[set][round])
				// A regression guard on the later decisions: within the
				// envelope in 90% of cases (97-98% when this was set; the
				// remaining ones are explained in docs/fidelity.md).
				if set == 0 && m.Cases > 0 && only == "" && m.Envelope < 0.90 {
					missed = true
				}
			}
			fmt.Println(line)
		}
	}
	fmt.Printf("fidelity-disruption: time: ours %.0f ms per sim run (the whole process), upstream %.0f ms per deciding run (k=%d)\n",
		1000*oursTime.Seconds()/float64(max(oursRuns, 1)), 1000*upTime.Seconds()/float64(max(upRuns, 1)), k)
	if missed {
		return fmt.Errorf("a target is missed (first decision: envelope 97%%, ours_vs_upstream at least upstream_self - 2 points; second and third: envelope 90%%)")
	}
	return nil
}

// caseResult is one case's figures and report lines.
type caseResult struct {
	scores               []df.CaseScore
	scored               []bool
	skipped, extraRuns   []int
	lines, disagreements []string
	oursTime, upTime     time.Duration
	upRuns               int
}

// evalCase runs our side once and upstream k times per decision.
func evalCase(c *df.Case, ours *df.Ours, k, extra int, horizon time.Duration, rounds int, verbose bool) (*caseResult, error) {
	r := &caseResult{scores: make([]df.CaseScore, rounds), scored: make([]bool, rounds), skipped: make([]int, rounds), extraRuns: make([]int, rounds)}
	or, err := ours.Run(c)
	if err != nil {
		return nil, err
	}
	r.oursTime += or.Elapsed
	for round := 0; round < rounds; round++ {
		// The first decision on the export; each later one on the
		// state our run reached when it decided it (after the ones
		// before it started), dumped as kubectl lists it, with the
		// commands in progress held as upstream's queue holds them.
		ourDecision := df.Decision{Method: df.MethodNone}
		if round < len(or.Decisions) {
			ourDecision = or.Decisions[round]
		}
		rd, ok, err := upstream.LaterRound(c, ours, or, round, horizon)
		if err != nil {
			return nil, err
		}
		if !ok {
			r.skipped[round]++
			continue
		}
		state, inFlight := rd.State, rd.InFlight
		var ups []df.Decision
		for i := 0; i < k; i++ {
			d, h, err := rd.Decide(horizon)
			if err != nil {
				return nil, fmt.Errorf("%s: upstream: %w", c.Name, err)
			}
			if round == 0 {
				r.upTime += h.Elapsed()
				r.upRuns++
			}
			ups = append(ups, d)
		}
		infos := df.InfosOf(state.Nodes, state.Pods)
		s := df.Score(ourDecision, ups, infos)
		s, more, err := df.Widen(s, ourDecision, extra, func() (df.Decision, error) {
			d, _, err := rd.Decide(horizon)
			return d, err
		}, infos)
		if err != nil {
			return nil, fmt.Errorf("%s: upstream: %w", c.Name, err)
		}
		r.extraRuns[round] += len(more)
		r.scores[round], r.scored[round] = s, true
		if verbose || !s.Within {
			line := fmt.Sprintf("%s decision %d [%s]\n  ours:      %s\n", c.Name, round+1, state.ShapeString(), ourDecision)
			if len(inFlight) > 0 {
				line += fmt.Sprintf("  in flight: %s\n", strings.Join(inFlight, " "))
			}
			for i, u := range append(ups, more...) {
				extraMark := ""
				if i >= len(ups) {
					extraMark = " [extra]"
				}
				line += fmt.Sprintf("  upstream%d: %s  (%s)%s\n", i, u, verdict(df.Compare(ourDecision, u, infos)), extraMark)
			}
			if !s.Within {
				r.disagreements = append(r.disagreements, line)
			} else {
				r.lines = append(r.lines, line)
			}
		}
	}
	return r, nil
}

func verdict(v df.Verdict) string {
	if v.Agree {
		if v.Exact {
			return "agree"
		}
		return "agree in shape"
	}
	return "differs: " + v.Why
}
