package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/simulation"
)

// Checking the models' structures changes nothing: an embedded scenario
// in which Karpenter consolidates underutilized nodes gives the same
// report, byte for byte, with its structures checked every few events
// (sim run --check, far more often than by default) as without.
func TestCheckedKarpenterRunIsIdentical(t *testing.T) {
	report := func(opts simulation.Options) []byte {
		sc, err := scenarios.Load("karpenter-mixed")
		require.NoError(t, err)
		r, err := simulation.Run(sc, opts)
		require.NoError(t, err)
		figures, ok := r.Figures(karpenter.ReportKey)
		require.True(t, ok)
		require.Positive(t, figures.(karpenter.Stats).Disruptions.Underutilized, "the run consolidates")
		js, err := r.JSON()
		require.NoError(t, err)
		return js
	}
	plain := report(simulation.Options{})
	checked := report(simulation.Options{Check: true, CheckEvery: 25})
	require.Equal(t, string(plain), string(checked))
}
