package simulation_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// launchedNode is a node a run had: its type, when it joined (seconds)
// and its allocatable count of a resource.
type launchedNode struct {
	typ     string
	created float64
	alloc   int64
}

func runNodes(t *testing.T, sc *scenario.Scenario, resource string) ([]launchedNode, *report.Report) {
	t.Helper()
	var nodes []launchedNode
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		slot, ok := cl.Resources.Lookup(corev1.ResourceName(resource))
		for i := range cl.Nodes {
			n := &cl.Nodes[i]
			ln := launchedNode{typ: n.InstanceType, created: n.Launched.Seconds()}
			if ok {
				ln.alloc = n.Allocatable[slot]
			}
			nodes = append(nodes, ln)
		}
	}})
	require.NoError(t, err)
	return nodes, rep
}

// copyWith copies a testdata directory, replacing old by new in every
// file, and loads its scenario.yaml.
func copyWith(t *testing.T, dir, old, new string) *scenario.Scenario {
	t.Helper()
	out := t.TempDir()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(out, e.Name()), []byte(strings.ReplaceAll(string(b), old, new)), 0o644))
	}
	sc, err := scenario.LoadFile(filepath.Join(out, "scenario.yaml"))
	require.NoError(t, err)
	return sc
}

// The GPU time-slicing NodeOverlays of the karpenter-blueprints
// node-overlay blueprint, as published, with Karpenter's Helm-rendered
// Deployment turning the NodeOverlay gate on. The pods ask for
// nvidia.com/gpu-slice, which only the overlays give: the first four
// share one single-GPU node, as the blueprint's Test 1 shows, and every
// node launched carries the overlay's four slices per GPU.
func TestOverlayBlueprintGPUSlices(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/overlay-blueprint/scenario.yaml")
	require.NoError(t, err)
	nodes, rep := runNodes(t, sc, "nvidia.com/gpu-slice")
	cat, err := catalog.Default()
	require.NoError(t, err)
	var first []launchedNode
	for _, n := range nodes {
		it, ok := cat.Lookup(n.typ)
		require.True(t, ok, n.typ)
		gpus := it.ExtendedCount(catalog.ResourceNVIDIAGPU)
		require.Positive(t, gpus, n.typ)
		require.Equal(t, 4*gpus, n.alloc, "%s: four slices per GPU", n.typ)
		if n.created < 1800 {
			first = append(first, n)
		}
	}
	require.Len(t, first, 1, "Test 1: four replicas, one node")
	require.Zero(t, rep.Pods.PendingAtEnd)

	// The chart's default leaves the gate off: no type has the
	// resource, so nothing launches and the pods wait; the loader names
	// the gate.
	sc = copyWith(t, "testdata/overlay-blueprint", "NodeOverlay=true", "NodeOverlay=false")
	info := warningsCoded(sc, "karpenter.gate-off")
	require.Len(t, info, 1)
	require.Contains(t, info[0], "4 NodeOverlay(s), but the NodeOverlay feature gate is off")
	nodes, rep = runNodes(t, sc, "nvidia.com/gpu-slice")
	require.Empty(t, nodes)
	require.Equal(t, 17, rep.Pods.PendingAtEnd)
	// sim lint calls the Deployment unhostable and says what would fix it.
	var unhostable []string
	for _, f := range lint.Check(sc).Findings {
		if f.Kind == "unhostable" {
			unhostable = append(unhostable, f.Fix)
		}
	}
	require.Len(t, unhostable, 1)
	require.Contains(t, unhostable[0], "gives nvidia.com/gpu-slice, but the NodeOverlay feature gate is off): turn on the NodeOverlay feature gate")
}

// The blueprint's overlays targeted at NodePool/team-alpha raise the
// price Karpenter sees of generations 5 to 7 by 45, 30 and 15%: the
// blueprint expects a generation 8 node, and without the gate Karpenter
// takes the cheapest type by EC2's price, an older generation. The bill
// is EC2's price either way.
func TestOverlayBlueprintTargetedGenerations(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	gen := func(typ string) string {
		it, ok := cat.Lookup(typ)
		require.True(t, ok)
		v, _ := it.Label("karpenter.k8s.aws/instance-generation")
		return v
	}
	sc, err := scenario.LoadFile("testdata/overlay-targeted/scenario.yaml")
	require.NoError(t, err)
	on, repOn := runNodes(t, sc, "")
	require.Len(t, on, 1)
	require.Equal(t, "8", gen(on[0].typ), on[0].typ)

	off, repOff := runNodes(t, copyWith(t, "testdata/overlay-targeted", "nodeOverlay: true", "nodeOverlay: false"), "")
	require.Len(t, off, 1)
	require.NotEqual(t, "8", gen(off[0].typ), off[0].typ)
	odOn, _, _ := cat.OnDemandPrice("us-east-1", on[0].typ)
	odOff, _, _ := cat.OnDemandPrice("us-east-1", off[0].typ)
	require.Less(t, odOff, odOn, "without overlays the cheaper type by EC2's price")
	require.InDelta(t, odOn/odOff, repOn.Cost.TotalUSD/repOff.Cost.TotalUSD, 0.02, "the bill is at EC2's prices")
}

