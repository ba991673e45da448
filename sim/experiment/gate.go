package experiment

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Gate is a --fail-if expression: "PATH OP RHS", where OP is one of > >= <
// <= == != and RHS is a number, "baseline", or a number times "baseline"
// (either order), baseline being the same metric of the baseline run. The
// gate fails (the CI step fails) when the expression is true.
type Gate struct {
	Expr     string
	Path     string
	Op       string
	Value    float64 // the number, or the factor of baseline
	Baseline bool
}

var gateRE = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9_.]*)\s*(>=|<=|==|!=|>|<)\s*(.+?)\s*$`)

// ParseGate reads one expression.
func ParseGate(expr string) (Gate, error) {
	m := gateRE.FindStringSubmatch(expr)
	if m == nil {
		return Gate{}, fmt.Errorf("--fail-if %q: write METRIC OP VALUE, e.g. 'pods.pendingSeconds.p99>300' or 'cost.totalUSD>1.1*baseline'", expr)
	}
	g := Gate{Expr: expr, Path: m[1], Op: m[2]}
	if ok, hint := KnownMetric(g.Path); !ok {
		return Gate{}, fmt.Errorf("--fail-if %q: no metric %q in the report: %s", expr, g.Path, hint)
	}
	rhs := strings.ReplaceAll(m[3], " ", "")
	switch {
	case rhs == "baseline":
		g.Baseline, g.Value = true, 1
	case strings.HasSuffix(rhs, "*baseline"):
		g.Baseline = true
		rhs = strings.TrimSuffix(rhs, "*baseline")
	case strings.HasPrefix(rhs, "baseline*"):
		g.Baseline = true
		rhs = strings.TrimPrefix(rhs, "baseline*")
	}
	if !(g.Baseline && m[3] == "baseline") {
		v, err := strconv.ParseFloat(rhs, 64)
		if err != nil {
			return Gate{}, fmt.Errorf("--fail-if %q: %q is not a number (or N*baseline)", expr, rhs)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			// Every comparison with NaN is false: the gate could never fail.
			return Gate{}, fmt.Errorf("--fail-if %q: %q is not a finite number (a gate against it could never fail, or always would); give a number such as 300", expr, rhs)
		}
		g.Value = v
	}
	return g, nil
}

// Check evaluates the gate. values gives the run's metrics (means for a
// multi-run); baseline gives the baseline's, or nil when there is none.
// failed is true when the expression holds.
func (g Gate) Check(values, baseline []Metric) (failed bool, detail string, err error) {
	v, ok := lookupKnown(values, g.Path)
	if !ok {
		hint := suggestPath(g.Path, Paths(values))
		return false, "", fmt.Errorf("--fail-if %q: no metric %q in the report %s", g.Expr, g.Path, hint)
	}
	rhs := g.Value
	if g.Baseline {
		if baseline == nil {
			return false, "", fmt.Errorf("--fail-if %q: uses baseline, but there is none (give --baseline REPORT.json, or use sim compare: the first configuration is the baseline)", g.Expr)
		}
		b, ok := lookupKnown(baseline, g.Path)
		if !ok {
			return false, "", fmt.Errorf("--fail-if %q: the baseline has no metric %q", g.Expr, g.Path)
		}
		rhs = g.Value * b
	}
	switch g.Op {
	case ">":
		failed = v > rhs
	case ">=":
		failed = v >= rhs
	case "<":
		failed = v < rhs
	case "<=":
		failed = v <= rhs
	case "==":
		failed = v == rhs
	case "!=":
		failed = v != rhs
	}
	return failed, fmt.Sprintf("%s = %g %s %g", g.Path, v, g.Op, rhs), nil
}

// lookupKnown is Lookup, with 0 for a metric of the schema that the run's
// report leaves out (an omitted zero, a model the scenario does not run).
func lookupKnown(ms []Metric, path string) (float64, bool) {
	if v, ok := Lookup(ms, path); ok {
		return v, true
	}
	if schema().known(path) {
		return 0, true
	}
	return 0, false
}
