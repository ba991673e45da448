package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxDuration bounds every duration a scenario gives: a year of simulated
// time is far beyond any what-if and keeps arithmetic away from overflow.
const maxDuration = 366 * 24 * time.Hour

// parseDuration reads Go duration syntax plus whole days ("7d", "1d12h").
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n < 0 || n > 366 {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	d += days
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	if d > maxDuration {
		return 0, fmt.Errorf("%q is longer than a year", s)
	}
	return d, nil
}

const durationHint = "write a duration like 90s, 10m, 1h30m or 7d"
