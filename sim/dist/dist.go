// Package dist holds the duration distributions scenarios use for run
// times and delays, sampled from the engine's named random streams.
package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// z90 is the standard normal quantile at 0.9: a lognormal with median m
// and 90th percentile p has sigma = ln(p/m)/z90.
const z90 = 1.2815515655446004

// Duration is a distribution of durations.
type Duration interface {
	Sample(r *rand.Rand) time.Duration
	// Mean is the expected value, for estimates and reports.
	Mean() time.Duration
	String() string
}

// Fixed always returns D.
type Fixed struct{ D time.Duration }

func (f Fixed) Sample(*rand.Rand) time.Duration { return f.D }
func (f Fixed) Mean() time.Duration             { return f.D }
func (f Fixed) String() string                  { return "fixed " + f.D.String() }

// LogNormal is set by its median and 90th percentile, the two figures
// people know about their jobs.
type LogNormal struct {
	Median, P90 time.Duration
	mu, sigma   float64
}

// NewLogNormal checks 0 < median <= p90.
func NewLogNormal(median, p90 time.Duration) (LogNormal, error) {
	if median <= 0 {
		return LogNormal{}, fmt.Errorf("median must be positive, got %s", median)
	}
	if p90 < median {
		return LogNormal{}, fmt.Errorf("p90 (%s) must be at least the median (%s)", p90, median)
	}
	return LogNormal{Median: median, P90: p90,
		mu:    math.Log(float64(median)),
		sigma: math.Log(float64(p90)/float64(median)) / z90}, nil
}

func (l LogNormal) Sample(r *rand.Rand) time.Duration {
	return clampDuration(math.Exp(l.mu + l.sigma*r.NormFloat64()))
}
func (l LogNormal) Mean() time.Duration {
	return clampDuration(math.Exp(l.mu + l.sigma*l.sigma/2))
}
func (l LogNormal) String() string {
	return fmt.Sprintf("lognormal median %s p90 %s", l.Median, l.P90)
}

// Exponential has the given mean.
type Exponential struct{ MeanD time.Duration }

func (e Exponential) Sample(r *rand.Rand) time.Duration {
	return clampDuration(r.ExpFloat64() * float64(e.MeanD))
}
func (e Exponential) Mean() time.Duration { return e.MeanD }
func (e Exponential) String() string      { return "exponential mean " + e.MeanD.String() }

// Uniform is uniform on [Min, Max].
type Uniform struct{ Min, Max time.Duration }

func (u Uniform) Sample(r *rand.Rand) time.Duration {
	if u.Max == u.Min {
		return u.Min
	}
	return u.Min + time.Duration(r.Int64N(int64(u.Max-u.Min)+1))
}
func (u Uniform) Mean() time.Duration { return (u.Min + u.Max) / 2 }
func (u Uniform) String() string      { return fmt.Sprintf("uniform %s..%s", u.Min, u.Max) }

// clampDuration converts nanoseconds to a Duration, rounded to the
// microsecond (so reports do not carry float noise) and kept within
// [1µs, 100 years].
func clampDuration(ns float64) time.Duration {
	const max = float64(100 * 365 * 24 * time.Hour)
	if !(ns < max) { // also catches NaN
		ns = max
	}
	d := time.Duration(ns).Round(time.Microsecond)
	if d < time.Microsecond {
		d = time.Microsecond
	}
	return d
}
