package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// copyKarpenterDeployment copies testdata/karpenter-deployment to a
// temporary folder, each file as edit makes it, and returns the folder.
func copyKarpenterDeployment(t *testing.T, edit func(f string, b []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"nodepool.yaml", "karpenter.yaml", "scenario.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata/karpenter-deployment", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), edit(f, b), 0o644))
	}
	return dir
}

// Karpenter's own Deployment, as its Helm chart renders it, configures the
// simulated Karpenter from its environment (KC and KA
// pkg/operator/options) and is not a workload: before, its pods were
// simulated and INTERRUPTION_QUEUE went unread, so a spot reclaim drained
// nothing.
func TestKarpenterDeploymentConfiguresKarpenter(t *testing.T) {
	sc, err := LoadFile("testdata/karpenter-deployment/scenario.yaml")
	require.NoError(t, err)
	require.Empty(t, sc.Workloads, "Karpenter's controller is not simulated as a workload")
	s := kpConfig(sc).Settings
	require.Equal(t, 30*time.Second, s.BatchMaxDuration)
	require.Equal(t, time.Second, s.BatchIdleDuration)
	require.True(t, s.InterruptionQueue, "INTERRUPTION_QUEUE names a queue")
	require.True(t, s.SpotToSpotConsolidation)
	require.InDelta(t, 0.075, s.VMMemoryOverheadPercent, 1e-12)
	all := warningsOf(sc)
	require.Contains(t, all, "karpenter.yaml:7: Deployment/kube-system/karpenter runs Karpenter's controller: it is not simulated as a workload; these settings come from it: batchIdleDuration (BATCH_IDLE_DURATION, line 59), batchMaxDuration (BATCH_MAX_DURATION, line 57), featureGates (FEATURE_GATES, line 55), interruptionQueue (INTERRUPTION_QUEUE, line 71), minValuesPolicy (MIN_VALUES_POLICY, line 63), preferencePolicy (PREFERENCE_POLICY, line 61), vmMemoryOverheadPercent (VM_MEMORY_OVERHEAD_PERCENT, line 69) (spec.karpenter overrides any of them)")
	require.NotContains(t, all, "unhostable")
	require.NotContains(t, all, "ABCDEF0123456789", "the cluster's endpoint is not echoed")

	// spec.karpenter wins over the Deployment.
	dir := copyKarpenterDeployment(t, func(f string, b []byte) []byte {
		if f == "scenario.yaml" {
			return append(b, []byte("  karpenter:\n    batchMaxDuration: 5s\n    interruptionQueue: false\n")...)
		}
		return b
	})
	sc, err = LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	s = kpConfig(sc).Settings
	require.Equal(t, 5*time.Second, s.BatchMaxDuration)
	require.False(t, s.InterruptionQueue)
	require.True(t, s.SpotToSpotConsolidation, "a setting the scenario leaves unset still comes from the Deployment")
	require.Contains(t, warningsOf(sc), "; spec.karpenter overrides its batchMaxDuration (BATCH_MAX_DURATION, line 57), interruptionQueue (INTERRUPTION_QUEUE, line 71)")
}

// A setting the simulation cannot read (from a ConfigMap or Secret), a gate
// it does not model, and a wrong value: a warning, a warning, an error at
// the env entry.
func TestKarpenterDeploymentFindings(t *testing.T) {
	dir := copyKarpenterDeployment(t, func(f string, b []byte) []byte {
		if f != "karpenter.yaml" {
			return b
		}
		s := string(b)
		s = strings.Replace(s, "            - name: INTERRUPTION_QUEUE\n              value: \"demo\"",
			"            - name: INTERRUPTION_QUEUE\n              valueFrom: {configMapKeyRef: {name: karpenter-settings, key: queue}}", 1)
		s = strings.Replace(s, "NodeRepair=false", "NodeRepair=true,PodDeletionCostManagement=true", 1)
		return []byte(s)
	})
	sc, err := LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	require.False(t, kpConfig(sc).Settings.InterruptionQueue, "the default applies")
	all := warningsOf(sc)
	require.Contains(t, all, "INTERRUPTION_QUEUE comes from a ConfigMap, Secret or field the simulation cannot read: its default applies (give it in spec.karpenter instead)")
	require.Contains(t, all, "feature gate PodDeletionCostManagement=true: Karpenter's management of pod-deletion-cost is not simulated")
	require.NotContains(t, all, "feature gate NodeRepair=true", "NodeRepair is simulated")
	require.True(t, kpConfig(sc).Settings.NodeRepair, "FEATURE_GATES=NodeRepair=true turns repair on")

	dir = copyKarpenterDeployment(t, func(f string, b []byte) []byte {
		if f != "karpenter.yaml" {
			return b
		}
		return []byte(strings.Replace(string(b), `value: "30s"`, `value: "30 seconds"`, 1))
	})
	_, err = LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.Error(t, err)
	require.Regexp(t, `karpenter\.yaml:\d+: spec\.template\.spec\.containers\[0\]\.env\[\d+\]\.value: "30 seconds"`, err.Error())
}

// A rendering of the chart that we did not write (karpenter-1.0.1, from
// a public repository): its settings are read, its controller is not a
// workload, and without INTERRUPTION_QUEUE interruption handling is off.
func TestKarpenterDeploymentRealChart(t *testing.T) {
	sc, err := LoadFile("testdata/karpenter-deployment-1.0.1/scenario.yaml")
	require.NoError(t, err)
	require.Empty(t, sc.Workloads)
	s := kpConfig(sc).Settings
	require.Equal(t, 10*time.Second, s.BatchMaxDuration)
	require.Equal(t, time.Second, s.BatchIdleDuration)
	require.False(t, s.SpotToSpotConsolidation)
	require.False(t, s.InterruptionQueue)
	all := warningsOf(sc)
	require.Contains(t, all, "these settings come from it: batchIdleDuration (BATCH_IDLE_DURATION, line 85), batchMaxDuration (BATCH_MAX_DURATION, line 83), featureGates (FEATURE_GATES, line 81), vmMemoryOverheadPercent (VM_MEMORY_OVERHEAD_PERCENT, line 89)")
	require.NotContains(t, all, "app-eks-cluster")
}

// FEATURE_GATES in Karpenter's Deployment turns the CapacityBuffer gate
// on (Helm: settings.featureGates.capacityBuffer renders it); without it
// the gate keeps its default, off.
func TestKarpenterDeploymentCapacityBufferGate(t *testing.T) {
	sc, err := LoadFile("testdata/karpenter-deployment/scenario.yaml")
	require.NoError(t, err)
	require.False(t, kpConfig(sc).Settings.CapacityBuffer, "off by default")
	dir := copyKarpenterDeployment(t, func(f string, b []byte) []byte {
		if f == "karpenter.yaml" {
			return []byte(strings.Replace(string(b), "StaticCapacity=false", "StaticCapacity=false,CapacityBuffer=true", 1))
		}
		return b
	})
	sc, err = LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	require.True(t, kpConfig(sc).Settings.CapacityBuffer)
	require.NotContains(t, warningsOf(sc), "CapacityBuffer=true", "the gate is modelled: no not-modelled warning")
}
