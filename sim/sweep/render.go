package sweep

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
)

// Objectives are the metrics the frontier minimises: what the nodes cost,
// how long pods waited (p99), how many were stranded, and how much the
// controllers did (launches, terminations, evictions, resubmissions: the
// complexity a saving is paid with).
var Objectives = []string{"cost.totalUSD", "pods.pendingSeconds.p99", "pods.stranded", "complexity.controllerActions"}

// Output is a sweep's result: one entry per point.
type Output struct {
	SchemaVersion int      `json:"schemaVersion"`
	Sweep         string   `json:"sweep,omitempty"`
	Axes          []string `json:"axes,omitempty"`
	RootSeed      uint64   `json:"rootSeed"`
	Runs          int      `json:"runs"`
	Seeds         []uint64 `json:"seeds"`
	// Objectives are the metrics of the frontier, all minimised.
	Objectives []string      `json:"frontierObjectives"`
	Points     []PointOutput `json:"points"`
}

// PointOutput is one point's aggregate.
type PointOutput struct {
	Name   string   `json:"name"`
	Values []string `json:"values,omitempty"`
	// Frontier marks a Pareto-efficient point: no other point's means are
	// at least as good on every objective and better on one.
	Frontier bool                 `json:"frontier"`
	Metrics  []experiment.Summary `json:"metrics"`
}

// Aggregate summarises every point over its runs; results are every
// pair's, in pair order.
func Aggregate(s *Sweep, results []Result) (*Output, error) {
	if len(results) != s.Pairs() {
		return nil, fmt.Errorf("%d results for %d pairs", len(results), s.Pairs())
	}
	out := &Output{SchemaVersion: report.SchemaVersion, Sweep: s.Name, Axes: s.Axes, RootSeed: s.RootSeed, Runs: s.Runs,
		Seeds: s.Seeds(), Objectives: Objectives}
	runs := make([][]experiment.Metric, s.Runs)
	for p, pt := range s.Points {
		for i := range runs {
			runs[i] = results[p*s.Runs+i].Metrics
		}
		sums, err := experiment.AggregateMetrics(runs)
		if err != nil {
			return nil, err
		}
		out.Points = append(out.Points, PointOutput{Name: pt.Name, Values: pt.Values, Metrics: sums})
	}
	markFrontier(out.Points)
	return out, nil
}

// mean is a point's mean of a metric (0 if it has none).
func mean(p *PointOutput, path string) float64 {
	for _, s := range p.Metrics {
		if s.Path == path {
			return s.Mean
		}
	}
	return 0
}

// markFrontier marks the points no other point dominates.
func markFrontier(ps []PointOutput) {
	obj := make([][]float64, len(ps))
	for i := range ps {
		for _, o := range Objectives {
			obj[i] = append(obj[i], mean(&ps[i], o))
		}
	}
	for i := range ps {
		ps[i].Frontier = true
		for j := range ps {
			if j != i && dominates(obj[j], obj[i]) {
				ps[i].Frontier = false
				break
			}
		}
	}
}

// dominates says a is at least as good as b everywhere and better once.
func dominates(a, b []float64) bool {
	better := false
	for k := range a {
		if a[k] > b[k] {
			return false
		}
		if a[k] < b[k] {
			better = true
		}
	}
	return better
}

// JSON renders the output as indented JSON.
func (o *Output) JSON() ([]byte, error) {
	return report.IndentedJSON(o)
}

