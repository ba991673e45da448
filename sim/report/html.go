package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
)

// The HTML report (sim run --html, sim compare --html): one
// self-contained page, offline, no script. html/template escapes every
// text that comes from users' manifests (workload, pod, pool and
// configuration names, scheduler messages), in the page and in the SVG.

//go:embed html.tmpl
var htmlTemplate string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"secs": formatSeconds,
	"num":  htmlNum,
	"usd":  func(v float64) string { return fmt.Sprintf("$%.2f", v) },
	"pct":  func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
	"add":  func(a, b float64) float64 { return a + b },
	"sub":  func(a, b float64) float64 { return a - b },
}).Parse(htmlTemplate))

// MaxStrandedListed caps the stranded pods the page lists per workload;
// the rest are counted.
const MaxStrandedListed = 50

// runPage is the data of a run's page.
type runPage struct {
	Compare   bool
	Title     string
	R         *Report
	Charts    []*chart
	Workloads []workloadView
	Events    []TimelineEvent
}

type workloadView struct {
	W        Workload
	Stranded []UnschedulablePod
	More     int
}

// WriteHTML writes the run's page: the summary, the timeline's charts
// with the events as markers and the scripted market events as bands,
// each workload's pending-time distribution, and its stranded pods with
// the scheduler's reasons.
func (r *Report) WriteHTML(w io.Writer) error {
	p := runPage{Title: fmt.Sprintf("%s, seed %d", r.Scenario, r.Seed), R: r}
	if tl := r.Timeline; tl != nil && len(tl.T) > 0 {
		p.Charts = timelineCharts(tl)
		p.Events = tl.Events
	}
	p.Charts = append(p.Charts, pendingChart(r.Workloads))
	byWL := map[string]*workloadView{}
	for _, wl := range r.Workloads {
		p.Workloads = append(p.Workloads, workloadView{W: wl})
	}
	for i := range p.Workloads {
		byWL[p.Workloads[i].W.Ref] = &p.Workloads[i]
	}
	for _, u := range r.UnschedulablePods {
		v := byWL[u.Workload]
		if !u.Stranded || v == nil {
			continue
		}
		if len(v.Stranded) < MaxStrandedListed {
			v.Stranded = append(v.Stranded, u)
		} else {
			v.More++
		}
	}
	return render(w, p)
}

