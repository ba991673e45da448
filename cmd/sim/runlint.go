package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/scenario"
)

// lintBeforeRun checks the scenario as sim lint does, before any run: a
// cause (a pod no source can ever host, a pool that cannot launch) is
// printed before its consequences (pods pending for the whole run).
// Error findings are always printed to stderr; with --fail-on-lint, the
// findings at or above that severity are printed and stop the command
// (exit 2) before anything runs. label names the configuration in
// sim compare ("" for sim run).
func lintBeforeRun(v *viper.Viper, sc *scenario.Scenario, label string, stderr io.Writer) (*lint.Result, error) {
	var failOn lint.Severity
	gated := v.GetString("fail-on-lint") != ""
	if gated {
		sev, err := lint.ParseSeverity(v.GetString("fail-on-lint"))
		if err != nil {
			return nil, fmt.Errorf("--fail-on-lint: %w", err)
		}
		failOn = sev
	}
	show := lint.Error
	if gated {
		show = min(show, failOn)
	}
	res := lint.Check(sc)
	if res.Count(show) == 0 {
		return &res, nil
	}
	prefix := ""
	if label != "" {
		prefix = label + ": "
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Severity < show {
			continue
		}
		line := fmt.Sprintf("lint %s%s: %s", prefix, f.Severity, f.Message)
		if loc := f.Location(); loc != "" {
			line = fmt.Sprintf("lint %s%s: %s: %s", prefix, f.Severity, loc, f.Message)
		}
		if f.Fix != "" {
			line += " (fix: " + f.Fix + ")"
		}
		fmt.Fprintln(stderr, line)
	}
	if gated {
		if n := res.Count(failOn); n > 0 {
			return nil, &lintGate{n: n, sev: failOn, flag: "--fail-on-lint", before: true}
		}
	}
	if label == "" {
		fmt.Fprintf(stderr, "lint: sim lint shows every finding; --fail-on-lint error stops a run on them\n")
	}
	return &res, nil
}

// wrap folds text at spaces to width columns (100 when the width is
// unknown, as when piped), for the verdict above a table.
func wrap(text string, width int) string {
	if width <= 0 {
		width = 100
	}
	var b strings.Builder
	col := 0
	for _, word := range strings.Fields(text) {
		if col > 0 && col+1+len(word) > width {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}
