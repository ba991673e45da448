package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The HTML report's charts are SVG drawn here, server side: a page needs
// no script, no font and no network, and stays small. A chart is data for
// html.tmpl ("chart"), which escapes every text in it.

// Chart geometry, in SVG user units.
const (
	chartW, chartH         = 900, 260
	padL, padR, padT, padB = 60, 20, 24, 44
)

// chart is one SVG chart.
type chart struct {
	ID, Title, YLabel string
	W, H              int
	// The plot area.
	X0, Y0, X1, Y1 float64
	XTicks, YTicks []tick
	Series         []line
	// Legend names the colours under the chart (the series, unless set).
	Legend  []line
	Markers []marker
	Spans   []span
	Points  []dot
}

type tick struct {
	At    float64 // the x or y of the tick
	Label string
}

type line struct {
	Name, Color, Points string
	Dash, Bar           bool
}

// marker is an event on the time axis, with its description as a tooltip.
type marker struct {
	X, Y  float64
	Color string
	Title string
}

// span is a scripted event: a line at its start, a band while it holds.
type span struct {
	X, W  float64
	Label string
	Title string
}

// dot is a labelled point of a scatter.
type dot struct {
	X, Y        float64
	Color       string
	Label       string
	Title       string
	LabelX      float64
	LabelAnchor string
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

func color(i int) string { return palette[i%len(palette)] }

// newChart makes an empty chart with a plot area.
func newChart(id, title, ylabel string) *chart {
	return &chart{ID: id, Title: title, YLabel: ylabel, W: chartW, H: chartH,
		X0: padL, Y0: padT, X1: chartW - padR, Y1: chartH - padB}
}

// scale maps data to the plot area.
type scale struct {
	x0, x1, y0, y1 float64 // data ranges
	c              *chart
}

// x and y are rounded to a tenth of a unit: finer is invisible.
func (s scale) x(v float64) float64 {
	if s.x1 == s.x0 {
		return s.c.X0
	}
	return r1(s.c.X0 + (v-s.x0)/(s.x1-s.x0)*(s.c.X1-s.c.X0))
}

func (s scale) y(v float64) float64 {
	if s.y1 == s.y0 {
		return s.c.Y1
	}
	return r1(s.c.Y1 - (v-s.y0)/(s.y1-s.y0)*(s.c.Y1-s.c.Y0))
}

func r1(v float64) float64 { return math.Round(v*10) / 10 }

// niceMax rounds up to 1, 2, 2.5 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*1.0000001 {
			return m * p
		}
	}
	return 10 * p
}

// timeSeries sets up a chart over [0, end] seconds and 0..max(ys).
func timeSeries(c *chart, end float64, ymax float64, yfmt func(float64) string) scale {
	s := scale{x0: 0, x1: math.Max(end, 1), y0: 0, y1: niceMax(ymax), c: c}
	step := timeStep(s.x1, 12)
	for t := 0.0; t <= s.x1+1e-9; t += step {
		c.XTicks = append(c.XTicks, tick{At: s.x(t), Label: axisTime(t)})
	}
	for i := 0; i <= 4; i++ {
		v := s.y1 * float64(i) / 4
		c.YTicks = append(c.YTicks, tick{At: s.y(v), Label: yfmt(v)})
	}
	return s
}

// roundSteps are the durations axis ticks fall on.
var roundSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600,
	86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400}

// timeStep picks at most n ticks of a round duration.
func timeStep(end float64, n float64) float64 {
	for _, st := range roundSteps {
		if end/st <= n {
			return st
		}
	}
	return end / n
}

// axisTime labels a time axis: 45m, 1h, 1h15m, 2d, 1d12h, 30s.
func axisTime(s float64) string {
	d := int64(math.Round(s))
	switch {
	case d == 0:
		return "0"
	case d%86400 == 0:
		return fmt.Sprintf("%dd", d/86400)
	case d > 86400 && d%3600 == 0:
		return fmt.Sprintf("%dd%dh", d/86400, d%86400/3600)
	case d%3600 == 0:
		return fmt.Sprintf("%dh", d/3600)
	case d > 3600 && d%60 == 0:
		return fmt.Sprintf("%dh%02dm", d/3600, d%3600/60)
	case d%60 == 0:
		return fmt.Sprintf("%dm", d/60)
	case d > 60:
		return fmt.Sprintf("%dm%02ds", d/60, d%60)
	}
	return fmt.Sprintf("%ds", d)
}

// polyline writes the points of a series.
func polyline(s scale, ts []float64, ys func(i int) float64) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(coord(s.x(t)))
		b.WriteByte(',')
		b.WriteString(coord(s.y(ys(i))))
	}
	return b.String()
}

func coord(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func intLabel(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

func usdLabel(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("$%.0f", v)
	}
	return "$" + strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// eventColor groups the timeline's event kinds.
func eventColor(kind string) string {
	switch kind {
	case "instanceLaunched":
		return "#2ca02c"
	case "launchError", "launchFailed":
		return "#d62728"
	case "interruptionNotice", "rebalanceRecommendation", "instanceReclaimed":
		return "#ff7f0e"
	case "nodeDeletion":
		return "#9467bd"
	}
	return "#7f7f7f"
}

// eventLanes place event markers in rows under the plot, one per group.
var eventLanes = map[string]int{"instanceLaunched": 0, "nodeDeletion": 1, "interruptionNotice": 2, "rebalanceRecommendation": 2,
	"instanceReclaimed": 2, "launchError": 3, "launchFailed": 3}

// addEvents draws the timeline's events as markers and the scripted
// market events as spans.
func addEvents(c *chart, s scale, events []TimelineEvent) {
	var open []int // spans of scripted events without their end yet
	for _, e := range events {
		switch e.Kind {
		case "marketEvent":
			c.Spans = append(c.Spans, span{X: s.x(e.T), W: 0, Label: "market event", Title: formatSeconds(e.T) + ": " + e.Message})
			open = append(open, len(c.Spans)-1)
			continue
		case "marketEventEnd":
			for k, i := range open {
				if c.Spans[i].Title[strings.Index(c.Spans[i].Title, ": ")+2:] == e.Message {
					c.Spans[i].W = r1(s.x(e.T) - c.Spans[i].X)
					c.Spans[i].Title += " (until " + formatSeconds(e.T) + ")"
					open = append(open[:k], open[k+1:]...)
					break
				}
			}
			continue
		}
		lane, ok := eventLanes[e.Kind]
		if !ok {
			lane = 4
		}
		title := fmt.Sprintf("%s: %s", formatSeconds(e.T), e.Kind)
		if e.Count > 1 {
			title += fmt.Sprintf(" x%d", e.Count)
		}
		for _, part := range []string{e.Owner, e.Pool, e.Cause, e.Message} {
			if part != "" {
				title += " " + part
			}
		}
		c.Markers = append(c.Markers, marker{X: s.x(e.T), Y: c.Y1 + 21 + float64(lane)*5, Color: eventColor(e.Kind), Title: title})
	}
	for _, i := range open {
		c.Spans[i].W = r1(c.X1 - c.Spans[i].X)
	}
}
