package simulation_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// staticGPUNodes runs a scenario and returns the instance type and
// capacity type of every node NodePool/gpu-static ever had.
func staticGPUNodes(t *testing.T, sc *scenario.Scenario) ([]string, karpenter.Stats) {
	t.Helper()
	var nodes []string
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		for i := range cl.Nodes {
			if n := &cl.Nodes[i]; n.OwnerName == "gpu-static" {
				nodes = append(nodes, n.InstanceType+" "+n.CapacityType.String())
			}
		}
	}})
	require.NoError(t, err)
	f, ok := rep.Figures("karpenter")
	require.True(t, ok)
	return nodes, f.(karpenter.Stats)
}

// The static GPU NodePool of aws-samples/karpenter-blueprints, as
// published, with Karpenter's Helm-rendered Deployment turning the
// StaticCapacity gate on: one g6e.8xlarge kept from the start, whatever
// the pods. Spot g6e is scarce, so the launch falls back to on-demand (the
// pool allows both) at once; the second GPU replica waits, as Karpenter
// provisions for pods from dynamic pools only.
func TestStaticBlueprintNodePool(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/static-blueprint/scenario.yaml")
	require.NoError(t, err)
	nodes, st := staticGPUNodes(t, sc)
	require.Len(t, nodes, 1)
	require.True(t, strings.HasPrefix(nodes[0], "g6e.8xlarge "), nodes[0])
	require.Equal(t, int64(1), st.NodeClaimsLaunched)
	require.Len(t, st.NodePools, 1)

	// The same with the gate off, as the chart's default: nothing, and
	// the loader says which gate.
	dir := t.TempDir()
	for _, f := range []string{"static-nodepool.yaml", "static-nodeclass.yaml", "karpenter.yaml", "inference.yaml", "scenario.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata/static-blueprint", f))
		require.NoError(t, err)
		b = []byte(strings.Replace(string(b), "StaticCapacity=true", "StaticCapacity=false", 1))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	sc, err = scenario.LoadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	info := warningsCoded(sc, "karpenter.gate-off")
	require.Len(t, info, 1)
	require.Contains(t, info[0], "StaticCapacity feature gate is off")
	nodes, _ = staticGPUNodes(t, sc)
	require.Empty(t, nodes)
}

// warningsCoded are the messages of the scenario's warnings with code.
func warningsCoded(sc *scenario.Scenario, code string) []string {
	var out []string
	for _, w := range sc.Warnings {
		if w.Code == code {
			out = append(out, w.Msg)
		}
	}
	return out
}

// spec.karpenter.scale names a static pool, a time and a count; anything
// else is an error at its field.
func TestStaticScaleErrors(t *testing.T) {
	for scale, want := range map[string]string{
		"{nodePool: nope, at: 1h, replicas: 2}":         `scenario.yaml:11: spec.karpenter.scale[0].nodePool: no NodePool "nope"`,
		"{nodePool: gpu-static, at: soon, replicas: 2}": `spec.karpenter.scale[0].at: "soon"`,
		"{nodePool: gpu-static, at: 1h}":                "spec.karpenter.scale[0].replicas: replicas must be given and not negative",
	} {
		dir := t.TempDir()
		for _, f := range []string{"static-nodepool.yaml", "static-nodeclass.yaml", "karpenter.yaml", "inference.yaml", "scenario.yaml"} {
			b, err := os.ReadFile(filepath.Join("testdata/static-blueprint", f))
			require.NoError(t, err)
			if f == "scenario.yaml" {
				b = append(b, []byte("  karpenter:\n    scale:\n      - "+scale+"\n")...)
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
		}
		_, err := scenario.LoadFile(filepath.Join(dir, "scenario.yaml"))
		require.Error(t, err, scale)
		require.Contains(t, err.Error(), want)
	}
}

// A static pool at limits.nodes = replicas can stage no drift
// replacement: the loader says so and names both fixes, unless the
// TerminateFirstDrift gate is on (in spec.karpenter or in Karpenter's own
// FEATURE_GATES), with which drifted nodes are deleted first.
func TestStaticNodeLimitAndTerminateFirstDrift(t *testing.T) {
	load := func(gates, deployment string) []string {
		t.Helper()
		src := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: limit}
spec:
  duration: 10m
  region: us-east-1
  zones: [us-east-1a]
  karpenter: {featureGates: {staticCapacity: true` + gates + `}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: fixed}
spec:
  replicas: 3
  limits: {nodes: 3}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
` + fixtures.EC2NodeClassDemo + deployment
		sc, err := scenario.LoadManifests("scenario.yaml", []byte(src), nil)
		require.NoError(t, err)
		return warningsCoded(sc, "ineffective.static-node-limit")
	}
	w := load("", "")
	require.Len(t, w, 1)
	require.Contains(t, w[0], "keeps 3 nodes and limits.nodes is 3 too: a drifted node is never replaced")
	require.Empty(t, load(", terminateFirstDrift: true", ""))
	dep := `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: karpenter, namespace: kube-system}
spec:
  selector: {matchLabels: {app: karpenter}}
  template:
    metadata: {labels: {app: karpenter}}
    spec:
      containers:
        - name: controller
          image: public.ecr.aws/karpenter/controller:1.15.0
          env:
            - {name: FEATURE_GATES, value: "StaticCapacity=true,TerminateFirstDrift=true"}
`
	require.Empty(t, load("", dep), "the gate from Karpenter's Deployment")
}
