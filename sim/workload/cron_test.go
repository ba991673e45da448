package workload

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // zones on machines without zoneinfo

	"github.com/stretchr/testify/require"
)

// monday is a Monday midnight UTC, the scenarios' default epoch.
var monday = time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)

func cronTimes(t *testing.T, expr string, loc *time.Location, until time.Duration) []time.Duration {
	t.Helper()
	s, err := ParseCron(expr)
	require.NoError(t, err, expr)
	times, ok := s.Times(monday, loc, until, 100000)
	require.True(t, ok)
	return times
}

func TestCronSchedules(t *testing.T) {
	week := 7 * 24 * time.Hour
	for _, tc := range []struct {
		expr  string
		until time.Duration
		want  int
		first time.Duration
	}{
		// kubernetes/website content/en/examples/application/job/cronjob.yaml
		{"* * * * *", time.Hour, 61, 0},
		{"*/15 * * * *", 2 * time.Hour, 9, 0},
		{"5/20 * * * *", time.Hour, 3, 5 * time.Minute}, // 5, 25, 45
		{"0 2 * * *", week, 7, 2 * time.Hour},
		{"30 1 * * MON-fri", week, 5, 90 * time.Minute},
		{"0 0 * * sat,SUN", week, 2, 5 * 24 * time.Hour},
		{"0 0 1 * *", 60 * 24 * time.Hour, 2, 27 * 24 * time.Hour}, // Feb 1 and Mar 1
		{"0 0 1,15 * *", 31 * 24 * time.Hour, 2, 10 * 24 * time.Hour},
		{"0 9-17/4 * * *", 24 * time.Hour, 3, 9 * time.Hour}, // 9, 13, 17
		{"0 0 * jan *", week, 8, 0},                          // both ends included,
		{"0 0 * feb-dec *", week, 0, 0},
		// Day of month and day of week both restricted: either matches
		// (Monday 5th; Friday 9th: the 9th is a Friday, counted once; Monday 12th).
		{"0 0 9 * mon", week + time.Minute, 3, 0},
		// One of them starts with *: both must match.
		{"0 0 9 * *", week, 1, 4 * 24 * time.Hour},
		{"0 0 */1 * mon", week + time.Minute, 2, 0},
		{"0 0 ? * mon", week + time.Minute, 2, 0},
		// A step above 1 restricts: 1,3,5,7,9 or Monday.
		{"0 0 */2 * mon", week, 5, 0},
		{"@hourly", 3 * time.Hour, 4, 0},
		{"@daily", week - time.Minute, 7, 0},
		{"@midnight", week, 8, 0},
		{"@weekly", 14 * 24 * time.Hour, 2, 6 * 24 * time.Hour}, // Sundays
		{"@monthly", 60 * 24 * time.Hour, 2, 27 * 24 * time.Hour},
		{"@yearly", 365 * 24 * time.Hour, 1, 361 * 24 * time.Hour},
		{"@annually", 365 * 24 * time.Hour, 1, 361 * 24 * time.Hour},
		{"@every 90m", 6 * time.Hour, 4, 90 * time.Minute},
		{"  0   3 * *   *  ", week, 7, 3 * time.Hour},
	} {
		got := cronTimes(t, tc.expr, time.UTC, tc.until)
		require.Len(t, got, tc.want, tc.expr)
		if tc.want > 0 {
			require.Equal(t, tc.first, got[0], tc.expr)
		}
	}
}

func TestCronTimeZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	// 02:00 in New York is 07:00 UTC in January.
	got := cronTimes(t, "0 2 * * *", ny, 48*time.Hour)
	require.Equal(t, []time.Duration{7 * time.Hour, 31 * time.Hour}, got)

	// Across the spring change (Sunday 8 March 2026, 02:00 -> 03:00):
	// 02:30 does not exist that day, so no run; 01:30 on the autumn change
	// (Sunday 1 November 2026) exists twice and runs twice.
	s, err := ParseCron("30 2 * * *")
	require.NoError(t, err)
	start := time.Date(2026, time.March, 7, 0, 0, 0, 0, ny)
	times, ok := s.Times(start, ny, 3*24*time.Hour, 100)
	require.True(t, ok)
	var days []int
	for _, d := range times {
		days = append(days, start.Add(d).In(ny).Day())
	}
	require.Equal(t, []int{7, 9}, days)

	s, err = ParseCron("30 1 * * *")
	require.NoError(t, err)
	start = time.Date(2026, time.October, 31, 0, 0, 0, 0, ny)
	times, ok = s.Times(start, ny, 3*24*time.Hour, 100)
	require.True(t, ok)
	require.Len(t, times, 4, "31 Oct, twice on 1 Nov, 2 Nov")
	require.Equal(t, time.Hour, times[2]-times[1])

	// Half-hour zones.
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	require.NoError(t, err)
	got = cronTimes(t, "0 6 * * *", kolkata, 24*time.Hour)
	require.Equal(t, []time.Duration{30 * time.Minute}, got, "06:00 IST is 00:30 UTC")
}

