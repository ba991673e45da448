package ca

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
)

// Targets of issue 22.
const (
	TargetSameGroup = 0.95
	TargetSameCount = 0.95
	TargetSpeedup   = 4.0
)

// Result compares the two decisions on one case.
type Result struct {
	Case     *Case
	Ours, Up Decision
	// Decision times (one call each; setup excluded).
	OursTime, UpTime time.Duration
	// SameGroup: ours keeps only groups upstream's chain also keeps (ties
	// are picked at random on both sides), or neither scales up.
	// SameCount: the node count of ours' pick equals upstream's for that
	// group (or upstream's pick's when the groups differ). SameLeft: the
	// pods of the pick, per pod template, are the same, so the same pods
	// are left out.
	SameGroup, SameCount, SameLeft bool
	// UpRuns counts upstream's extra runs; UpVaried: they gave another
	// answer than the first.
	UpRuns   int
	UpVaried bool
}

// Compare runs both sides on a case.
func Compare(cat *catalog.Catalog, c *Case) (*Result, error) {
	ours, err := BuildOurs(cat, c)
	if err != nil {
		return nil, err
	}
	up, err := BuildUpstream(cat, c, ours)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	r := &Result{Case: c}
	t0 := time.Now()
	r.Ours = ours.Run()
	r.OursTime = time.Since(t0)
	t0 = time.Now()
	r.Up, err = up.Run()
	r.UpTime = time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	r.score()
	// Upstream breaks ties in Go map order (pod equivalence groups of
	// equal score, core/scaleup/equivalence and the estimator's
	// DecreasingPodOrderer's sort.Slice): on a disagreement, run it again
	// on a fresh setup, and count ours the same when it gives one of
	// upstream's answers.
	for i := 0; i < UpstreamRetries && !(r.SameGroup && r.SameCount && r.SameLeft); i++ {
		up, err := BuildUpstream(cat, c, ours)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		d, err := up.Run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		r.UpRuns++
		if !sameDecision(d, r.Up) {
			r.UpVaried = true
		}
		alt := &Result{Ours: r.Ours, Up: d}
		alt.score()
		if alt.SameGroup && alt.SameCount && alt.SameLeft {
			r.Up = d
			r.score()
		}
	}
	return r, nil
}

// UpstreamRetries is how many more upstream runs a disagreeing case gets.
var UpstreamRetries = 9

func sameDecision(a, b Decision) bool {
	if !equal(a.Best, b.Best) || len(a.Options) != len(b.Options) {
		return false
	}
	for i := range a.Options {
		x, y := a.Options[i], b.Options[i]
		if x.Group != y.Group || x.Nodes != y.Nodes || !equal(templatesOf(x.Pods), templatesOf(y.Pods)) {
			return false
		}
	}
	return true
}

func (r *Result) score() {
	o, u := r.Ours, r.Up
	if len(o.Best) == 0 || len(u.Best) == 0 {
		r.SameGroup = len(o.Best) == len(u.Best)
		r.SameCount, r.SameLeft = r.SameGroup, r.SameGroup
		return
	}
	r.SameGroup = subset(o.Best, u.Best)
	og, ug := o.Best[0], u.Best[0]
	if r.SameGroup {
		ug = og
	}
	oo, _ := o.option(og)
	uo, _ := u.option(ug)
	r.SameCount = oo.Nodes == uo.Nodes
	r.SameLeft = equal(templatesOf(oo.Pods), templatesOf(uo.Pods))
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// templatesOf maps pod names (<app>-<i>) to their templates, sorted:
// replicas of one template are interchangeable.
func templatesOf(pods []string) []string {
	out := make([]string, len(pods))
	for i, name := range pods {
		if j := strings.LastIndexByte(name, '-'); j > 0 {
			name = name[:j]
		}
		out[i] = name
	}
	sort.Strings(out)
	return out
}

// Summary aggregates results.
type Summary struct {
	Cases                         int
	SameGroup, SameCount, Left    int
	Ties                          int // cases where upstream's chain left several groups
	UpVaried                      int // cases where upstream's runs disagreed
	OursTime, UpTime              time.Duration
	ByChain                       map[string][3]int // chain -> cases, same group, same count
	Disagreements                 []string
	NoScaleUpOurs, NoScaleUpUp    int
	SameGroupPct, SameCountPct, X float64
}

// Summarize aggregates results.
func Summarize(rs []*Result) Summary {
	s := Summary{ByChain: map[string][3]int{}}
	for _, r := range rs {
		s.Cases++
		chain := strings.Join(r.Case.Expanders, ",")
		b := s.ByChain[chain]
		b[0]++
		if r.SameGroup {
			s.SameGroup++
			b[1]++
		}
		if r.SameCount {
			s.SameCount++
			b[2]++
		}
		s.ByChain[chain] = b
		if r.SameLeft {
			s.Left++
		}
		if len(r.Up.Best) > 1 {
			s.Ties++
		}
		if r.UpVaried {
			s.UpVaried++
		}
		if len(r.Ours.Best) == 0 {
			s.NoScaleUpOurs++
		}
		if len(r.Up.Best) == 0 {
			s.NoScaleUpUp++
		}
		s.OursTime += r.OursTime
		s.UpTime += r.UpTime
		if !r.SameGroup || !r.SameCount || !r.SameLeft {
			s.Disagreements = append(s.Disagreements, Describe(r))
		}
	}
	if s.Cases > 0 {
		s.SameGroupPct = 100 * float64(s.SameGroup) / float64(s.Cases)
		s.SameCountPct = 100 * float64(s.SameCount) / float64(s.Cases)
	}
	if s.OursTime > 0 {
		s.X = float64(s.UpTime) / float64(s.OursTime)
	}
	return s
}

// Print writes the report; its last line is the summary line of issue 22.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "cases where upstream's chain tied several groups (compared as a set): %d\n", s.Ties)
	fmt.Fprintf(w, "no scale-up: ours %d, upstream %d\n", s.NoScaleUpOurs, s.NoScaleUpUp)
	fmt.Fprintf(w, "cases where upstream's own runs differed (map-order ties; up to %d more runs on a disagreement): %d\n", UpstreamRetries, s.UpVaried)
	fmt.Fprintf(w, "same pods taken (per template, so the same left out): %d/%d\n", s.Left, s.Cases)
	var chains []string
	for k := range s.ByChain {
		chains = append(chains, k)
	}
	sort.Strings(chains)
	for _, k := range chains {
		b := s.ByChain[k]
		fmt.Fprintf(w, "  --expander=%-22s cases=%3d same_group=%3d same_count=%3d\n", k, b[0], b[1], b[2])
	}
	fmt.Fprintf(w, "decision time: ours %v, upstream %v\n", s.OursTime.Round(time.Microsecond), s.UpTime.Round(time.Microsecond))
	for _, d := range s.Disagreements {
		fmt.Fprintln(w, "  differs:", d)
	}
	fmt.Fprintf(w, "fidelity-ca: cases=%d same_group=%.1f%% same_count=%.1f%% speedup=%.1fx\n", s.Cases, s.SameGroupPct, s.SameCountPct, s.X)
}

