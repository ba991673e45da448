package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/sweep"
)

func newSweepCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep A [B+X.yaml ...] | SWEEP.yaml | NAME",
		Short: "Run a grid of configurations on the same seeds, report each point and the Pareto frontier; shard it over processes or a Kubernetes Indexed Job",
		Long: `Run every configuration on the same seeds (as sim compare) and report, per
point, every metric's mean and 95% confidence interval, with the points on the
Pareto frontier of cost, pending p99, stranded pods and controller actions
marked. The configurations are the arguments (scenarios with "+FILE"
overrides), or a Sweep document (kind: Sweep, docs/sweep.md) whose axes make a
grid, or the name of an embedded sweep (hybrid-frontier).

--shard I/N runs the I-th (from 0) of N slices of the (point, seed) pairs and
writes a partial result (to stdout, or --out); --shards N takes I from
JOB_COMPLETION_INDEX. "sim sweep merge" combines partials into the output of
the unsharded run. --emit-job writes the Kubernetes manifests that run the
shards as an Indexed Job.`,
		Example: `  sim sweep hybrid-frontier
  sim sweep base.yaml base.yaml+candidate.yaml --runs 20 -o csv
  sim sweep grid.yaml --shard 0/4 --out part-0.txt
  sim sweep merge part-*.txt -o json
  sim sweep grid.yaml --emit-job --image registry.example.com/sim:v1 --shards 20 > job.yaml
  kubectl logs -l job-name=NAME --tail=-1 | sim sweep merge -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(v, cmd, args, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.Uint64("seed", 0, "root seed (default: the Sweep's spec.seed, else the first scenario's)")
	f.StringP("output", "o", "table", "format: table, json or csv")
	f.String("report", "", "write the output to this file (atomically) instead of stdout")
	f.String("html", "", "also write a page with cost against pending p99 and the frontier marked, and every point's means, to this file")
	f.Int("runs", 0, "seeds per point (default: the Sweep's spec.runs, else 10)")
	f.Int("workers", 0, "parallel runs (default: all cores)")
	f.String("shard", "", "I/N: run only the I-th (from 0) of N slices of the (point, seed) pairs and write a partial result")
	f.Int("shards", 0, "N: as --shard I/N with I from $JOB_COMPLETION_INDEX (an Indexed Job's pod); with --emit-job, the Job's completions")
	f.String("out", "", "write the partial result (or --emit-job's manifests) to this file, atomically; a folder (ending in /) gets shard-I-of-N.partial")
	f.Bool("emit-job", false, "write a ConfigMap and an Indexed Job that run the sweep's shards on Kubernetes instead of running it")
	f.String("image", "", "--emit-job: the image of sim (see the Dockerfile)")
	f.String("job-name", "", "--emit-job: the Job's name (default: sim-sweep- and the sweep's fingerprint)")
	f.String("namespace", "", "--emit-job: the namespace of the Job and the ConfigMap (default: kubectl's)")
	f.Int("parallelism", 0, "--emit-job: shards running at once (default: all)")
	f.Int("backoff-limit-per-index", 2, "--emit-job: retries of a failed index before it counts as failed")
	f.Int("shard-workers", 1, "--emit-job: parallel runs in one shard (its CPU request; memory is that many runs)")
	f.String("scenario-claim", "", "--emit-job: a PersistentVolumeClaim holding the scenario files (mounted at /sweep) instead of a ConfigMap")
	f.String("results-claim", "", "--emit-job: a PersistentVolumeClaim mounted at /results where shards write their partials, instead of their logs")
	addWhatIfFlags(f)
	cmd.AddCommand(newSweepMergeCmd(v, stdout, stderr))
	return cmd
}

func newSweepMergeCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge FILE... | -",
		Short: "Combine the partial results of a sweep's shards into its output",
		Long: `Read the partial results that "sim sweep --shard" wrote (files, or "-" for
standard input: a stream such as kubectl logs, where other lines are skipped)
and write the output of the unsharded run, byte for byte. Partials of another
sweep are refused; a partial cut short (its shard was stopped) is ignored with
a warning; pairs missing or given twice are named, with the shards to rerun,
and the merge fails.`,
		Example: `  sim sweep merge part-0.txt part-1.txt part-2.txt -o csv
  kubectl logs -l job-name=sim-sweep-1a2b3c4d --tail=-1 | sim sweep merge -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mergeSweep(v, cmd, args, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringP("output", "o", "table", "format: table, json or csv")
	f.String("report", "", "write the output to this file (atomically) instead of stdout")
	f.String("html", "", "also write the sweep's page (as sim sweep --html) to this file")
	return cmd
}

