// Package cron parses the five-field cron expressions of Kubernetes and
// Karpenter: Karpenter's disruption budget schedules and CronJob schedules,
// both read upstream by robfig/cron v3's standard parser. One parser serves
// both; a Syntax says what differs between them, and the callers word the
// errors, from the structured Error this package returns.
//
// Accepted: five fields (minute hour day-of-month month day-of-week), each
// a list of items separated by commas; an item is *, ?, a value, a range
// a-b, or any of these followed by /step (a/n meaning a-max/n); months and
// days of the week by number or by name (jan-dec, sun-sat, any case); the
// descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight and
// @hourly. Time zones in the expression (TZ= or CRON_TZ=) are refused.
//
// Day matching is robfig's: a field is unrestricted (its star bit) when one
// of its items starts with * or ? and has no step above 1; when both day
// fields are restricted a day matches if either does, otherwise both must.
package cron

import (
	"strconv"
	"strings"
	"time"
)

// Syntax is what a caller accepts beyond the common syntax above.
type Syntax struct {
	// Every accepts @every DURATION (robfig's descriptor; the CronJob
	// controller accepts it, budgets are not written with it).
	Every bool
	// SundaySeven accepts 7 in day of week as Sunday, as Vixie cron does
	// (robfig/cron refuses it: Sunday is 0). Budgets accept it.
	SundaySeven bool
	// NoSign refuses a leading + on a number, which strconv.Atoi (and so
	// robfig/cron) would read; CronJobs refuse it.
	NoSign bool
}

// Field is one of the five fields, with its bounds.
type Field struct {
	Name     string // "minute", "hour", "day of month", "month", "day of week"
	Min, Max int    // Max is 7 for day of week under SundaySeven
	names    map[string]int
}

