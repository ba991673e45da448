package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/scenario"
)

// load loads the embedded scenario name.
func load(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenarios.Load(name)
	require.NoError(t, err)
	return sc
}