// sweepInput is a sweep ready to run: its definition, how to load a
// point, and its input files.
type sweepInput struct {
	def  *sweep.Sweep
	load func(p *sweep.Point) (*scenario.Scenario, error)
	// fsys is where the points' scenarios are (nil: on disk, or embedded
	// by name).
	fsys  fs.FS
	files []sweep.File
	// memory is the most one run of a point needs.
	memory int64
}

// sweepDefinition builds the sweep the arguments name.
func sweepDefinition(v *viper.Viper, cmd *cobra.Command, args []string) (*sweepInput, error) {
	in := &sweepInput{}
	var sweepFile *sweep.File
	var seedSet bool
	if len(args) == 1 && !strings.Contains(args[0], "+") {
		def, file, set, err := readSweepDoc(args[0], in)
		if err != nil {
			return nil, err
		}
		in.def, sweepFile, seedSet = def, file, set
	}
	if in.def == nil {
		in.def = &sweep.Sweep{Runs: sweep.DefaultRuns}
		for _, a := range args {
			parts := strings.Split(a, "+")
			in.def.Points = append(in.def.Points, sweep.Point{Name: a, Base: parts[0], Overrides: parts[1:]})
		}
	}
	def := in.def
	if r := v.GetInt("runs"); r != 0 {
		def.Runs = r
	}
	var whatIfs []string
	if f := v.GetFloat64("scale-workloads"); f != 1 {
		whatIfs = append(whatIfs, "--scale-workloads="+strconv.FormatFloat(f, 'g', -1, 64))
	}
	for _, z := range v.GetStringSlice("zone-out") {
		whatIfs = append(whatIfs, "--zone-out="+z)
	}
	def.WhatIfs = whatIfs
	in.load = func(p *sweep.Point) (*scenario.Scenario, error) {
		var sc *scenario.Scenario
		var err error
		switch {
		case in.fsys != nil:
			sc, err = scenario.LoadFSOverrides(in.fsys, p.Base, p.Overrides...)
		case fileExists(p.Base):
			sc, err = scenario.LoadFile(p.Base, p.Overrides...)
		default:
			sc, err = loadEmbedded(p.Base, p.Overrides)
		}
		if err != nil {
			return nil, err
		}
		if err := applyWhatIfs(v, sc); err != nil {
			return nil, err
		}
		return sc, nil
	}
	// Load every point once: errors before anything runs, the root seed,
	// the memory estimate and the input files.
	type fileKey struct {
		path     string
		embedded bool
	}
	seen := map[fileKey]bool{}
	if sweepFile != nil {
		in.files = append(in.files, *sweepFile)
	}
	for i := range def.Points {
		p := &def.Points[i]
		sc, err := in.load(p)
		if err != nil {
			return nil, err
		}
		if err := p.Apply(sc); err != nil {
			return nil, err
		}
		if i == 0 && !seedSet {
			def.RootSeed = sc.Seed
		}
		in.memory = max(in.memory, runMemory(sc))
		for _, f := range sc.Files {
			embedded := in.fsys != nil || (!fileExists(p.Base) && !fromOverride(p.Overrides, f))
			key := sweep.File{Path: f, Embedded: embedded}
			if seen[fileKey{f, embedded}] {
				continue
			}
			seen[fileKey{f, embedded}] = true
			var data []byte
			if embedded {
				data, err = fs.ReadFile(scenarios.FS, f)
			} else if tr := sc.Market.Trace; tr != nil && tr.Name == f {
				data, err = os.ReadFile(f) // a replay trace: the run reads it whole
			} else {
				data, err = keptData(f)
			}
			if err != nil {
				return nil, err
			}
			key.Data = data
			in.files = append(in.files, key)
		}
	}
	if s := seedOf(v, cmd); s != nil {
		def.RootSeed = *s
	}
	if err := def.Validate(); err != nil {
		return nil, err
	}
	return in, nil
}

