package ca

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
)

// Targets of issue 34 (scale-down).
const (
	TargetSameUnneeded  = 0.95
	TargetSameRemovable = 0.95
	TargetSameReason    = 0.90
	TargetSDSpeedup     = 4.0
)

// ScaleDownPlan is one side's scale-down decision in neutral terms: node
// names, sorted, and why each node is not unneeded or, being unneeded,
// not deleted.
type ScaleDownPlan struct {
	// Unneeded are the nodes the planner found unneeded (UnneededNodes).
	Unneeded []string
	// ToDelete are those a loop would start deleting now, the unneeded
	// time aside: NodesToDelete cropped to --max-scale-down-parallelism
	// and --max-drain-parallelism; none in a cool-down.
	ToDelete []string
	// Reasons maps every other node to its reason, in upstream's words
	// (simulator.UnremovableReason, drain.BlockingPodReason for a blocking
	// pod), and an unneeded node not deleted to NodeGroupMinSizeReached,
	// ScaleDownInCooldown or MaxParallelismReached.
	Reasons map[string]string
}

// removable are the unneeded nodes a loop outside a cool-down may delete
// (the budgets decide how many now): ToDelete and those the budgets left.
func (p ScaleDownPlan) removable() []string {
	var out []string
	for _, n := range p.Unneeded {
		if r := p.Reasons[n]; r == "" || r == ReasonParallelism {
			out = append(out, n)
		}
	}
	return out
}

// reason is a node's reason, with the budgets' choice among removable
// nodes ("" or MaxParallelismReached) read as removable: upstream picks
// the drained node in map order.
func (p ScaleDownPlan) reason(n string) string {
	if r := p.Reasons[n]; r != ReasonParallelism {
		return r
	}
	return ""
}

// SDResult compares the two plans on one case.
type SDResult struct {
	Case     *SDCase
	Ours, Up ScaleDownPlan
	// Nodes are the case's node names.
	Nodes            []string
	OursTime, UpTime time.Duration
	// SameUnneeded: the same unneeded nodes. SameRemovable: the same
	// removable nodes and as many deleted now. SameReason: every node's
	// reason is the same.
	SameUnneeded, SameRemovable, SameReason bool
	UpRuns                                  int
	UpVaried                                bool
}

func (r *SDResult) score() {
	r.SameUnneeded = equal(r.Ours.Unneeded, r.Up.Unneeded)
	r.SameRemovable = equal(r.Ours.removable(), r.Up.removable()) && len(r.Ours.ToDelete) == len(r.Up.ToDelete)
	r.SameReason = true
	for _, n := range r.Nodes {
		if r.Ours.reason(n) != r.Up.reason(n) {
			r.SameReason = false
		}
	}
}

func (r *SDResult) same() bool { return r.SameUnneeded && r.SameRemovable && r.SameReason }

// CompareScaleDown runs both planners on a case. Upstream lists nodes in
// its informer cache's order and sorts candidates with sort.Sort (not
// stable), so a disagreeing case runs upstream again with the nodes
// shuffled, up to UpstreamRetries times, and ours agrees when it gives
// one of upstream's answers.
func CompareScaleDown(cat *catalog.Catalog, c *SDCase) (*SDResult, error) {
	ours, err := BuildOursScaleDown(cat, c)
	if err != nil {
		return nil, err
	}
	up, err := BuildUpstreamScaleDown(cat, c, ours, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	r := &SDResult{Case: c}
	for _, n := range up.nodes {
		r.Nodes = append(r.Nodes, n.Name)
	}
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
	// The shuffles are the case's own: the same on every run.
	h := fnv.New64a()
	h.Write([]byte(c.Name))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(len(r.Nodes))))
	for i := 0; i < UpstreamRetries && !r.same(); i++ {
		order := rng.Perm(len(r.Nodes))
		up, err := BuildUpstreamScaleDown(cat, c, ours, order)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		d, err := up.Run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		r.UpRuns++
		alt := &SDResult{Ours: r.Ours, Up: d, Nodes: r.Nodes}
		alt.score()
		if !equal(d.Unneeded, r.Up.Unneeded) || !equal(d.removable(), r.Up.removable()) {
			r.UpVaried = true
		}
		if alt.same() {
			r.Up = d
			r.score()
		}
	}
	return r, nil
}

// SDSummary aggregates scale-down results. Cases with local storage are
// counted apart: ours does not model pod volumes.
type SDSummary struct {
	Cases, LocalStorage                     int
	SameUnneeded, SameRemovable, SameReason int
	UpVaried                                int
	// Blockers counts, per reason, the nodes upstream gives it over the
	// scored cases, and how many of those ours gives the same reason.
	Blockers         map[string][2]int
	LocalBlocked     int // nodes upstream keeps for local storage
	OursTime, UpTime time.Duration
	Disagreements    []string
	UnneededPct      float64
	RemovablePct     float64
	ReasonPct        float64
	X                float64
}

