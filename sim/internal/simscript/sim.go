package simscript

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/internal/testscript"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
)

// Sim is one script's simulation: the scenario its commands build, then
// the run they step.
type Sim struct {
	name string
	// spec is the Scenario document's spec as the commands set it.
	spec map[string]any
	// files are the manifests of the blocks, by file name, in order.
	files []manifestFile
	// workloads and marketEvents are spec.workloads and
	// spec.market.events entries.
	workloads    []any
	marketEvents []any
	// autoscaled are the ClusterConfigs of nodegroup blocks (without
	// autoscaler=none) whose groups a default Cluster Autoscaler finds
	// when the spec sets none.
	autoscaled []string

	sc  *scenario.Scenario
	run *simulation.Sim
	// timeline holds every trace entry; shown counts those an events
	// command has printed.
	timeline []trace.Entry
	shown    int
}

type manifestFile struct {
	name string
	yaml string
}

// Handler returns a testscript handler for t's scripts: a simulation per
// script, started anew by reset.
func Handler(t *testing.T) testscript.Handler {
	name := strings.ToLower(strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))
	s := newSim(name)
	return func(b *testscript.Block) (string, error) {
		if b.Cmd == "reset" {
			s = newSim(name)
			return "", nil
		}
		return s.Handle(b)
	}
}

func newSim(name string) *Sim {
	return &Sim{name: name, spec: map[string]any{
		"seed":     1,
		"duration": "24h",
		"market":   map[string]any{"model": "off"},
	}}
}

// Handle runs one command.
func (s *Sim) Handle(b *testscript.Block) (string, error) {
	build := map[string]func(*testscript.Block) error{
		"scenario":  s.scenario,
		"nodepool":  s.nodepool,
		"nodegroup": s.nodegroup,
		"manifest":  s.manifest,
		"deploy":    s.deploy,
		"job":       s.job,
		"exhaust":   s.exhaust,
		"interrupt": s.interrupt,
	}
	if f, ok := build[b.Cmd]; ok {
		if s.run != nil {
			return "", fmt.Errorf("the run has started: build the scenario before the first run (or reset)")
		}
		return "", f(b)
	}
	look := map[string]func(*testscript.Block) (string, error){
		"nodes":  s.nodes,
		"node":   s.node,
		"pods":   s.pods,
		"events": s.events,
		"report": s.report,
	}
	switch f, ok := look[b.Cmd]; {
	case b.Cmd == "run":
		return s.advance(b)
	case ok:
		if s.run == nil {
			return "", fmt.Errorf("nothing runs yet: run first")
		}
		return f(b)
	}
	known := []string{"reset", "run"}
	for name := range build {
		known = append(known, name)
	}
	for name := range look {
		known = append(known, name)
	}
	slices.Sort(known)
	return "", fmt.Errorf("unknown command; the commands are %s (see sim/internal/simscript's doc)", strings.Join(known, ", "))
}

// advance starts the run at the first call and moves it on.
func (s *Sim) advance(b *testscript.Block) (string, error) {
	out := ""
	if s.run == nil {
		warnings, err := s.start(b.File)
		if err != nil {
			return "", err
		}
		out = warnings
	}
	now := s.run.Now()
	target := now
	if pos := b.Positional(); len(pos) == 1 {
		d, err := time.ParseDuration(pos[0])
		if err != nil {
			return "", fmt.Errorf("%s: not a duration (e.g. 30s, 10m, 1h30m)", pos[0])
		}
		target = now + d
	} else if len(pos) > 1 {
		return "", fmt.Errorf("give one duration (run 10m) or a time (run until=1h)")
	}
	until, err := b.Duration("until", target)
	if err != nil {
		return "", err
	}
	target = until
	if target < now {
		return "", fmt.Errorf("the run is at %s already", clock(now))
	}
	if target > s.run.End() {
		return "", fmt.Errorf("%s is past the scenario's end (%s): set scenario duration=", clock(target), clock(s.run.End()))
	}
	if err := s.run.RunUntil(target); err != nil {
		return "", err
	}
	return out + "t=" + clock(s.run.Now()), nil
}

// start loads the scenario the commands built and starts its run; it
// returns the loader's warnings, one per line.
func (s *Sim) start(script string) (string, error) {
	fsys := s.scenarioFS()
	sc, err := scenario.LoadFS(fsys, scenarioFile)
	if err != nil {
		return "", fmt.Errorf("loading the scenario the script built (its manifests are named after their blocks' lines in %s):\n%v", filepath.Base(script), err)
	}
	s.sc = sc
	s.run, err = simulation.Start(sc, simulation.Options{Trace: func(e trace.Entry) { s.timeline = append(s.timeline, e) }})
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, w := range sc.Warnings {
		sb.WriteString("warning: " + w.String() + "\n")
	}
	return sb.String(), nil
}

// clock prints a time compactly: 0s, 45s, 10m, 1h2m3s, 47.123s.
func clock(d time.Duration) string {
	s := d.Round(time.Millisecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
