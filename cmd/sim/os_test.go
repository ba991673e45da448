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
	require.Contains(t, stderr, "testdata/bad/windows-nodes.yaml:17: nodeGroups[0].amiFamily: Windows nodes are not simulated")
}

// eksctl's Auto Mode example gets a warning that the built-in NodePools
// are not simulated (before: nothing).
func TestAutoModeWarning(t *testing.T) {
	out, _, code := simLint(t, "-f", "testdata/os/eksctl-auto-mode.yaml", "--fail-on", "warning")
	require.Equal(t, exitGate, code, out)
	out = strings.ReplaceAll(out, "\n  ", " ")
	require.Contains(t, out, "warning  ineffective-setting  testdata/os/eksctl-auto-mode.yaml:11: autoModeConfig.enabled EKS Auto Mode is not simulated: its built-in NodePools (general-purpose, system) launch no nodes here")
	require.Contains(t, out, "fix: write them as karpenter.sh/v1 NodePools with an EC2NodeClass to simulate them")
}
