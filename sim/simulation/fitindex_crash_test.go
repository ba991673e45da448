package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// A provisioning case (three small types, 800 pods with zone spread, zone
// selectors and hostname anti-affinity, all at t=0) that stopped the run
// at 32.7s with an index out of range in the scheduler's fit index: a
// node bound a pod after the scan order had changed and before any cycle
// used the index, and its bit was cleared in the stale layout past its
// end. It runs to the end now, with the invariants and the indexes
// checked.
func TestFitIndexCrashCase(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/fitindex-crash.yaml")
	require.NoError(t, err)
	rep, err := simulation.Run(sc, simulation.Options{Check: true})
	require.NoError(t, err)
	require.False(t, rep.Partial)
	require.Equal(t, sc.Duration.Seconds(), rep.DurationSeconds)
	require.Equal(t, 800, rep.Pods.Total)
	require.Greater(t, rep.Pods.Scheduled, 700)
}
