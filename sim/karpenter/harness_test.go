package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	t     *testing.T
	eng   *engine.Engine
	cl    *cluster.Cluster
	cat   *catalog.Catalog
	cloud *cloudtest.Cloud
	ev    *eviction.Evictor
	k     *Karpenter
	specs []workload.Spec
	ctrls *workload.Controllers
	pdbs  []cluster.PDB
}

func newHarness(t *testing.T) *harness {
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

// start builds the models; call after adding workloads and static nodes.
func (h *harness) start(pools []NodePool, s Settings) {
	h.t.Helper()
	_, err := scheduler.New(h.eng, h.cl, scheduler.Config{PDBs: h.pdbs})
	require.NoError(h.t, err)
	kubelet.New(h.eng, h.cl, 2*time.Second)
	h.ev = eviction.New(h.eng, h.cl, h.pdbs)
	h.k, err = New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: h.ev},
		Config{Region: "us-east-1", Zones: testZones, NodePools: pools, Settings: s})
	require.NoError(h.t, err)
	h.ctrls = workload.New(h.eng, h.cl, h.specs)
}

type podOpt func(*corev1.PodSpec, map[string]string, map[string]string)

func (h *harness) podSpec(cpu, mem string, labels map[string]string, opts ...podOpt) *cluster.PodSpec {
	h.t.Helper()
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}
	ann := map[string]string{}
	if labels == nil {
		labels = map[string]string{}
	}
	for _, o := range opts {
		o(&spec, labels, ann)
	}
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: labels, Annotations: ann, Spec: &spec})
	require.NoError(h.t, err)
	return cs
}

func withNodeSelector(k, v string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		if s.NodeSelector == nil {
			s.NodeSelector = map[string]string{}
		}
		s.NodeSelector[k] = v
	}
}

func withDoNotDisrupt() podOpt {
	return func(_ *corev1.PodSpec, _, ann map[string]string) { ann["karpenter.sh/do-not-disrupt"] = "true" }
}

func withZoneSpread(app string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}})
	}
}

func withHostAntiAffinity(app string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		if s.Affinity == nil {
			s.Affinity = &corev1.Affinity{}
		}
		s.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: "kubernetes.io/hostname"}}}
	}
}

func withPreferredZone(zone string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		if s.Affinity == nil {
			s.Affinity = &corev1.Affinity{}
		}
		s.Affinity.NodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}
	}
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
		if n.Owner == cluster.OwnedByKarpenter && n.State != cluster.NodeGone {
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

const basicPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, m5.2xlarge]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole-${CLUSTER_NAME}
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: "${CLUSTER_NAME}"}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: "${CLUSTER_NAME}"}}]
`

func TestProvisionBasic(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", map[string]string{"app": "web"}), time.Duration(0), 10)
	h.start(h.pools(basicPool), apis.DefaultSettings())
	h.run(5 * time.Minute)
	require.Equal(t, 10, h.podsIn(cluster.Running))
	nodes := h.karpenterNodes()
	require.NotEmpty(t, nodes)
	st := h.k.Stats()
	t.Logf("nodes=%d stats=%+v", len(nodes), st)
	for _, n := range nodes {
		t.Logf("%s %s %s %s", n.Name, n.InstanceType, h.label(n, "topology.kubernetes.io/zone"), h.label(n, "karpenter.sh/capacity-type"))
	}
}
