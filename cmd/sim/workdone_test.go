package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/report"
)

// The Spark-on-EKS executors of testdata/workdone/spark-spot.yaml (real
// data-on-eks files, see its header): a reclaim at 30 minutes takes 7 of
// the 10 executors, the seventh failure exceeds the Job's backoffLimit 6,
// and the Job deletes the other three. Every output says the work was not
// done, beside what it cost.
var (
	sparkSpot     = filepath.Join("testdata", "workdone", "spark-spot.yaml")
	sparkOnDemand = sparkSpot + "+" + filepath.Join("testdata", "workdone", "spark-ondemand-nodepool.yaml")
)

const sparkFailure = "exceeded backoffLimit 6 after 7 pod failures (7 nodeGone)"

func TestFailedJobInTheReport(t *testing.T) {
	out, stderr, code := sim(t, "run", sparkSpot, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	c := r.Controllers
	require.Equal(t, uint64(1), c.JobsArrived)
	require.Equal(t, uint64(0), c.JobsCompleted)
	require.Equal(t, uint64(1), c.JobsFailed)
	require.Equal(t, uint64(7), c.JobPodFailures, "the seventh failure is the one over the limit")
	require.Equal(t, uint64(0), c.PodsReplaced, "a failed Job replaces none of its lost pods")
	require.Len(t, c.FailedJobs, 1)
	f := c.FailedJobs[0]
	require.Equal(t, "emr-data-team-a/ny-taxi-exec", f.Job)
	require.Equal(t, "Job/emr-data-team-a/ny-taxi-exec", f.Workload)
	require.Equal(t, 1920.0, f.AtSeconds, "the reclaim, 2 minutes after the 30-minute notice")
	require.Equal(t, sparkFailure, f.Reason)
	require.Equal(t, 0, r.Pods.Succeeded)
	require.Equal(t, 10, r.Pods.Deleted)
	// Every executor ran from its start to 32 minutes: the lost run time
	// is the sum of those spans.
	require.Greater(t, c.LostPodSeconds, 10*(1920-120.0), "ten executors started within 2 minutes")
	require.Less(t, c.LostPodSeconds, 10*1920.0)

	table, stderr, code := sim(t, "run", sparkSpot)
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `Jobs completed / failed / arrived\s+0 / 1 / 1`, table)
	require.Regexp(t, `Job pod run time lost\s+5h\d\dm`, table)
	require.Contains(t, table, "Failed Jobs:\n  - emr-data-team-a/ny-taxi-exec failed at 32m00s: "+sparkFailure+"\n")
	require.Contains(t, strings.Join(strings.Fields(table), " "),
		"1 Job(s) failed (7 pod failures): emr-data-team-a/ny-taxi-exec at 32m "+sparkFailure+"; less work was done than asked.", "the verdict")

	page := filepath.Join(t.TempDir(), "run.html")
	_, stderr, code = sim(t, "run", sparkSpot, "--html", page)
	require.Equal(t, 0, code, stderr)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	require.Contains(t, string(html), "<tr><th>Work done</th><td class=\"n\">0</td><td>pods succeeded; 10 deleted before finishing; Jobs 0 completed, <b>1 failed</b> of 1;")
	require.Contains(t, string(html), "<td><code>emr-data-team-a/ny-taxi-exec</code></td><td class=\"n\">32m00s</td><td class=\"msg\">"+sparkFailure+"</td>")
}

func TestRunsSayHowOftenAJobFailed(t *testing.T) {
	out, stderr, code := sim(t, "run", sparkSpot, "--runs", "3")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `controllers\.jobsFailed\s+1 `, out)
	require.Regexp(t, `pods\.succeeded\s+0 `, out)
	require.Regexp(t, `Jobs failed in 3 of 3 runs \(1 per run; their remaining pods deleted\), e\.g\. emr-data-team-a/ny-taxi-exec failed at 32m00s \(seed \d+\): `+
		strings.ReplaceAll(strings.ReplaceAll(sparkFailure, "(", `\(`), ")", `\)`), out)
}

