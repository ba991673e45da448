package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
)

// errGate marks a failed --fail-if: exit code 2.
var errGate = errors.New("a --fail-if gate failed")

// emit writes the output to --report FILE (atomically) or stdout, escaped
// as on a terminal (a report file is read with cat and less too).
func emit(ctx context.Context, path string, data []byte, stdout io.Writer) error {
	if path != "" {
		if err := writeAtomic(ctx, path, escapeTerminal(data, nil)); err != nil {
			return fmt.Errorf("--report %s: %w", path, err)
		}
		return nil
	}
	_, err := stdout.Write(data)
	return err
}

func writeJSON(v any) ([]byte, error) {
	if r, ok := v.(*report.Report); ok {
		return r.JSON() // the same bytes, faster for long runs
	}
	return report.IndentedJSON(v)
}

// num and fmtNum are a figure as a CSV cell and as a table cell.
var num, fmtNum = report.CSVNumber, report.TableNumber

// loadBaseline reads a JSON report written by sim run -o json.
func loadBaseline(ctx context.Context, path string) ([]experiment.Metric, error) {
	if path == "" {
		return nil, nil
	}
	data, err := readInput(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("--baseline %s: not a report written by sim run -o json: %w", path, err)
	}
	if r.SchemaVersion != report.SchemaVersion {
		return nil, fmt.Errorf("--baseline %s: schemaVersion %d, this sim writes %d", path, r.SchemaVersion, report.SchemaVersion)
	}
	return experiment.Flatten(&r)
}

// checkGates evaluates every --fail-if; it prints each result to stderr
// and returns errGate if any failed.
// parseGates checks the --fail-if expressions before any simulation runs,
// so a typo costs no compute.
func parseGates(exprs []string) error {
	for _, expr := range exprs {
		if _, err := experiment.ParseGate(expr); err != nil {
			return err
		}
	}
	return nil
}

func checkGates(exprs []string, label string, values, baseline []experiment.Metric, stderr io.Writer) error {
	failed := false
	for _, expr := range exprs {
		g, err := experiment.ParseGate(expr)
		if err != nil {
			return err
		}
		bad, detail, err := g.Check(values, baseline)
		if err != nil {
			return err
		}
		verdict := "pass"
		if bad {
			verdict, failed = "FAIL", true
		}
		prefix := ""
		if label != "" {
			prefix = label + ": "
		}
		fmt.Fprintf(stderr, "gate %s%s: %s (%s)\n", prefix, verdict, expr, detail)
	}
	if failed {
		return errGate
	}
	return nil
}

// terminal reports whether w is a terminal, and its width in columns (0
// when unknown; $COLUMNS, when set, wins). Tests replace it with a fake
// terminal.
var terminal = func(w io.Writer) (ok bool, width int) {
	f, isFile := raw(w).(*os.File)
	if !isFile || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return false, 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return true, n
	}
	return true, termWidth(f)
}

// tableStyle is how tables are drawn on stdout: box-drawn on a terminal
// (fitted to its width), plain aligned columns for a pipe or a --report
// file; wide for -o wide.
func tableStyle(format, reportPath string, stdout io.Writer) report.TableStyle {
	st := report.TableStyle{Wide: format == "wide", Plain: true}
	if reportPath != "" {
		return st
	}
	if ok, width := terminal(stdout); ok {
		st.Plain, st.Width = false, width
	}
	return st
}

// isTable: the table formats (table, wide).
func isTable(format string) bool { return format == "table" || format == "wide" }

// runProgress shows a single run's simulated time on stderr when it is a
// terminal: how far the run is, as --runs shows runs done. The line is
// cleared when the run ends.
func runProgress(stderr io.Writer, total time.Duration) (progress func(now engine.Time, events uint64), done func()) {
	if ok, _ := terminal(stderr); !ok || total <= 0 {
		return nil, func() {}
	}
	stderr = raw(stderr) // our own carriage return and erase
	shown := false
	var drawn time.Time
	progress = func(now engine.Time, _ uint64) {
		if shown && time.Since(drawn) < 100*time.Millisecond {
			return
		}
		drawn = time.Now()
		const width = 30
		at := min(time.Duration(now), total)
		n := int(int64(at) * width / int64(total))
		fmt.Fprintf(stderr, "\r[%s%s] simulated %s of %s", bytes.Repeat([]byte("="), n), bytes.Repeat([]byte(" "), width-n),
			roundDuration(at), roundDuration(total))
		shown = true
	}
	done = func() {
		if shown {
			fmt.Fprint(stderr, "\r\x1b[K")
		}
	}
	return progress, done
}

// roundDuration renders a simulated time to the second (1h2m3s).
func roundDuration(d time.Duration) string { return d.Truncate(time.Second).String() }

// progressBar draws runs done on stderr when it is a terminal.
func progressBar(stderr io.Writer) func(done, total int) {
	if ok, _ := terminal(stderr); !ok {
		return nil
	}
	stderr = raw(stderr) // our own carriage return
	return func(done, total int) {
		const width = 30
		n := done * width / total
		fmt.Fprintf(stderr, "\r[%s%s] %d/%d runs", bytes.Repeat([]byte("="), n), bytes.Repeat([]byte(" "), width-n), done, total)
		if done == total {
			fmt.Fprintln(stderr)
		}
	}
}
