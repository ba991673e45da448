package karpenter_test

import (
	"testing"

	"github.com/clustersim/clustersim/sim/internal/simscript"
	"github.com/clustersim/clustersim/sim/internal/testscript"
)

// TestScripts runs the provisioning and disruption scripts of testdata/:
// each builds a scenario as users write it, steps the run and shows what
// Karpenter did. After a deliberate change of behaviour:
// go test ./sim/karpenter -run TestScripts -update, then read the diff.
func TestScripts(t *testing.T) {
	testscript.RunDir(t, "testdata", simscript.Handler)
}