// Check lists the targets missed.
func (s Summary) Check() []string {
	var miss []string
	if s.SameGroupPct < 100*TargetSameGroup {
		miss = append(miss, fmt.Sprintf("same_group %.1f%% < %.0f%%", s.SameGroupPct, 100*TargetSameGroup))
	}
	if s.SameCountPct < 100*TargetSameCount {
		miss = append(miss, fmt.Sprintf("same_count %.1f%% < %.0f%%", s.SameCountPct, 100*TargetSameCount))
	}
	if s.X < TargetSpeedup {
		miss = append(miss, fmt.Sprintf("speedup %.1fx < %.0fx", s.X, TargetSpeedup))
	}
	return miss
}

// Describe is one line about a result.
func Describe(r *Result) string {
	return fmt.Sprintf("%s [%s; %s] ours %s | upstream %s", r.Case.Name, strings.Join(r.Case.Expanders, ","), r.Case.Shape, r.Ours.brief(), r.Up.brief())
}

func (d Decision) brief() string {
	if len(d.Best) == 0 {
		return fmt.Sprintf("no scale-up (%d options)", len(d.Options))
	}
	var parts []string
	for _, g := range d.Best {
		o, _ := d.option(g)
		parts = append(parts, fmt.Sprintf("%s+%d(%d pods: %s)", g, o.Nodes, len(o.Pods), countTemplates(o.Pods)))
	}
	return strings.Join(parts, " or ")
}

func countTemplates(pods []string) string {
	t := templatesOf(pods)
	var parts []string
	for i := 0; i < len(t); {
		j := i
		for j < len(t) && t[j] == t[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%s x%d", t[i], j-i))
		i = j
	}
	return strings.Join(parts, ",")
}

// Detail writes both decisions of a case in full.
func Detail(w io.Writer, r *Result) {
	c := r.Case
	fmt.Fprintf(w, "%s --expander=%s priorities=%v\n", c.Name, strings.Join(c.Expanders, ","), c.Priorities)
	for _, g := range c.Groups {
		fmt.Fprintf(w, "  group %s %s zones=%v min=%d max=%d size=%d labels=%v taints=%v\n", g.Name, g.InstanceType, g.Zones, g.Min, g.Max, g.Size, g.Labels, g.Taints)
	}
	tmpl := map[string]bool{}
	for _, p := range c.Pods {
		a := p.Labels["app"]
		if tmpl[a] {
			continue
		}
		tmpl[a] = true
		n := 0
		for _, q := range c.Pods {
			if q.Labels["app"] == a {
				n++
			}
		}
		req := p.Spec.Containers[0].Resources.Requests
		fmt.Fprintf(w, "  pods %s x%d cpu=%s mem=%s sel=%v tol=%d spread=%d anti=%v\n", a, n, req.Cpu(), req.Memory(), p.Spec.NodeSelector, len(p.Spec.Tolerations), len(p.Spec.TopologySpreadConstraints), p.Spec.Affinity != nil)
	}
	for _, side := range []struct {
		name string
		d    Decision
	}{{"ours", r.Ours}, {"upstream", r.Up}} {
		fmt.Fprintf(w, "  %s: best %v\n", side.name, side.d.Best)
		for _, o := range side.d.Options {
			fmt.Fprintf(w, "    %s +%d: %s\n", o.Group, o.Nodes, countTemplates(o.Pods))
		}
	}
}
