package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// load loads the embedded scenario name.
func load(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenarios.Load(name)
	require.NoError(t, err)
	return sc
}

// NoTimeline leaves the timeline out and changes nothing else.
func TestNoTimeline(t *testing.T) {
	sc := load(t, "hybrid-naive")
	with, err := simulation.Run(sc, simulation.Options{})
	require.NoError(t, err)
	without, err := simulation.Run(sc, simulation.Options{NoTimeline: true})
	require.NoError(t, err)
	require.NotNil(t, with.Timeline)
	require.Nil(t, without.Timeline)
	with.Timeline = nil
	a, err := with.JSON()
	require.NoError(t, err)
	b, err := without.JSON()
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
}
