// Package duration reads the durations users write in scenario inputs: Go
// duration syntax after an optional count of whole days ("90s", "1h30m",
// "7d", "1d12h"). The scenario, Karpenter's settings and spot-market traces
// share it so that one spelling means the same everywhere.
package duration

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Year is the longest span an input may give where a bound applies (a leap
// year): far beyond any what-if, and far from time.Duration's overflow.
const Year = 366 * 24 * time.Hour

// Saturated is the longest a model is given for a span a user writes
// unbounded (a grace period, a toleration, an expiry, a TTL): 2^60 ns,
// about 36 years. It is beyond any run (a run lasts at most a Year), so a
// longer value behaves the same, and small enough that a time plus it, or
// two of them added, never overflows a time.Duration (which ended in an
// engine panic: "internal error ... this is a model bug").
const Saturated = time.Duration(1 << 60)

// Cap saturates d at Saturated.
func Cap(d time.Duration) time.Duration { return min(d, Saturated) }

// FromSeconds converts a count of seconds (such as
// terminationGracePeriodSeconds, at least 0) to a duration, saturated at
// Saturated instead of overflowing.
func FromSeconds(s int64) time.Duration {
	if s >= int64(Saturated/time.Second) {
		return Saturated
	}
	return time.Duration(s) * time.Second
}

// maxDays bounds the day count, so days never overflow a time.Duration.
const maxDays = 366

// ErrNegative is wrapped by Parse's error for a negative duration.
var ErrNegative = errors.New("negative")

// Parse reads s (spaces around it ignored). Errors quote s: `"soon" is not a
// duration`, or `"-5m" is negative` (wrapping ErrNegative).
func Parse(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	rest, days := s, time.Duration(0)
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n < 0 || n > maxDays {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		if rest = s[i+1:]; rest == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	if d += days; d < 0 {
		return 0, fmt.Errorf("%q is %w", s, ErrNegative)
	}
	return d, nil
}