// Overlays that cannot do what they say are named before the run: one of
// the weight of another on the same offerings is never applied (upstream's
// Conflict), one matching no pool's types changes nothing (a requirement
// on a custom label that only the pool's requirements, not its template
// labels, set).
func TestOverlayFindings(t *testing.T) {
	scenarioYAML := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: findings}
spec:
  duration: 10m
  region: us-east-1
  zones: [us-east-1a]
  karpenter: {featureGates: {nodeOverlay: true}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: team, operator: In, values: [a]}
` + fixtures.EC2NodeClassDemo + `---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: savings-plan}
spec:
  weight: 10
  requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}]
  priceAdjustment: "-30%"
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: licence}
spec:
  weight: 10
  requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i, m7a]}]
  priceAdjustment: "+0.05"
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: team-a}
spec:
  requirements: [{key: team, operator: In, values: [a]}]
  priceAdjustment: "-1%"
`
	sc, err := scenario.LoadManifests("scenario.yaml", []byte(scenarioYAML), nil)
	require.NoError(t, err)
	byCode := map[string][]string{}
	for _, w := range sc.Warnings {
		byCode[w.Code] = append(byCode[w.Code], w.String())
	}
	require.Len(t, byCode["ineffective.node-overlay-conflict"], 1)
	require.Contains(t, byCode["ineffective.node-overlay-conflict"][0],
		"scenario.yaml:37: NodeOverlay/licence is never applied: it has the weight (10) of NodeOverlay/savings-plan (")
	require.Contains(t, byCode["ineffective.node-overlay-conflict"][0], "which already sets the price of m7i.")
	require.Len(t, byCode["ineffective.node-overlay-unmatched"], 1)
	require.Contains(t, byCode["ineffective.node-overlay-unmatched"][0], "NodeOverlay/team-a matches no instance type of any NodePool (default)")
	require.Len(t, byCode["karpenter.overlay-prices"], 1, "savings-plan is applied")
}

// A static pool's on-demand NodeClaim under a price overlay launches
// prioritized by the overlaid prices: the overlay's m7i.large although
// m5.large is cheaper at EC2's price; sim lint names the same type.
func TestOverlayStaticPoolLaunchAndLint(t *testing.T) {
	src := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: static-overlay}
spec:
  duration: 10m
  region: us-east-1
  zones: [us-east-1a]
  karpenter: {featureGates: {staticCapacity: true, nodeOverlay: true}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: fixed}
spec:
  replicas: 1
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m7i.large]}
` + fixtures.EC2NodeClassDemo + `---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: savings-plan}
spec:
  requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}]
  priceAdjustment: "-50%"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: w, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
`
	sc, err := scenario.LoadManifests("scenario.yaml", []byte(src), nil)
	require.NoError(t, err)
	cat, err := catalog.Default()
	require.NoError(t, err)
	m5, _, _ := cat.OnDemandPrice("us-east-1", "m5.large")
	m7i, _, _ := cat.OnDemandPrice("us-east-1", "m7i.large")
	require.Less(t, m5, m7i, "m5.large is the cheaper at EC2's price")
	require.Less(t, m7i/2, m5, "and m7i.large at the overlay's")
	nodes, rep := runNodes(t, sc, "")
	require.Len(t, nodes, 1)
	require.Equal(t, "m7i.large", nodes[0].typ)
	// The bill is EC2's; cost.overlaidUSD is the node at the overlay's
	// price, half of it.
	require.InDelta(t, m7i*10/60, rep.Cost.TotalUSD, 1e-3)
	require.InDelta(t, rep.Cost.TotalUSD/2, rep.Cost.OverlaidUSD, 1e-5)

	res := lint.Check(sc)
	var types []string
	for _, p := range res.Placements {
		for _, c := range p.Cells {
			if strings.HasPrefix(c.Source, "NodePool/fixed") {
				types = append(types, c.InstanceTypes...)
			}
		}
	}
	require.Equal(t, []string{"m7i.large"}, types)
}

// The karpenter-blueprints MIG overlays, as published: a capacity
// overlay replaces the type's own nvidia.com/gpu count (1 H100 in 4
// partitions: 4). The blueprint expects its 4 replicas on one p5.4xlarge;
// without the gate Karpenter needs 4 GPUs and takes an 8-GPU p4d.24xlarge.
func TestOverlayBlueprintMIG(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/overlay-mig/scenario.yaml")
	require.NoError(t, err)
	nodes, rep := runNodes(t, sc, "nvidia.com/gpu")
	require.Len(t, nodes, 1)
	require.Equal(t, "p5.4xlarge", nodes[0].typ)
	require.Equal(t, int64(4), nodes[0].alloc, "the overlay's 4 partitions, not the type's 1 GPU")
	require.Zero(t, rep.Pods.PendingAtEnd)

	nodes, _ = runNodes(t, copyWith(t, "testdata/overlay-mig", "nodeOverlay: true", "nodeOverlay: false"), "nvidia.com/gpu")
	require.Len(t, nodes, 1)
	require.Equal(t, "p4d.24xlarge", nodes[0].typ)
	require.Equal(t, int64(8), nodes[0].alloc)
}
