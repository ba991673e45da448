package clusterautoscaler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cloud/cloudtest"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scheduler"
)

// newCloud is the fake EC2 of these tests: one flat price, nodes Ready
// 90 s after launch.
func newCloud(eng *engine.Engine) *cloudtest.Cloud {
	c := cloudtest.New(eng, cloudtest.FlatPrice(0.1))
	c.ReadyAfter = 90 * time.Second
	return c
}

var _ Cloud = (*cloudtest.Cloud)(nil)
var _ Evictor = (*eviction.Evictor)(nil)

// harness is a small cluster: engine, cluster, scheduler, kubelet,
// evictor, fake cloud and the Cluster Autoscaler.
type harness struct {
	t     *testing.T
	eng   *engine.Engine
	cl    *cluster.Cluster
	cloud *cloudtest.Cloud
	ev    *eviction.Evictor
	cat   *catalog.Catalog
	ca    *Autoscaler
	pdbs  []cluster.PDB
	// buffers are the CapacityBuffers the Cluster Autoscaler is built with.
	buffers []capacitybuffer.Buffer
}

var testZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

func newHarness(t *testing.T) *harness {
	t.Helper()
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	_, err := scheduler.New(eng, cl, scheduler.Config{})
	require.NoError(t, err)
	kubelet.New(eng, cl, 2*time.Second)
	cat, err := catalog.Default()
	require.NoError(t, err)
	return &harness{t: t, eng: eng, cl: cl, cloud: newCloud(eng), cat: cat}
}

// groups compiles an eksctl ClusterConfig.
func (h *harness) groups(yaml string) []NodeGroup {
	h.t.Helper()
	docs, err := manifest.ReadBytes("cluster.yaml", []byte(yaml))
	require.NoError(h.t, err)
	require.Len(h.t, docs, 1)
	gs, _, err := config.CompileClusterConfig(docs[0], config.Env{Catalog: h.cat, Region: "us-east-1", Zones: testZones})
	require.NoError(h.t, err)
	return gs
}

// clusterConfig is an eksctl ClusterConfig in us-east-1 whose node groups
// are body (a managedNodeGroups or nodeGroups block).
func clusterConfig(body string) string {
	return "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: demo, region: us-east-1}\n" + body
}

// managedNodeGroups is a ClusterConfig of managed node groups, each a YAML
// flow mapping.
func managedNodeGroups(groups ...string) string {
	body := "managedNodeGroups:\n"
	for _, g := range groups {
		body += "  - " + g + "\n"
	}
	return clusterConfig(body)
}

// start builds the Cluster Autoscaler with the given flags.
func (h *harness) start(groups []NodeGroup, args []string, priorities map[string][]string) {
	h.t.Helper()
	spec := config.SettingsSpec{Args: args, Priorities: priorities}
	s, err := spec.Compile(nil, "spec.clusterAutoscaler")
	require.NoError(h.t, err)
	h.startSettings(groups, s)
}

func (h *harness) startSettings(groups []NodeGroup, s Settings) {
	h.t.Helper()
	discoverAll(&s)
	h.ev = eviction.New(h.eng, h.cl, h.pdbs)
	ca, err := New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: h.ev}, Config{Region: "us-east-1", Zones: testZones, NodeGroups: groups, Settings: s, CapacityBuffers: h.buffers})
	require.NoError(h.t, err)
	h.ca = ca
}

type podOpt func(*corev1.PodSpec, *podMeta)

type podMeta struct {
	ns          string
	labels      map[string]string
	annotations map[string]string
	workload    int32
	priority    int32
}

func withToleration(key string) podOpt {
	return func(s *corev1.PodSpec, _ *podMeta) {
		s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists})
	}
}

func inNamespace(ns string) podOpt { return func(_ *corev1.PodSpec, m *podMeta) { m.ns = ns } }
func bare() podOpt                 { return func(_ *corev1.PodSpec, m *podMeta) { m.workload = -1 } }
func withLabels(l map[string]string) podOpt {
	return func(_ *corev1.PodSpec, m *podMeta) { m.labels = l }
}
func withAnnotation(k, v string) podOpt {
	return func(_ *corev1.PodSpec, m *podMeta) {
		if m.annotations == nil {
			m.annotations = map[string]string{}
		}
		m.annotations[k] = v
	}
}

// spec compiles a pod spec requesting cpu and memory.
func (h *harness) spec(cpu, mem string, opts ...podOpt) (*cluster.PodSpec, podMeta) {
	h.t.Helper()
	ps := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}
	m := podMeta{ns: "default", workload: 0}
	for _, o := range opts {
		o(&ps, &m)
	}
	prio := m.priority
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: m.ns, Labels: m.labels, Annotations: m.annotations, Spec: &ps,
		Priority: func(string) (int32, bool, bool) { return prio, false, true }})
	require.NoError(h.t, err)
	return cs, m
}

// pods creates n pods of one spec now.
func (h *harness) pods(n int, cpu, mem string, opts ...podOpt) []cluster.PodID {
	h.t.Helper()
	cs, m := h.spec(cpu, mem, opts...)
	var out []cluster.PodID
	for i := 0; i < n; i++ {
		out = append(out, h.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("p-%d", len(h.cl.Pods)), Namespace: h.cl.Syms.Intern(m.ns), Spec: cs, Workload: m.workload}))
	}
	return out
}

// at runs the engine until t.
func (h *harness) at(t time.Duration) { h.eng.Run(t) }

// nodesOf lists the live nodes of a group.
func (h *harness) nodesOf(group string) []cluster.NodeID {
	var out []cluster.NodeID
	for i := range h.cl.Nodes {
		n := &h.cl.Nodes[i]
		if n.OwnerName == group && n.State != cluster.NodeGone {
			out = append(out, cluster.NodeID(i))
		}
	}
	return out
}

func (h *harness) readyNodesOf(group string) int {
	c := 0
	for _, id := range h.nodesOf(group) {
		if h.cl.Nodes[id].State == cluster.NodeReady {
			c++
		}
	}
	return c
}

func (h *harness) groupStats(name string) GroupStats {
	for _, g := range h.ca.Stats().NodeGroups {
		if g.Name == name {
			return g
		}
	}
	h.t.Fatalf("no group %s", name)
	return GroupStats{}
}

func (h *harness) boundAt(p cluster.PodID) (time.Duration, bool) {
	pod := &h.cl.Pods[p]
	if pod.Phase == cluster.Pending || pod.Phase == cluster.Deleted && pod.BoundAt == 0 {
		return 0, false
	}
	return pod.BoundAt, true
}

func (h *harness) nodeOfPod(p cluster.PodID) string {
	pod := &h.cl.Pods[p]
	if !pod.Phase.OnNode() {
		return ""
	}
	return h.cl.Nodes[pod.Node].OwnerName
}

// SettingsSpecFor compiles settings from flags.
func SettingsSpecFor(t *testing.T, args []string) Settings {
	t.Helper()
	s, err := (&config.SettingsSpec{Args: args}).Compile(nil, "spec.clusterAutoscaler")
	require.NoError(t, err)
	discoverAll(&s)
	return s
}

// discoverAll gives settings without --nodes or auto-discovery a tag-less
// auto-discovery spec, which finds every group: the tests without those
// flags are about groups the Cluster Autoscaler manages.
func discoverAll(s *Settings) {
	if len(s.Nodes) == 0 && len(s.AutoDiscovery) == 0 {
		s.AutoDiscovery = []map[string]string{{}}
	}
}

func labelSelector(k, v string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
}

func cloudID(i int32) cloud.InstanceID { return cloud.InstanceID(i) }