// readSweepDoc reads arg as a Sweep document (a file, or an embedded
// sweep's name); nil if arg is not one.
func readSweepDoc(arg string, in *sweepInput) (*sweep.Sweep, *sweep.File, bool, error) {
	if fileExists(arg) {
		data, err := manifest.ReadFileLimited(arg)
		if err != nil {
			return nil, nil, false, err
		}
		docs, err := manifest.ReadBytes(arg, data)
		if err != nil || !sweep.IsSweep(docs) {
			return nil, nil, false, nil // a scenario: its loader reports its errors
		}
		dir := filepath.Dir(arg)
		def, set, err := sweep.Decode(docs, func(rel string, isScenario bool) (string, bool) {
			p := rel
			if !filepath.IsAbs(rel) {
				p = filepath.Join(dir, rel)
			}
			if fileExists(p) {
				return p, true
			}
			if _, ok := scenarios.File(rel); ok && isScenario {
				return rel, true
			}
			return p, false
		})
		if err != nil {
			return nil, nil, false, err
		}
		kept, err := keptData(arg)
		return def, &sweep.File{Path: arg, Data: kept}, set, err
	}
	name, ok := scenarios.Sweep(arg)
	if !ok {
		return nil, nil, false, nil
	}
	docs, err := manifest.ReadFS(scenarios.FS, name)
	if err != nil {
		return nil, nil, false, err
	}
	in.fsys = scenarios.FS
	dir := filepath.ToSlash(filepath.Dir(name))
	def, set, err := sweep.Decode(docs, func(rel string, _ bool) (string, bool) {
		p := cleanFS(dir + "/" + rel)
		_, err := fs.Stat(scenarios.FS, p)
		return p, err == nil
	})
	data, _ := fs.ReadFile(scenarios.FS, name)
	return def, &sweep.File{Path: name, Embedded: true, Data: data}, set, err
}

// keptData is what the sweep's runs read of the file at path on disk
// (sweep.Kept): the documents the loader reads, without comments,
// environment values or commands. The fingerprint hashes it and
// --emit-job's ConfigMap carries it, so that what no run reads (an
// included Secret, a ConfigMap, an env value) never leaves the machine,
// and a shard reading the ConfigMap computes the same fingerprint.
func keptData(path string) ([]byte, error) {
	data, err := manifest.ReadFileLimited(path)
	if err != nil {
		return nil, err
	}
	return sweep.Kept(path, data, func(d *manifest.Document) bool { return d.Kind == sweep.Kind || scenario.Reads(d) })
}

