package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
)

func newLintCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint (SCENARIO[+OVERRIDE.yaml...] | -f FILE...)",
		Short: "Check statically who can land where, and the hybrid's mistakes, before anything runs",
		Long: `Check a scenario's manifests without simulating: a placement matrix of every
workload against every capacity source (each Karpenter NodePool by capacity
type, each Cluster Autoscaler node group, each static pool), with the reason
when a source cannot host it, and findings with severity, file, line, field
and a fix: workloads nothing can host, spot-only workloads without a
fallback, Karpenter and the Cluster Autoscaler racing for the same pods,
capacity of one kind taking pods meant for another, too few spot instance
types, obsolete or ineffective settings.

With -f the files (manifests, or folders of them) are linted in a default
scenario, as if it included them: one hour in the region of --region, else
of the first eksctl ClusterConfig (with its availabilityZones), else
us-east-1; the region's first three zones unless the ClusterConfig names
them; no static nodes, default Karpenter settings, and the Cluster
Autoscaler's flags from its Deployment when the files hold one (else the
defaults). Outside us-east-1 the on-demand prices are us-east-1's (the only
ones in the embedded data). One -f takes several files: -f a.yaml b.yaml
is -f a.yaml -f b.yaml.

Exit codes: 0 no finding at or above --fail-on, 2 some (CI gating), 1 the
input could not be read at all.`,
		Example: `  sim lint hybrid-naive
  sim lint ./my-scenario.yaml -o json --fail-on warning
  sim lint -f nodepool.yaml -f eksctl-cluster.yaml -f workloads/
  sim lint -f nodepool.yaml eksctl-cluster.yaml workloads/
  sim lint -f nodepool.yaml --region eu-west-2`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return lintCommand(cmd.Context(), v, args, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringArrayP("file", "f", nil, "a manifest file or folder to lint without a scenario (repeatable)")
	f.String("region", "", "with -f: the region to lint in (default: the eksctl ClusterConfig's, else us-east-1)")
	f.StringP("output", "o", "table", "output format: table, wide (long cells in full) or json")
	f.String("fail-on", "error", "exit 2 when a finding of this severity or above exists: info, warning or error")
	f.String("report", "", "write the output to this file (atomically) instead of stdout")
	return cmd
}

// lintGate is the error of findings at or above --fail-on: exit code 2.
type lintGate struct {
	n    int
	sev  lint.Severity
	flag string // "" for --fail-on (sim lint)
	// before: the gate stopped a run before it started.
	before bool
}

func (e *lintGate) Error() string {
	flag := e.flag
	if flag == "" {
		flag = "--fail-on"
	}
	msg := fmt.Sprintf("lint: %d finding(s) at or above %s (%s %s)", e.n, e.sev, flag, e.sev)
	if e.before {
		msg += ": nothing ran"
	}
	return msg
}

func (e *lintGate) Is(target error) bool { return target == errGate }

func lintCommand(ctx context.Context, v *viper.Viper, args []string, stdout, stderr io.Writer) error {
	format := v.GetString("output")
	if !isTable(format) && format != "json" {
		return fmt.Errorf("--output %q: use table, wide or json", format)
	}
	failOn, err := lint.ParseSeverity(v.GetString("fail-on"))
	if err != nil {
		return fmt.Errorf("--fail-on: %w", err)
	}
	files := v.GetStringSlice("file")
	if len(files) > 0 {
		// -f a.yaml b.yaml: the words after the files are files too, as
		// kubectl apply -f users expect of a shell glob (-f *.yaml).
		files, args = append(files, args...), nil
	}
	region := v.GetString("region")
	if region != "" {
		if len(files) == 0 {
			return errors.New("--region applies to -f FILE: a scenario sets its region in spec.region")
		}
		cat, err := catalog.Default()
		if err != nil {
			return err
		}
		if !slices.Contains(cat.Regions(), region) {
			return fmt.Errorf("--region %q: no EC2 data for it; use one of %s", region, strings.Join(cat.Regions(), ", "))
		}
	}
	var outs, ins pathSet
	outs.addFlags(v, "report")
	ins.addFlags(v, "config")
	ins.addArgs("an input", append(slices.Clone(args), files...)...)
	if err := checkClobber(outs, ins); err != nil {
		return err
	}
	var name string
	var sc *scenario.Scenario
	switch {
	case len(args) > 1:
		return fmt.Errorf("give one scenario, not %d (lint manifests with -f %s; add manifests to a scenario with SCENARIO+FILE.yaml)", len(args), strings.Join(args, " "))
	case len(args) == 1:
		name = args[0]
		sc, err = loadScenario(ctx, args[0])
	case len(files) > 0:
		name = strings.Join(files, " ")
		sc, err = awaitInput(ctx, func() (*scenario.Scenario, error) { return loadFiles(files, region) })
	default:
		return errors.New("give a scenario (a file or an embedded name) or manifests with -f FILE")
	}
	var res lint.Result
	if err != nil {
		r, ok := lint.FromLoadError(name, err)
		if !ok {
			return err
		}
		res = r
	} else {
		if len(args) == 1 {
			ins.addScenario(args[0], sc)
		} else {
			for _, f := range sc.Files {
				ins.add("a linted file", f)
			}
		}
		if err := checkClobber(outs, ins); err != nil {
			return err
		}
		res = lint.Check(sc)
		if len(files) > 0 {
			res.Scenario = name
		}
	}
	var out []byte
	if format == "json" {
		if out, err = writeJSON(&res); err != nil {
			return err
		}
	} else {
		var buf bytes.Buffer
		if err := res.WriteTable(report.WithStyle(&buf, tableStyle(format, v.GetString("report"), stdout))); err != nil {
			return err
		}
		out = buf.Bytes()
	}
	if err := emit(ctx, v.GetString("report"), out, stdout); err != nil {
		return err
	}
	if n := res.Count(failOn); n > 0 {
		return &lintGate{n: n, sev: failOn}
	}
	return nil
}

// loadFiles lints manifests on their own: a default scenario, held in
// memory (in region unless it is ""), that includes the files, so that they are read exactly as a
// scenario including them reads them (sim run agrees with sim lint -f).
func loadFiles(files []string, region string) (*scenario.Scenario, error) {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			if _, ok := scenarios.File(f); ok {
				return nil, fmt.Errorf("-f %s: %s is an embedded scenario, not a manifest file: lint it alone (sim lint %s), or add manifests to it with %s+FILE.yaml", f, f, f, f)
			}
		}
	}
	var docs []*manifest.Document
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("-f %s: %w", f, err)
		}
		d, err := manifest.ReadPath(f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	const name = "sim-lint-f.yaml"
	sc, err := scenario.LoadManifests(name, lint.FilesScenario(docs, region), files)
	if err != nil {
		return nil, err
	}
	// Warnings about the scenario we made up concern nothing the user wrote.
	kept := sc.Warnings[:0]
	for _, w := range sc.Warnings {
		if w.File != name {
			kept = append(kept, w)
		}
	}
	if region != "" && region != catalog.PriceBaseRegion {
		// The scenario's own warning about prices is about the flag.
		kept = append(kept, scenario.Warning{Msg: fmt.Sprintf("--region %s: on-demand prices are known only for %s; its prices stand in for %s (real prices there differ; spot uses %s's Spot Advisor savings against them)",
			region, catalog.PriceBaseRegion, region, region)})
	}
	sc.Warnings = kept
	return sc, nil
}
