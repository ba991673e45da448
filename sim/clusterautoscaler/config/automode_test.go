package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// eksctl's autoModeConfig.enabled: true is EKS Auto Mode, which the
// Karpenter model simulates (its built-in NodePools): nothing for the
// Cluster Autoscaler, and no "nothing to scale" warning for a cluster
// whose compute is Auto Mode's.
func TestEksctlAutoMode(t *testing.T) {
	// from eksctl-io/eksctl examples/42-auto-mode.yaml
	src := `# A sample ClusterConfig file that creates a cluster with Auto Mode enabled.
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig

metadata:
  name: auto-mode-cluster
  region: us-east-1

autoModeConfig:
  # defaults to false
  enabled: true
  # optional, defaults to [general-purpose, system].
  # To disable creation of nodePools, set it to the empty array ([]).
  nodePools: [general-purpose, system]
  # optional, eksctl creates a new role if this is not supplied
  # and nodePools are present.
#  nodeRoleARN: ""
`
	_, warns, err := compile(t, src)
	require.NoError(t, err)
	require.Empty(t, errorTexts(warns))

	// With node groups too, or Auto Mode off: no warning either way.
	for _, cfg := range []string{"autoModeConfig: {enabled: true}\n", "autoModeConfig: {enabled: true, nodePools: []}\n", "autoModeConfig: {enabled: false}\n"} {
		_, warns, err := compile(t, header+cfg+"managedNodeGroups: [{name: ng}]\n")
		require.NoError(t, err)
		require.Empty(t, warns, cfg)
	}
	_, warns, err = compile(t, header+"autoModeConfig: {enabled: false}\n")
	require.NoError(t, err)
	require.Equal(t, []string{"cluster.yaml:1: no managedNodeGroups or nodeGroups: the Cluster Autoscaler has nothing to scale"}, errorTexts(warns))
}
