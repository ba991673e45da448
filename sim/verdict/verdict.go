// Package verdict writes the conclusion of a run in one or two sentences:
// what happened, why, what it cost, and what to run next. Every output
// leads with it (the run table, the HTML page), so that the answer is not
// left in a table of figures.
//
// The why never comes from the scheduler's last message alone ("3
// Insufficient cpu" says only that no node had room): it comes from the
// same analysis sim lint uses (a workload that tolerates only spot and has
// no fallback, one no source can ever host) and from what the run's
// launches met (capacity errors by zone and capacity type, reclaims).
package verdict

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/report"
)

// Inputs is what a verdict reads besides the report.
type Inputs struct {
	// Scenario is how the user named the scenario on the command line,
	// for the next command ("sim explain hybrid-naive --pod ...").
	Scenario string
	// StrandedAfter is the scenario's strandedAfter: how long an unbound
	// pod waits before it counts as stranded.
	StrandedAfter time.Duration
	// Lint is sim lint's result for the scenario, or nil.
	Lint *lint.Result
}

// Verdict is the conclusion of one run.
type Verdict struct {
	// Summary: what happened and why, then what it cost.
	Summary string `json:"summary"`
	// Next is the command to run next, or "".
	Next string `json:"next,omitempty"`
}

// String is the verdict as the table prints it: the summary, then "Next:".
func (v Verdict) String() string {
	if v.Next == "" {
		return v.Summary
	}
	return v.Summary + " Next: " + v.Next
}

// Of writes the verdict of rep.
func Of(rep *report.Report, in Inputs) Verdict {
	var b strings.Builder
	var next string
	worst := worstWorkload(rep)
	switch {
	case rep.Pods.Stranded > 0 && worst != nil:
		fmt.Fprintf(&b, "%d of %d pods of %s stranded (pending > %s, up to %s)", worst.Stranded, worst.Pods, worst.Ref,
			human(in.StrandedAfter), human(seconds(worst.PendingSeconds.Max)))
		if others := rep.Pods.Stranded - worst.Stranded; others > 0 {
			fmt.Fprintf(&b, ", and %d more pods of other workloads", others)
		}
		if why := causes(rep, in.Lint, worst.Ref); len(why) > 0 {
			b.WriteString(": " + strings.Join(why, " and "))
		} else if worst.StrandedReason != "" {
			// Nothing explains it better than the scheduler: say whose words these are.
			fmt.Fprintf(&b, " (the scheduler: %q)", worst.StrandedReason)
		}
		b.WriteString(". ")
		if pod := firstStranded(rep, worst.Ref); pod != "" && in.Scenario != "" {
			next = fmt.Sprintf("sim explain %s --pod %s", in.Scenario, pod)
		}
	case rep.Pods.PendingAtEnd > 0:
		fmt.Fprintf(&b, "%d of %d pods still pending at the end. ", rep.Pods.PendingAtEnd, rep.Pods.Total)
	default:
		fmt.Fprintf(&b, "No pod stranded: %d pods, pending p99 %s. ", rep.Pods.Total, human(seconds(rep.Pods.PendingSeconds.P99)))
	}
	if failed := rep.Controllers.JobsFailed; failed > 0 {
		fmt.Fprintf(&b, "%d Job(s) failed (%d pod failures)", failed, rep.Controllers.JobPodFailures)
		if f := rep.Controllers.FailedJobs; len(f) > 0 {
			first := ""
			if len(f) > 1 {
				first = "the first, "
			}
			fmt.Fprintf(&b, ": %s%s at %s %s", first, f[0].Job, human(seconds(f[0].AtSeconds)), f[0].Reason)
		}
		b.WriteString("; less work was done than asked. ")
	}
	b.WriteString(costSentence(rep))
	if next == "" && in.Lint != nil && in.Lint.Count(lint.Warning) > 0 && in.Scenario != "" {
		next = fmt.Sprintf("sim lint %s (%d warning(s))", in.Scenario, in.Lint.Count(lint.Warning))
	}
	return Verdict{Summary: strings.TrimSpace(b.String()), Next: next}
}

// worstWorkload is the workload with the most stranded pods (the first in
// manifest order on a tie), or nil.
func worstWorkload(rep *report.Report) *report.Workload {
	var worst *report.Workload
	for i := range rep.Workloads {
		w := &rep.Workloads[i]
		if w.Stranded > 0 && (worst == nil || w.Stranded > worst.Stranded) {
			worst = w
		}
	}
	return worst
}

