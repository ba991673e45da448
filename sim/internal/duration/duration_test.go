package duration

import (
	"errors"
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
		"0":       0,
	} {
		got, err := Parse(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":       `"" is not a duration`,
		"soon":   `"soon" is not a duration`,
		"1 hour": `"1 hour" is not a duration`,
		"d":      `"d" is not a duration`,
		"-1d":    `"-1d" is not a duration`,
		"367d":   `"367d" is not a duration`,
		"1dx":    `"1dx" is not a duration`, // the whole input, not what follows the days
		"1.5d":   `"1.5d" is not a duration`,
		"-5m":    `"-5m" is negative`,
		"1d-25h": `"1d-25h" is negative`,
	} {
		_, err := Parse(in)
		require.EqualError(t, err, want, in)
		require.Equal(t, want == `"`+in+`" is negative`, errors.Is(err, ErrNegative), in)
	}
}
