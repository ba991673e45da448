package kubelet_test

import (
	"testing"

	"github.com/clustersim/clustersim/sim/internal/simscript"
	"github.com/clustersim/clustersim/sim/internal/testscript"
)

// TestScripts runs the scripts of testdata/ (pods that wait for an address
// of their node's subnet, launches that find none). After a deliberate
// change of behaviour: go test ./sim/kubelet -run TestScripts -update,
// then read the diff.
func TestScripts(t *testing.T) {
	testscript.RunDir(t, "testdata", simscript.Handler)
}
