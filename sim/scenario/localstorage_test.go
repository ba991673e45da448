package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Cluster Autoscaler's AWS example passes
// --skip-nodes-with-local-storage=false (kubernetes/autoscaler,
// cluster-autoscaler/cloudprovider/aws/examples/
// cluster-autoscaler-autodiscover.yaml): the warning says which volumes
// the flag concerns (hostPath, emptyDir on disk: not modelled) and that
// the modelled ones, persistent volumes, are not local storage.
func TestLocalStorageFlagSaysWhatIsModelled(t *testing.T) {
	sc, err := LoadFile("testdata/ca-deployment/scenario.yaml")
	require.NoError(t, err)
	var got []string
	for _, w := range sc.Warnings {
		if strings.Contains(w.String(), "--skip-nodes-with-local-storage") {
			got = append(got, w.String())
		}
	}
	require.Len(t, got, 1)
	require.Contains(t, got[0], "cluster-autoscaler-autodiscover.yaml:65: ")
	require.True(t, strings.HasSuffix(got[0], "--skip-nodes-with-local-storage: it keeps nodes whose pods have hostPath or emptyDir volumes (not medium: Memory), which are not modelled; "+
		"the volumes that are, persistent volumes, never count as local storage: this flag changes nothing"), got[0])
	require.NotContains(t, got[0], "pod volumes are not modelled")
}
