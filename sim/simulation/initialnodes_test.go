package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// eksctl's simple cluster starts with ten nodes in ng-1; the Cluster
// Autoscaler adds two for the pods that do not fit. The ten are the
// cluster as it stands (nodes.initial), the two are launched, in the
// report and in the node group's timeline series alike.
func TestNodeGroupStartNodesAreInitial(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/eksctl-initial/scenario.yaml")
	require.NoError(t, err)
	rep, err := simulation.Run(sc, simulation.Options{Check: true})
	require.NoError(t, err)
	require.Equal(t, 10, rep.Nodes.Initial)
	require.Equal(t, 2, rep.Nodes.Launched)
	require.Equal(t, 12, rep.Nodes.AtEnd)
	require.NotNil(t, rep.Timeline)
	var launched []int32
	for _, p := range rep.Timeline.Pools {
		if p.Name == "ng-1" {
			launched = p.Launched
		}
	}
	require.NotEmpty(t, launched)
	require.Equal(t, int32(0), launched[0], "the start nodes are not launches")
	require.Equal(t, int32(2), launched[len(launched)-1])
}
