package simscript_test

import (
	"testing"

	"github.com/clustersim/clustersim/sim/internal/simscript"
	"github.com/clustersim/clustersim/sim/internal/testscript"
)

// TestScripts runs every command against a real run (go test -update
// rewrites the outputs).
func TestScripts(t *testing.T) {
	testscript.RunDir(t, "testdata", simscript.Handler)
}
