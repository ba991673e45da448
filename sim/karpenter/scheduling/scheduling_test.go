package scheduling_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud/cloudtest"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
	"github.com/clustersim/clustersim/sim/manifest"
)

var zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// world is a cluster and a catalogue, with no controller and no engine
// run: what a standalone solve reads.
type world struct {
	t   *testing.T
	eng *engine.Engine
	cl  *cluster.Cluster
	cat *catalog.Catalog
}

func newWorld(t *testing.T) *world {
	cat, err := catalog.Default()
	require.NoError(t, err)
	eng := engine.New(1)
	return &world{t: t, eng: eng, cl: cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames()), cat: cat}
}

func (w *world) pools(yaml string) []apis.NodePool {
	docs, err := manifest.ReadBytes("pools.yaml", []byte(yaml))
	require.NoError(w.t, err)
	res, err := apis.Compile(docs, apis.Env{Syms: w.cl.Syms, Resources: w.cl.Resources, Catalog: w.cat, Zones: zones})
	require.NoError(w.t, err)
	return res.NodePools
}

// pending creates n unschedulable pods requesting cpu and mem, with a
// node selector (key=value) if sel is set.
func (w *world) pending(n int, cpu, mem string, sel map[string]string) []cluster.PodID {
	spec := corev1.PodSpec{NodeSelector: sel, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}
	cs, _, err := cluster.CompilePodSpec(w.cl.Syms, w.cl.Resources, cluster.PodSpecInput{Namespace: "default", Spec: &spec})
	require.NoError(w.t, err)
	var out []cluster.PodID
	for range n {
		id := w.cl.CreatePod(cluster.Pod{Namespace: w.cl.Syms.Intern("default"), Spec: cs})
		w.cl.MarkUnschedulable(id)
		out = append(out, id)
	}
	return out
}

// staticNode adds a Ready node of type typ that Karpenter does not own.
func (w *world) staticNode(name, typ, zone string) cluster.NodeID {
	it, ok := w.cat.Lookup(typ)
	require.True(w.t, ok)
	a := it.Allocatable(catalog.KubeletOptions{})
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Ephemeral], alloc[cluster.Pods] = a.CPUMilli, a.MemoryBytes, a.EphemeralBytes, a.Pods
	labels := cluster.CompileLabels(w.cl.Syms, map[string]string{"topology.kubernetes.io/zone": zone, "node.kubernetes.io/instance-type": typ})
	return w.cl.AddNode(cluster.Node{Name: name, Labels: labels, Allocatable: alloc, State: cluster.NodeReady, InstanceType: typ,
		Zone: w.cl.Syms.Intern(zone), Owner: cluster.OwnedByStatic, OwnerName: "static"})
}

func (w *world) scheduler(pools string) *scheduling.Scheduler {
	sc, err := scheduling.New(scheduling.Inputs{Engine: w.eng, Cluster: w.cl, Catalog: w.cat,
		Prices: cloudtest.New(w.eng, cloudtest.CatalogPrices(w.cat, "us-east-1")), Region: "us-east-1", Zones: zones,
		NodePools: w.pools(pools), Settings: apis.DefaultSettings()})
	require.NoError(w.t, err)
	return sc
}

func pool(name, weight, reqs string) string {
	return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: ` + name + `}
spec:
  weight: ` + weight + `
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
` + reqs + "---\n"
}

const (
	onDemand = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n"
	spot     = "        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n"
	m5       = "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, m5.2xlarge]}\n"
	c5       = "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5]}\n"
)

// The solve fills the existing node first (in queue order: the pods are
// alike, so by creation), then one new on-demand m5 NodeClaim takes the
// rest, its cheapest option first; no controller is built and the engine
// never runs.
func TestSolveExistingThenNewClaim(t *testing.T) {
	w := newWorld(t)
	node := w.staticNode("static-1", "m5.large", "us-east-1a")
	pods := w.pending(10, "500m", "512Mi", nil)
	res := w.scheduler(pool("od", "1", onDemand+m5)).Solve(pods)

	require.Empty(t, res.Unschedulable)
	require.Len(t, res.Existing, 1)
	require.Equal(t, node, res.Existing[0].Node)
	require.Equal(t, pods[:3], res.Existing[0].Pods, "an m5.large holds three pods of 500m")
	require.Len(t, res.NodeClaims, 1)
	nc := res.NodeClaims[0]
	require.Equal(t, "od", nc.NodePool)
	require.Equal(t, pods[3:], nc.Pods)
	require.Equal(t, []string{"m5.xlarge", "m5.2xlarge"}, nc.InstanceTypes, "m5.large cannot hold seven pods; cheapest first")
	require.Equal(t, []string{"on-demand"}, nc.CapacityTypes)
	require.Equal(t, zones, nc.Zones)
	require.Greater(t, nc.CheapestUSDPerHour, 0.0)
}

// NodePools are tried by weight: the heavier spot c5 pool takes the pods
// it can; a pod pinned to a zone gets a NodeClaim of that zone; a pod no
// instance type holds is unschedulable.
func TestSolveWeightsZonesAndFailures(t *testing.T) {
	w := newWorld(t)
	plain := w.pending(4, "1", "1Gi", nil)
	pinned := w.pending(1, "1", "1Gi", map[string]string{"topology.kubernetes.io/zone": "us-east-1b"})
	huge := w.pending(1, "1000", "1Gi", nil)
	all := append(append(append([]cluster.PodID(nil), plain...), pinned...), huge...)
	res := w.scheduler(pool("od", "1", onDemand+m5) + pool("cheap", "10", spot+c5)).Solve(all)

	require.Equal(t, huge, res.Unschedulable)
	require.Empty(t, res.Existing)
	var placed []cluster.PodID
	for _, nc := range res.NodeClaims {
		require.Equal(t, "cheap", nc.NodePool)
		require.Equal(t, []string{"spot"}, nc.CapacityTypes)
		for _, it := range nc.InstanceTypes {
			require.True(t, strings.HasPrefix(it, "c5."), it)
		}
		for _, id := range nc.Pods {
			if id == pinned[0] {
				require.Equal(t, []string{"us-east-1b"}, nc.Zones)
			}
		}
		placed = append(placed, nc.Pods...)
	}
	require.ElementsMatch(t, append(append([]cluster.PodID(nil), plain...), pinned...), placed)
}
