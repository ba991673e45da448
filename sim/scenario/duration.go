package scenario

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/internal/duration"
)

// parseDuration reads a duration a scenario gives (duration.Parse: Go syntax
// plus whole days), bounded by a year of simulated time: far beyond any
// what-if and away from overflow.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	d, err := duration.Parse(s)
	if errors.Is(err, duration.ErrTooLong) || (err == nil && d > duration.Year) {
		return 0, fmt.Errorf("%q is %w", s, errLongerThanYear)
	}
	if err != nil {
		return 0, err
	}
	return d, nil
}

// errLongerThanYear: a scenario's spans are bounded by a year (3650d and
// 87600h alike).
var errLongerThanYear = errors.New("longer than a year")

// durationHintFor is the hint for a duration error: a too long one gets
// the bound.
func durationHintFor(err error) string {
	if errors.Is(err, errLongerThanYear) {
		return "use at most a year (366d or 8784h); split a longer period into several scenarios"
	}
	return durationHint
}

const durationHint = "write a duration like 90s, 10m, 1h30m or 7d"

// ParseDuration reads a duration as a scenario does (Go syntax plus whole
// days, at most a year), for the flags that take one (sim run
// --dump-state, --zone-out).
func ParseDuration(s string) (time.Duration, error) { return parseDuration(s) }
