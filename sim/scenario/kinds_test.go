package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	caconfig "github.com/clustersim/clustersim/sim/clusterautoscaler/config"
)

// warningsOf renders a scenario's warnings, one a line.
func warningsOf(sc *Scenario) string {
	var b strings.Builder
	for _, w := range sc.Warnings {
		b.WriteString(w.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestRealBundleSkipsKinds loads what a cluster's repository really holds:
// a Helm-rendered chart, platform objects (StorageClass, CRD, webhook,
// RBAC, ...) and kubectl get -o yaml List output. Every kind that does not
// change where pods land is skipped with one info line per kind; the
// Deployments, including the one inside the List, are read.
func TestRealBundleSkipsKinds(t *testing.T) {
	sc, err := LoadFile("testdata/bundle/scenario.yaml")
	require.NoError(t, err)
	var refs []string
	for _, w := range sc.Workloads {
		refs = append(refs, w.Ref())
	}
	require.Equal(t, []string{"Deployment/default/podinfo", "Deployment/shop/cart"}, refs, "the List's Deployment is read")

	want := map[string]string{
		"Certificate":                    "1 Certificate object(s) skipped: the simulator does not read this kind",
		"ClusterRole":                    "1 ClusterRole object(s) skipped: RBAC does not affect scheduling",
		"ClusterRoleBinding":             "1 ClusterRoleBinding object(s) skipped",
		"ConfigMap":                      "1 ConfigMap object(s) skipped",
		"CustomResourceDefinition":       "1 CustomResourceDefinition object(s) skipped",
		"Ingress":                        "1 Ingress object(s) skipped",
		"IngressClass":                   "1 IngressClass object(s) skipped",
		"LimitRange":                     "platform.yaml:71: 1 LimitRange object(s) skipped: LimitRange defaults are not applied",
		"NetworkPolicy":                  "1 NetworkPolicy object(s) skipped",
		"PrometheusRule":                 "1 PrometheusRule object(s) skipped",
		"Secret":                         "1 Secret object(s) skipped",
		"Service":                        "podinfo.yaml:34: 2 Service object(s) skipped (also in testdata/bundle/kubectl-get.yaml): services do not affect scheduling",
		"ServiceAccount":                 "1 ServiceAccount object(s) skipped",
		"ServiceMonitor":                 "1 ServiceMonitor object(s) skipped: monitoring configuration does not affect scheduling",
		"ValidatingWebhookConfiguration": "1 ValidatingWebhookConfiguration object(s) skipped: admission webhooks and policies are not run",
	}
	// The storage kinds are read: the EBS volume without a zone and the
	// claim without a class (and no default class) are warned about.
	var notes []Warning
	var problems []string
	for _, w := range sc.Warnings {
		if w.Info {
			notes = append(notes, w)
		} else {
			problems = append(problems, w.String())
		}
	}
	require.Equal(t, []string{
		"testdata/bundle/platform.yaml:18: spec.nodeAffinity: an EBS volume without node affinity or zone label: the simulator lets it attach in every zone (EBS volumes live in one; add its zone)",
		"testdata/bundle/podinfo.yaml:29: spec.storageClassName: no storageClassName and no default StorageClass (annotation storageclass.kubernetes.io/is-default-class: \"true\"): the claim stays unbound and its pods Pending",
	}, problems)
	require.Len(t, notes, len(want), "one line per kind, nothing else:\n%s", warningsOf(sc))
	require.Len(t, sc.Storage.Classes, 1)
	require.Equal(t, cluster.WaitForFirstConsumer, sc.Storage.Classes[0].Mode)
	all := warningsOf(sc)
	for kind, line := range want {
		require.Contains(t, all, line, kind)
	}
}

// TestNearMissKindIsAnError: a kind one or two letters from one we read is
// a typo, never skipped; the hint names every kind we read.
func TestNearMissKindIsAnError(t *testing.T) {
	for _, kind := range []string{"Deploymnet", "Nodepool", "EC2NodeClas", "Clusterconfig"} {
		fsys := fstest.MapFS{"s.yaml": {Data: []byte(minimal + "---\napiVersion: x/v1\nkind: " + kind + "\nmetadata: {name: x}\n")}}
		_, err := LoadFS(fsys, "s.yaml")
		require.Error(t, err, kind)
		require.Contains(t, err.Error(), "unknown kind", kind)
		require.Contains(t, err.Error(), "supported kinds: AWSNodeTemplate, CapacityBuffer, ClusterConfig, CronJob, DaemonSet, Deployment, EC2NodeClass")
	}
	// A kind far from any we read is skipped.
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(minimal + "---\napiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: x}\n")}}
	sc, err := LoadFS(fsys, "s.yaml")
	require.NoError(t, err)
	require.Contains(t, warningsOf(sc), "1 Rollout object(s) skipped: the simulator does not read this kind: whatever its controller would create is not simulated")
}

// TestAutoscalerDeploymentConfiguresCA: the Cluster Autoscaler's own
// Deployment (the AWS autodiscover example) gives the simulated Cluster
// Autoscaler its flags and is not a workload.
func TestAutoscalerDeploymentConfiguresCA(t *testing.T) {
	sc, err := LoadFile("testdata/ca-deployment/scenario.yaml")
	require.NoError(t, err)
	require.Empty(t, sc.Workloads, "the Cluster Autoscaler is not simulated as a workload")
	o := caConfig(sc).Settings.Options
	require.Equal(t, []string{"least-waste"}, o.Expanders)
	require.True(t, o.BalanceSimilarNodeGroups)
	require.False(t, o.SkipNodesWithSystemPods)
	require.False(t, o.SkipNodesWithLocalStorage)
	require.Equal(t, []map[string]string{{"k8s.io/cluster-autoscaler/enabled": "", "k8s.io/cluster-autoscaler/demo": ""}}, o.AutoDiscovery)
	sel := caconfig.Select(caConfig(sc).NodeGroups, &caConfig(sc).Settings)
	require.Len(t, sel, 2)
	require.True(t, sel[0].Autoscaled, "the tagged managed node group is discovered")
	require.False(t, sel[1].Autoscaled, "the untagged one is not")
	all := warningsOf(sc)
	require.Contains(t, all, "cluster-autoscaler-autodiscover.yaml:25: Deployment/kube-system/cluster-autoscaler runs the Cluster Autoscaler (image registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0): it is not simulated as a workload; its 8 flag(s) configure the simulated Cluster Autoscaler (the scenario does not set spec.clusterAutoscaler.args)")
	require.Contains(t, all, "cluster-autoscaler-autodiscover.yaml:62: spec.template.spec.containers[0].command[1]: --v, --stderrthreshold: no effect in the simulation: logging, metrics, events and profiling")
	require.NotContains(t, all, "neither --nodes nor --node-group-auto-discovery")

	// The scenario's own args win; the Deployment is still not a workload.
	dir := t.TempDir()
	for _, f := range []string{"cluster.yaml", "cluster-autoscaler-autodiscover.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata/ca-deployment", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	b, err := os.ReadFile("testdata/ca-deployment/scenario.yaml")
	require.NoError(t, err)
	own := string(b) + "  clusterAutoscaler:\n    args: [--expander=most-pods, --nodes=1:5:general]\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(own), 0o644))
	sc, err = LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	require.Empty(t, sc.Workloads)
	require.Equal(t, []string{"most-pods"}, caConfig(sc).Settings.Expanders)
	require.False(t, caConfig(sc).Settings.BalanceSimilarNodeGroups)
	require.Contains(t, warningsOf(sc), "its flags are not read, because the scenario's spec.clusterAutoscaler.args sets them")
}

// A Cluster Autoscaler Deployment scaled to zero runs nothing: its node
// groups are plain ASGs, and the info line says why.
func TestAutoscalerDeploymentScaledToZero(t *testing.T) {
	require.Contains(t, warningsOf(mustLoad(t, "testdata/ca-deployment/scenario.yaml")), "a Cluster Autoscaler runs (Deployment/kube-system/cluster-autoscaler (testdata/ca-deployment/cluster-autoscaler-autodiscover.yaml:25)): it autoscales node group(s) general")
	dir := copyCADeployment(t, func(f string, b []byte) []byte {
		if f != "cluster-autoscaler-autodiscover.yaml" {
			return b
		}
		return bytes.Replace(b, []byte("  replicas: 1"), []byte("  replicas: 0"), 1)
	})
	sc := mustLoad(t, filepath.Join(dir, "scenario.yaml"))
	cfg := caConfig(sc)
	require.False(t, cfg.Settings.Running)
	for _, s := range caconfig.Select(cfg.NodeGroups, &cfg.Settings) {
		require.False(t, s.Autoscaled)
	}
	require.Contains(t, warningsOf(sc), "cluster-autoscaler-autodiscover.yaml:25), which would run it, has spec.replicas 0): node group(s) fixed, general keep their desired capacity")
}

func mustLoad(t *testing.T, path string) *Scenario {
	t.Helper()
	sc, err := LoadFile(path)
	require.NoError(t, err)
	return sc
}

// TestAutoscalerDeploymentBadFlag: a wrong flag in the Deployment is an
// error at its command entry.
func TestAutoscalerDeploymentBadFlag(t *testing.T) {
	dir := copyCADeployment(t, func(f string, b []byte) []byte {
		if f != "cluster-autoscaler-autodiscover.yaml" {
			return b
		}
		return bytes.Replace(b, []byte("--expander=least-waste"), []byte("--expandr=least-waste"), 1)
	})
	_, err := LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "cluster-autoscaler-autodiscover.yaml:66: spec.template.spec.containers[0].command[5]: unknown Cluster Autoscaler flag --expandr; did you mean --expander?")
}

// copyCADeployment copies testdata/ca-deployment to a temporary folder,
// each file as edit makes it, and returns the folder.
func copyCADeployment(t *testing.T, edit func(f string, b []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"cluster.yaml", "cluster-autoscaler-autodiscover.yaml", "scenario.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata/ca-deployment", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), edit(f, b), 0o644))
	}
	return dir
}

