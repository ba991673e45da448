package lint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A workload that needs Windows nodes is unhostable because Windows nodes
// are not simulated, and lint says that rather than proposing a toleration
// for a Linux node it still could not use.
func TestWindowsWorkloadUnhostable(t *testing.T) {
	// As in kubernetes/website content/en/examples/windows/simple-pod.yaml
	// (an IIS pod): a nodeSelector kubernetes.io/os: windows.
	_, f := oneUnhostable(t, dbOnly, deployment("iis", "500m", "      nodeSelector: {kubernetes.io/os: windows}\n"))
	require.Equal(t, "Deployment/default/iis needs Windows nodes (kubernetes.io/os), which are not simulated: its pods stay Pending", f.Message)
	require.Equal(t, "leave it out of the simulated manifests (Windows node groups and NodePools are refused too)", f.Fix)

	// Required node affinity that excludes linux in every term.
	aff := "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n              - matchExpressions: [{key: kubernetes.io/os, operator: NotIn, values: [linux]}]\n"
	_, f = oneUnhostable(t, header+"  staticNodes:\n    - {name: a, instanceType: m5.large, count: 1}\n", deployment("iis", "500m", aff))
	require.Contains(t, f.Message, "needs Windows nodes")
}
