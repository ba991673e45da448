package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/clustersim/clustersim/sim/report"
)

// WorkGapPct is how far apart (in percent of the larger) two sets of
// runs' mean pods succeeded or Jobs completed may be before their costs
// are no longer compared like for like.
const WorkGapPct = 5

// Work is what a set of runs got done, beside what it cost: means over
// the runs, and how many runs had a Job fail.
type Work struct {
	Runs           int
	PodsSucceeded  float64
	JobsCompleted  float64
	JobsFailed     float64
	LostPodSeconds float64
	// RunsWithFailedJobs counts the runs in which a Job failed; Example
	// is the first such Job of the first such run ("batch/spark-exec
	// failed at 1h02m (seed 7): exceeded backoffLimit 6 after 7 pod
	// failures (7 nodeGone)").
	RunsWithFailedJobs int
	Example            string
}

// WorkOf sums up the work of a set of runs.
func WorkOf(rs []*report.Report) Work {
	w := Work{Runs: len(rs)}
	if len(rs) == 0 {
		return w
	}
	for _, r := range rs {
		w.PodsSucceeded += float64(r.Pods.Succeeded)
		w.JobsCompleted += float64(r.Controllers.JobsCompleted)
		w.JobsFailed += float64(r.Controllers.JobsFailed)
		w.LostPodSeconds += r.Controllers.LostPodSeconds
		if r.Controllers.JobsFailed > 0 {
			w.RunsWithFailedJobs++
			if w.Example == "" && len(r.Controllers.FailedJobs) > 0 {
				f := r.Controllers.FailedJobs[0]
				w.Example = fmt.Sprintf("%s failed at %s (seed %d): %s", f.Job, hms(f.AtSeconds), r.Seed, f.Reason)
			}
		}
	}
	n := float64(len(rs))
	w.PodsSucceeded /= n
	w.JobsCompleted /= n
	w.JobsFailed /= n
	w.LostPodSeconds /= n
	return w
}

// FailedJobsLine says, for sim run --runs, in how many runs a Job failed,
// with an example; "" when none did.
func (w Work) FailedJobsLine() string {
	if w.RunsWithFailedJobs == 0 {
		return ""
	}
	return fmt.Sprintf("Jobs failed in %d of %d runs (%.3g per run; their remaining pods deleted), e.g. %s",
		w.RunsWithFailedJobs, w.Runs, w.JobsFailed, w.Example)
}

// WorkGap compares the work of a configuration's runs with the
// baseline's on the same seeds. When one did noticeably less (Jobs
// failed in more of its runs, or mean pods succeeded or Jobs completed
// more than WorkGapPct apart), it returns a warning that their cost
// difference is not like for like, with the figures of the side that did
// less first; "" otherwise.
func WorkGap(baseName, otherName string, base, other Work) string {
	failed := base.RunsWithFailedJobs != other.RunsWithFailedJobs
	pods := gapPct(base.PodsSucceeded, other.PodsSucceeded) > WorkGapPct
	jobs := gapPct(base.JobsCompleted, other.JobsCompleted) > WorkGapPct
	if !failed && !pods && !jobs {
		return ""
	}
	lessName, less, moreName, more := otherName, other, baseName, base
	switch {
	case failed:
		if other.RunsWithFailedJobs < base.RunsWithFailedJobs {
			lessName, less, moreName, more = baseName, base, otherName, other
		}
	case pods:
		if other.PodsSucceeded > base.PodsSucceeded {
			lessName, less, moreName, more = baseName, base, otherName, other
		}
	case other.JobsCompleted > base.JobsCompleted:
		lessName, less, moreName, more = baseName, base, otherName, other
	}
	var why []string
	if pods {
		why = append(why, fmt.Sprintf("pods succeeded %.4g vs %.4g", less.PodsSucceeded, more.PodsSucceeded))
	}
	if jobs {
		why = append(why, fmt.Sprintf("Jobs completed %.4g vs %.4g", less.JobsCompleted, more.JobsCompleted))
	}
	if failed {
		why = append(why, fmt.Sprintf("Jobs failed in %d of %d runs vs %d of %d", less.RunsWithFailedJobs, less.Runs, more.RunsWithFailedJobs, more.Runs))
	}
	if less.LostPodSeconds != more.LostPodSeconds {
		why = append(why, fmt.Sprintf("Job pod run time lost %s vs %s", hms(less.LostPodSeconds), hms(more.LostPodSeconds)))
	}
	msg := fmt.Sprintf("WARNING: not like for like: %s did less work than %s, so the cost difference is partly work not done (means per run): %s",
		lessName, moreName, strings.Join(why, "; "))
	if less.Example != "" {
		msg += ". E.g. " + less.Example
	}
	return msg + "."
}

// gapPct is how far apart a and b are, in percent of the larger.
func gapPct(a, b float64) float64 {
	top := math.Max(math.Abs(a), math.Abs(b))
	if top == 0 {
		return 0
	}
	return 100 * math.Abs(a-b) / top
}

// hms renders seconds as 42s, 3m07s or 2h10m.
func hms(s float64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%.0fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, (int(s)%3600)/60)
}
