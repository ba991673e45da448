package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const onDemandUSEast1 = "on-demand prices are known only for us-east-1; its prices stand in for eu-west-2"

// An eksctl ClusterConfig in eu-west-2 with explicit availability zones
// (eksctl's own advanced example) lints and runs there, with one warning
// that the on-demand prices are us-east-1's.
func TestEksctlClusterInEUWest2(t *testing.T) {
	out, stderr, code := simLint(t, "-f", "testdata/regions/eksctl-eu-west-2.yaml")
	out = strings.ReplaceAll(out, "\n  ", " ") // unwrap the table's lines
	require.Equal(t, exitOK, code, out+stderr)
	require.Equal(t, 1, strings.Count(out, onDemandUSEast1), out)
	require.Contains(t, out, "testdata/regions/eksctl-eu-west-2.yaml:10: metadata.region")
	require.Contains(t, out, "Findings: 0 error(s), 0 warning(s), 3 info")
	require.Contains(t, out, "eksctl-eu-west-2.yaml:5 no Cluster Autoscaler runs", "a ClusterConfig alone installs no Cluster Autoscaler")
	require.Contains(t, out, "node group ng1-public carries the Cluster Autoscaler's discovery tags", "its autoScaler addon policy tags it for one")

	out, stderr, code = sim(t, "run", "testdata/regions/london.yaml")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, 1, strings.Count(out, onDemandUSEast1), out)
	require.Contains(t, out, "\npods scheduled                          20\n")
}

// sim lint --region lints manifests that do not say their region.
func TestLintRegionFlag(t *testing.T) {
	out, _, code := simLint(t, "-f", "testdata/regions/nodepool.yaml")
	out = strings.ReplaceAll(out, "\n  ", " ") // unwrap the table's lines
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `zone "eu-west-2a" is in eu-west-2, not in the scenario's region us-east-1: no node can be there; to simulate eu-west-2 set the Scenario's spec.region: eu-west-2 (sim lint -f: --region eu-west-2)`)

	out, _, code = simLint(t, "-f", "testdata/regions/nodepool.yaml", "--region", "eu-west-2")
	out = strings.ReplaceAll(out, "\n  ", " ")
	require.Equal(t, exitOK, code)
	require.NotContains(t, out, "no node can be there")
	require.Equal(t, 1, strings.Count(out, "--region eu-west-2: "+onDemandUSEast1), out)

	// The flag wins over the ClusterConfig's region: its zones are wrong
	// there, each said once.
	out, _, code = simLint(t, "-f", "testdata/regions/eksctl-eu-west-2.yaml", "--region", "us-east-1", "--fail-on", "error")
	out = strings.ReplaceAll(out, "\n  ", " ")
	require.Equal(t, exitGate, code, out)
	require.Contains(t, out, "Findings: 4 error(s)")
	require.Contains(t, out, "eksctl-eu-west-2.yaml:48: availabilityZones[0] eu-west-2a is a zone of eu-west-2, not of us-east-1 (whose zones are us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f) fix: use zones of us-east-1 (the scenario's region), e.g. us-east-1a, us-east-1b, us-east-1c")

	_, stderr, code := simLint(t, "-f", "testdata/regions/nodepool.yaml", "--region", "eu-west-9")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, `--region "eu-west-9": no EC2 data for it; use one of af-south-1, ap-east-1,`)

	_, stderr, code = simLint(t, "hybrid-naive", "--region", "eu-west-2")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "--region applies to -f FILE: a scenario sets its region in spec.region")
}
