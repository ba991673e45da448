package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
)

func newCompareCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare A B [C ...]",
		Short: "Compare configurations on the same seeds, with a paired test per metric",
		Long: `Run two or more configurations on the same seeds (common random numbers) and
report, per metric, each configuration's mean, its difference from the first
(the baseline), and whether the difference is significant (paired t-test,
p < 0.05). A configuration is a scenario, optionally with "+FILE" manifest
overrides: "base.yaml base.yaml+candidate-nodepool.yaml" compares the current
and the proposed NodePool on the same workload.`,
		Example: `  sim compare hybrid-naive karpenter-mixed --runs 20
  sim compare base.yaml base.yaml+candidate.yaml --runs 50 -o csv
  sim compare base.yaml base.yaml+candidate.yaml --fail-if 'cost.totalUSD>1.1*baseline'`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return compare(v, cmd, args, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.Uint64("seed", 0, "root seed (default: the first configuration's)")
	f.StringP("output", "o", "table", "format: table, wide (never folded to the terminal's width), json or csv")
	f.String("report", "", "write the comparison to this file (atomically) instead of stdout")
	f.String("html", "", "also write the comparison as one self-contained HTML page (timelines overlaid, metrics, cost against pending p99) to this file")
	f.Int("runs", 10, "seeds per configuration")
	f.Int("workers", 0, "parallel runs (default: all cores)")
	f.StringArray("fail-if", nil, "exit 2 if this holds for any configuration after the first; 'baseline' is the first configuration's mean (repeatable)")
	f.String("fail-on-lint", "", "exit 2 before any run when a configuration has a lint finding of this severity or above: info, warning or error (error findings are always printed)")
	addWhatIfFlags(f)
	return cmd
}

type comparison struct {
	SchemaVersion int          `json:"schemaVersion"`
	Configs       []string     `json:"configs"`
	RootSeed      uint64       `json:"rootSeed"`
	Runs          int          `json:"runs"`
	Seeds         []uint64     `json:"seeds"`
	Comparisons   []comparedTo `json:"comparisons"`
}

type comparedTo struct {
	Config string             `json:"config"`
	Deltas []experiment.Delta `json:"deltas"`
	// WorkGap warns that this configuration and the baseline did not do
	// the same work (experiment.WorkGap); absent when they did.
	WorkGap string `json:"workGap,omitempty"`
}

func compare(v *viper.Viper, cmd *cobra.Command, args []string, stdout, stderr io.Writer) error {
	format, err := checkFormat(v)
	if err != nil {
		return err
	}
	if err := parseGates(v.GetStringSlice("fail-if")); err != nil {
		return err
	}
	runs := v.GetInt("runs")
	if runs < 2 || runs > 100000 {
		return fmt.Errorf("--runs %d: a comparison needs 2 to 100000 runs", runs)
	}
	var results [][]*report.Report
	var root uint64
	var outs, ins pathSet
	outs.addFlags(v, "report", "html")
	ins.addFlags(v, "config")
	ins.addArgs("an input", args...)
	if err := checkClobber(outs, ins); err != nil {
		return err
	}
	// Every configuration is loaded and linted before any runs: a bad
	// file or a lint gate in the last one costs no compute.
	loaded := make([]*scenario.Scenario, len(args))
	for i, arg := range args {
		sc, err := loadScenario(cmd.Context(), arg)
		if err != nil {
			return err
		}
		if err := applyWhatIfs(v, sc); err != nil {
			return err
		}
		ins.addScenario(arg, sc)
		if err := checkClobber(outs, ins); err != nil {
			return err
		}
		if _, err := lintBeforeRun(v, sc, arg, stderr); err != nil {
			return err
		}
		loaded[i] = sc
	}
	start := time.Now()
	for i, arg := range args {
		sc := loaded[i]
		if i == 0 {
			root = sc.Seed
			if s := seedOf(v, cmd); s != nil {
				root = *s
			}
		}
		reps, err := experiment.RunMany(sc, experiment.Seeds(root, runs), v.GetInt("workers"), interruptible(cmd.Context(), false, v.GetString("html") != "", nil), progressBar(stderr))
		if errors.Is(err, errInterrupted) {
			return errInterrupted
		}
		if err != nil {
			return fmt.Errorf("%s: %w", arg, err)
		}
		results = append(results, reps)
	}
	fmt.Fprintf(stderr, "%d configurations x %d runs in %s\n", len(args), runs, time.Since(start).Round(time.Millisecond))
	out := comparison{SchemaVersion: report.SchemaVersion, Configs: args, RootSeed: root, Runs: runs, Seeds: experiment.Seeds(root, runs)}
	for i := 1; i < len(args); i++ {
		d, err := experiment.Compare(results[0], results[i])
		if err != nil {
			return err
		}
		gap := experiment.WorkGap(args[0], args[i], experiment.WorkOf(results[0]), experiment.WorkOf(results[i]))
		out.Comparisons = append(out.Comparisons, comparedTo{Config: args[i], Deltas: d, WorkGap: gap})
		if gap != "" && format != "table" && format != "wide" {
			fmt.Fprintln(stderr, gap) // the table has it under the metrics
		}
	}
	var data []byte
	switch format {
	case "json":
		data, err = writeJSON(out)
	case "csv":
		rows := [][]string{{"config", "metric", "base", "other", "delta", "deltaPct", "ciLow", "ciHigh", "pValue", "significant"}}
		for _, c := range out.Comparisons {
			for _, d := range c.Deltas {
				rows = append(rows, []string{c.Config, d.Path, num(d.Base), num(d.Other), num(d.Diff), num(d.DiffPct),
					num(d.CILow), num(d.CIHigh), num(d.PValue), fmt.Sprint(d.Significant)})
			}
		}
		data = report.CSV(rows)
	default:
		data, err = compareTable(out, tableStyle(format, v.GetString("report"), stdout))
	}
	if err != nil {
		return err
	}
	if err := emit(cmd.Context(), v.GetString("report"), data, stdout); err != nil {
		return err
	}
	if path := v.GetString("html"); path != "" {
		if err := writeOutput(cmd.Context(), "--html", path, comparisonPage(out, results).WriteCompareHTML); err != nil {
			return err
		}
	}
	gates := v.GetStringSlice("fail-if")
	if len(gates) == 0 {
		return nil
	}
	var failed error
	for _, c := range out.Comparisons {
		var vals, base []experiment.Metric
		for _, d := range c.Deltas {
			vals = append(vals, experiment.Metric{Path: d.Path, Value: d.Other})
			base = append(base, experiment.Metric{Path: d.Path, Value: d.Base})
		}
		if err := checkGates(gates, c.Config, vals, base, stderr); err != nil {
			if err != errGate {
				return err
			}
			failed = err
		}
	}
	return failed
}

