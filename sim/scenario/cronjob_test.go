package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/workload"
)

// nightlyCronJob is a nightly batch in its team's time zone, after the
// time zone example of kubernetes/website
// content/en/docs/concepts/workloads/controllers/cron-jobs.md, with a
// Forbid policy and a starting deadline as production CronJobs set them.
const nightlyCronJob = `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly-etl, namespace: batch}
spec:
  schedule: "30 2 * * mon-fri"
  timeZone: "Europe/Berlin"
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: 600
  successfulJobsHistoryLimit: 3
  failedJobsHistoryLimit: 1
  jobTemplate:
    spec:
      parallelism: 4
      completions: 8
      backoffLimit: 2
      template:
        spec:
          containers:
          - name: etl
            image: example.com/etl:1.4
            resources: {requests: {cpu: "2", memory: 4Gi}}
          restartPolicy: Never
`

func TestCronJobEveryMinute(t *testing.T) {
	sc, err := loadDoc(t, minimal+fixtures.HelloCronJob)
	require.NoError(t, err)
	require.Len(t, sc.Workloads, 1)
	w := sc.Workloads[0]
	require.Equal(t, workload.Job, w.Kind)
	require.Equal(t, "hello", w.Name)
	require.Len(t, w.Arrivals.Times, 61, "every minute of the hour, both ends")
	require.Equal(t, time.Minute, w.Arrivals.Times[1])
	require.Equal(t, int32(1), w.Parallelism)
	require.Equal(t, int32(1), w.Completions)
	require.Equal(t, int32(workload.DefaultBackoffLimit), w.BackoffLimit)
	require.NotNil(t, w.CronJob)
	require.Equal(t, workload.AllowConcurrent, w.CronJob.Concurrency)
	require.Equal(t, time.Duration(-1), w.CronJob.StartingDeadline)
	require.Equal(t, dist.Fixed{D: DefaultCronJobRuntime}, w.Runtime, "the default runtime, with a warning")
	require.Contains(t, warnings(sc), "s.yaml:13: spec.jobTemplate: no runtime in the scenario: each pod of its Jobs runs 10m0s; give one with spec.workloads: - {ref: CronJob/default/hello, runtime: {fixed: 30m}}")
	require.Equal(t, int64(61*2), sc.EstimatedPods)
}

func TestCronJobNightlyInItsTimeZone(t *testing.T) {
	doc := strings.Replace(minimal, "duration: 1h", "duration: 7d\n  workloads:\n  - {ref: CronJob/batch/nightly-etl, runtime: {lognormal: {median: 40m, p90: 2h}}}", 1)
	sc, err := loadDoc(t, doc+"---\n"+nightlyCronJob)
	require.NoError(t, err)
	w := sc.Workloads[0]
	// The run starts Monday 2026-01-05 00:00 UTC; 02:30 in Berlin is 01:30
	// UTC in winter; Monday to Friday.
	var want []time.Duration
	for d := range 5 {
		want = append(want, time.Duration(d)*24*time.Hour+90*time.Minute)
	}
	require.Equal(t, want, w.Arrivals.Times)
	require.Equal(t, workload.ForbidConcurrent, w.CronJob.Concurrency)
	require.Equal(t, 10*time.Minute, w.CronJob.StartingDeadline)
	require.Equal(t, int32(4), w.Parallelism)
	require.Equal(t, int32(8), w.Completions)
	require.Equal(t, int32(2), w.BackoffLimit)
	_, lognormal := w.Runtime.(dist.LogNormal)
	require.True(t, lognormal)
	require.NotContains(t, warnings(sc), "no runtime")
}

func TestCronJobEpochFromStartTime(t *testing.T) {
	doc := strings.Replace(minimal, "duration: 1h", "duration: 1d\n  karpenter: {startTime: \"2026-06-01T12:00:00Z\"}", 1)
	sc, err := loadDoc(t, doc+"---\n"+strings.Replace(nightlyCronJob, `"30 2 * * mon-fri"`, `"0 0 * * *"`, 1))
	require.NoError(t, err)
	// Midnight in Berlin (summer, UTC+2) is 22:00 UTC: 10 hours after the start.
	require.Equal(t, []time.Duration{10 * time.Hour}, sc.Workloads[0].Arrivals.Times)
}