// fromOverride says whether file f was read as (or from a folder given
// as) one of the overrides.
func fromOverride(overrides []string, f string) bool {
	for _, o := range overrides {
		if f == o || strings.HasPrefix(f, strings.TrimSuffix(o, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func cleanFS(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func runSweep(v *viper.Viper, cmd *cobra.Command, args []string, stdout, stderr io.Writer) error {
	format, err := checkFormat(v)
	if err != nil {
		return err
	}
	shardFlag, shards := v.GetString("shard"), v.GetInt("shards")
	if shardFlag != "" && shards != 0 {
		return fmt.Errorf("--shard %s and --shards %d: give one (--shards takes the index from JOB_COMPLETION_INDEX)", shardFlag, shards)
	}
	emitJob := v.GetBool("emit-job")
	if v.GetString("report") != "" && (emitJob || shardFlag != "" || shards != 0) {
		return fmt.Errorf("--report writes the sweep's output; a shard writes a partial result and --emit-job manifests: give --out FILE")
	}
	if v.GetString("html") != "" && (emitJob || shardFlag != "" || shards != 0) {
		return fmt.Errorf("--html draws the whole sweep: write it with the unsharded run or with sim sweep merge, not with a shard or --emit-job")
	}
	if !emitJob {
		for _, f := range []string{"image", "job-name", "namespace", "scenario-claim", "results-claim"} {
			if v.GetString(f) != "" {
				return fmt.Errorf("--%s is a setting of --emit-job: add --emit-job, or drop it", f)
			}
		}
	}
	in, err := awaitInput(cmd.Context(), func() (*sweepInput, error) { return sweepDefinition(v, cmd, args) })
	if err != nil {
		return err
	}
	var ins pathSet
	ins.addFlags(v, "config")
	for _, f := range in.files {
		if !f.Embedded {
			ins.add("an input of the sweep", f.Path)
		}
	}
	id, err := sweep.Identify(in.def, in.files, buildVersion())
	if err != nil {
		return err
	}
	fp := id.Fingerprint
	if emitJob {
		var outs pathSet
		outs.addFlags(v, "out")
		if err := checkClobber(outs, ins); err != nil {
			return err
		}
		return emitSweepJob(cmd.Context(), v, args, in, fp, stdout)
	}
	sh := sweep.All
	switch {
	case shardFlag != "":
		if sh, err = sweep.ParseShard(shardFlag); err != nil {
			return err
		}
	case shards != 0:
		env := os.Getenv("JOB_COMPLETION_INDEX")
		i, err := strconv.Atoi(env)
		if env == "" || err != nil {
			return fmt.Errorf("--shards %d takes the shard's index from JOB_COMPLETION_INDEX, which is %q: run it in an Indexed Job's pod, or give --shard I/%d", shards, env, shards)
		}
		if sh, err = sweep.NewShard(i, shards); err != nil {
			return fmt.Errorf("JOB_COMPLETION_INDEX: %w", err)
		}
	}
	var outs pathSet
	outs.addFlags(v, "report", "html")
	outs.add("--out", partialPath(v.GetString("out"), sh))
	if err := checkClobber(outs, ins); err != nil {
		return err
	}
	runner := &sweep.Runner{Sweep: in.def, Load: in.load, Run: interruptible(cmd.Context(), false, false, nil),
		Workers: v.GetInt("workers"), Progress: progressBar(stderr)}
	start := time.Now()
	if shardFlag != "" || shards != 0 {
		if err := writePartial(cmd.Context(), v.GetString("out"), runner, id, sh, stdout); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "shard %s: %d of %d runs in %s\n", sh, in.def.Count(sh), in.def.Pairs(), time.Since(start).Round(time.Millisecond))
		return nil
	}
	if v.GetString("out") != "" {
		return fmt.Errorf("--out writes a shard's partial result or --emit-job's manifests: add --shard I/N, or write the output with --report")
	}
	results := make([]sweep.Result, 0, in.def.Pairs())
	err = runner.Do(sh, func(r sweep.Result) error {
		results = append(results, r)
		return nil
	})
	if errors.Is(err, errInterrupted) {
		return errInterrupted
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d points x %d runs in %s\n", len(in.def.Points), in.def.Runs, time.Since(start).Round(time.Millisecond))
	return renderSweep(cmd.Context(), v, in.def, results, format, stdout)
}

func renderSweep(ctx context.Context, v *viper.Viper, def *sweep.Sweep, results []sweep.Result, format string, stdout io.Writer) error {
	out, err := sweep.Aggregate(def, results)
	if err != nil {
		return err
	}
	data, err := out.Render(format)
	if err != nil {
		return err
	}
	if path := v.GetString("html"); path != "" {
		if err := writeOutput(ctx, "--html", path, out.Page().WriteSweepHTML); err != nil {
			return err
		}
	}
	return emit(ctx, v.GetString("report"), data, stdout)
}

// writePartial runs a shard and writes its partial to out (a file,
// atomically; a folder ending in /; or stdout when empty).
func writePartial(ctx context.Context, out string, runner *sweep.Runner, id sweep.Identity, sh sweep.Shard, stdout io.Writer) error {
	var w io.Writer = stdout
	var f *atomicFile
	if out != "" {
		out = partialPath(out, sh)
		var err error
		if f, err = createAtomic(ctx, out); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
		defer f.Abort()
		w = f
	}
	pw, err := sweep.NewPartialWriter(w, runner.Sweep, id, sh)
	if err != nil {
		return err
	}
	if err := runner.Do(sh, pw.Write); err != nil {
		if errors.Is(err, errInterrupted) {
			return errInterrupted
		}
		return err
	}
	if err := pw.Close(); err != nil {
		return err
	}
	if f != nil {
		if err := f.Commit(); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
	}
	return nil
}

// partialPath is the file --out names for shard sh: out, or a file in it
// when it is a folder (or ends in /).
func partialPath(out string, sh sweep.Shard) string {
	if out != "" && (strings.HasSuffix(out, "/") || isDir(out)) {
		return filepath.Join(out, fmt.Sprintf("shard-%d-of-%d.partial", sh.Index, sh.Of))
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func mergeSweep(v *viper.Viper, cmd *cobra.Command, args []string, stdout, stderr io.Writer) error {
	format, err := checkFormat(v)
	if err != nil {
		return err
	}
	var outs, ins pathSet
	outs.addFlags(v, "report", "html")
	ins.addFlags(v, "config")
	for _, a := range args {
		if a != "-" {
			ins.add("a partial merged", a)
		}
	}
	if err := checkClobber(outs, ins); err != nil {
		return err
	}
	m := sweep.NewMerger()
	for _, a := range args {
		_, err := awaitInput(cmd.Context(), func() (struct{}, error) {
			if a == "-" {
				return struct{}{}, m.Read(cmd.InOrStdin(), "<stdin>")
			}
			f, err := os.Open(a)
			if err != nil {
				return struct{}{}, err
			}
			defer f.Close()
			return struct{}{}, m.Read(f, a)
		})
		if err != nil {
			return err
		}
	}
	for _, w := range m.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	def, results, err := m.Results()
	if err != nil {
		return err
	}
	return renderSweep(cmd.Context(), v, def, results, format, stdout)
}

// emitSweepJob writes the manifests that run the sweep on Kubernetes.
func emitSweepJob(ctx context.Context, v *viper.Viper, args []string, in *sweepInput, fp string, stdout io.Writer) error {
	image, shards := v.GetString("image"), v.GetInt("shards")
	if image == "" {
		return fmt.Errorf("--emit-job needs --image IMAGE: the image of sim the shards run (build it with the Dockerfile)")
	}
	if shards < 1 {
		return fmt.Errorf("--emit-job needs --shards N: how many shards (the Job's completions), e.g. 20")
	}
	if v.GetString("shard") != "" {
		return fmt.Errorf("--shard runs one shard; --emit-job takes --shards N")
	}
	if v.GetString("scenario-claim") != "" && v.GetString("results-claim") == v.GetString("scenario-claim") {
		return fmt.Errorf("--scenario-claim and --results-claim name the same claim: give the results a claim of their own (the scenarios are mounted read-only)")
	}
	name := v.GetString("job-name")
	if name == "" {
		name = "sim-sweep-" + strings.TrimPrefix(fp, "sha256:")[:10]
	}
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 || len(name) > 52 {
		return fmt.Errorf("--job-name %q: use at most 52 lower-case letters, digits and '-', starting and ending with a letter or digit (a Job's name is in its pods' names and labels)", name)
	}
	if ns := v.GetString("namespace"); ns != "" {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return fmt.Errorf("--namespace %q: %s", ns, strings.Join(errs, "; "))
		}
	}
	workers := max(v.GetInt("shard-workers"), 1)
	js := sweep.JobSpec{Name: name, Namespace: v.GetString("namespace"), Image: image, Shards: shards,
		Parallelism: v.GetInt("parallelism"), BackoffLimitPerIndex: v.GetInt("backoff-limit-per-index"),
		ScenarioClaim: v.GetString("scenario-claim"), ResultsClaim: v.GetString("results-claim"),
		Memory: int64(workers)*in.memory + 64<<20, CPU: workers}
	if js.BackoffLimitPerIndex < 0 {
		return fmt.Errorf("--backoff-limit-per-index %d: use 0 or more", js.BackoffLimitPerIndex)
	}
	// The shards run the same command line: the arguments as given, the
	// resolved runs and seed, and the what-ifs.
	js.Args = append(slices.Clone(args), "--runs", strconv.Itoa(in.def.Runs), "--seed", strconv.FormatUint(in.def.RootSeed, 10))
	js.Args = append(js.Args, in.def.WhatIfs...)
	// Files on disk go in the ConfigMap under their path relative to the
	// common folder of the files and the working folder, which becomes
	// the shards' working folder below /sweep.
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	var disk []sweep.File
	root := cwd
	for _, f := range in.files {
		if f.Embedded {
			continue
		}
		if filepath.IsAbs(f.Path) {
			return fmt.Errorf("--emit-job: %s is an absolute path; give the scenario files as paths relative to the current folder, so that the shards find them at the same place in the ConfigMap", f.Path)
		}
		abs := filepath.Join(cwd, f.Path)
		for !strings.HasPrefix(abs, root+string(filepath.Separator)) && root != filepath.Dir(root) {
			root = filepath.Dir(root)
		}
		disk = append(disk, f)
	}
	for i := range disk {
		rel, err := filepath.Rel(root, filepath.Join(cwd, disk[i].Path))
		if err != nil {
			return err
		}
		disk[i].Path = filepath.ToSlash(rel)
	}
	wd, err := filepath.Rel(root, cwd)
	if err != nil {
		return err
	}
	js.Files, js.WorkDir = disk, filepath.ToSlash(wd)
	data, err := sweep.Manifests(js)
	if err != nil {
		return err
	}
	if out := v.GetString("out"); out != "" {
		if err := writeAtomic(ctx, out, data); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
		return nil
	}
	_, err = stdout.Write(data)
	return err
}
