package apis

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a standard five-field cron expression (minute hour
// day-of-month month day-of-week), evaluated in UTC as Karpenter does for
// budget schedules (KC Budget.IsActive parses "TZ=UTC <schedule>" with
// robfig/cron's standard parser). Macros @yearly, @annually, @monthly,
// @weekly, @daily, @midnight and @hourly are accepted.
type Schedule struct {
	minute, hour, dom, month, dow uint64
	// domStar and dowStar: the field was * (or ?). When both day fields
	// are restricted, a day matches if either does (cron semantics).
	domStar, dowStar bool
	text             string
}

// String is the expression as written.
func (s *Schedule) String() string { return s.text }

type cronField struct {
	name     string
	min, max int
	names    map[string]int
}

var (
	monthNames = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
	dayNames   = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}
	cronFields = [5]cronField{
		{"minute", 0, 59, nil},
		{"hour", 0, 23, nil},
		{"day of month", 1, 31, nil},
		{"month", 1, 12, monthNames},
		{"day of week", 0, 6, dayNames},
	}
	cronMacros = map[string]string{
		"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
		"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
	}
)

// ParseSchedule parses a cron expression. Time zones (TZ= or CRON_TZ=)
// are refused, as Karpenter refuses them.
func ParseSchedule(text string) (*Schedule, error) {
	s := &Schedule{text: text}
	expr := strings.TrimSpace(text)
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, fmt.Errorf("time zones are not supported in budget schedules (they are evaluated in UTC)")
	}
	if strings.HasPrefix(expr, "@") {
		m, ok := cronMacros[strings.ToLower(expr)]
		if !ok {
			return nil, fmt.Errorf("unknown macro %q (want @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)", expr)
		}
		expr = m
	}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return nil, fmt.Errorf("want 5 fields (minute hour day-of-month month day-of-week), got %d", len(parts))
	}
	dst := [5]*uint64{&s.minute, &s.hour, &s.dom, &s.month, &s.dow}
	for i, p := range parts {
		bits, star, err := parseCronField(p, cronFields[i])
		if err != nil {
			return nil, err
		}
		*dst[i] = bits
		switch i {
		case 2:
			s.domStar = star
		case 4:
			s.dowStar = star
		}
	}
	// Day-of-week 7 is Sunday too.
	if s.dow&(1<<7) != 0 {
		s.dow |= 1
	}
	return s, nil
}

func parseCronField(text string, f cronField) (bits uint64, star bool, err error) {
	for _, item := range strings.Split(text, ",") {
		lo, hi, step := f.min, f.max, 1
		rangePart, stepPart, hasStep := strings.Cut(item, "/")
		if hasStep {
			step, err = strconv.Atoi(stepPart)
			if err != nil || step <= 0 {
				return 0, false, fmt.Errorf("%s: bad step %q", f.name, stepPart)
			}
		}
		switch {
		case rangePart == "*" || rangePart == "?":
			star = !hasStep && len(text) == len(item)
		default:
			a, b, isRange := strings.Cut(rangePart, "-")
			if lo, err = cronValue(a, f); err != nil {
				return 0, false, err
			}
			hi = lo
			if isRange {
				if hi, err = cronValue(b, f); err != nil {
					return 0, false, err
				}
			} else if hasStep {
				hi = f.max
			}
			if hi < lo {
				return 0, false, fmt.Errorf("%s: range %q runs backwards", f.name, rangePart)
			}
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, star, nil
}

func cronValue(s string, f cronField) (int, error) {
	if v, ok := f.names[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	maxV := f.max
	if f.name == "day of week" {
		maxV = 7
	}
	if err != nil || v < f.min || v > maxV {
		return 0, fmt.Errorf("%s: %q is not a value from %d to %d", f.name, s, f.min, maxV)
	}
	return v, nil
}

func (s *Schedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// Next returns the first time strictly after t (UTC, whole minutes) that
// the schedule hits; the zero time if none within five years.
func (s *Schedule) Next(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	limit := t.Year() + 5
wrap:
	if t.Year() > limit {
		return time.Time{}
	}
	for s.month&(1<<uint(t.Month())) == 0 {
		t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		if t.Month() == time.January {
			goto wrap
		}
	}
	for !s.dayMatches(t) {
		t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		if t.Day() == 1 {
			goto wrap
		}
	}
	for s.hour&(1<<uint(t.Hour())) == 0 {
		t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, time.UTC)
		if t.Hour() == 0 {
			goto wrap
		}
	}
	for s.minute&(1<<uint(t.Minute())) == 0 {
		t = t.Add(time.Minute)
		if t.Minute() == 0 {
			goto wrap
		}
	}
	return t
}
