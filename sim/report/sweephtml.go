package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SweepPage is what sim sweep --html shows: cost against pending p99 for
// every point with the Pareto frontier marked and joined, and a table of
// each point's means and 95% intervals.
type SweepPage struct {
	Name     string
	Runs     int
	RootSeed uint64
	// Columns are the metrics of the table.
	Columns []string
	Points  []SweepPoint
}

// SweepPoint is one point of a sweep.
type SweepPoint struct {
	Name     string
	Frontier bool
	// Cost and PendingP99 are the means of cost.totalUSD and
	// pods.pendingSeconds.p99, for the chart.
	Cost, PendingP99 float64
	// Cells are the means and intervals of Columns.
	Cells []SweepCell
}

// SweepCell is one metric of a point; Missing if the point has none.
type SweepCell struct {
	Missing         bool
	Mean, Low, High float64
}

// The sweep's page reuses the run page's frame and charts, with its own
// body in place of the run's.
var sweepTemplate = template.Must(template.Must(pageTemplate.Clone()).Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).Parse(`{{define "run"}}{{with .S}}
<p>{{if .Name}}Sweep <code>{{.Name}}</code>: {{end}}{{len .Points}} points, {{.Runs}} runs each on the same seeds (root seed {{.RootSeed}}).
<b>Bold</b> points (red in the chart, joined by the dashed line; the numbers are the table's) are on the Pareto frontier of cost, pending p99, stranded pods and controller actions: no other point is at least as good on all four and better on one.</p>
{{end}}
<h2>Cost against pending p99</h2>
{{range .Charts}}{{template "chart" .}}{{end}}
{{with .S}}<h2>Points</h2>
<p class="muted">Means over the seeds, with their 95% confidence intervals.</p>
<div style="overflow-x: auto"><table id="points">
<tr><th class="n">#</th><th>Point</th><th>Frontier</th>{{range .Columns}}<th class="n"><code>{{.}}</code></th>{{end}}</tr>
{{range $i, $p := .Points}}{{with $p}}<tr{{if .Frontier}} class="sig"{{end}}><td class="n">{{inc $i}}</td><td><code>{{.Name}}</code></td><td>{{if .Frontier}}*{{end}}</td>{{range .Cells}}<td class="n">{{if .Missing}}-{{else}}{{num .Mean}} <span class="muted">[{{num .Low}}, {{num .High}}]</span>{{end}}</td>{{end}}</tr>
{{end}}{{end}}</table></div>
{{end}}{{end}}`))

type sweepPageData struct {
	Compare bool
	Title   string
	S       SweepPage
	Charts  []*chart
}

// frontierColor and otherColor tell the frontier's points from the rest.
const frontierColor, otherColor = "#d62728", "#9e9e9e"

// WriteSweepHTML writes the sweep's page.
func (s SweepPage) WriteSweepHTML(w io.Writer) error {
	title := fmt.Sprintf("sweep of %d points, %d runs each", len(s.Points), s.Runs)
	if s.Name != "" {
		title = s.Name + ": " + title
	}
	var buf strings.Builder
	if err := sweepTemplate.Execute(&buf, sweepPageData{Title: title, S: s, Charts: []*chart{sweepScatter(s)}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, buf.String())
	return err
}

// sweepScatter plots every point's mean cost against its mean pending
// p99; the frontier's points are labelled and joined in order of cost.
func sweepScatter(s SweepPage) *chart {
	xmin, xmax, ymax := math.Inf(1), 0.0, 0.0
	for _, p := range s.Points {
		xmin, xmax, ymax = math.Min(xmin, p.Cost), math.Max(xmax, p.Cost), math.Max(ymax, p.PendingP99)
	}
	// Cost on a range around the points (their differences are the
	// point), in five round steps.
	lo, hi := xmin*0.95, xmax*1.05
	step := niceMax((hi - lo) / 5)
	x0 := math.Max(0, math.Floor(lo/step)*step)
	x1 := x0 + math.Max(1, math.Ceil((hi-x0)/step))*step
	ch, sc := costScatter("sweep", 420, x0, x1, ymax)
	for v := x0; v <= x1+step/1e6; v += step {
		ch.XTicks = append(ch.XTicks, tick{At: sc.x(v), Label: usdLabel(v)})
	}
	// Each dot is labelled with its point's number in the table; the
	// names, too long to print side by side, are in the tooltips.
	var front []SweepPoint
	for i, p := range s.Points {
		x, y := sc.x(p.Cost), sc.y(p.PendingP99)
		d := dot{X: x, Y: y, Color: otherColor, Label: strconv.Itoa(i + 1), LabelX: x + 6, LabelAnchor: "start",
			Title: fmt.Sprintf("%d. %s: cost %s, pending p99 %s", i+1, p.Name, usdLabel(p.Cost), formatSeconds(p.PendingP99))}
		if p.Frontier {
			d.Color = frontierColor
			d.Title += " (on the frontier)"
			front = append(front, p)
		}
		ch.Points = append(ch.Points, d)
	}
	slices.SortStableFunc(front, func(a, b SweepPoint) int {
		if a.Cost != b.Cost {
			if a.Cost < b.Cost {
				return -1
			}
			return 1
		}
		if a.PendingP99 < b.PendingP99 {
			return -1
		}
		if a.PendingP99 > b.PendingP99 {
			return 1
		}
		return 0
	})
	if len(front) > 1 {
		var pts []string
		for _, p := range front {
			pts = append(pts, coord(sc.x(p.Cost))+","+coord(sc.y(p.PendingP99)))
		}
		ch.Series = append(ch.Series, line{Name: "the Pareto frontier (over all four objectives)", Color: frontierColor, Points: strings.Join(pts, " "), Dash: true})
	}
	ch.Legend = []line{{Name: "on the frontier", Color: frontierColor}, {Name: "dominated", Color: otherColor}}
	return ch
}
