package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Real manifests as users hold them (issue 18): sim run and sim lint read
// them alike.

const (
	bundle       = "../../sim/scenario/testdata/bundle/scenario.yaml"
	examplesDir  = "../../sim/scenario/testdata/examples/"
	caDeployment = "../../sim/scenario/testdata/ca-deployment/"
)

// TestRealBundleRunsAndLints: a Helm-rendered chart with its StorageClass,
// CRD, webhook, RBAC and kubectl List output runs, each skipped kind one
// line of the report's warnings; lint says the same at severity info.
func TestRealBundleRunsAndLints(t *testing.T) {
	out, stderr, code := sim(t, "run", bundle)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "/bundle/platform.yaml:7: 1 StorageClass object(s) skipped: volumes are not modelled")
	require.Contains(t, out, "/bundle/podinfo.yaml:81: 1 ServiceMonitor object(s) skipped: monitoring configuration does not affect scheduling")
	_, stderr, code = sim(t, "run", bundle, "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "info: ../../sim/scenario/testdata/bundle/platform.yaml:23: 1 CustomResourceDefinition object(s) skipped")

	out, stderr, code = simLint(t, bundle)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "Findings: 0 error(s), 0 warning(s), 18 info")
	require.Contains(t, out, "info     input-warning  ../../sim/scenario/testdata/bundle/platform.yaml:37\n  1 ValidatingWebhookConfiguration object(s) skipped")
}

// TestLintSeveralFilesAfterOneFlag: -f a.yaml b.yaml, as with a shell glob;
// Karpenter's examples repeat the EC2NodeClass "default", an info in lint
// as in run.
func TestLintSeveralFilesAfterOneFlag(t *testing.T) {
	spot, gp := examplesDir+"spot.yaml", examplesDir+"general-purpose.yaml"
	out, stderr, code := simLint(t, "-f", spot, gp)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "Scenario "+spot+" "+gp)
	require.Contains(t, out, "info     input-warning  "+gp+":34\n  EC2NodeClass/default is an identical copy of the one at\n  "+spot+":34: read once")
	_, stderr, code = sim(t, "run", examplesDir+"scenario.yaml")
	require.Equal(t, exitOK, code, stderr)
}

// TestLintUsesAutoscalerDeployment: with the Cluster Autoscaler's own
// Deployment among the files, lint -f judges the node groups with its real
// flags (auto-discovery finds only the tagged group).
func TestLintUsesAutoscalerDeployment(t *testing.T) {
	out, stderr, code := simLint(t, "-f", caDeployment+"cluster.yaml", caDeployment+"cluster-autoscaler-autodiscover.yaml")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "Deployment/kube-system/cluster-autoscaler runs the Cluster Autoscaler")
	require.Contains(t, out, "node group fixed is not autoscaled")
	require.NotContains(t, out, "neither --nodes nor --node-group-auto-discovery")
	require.NotContains(t, "\n"+out, "\nDeployment/kube-system/cluster-autoscaler ", "not a workload row")
}

// TestCompareMigration: sim compare base.yaml base.yaml+v1-nodepool.yaml,
// the v1 NodePool replacing the legacy Provisioner of its name.
func TestCompareMigration(t *testing.T) {
	base := filepath.Join("testdata", "migrate", "base.yaml")
	override := filepath.Join("testdata", "migrate", "v1-nodepool.yaml")
	out, stderr, code := sim(t, "compare", base, base+"+"+override, "--runs", "2")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "karpenter.nodeClaimsLaunched")
}

// TestLintV1beta1Provisioner: there never was a karpenter.sh/v1beta1
// Provisioner (the API server answers "no matches for kind"): an error
// finding with the fix, so lint exits 2.
func TestLintV1beta1Provisioner(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "provisioner.yaml")
	require.NoError(t, os.WriteFile(p, []byte(`# A v1alpha5 Provisioner given v1beta1's apiVersion, as in a half-done migration.
apiVersion: karpenter.sh/v1beta1
kind: Provisioner
metadata: {name: default}
spec:
  requirements:
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  ttlSecondsAfterEmpty: 30
`), 0o644))
	out, stderr, code := simLint(t, "-f", p)
	require.Equal(t, exitGate, code, stderr)
	require.Contains(t, out, "error    obsolete-setting  "+p+":3: kind\n  there is no karpenter.sh/v1beta1 Provisioner")
	require.Contains(t, out, "fix: write it as apiVersion: karpenter.sh/v1, kind: NodePool")
}