// TestIdenticalCopyReadOnce: Karpenter's examples each carry the same
// EC2NodeClass "default"; applied together it is one object (info), as in
// sim lint. A different object under the same name stays an error.
func TestIdenticalCopyReadOnce(t *testing.T) {
	sc, err := LoadFile("testdata/examples/scenario.yaml")
	require.NoError(t, err)
	require.Len(t, kpConfig(sc).NodePools, 2)
	require.Len(t, sc.Warnings, 1)
	require.True(t, sc.Warnings[0].Info)
	require.Equal(t, "testdata/examples/general-purpose.yaml:34: EC2NodeClass/default is an identical copy of the one at testdata/examples/spot.yaml:34: read once", sc.Warnings[0].String())

	b, err := os.ReadFile("testdata/examples/general-purpose.yaml")
	require.NoError(t, err)
	fsys := fstest.MapFS{
		"s.yaml": {Data: []byte(minimal + "  include: [a.yaml, b.yaml]\n")},
		"a.yaml": {Data: b},
		"b.yaml": {Data: []byte(strings.Replace(strings.Replace(string(b), "al2023@latest", "bottlerocket@latest", 1), "general-purpose", "other", 1))},
	}
	_, err = LoadFS(fsys, "s.yaml")
	require.Error(t, err)
	require.Contains(t, err.Error(), `a second EC2NodeClass named "default"`)
}

