package clusterautoscaler_test

import (
	"testing"

	"github.com/clustersim/clustersim/sim/internal/simscript"
	"github.com/clustersim/clustersim/sim/internal/testscript"
)

// TestScripts runs the scale-up, node group and scale-down scripts of
// testdata/: each builds a scenario as users write it (eksctl node groups,
// the autoscaler's args), steps the run and shows what the Cluster
// Autoscaler did. After a deliberate change of behaviour:
// go test ./sim/clusterautoscaler -run TestScripts -update, then read the
// diff.
func TestScripts(t *testing.T) {
	testscript.RunDir(t, "testdata", simscript.Handler)
}