func render(w io.Writer, data any) error {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// timelineCharts draws pods, nodes by capacity type, nodes by pool, the
// cost rate and the cumulative cost.
func timelineCharts(tl *Timeline) []*chart {
	end := tl.T[len(tl.T)-1]
	ints := func(xs []int32) func(int) float64 { return func(i int) float64 { return float64(xs[i]) } }
	floats := func(xs []float64) func(int) float64 { return func(i int) float64 { return xs[i] } }
	type ser struct {
		name string
		y    func(int) float64
		dash bool
	}
	draw := func(id, title, ylabel string, yfmt func(float64) string, series []ser) *chart {
		c := newChart(id, title, ylabel)
		ymax := 0.0
		for _, s := range series {
			for i := range tl.T {
				ymax = math.Max(ymax, s.y(i))
			}
		}
		sc := timeSeries(c, end, ymax, yfmt)
		for i, s := range series {
			c.Series = append(c.Series, line{Name: s.name, Color: color(i), Points: polyline(sc, tl.T, s.y), Dash: s.dash})
		}
		addEvents(c, sc, tl.Events)
		c.Legend = c.Series
		return c
	}
	charts := []*chart{
		draw("pods", "Pods", "pods", intLabel, []ser{
			{"pending", ints(tl.PendingPods), false}, {"stranded (pending > strandedAfter)", ints(tl.StrandedPods), false},
			{"running", ints(tl.RunningPods), false}, {"starting", ints(tl.StartingPods), true}}),
		draw("nodes", "Nodes by capacity type", "nodes", intLabel, []ser{
			{"spot", ints(tl.SpotNodes), false}, {"on-demand", ints(tl.OnDemandNodes), false}, {"reserved", ints(tl.ReservedNodes), true}}),
	}
	var pools []ser
	for _, p := range tl.Pools {
		pools = append(pools, ser{p.PoolName(), ints(p.Nodes), false})
	}
	charts = append(charts,
		draw("pools", "Nodes by NodePool, node group and static pool", "nodes", intLabel, pools),
		draw("costRate", "Cost rate", "USD/h", usdLabel, []ser{
			{"cost", floats(tl.CostUSDPerHour), false}, {"all on demand", floats(tl.OnDemandEquivalentUSDPerHour), true}}),
		draw("cost", "Cumulative cost", "USD", usdLabel, []ser{
			{"cost", floats(tl.CostUSD), false}, {"all on demand", floats(tl.OnDemandEquivalentUSD), true}}))
	return charts
}

// pendingChart draws each workload's pending-time distribution: a bar to
// its longest wait with its p50, p95, p99 and mean marked.
func pendingChart(wls []Workload) *chart {
	c := newChart("pending", "Pending time by workload", "")
	rowH := 22.0
	c.H = int(padT + padB + rowH*float64(max(len(wls), 1)))
	c.X0 = 260
	c.Y1 = float64(c.H) - padB
	xmax := 0.0
	for _, w := range wls {
		xmax = math.Max(xmax, w.PendingSeconds.Max)
	}
	step := timeStep(math.Max(xmax, 1), 6)
	s := scale{x0: 0, x1: math.Ceil(math.Max(xmax, 1)/step) * step, c: c}
	for v := 0.0; v <= s.x1+1e-9; v += step {
		c.XTicks = append(c.XTicks, tick{At: s.x(v), Label: axisTime(v)})
	}
	for i, w := range wls {
		y := c.Y0 + rowH*float64(i) + rowH/2
		c.YTicks = append(c.YTicks, tick{At: y, Label: w.Ref})
		p := w.PendingSeconds
		c.Series = append(c.Series, line{Name: w.Ref, Color: "#9ecae1", Bar: true,
			Points: coord(s.x(0)) + "," + coord(y) + " " + coord(math.Max(s.x(p.Max), s.x(0)+1)) + "," + coord(y)})
		for k, q := range []struct {
			name string
			v    float64
		}{{"p50", p.P50}, {"p95", p.P95}, {"p99", p.P99}, {"max", p.Max}, {"mean", p.Mean}} {
			c.Points = append(c.Points, dot{X: s.x(q.v), Y: y, Color: color(k), Title: fmt.Sprintf("%s %s: %s", w.Ref, q.name, formatSeconds(q.v))})
		}
	}
	for k, name := range []string{"p50", "p95", "p99", "max", "mean"} {
		c.Legend = append(c.Legend, line{Name: name, Color: color(k)})
	}
	return c
}

func htmlNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}

// Comparison is what sim compare --html shows: the configurations, the
// metric table with deltas and significance, and each configuration's
// mean timeline.
type Comparison struct {
	Configs  []string
	Runs     int
	RootSeed uint64
	// Rows are the headline metrics: the first configuration's mean, then
	// per other configuration its mean and difference.
	Rows []CompareRow
	// Cost and PendingP99 are each configuration's mean cost.totalUSD and
	// pods.pendingSeconds.p99, for the scatter.
	Cost, PendingP99 []float64
	// Timelines are each configuration's timeline averaged over its seeds
	// (MeanTimeline); nil when it has none.
	Timelines []*Timeline
	// Warnings are shown above the metrics: a configuration that did
	// less work than the baseline (its cost difference is not like for
	// like).
	Warnings []string
}

// CompareRow is one metric of a comparison.
type CompareRow struct {
	Metric string
	Base   float64
	Others []CompareCell
}

// CompareCell is one configuration's mean against the first's.
type CompareCell struct {
	Missing              bool
	Value, Diff, DiffPct float64
	CILow, CIHigh        float64
	PValue               float64
	Significant          bool
}

type comparePage struct {
	Compare bool
	Title   string
	C       Comparison
	Charts  []*chart
	Colors  []string
}

