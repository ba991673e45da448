package workload

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// The CronJob controller (k8s pkg/controller/cronjob, in short): the
// scheduled times are the workload's arrivals; each run is a Job of the
// template, named after its scheduled minute.

// activeJobs counts the Jobs of workload w still running.
func (c *Controllers) activeJobs(w int32) int {
	n := 0
	for _, in := range c.ctrls[w].instances {
		if !in.done {
			n++
		}
	}
	return n
}

// cronAdmit applies the concurrency policy to a run scheduled now: false
// when the run does not start (Forbid with a Job active: it is remembered
// as missed, to start when that Job ends). Replace deletes the active Jobs
// first.
func (c *Controllers) cronAdmit(w int32) bool {
	ctl := c.ctrls[w]
	switch ctl.spec.CronJob.Concurrency {
	case ForbidConcurrent:
		if c.activeJobs(w) > 0 {
			if ctl.hasMissed {
				c.stats.CronRunsSkipped++ // the older missed run is superseded
			}
			ctl.missed, ctl.hasMissed = c.eng.Now(), true
			return false
		}
	case ReplaceConcurrent:
		for _, in := range ctl.instances {
			if in.done {
				continue
			}
			in.done = true
			c.stats.CronJobsReplaced++
			for _, id := range append([]cluster.PodID(nil), in.live...) {
				// Deleted with its Job: not a failure, not replaced; its
				// run time counts as lost (jobPodEnded).
				c.cl.DeletePod(id, cluster.CauseScaleDown)
			}
		}
	}
	return true
}

// cronJobEnded is called when a Job of workload w completes or fails: a
// Forbid CronJob with a missed run starts it, in an event of its own.
func (c *Controllers) cronJobEnded(w int32) {
	ctl := c.ctrls[w]
	if ctl.spec.CronJob != nil && ctl.hasMissed {
		c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evCronLate, Obj: w})
	}
}

// cronLate starts the missed run of a Forbid CronJob once no Job is
// active, unless it is later than the starting deadline.
func (c *Controllers) cronLate(w int32) {
	ctl := c.ctrls[w]
	s := &ctl.spec
	if !ctl.hasMissed || c.activeJobs(w) > 0 {
		return
	}
	ctl.hasMissed = false
	if d := s.CronJob.StartingDeadline; d >= 0 && c.eng.Now()-ctl.missed > d {
		c.stats.CronRunsSkipped++
		return
	}
	in := &instance{name: s.CronJob.JobName(s.Name, ctl.missed), desired: s.Completions}
	c.stats.JobsArrived++
	ctl.instances = append(ctl.instances, in)
	c.reconcile(w)
}
