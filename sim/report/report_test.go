package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPercentiles(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i)*time.Second)
	}
	p := percentiles(s)
	// Empirical quantile: the smallest value whose cumulative share reaches p.
	require.Equal(t, Percentiles{P50: 50, P95: 95, P99: 99, Max: 100, Mean: 50.5}, p)
	require.Equal(t, Percentiles{}, percentiles(nil))
	require.Equal(t, Percentiles{P50: 1.5, P95: 1.5, P99: 1.5, Max: 1.5, Mean: 1.5}, percentiles([]time.Duration{1500 * time.Millisecond}))
}

func TestFormatSeconds(t *testing.T) {
	for s, want := range map[float64]string{0: "0s", 4.25: "4.2s", 59: "59s", 185: "3m05s", 7800: "2h10m"} {
		require.Equal(t, want, formatSeconds(s), "%v", s)
	}
}

func TestWrap(t *testing.T) {
	require.Equal(t, "short", wrap("short", 10))
	require.Equal(t, "aaa bbb\nccc", wrap("aaa bbb ccc", 8))
}