// causes are the reasons the workload's pods stranded, from lint's
// static analysis and from the launches the run tried.
func causes(rep *report.Report, res *lint.Result, ref string) []string {
	var out []string
	if res != nil {
		for i := range res.Findings {
			f := &res.Findings[i]
			if f.Workload != ref {
				continue
			}
			switch f.Kind {
			case lint.KindUnhostable:
				out = append(out, "no capacity source can ever host it")
			case lint.KindSpotOnly:
				out = append(out, ref+" tolerates only spot and has no on-demand fallback")
			case lint.KindTemplateMismatch:
				out = append(out, "the Cluster Autoscaler's group matches it but its nodes cannot run it")
			case lint.KindVolumeZone:
				out = append(out, "its zonal volumes need a zone no source adds nodes in")
			case lint.KindSelectsNothing:
				out = append(out, "a required affinity or spread selector matches no pod")
			}
		}
	}
	if dry := dryZones(rep); dry != "" {
		// Capacity first: it is what happened; lint's finding is why it mattered.
		out = append([]string{dry}, out...)
	}
	return out
}

// dryZones says where launches met capacity errors: "spot ran dry in
// us-east-1a and us-east-1b (1,940 capacity errors)", for the zones and
// capacity types that refused most of the launches that tried them.
func dryZones(rep *report.Report) string {
	type zc struct{ zone, capacity string }
	asked, refused := map[zc]uint64{}, map[zc]uint64{}
	for _, p := range rep.Provisioning.Pools {
		parts := strings.Split(p.Pool, "/") // instanceType/zone/capacityType
		if len(parts) != 3 {
			continue
		}
		k := zc{parts[1], parts[2]}
		asked[k] += p.Asked
		refused[k] += p.Refused
	}
	byCapacity := map[string][]string{}
	for k, a := range asked {
		if r := refused[k]; r > 0 && 2*r >= a {
			byCapacity[k.capacity] = append(byCapacity[k.capacity], k.zone)
		}
	}
	if len(byCapacity) == 0 {
		return ""
	}
	caps := make([]string, 0, len(byCapacity))
	for c := range byCapacity {
		caps = append(caps, c)
	}
	sort.Strings(caps)
	var parts []string
	for _, c := range caps {
		zones := byCapacity[c]
		sort.Strings(zones)
		parts = append(parts, fmt.Sprintf("%s ran dry in %s", c, and(zones)))
	}
	s := strings.Join(parts, ", ")
	if n := rep.Provisioning.InsufficientCapacityErrors; n > 0 {
		s += fmt.Sprintf(" (%s insufficient-capacity errors)", thousands(n))
	}
	return s
}

// firstStranded is the first stranded pod of the workload, for sim
// explain.
func firstStranded(rep *report.Report, ref string) string {
	for _, p := range rep.UnschedulablePods {
		if p.Stranded && p.Workload == ref {
			return p.Pod
		}
	}
	return ""
}

// costSentence: "$1.05, 45% below on-demand."
func costSentence(rep *report.Report) string {
	c := rep.Cost
	s := fmt.Sprintf("Cost $%.2f", c.TotalUSD)
	switch {
	case c.SpotUSD == 0 && c.OnDemandEquivalentUSD > 0:
		s += " (all on-demand)"
	case c.SavingsPct >= 0.5:
		s += fmt.Sprintf(", %.0f%% below all on-demand ($%.2f)", c.SavingsPct, c.OnDemandEquivalentUSD)
	case c.SavingsPct <= -0.5:
		s += fmt.Sprintf(", %.0f%% above all on-demand ($%.2f)", -c.SavingsPct, c.OnDemandEquivalentUSD)
	}
	return s + "."
}

func and(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// human writes a duration as the run table does: 43.4s, 10m, 1h14m.
func human(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		if d%time.Minute == 0 {
			return fmt.Sprintf("%dm", int(d.Minutes()))
		}
		return fmt.Sprintf("%.1fm", d.Minutes())
	}
	h := int(d.Hours())
	m := int((d - time.Duration(h)*time.Hour).Minutes())
	return fmt.Sprintf("%dh%02dm", h, m)
}

// thousands writes n with commas: 1,940.
func thousands(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
