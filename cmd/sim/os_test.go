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
