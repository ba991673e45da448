package apis

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
)

// scenarioDoc stands in for the lead's Scenario document, which embeds
// SettingsSpec as spec.karpenter.
type scenarioDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Karpenter *SettingsSpec `json:"karpenter,omitempty"`
	} `json:"spec"`
}

func compileSettings(t *testing.T, yaml string) (Settings, error) {
	t.Helper()
	docs, err := manifest.ReadBytes("s.yaml", []byte(yaml))
	require.NoError(t, err)
	var doc scenarioDoc
	if err := docs[0].Decode(&doc); err != nil {
		return Settings{}, err
	}
	return doc.Spec.Karpenter.Compile(docs[0], "spec.karpenter")
}

func TestSettings(t *testing.T) {
	s, err := compileSettings(t, "apiVersion: x/v1\nkind: Scenario\nspec: {}\n")
	require.NoError(t, err)
	require.Equal(t, DefaultSettings(), s)
	require.Equal(t, time.Second, s.BatchIdleDuration)
	require.Equal(t, 10*time.Second, s.BatchMaxDuration)
	require.False(t, s.SpotToSpotConsolidation)
	require.False(t, s.InterruptionQueue)
	require.Equal(t, 3*time.Minute, s.UnavailableOfferingsTTL)
	require.Equal(t, 1000.0, s.SolverPodsPerSecond)

	s, err = compileSettings(t, `apiVersion: x/v1
kind: Scenario
spec:
  karpenter:
    batchIdleDuration: 2s
    batchMaxDuration: 20s
    interruptionQueue: true
    featureGates: {spotToSpotConsolidation: true}
    launchTimeout: 2m
    registrationTimeout: 10m
    preferencePolicy: Ignore
    minValuesPolicy: BestEffort
    startTime: "2026-03-02T08:00:00Z"
    solverPodsPerSecond: 250
`)
	require.NoError(t, err)
	require.Equal(t, 250.0, s.SolverPodsPerSecond)
	require.Equal(t, 2*time.Second, s.BatchIdleDuration)
	require.Equal(t, 20*time.Second, s.BatchMaxDuration)
	require.True(t, s.InterruptionQueue)
	require.True(t, s.SpotToSpotConsolidation)
	require.Equal(t, 2*time.Minute, s.LaunchTimeout)
	require.Equal(t, 10*time.Minute, s.RegistrationTimeout)
	require.Equal(t, PreferencesIgnore, s.PreferencePolicy)
	require.True(t, s.MinValuesBestEffort)
	require.Equal(t, time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC), s.Epoch)

	for _, tc := range []struct{ yaml, want string }{
		{"    batchIdleDuration: soon\n", `s.yaml:5: spec.karpenter.batchIdleDuration: "soon" is not a duration; write a duration like 1s, 90s or 10m`},
		{"    batchIdleDuration: 20s\n    batchMaxDuration: 10s\n", `s.yaml:5: spec.karpenter.batchIdleDuration: 20s is longer than batchMaxDuration 10s; keep batchIdleDuration at most batchMaxDuration`},
		{"    preferencePolicy: Prefer\n", `s.yaml:5: spec.karpenter.preferencePolicy: unknown preference policy "Prefer"; use Respect or Ignore`},
		{"    interruptionQue: true\n", `s.yaml:5: spec.karpenter.interruptionQue: unknown field "interruptionQue"; did you mean "interruptionQueue"?`},
		{"    solverPodsPerSecond: -5\n", `s.yaml:5: spec.karpenter.solverPodsPerSecond: -5 is not a non-negative number; give a rate such as 1000, or 0 for instantaneous passes`},
		{"    batchMaxDuration: 0s\n", `s.yaml:5: spec.karpenter.batchMaxDuration: must be more than 0; write a duration like 1s, 90s or 10m`},
		// A pass every nanosecond of simulated time never let the run end.
		{"    disruptionPollInterval: 1ns\n", `s.yaml:5: spec.karpenter.disruptionPollInterval: 1ns is shorter than 1s; use at least 1s; upstream Karpenter polls every 10s`},
	} {
		_, err := compileSettings(t, "apiVersion: x/v1\nkind: Scenario\nspec:\n  karpenter:\n"+tc.yaml)
		require.Error(t, err)
		var es manifest.Errors
		require.True(t, errors.As(err, &es))
		require.Equal(t, tc.want, es[0].Error())
	}
}

func TestScheduleNext(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	for _, tc := range []struct{ expr, from, want string }{
		{"0 9 * * *", "2026-01-05T08:30:00Z", "2026-01-05T09:00:00Z"},
		{"0 9 * * *", "2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z"},
		{"*/15 * * * *", "2026-01-05T09:01:00Z", "2026-01-05T09:15:00Z"},
		{"0 9 * * mon-fri", "2026-01-09T10:00:00Z", "2026-01-12T09:00:00Z"}, // Friday -> Monday
		{"0 0 1 * *", "2026-01-05T00:00:00Z", "2026-02-01T00:00:00Z"},
		{"@weekly", "2026-01-05T00:00:00Z", "2026-01-11T00:00:00Z"},
		{"@hourly", "2026-01-05T00:30:00Z", "2026-01-05T01:00:00Z"},
		{"0 0 29 2 *", "2026-01-05T00:00:00Z", "2028-02-29T00:00:00Z"},
		{"30 2 1,15 * 0", "2026-01-05T00:00:00Z", "2026-01-11T02:30:00Z"}, // day of month or Sunday
	} {
		s, err := ParseSchedule(tc.expr)
		require.NoError(t, err, tc.expr)
		require.Equal(t, at(tc.want), s.Next(at(tc.from)), tc.expr)
	}
	for _, bad := range []string{"0 9 * *", "61 * * * *", "@sometimes", "TZ=UTC 0 9 * * *", "0 9 * * 8", "5-1 * * * *"} {
		_, err := ParseSchedule(bad)
		require.Error(t, err, bad)
	}
}

func TestBudgetAllowed(t *testing.T) {
	s, err := ParseSchedule("0 9 * * *")
	require.NoError(t, err)
	b := Budget{Nodes: cluster.IntOrPercent{Value: 0}, Schedule: s, Duration: 8 * time.Hour}
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	require.Equal(t, 1<<31-1, b.Allowed(day.Add(8*time.Hour+59*time.Minute), 10))
	require.Equal(t, 0, b.Allowed(day.Add(9*time.Hour), 10))
	require.Equal(t, 0, b.Allowed(day.Add(16*time.Hour+59*time.Minute), 10))
	require.Equal(t, 0, b.Allowed(day.Add(17*time.Hour), 10), "a hit exactly duration ago still counts (KC Budget.IsActive)")
	require.Equal(t, 1<<31-1, b.Allowed(day.Add(17*time.Hour+time.Minute), 10))
	pct := Budget{Nodes: cluster.IntOrPercent{Value: 10, Percent: true}}
	require.Equal(t, 1, pct.Allowed(day, 5), "10% of 5 rounds up to 1")
	require.Equal(t, 3, pct.Allowed(day, 21))
	d := Disruption{Budgets: []Budget{pct, {Nodes: cluster.IntOrPercent{Value: 0}, Reasons: []Reason{ReasonDrifted}}}}
	require.Equal(t, 3, d.AllowedDisruptions(day, 21, ReasonEmpty))
	require.Equal(t, 0, d.AllowedDisruptions(day, 21, ReasonDrifted))
}
