package simulation_test

import (
	"testing"

	"github.com/clustersim/clustersim/scenarios"
)

// raceScenarios are the embedded scenarios the whole-run tests replay under
// the race detector: one per controller layout (Karpenter with spot
// interruptions, the Cluster Autoscaler, both). A run is single-threaded,
// so replaying all 31 under -race (ten times slower) finds nothing the
// plain pass misses; make unit replays every one without -race.
var raceScenarios = []string{"hybrid-naive", "web-steady", "ca-priority-fallback"}

// embeddedScenarios is every embedded scenario, or raceScenarios under -race.
func embeddedScenarios(t *testing.T) []string {
	t.Helper()
	if !raceDetector {
		return scenarios.Names()
	}
	all := map[string]bool{}
	for _, n := range scenarios.Names() {
		all[n] = true
	}
	for _, n := range raceScenarios {
		if !all[n] {
			t.Fatalf("raceScenarios names %q, which is not an embedded scenario", n)
		}
	}
	t.Logf("under -race: %d of %d embedded scenarios (%v); the plain pass runs all", len(raceScenarios), len(all), raceScenarios)
	return raceScenarios
}
