package props_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/props"
	"github.com/clustersim/clustersim/sim/scenario"
)

// The reduced case of issue 29 holds every property: Karpenter does not
// remove an adopted node whose Deployment pods are pinned there by
// startOn as if it were empty.
func TestIssue29AdoptedNodeIsNotEmpty(t *testing.T) {
	data, err := os.ReadFile("testdata/issue29.yaml")
	require.NoError(t, err)
	sc, err := scenario.LoadManifests("testdata/issue29.yaml", data, nil)
	require.NoError(t, err)
	r := props.Observe(sc)
	require.Empty(t, props.Check(r))
}
