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
	require.Equal(t, "leave it out of the simulated manifests (Windows NodePools and node classes are skipped with a warning; Windows node groups are refused)", f.Fix)

	// Required node affinity that excludes linux in every term.
	aff := "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n              - matchExpressions: [{key: kubernetes.io/os, operator: NotIn, values: [linux]}]\n"
	_, f = oneUnhostable(t, header+"  staticNodes:\n    - {name: a, instanceType: m5.large, count: 1}\n", deployment("iis", "500m", aff))
	require.Contains(t, f.Message, "needs Windows nodes")
}

// A Windows NodePool beside a Linux one (aws/karpenter-provider-aws
// examples/v1/windows-2022.yaml's requirement) is a not-simulated warning,
// and the Windows workload's cells say the OS is why, not the Linux
// pool's requirement: the rest of the cluster is still linted.
func TestWindowsNodePoolSkipped(t *testing.T) {
	windows := nodePool("windows2022", "{}", "      requirements:\n        - {key: kubernetes.io/os, operator: In, values: [windows]}\n", "")
	linux := nodePool("general-purpose", "{}", "      requirements:\n        - {key: kubernetes.io/os, operator: In, values: [linux]}\n", "")
	r, f := oneUnhostable(t, header, windows, linux, nodeClass,
		deployment("iis", "500m", "      nodeSelector: {kubernetes.io/os: windows}\n"), deployment("web", "500m", ""))
	require.Contains(t, f.Message, "needs Windows nodes")
	skipped := findingsOf(r, KindNotSimulated)
	require.Len(t, skipped, 1)
	require.Equal(t, Warning, skipped[0].Severity)
	require.Equal(t, "spec.template.spec.requirements[0]", skipped[0].Path)
	require.Contains(t, skipped[0].Message, `NodePool "windows2022" is skipped and the rest of the cluster simulated`)
	for _, s := range r.Sources {
		require.Equal(t, "general-purpose", s.Name, "the Windows pool is no capacity source")
	}
	cl := cellOf(t, r, "Deployment/default/iis", "", "NodePool/general-purpose (on-demand)")
	require.False(t, cl.CanLand)
	require.Equal(t, "the pods need Windows nodes (kubernetes.io/os), which are not simulated: every simulated node is Linux (Windows NodePools are skipped)", cl.Reason)
	require.True(t, cellOf(t, r, "Deployment/default/web", "", "NodePool/general-purpose (on-demand)").Provisions)
}
