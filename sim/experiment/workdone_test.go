package experiment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/report"
)

func workRun(seed uint64, succeeded int, failed bool) *report.Report {
	r := &report.Report{}
	r.Seed = seed
	r.Pods.Succeeded = succeeded
	r.Controllers.JobsArrived = 1
	if failed {
		r.Controllers.JobsFailed = 1
		r.Controllers.LostPodSeconds = 7200
		r.Controllers.FailedJobs = []report.FailedJob{{Job: "batch/spark", AtSeconds: 3720, Reason: "exceeded backoffLimit 6 after 7 pod failures (7 nodeGone)"}}
	} else {
		r.Controllers.JobsCompleted = 1
	}
	return r
}

// The side that did less work is named first with its figures, whichever
// is the baseline; the same work, within WorkGapPct, gives no warning.
func TestWorkGap(t *testing.T) {
	spot := WorkOf([]*report.Report{workRun(1, 40, true), workRun(2, 122, false), workRun(3, 40, true)})
	od := WorkOf([]*report.Report{workRun(1, 122, false), workRun(2, 122, false), workRun(3, 122, false)})
	require.Equal(t, 2, spot.RunsWithFailedJobs)
	require.Equal(t, "batch/spark failed at 1h02m (seed 1): exceeded backoffLimit 6 after 7 pod failures (7 nodeGone)", spot.Example)
	want := "WARNING: not like for like: spot did less work than od, so the cost difference is partly work not done (means per run): " +
		"pods succeeded 67.33 vs 122; Jobs completed 0.3333 vs 1; Jobs failed in 2 of 3 runs vs 0 of 3; Job pod run time lost 1h20m vs 0s. " +
		"E.g. batch/spark failed at 1h02m (seed 1): exceeded backoffLimit 6 after 7 pod failures (7 nodeGone)."
	require.Equal(t, want, WorkGap("spot", "od", spot, od))
	require.Equal(t, want, WorkGap("od", "spot", od, spot))
	require.Equal(t, "Jobs failed in 2 of 3 runs (0.667 per run; their remaining pods deleted), e.g. batch/spark failed at 1h02m (seed 1): exceeded backoffLimit 6 after 7 pod failures (7 nodeGone)",
		spot.FailedJobsLine())
	require.Empty(t, od.FailedJobsLine())

	near := WorkOf([]*report.Report{workRun(1, 118, false), workRun(2, 122, false), workRun(3, 122, false)})
	require.Empty(t, WorkGap("od", "near", od, near), "1.1% fewer pods succeeded: like for like")
}
