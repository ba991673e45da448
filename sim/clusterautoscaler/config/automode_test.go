package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// eksctl's autoModeConfig.enabled: true gets one warning that Auto Mode's
// built-in NodePools are not simulated, with how to write them (before,
// autoModeConfig was accepted and ignored without a word).
func TestEksctlAutoModeWarns(t *testing.T) {
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
	require.Equal(t, []string{
		"cluster.yaml:11: autoModeConfig.enabled: EKS Auto Mode is not simulated: its built-in NodePools (general-purpose, system) launch no nodes here, so pods that only they would host stay Pending (write them as karpenter.sh/v1 NodePools with an EC2NodeClass to simulate them: on-demand, karpenter.k8s.aws/instance-category In [c, m, r], karpenter.k8s.aws/instance-generation Gt 4; general-purpose amd64; system amd64 and arm64 with the taint CriticalAddonsOnly=true:NoSchedule)",
		"cluster.yaml:2: no managedNodeGroups or nodeGroups: the Cluster Autoscaler has nothing to scale",
	}, errorTexts(warns))

	// The default pools, one pool, none, and Auto Mode off.
	for _, tc := range []struct{ cfg, want string }{
		{"autoModeConfig: {enabled: true}\n", "(general-purpose, system)"},
		{"autoModeConfig: {enabled: true, nodePools: [system]}\n", "its built-in NodePools (system)"},
		{"autoModeConfig: {enabled: true, nodePools: []}\n", "NodePools that use its eks.amazonaws.com NodeClass launch no nodes here"},
		{"autoModeConfig: {enabled: false}\n", ""},
	} {
		_, warns, err := compile(t, header+tc.cfg+"managedNodeGroups: [{name: ng}]\n")
		require.NoError(t, err)
		if tc.want == "" {
			require.Empty(t, warns, tc.cfg)
			continue
		}
		require.Len(t, warns, 1, tc.cfg)
		require.Contains(t, warns[0].Error(), tc.want)
	}
}