// compareTable renders a comparison: one row per metric with each
// configuration's mean and delta side by side; on a terminal too narrow
// for that (and not -o wide), one row per metric and configuration.
func compareTable(c comparison, st report.TableStyle) ([]byte, error) {
	if len(c.Comparisons) == 0 {
		return nil, fmt.Errorf("nothing to compare")
	}
	var buf strings.Builder
	fmt.Fprintf(&buf, "%d runs per configuration on the same seeds (root %d); baseline: %s\n", c.Runs, c.RootSeed, c.Configs[0])
	fmt.Fprintf(&buf, "delta: mean difference from the baseline; * significant (paired t-test, p < 0.05)\n\n")
	head := buf.Len()
	if err := compareColumns(c, report.WithStyle(&buf, st)); err != nil {
		return nil, err
	}
	if st.Width > 0 && !st.Wide && maxLineWidth(buf.String()[head:]) > st.Width {
		out := buf.String()[:head]
		buf.Reset()
		buf.WriteString(out)
		if err := compareRows(c, report.WithStyle(&buf, st)); err != nil {
			return nil, err
		}
	}
	for _, cmp := range c.Comparisons {
		if cmp.WorkGap != "" {
			fmt.Fprintf(&buf, "\n%s\n", cmp.WorkGap)
		}
	}
	return []byte(buf.String()), nil
}

// compareDeltas indexes each comparison's deltas by metric.
func compareDeltas(c comparison) []map[string]experiment.Delta {
	byPath := make([]map[string]experiment.Delta, len(c.Comparisons))
	for i, cmp := range c.Comparisons {
		byPath[i] = map[string]experiment.Delta{}
		for _, d := range cmp.Deltas {
			byPath[i][d.Path] = d
		}
	}
	return byPath
}

// deltaCell is a delta as the tables show it: +1.5 (+3.0%) *.
func deltaCell(d experiment.Delta) string {
	mark := ""
	if d.Significant {
		mark = " *"
	}
	pct := ""
	if d.Base != 0 {
		pct = fmt.Sprintf(" (%+.1f%%)", d.DiffPct)
	}
	return fmt.Sprintf("%+g%s%s", roundSig(d.Diff), pct, mark)
}

// compareColumns: configurations as columns.
func compareColumns(c comparison, w io.Writer) error {
	t := report.NewTable(w)
	header := []any{"Metric", c.Configs[0]}
	for _, cmp := range c.Comparisons {
		header = append(header, cmp.Config, "delta")
	}
	t.Header(header...)
	byPath := compareDeltas(c)
	for _, d0 := range c.Comparisons[0].Deltas {
		if !headline(d0.Path) {
			continue
		}
		row := []any{d0.Path, fmtNum(d0.Base)}
		for i := range c.Comparisons {
			d, ok := byPath[i][d0.Path]
			if !ok {
				row = append(row, "-", "-")
				continue
			}
			row = append(row, fmtNum(d.Other), deltaCell(d))
		}
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	return t.Render()
}

// compareRows: configurations as rows, under each metric, for narrow
// terminals.
func compareRows(c comparison, w io.Writer) error {
	t := report.NewTable(w)
	t.Header("Metric", "Configuration", "Mean", "delta")
	byPath := compareDeltas(c)
	for _, d0 := range c.Comparisons[0].Deltas {
		if !headline(d0.Path) {
			continue
		}
		if err := t.Append(d0.Path, c.Configs[0], fmtNum(d0.Base), "baseline"); err != nil {
			return err
		}
		for i, cmp := range c.Comparisons {
			row := []any{"", cmp.Config, "-", "-"}
			if d, ok := byPath[i][d0.Path]; ok {
				row[2], row[3] = fmtNum(d.Other), deltaCell(d)
			}
			if err := t.Append(row...); err != nil {
				return err
			}
		}
	}
	return t.Render()
}

// maxLineWidth is the widest line of s, in runes (box-drawing characters
// are one column each).
func maxLineWidth(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	s := fmt.Sprintf("%.4g", x)
	var f float64
	fmt.Sscan(s, &f)
	return f
}
