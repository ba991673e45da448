package cron

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sunday is Sunday 11 January 2026, midnight UTC.
var sunday = time.Date(2026, time.January, 11, 0, 0, 0, 0, time.UTC)

func TestSyntaxOptions(t *testing.T) {
	_, err := Parse("0 0 * * 7", Syntax{})
	require.Error(t, err, "7 is refused by default, as robfig/cron refuses it")
	s, err := Parse("0 0 * * 7", Syntax{SundaySeven: true})
	require.NoError(t, err)
	require.True(t, s.Matches(sunday))
	require.False(t, s.Matches(sunday.Add(24*time.Hour)))

	_, err = Parse("@every 90m", Syntax{})
	var e *Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, ErrDescriptor, e.Kind)
	s, err = Parse("@every 90m", Syntax{Every: true})
	require.NoError(t, err)
	require.Equal(t, 90*time.Minute, s.Every())
	require.False(t, s.Matches(sunday))

	_, err = Parse("+5 * * * *", Syntax{})
	require.NoError(t, err)
	_, err = Parse("+5 * * * *", Syntax{NoSign: true})
	require.True(t, errors.As(err, &e))
	require.Equal(t, ValueNotNum, e.Fields[0].Value)
}

// An item wrong in several ways records all of them: callers differ in
// which they report.
func TestFieldErrors(t *testing.T) {
	_, err := Parse("x/0 24 * * 5-1", Syntax{})
	var e *Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, ErrFields, e.Kind)
	require.Len(t, e.Fields, 3)
	f := e.Fields[0]
	require.Equal(t, "minute", f.Field.Name)
	require.Equal(t, ValueNotNum, f.Value)
	require.True(t, f.BadStep)
	require.Equal(t, "0", f.Step)
	require.Equal(t, ValueOutside, e.Fields[1].Value)
	require.Equal(t, 24, e.Fields[1].Number)
	require.True(t, e.Fields[2].Backwards)
	require.Equal(t, "5-1", e.Fields[2].Range)
}

// Day fields: robfig's star bit (an item starting with * or ? and no step
// above 1) makes both day fields apply; otherwise either.
func TestDayMatching(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want bool // at Sunday the 11th
	}{
		{"0 0 11 * mon", true}, // the 11th, though a Sunday
		{"0 0 12 * sun", true}, // a Sunday, though not the 12th
		{"0 0 */1 * mon", false},
		{"0 0 ? * mon", false},
		{"0 0 */2 * mon", true}, // 11 is odd
	} {
		s, err := Parse(tc.expr, Syntax{})
		require.NoError(t, err, tc.expr)
		require.Equal(t, tc.want, s.Matches(sunday), tc.expr)
	}
}

// FuzzCron: any text parses or fails with an *Error, in every syntax, and a
// parsed schedule's Next is a time it matches.
func FuzzCron(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/5 1-3 1,15 jan-mar mon-fri", "@daily", "@every 1h",
		"0 0 9 * mon", "5/20 * ? * *", "TZ=UTC * * * * *", "* * * * 7", "x/0 +1 5-1 * *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, syn := range []Syntax{{}, {SundaySeven: true}, {Every: true, NoSign: true}} {
			s, err := Parse(expr, syn)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || strings.TrimSpace(e.Error()) == "" {
					t.Fatalf("%q: error %v", expr, err)
				}
				if e.Kind == ErrFields && len(e.Fields) == 0 {
					t.Fatalf("%q: no wrong field named", expr)
				}
				continue
			}
			if next := s.Next(sunday); !next.IsZero() && !s.Matches(next) {
				t.Fatalf("%q: Next %v does not match", expr, next)
			}
		}
	})
}
