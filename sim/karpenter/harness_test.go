package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud/cloudtest"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scheduler"
	"github.com/clustersim/clustersim/sim/workload"
)

var testZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// harness is an engine, a cluster, the scheduler, kubelets, the eviction
// API, workload controllers and Karpenter.
type harness struct {
	t     testing.TB
	eng   *engine.Engine
	cl    *cluster.Cluster
	cat   *catalog.Catalog
	cloud *cloudtest.Cloud
	ev    *eviction.Evictor
	k     *Karpenter
	specs []workload.Spec
	ctrls *workload.Controllers
	pdbs  []cluster.PDB
	// settings, when set, replace the default settings.
	settings *apis.Settings
	// buffers are the CapacityBuffers (with settings' gate on).
	buffers []capacitybuffer.Buffer
}

// newHarness makes the harness; benchmarks pass their *testing.B.
func newHarness(t testing.TB) *harness {
	t.Helper()
	cat, err := catalog.Default()
	require.NoError(t, err)
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	h := &harness{t: t, eng: eng, cl: cl, cat: cat, cloud: cloudtest.New(eng, cloudtest.CatalogPrices(cat, "us-east-1"))}
	h.cloud.ReadyAfter = 40 * time.Second
	return h
}

// pools compiles NodePool manifests.
func (h *harness) pools(yaml string) []NodePool {
	h.t.Helper()
	docs, err := manifest.ReadBytes("pools.yaml", []byte(yaml))
	require.NoError(h.t, err)
	res, err := apis.Compile(docs, apis.Env{Syms: h.cl.Syms, Resources: h.cl.Resources, Catalog: h.cat, Zones: testZones})
	require.NoError(h.t, err)
	return res.NodePools
}

// start builds the models with the NodePools of poolsYAML and the
// default settings; call after adding workloads and static nodes.
func (h *harness) start(poolsYAML string) {
	h.t.Helper()
	pools := h.pools(poolsYAML)
	_, err := scheduler.New(h.eng, h.cl, scheduler.Config{PDBs: h.pdbs})
	require.NoError(h.t, err)
	kubelet.New(h.eng, h.cl, 2*time.Second)
	h.ev = eviction.New(h.eng, h.cl, h.pdbs)
	settings := apis.DefaultSettings()
	if h.settings != nil {
		settings = *h.settings
	}
	h.k, err = New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: h.ev},
		Config{Region: "us-east-1", Zones: testZones, NodePools: pools, Settings: settings, CapacityBuffers: h.buffers})
	require.NoError(h.t, err)
	h.ctrls = workload.New(h.eng, h.cl, h.specs)
	h.cl.SetScaleSource(h.ctrls.ScaleOf)
}

// deploy adds a Deployment with replica steps (at, count, at, count...).
func (h *harness) deploy(name string, spec *cluster.PodSpec, steps ...any) {
	var st []workload.Step
	for i := 0; i+1 < len(steps); i += 2 {
		st = append(st, workload.Step{At: steps[i].(time.Duration), Count: int32(steps[i+1].(int))})
	}
	h.specs = append(h.specs, workload.Spec{Kind: workload.Deployment, Namespace: "default", Name: name, Pod: spec,
		Replicas: workload.ReplicaPlan{Steps: st}, TwinOf: -1})
}

// startWeb makes a harness with n web pods of 500m and 512Mi deployed at
// once and starts the models with the NodePools of poolsYAML.
func startWeb(t *testing.T, n int, poolsYAML string) *harness {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), n)
	h.start(poolsYAML)
	return h
}

// staticNode adds a Ready node Karpenter does not own.
func (h *harness) staticNode(name, typ, zone string) cluster.NodeID {
	it, ok := h.cat.Lookup(typ)
	require.True(h.t, ok)
	a := it.Allocatable(catalog.KubeletOptions{})
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Ephemeral], alloc[cluster.Pods] = a.CPUMilli, a.MemoryBytes, a.EphemeralBytes, a.Pods
	labels := cluster.CompileLabels(h.cl.Syms, map[string]string{"topology.kubernetes.io/zone": zone, "node.kubernetes.io/instance-type": typ})
	return h.cl.AddNode(cluster.Node{Name: name, Labels: labels, Allocatable: alloc, State: cluster.NodeReady, InstanceType: typ,
		Zone: h.cl.Syms.Intern(zone), Owner: cluster.OwnedByStatic, OwnerName: "static"})
}

func (h *harness) run(until time.Duration) { h.eng.Run(until) }

// karpenterNodes returns the live nodes Karpenter owns.
func (h *harness) karpenterNodes() []*cluster.Node {
	var out []*cluster.Node
	for i := range h.cl.Nodes {
		n := &h.cl.Nodes[i]
		if n.Owner == ownedByKarpenter && n.State != cluster.NodeGone {
			out = append(out, n)
		}
	}
	return out
}

func (h *harness) podsIn(phase cluster.Phase) int {
	n := 0
	for i := range h.cl.Pods {
		if h.cl.Pods[i].Phase == phase {
			n++
		}
	}
	return n
}

func (h *harness) label(n *cluster.Node, key string) string {
	v, ok := n.Labels.Get(h.cl.Syms.Intern(key))
	if !ok {
		return ""
	}
	return h.cl.Syms.Name(v)
}

// poolWith is a NodePool named name of the default EC2NodeClass: reqs are
// its requirement lines (the constants below), extra what follows them
// (more template fields, then the disruption block).
func poolWith(name, reqs, extra string) string {
	return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: ` + name + `}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
` + reqs + extra + "\n"
}

// Requirement lines of the tests' NodePools.
const (
	onDemand  = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n"
	spotOnly  = "        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n"
	odAndSpot = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}\n"
	cmr       = "        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}\n"
	// newerThan4 keeps instance generations 5 and later.
	newerThan4 = "        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: [\"4\"]}\n"
	amd64      = "        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n"
	// odM5 is on-demand m5 and c5; odLarge on-demand m5.large alone.
	odM5    = onDemand + "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5]}\n"
	odLarge = onDemand + "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}\n"
	// smallNodes is c, m and r with at most 4 vCPUs (many nodes for few
	// pods).
	smallNodes = cmr + "        - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: [\"5\"]}\n"
)

// spotWide is a spot pool of c, m and r of generation 5 and later that
// consolidates at once.
var spotWide = poolWith("spot", spotOnly+cmr+newerThan4+amd64, "  disruption: {consolidateAfter: 0s}")
