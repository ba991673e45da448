package workload

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/internal/cron"
)

// CronSyntax describes the schedules ParseCron accepts, for error hints.
const CronSyntax = `five fields "minute hour day-of-month month day-of-week" ` +
	`(0-59 0-23 1-31 1-12 or jan-dec 0-6 or sun-sat; each *, a value, a range a-b, a step */n or a-b/n, or a list of these), ` +
	`or @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every 30m`

// CronSchedule is a CronJob's spec.schedule as the CronJob controller reads
// it (robfig/cron v3's standard parser, which Kubernetes uses): five fields,
// names of months and days (any case), *, ?, ranges, steps (a-b/n, */n, and
// a/n meaning a-max/n), lists, the @ macros, and @every DURATION. When
// both day-of-month and day-of-week are restricted (neither starts with *
// or ?), a day matches if either does; otherwise both must. Day of week 7
// is refused, as upstream refuses it (Sunday is 0).
type CronSchedule struct {
	cron cron.Schedule
	// every is the period of @every (then the fields are unused).
	every time.Duration
}

// cronJobSyntax: CronJobs take @every; they refuse day of week 7 (as
// robfig/cron does) and a + before a number.
var cronJobSyntax = cron.Syntax{Every: true, NoSign: true}

// ParseCron parses a CronJob schedule. Time zones in the expression (TZ=
// or CRON_TZ=) are refused: Kubernetes refuses them in new CronJobs in
// favour of spec.timeZone. The parser is sim/internal/cron's.
func ParseCron(text string) (*CronSchedule, error) {
	c, err := cron.Parse(text, cronJobSyntax)
	if err != nil {
		return nil, cronError(err.(*cron.Error))
	}
	return &CronSchedule{cron: *c, every: c.Every()}, nil
}

// cronError words a parse error: every wrong field at once.
func cronError(e *cron.Error) error {
	switch e.Kind {
	case cron.ErrEmpty:
		return fmt.Errorf("empty schedule")
	case cron.ErrTimeZone:
		return fmt.Errorf("a time zone inside the schedule (TZ= or CRON_TZ=) is not allowed: set spec.timeZone instead")
	case cron.ErrEvery:
		return fmt.Errorf("@every needs a positive duration such as 30m, not %q", e.Text)
	case cron.ErrDescriptor:
		return fmt.Errorf("unknown macro %q", e.Text)
	case cron.ErrFieldCount:
		return fmt.Errorf("%d fields where 5 are needed (minute hour day-of-month month day-of-week)", e.Count)
	}
	errs := make([]string, 0, len(e.Fields))
	for _, f := range e.Fields {
		errs = append(errs, cronFieldError(f))
	}
	return errors.New(strings.Join(errs, "; "))
}

func cronFieldError(f cron.FieldError) string {
	b := f.Field
	switch f.Value {
	case cron.ValueMissing, cron.ValueNotNum:
		allowed := fmt.Sprintf("a number from %d to %d", b.Min, b.Max)
		switch b.Name {
		case "month":
			allowed += " or jan-dec"
		case "day of week":
			allowed += " or sun-sat"
		}
		if f.Value == cron.ValueMissing {
			return fmt.Sprintf("%s: %q is missing a value (want %s)", b.Name, f.Item, allowed)
		}
		return fmt.Sprintf("%s: %q is not %s", b.Name, f.Text, allowed)
	case cron.ValueOutside:
		hint := ""
		if b.Name == "day of week" && f.Number == 7 {
			hint = " (Sunday is 0 or sun)"
		}
		return fmt.Sprintf("%s: %d is outside %d-%d%s", b.Name, f.Number, b.Min, b.Max, hint)
	}
	if f.BadStep {
		return fmt.Sprintf("%s: step %q in %q is not a positive whole number", b.Name, f.Step, f.Item)
	}
	return fmt.Sprintf("%s: range %q runs backwards", b.Name, f.Range)
}

// Matches reports whether the schedule fires at the minute of t, read in
// t's location. Always false for @every.
func (s *CronSchedule) Matches(t time.Time) bool { return s.cron.Matches(t) }

// Times lists the simulated times in [0, until] at which the schedule
// fires, simulated time 0 being the wall time epoch and the schedule read
// on the wall clock of loc: every instant whose local minute matches, so a
// time the clocks skip at a daylight-saving change does not fire that day
// and a time they repeat fires twice, as with robfig/cron. @every d fires
// at d, 2d, ... after the start (the CronJob exists from 0). ok is false
// when more than limit times would be listed.
func (s *CronSchedule) Times(epoch time.Time, loc *time.Location, until time.Duration, limit int) (times []time.Duration, ok bool) {
	if s.every > 0 {
		if int64(until/s.every) > int64(limit) {
			return nil, false
		}
		for t := s.every; t <= until; t += s.every {
			times = append(times, t)
		}
		return times, true
	}
	w := epoch.Truncate(time.Minute)
	if w.Before(epoch) {
		w = w.Add(time.Minute)
	}
	for ; w.Sub(epoch) <= until; w = w.Add(time.Minute) {
		lt := w.In(loc)
		if !s.cron.HourMatches(lt) {
			// Nothing fires in the rest of this local hour.
			w = w.Add(time.Duration(59-lt.Minute()) * time.Minute)
			continue
		}
		if !s.cron.Matches(lt) {
			continue
		}
		if len(times) >= limit {
			return nil, false
		}
		times = append(times, w.Sub(epoch))
	}
	return times, true
}

// ConcurrencyPolicy is a CronJob's spec.concurrencyPolicy.
type ConcurrencyPolicy uint8

// Concurrency policies.
const (
	// AllowConcurrent starts every run, whatever is still running (the
	// default).
	AllowConcurrent ConcurrencyPolicy = iota
	// ForbidConcurrent skips a run while an earlier Job is active; when
	// that Job ends, the most recent skipped run starts late unless its
	// starting deadline has passed (the CronJob controller's missed
	// schedule).
	ForbidConcurrent
	// ReplaceConcurrent deletes the active Jobs (and their pods) and
	// starts the new run.
	ReplaceConcurrent
)

var concurrencyNames = [...]string{"Allow", "Forbid", "Replace"}

func (p ConcurrencyPolicy) String() string { return concurrencyNames[p] }

// CronJob is what a CronJob adds to the Job spec of its jobTemplate; the
// workload's Arrivals.Times are its scheduled times (Kind Job).
type CronJob struct {
	Concurrency ConcurrencyPolicy
	// StartingDeadline bounds how late a run skipped under Forbid may
	// still start (spec.startingDeadlineSeconds); negative: no deadline.
	StartingDeadline time.Duration
	// Epoch is the wall time of simulated time 0: Jobs are named
	// <cronjob>-<scheduled time in minutes since 1970>, as the CronJob
	// controller names them.
	Epoch time.Time
}

// JobName is the name of the Job of a run scheduled at simulated time at.
func (cj *CronJob) JobName(cronJob string, at time.Duration) string {
	return fmt.Sprintf("%s-%d", cronJob, cj.Epoch.Add(at).Unix()/60)
}
