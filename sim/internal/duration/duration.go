// Package duration reads the durations users write in scenario inputs: Go
// duration syntax after an optional count of whole days ("90s", "1h30m",
// "7d", "1d12h"). The scenario, Karpenter's settings and spot-market traces
// share it so that one spelling means the same everywhere.
package duration

import (
	"errors"
	"fmt"
	"math"
	"regexp"
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
const maxDays = int64(math.MaxInt64 / int64(24*time.Hour))

// ErrNegative is wrapped by Parse's error for a negative duration.
var ErrNegative = errors.New("negative")

// ErrTooLong is wrapped by Parse's error for a duration a time.Duration
// cannot hold.
var ErrTooLong = errors.New("too long (a duration holds at most about 292 years)")

// goDuration matches time.ParseDuration's syntax (without a sign): what
// it refuses that matches is too long for it.
var goDuration = regexp.MustCompile(`^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// Parse reads s (spaces around it ignored). Errors quote s: `"soon" is not a
// duration`, `"-5m" is negative` (wrapping ErrNegative), or `"999999999h"
// is too long` (wrapping ErrTooLong).
func Parse(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	rest, days := s, time.Duration(0)
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if (err != nil && !errors.Is(err, strconv.ErrRange)) || n < 0 {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		if err != nil || n > maxDays {
			return 0, fmt.Errorf("%q is %w", s, ErrTooLong)
		}
		days = time.Duration(n) * 24 * time.Hour
		if rest = s[i+1:]; rest == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		if goDuration.MatchString(strings.TrimLeft(rest, "+-")) {
			return 0, fmt.Errorf("%q is %w", s, ErrTooLong)
		}
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	if d > 0 && d > math.MaxInt64-days {
		return 0, fmt.Errorf("%q is %w", s, ErrTooLong)
	}
	if d += days; d < 0 {
		return 0, fmt.Errorf("%q is %w", s, ErrNegative)
	}
	return d, nil
}
