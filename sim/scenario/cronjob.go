package scenario

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // CronJob time zones on machines without zoneinfo

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/workload"
)

// DefaultCronJobRuntime is how long each pod of a CronJob's Jobs runs when
// spec.workloads gives no runtime for it: the run time sim lint -f gives
// Jobs.
const DefaultCronJobRuntime = 10 * time.Minute

// cronObject is what a CronJob adds to the Job of its jobTemplate.
type cronObject struct {
	schedule *workload.CronSchedule
	loc      *time.Location
	suspend  bool
	policy   workload.ConcurrencyPolicy
	deadline time.Duration // negative: none
}

// decodeCronJob reads a batch/v1 CronJob: its schedule, time zone,
// concurrency policy, suspend and starting deadline, then its jobTemplate as
// a Job. Every problem of the object is reported.
func (l *loader) decodeCronJob(d *manifest.Document, o podObject, cj *batchv1.CronJob) (podObject, bool) {
	c := &cronObject{loc: time.UTC, deadline: -1, policy: workload.AllowConcurrent}
	ok := true
	switch sched, err := workload.ParseCron(cj.Spec.Schedule); {
	case strings.TrimSpace(cj.Spec.Schedule) == "":
		l.fail(d.Errorf("spec.schedule", "give a cron schedule such as \"0 2 * * *\" (02:00 every day): "+workload.CronSyntax, "missing schedule"))
		ok = false
	case err != nil:
		l.fail(d.Errorf("spec.schedule", "write "+workload.CronSyntax, "%q: %v", cj.Spec.Schedule, err))
		ok = false
	default:
		c.schedule = sched
	}
	if tz := cj.Spec.TimeZone; tz != nil {
		const hint = "give an IANA time zone name such as Europe/London, America/New_York or Etc/UTC"
		switch loc, err := time.LoadLocation(*tz); {
		case *tz == "":
			l.fail(d.Errorf("spec.timeZone", hint+", or leave timeZone out for UTC", "an empty time zone"))
			ok = false
		case strings.EqualFold(*tz, "Local"):
			l.fail(d.Errorf("spec.timeZone", hint, "timeZone must be an explicit time zone, not Local"))
			ok = false
		case err != nil:
			l.fail(d.Errorf("spec.timeZone", hint, "unknown time zone %q", *tz))
			ok = false
		default:
			c.loc = loc
		}
	}
	switch p := cj.Spec.ConcurrencyPolicy; p {
	case "", batchv1.AllowConcurrent:
	case batchv1.ForbidConcurrent:
		c.policy = workload.ForbidConcurrent
	case batchv1.ReplaceConcurrent:
		c.policy = workload.ReplaceConcurrent
	default:
		hint := "use Allow, Forbid or Replace"
		if s := closest(string(p), []string{"Allow", "Forbid", "Replace"}); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		l.fail(d.Errorf("spec.concurrencyPolicy", hint, "unknown concurrency policy %q", p))
		ok = false
	}
	if s := cj.Spec.StartingDeadlineSeconds; s != nil {
		if *s < 0 {
			l.fail(d.Errorf("spec.startingDeadlineSeconds", "give 0 or more seconds, or leave it out for no deadline", "%d is negative", *s))
			ok = false
		} else {
			c.deadline = time.Duration(*s) * time.Second
		}
	}
	c.suspend = cj.Spec.Suspend != nil && *cj.Spec.Suspend
	o.cron = c
	o.template = &corev1.PodTemplateSpec{ObjectMeta: cj.Spec.JobTemplate.Spec.Template.ObjectMeta, Spec: cj.Spec.JobTemplate.Spec.Template.Spec}
	o, jobOK := l.decodeJobSpec(d, o, &cj.Spec.JobTemplate.Spec, "spec.jobTemplate.spec")
	return o, ok && jobOK
}