func TestCronEpochMidMinute(t *testing.T) {
	s, err := ParseCron("* * * * *")
	require.NoError(t, err)
	times, ok := s.Times(monday.Add(20*time.Second), time.UTC, 2*time.Minute, 10)
	require.True(t, ok)
	require.Equal(t, []time.Duration{40 * time.Second, 100 * time.Second}, times)
}

func TestCronLimit(t *testing.T) {
	s, err := ParseCron("* * * * *")
	require.NoError(t, err)
	_, ok := s.Times(monday, time.UTC, time.Hour, 60)
	require.False(t, ok)
	s, err = ParseCron("@every 1s")
	require.NoError(t, err)
	_, ok = s.Times(monday, time.UTC, time.Hour, 60)
	require.False(t, ok)
}

func TestCronErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"":                      "empty schedule",
		"* * * *":               "4 fields where 5 are needed",
		"* * * * * *":           "6 fields",
		"60 * * * *":            "minute: 60 is outside 0-59",
		"* 24 * * *":            "hour: 24 is outside 0-23",
		"* * 0 * *":             "day of month: 0 is outside 1-31",
		"* * * 13 *":            "month: 13 is outside 1-12",
		"* * * * 7":             "day of week: 7 is outside 0-6 (Sunday is 0 or sun)",
		"* * * * monday":        `day of week: "monday" is not a number from 0 to 6 or sun-sat`,
		"* * * foo *":           `month: "foo" is not a number from 1 to 12 or jan-dec`,
		"*/0 * * * *":           `minute: step "0" in "*/0" is not a positive whole number`,
		"*/x * * * *":           `step "x"`,
		"5-1 * * * *":           `minute: range "5-1" runs backwards`,
		"-1 * * * *":            `minute: "-1" is missing a value`,
		"1,,2 * * * *":          `minute: "" is missing a value`,
		"@fortnightly":          `unknown macro "@fortnightly"`,
		"@every":                `unknown macro`,
		"@every 0s":             "@every needs a positive duration",
		"@every soon":           "@every needs a positive duration",
		"TZ=UTC 0 0 * * *":      "set spec.timeZone instead",
		"60 24 * * 7":           "minute: 60 is outside 0-59; hour: 24 is outside 0-23; day of week: 7 is outside 0-6",
		"CRON_TZ=UTC 0 0 * * *": "set spec.timeZone instead",
	} {
		_, err := ParseCron(expr)
		require.Error(t, err, expr)
		require.Contains(t, err.Error(), want, expr)
	}
}

// FuzzParseCron: any text parses or fails with an error, never panics, and a
// parsed schedule lists its times within the limit, in increasing order.
func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/5 1-3 1,15 jan-mar mon-fri", "@daily", "@every 1h",
		"0 0 9 * mon", "5/20 * ? * *", "TZ=UTC * * * * *", "* * * * 7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := ParseCron(expr)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("an empty error message")
			}
			return
		}
		times, ok := s.Times(monday, time.UTC, 48*time.Hour, 5000)
		if !ok {
			return
		}
		for i := 1; i < len(times); i++ {
			if times[i] <= times[i-1] {
				t.Fatalf("%q: times out of order: %v", expr, times[i-1:i+1])
			}
		}
		for _, d := range times {
			if s.every == 0 && !s.Matches(monday.Add(d)) {
				t.Fatalf("%q: listed %v, which does not match", expr, d)
			}
		}
	})
}
