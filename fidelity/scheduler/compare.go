package schedfidelity

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"
)

// PodResult is one pod's two answers.
type PodResult struct {
	Pod           string
	Up, Ours      Answer
	FeasibleEqual bool
	TopEqual      bool
	ChosenInTop   bool // our chosen node is in upstream's top set
	Unschedulable bool // either side found no node
	MessageEqual  bool
	BoundTo       string // the node both sides bound it to ("" if not bound)
	Sampled       bool   // the case samples (percentage below 100)
}

// Result is one case's comparison.
type Result struct {
	Case     *Case
	Pods     []PodResult
	Up, Ours time.Duration // time in the two schedulers' cycles
}

// Compare loads the case into both schedulers and evaluates its pods in
// order. After each pod both sides bind it to upstream's chosen node when
// ours found that node feasible too, so the states stay equal. detail
// records every plugin's scores on our side too (slower).
func Compare(c *Case, detail bool) (*Result, error) {
	// Ours is timed with this thread's CPU clock (cputime.go).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	up, err := NewUpstream(c)
	if err != nil {
		return nil, err
	}
	defer up.Close()
	ours, err := NewOurs(c)
	if err != nil {
		return nil, err
	}
	ours.Detail = detail
	res := &Result{Case: c}
	for _, p := range c.Pods {
		id, err := ours.Create(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		ua, err := up.Evaluate(p)
		if err != nil {
			return nil, fmt.Errorf("%s: pod %s: upstream: %w", c.Name, p.Name, err)
		}
		oa, err := ours.Evaluate(id)
		if err != nil {
			return nil, fmt.Errorf("%s: pod %s: ours: %w", c.Name, p.Name, err)
		}
		r := PodResult{Pod: p.Name, Up: ua, Ours: oa, Sampled: c.Percentage != 100,
			FeasibleEqual: slices.Equal(ua.Feasible, oa.Feasible),
			TopEqual:      slices.Equal(ua.Top, oa.Top),
			ChosenInTop:   oa.Chosen == "" && ua.Chosen == "" || oa.Chosen != "" && slices.Contains(ua.Top, oa.Chosen),
			Unschedulable: ua.Chosen == "" || oa.Chosen == "",
			MessageEqual:  ua.Message == oa.Message,
		}
		if ua.Chosen != "" && slices.Contains(oa.Feasible, ua.Chosen) {
			if err := up.Bind(p, ua.Chosen); err != nil {
				return nil, fmt.Errorf("%s: pod %s: upstream bind: %w", c.Name, p.Name, err)
			}
			ours.Bind(id, ua.Chosen)
			r.BoundTo = ua.Chosen
		}
		res.Pods = append(res.Pods, r)
	}
	res.Up, res.Ours = up.Elapsed, ours.Elapsed
	return res, nil
}

// Summary aggregates results.
type Summary struct {
	Cases, Pods, SampledPods   int
	Feasible, Top, ChosenInTop int
	Unschedulable, Message     int
	SampledFeasible            int
	Up, Ours                   time.Duration
	Disagreements              []string // "case-001/pod-003: feasible" ...
}

// Targets of issue 23 (percent, and the speedup factor).
const (
	TargetFeasible = 99.0
	TargetTop      = 97.0
	TargetMessage  = 95.0
	TargetSpeedup  = 10.0
)

// Summarize counts the agreements. Feasible and top sets count over every
// pod (sampled cases compare the sampled sets); messages over the pods
// either side found unschedulable.
func Summarize(rs []*Result) Summary {
	var s Summary
	for _, r := range rs {
		s.Cases++
		s.Up += r.Up
		s.Ours += r.Ours
		for _, p := range r.Pods {
			s.Pods++
			what := []string{}
			if p.FeasibleEqual {
				s.Feasible++
			} else {
				what = append(what, "feasible")
			}
			if p.Sampled {
				s.SampledPods++
				if p.FeasibleEqual {
					s.SampledFeasible++
				}
			}
			if p.TopEqual {
				s.Top++
			} else {
				what = append(what, "top")
			}
			if p.ChosenInTop {
				s.ChosenInTop++
			} else {
				what = append(what, "chosen")
			}
			if p.Unschedulable {
				s.Unschedulable++
				if p.MessageEqual {
					s.Message++
				} else {
					what = append(what, "message")
				}
			}
			if len(what) > 0 {
				s.Disagreements = append(s.Disagreements, fmt.Sprintf("%s/%s: %s", r.Case.Name, p.Pod, strings.Join(what, ",")))
			}
		}
	}
	return s
}

func pct(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

// Speedup is upstream's time over ours.
func (s Summary) Speedup() float64 {
	if s.Ours <= 0 {
		return 0
	}
	return float64(s.Up) / float64(s.Ours)
}

// Line is the one-line summary `make fidelity` prints.
func (s Summary) Line() string {
	return fmt.Sprintf("fidelity-scheduler: cases=%d feasible_equal=%.1f%% top_equal=%.1f%% message_equal=%.1f%% speedup=%.1fx",
		s.Cases, pct(s.Feasible, s.Pods), pct(s.Top, s.Pods), pct(s.Message, s.Unschedulable), s.Speedup())
}

// Print writes the summary and its details.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "pods %d (%d in sampled cases), unschedulable %d\n", s.Pods, s.SampledPods, s.Unschedulable)
	fmt.Fprintf(w, "chosen node in upstream's top set: %.1f%%; sampled feasible sets equal: %.1f%%\n",
		pct(s.ChosenInTop, s.Pods), pct(s.SampledFeasible, s.SampledPods))
	fmt.Fprintf(w, "time in cycles: upstream %v, ours %v\n", s.Up.Round(time.Millisecond), s.Ours.Round(time.Millisecond))
	fmt.Fprintln(w, s.Line())
}

// Check lists the targets missed.
func (s Summary) Check() []string {
	var miss []string
	if v := pct(s.Feasible, s.Pods); v < TargetFeasible {
		miss = append(miss, fmt.Sprintf("feasible_equal %.1f%% < %.0f%%", v, TargetFeasible))
	}
	if v := pct(s.Top, s.Pods); v < TargetTop {
		miss = append(miss, fmt.Sprintf("top_equal %.1f%% < %.0f%%", v, TargetTop))
	}
	if v := pct(s.Message, s.Unschedulable); v < TargetMessage {
		miss = append(miss, fmt.Sprintf("message_equal %.1f%% < %.0f%%", v, TargetMessage))
	}
	if v := pct(s.ChosenInTop, s.Pods); v < TargetTop {
		miss = append(miss, fmt.Sprintf("chosen node in upstream's top set %.1f%% < %.0f%%", v, TargetTop))
	}
	if v := s.Speedup(); v < TargetSpeedup {
		miss = append(miss, fmt.Sprintf("speedup %.1fx < %.0fx", v, TargetSpeedup))
	}
	return miss
}

// Detail writes both answers of every pod of a result.
func Detail(w io.Writer, r *Result) {
	for _, p := range r.Pods {
		fmt.Fprintf(w, "%s/%s feasible=%v top=%v chosen=%v message=%v bound=%s\n", r.Case.Name, p.Pod, p.FeasibleEqual, p.TopEqual, p.ChosenInTop, p.MessageEqual, p.BoundTo)
		for _, side := range []struct {
			name string
			a    Answer
		}{{"upstream", p.Up}, {"ours", p.Ours}} {
			fmt.Fprintf(w, "  %-8s feasible=%v top=%v chosen=%q\n", side.name, side.a.Feasible, side.a.Top, side.a.Chosen)
			if side.a.Message != "" {
				fmt.Fprintf(w, "  %-8s message=%q\n", side.name, side.a.Message)
			}
			if len(side.a.Scores) > 0 && !p.TopEqual {
				fmt.Fprintf(w, "  %-8s scores=%v\n", side.name, side.a.Scores)
				for _, pl := range sortedKeys(side.a.Plugins) {
					fmt.Fprintf(w, "  %-8s   %s=%v\n", side.name, pl, side.a.Plugins[pl])
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