// The spot baseline is much cheaper than on demand because its Job failed
// and its nodes emptied early: compare must say the difference is not
// like for like, with the figures, in the table, the JSON and the page.
func TestCompareWarnsWhenOneSideDidLessWork(t *testing.T) {
	page := filepath.Join(t.TempDir(), "compare.html")
	out, stderr, code := sim(t, "compare", sparkSpot, sparkOnDemand, "--runs", "2", "--html", page)
	require.Equal(t, 0, code, stderr)
	want := "WARNING: not like for like: " + sparkSpot + " did less work than " + sparkOnDemand +
		", so the cost difference is partly work not done (means per run): pods succeeded 0 vs 10; Jobs completed 0 vs 1; Jobs failed in 2 of 2 runs vs 0 of 2; Job pod run time lost 5h"
	require.Contains(t, out, want)
	require.Contains(t, out, "E.g. emr-data-team-a/ny-taxi-exec failed at 32m00s (seed ")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	require.Contains(t, string(html), `<p class="warn"><b>WARNING: not like for like: `)

	js, stderr, code := sim(t, "compare", sparkSpot, sparkOnDemand, "--runs", "2", "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, want, "told beside the JSON")
	var c comparison
	require.NoError(t, json.Unmarshal([]byte(js), &c))
	require.Contains(t, c.Comparisons[0].WorkGap, want)

	// The same configuration twice did the same work: no warning.
	out, stderr, code = sim(t, "compare", sparkSpot, sparkSpot, "--runs", "2")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "not like for like")
}

// explain: a pod the failed Job deleted says why the Job failed; a pod
// the reclaim took says its Job failed then.
func TestExplainSaysWhyThePodsJobFailed(t *testing.T) {
	var deletedByJob, lostWithNode int
	for _, pod := range []string{"ny-taxi-exec-1", "ny-taxi-exec-2", "ny-taxi-exec-3", "ny-taxi-exec-4", "ny-taxi-exec-5",
		"ny-taxi-exec-6", "ny-taxi-exec-7", "ny-taxi-exec-8", "ny-taxi-exec-9", "ny-taxi-exec-10"} {
		out := explainOf(t, sparkSpot, pod)
		switch {
		case strings.Contains(out, "deleted: jobFailed"):
			deletedByJob++
			require.Contains(t, out, "32m00s  deleted: jobFailed (Job emr-data-team-a/ny-taxi-exec failed at 32m00s: "+sparkFailure+")")
		case strings.Contains(out, "deleted: nodeGone"):
			lostWithNode++
			require.Contains(t, out, "(then its Job emr-data-team-a/ny-taxi-exec failed: "+sparkFailure+")")
		default:
			t.Fatalf("%s was neither lost nor deleted by its Job:\n%s", pod, out)
		}
	}
	require.Equal(t, 3, deletedByJob)
	require.Equal(t, 7, lostWithNode)
}

// An all-on-demand run saves nothing: the data-on-eks NodePool on demand
// (testdata/workdone/spark-ondemand-nodepool.yaml). The counterfactual
// priced each node's lifetime while the cost bills the instance (from its
// launch, rounded up to the second, at least a minute), so such a run
// showed savingsPct 0.058 here (-0.013 in the bundle).
func TestAllOnDemandSavesNothing(t *testing.T) {
	out, stderr, code := sim(t, "run", sparkOnDemand, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Greater(t, r.Cost.OnDemandUSD, 1.0)
	require.Zero(t, r.Cost.SpotUSD)
	require.Equal(t, r.Cost.TotalUSD, r.Cost.OnDemandEquivalentUSD)
	require.Zero(t, r.Cost.SavingsPct)
	require.Equal(t, uint64(1), r.Controllers.JobsCompleted, "on demand, nothing reclaims the executors")
	require.Equal(t, 10, r.Pods.Succeeded)
}

// The Kubernetes docs' pi-with-timeout (testdata/workdone/pi-with-timeout.yaml):
// its pod needs 5 minutes, the Job allows 100 seconds, so the Job fails
// at 1m40s with its pod deleted, and explain says why.
func TestJobPastItsActiveDeadline(t *testing.T) {
	scenario := filepath.Join("testdata", "workdone", "pi-with-timeout.yaml")
	out, stderr, code := sim(t, "run", scenario, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var r report.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, []report.FailedJob{{Job: "default/pi-with-timeout", Workload: "Job/default/pi-with-timeout", AtSeconds: 100,
		Reason: "exceeded activeDeadlineSeconds 100 with 0 of 1 completions"}}, r.Controllers.FailedJobs)
	require.Equal(t, uint64(0), r.Controllers.JobPodFailures, "the deadline, not the pod, failed it")
	require.Equal(t, 1, r.Pods.Deleted)
	require.Greater(t, r.Controllers.LostPodSeconds, 0.0, "the pod had started")
	require.Less(t, r.Controllers.LostPodSeconds, 100.0)
	story := explainOf(t, scenario, "pi-with-timeout-1")
	require.Contains(t, story, "1m40s  deleted: jobFailed (Job default/pi-with-timeout failed at 1m40s: exceeded activeDeadlineSeconds 100 with 0 of 1 completions)")
}