// TestOverrideNodePoolReplacesProvisioner: the migration comparison, a
// karpenter.sh/v1 NodePool replacing the legacy Provisioner of its name.
func TestOverrideNodePoolReplacesProvisioner(t *testing.T) {
	sc, err := LoadFile("testdata/migration/scenario.yaml", "testdata/migration/v1.yaml")
	require.NoError(t, err)
	require.Len(t, kpConfig(sc).NodePools, 1)
	require.Equal(t, "karpenter.sh/v1 NodePool", kpConfig(sc).NodePools[0].Source)
	require.Contains(t, warningsOf(sc), "testdata/migration/v1.yaml:1: NodePool/default replaces the karpenter.sh/v1alpha5 Provisioner at testdata/migration/scenario.yaml:7")
}

// TestAutoscalerDeploymentIsNoWorkload: a spec.workloads entry for the
// Cluster Autoscaler's Deployment says why there is no such workload.
func TestAutoscalerDeploymentIsNoWorkload(t *testing.T) {
	dir := copyCADeployment(t, func(f string, b []byte) []byte {
		if f == "scenario.yaml" {
			b = append(b, "  workloads:\n    - {ref: Deployment/kube-system/cluster-autoscaler, replicas: [{at: 0s, count: 1}]}\n"...)
		}
		return b
	})
	_, err := LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "scenario.yaml:11: spec.workloads[0].ref: Deployment/kube-system/cluster-autoscaler runs the Cluster Autoscaler (")
	require.Contains(t, err.Error(), "it configures the simulated Cluster Autoscaler and is not simulated as a workload; remove this entry")
}

// TestDRAClaimsWarn: Dynamic Resource Allocation is not modelled. Pods
// that claim a device (the Kubernetes docs' example) load with a warning
// that says their claims are ignored and what to write instead, and the
// DRA kinds are skipped with the same reason.
func TestDRAClaimsWarn(t *testing.T) {
	sc, err := LoadFile("testdata/dra/scenario.yaml")
	require.NoError(t, err)
	require.Len(t, sc.Workloads, 1)
	var claims []Warning
	for _, w := range sc.Warnings {
		if w.Code == cluster.CodeResourceClaims {
			claims = append(claims, w)
		}
	}
	require.Len(t, claims, 1, warningsOf(sc))
	require.Contains(t, claims[0].String(), "dra.yaml:41: spec.template.spec: resourceClaims: Dynamic Resource Allocation is not modelled: the pod's 1 claim(s)")
	require.Contains(t, claims[0].String(), "request it as an extended resource in resources.requests (e.g. nvidia.com/gpu: 1)")
	all := warningsOf(sc)
	for _, kind := range []string{"DeviceClass", "ResourceClaimTemplate"} {
		require.Contains(t, all, "1 "+kind+" object(s) skipped: Dynamic Resource Allocation is not modelled")
	}
}