// SummarizeScaleDown aggregates results.
func SummarizeScaleDown(rs []*SDResult) SDSummary {
	s := SDSummary{Blockers: map[string][2]int{}}
	for _, r := range rs {
		if r.Case.LocalStorage {
			s.LocalStorage++
			for _, why := range r.Up.Reasons {
				if why == "LocalStorageRequested" {
					s.LocalBlocked++
				}
			}
			continue
		}
		s.Cases++
		if r.SameUnneeded {
			s.SameUnneeded++
		}
		if r.SameRemovable {
			s.SameRemovable++
		}
		if r.SameReason {
			s.SameReason++
		}
		if r.UpVaried {
			s.UpVaried++
		}
		for _, n := range r.Nodes {
			why := r.Up.reason(n)
			if why == "" {
				why = "(removable)"
			}
			b := s.Blockers[why]
			b[0]++
			if r.Ours.reason(n) == r.Up.reason(n) {
				b[1]++
			}
			s.Blockers[why] = b
		}
		s.OursTime += r.OursTime
		s.UpTime += r.UpTime
		if !r.same() {
			s.Disagreements = append(s.Disagreements, DescribeScaleDown(r))
		}
	}
	if s.Cases > 0 {
		s.UnneededPct = 100 * float64(s.SameUnneeded) / float64(s.Cases)
		s.RemovablePct = 100 * float64(s.SameRemovable) / float64(s.Cases)
		s.ReasonPct = 100 * float64(s.SameReason) / float64(s.Cases)
	}
	if s.OursTime > 0 {
		s.X = float64(s.UpTime) / float64(s.OursTime)
	}
	return s
}

// Print writes the report; its last line is the summary line of issue 34.
func (s SDSummary) Print(w io.Writer) {
	fmt.Fprintf(w, "cases with local storage (not scored: ours does not model pod volumes): %d, where upstream keeps %d nodes for LocalStorageRequested\n", s.LocalStorage, s.LocalBlocked)
	fmt.Fprintf(w, "cases where upstream's own runs differed (node order; up to %d more runs on a disagreement): %d\n", UpstreamRetries, s.UpVaried)
	var keys []string
	for k := range s.Blockers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(w, "nodes by upstream's reason (ours the same):")
	for _, k := range keys {
		b := s.Blockers[k]
		fmt.Fprintf(w, "  %-28s %4d (%d)\n", k, b[0], b[1])
	}
	fmt.Fprintf(w, "decision time: ours %v, upstream %v\n", s.OursTime.Round(time.Microsecond), s.UpTime.Round(time.Microsecond))
	for _, d := range s.Disagreements {
		fmt.Fprintln(w, "  differs:", d)
	}
	fmt.Fprintf(w, "fidelity-ca-scaledown: cases=%d same_unneeded=%.1f%% same_removable=%.1f%% same_reason=%.1f%% speedup=%.1fx\n",
		s.Cases, s.UnneededPct, s.RemovablePct, s.ReasonPct, s.X)
}

// Check lists the targets missed.
func (s SDSummary) Check() []string {
	var miss []string
	for _, t := range []struct {
		name      string
		got, want float64
	}{
		{"same_unneeded", s.UnneededPct, 100 * TargetSameUnneeded},
		{"same_removable", s.RemovablePct, 100 * TargetSameRemovable},
		{"same_reason", s.ReasonPct, 100 * TargetSameReason},
	} {
		if t.got < t.want {
			miss = append(miss, fmt.Sprintf("%s %.1f%% < %.0f%%", t.name, t.got, t.want))
		}
	}
	if s.X < TargetSDSpeedup {
		miss = append(miss, fmt.Sprintf("speedup %.1fx < %.0fx", s.X, TargetSDSpeedup))
	}
	return miss
}

// DescribeScaleDown is one line about a result: the nodes whose verdicts
// differ.
func DescribeScaleDown(r *SDResult) string {
	var parts []string
	for _, n := range r.Nodes {
		o, u := verdict(r.Ours, n), verdict(r.Up, n)
		if o != u {
			parts = append(parts, fmt.Sprintf("%s ours %s upstream %s", n, o, u))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("deleted now: ours %d upstream %d", len(r.Ours.ToDelete), len(r.Up.ToDelete)))
	}
	return fmt.Sprintf("%s [%s] %s", r.Case.Name, r.Case.Shape, strings.Join(parts, "; "))
}

// verdict is a node's verdict in a few words.
func verdict(p ScaleDownPlan, n string) string {
	v := "kept"
	if contains(p.Unneeded, n) {
		v = "unneeded"
	}
	if why := p.reason(n); why != "" {
		v += "(" + why + ")"
	}
	return v
}

// DetailScaleDown writes a case and both plans in full.
func DetailScaleDown(w io.Writer, r *SDResult) {
	c := r.Case
	fmt.Fprintf(w, "%s cooldown=%v pdb-min-available=%d\n", c.Name, c.Cooldown, c.PDBMinAvailable)
	for _, g := range c.Groups {
		fmt.Fprintf(w, "  group %s %s min=%d max=%d size=%d\n", g.Name, g.InstanceType, g.Min, g.Max, len(g.Nodes))
		for k, nd := range g.Nodes {
			var pods []string
			for _, p := range nd.Pods {
				cpu := fmt.Sprintf("%dm", p.CPUMilli)
				if p.HalfCPU {
					cpu = "half"
				}
				pods = append(pods, fmt.Sprintf("%s:%s/%s/%dMi", p.Kind, p.App, cpu, p.MemMi))
			}
			fmt.Fprintf(w, "    node %d disabled=%v pods=%v\n", k, nd.NoScaleDown, pods)
		}
	}
	for _, n := range r.Nodes {
		fmt.Fprintf(w, "  %-32s ours %-40s upstream %s\n", n, verdict(r.Ours, n), verdict(r.Up, n))
	}
	fmt.Fprintf(w, "  to delete: ours %v, upstream %v\n", r.Ours.ToDelete, r.Up.ToDelete)
}
