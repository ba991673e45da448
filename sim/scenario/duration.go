package scenario

import (
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
	if err != nil {
		return 0, err
	}
	if d > duration.Year {
		return 0, fmt.Errorf("%q is longer than a year", s)
	}
	return d, nil
}

const durationHint = "write a duration like 90s, 10m, 1h30m or 7d"

// ParseDuration reads a duration as a scenario does (Go syntax plus whole
// days, at most a year), for the flags that take one (sim run
// --dump-state, --zone-out).
func ParseDuration(s string) (time.Duration, error) { return parseDuration(s) }
