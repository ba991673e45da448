package workload

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
)

// cronSpec is a CronJob's Job firing every 10 minutes from 0 to 40m.
func cronSpec(policy ConcurrencyPolicy, deadline time.Duration) Spec {
	return Spec{Kind: Job, Namespace: "batch", Name: "report", Pod: &cluster.PodSpec{}, Parallelism: 1, Completions: 1,
		BackoffLimit: DefaultBackoffLimit, Runtime: dist.Fixed{D: time.Hour},
		Arrivals: Arrivals{Times: []time.Duration{0, 10 * time.Minute, 20 * time.Minute, 30 * time.Minute, 40 * time.Minute}},
		CronJob:  &CronJob{Concurrency: policy, StartingDeadline: deadline, Epoch: monday}, TwinOf: -1}
}

// startAll binds and starts every pending pod on one roomy node.
func startAll(cl *cluster.Cluster) {
	if len(cl.Nodes) == 0 {
		var alloc cluster.Resources
		alloc[cluster.Pods] = 100
		cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	}
	for i := range cl.Pods {
		if cl.Pods[i].Phase == cluster.Pending {
			cl.Bind(cluster.PodID(i), 0)
			cl.StartPod(cluster.PodID(i))
		}
	}
}

func podNames(cl *cluster.Cluster) []string {
	var out []string
	for _, p := range cl.Pods {
		out = append(out, p.Name)
	}
	return out
}

func TestCronJobAllowRunsEverySchedule(t *testing.T) {
	eng, cl, c := setup(t, cronSpec(AllowConcurrent, -1))
	eng.Run(45 * time.Minute)
	// Named <cronjob>-<scheduled minute since 1970>, as the controller names Jobs.
	base := monday.Unix() / 60
	require.Equal(t, []string{"report-" + itoa(base) + "-1", "report-" + itoa(base+10) + "-1", "report-" + itoa(base+20) + "-1",
		"report-" + itoa(base+30) + "-1", "report-" + itoa(base+40) + "-1"}, podNames(cl))
	require.Equal(t, uint64(5), c.Stats().JobsArrived)
}

func TestCronJobForbidSkipsWhileActiveAndStartsTheMissedRunLate(t *testing.T) {
	eng, cl, c := setup(t, cronSpec(ForbidConcurrent, -1))
	eng.Run(time.Second)
	startAll(cl)
	eng.Run(25 * time.Minute) // 10m and 20m are skipped: the first Job runs an hour
	require.Len(t, cl.Pods, 1)
	cl.FinishPod(0, cluster.Succeeded)
	eng.Run(25*time.Minute + time.Second)
	require.Len(t, cl.Pods, 2, "the most recent missed run (20m) starts when the Job ends")
	base := monday.Unix() / 60
	require.Equal(t, "report-"+itoa(base+20)+"-1", cl.Pods[1].Name)
	require.Equal(t, 25*time.Minute, cl.Pods[1].Created)
	startAll(cl)
	eng.Run(time.Hour) // 30m and 40m skipped, 40m still pending
	require.Len(t, cl.Pods, 2)
	st := c.Stats()
	require.Equal(t, uint64(2), st.JobsArrived)
	require.Equal(t, uint64(2), st.CronRunsSkipped, "10m superseded by 20m, 30m by 40m")
	// A failing Job ends too: the missed 40m run starts.
	cl.DeletePod(1, cluster.CauseNodeGone) // lost: replaced within the same Job
	eng.Run(eng.Now() + time.Minute)
	require.Len(t, cl.Pods, 3, "the same Job replaces its pod; the CronJob waits")
	require.Equal(t, uint64(2), c.Stats().JobsArrived)
}

func TestCronJobForbidStartingDeadline(t *testing.T) {
	eng, cl, c := setup(t, cronSpec(ForbidConcurrent, 3*time.Minute))
	eng.Run(time.Second)
	startAll(cl)
	eng.Run(25 * time.Minute)
	cl.FinishPod(0, cluster.Succeeded) // 5 minutes after the missed 20m run: too late
	eng.Run(29 * time.Minute)
	require.Len(t, cl.Pods, 1, "missed its starting deadline")
	eng.Run(31 * time.Minute)
	require.Len(t, cl.Pods, 2, "the next run starts on time")
	require.Equal(t, uint64(2), c.Stats().CronRunsSkipped)
}

func TestCronJobReplaceDeletesTheRunningJob(t *testing.T) {
	eng, cl, c := setup(t, cronSpec(ReplaceConcurrent, -1))
	eng.Run(time.Second)
	startAll(cl)
	eng.Run(10*time.Minute + time.Second)
	require.Len(t, cl.Pods, 2)
	require.Equal(t, cluster.Deleted, cl.Pods[0].Phase, "the running Job is deleted with its pod")
	require.Equal(t, cluster.Pending, cl.Pods[1].Phase)
	eng.Run(45 * time.Minute)
	st := c.Stats()
	require.Equal(t, uint64(5), st.JobsArrived)
	require.Equal(t, uint64(4), st.CronJobsReplaced)
	require.Equal(t, uint64(0), st.JobPodFailures, "a replaced Job's pod is not a failure")
	require.Equal(t, uint64(0), st.PodsReplaced)
	require.InDelta(t, 600, st.LostPodSeconds, 1, "the first Job ran 10 minutes for nothing")
}

func TestCronJobWithoutRunsCreatesNothing(t *testing.T) {
	s := cronSpec(AllowConcurrent, -1)
	s.Arrivals = Arrivals{} // suspended, or no scheduled time in the run
	eng, cl, _ := setup(t, s)
	eng.Run(time.Hour)
	require.Empty(t, cl.Pods)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestCronJobRef(t *testing.T) {
	s := cronSpec(AllowConcurrent, -1)
	require.Equal(t, "CronJob/batch/report", s.Ref(), "named as the manifest names it, apart from a Job of the same name")
	s.CronJob = nil
	require.Equal(t, "Job/batch/report", s.Ref())
}