// Fields are the five fields in order, with the common bounds.
var Fields = [5]Field{
	{"minute", 0, 59, nil},
	{"hour", 0, 23, nil},
	{"day of month", 1, 31, nil},
	{"month", 1, 12, map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{"day of week", 0, 6, map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

// Descriptors maps each @ descriptor (but @every) to its five fields.
var Descriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Kind is what is wrong with an expression.
type Kind uint8

// Kinds of Error. The first five concern the whole expression; the field
// kinds are in Error.Fields.
const (
	ErrEmpty      Kind = iota + 1 // nothing but spaces
	ErrTimeZone                   // starts with TZ= or CRON_TZ=
	ErrDescriptor                 // an @ word that is no descriptor (Text)
	ErrEvery                      // @every with no positive duration (Text: what follows)
	ErrFieldCount                 // not five fields (Count)
	ErrFields                     // some fields are wrong (Fields)
)

// Value problems of an item.
const (
	ValueOK      Kind = iota
	ValueMissing      // an empty value, as in "-5" or "1,,2"
	ValueNotNum       // neither a number nor a name
	ValueOutside      // a number outside the field's bounds
)

// FieldError is the first wrong item of one field. An item can be wrong in
// several ways at once; all are recorded, so each caller can say the one
// it checks first.
type FieldError struct {
	Field Field
	Item  string // the list item, as in "*/0"
	// Value is the first wrong value of the item (its start, then its
	// end), Text as written and Number as read when ValueOutside.
	Value  Kind
	Text   string
	Number int
	// BadStep: Step is not a positive whole number.
	BadStep bool
	Step    string
	// Backwards: the range Range (the item without its step) ends before
	// it starts; only when its values are right.
	Backwards bool
	Range     string
}

// Error says why an expression does not parse.
type Error struct {
	Kind   Kind
	Text   string
	Count  int          // ErrFieldCount: how many fields there are
	Fields []FieldError // ErrFields: one per wrong field, in order
}

// Error is a plain wording; callers word their own from the fields.
func (e *Error) Error() string {
	switch e.Kind {
	case ErrEmpty:
		return "empty schedule"
	case ErrTimeZone:
		return "a time zone in the schedule"
	case ErrDescriptor:
		return "unknown descriptor " + strconv.Quote(e.Text)
	case ErrEvery:
		return "@every needs a positive duration, not " + strconv.Quote(e.Text)
	case ErrFieldCount:
		return strconv.Itoa(e.Count) + " fields where 5 are needed"
	}
	var parts []string
	for _, f := range e.Fields {
		parts = append(parts, f.Field.Name+": bad item "+strconv.Quote(f.Item))
	}
	return strings.Join(parts, "; ")
}

// Schedule is a parsed expression: bit sets of the allowed values of each
// field, or a period (@every).
type Schedule struct {
	minute, hour, dom, month, dow uint64
	domStar, dowStar              bool
	every                         time.Duration
}

// Every is the period of @every, or 0 (then the fields apply).
func (s *Schedule) Every() time.Duration { return s.every }

// Parse parses an expression (surrounding spaces ignored) in syntax syn.
// The error, when there is one, is an *Error.
func Parse(text string, syn Syntax) (*Schedule, error) {
	expr := strings.TrimSpace(text)
	if expr == "" {
		return nil, &Error{Kind: ErrEmpty}
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, &Error{Kind: ErrTimeZone}
	}
	if strings.HasPrefix(expr, "@") {
		if rest, ok := strings.CutPrefix(expr, "@every "); ok && syn.Every {
			rest = strings.TrimSpace(rest)
			d, err := time.ParseDuration(rest)
			if err != nil || d <= 0 {
				return nil, &Error{Kind: ErrEvery, Text: rest}
			}
			// robfig/cron rounds down to whole seconds, at least one.
			return &Schedule{every: max(d.Truncate(time.Second), time.Second)}, nil
		}
		m, ok := Descriptors[strings.ToLower(expr)]
		if !ok {
			return nil, &Error{Kind: ErrDescriptor, Text: expr}
		}
		expr = m
	}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return nil, &Error{Kind: ErrFieldCount, Count: len(parts)}
	}
	s := &Schedule{}
	dst := [5]*uint64{&s.minute, &s.hour, &s.dom, &s.month, &s.dow}
	var bad []FieldError
	for i, p := range parts {
		f := Fields[i]
		if i == 4 && syn.SundaySeven {
			f.Max = 7
		}
		bits, star, fe := parseField(p, f, syn)
		if fe != nil {
			bad = append(bad, *fe)
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
	if len(bad) > 0 {
		return nil, &Error{Kind: ErrFields, Fields: bad}
	}
	if s.dow&(1<<7) != 0 { // SundaySeven
		s.dow = s.dow&^(1<<7) | 1
	}
	return s, nil
}

func parseField(text string, f Field, syn Syntax) (bits uint64, star bool, _ *FieldError) {
	for _, item := range strings.Split(text, ",") {
		rangePart, stepPart, hasStep := strings.Cut(item, "/")
		fe := FieldError{Field: f, Item: item}
		lo, hi, step := f.Min, f.Max, 1
		itemStar := false
		if rangePart == "*" || rangePart == "?" {
			itemStar = true
		} else {
			a, z, isRange := strings.Cut(rangePart, "-")
			lo = value(a, f, syn, &fe)
			hi = lo
			switch {
			case isRange:
				if fe.Value == ValueOK {
					hi = value(z, f, syn, &fe)
				}
			case hasStep:
				hi = f.Max // "a/n" is "a-max/n"
			}
		}
		if hasStep {
			n, err := strconv.Atoi(stepPart)
			if err != nil || n <= 0 {
				fe.BadStep, fe.Step = true, stepPart
			}
			step = n
			if n > 1 {
				itemStar = false
			}
		}
		if fe.Value == ValueOK && hi < lo {
			fe.Backwards, fe.Range = true, rangePart
		}
		if fe.Value != ValueOK || fe.BadStep || fe.Backwards {
			return 0, false, &fe
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << uint(v)
		}
		star = star || itemStar
	}
	return bits, star, nil
}

// value reads one value of field f, recording in fe what is wrong with it.
func value(s string, f Field, syn Syntax, fe *FieldError) int {
	if v, ok := f.names[strings.ToLower(s)]; ok {
		return v
	}
	v, err := strconv.Atoi(s)
	switch {
	case s == "":
		fe.Value, fe.Text = ValueMissing, s
	case err != nil || syn.NoSign && strings.HasPrefix(s, "+"):
		fe.Value, fe.Text = ValueNotNum, s
	case v < f.Min || v > f.Max:
		fe.Value, fe.Text, fe.Number = ValueOutside, s, v
	default:
		return v
	}
	return f.Min
}

// Matches reports whether the schedule fires at the minute of t, read in
// t's location. Always false for @every.
func (s *Schedule) Matches(t time.Time) bool {
	return s.every == 0 && s.minute&(1<<uint(t.Minute())) != 0 && s.HourMatches(t)
}

// HourMatches reports whether the month, day and hour of t, read in t's
// location, match: whether the schedule fires in some minute of t's hour.
// Always false for @every.
func (s *Schedule) HourMatches(t time.Time) bool {
	return s.every == 0 && s.hour&(1<<uint(t.Hour())) != 0 && s.month&(1<<uint(t.Month())) != 0 && s.dayMatches(t)
}

func (s *Schedule) dayMatches(t time.Time) bool {
	dom := s.dom&(1<<uint(t.Day())) != 0
	dow := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// Next returns the first time strictly after t, in UTC and whole minutes,
// that the schedule hits, read in UTC; the zero time if none within five
// years, and always for @every.
func (s *Schedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return time.Time{}
	}
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
