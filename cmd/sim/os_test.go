package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// eksctl's Windows example is refused by lint and run alike, at the field,
// with what to do (before: linted clean and ran its Windows group as
// Linux nodes).
func TestWindowsNodeGroupRefused(t *testing.T) {
	out, _, code := simLint(t, "-f", "testdata/os/eksctl-windows.yaml", "-o", "json")
	require.Equal(t, exitGate, code)
	require.Contains(t, out, `"message": "Windows nodes are not simulated (WindowsServer2019FullContainer): the simulator has no Windows prices, node overheads or Windows-only scheduling"`)
	require.Contains(t, out, `"path": "nodeGroups[0].amiFamily"`)
	_, stderr, code := sim(t, "run", "testdata/bad/windows-nodes.yaml")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "testdata/bad/windows-nodes.yaml:19: nodeGroups[0].amiFamily: Windows nodes are not simulated")
}

// A Karpenter tree with a Windows NodePool (Karpenter's windows-2022
// example beside its general-purpose one) runs: the Windows pool and its
// node class are skipped with a warning each, the Linux workload
// schedules, and lint and explain say that the Windows workload waits
// because Windows nodes are not simulated (before: the Windows pool was an
// error and nothing ran).
func TestKarpenterWindowsPoolSkipped(t *testing.T) {
	const file = "testdata/os/karpenter-windows.yaml"
	out, stderr, code := sim(t, "run", file)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, file+`:20: spec.template.spec.requirements[0]: Windows nodes are not simulated: kubernetes.io/os In [windows] allows Windows nodes only: NodePool "windows2022" is skipped and the rest of the cluster simulated`)
	require.Contains(t, out, file+":47: spec.amiSelectorTerms[0].alias: Windows nodes are not simulated (Windows2022)")
	require.Regexp(t, `Deployment/default/nginx-deployment\s+3\s+3\s+0\s+0\s`, out)
	require.Regexp(t, `Deployment/default/iis\s+2\s+0\s+2\s+2\s`, out)

	out, _, code = simLint(t, file, "-o", "json")
	require.Equal(t, exitGate, code)
	require.Contains(t, out, `"kind": "not-simulated"`)
	require.Contains(t, out, `"message": "Deployment/default/iis needs Windows nodes (kubernetes.io/os), which are not simulated: its pods stay Pending"`)

	out = explainOf(t, file, "iis-1")
	require.Contains(t, out, "NodePool/general-purpose (on-demand): never: the pods need Windows nodes (kubernetes.io/os), which are not simulated")
}

// eksctl's Auto Mode example runs its built-in NodePools (general-purpose,
// system) on the Karpenter model, with the info line that their price
// lacks Auto Mode's fee (before: a warning that Auto Mode was not
// simulated).
func TestAutoModeWarning(t *testing.T) {
	out, _, code := simLint(t, "-f", "testdata/os/eksctl-auto-mode.yaml", "--fail-on", "warning")
	require.Equal(t, 0, code, out)
	out = strings.ReplaceAll(out, "\n  ", " ")
	require.Contains(t, out, "2 capacity source(s)")
	require.Contains(t, out, "info     input-warning  testdata/os/eksctl-auto-mode.yaml:11: autoModeConfig.enabled EKS Auto Mode NodePools (general-purpose, system): AWS runs their Karpenter")
	require.Contains(t, out, "the simulator's price data has no such fee, so the cost of these nodes is their EC2 price only")
}
