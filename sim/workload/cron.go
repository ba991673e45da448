package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
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
	// Bit sets of the allowed values of each field.
	minute, hour, dom, month, dow uint64
	// domStar and dowStar: the field is unrestricted (robfig's star bit:
	// an item that starts with * or ? and has no step above 1).
	domStar, dowStar bool
	// every is the period of @every (then the fields are unused).
	every time.Duration
}

type cronBounds struct {
	name     string
	min, max int
	names    map[string]int
}

var cronFieldBounds = [5]cronBounds{
	{"minute", 0, 59, nil},
	{"hour", 0, 23, nil},
	{"day of month", 1, 31, nil},
	{"month", 1, 12, map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{"day of week", 0, 6, map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

var cronMacros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// ParseCron parses a CronJob schedule. Time zones in the expression (TZ=
// or CRON_TZ=) are refused: Kubernetes refuses them in new CronJobs in
// favour of spec.timeZone.
func ParseCron(text string) (*CronSchedule, error) {
	expr := strings.TrimSpace(text)
	if expr == "" {
		return nil, fmt.Errorf("empty schedule")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, fmt.Errorf("a time zone inside the schedule (TZ= or CRON_TZ=) is not allowed: set spec.timeZone instead")
	}
	if strings.HasPrefix(expr, "@") {
		if rest, ok := strings.CutPrefix(expr, "@every "); ok {
			d, err := time.ParseDuration(strings.TrimSpace(rest))
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("@every needs a positive duration such as 30m, not %q", strings.TrimSpace(rest))
			}
			// robfig/cron rounds down to whole seconds, at least one.
			d = max(d.Truncate(time.Second), time.Second)
			return &CronSchedule{every: d}, nil
		}
		m, ok := cronMacros[strings.ToLower(expr)]
		if !ok {
			return nil, fmt.Errorf("unknown macro %q", expr)
		}
		expr = m
	}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return nil, fmt.Errorf("%d fields where 5 are needed (minute hour day-of-month month day-of-week)", len(parts))
	}
	s := &CronSchedule{}
	dst := [5]*uint64{&s.minute, &s.hour, &s.dom, &s.month, &s.dow}
	var errs []string // every bad field at once
	for i, p := range parts {
		bits, star, err := parseCronField(p, cronFieldBounds[i])
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		*dst[i] = bits
		switch i {
		case 2:
			s.domStar = star
		case 4:
			s.dowStar = star
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return s, nil
}

func parseCronField(text string, b cronBounds) (bits uint64, star bool, err error) {
	for _, item := range strings.Split(text, ",") {
		rangePart, stepPart, hasStep := strings.Cut(item, "/")
		lo, hi, step := b.min, b.max, 1
		itemStar := false
		if rangePart == "*" || rangePart == "?" {
			itemStar = true
		} else {
			a, z, isRange := strings.Cut(rangePart, "-")
			if lo, err = cronValue(a, item, b); err != nil {
				return 0, false, err
			}
			hi = lo
			switch {
			case isRange:
				if hi, err = cronValue(z, item, b); err != nil {
					return 0, false, err
				}
			case hasStep:
				hi = b.max // "a/n" is "a-max/n"
			}
		}
		if hasStep {
			n, err := strconv.Atoi(stepPart)
			if err != nil || n <= 0 {
				return 0, false, fmt.Errorf("%s: step %q in %q is not a positive whole number", b.name, stepPart, item)
			}
			step = n
			if n > 1 {
				itemStar = false
			}
		}
		if hi < lo {
			return 0, false, fmt.Errorf("%s: range %q runs backwards", b.name, rangePart)
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << uint(v)
		}
		star = star || itemStar
	}
	return bits, star, nil
}

func cronValue(s, item string, b cronBounds) (int, error) {
	if v, ok := b.names[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || strings.HasPrefix(s, "+") {
		allowed := fmt.Sprintf("a number from %d to %d", b.min, b.max)
		switch b.name {
		case "month":
			allowed += " or jan-dec"
		case "day of week":
			allowed += " or sun-sat"
		}
		if s == "" {
			return 0, fmt.Errorf("%s: %q is missing a value (want %s)", b.name, item, allowed)
		}
		return 0, fmt.Errorf("%s: %q is not %s", b.name, s, allowed)
	}
	if v < b.min || v > b.max {
		hint := ""
		if b.name == "day of week" && v == 7 {
			hint = " (Sunday is 0 or sun)"
		}
		return 0, fmt.Errorf("%s: %d is outside %d-%d%s", b.name, v, b.min, b.max, hint)
	}
	return v, nil
}

// Matches reports whether the schedule fires at the minute of t, read in
// t's location. Always false for @every.
func (s *CronSchedule) Matches(t time.Time) bool {
	if s.every > 0 {
		return false
	}
	return s.minute&(1<<uint(t.Minute())) != 0 && s.hour&(1<<uint(t.Hour())) != 0 &&
		s.month&(1<<uint(t.Month())) != 0 && s.dayMatches(t)
}

func (s *CronSchedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

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
		if s.hour&(1<<uint(lt.Hour())) == 0 || s.month&(1<<uint(lt.Month())) == 0 || !s.dayMatches(lt) {
			// Nothing fires in the rest of this local hour.
			w = w.Add(time.Duration(59-lt.Minute()) * time.Minute)
			continue
		}
		if s.minute&(1<<uint(lt.Minute())) == 0 {
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