// WriteCompareHTML writes a comparison's page: the configurations'
// timelines overlaid, the metric table, and cost against pending p99.
func (c Comparison) WriteCompareHTML(w io.Writer) error {
	p := comparePage{Compare: true, Title: fmt.Sprintf("comparison of %d configurations, %d runs each", len(c.Configs), c.Runs), C: c}
	for i := range c.Configs {
		p.Colors = append(p.Colors, color(i))
	}
	p.Charts = append(p.Charts, compareCharts(c)...)
	p.Charts = append(p.Charts, scatter(c))
	return render(w, p)
}

// compareCharts overlays the configurations' mean timelines.
func compareCharts(c Comparison) []*chart {
	end := 0.0
	for _, tl := range c.Timelines {
		if tl != nil && len(tl.T) > 0 {
			end = math.Max(end, tl.T[len(tl.T)-1])
		}
	}
	if end == 0 {
		return nil
	}
	pick := []struct {
		id, title, ylabel string
		yfmt              func(float64) string
		y                 func(tl *Timeline, i int) float64
	}{
		{"pending", "Pending pods (mean over seeds)", "pods", intLabel, func(tl *Timeline, i int) float64 { return float64(tl.PendingPods[i]) }},
		{"stranded", "Stranded pending pods (mean over seeds)", "pods", intLabel, func(tl *Timeline, i int) float64 { return float64(tl.StrandedPods[i]) }},
		{"nodes", "Nodes (mean over seeds)", "nodes", intLabel, func(tl *Timeline, i int) float64 {
			return float64(tl.SpotNodes[i] + tl.OnDemandNodes[i] + tl.ReservedNodes[i])
		}},
		{"costRate", "Cost rate (mean over seeds)", "USD/h", usdLabel, func(tl *Timeline, i int) float64 { return tl.CostUSDPerHour[i] }},
		{"cost", "Cumulative cost (mean over seeds)", "USD", usdLabel, func(tl *Timeline, i int) float64 { return tl.CostUSD[i] }},
	}
	var out []*chart
	for _, k := range pick {
		ch := newChart(k.id, k.title, k.ylabel)
		ymax := 0.0
		for _, tl := range c.Timelines {
			if tl == nil {
				continue
			}
			for i := range tl.T {
				ymax = math.Max(ymax, k.y(tl, i))
			}
		}
		s := timeSeries(ch, end, ymax, k.yfmt)
		for ci, tl := range c.Timelines {
			if tl == nil || len(tl.T) == 0 {
				continue
			}
			ch.Series = append(ch.Series, line{Name: c.Configs[ci], Color: color(ci), Points: polyline(s, tl.T, func(i int) float64 { return k.y(tl, i) })})
		}
		ch.Legend = ch.Series
		// The first configuration's scripted events, as bands.
		if tl := c.Timelines[0]; tl != nil {
			var scripted []TimelineEvent
			for _, e := range tl.Events {
				if e.Kind == "marketEvent" || e.Kind == "marketEventEnd" {
					scripted = append(scripted, e)
				}
			}
			addEvents(ch, s, scripted)
		}
		out = append(out, ch)
	}
	return out
}

// scatter plots each configuration's mean cost against its mean pending
// p99: savings against risk.
func scatter(c Comparison) *chart {
	xmax, ymax := 0.0, 0.0
	for i := range c.Configs {
		if i < len(c.Cost) {
			xmax = math.Max(xmax, c.Cost[i])
			ymax = math.Max(ymax, c.PendingP99[i])
		}
	}
	ch, s := costScatter("scatter", 360, 0, niceMax(xmax*1.1), ymax)
	for i := 0; i <= 5; i++ {
		v := s.x1 * float64(i) / 5
		ch.XTicks = append(ch.XTicks, tick{At: s.x(v), Label: usdLabel(v)})
	}
	for i, name := range c.Configs {
		if i >= len(c.Cost) {
			break
		}
		x, y := s.x(c.Cost[i]), s.y(c.PendingP99[i])
		d := dot{X: x, Y: y, Color: color(i), Label: name, LabelX: x + 8, LabelAnchor: "start",
			Title: fmt.Sprintf("%s: cost %s, pending p99 %s", name, usdLabel(c.Cost[i]), formatSeconds(c.PendingP99[i]))}
		if x > (ch.X0+ch.X1)/2 {
			d.LabelX, d.LabelAnchor = x-8, "end"
		}
		ch.Points = append(ch.Points, d)
	}
	return ch
}

