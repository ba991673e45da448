package apis

import (
	"fmt"
	"time"

	"github.com/clustersim/clustersim/sim/internal/cron"
)

// Schedule is a standard five-field cron expression (minute hour
// day-of-month month day-of-week), evaluated in UTC as Karpenter does for
// budget schedules (KC Budget.IsActive parses "TZ=UTC <schedule>" with
// robfig/cron's standard parser). Macros @yearly, @annually, @monthly,
// @weekly, @daily, @midnight and @hourly are accepted; so is 7 in day of
// week, as Sunday. The parser is sim/internal/cron's.
type Schedule struct {
	cron cron.Schedule
	text string
}

// String is the expression as written.
func (s *Schedule) String() string { return s.text }

// budgetSyntax: budgets take day of week 7 as Sunday; no @every.
var budgetSyntax = cron.Syntax{SundaySeven: true}

// ParseSchedule parses a cron expression. Time zones (TZ= or CRON_TZ=)
// are refused, as Karpenter refuses them.
func ParseSchedule(text string) (*Schedule, error) {
	c, err := cron.Parse(text, budgetSyntax)
	if err != nil {
		return nil, scheduleError(err.(*cron.Error))
	}
	return &Schedule{cron: *c, text: text}, nil
}

// scheduleError words a parse error; of the wrong fields, the first.
func scheduleError(e *cron.Error) error {
	switch e.Kind {
	case cron.ErrTimeZone:
		return fmt.Errorf("time zones are not supported in budget schedules (they are evaluated in UTC)")
	case cron.ErrDescriptor:
		return fmt.Errorf("unknown macro %q (want @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly)", e.Text)
	case cron.ErrEmpty, cron.ErrFieldCount:
		return fmt.Errorf("want 5 fields (minute hour day-of-month month day-of-week), got %d", e.Count)
	}
	f := e.Fields[0]
	switch {
	case f.BadStep:
		return fmt.Errorf("%s: bad step %q", f.Field.Name, f.Step)
	case f.Value != cron.ValueOK:
		return fmt.Errorf("%s: %q is not a value from %d to %d", f.Field.Name, f.Text, f.Field.Min, f.Field.Max)
	default:
		return fmt.Errorf("%s: range %q runs backwards", f.Field.Name, f.Range)
	}
}

// Next returns the first time strictly after t (UTC, whole minutes) that
// the schedule hits; the zero time if none within five years.
func (s *Schedule) Next(t time.Time) time.Time { return s.cron.Next(t) }
