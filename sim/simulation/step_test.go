package simulation_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/simulation"
)

// A run advanced in steps, with a report read at every step, ends with the
// report of the same run done in one go: stepping and reading mid-run
// disturb nothing (the collector's books are closed on a copy, the market's
// lazy price path draws the same knots whenever it is asked).
func TestSteppedRunMatchesRun(t *testing.T) {
	for _, name := range embeddedScenarios(t) {
		t.Run(name, func(t *testing.T) {
			sc := load(t, name)
			whole, err := simulation.Run(sc, simulation.Options{Check: true})
			require.NoError(t, err)
			want, err := whole.JSON()
			require.NoError(t, err)

			s, err := simulation.Start(sc, simulation.Options{Check: true})
			require.NoError(t, err)
			require.Equal(t, engine.Time(0), s.Now())
			require.Equal(t, sc.Duration, s.End())
			var events uint64
			for at := 17 * time.Minute; s.Now() < s.End(); at += 17 * time.Minute {
				require.NoError(t, s.RunUntil(at))
				require.Equal(t, min(at, s.End()), s.Now(), "the clock stops at the step, never past the end")
				mid := s.Report()
				require.Equal(t, s.Now().Seconds(), mid.DurationSeconds, "a report mid-run covers the time so far")
				require.GreaterOrEqual(t, mid.Engine.Events, events)
				events = mid.Engine.Events
				require.Len(t, mid.Workloads, len(sc.Workloads))
				require.Equal(t, len(s.Cluster().Pods), mid.Pods.Total, "the report reads the run's cluster")
			}
			require.NoError(t, s.RunUntil(s.End()+time.Hour), "asking past the end is a no-op")
			require.Equal(t, s.End(), s.Now())
			got, err := s.Report().JSON()
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
		})
	}
}

// The models' sections of the report come in wiring order, only for the
// models the scenario runs.
func TestModelSectionsFollowTheWiring(t *testing.T) {
	for name, want := range map[string][]string{
		"hybrid-naive":         {karpenter.ReportKey, clusterautoscaler.ReportKey},
		"ca-priority-fallback": {clusterautoscaler.ReportKey},
		"static-burst":         nil,
	} {
		sc := load(t, name)
		rep, err := simulation.Run(sc, simulation.Options{})
		require.NoError(t, err)
		var keys []string
		for _, m := range rep.Models {
			keys = append(keys, m.Key)
		}
		require.Equal(t, want, keys, name)
	}
}