// CSV renders one row per point: its name, its axis values, whether it is
// on the frontier, then each metric's mean and 95% interval (metrics in
// first-seen order over the points; empty where a point lacks one).
func (o *Output) CSV() []byte {
	index := map[string]int{}
	var paths []string
	for _, p := range o.Points {
		for _, s := range p.Metrics {
			if _, ok := index[s.Path]; !ok {
				index[s.Path] = len(paths)
				paths = append(paths, s.Path)
			}
		}
	}
	head := append([]string{"point"}, o.Axes...)
	head = append(head, "frontier")
	for _, p := range paths {
		head = append(head, p+".mean", p+".ciLow", p+".ciHigh")
	}
	rows := [][]string{head}
	for _, p := range o.Points {
		row := append([]string{p.Name}, p.Values...)
		row = append(row, strconv.FormatBool(p.Frontier))
		cells := make([]string, 3*len(paths))
		for _, s := range p.Metrics {
			k := 3 * index[s.Path]
			cells[k], cells[k+1], cells[k+2] = report.CSVNumber(s.Mean), report.CSVNumber(s.CILow), report.CSVNumber(s.CIHigh)
		}
		rows = append(rows, append(row, cells...))
	}
	return report.CSV(rows)
}

// tableMetrics are the table's columns: the objectives and the savings.
var tableMetrics = []struct{ path, title string }{
	{"cost.totalUSD", "cost $"}, {"pods.pendingSeconds.p99", "pending p99 s"}, {"pods.stranded", "stranded"},
	{"complexity.controllerActions", "actions"}, {"cost.savingsPct", "savings %"},
}

// Table renders one row per point with the frontier's metrics.
func (o *Output) Table() ([]byte, error) {
	var buf bytes.Buffer
	name := o.Sweep
	if name == "" {
		name = "of the command line"
	}
	fmt.Fprintf(&buf, "Sweep %s: %d points x %d runs on the same seeds (root %d); mean (95%% confidence interval)\n",
		name, len(o.Points), o.Runs, o.RootSeed)
	fmt.Fprintf(&buf, "* on the Pareto frontier of cost, pending p99, stranded pods and controller actions (lower is better)\n\n")
	t := report.NewTable(&buf)
	head := []any{"", "point"}
	for _, m := range tableMetrics {
		head = append(head, m.title)
	}
	t.Header(head...)
	for i := range o.Points {
		p := &o.Points[i]
		mark := ""
		if p.Frontier {
			mark = "*"
		}
		row := []any{mark, p.Name}
		for _, m := range tableMetrics {
			cell := "-"
			for _, s := range p.Metrics {
				if s.Path == m.path {
					cell = report.TableNumber(s.Mean)
					if s.CIHigh != s.CILow {
						cell += fmt.Sprintf(" (%s..%s)", report.TableNumber(s.CILow), report.TableNumber(s.CIHigh))
					}
				}
			}
			row = append(row, cell)
		}
		if err := t.Append(row...); err != nil {
			return nil, err
		}
	}
	if err := t.Render(); err != nil {
		return nil, err
	}
	buf.WriteString("\nEvery metric of every point: -o json or -o csv.\n")
	return buf.Bytes(), nil
}

// Render renders the output in a format: table, json or csv.
func (o *Output) Render(format string) ([]byte, error) {
	switch format {
	case "json":
		return o.JSON()
	case "csv":
		return o.CSV(), nil
	case "table":
		return o.Table()
	}
	return nil, fmt.Errorf("format %q: use table, json or csv", format)
}

// Page is the output as sim sweep --html draws it (report.SweepPage):
// the table's metrics, and cost against pending p99.
func (o *Output) Page() report.SweepPage {
	p := report.SweepPage{Name: o.Sweep, Runs: o.Runs, RootSeed: o.RootSeed}
	for _, m := range tableMetrics {
		p.Columns = append(p.Columns, m.path)
	}
	for i := range o.Points {
		pt := &o.Points[i]
		sp := report.SweepPoint{Name: pt.Name, Frontier: pt.Frontier, Cost: mean(pt, "cost.totalUSD"), PendingP99: mean(pt, "pods.pendingSeconds.p99")}
		for _, m := range tableMetrics {
			c := report.SweepCell{Missing: true}
			for _, s := range pt.Metrics {
				if s.Path == m.path {
					c = report.SweepCell{Mean: s.Mean, Low: s.CILow, High: s.CIHigh}
				}
			}
			sp.Cells = append(sp.Cells, c)
		}
		p.Points = append(p.Points, sp)
	}
	return p
}