func TestCronJobSuspendedAndOutOfRun(t *testing.T) {
	sc, err := loadDoc(t, minimal+strings.Replace(fixtures.HelloCronJob, "spec:\n  schedule", "spec:\n  suspend: true\n  schedule", 1))
	require.NoError(t, err)
	require.Empty(t, sc.Workloads[0].Arrivals.Times)
	require.Contains(t, warnings(sc), "s.yaml:12: spec.suspend: the CronJob is suspended: it starts no Jobs")

	sc, err = loadDoc(t, minimal+strings.Replace(fixtures.HelloCronJob, `"* * * * *"`, `"@monthly"`, 1))
	require.NoError(t, err)
	require.Empty(t, sc.Workloads[0].Arrivals.Times)
	require.Contains(t, warnings(sc), "spec.schedule: no run falls within the scenario (1h0m0s from 2026-01-05T00:00:00Z, UTC): the CronJob starts no Jobs")
}

func TestCronJobBadInput(t *testing.T) {
	cron := func(repl ...string) string {
		return minimal + "---\n" + strings.NewReplacer(repl...).Replace(nightlyCronJob)
	}
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"removed version", minimal + strings.Replace(fixtures.HelloCronJob, "batch/v1", "batch/v1beta1", 1),
			[]string{"s.yaml:7: apiVersion: batch/v1beta1 is not a served version of CronJob; batch/v1beta1 was removed in Kubernetes 1.25; use apiVersion: batch/v1"}},
		{"every problem at once", cron(`"30 2 * * mon-fri"`, `"30 2 * * 7"`, `"Europe/Berlin"`, `"Europe/Berln"`, "Forbid", "forbid", "600", "-5", "Never", "Always"),
			[]string{
				`s.yaml:11: spec.schedule: "30 2 * * 7": day of week: 7 is outside 0-6 (Sunday is 0 or sun); write five fields`,
				`s.yaml:12: spec.timeZone: unknown time zone "Europe/Berln"; give an IANA time zone name`,
				`s.yaml:13: spec.concurrencyPolicy: unknown concurrency policy "forbid"; did you mean Forbid? use Allow, Forbid or Replace`,
				`s.yaml:14: spec.startingDeadlineSeconds: -5 is negative; give 0 or more seconds, or leave it out for no deadline`,
				`s.yaml:28: spec.jobTemplate.spec.template.spec.restartPolicy: "Always" is not allowed in a Job; Jobs need restartPolicy: Never or OnFailure`,
			}},
		{"negative activeDeadlineSeconds", cron("backoffLimit: 2", "backoffLimit: 2\n      activeDeadlineSeconds: -1"),
			[]string{"spec.jobTemplate.spec.activeDeadlineSeconds: -1 is negative; give 0 or more seconds, or leave it out for no deadline"}},
		{"TZ in schedule", cron(`"30 2 * * mon-fri"`, `"TZ=Europe/Berlin 30 2 * * *"`),
			[]string{`s.yaml:11: spec.schedule: "TZ=Europe/Berlin 30 2 * * *": a time zone inside the schedule (TZ= or CRON_TZ=) is not allowed: set spec.timeZone instead`}},
		{"missing schedule", cron(`  schedule: "30 2 * * mon-fri"`+"\n", ""),
			[]string{`spec.schedule: missing schedule; give a cron schedule such as "0 2 * * *"`}},
		{"Local", cron(`"Europe/Berlin"`, "local"),
			[]string{`s.yaml:12: spec.timeZone: timeZone must be an explicit time zone, not Local`}},
		{"arrivals", strings.Replace(minimal, "duration: 1h", "duration: 1h\n  workloads:\n  - {ref: CronJob/default/hello, arrivals: {every: 10m}, runtime: {fixed: 1m}}", 1) + fixtures.HelloCronJob,
			[]string{"s.yaml:7: spec.workloads[0].arrivals: CronJob/default/hello runs on its schedule; remove arrivals: the runs come from the CronJob's spec.schedule"}},
		{"too many runs", strings.Replace(minimal, "duration: 1h", "duration: 30d", 1) + strings.Replace(fixtures.HelloCronJob, `"* * * * *"`, `"@every 1s"`, 1),
			[]string{"spec.schedule: more than 1000000 runs in 720h0m0s; use a sparser schedule or a shorter spec.duration"}},
	} {
		_, err := loadDoc(t, tc.doc)
		require.Error(t, err, tc.name)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w, tc.name)
		}
	}
}

func warnings(sc *Scenario) string {
	var b strings.Builder
	for _, w := range sc.Warnings {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}
