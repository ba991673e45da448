package workload_test

import (
	"testing"

	"github.com/clustersim/clustersim/sim/internal/simscript"
	"github.com/clustersim/clustersim/sim/internal/testscript"
)

// TestScripts runs the controller scripts of testdata/ (CronJobs, HPAs):
// each builds a scenario as users write it and steps a real run. After a
// deliberate change of behaviour: go test ./sim/workload -run TestScripts
// -update, then read the diff.
func TestScripts(t *testing.T) {
	testscript.RunDir(t, "testdata", simscript.Handler)
}
