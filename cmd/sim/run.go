package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clustersim/clustersim/sim/verdict"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
)

func newRunCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run SCENARIO[+OVERRIDE.yaml...]",
		Short: "Run a scenario (a file, or the name of an embedded scenario) and print its report",
		Long: `Run a scenario and print its report. SCENARIO is a file or the name of an
embedded scenario; "+FILE" appends manifest files whose objects replace the
scenario's objects of the same kind and name (or are added).

With --runs N the scenario runs on N seeds derived from the root seed, in
parallel, and each metric is reported as mean, 95% confidence interval and
percentiles across runs.`,
		Example: `  sim run static-burst
  sim run ./my-scenario.yaml --seed 7 -o json
  sim run hybrid.yaml+candidate-nodepool.yaml --runs 20
  sim run static-burst --runs 30 --fail-if 'pods.pendingSeconds.p99>300'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenario(v, cmd, args[0], stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.Uint64("seed", 0, "override the scenario's seed (the root seed with --runs)")
	f.StringP("output", "o", "table", "report format: table, wide (every column, long cells in full), json or csv")
	f.String("report", "", "write the report to this file (atomically) instead of stdout")
	f.Int("runs", 1, "number of seeds to run (aggregated with confidence intervals)")
	f.Int("workers", 0, "parallel runs (default: all cores)")
	f.StringArray("fail-if", nil, "exit 2 if this expression holds, e.g. 'pods.pendingSeconds.p99>300' or 'cost.totalUSD>1.1*baseline' (repeatable)")
	f.String("baseline", "", "a JSON report (sim run -o json) that 'baseline' in --fail-if refers to")
	f.String("fail-on-lint", "", "exit 2 before the run when sim lint finds something of this severity or above: info, warning or error (error findings are always printed)")
	f.String("events", "", "write the simulation timeline to this JSONL file (single run)")
	f.String("html", "", "write the run as one self-contained HTML page (charts, summary, workloads) to this file (single run)")
	f.String("metrics", "", "write the run's timeline as OpenMetrics text (Karpenter's, the Cluster Autoscaler's and kube-state-metrics' names) to this file (single run)")
	f.String("metrics-start", report.DefaultMetricsStart.Format(time.RFC3339), "the wall-clock time of the run's start in --metrics (RFC 3339)")
	f.String("cpuprofile", "", "write a Go CPU profile of the run to this file (for go tool pprof)")
	f.String("memprofile", "", "write a Go heap profile at the end of the run to this file")
	f.Bool("check", false, "check the cluster invariants after every event (slower); a violation fails the run")
	f.String("dump-state", "", "at this virtual time (e.g. 1h30m) write the simulated cluster as a kubectl List to --state-out; the run goes on")
	f.String("state-out", "", "the file --dump-state writes (atomically)")
	addWhatIfFlags(f)
	f.String("memory-limit", "", "refuse scenarios estimated to need more memory than this (e.g. 8GiB; default: 3/4 of the machine's memory)")
	return cmd
}

// loadScenario reads "path[+override...]" from disk, or else an embedded
// scenario; a load that waits (a FIFO) ends with the first signal (ctx).
func loadScenario(ctx context.Context, arg string) (*scenario.Scenario, error) {
	return awaitInput(ctx, func() (*scenario.Scenario, error) { return loadScenarioNow(arg) })
}

func loadScenarioNow(arg string) (*scenario.Scenario, error) {
	parts := strings.Split(arg, "+")
	path, overrides := parts[0], parts[1:]
	if _, err := os.Stat(path); err == nil {
		return scenario.LoadFile(path, overrides...)
	}
	return loadEmbedded(path, overrides)
}

// loadEmbedded loads the embedded scenario name with the overrides (files
// on disk); the error says the path is neither a file nor an embedded
// scenario.
func loadEmbedded(name string, overrides []string) (*scenario.Scenario, error) {
	file, ok := scenarios.File(name)
	if !ok {
		if near := scenario.Closest(name, scenarios.Names()); near != "" {
			return nil, fmt.Errorf("%s: no such file, and no embedded scenario of that name: did you mean %s? (sim scenarios lists them all)", name, near)
		}
		return nil, fmt.Errorf("%s: no such file, and no embedded scenario of that name (embedded: %s)", name, strings.Join(scenarios.Names(), ", "))
	}
	return scenario.LoadFS(scenarios.FS, file, overrides...)
}

// seedOf is the seed given by flag, environment or config file, if any.
func seedOf(v *viper.Viper, cmd *cobra.Command) *uint64 {
	if cmd.Flags().Changed("seed") || os.Getenv("SIM_SEED") != "" || v.InConfig("seed") {
		s := v.GetUint64("seed")
		return &s
	}
	return nil
}

// progressEvery is how often (in events) a single run on a terminal looks
// at its progress (as often as a run checks for Ctrl-C); the line is
// redrawn at most ten times a second.
var progressEvery uint64 = 20_000

func checkFormat(v *viper.Viper) (string, error) {
	format := v.GetString("output")
	if !isTable(format) && format != "json" && format != "csv" {
		return "", fmt.Errorf("--output %q: use table, wide, json or csv", format)
	}
	return format, nil
}

func runScenario(v *viper.Viper, cmd *cobra.Command, arg string, stdout, stderr io.Writer) error {
	format, err := checkFormat(v)
	if err != nil {
		return err
	}
	if err := parseGates(v.GetStringSlice("fail-if")); err != nil {
		return err
	}
	runs := v.GetInt("runs")
	if runs < 1 || runs > 100000 {
		return fmt.Errorf("--runs %d: use 1 to 100000", runs)
	}
	if runs > 1 && v.GetString("events") != "" {
		return fmt.Errorf("--events writes one run's timeline: drop --runs, or pick one seed with --seed")
	}
	metricsStart, err := metricsStartOf(v.GetString("metrics-start"))
	if err != nil {
		return err
	}
	if runs > 1 && v.GetString("metrics") != "" {
		return fmt.Errorf("--metrics writes one run's timeline: drop --runs, or pick one seed with --seed")
	}
	if runs > 1 && v.GetString("html") != "" {
		return fmt.Errorf("--html shows one run: drop --runs, pick one seed with --seed, or compare configurations with sim compare --html")
	}
	if runs > 1 && (v.GetString("cpuprofile") != "" || v.GetString("memprofile") != "") {
		return fmt.Errorf("--cpuprofile and --memprofile profile one run: drop --runs, or pick one seed with --seed")
	}
	baseline, err := loadBaseline(cmd.Context(), v.GetString("baseline"))
	if err != nil {
		return err
	}
	dumpAt, dumpPath := v.GetString("dump-state"), v.GetString("state-out")
	switch {
	case dumpAt != "" && dumpPath == "":
		return fmt.Errorf("--dump-state %s needs --state-out FILE: the file to write the state to", dumpAt)
	case dumpAt == "" && dumpPath != "":
		return fmt.Errorf("--state-out %s needs --dump-state AT: the virtual time to write the state at, e.g. 1h30m", dumpPath)
	case dumpAt != "" && runs > 1:
		return fmt.Errorf("--dump-state writes one run's state: drop --runs, or pick one seed with --seed")
	}
	sc, err := loadScenario(cmd.Context(), arg)
	if err != nil {
		return err
	}
	if err := applyWhatIfs(v, sc); err != nil {
		return err
	}
	var outs, ins pathSet
	outs.addFlags(v, "report", "events", "html", "metrics", "state-out", "cpuprofile", "memprofile")
	ins.addScenario(arg, sc)
	ins.addFlags(v, "config", "baseline")
	if err := checkClobber(outs, ins); err != nil {
		return err
	}
	linted, err := lintBeforeRun(v, sc, "", stderr)
	if err != nil {
		return err
	}
	var at time.Duration
	if dumpAt != "" {
		if at, err = scenario.ParseDuration(dumpAt); err != nil {
			return fmt.Errorf("--dump-state %s: %v; write a duration like 90s, 10m or 1h30m", dumpAt, err)
		}
		if at > sc.Duration {
			return fmt.Errorf("--dump-state %s: after the scenario's end (duration %s); use a time from 0s to %s", dumpAt, sc.Duration, sc.Duration)
		}
	}
	workers := v.GetInt("workers")
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := checkMemory(v.GetString("memory-limit"), sc, min(runs, workers)); err != nil {
		return err
	}
	limit, _ := memoryLimit(v.GetString("memory-limit")) // checked by checkMemory
	defer holdMemory(limit)()
	watch := runWatch(limit, sc, stderr)
	seed := sc.Seed
	if s := seedOf(v, cmd); s != nil {
		seed = *s
	}
	if runs > 1 {
		return runMany(v, cmd, arg, sc, seed, runs, format, baseline, watch, stdout, stderr)
	}

	opts := simulation.Options{Seed: &seed, Check: v.GetBool("check"), Context: cmd.Context(), Watch: watch, KeepObjects: v.GetString("metrics") != ""}
	var finishEvents func() error
	if path := v.GetString("events"); path != "" {
		sink, finish, abort, err := eventFile(cmd.Context(), path)
		if err != nil {
			return err
		}
		defer abort()
		opts.Trace, finishEvents = sink, finish
	}
	dumped := false
	if dumpAt != "" {
		opts.AtTime = at
		opts.At = func(s *simulation.Sim) error {
			dumped = true
			return writeState(cmd.Context(), dumpPath, s)
		}
	}
	stopProfiles, err := startProfiles(cmd.Context(), v.GetString("cpuprofile"), v.GetString("memprofile"))
	if err != nil {
		return err
	}
	progress, clearProgress := runProgress(stderr, sc.Duration)
	opts.Progress, opts.ProgressEvery = progress, progressEvery
	start := time.Now()
	rep, err := simulation.Run(sc, opts)
	clearProgress()
	if perr := stopProfiles(); err == nil {
		err = perr
	}
	if err != nil {
		return crashReport(err, arg, stderr)
	}
	wall := time.Since(start)
	fmt.Fprintf(stderr, "simulated %s in %s: %d events (%.2fM events/s), peak memory %s\n",
		time.Duration(rep.DurationSeconds*float64(time.Second)), wall.Round(time.Millisecond), rep.Engine.Events,
		float64(rep.Engine.Events)/wall.Seconds()/1e6, gib(peakRSS()))
	if dumpAt != "" && !dumped {
		fmt.Fprintf(stderr, "interrupted before %s: --state-out %s was not written\n", dumpAt, dumpPath)
	}
	if finishEvents != nil {
		if err := finishEvents(); err != nil {
			return err
		}
	}
	lead := verdict.Of(rep, verdict.Inputs{Scenario: arg, StrandedAfter: sc.StrandedAfter, Lint: linted})
	rep.Lead = report.Lead{Summary: lead.Summary, Next: lead.Next}
	if path := v.GetString("html"); path != "" {
		if err := writeOutput(cmd.Context(), "--html", path, rep.WriteHTML); err != nil {
			return err
		}
	}
	if path := v.GetString("metrics"); path != "" {
		if err := writeOutput(cmd.Context(), "--metrics", path, func(w io.Writer) error { return rep.WriteOpenMetrics(w, metricsStart) }); err != nil {
			return err
		}
	}
	if !isTable(format) {
		// The report's warnings, labelled: the loader's notes (kinds
		// skipped, copies read once) are infos.
		for _, w := range sc.Warnings {
			label := "warning:"
			if w.Info {
				label = "info:"
			}
			fmt.Fprintln(stderr, label, w)
		}
	}
	var data []byte
	switch format {
	case "json":
		data, err = writeJSON(rep)
	case "csv":
		ms, ferr := experiment.Flatten(rep)
		if ferr != nil {
			return ferr
		}
		rows := [][]string{{"metric", "value"}}
		for _, m := range ms {
			rows = append(rows, []string{m.Path, num(m.Value)})
		}
		data = report.CSV(rows)
	default:
		var buf strings.Builder
		style := tableStyle(format, v.GetString("report"), stdout)
		buf.WriteString(wrap(lead.Summary, style.Width) + "\n")
		if lead.Next != "" {
			buf.WriteString("Next: " + lead.Next + "\n") // one line, to copy
		}
		buf.WriteString("\n")
		err = rep.WriteTable(report.WithStyle(&buf, style))
		data = []byte(buf.String())
	}
	if err != nil {
		return err
	}
	if rep.Partial {
		// An interrupted run is not a run that passed: its outputs are
		// written (marked partial), its gates are not judged on them, and
		// it exits as interrupted (a CI job killed by timeout fails).
		if err := emit(cmd.Context(), v.GetString("report"), data, stdout); err != nil {
			return err
		}
		gates := ""
		if len(v.GetStringSlice("fail-if")) > 0 {
			gates = "; the --fail-if gates were not evaluated on a partial run"
		}
		return fmt.Errorf("%w at %s of %s: the report is partial (marked \"partial\": true)%s", errSignal,
			roundDuration(time.Duration(rep.DurationSeconds*float64(time.Second))), sc.Duration, gates)
	}
	return emitAndGate(cmd.Context(), v, data, baseline, stdout, stderr, func() ([]experiment.Metric, error) { return experiment.Flatten(rep) })
}

// writeState writes the run's state to path, atomically.
func writeState(ctx context.Context, path string, s *simulation.Sim) error {
	f, err := createAtomic(ctx, path)
	if err != nil {
		return fmt.Errorf("--state-out %s: %w", path, err)
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := s.WriteState(w); err != nil {
		return fmt.Errorf("--state-out %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("--state-out %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--state-out %s: %w", path, err)
	}
	return nil
}

// emitAndGate writes a rendered report (to --report or stdout), then checks
// the --fail-if gates against the report's metrics, computed only when
// there are gates.
func emitAndGate(ctx context.Context, v *viper.Viper, data []byte, baseline []experiment.Metric, stdout, stderr io.Writer, metrics func() ([]experiment.Metric, error)) error {
	if err := emit(ctx, v.GetString("report"), data, stdout); err != nil {
		return err
	}
	gates := v.GetStringSlice("fail-if")
	if len(gates) == 0 {
		return nil
	}
	ms, err := metrics()
	if err != nil {
		return err
	}
	return checkGates(gates, "", ms, baseline, stderr)
}

// eventFile opens an atomic file for the timeline; finish flushes it and
// renames it into place, abort (deferred by the caller) drops it when the
// run fails before.
func eventFile(ctx context.Context, path string) (sink trace.Sink, finish func() error, abort func(), err error) {
	f, err := createAtomic(ctx, path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--events %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	var werr error
	sink = func(e trace.Entry) {
		if werr == nil {
			werr = enc.Encode(e)
		}
	}
	finish = func() error {
		if werr == nil {
			werr = w.Flush()
		}
		if werr != nil {
			f.Abort()
		} else {
			werr = f.Commit()
		}
		if werr != nil {
			return fmt.Errorf("--events %s: %w", path, werr)
		}
		return nil
	}
	return sink, finish, f.Abort, nil
}

// multiReport is the JSON of a multi-seed run.
type multiReport struct {
	SchemaVersion int                  `json:"schemaVersion"`
	Scenario      string               `json:"scenario"`
	RootSeed      uint64               `json:"rootSeed"`
	Runs          int                  `json:"runs"`
	Seeds         []uint64             `json:"seeds"`
	Metrics       []experiment.Summary `json:"metrics"`
}

// errInterrupted ends a many-run command on Ctrl-C: its runs stop at
// once, and no aggregate of a partial set of seeds is written.
var errInterrupted = fmt.Errorf("%w: the runs were stopped and no aggregate is written (a single run writes a partial report)", errSignal)

// interruptible runs one seed that stops when ctx is cancelled; a stopped
// or skipped run is errInterrupted. timeline keeps each report's timeline
// (sim compare --html overlays them).
func interruptible(ctx context.Context, check, timeline bool, watch func(engine.Time, int) error) experiment.RunFunc {
	return func(sc *scenario.Scenario, seed uint64) (*report.Report, error) {
		if ctx != nil && ctx.Err() != nil {
			return nil, errInterrupted
		}
		rep, err := simulation.Run(sc, simulation.Options{Seed: &seed, Check: check, Context: ctx, NoTimeline: !timeline, Watch: watch})
		if err == nil && rep.Partial {
			return nil, errInterrupted
		}
		return rep, err
	}
}

func runMany(v *viper.Viper, cmd *cobra.Command, arg string, sc *scenario.Scenario, root uint64, runs int, format string, baseline []experiment.Metric,
	watch func(engine.Time, int) error, stdout, stderr io.Writer) error {
	seeds := experiment.Seeds(root, runs)
	start := time.Now()
	reps, err := experiment.RunMany(sc, seeds, v.GetInt("workers"), interruptible(cmd.Context(), v.GetBool("check"), false, watch), progressBar(stderr))
	if errors.Is(err, errInterrupted) {
		return errInterrupted
	}
	if err != nil {
		return crashReport(err, arg, stderr)
	}
	fmt.Fprintf(stderr, "%d runs of %s in %s\n", runs, sc.Duration, time.Since(start).Round(time.Millisecond))
	sums, err := experiment.Aggregate(reps)
	if err != nil {
		return err
	}
	var data []byte
	switch format {
	case "json":
		data, err = writeJSON(multiReport{SchemaVersion: report.SchemaVersion, Scenario: sc.Name, RootSeed: root, Runs: runs, Seeds: seeds, Metrics: sums})
	case "csv":
		rows := [][]string{{"metric", "runs", "mean", "std", "ciLow", "ciHigh", "min", "p5", "p50", "p95", "max"}}
		for _, s := range sums {
			rows = append(rows, []string{s.Path, fmt.Sprint(s.N), num(s.Mean), num(s.Std), num(s.CILow), num(s.CIHigh),
				num(s.Min), num(s.P5), num(s.P50), num(s.P95), num(s.Max)})
		}
		data = report.CSV(rows)
	default:
		var buf strings.Builder
		fmt.Fprintf(&buf, "Scenario %s, %d runs from root seed %d; means with 95%% confidence intervals\n\n", sc.Name, runs, root)
		t := report.NewTable(report.WithStyle(&buf, tableStyle(format, v.GetString("report"), stdout)))
		t.Header("Metric", "Mean", "95% CI", "p5", "p50", "p95")
		for _, s := range sums {
			if !headline(s.Path) {
				continue
			}
			if err := t.Append(s.Path, fmtNum(s.Mean), fmt.Sprintf("%s .. %s", fmtNum(s.CILow), fmtNum(s.CIHigh)), fmtNum(s.P5), fmtNum(s.P50), fmtNum(s.P95)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		if line := experiment.WorkOf(reps).FailedJobsLine(); line != "" {
			fmt.Fprintf(&buf, "\n%s\n", line)
		}
		buf.WriteString("\nAll metrics: -o json or -o csv.\n")
		data = []byte(buf.String())
	}
	if err != nil {
		return err
	}
	return emitAndGate(cmd.Context(), v, data, baseline, stdout, stderr, func() ([]experiment.Metric, error) { return means(sums), nil })
}

// means turns summaries into metrics, for gates.
func means(sums []experiment.Summary) []experiment.Metric {
	out := make([]experiment.Metric, len(sums))
	for i, s := range sums {
		out[i] = experiment.Metric{Path: s.Path, Value: s.Mean}
	}
	return out
}

// headline picks the metrics a table shows; JSON and CSV have them all.
func headline(path string) bool {
	for _, p := range []string{"pods.total", "pods.scheduled", "pods.pendingAtEnd", "pods.stranded", "pods.succeeded", "pods.deleted", "pods.pendingSeconds.",
		"cost.totalUSD", "cost.spotUSD", "cost.onDemandUSD", "cost.onDemandEquivalentUSD", "cost.savingsPct", "cost.idleUSD",
		"cost.overlaidUSD", "cost.reservationsUSD", "nodes.launched", "nodes.terminated", "nodes.peak", "nodes.failed", "nodes.unhealthyHours",
		"controllers.resubmissions", "controllers.jobsCompleted", "controllers.jobsFailed", "controllers.lostPodSeconds", "karpenter.disruptions.unhealthy", "karpenter.repairsBlocked",
		"provisioning.", "spot.", "karpenter.nodeClaimsLaunched", "karpenter.launchFailures", "clusterAutoscaler.scaleUps",
		"clusterAutoscaler.failedScaleUps", "clusterAutoscaler.raceNodes", "complexity."} {
		if path == p || strings.HasSuffix(p, ".") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
