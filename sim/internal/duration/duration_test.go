package duration

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90s":     90 * time.Second,
		" 1h30m ": 90 * time.Minute,
		"7d":      7 * 24 * time.Hour,
		"0d":      0,
		"1d12h":   36 * time.Hour,
		"1d-2h":   22 * time.Hour,
		"366d":    Year,
		"3650d":   3650 * 24 * time.Hour,
		"0":       0,
	} {
		got, err := Parse(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                      `"" is not a duration`,
		"soon":                  `"soon" is not a duration`,
		"1 hour":                `"1 hour" is not a duration`,
		"d":                     `"d" is not a duration`,
		"-1d":                   `"-1d" is not a duration`,
		"106752d":               `"106752d" is too long (a duration holds at most about 292 years)`,
		"99999999999999999999d": `"99999999999999999999d" is too long (a duration holds at most about 292 years)`,
		"9999999h":              `"9999999h" is too long (a duration holds at most about 292 years)`,
		"106751d24h":            `"106751d24h" is too long (a duration holds at most about 292 years)`,
		"1dx":                   `"1dx" is not a duration`, // the whole input, not what follows the days
		"1.5d":                  `"1.5d" is not a duration`,
		"-5m":                   `"-5m" is negative`,
		"1d-25h":                `"1d-25h" is negative`,
	} {
		_, err := Parse(in)
		require.EqualError(t, err, want, in)
		require.Equal(t, want == `"`+in+`" is negative`, errors.Is(err, ErrNegative), in)
		require.Equal(t, strings.Contains(want, "too long"), errors.Is(err, ErrTooLong), in)
	}
}

// Without a day count Parse is time.ParseDuration on the trimmed input,
// negative results aside; with one it adds whole days to the rest.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"90s", " 1h30m ", "7d", "1d12h", "-5m", "d", "1.5h", "366d1h", "9223372036s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		trimmed := strings.TrimSpace(s)
		days, rest, hasDays := strings.Cut(trimmed, "d")
		if !hasDays {
			want, werr := time.ParseDuration(trimmed)
			switch {
			case werr != nil && errors.Is(err, ErrTooLong):
			case werr != nil:
				require.EqualError(t, err, fmt.Sprintf("%q is not a duration", trimmed))
			case want < 0:
				require.ErrorIs(t, err, ErrNegative)
			default:
				require.NoError(t, err)
				require.Equal(t, want, got)
			}
			return
		}
		if err != nil {
			return
		}
		n, perr := strconv.Atoi(days)
		require.NoError(t, perr, "a day count was accepted")
		if rest == "" {
			require.Equal(t, time.Duration(n)*24*time.Hour, got)
		} else {
			r, rerr := time.ParseDuration(rest)
			require.NoError(t, rerr)
			require.Equal(t, time.Duration(n)*24*time.Hour+r, got)
		}
	})
}

// Unbounded user spans saturate at Saturated: a time plus one never
// overflows.
func TestSaturate(t *testing.T) {
	require.Equal(t, 30*time.Second, FromSeconds(30))
	require.Equal(t, Saturated, FromSeconds(9223372036))
	require.Equal(t, Saturated, FromSeconds(1<<62))
	require.Equal(t, time.Hour, Cap(time.Hour))
	require.Equal(t, Saturated, Cap(time.Duration(1<<63-1)))
	require.Greater(t, Year+2*Saturated, Saturated, "no overflow")
}