// decodeJobSpec reads what a Job and a CronJob's jobTemplate share:
// parallelism, completions, backoffLimit, activeDeadlineSeconds,
// podFailurePolicy and the pod
// template; base is the field path of the JobSpec.
func (l *loader) decodeJobSpec(d *manifest.Document, o podObject, spec *batchv1.JobSpec, base string) (podObject, bool) {
	o.kind, o.template, o.specPath = workload.Job, &spec.Template, base+".template.spec"
	o.parallelism = 1
	if spec.Parallelism != nil {
		o.parallelism = *spec.Parallelism
	}
	o.completions = o.parallelism
	if spec.Completions != nil {
		o.completions = *spec.Completions
	}
	if o.parallelism < 0 || o.completions < 0 {
		l.fail(d.Errorf(base, "", "parallelism and completions must not be negative"))
		return o, false
	}
	if o.parallelism == 0 {
		l.warnc(d, CodeSuspendedJob, base+".parallelism", "parallelism 0: the Job is suspended and creates no pods")
	}
	o.backoffLimit = workload.DefaultBackoffLimit
	if spec.BackoffLimit != nil {
		o.backoffLimit = *spec.BackoffLimit
	}
	if a := spec.ActiveDeadlineSeconds; a != nil {
		// Nonnegative, as the API server validates it
		// (pkg/apis/batch/validation ValidateJobSpec); 0 fails the Job
		// as it starts.
		if *a < 0 {
			l.fail(d.Errorf(base+".activeDeadlineSeconds", "give 0 or more seconds, or leave it out for no deadline", "%d is negative", *a))
			return o, false
		}
		if *a == 0 {
			l.warn(d, base+".activeDeadlineSeconds", "activeDeadlineSeconds 0: the Job fails as it starts")
		}
		o.activeDeadline = max(time.Duration(*a)*time.Second, time.Nanosecond)
	}
	if pfp := spec.PodFailurePolicy; pfp != nil {
		for i, r := range pfp.Rules {
			for _, c := range r.OnPodConditions {
				if c.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore {
					o.ignoreDisruptions = true
				}
			}
			if r.Action == batchv1.PodFailurePolicyActionFailJob && len(r.OnPodConditions) > 0 {
				l.warn(d, fmt.Sprintf("%s.podFailurePolicy.rules[%d]", base, i), "action FailJob on pod conditions is not modelled: lost pods count towards backoffLimit")
			}
		}
	}
	if r := spec.Template.Spec.RestartPolicy; r != corev1.RestartPolicyNever && r != corev1.RestartPolicyOnFailure {
		l.fail(d.Errorf(base+".template.spec.restartPolicy", "Jobs need restartPolicy: Never or OnFailure", "%q is not allowed in a Job", r))
		return o, false
	}
	return o, true
}

// cronTiming fills the timing of a CronJob: its runs from the schedule over
// the run, read on the wall clock of the scenario's epoch
// (spec.karpenter.startTime, by default Monday 2026-01-05 00:00 UTC) in the
// CronJob's time zone; each pod's runtime from spec.workloads, else
// DefaultCronJobRuntime. It returns the estimated pods.
func (l *loader) cronTiming(o podObject, te timingEntry, ws *workload.Spec, base string, plans bool) int64 {
	d, c := l.scenarioDoc, o.cron
	ref := l.refOf(o.doc)
	if t := te.t; t != nil {
		if t.Arrivals != nil {
			l.fail(d.Errorf(base+".arrivals", "remove arrivals: the runs come from the CronJob's spec.schedule", "%s runs on its schedule", ref))
		}
		if plans {
			l.fail(d.Errorf(base, "a Job's pod count comes from spec.parallelism and spec.completions", "replicas, daily and hpa do not apply to a CronJob"))
		}
		if t.Split != nil {
			l.fail(d.Errorf(base+".split", "split a Job or a Deployment instead", "a CronJob cannot be split"))
		}
	}
	if ws.Runtime == nil {
		ws.Runtime = dist.Fixed{D: DefaultCronJobRuntime}
		l.warn(o.doc, "spec.jobTemplate", "no runtime in the scenario: each pod of its Jobs runs %s; give one with spec.workloads: - {ref: %s, runtime: {fixed: 30m}}",
			DefaultCronJobRuntime, ref)
	}
	epoch := l.out.Epoch
	ws.CronJob = &workload.CronJob{Concurrency: c.policy, StartingDeadline: c.deadline, Epoch: epoch}
	if c.schedule == nil {
		return 0
	}
	if c.suspend {
		l.warn(o.doc, "spec.suspend", "the CronJob is suspended: it starts no Jobs")
		return 0
	}
	times, ok := c.schedule.Times(epoch, c.loc, l.out.Duration, maxArrivals)
	if !ok {
		l.fail(o.doc.Errorf("spec.schedule", "use a sparser schedule or a shorter spec.duration", "more than %d runs in %s", maxArrivals, l.out.Duration))
		return 0
	}
	if len(times) == 0 {
		l.warn(o.doc, "spec.schedule", "no run falls within the scenario (%s from %s, %s): the CronJob starts no Jobs",
			l.out.Duration, epoch.In(c.loc).Format(time.RFC3339), c.loc)
	}
	ws.Arrivals = workload.Arrivals{Times: times}
	return int64(len(times)) * int64(o.completions) * 2
}