// costScatter is a chart h high of cost (x, from x0 to x1 USD) against
// pending p99 (y, from 0 to ymax and a tenth, in round time steps, with
// their ticks), for the caller's dots and cost ticks.
func costScatter(id string, h int, x0, x1, ymax float64) (*chart, scale) {
	ch := newChart(id, "Cost (x, total USD) against pending p99 (y): means over seeds", "pending p99")
	ch.H = h
	ch.Y1 = float64(ch.H) - padB
	ystep := timeStep(math.Max(ymax*1.1, 1), 5)
	s := scale{x0: x0, x1: x1, y0: 0, y1: math.Ceil(math.Max(ymax*1.1, 1)/ystep) * ystep, c: ch}
	for v := 0.0; v <= s.y1+1e-9; v += ystep {
		ch.YTicks = append(ch.YTicks, tick{At: s.y(v), Label: axisTime(v)})
	}
	return ch, s
}

// MeanTimeline averages the timelines of runs of one configuration,
// sample by sample (runs of one scenario share their sample times), for
// the comparison's overlays; its events are the first run's. Nil when a
// run has no timeline.
func MeanTimeline(reps []*Report) *Timeline {
	if len(reps) == 0 || reps[0].Timeline == nil {
		return nil
	}
	first := reps[0].Timeline
	n := len(first.T)
	out := &Timeline{IntervalSeconds: first.IntervalSeconds, T: slices.Clone(first.T), Events: first.Events}
	meanInts := func(get func(*Timeline) []int32) []int32 {
		sum := make([]float64, n)
		for _, r := range reps {
			s := get(r.Timeline)
			for i := range min(n, len(s)) {
				sum[i] += float64(s[i])
			}
		}
		res := make([]int32, n)
		for i := range sum {
			res[i] = int32(math.Round(sum[i] / float64(len(reps))))
		}
		return res
	}
	meanFloats := func(get func(*Timeline) []float64) []float64 {
		res := make([]float64, n)
		for _, r := range reps {
			s := get(r.Timeline)
			for i := range min(n, len(s)) {
				res[i] += s[i]
			}
		}
		for i := range res {
			res[i] = round6(res[i] / float64(len(reps)))
		}
		return res
	}
	for _, r := range reps {
		if r.Timeline == nil {
			return nil
		}
	}
	out.PendingPods = meanInts(func(t *Timeline) []int32 { return t.PendingPods })
	out.StrandedPods = meanInts(func(t *Timeline) []int32 { return t.StrandedPods })
	out.StartingPods = meanInts(func(t *Timeline) []int32 { return t.StartingPods })
	out.RunningPods = meanInts(func(t *Timeline) []int32 { return t.RunningPods })
	out.SpotNodes = meanInts(func(t *Timeline) []int32 { return t.SpotNodes })
	out.OnDemandNodes = meanInts(func(t *Timeline) []int32 { return t.OnDemandNodes })
	out.ReservedNodes = meanInts(func(t *Timeline) []int32 { return t.ReservedNodes })
	out.CostUSDPerHour = meanFloats(func(t *Timeline) []float64 { return t.CostUSDPerHour })
	out.CostUSD = meanFloats(func(t *Timeline) []float64 { return t.CostUSD })
	out.OnDemandEquivalentUSDPerHour = meanFloats(func(t *Timeline) []float64 { return t.OnDemandEquivalentUSDPerHour })
	out.OnDemandEquivalentUSD = meanFloats(func(t *Timeline) []float64 { return t.OnDemandEquivalentUSD })
	return out
}
