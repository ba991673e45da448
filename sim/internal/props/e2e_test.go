package props_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/internal/props"
	"github.com/clustersim/clustersim/sim/internal/scengen"
	"github.com/clustersim/clustersim/sim/scenario"
)

// defaultCases is how many generated scenarios go test runs (-short: a
// tenth): about 40 ms of CPU each, so 300 take about 6 seconds on two
// idle cores. make properties runs 1000 (PROPS_N sets the count),
// PROPS_FROM the first seed (default 1), PROPS_SEED one seed only,
// PROPS_ALL=1 tells every failing seed in full.
const defaultCases = 300

// failuresShown is how many failing seeds are told in full.
const failuresShown = 10

func envInt(t *testing.T, name string, def uint64) uint64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: not a count", name, v)
	}
	return n
}

// outcome is one generated case's run.
type outcome struct {
	c          *scengen.Case
	violations []props.Violation
	err        error // the case could not be generated or loaded
}

// TestGeneratedScenarios runs generated scenarios, a share of them
// imported from kubectl exports through sim import, under --check, and
// checks every property of sim/internal/props on each. A failing seed's
// scenario is written to a file to rerun with sim run --check.
func TestGeneratedScenarios(t *testing.T) {
	n := envInt(t, "PROPS_N", defaultCases)
	if testing.Short() && os.Getenv("PROPS_N") == "" {
		n = defaultCases / 10
	}
	from := envInt(t, "PROPS_FROM", 1)
	if s := envInt(t, "PROPS_SEED", 0); s != 0 {
		from, n = s, 1
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	outcomes := make([]outcome, n)
	// Two workers: the cases are independent, the machine small.
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				outcomes[i] = runCase(from+uint64(i), cat)
			}
		})
	}
	for i := range int(n) {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)

	byProperty := map[string]int{}
	features := map[string]int{}
	imported, failed, shown := 0, 0, 0
	for _, o := range outcomes {
		if o.c != nil {
			for _, f := range o.c.Features {
				features[f]++
			}
			if o.c.Imported {
				imported++
			}
		}
		if o.err == nil && len(o.violations) == 0 {
			continue
		}
		failed++
		seen := map[string]bool{}
		for _, v := range o.violations {
			if !seen[v.Property] {
				byProperty[v.Property]++
				seen[v.Property] = true
			}
		}
		if o.err != nil {
			byProperty["generator"]++
		}
		if shown < failuresShown || os.Getenv("PROPS_ALL") != "" {
			shown++
			t.Error(describe(t, o))
		}
	}
	var props []string
	for _, p := range slices.Sorted(maps.Keys(byProperty)) {
		props = append(props, fmt.Sprintf("(%s) %d", p, byProperty[p]))
	}
	var cover []string
	for _, f := range slices.Sorted(maps.Keys(features)) {
		cover = append(cover, fmt.Sprintf("%s %d", f, features[f]))
	}
	t.Logf("%d generated scenarios (seeds %d-%d, %d through sim import) in %s; %d failed: %s", n, from, from+n-1, imported, elapsed.Round(time.Millisecond), failed, strings.Join(props, ", "))
	t.Logf("coverage: %s", strings.Join(cover, ", "))
	if failed > shown {
		t.Errorf("%d more failing seeds not shown", failed-shown)
	}
}

// runCase generates, loads, runs and checks one seed.
func runCase(seed uint64, cat *catalog.Catalog) outcome {
	c, err := scengen.Generate(seed, cat)
	if err != nil {
		return outcome{err: err}
	}
	sc, err := scenario.LoadManifests(fmt.Sprintf("gen-%d.yaml", seed), c.Scenario, nil)
	if err != nil {
		return outcome{c: c, err: fmt.Errorf("the generated scenario does not load: %w", err)}
	}
	return outcome{c: c, violations: props.Check(props.Observe(sc))}
}

// describe tells a failing case: its seed, the file to rerun, its
// violations (the first few).
func describe(t *testing.T, o outcome) string {
	var b strings.Builder
	seed := uint64(0)
	if o.c != nil {
		seed = o.c.Seed
		dir := os.TempDir()
		path := filepath.Join(dir, fmt.Sprintf("props-seed-%d.yaml", seed))
		if err := os.WriteFile(path, o.c.Scenario, 0o644); err != nil {
			t.Logf("seed %d: cannot write the scenario: %v", seed, err)
		}
		for name, data := range o.c.Exports {
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("props-seed-%d-%s", seed, name)), data, 0o644)
		}
		how := "generated"
		if o.c.Imported {
			how = fmt.Sprintf("imported by sim import from %s", filepath.Join(dir, fmt.Sprintf("props-seed-%d-*.yaml", seed)))
		}
		fmt.Fprintf(&b, "seed %d (%s): rerun with PROPS_SEED=%d go test ./sim/internal/props -run TestGeneratedScenarios, or sim run %s --check --events events.jsonl", seed, how, seed, path)
	}
	if o.err != nil {
		fmt.Fprintf(&b, "\n  %v", o.err)
	}
	for i, v := range o.violations {
		if i == 5 && os.Getenv("PROPS_ALL") == "" {
			fmt.Fprintf(&b, "\n  ... and %d more", len(o.violations)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s", v)
	}
	return b.String()
}
