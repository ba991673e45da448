package upstream

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	opstatus "github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	disruptionfidelity "github.com/clustersim/clustersim/fidelity/disruption"
	"github.com/clustersim/clustersim/sim/catalog"
)

// A small hand-built world: m5 types in three sizes, on-demand and spot
// in every zone.

var now = disruptionfidelity.ExportTime

type size struct {
	name  string
	cpu   int64 // cores
	memGi int64
	price float64 // on-demand
}

var sizes = []size{{"m5.large", 2, 8, 0.096}, {"m5.xlarge", 4, 16, 0.192}, {"m5.2xlarge", 8, 32, 0.384}}

func testTypes() []disruptionfidelity.InstanceType {
	var out []disruptionfidelity.InstanceType
	for _, s := range sizes {
		it := disruptionfidelity.InstanceType{
			Name: s.name,
			Labels: map[string]string{
				corev1.LabelInstanceTypeStable: s.name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux",
				corev1.LabelTopologyRegion: disruptionfidelity.Region, "karpenter.k8s.aws/instance-category": "m",
				"karpenter.k8s.aws/instance-family": "m5", "karpenter.k8s.aws/instance-generation": "5",
				"karpenter.k8s.aws/instance-cpu": fmt.Sprint(s.cpu), "karpenter.k8s.aws/instance-memory": fmt.Sprint(s.memGi * 1024),
			},
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewQuantity(s.cpu, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(s.memGi<<30, resource.BinarySI),
				corev1.ResourcePods: *resource.NewQuantity(29, resource.DecimalSI), corev1.ResourceEphemeralStorage: resource.MustParse("20Gi"),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(s.cpu*1000-100, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(s.memGi<<30-1<<30, resource.BinarySI),
				corev1.ResourcePods: *resource.NewQuantity(29, resource.DecimalSI), corev1.ResourceEphemeralStorage: resource.MustParse("18Gi"),
			},
		}
		for _, z := range disruptionfidelity.Zones {
			it.Offerings = append(it.Offerings,
				disruptionfidelity.Offering{Zone: z, CapacityType: karpv1.CapacityTypeOnDemand, Price: s.price},
				disruptionfidelity.Offering{Zone: z, CapacityType: karpv1.CapacityTypeSpot, Price: s.price * 0.4})
		}
		out = append(out, it)
	}
	return out
}

func typeNamed(name string) disruptionfidelity.InstanceType {
	for _, it := range testTypes() {
		if it.Name == name {
			return it
		}
	}
	panic(name)
}

// world builds a case by hand.
type world struct{ c *disruptionfidelity.Case }

func newWorld() *world {
	return &world{c: &disruptionfidelity.Case{Name: "hand", NodeClassHash: "class-1", Types: testTypes()}}
}

// pool adds an on-demand NodePool of the given types.
func (w *world) pool(name, after string, policy karpv1.ConsolidationPolicy, types ...string) *karpv1.NodePool {
	np := &karpv1.NodePool{
		TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types2uid("np-" + name), Annotations: map[string]string{
			disruptionfidelity.NodePoolHashKey: "pool-1", disruptionfidelity.NodePoolHashVersionKey: disruptionfidelity.NodePoolHashVersion}},
	}
	np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = []karpv1.NodeSelectorRequirementWithMinValues{
		{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{karpv1.CapacityTypeOnDemand}},
		{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: types},
	}
	np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration("720h")
	np.Spec.Disruption.ConsolidationPolicy = policy
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration(after)
	np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "100%"}}
	w.c.Pools = append(w.c.Pools, np)
	return np
}

func types2uid(s string) types.UID { return types.UID("uid-" + s) }

// node adds a Node and its NodeClaim of pool, launched age ago, whose
// last pod event was podEvent ago.
func (w *world) node(name string, np *karpv1.NodePool, typ string, age, podEvent time.Duration) (*corev1.Node, *karpv1.NodeClaim) {
	it := typeNamed(typ)
	created := metav1.NewTime(now.Add(-age))
	zone := disruptionfidelity.Zones[len(w.c.Nodes)%3]
	providerID := "aws:///" + zone + "/i-" + name
	labels := map[string]string{}
	for k, v := range it.Labels {
		labels[k] = v
	}
	labels[corev1.LabelTopologyZone] = zone
	labels[karpv1.CapacityTypeLabelKey] = karpv1.CapacityTypeOnDemand
	labels[karpv1.NodePoolLabelKey] = np.Name
	nc := &karpv1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: np.Name + "-" + name, UID: types2uid("nc-" + name), CreationTimestamp: created,
			Labels: copyMap(labels), Finalizers: []string{karpv1.TerminationFinalizer},
			Annotations: map[string]string{
				disruptionfidelity.NodePoolHashKey: np.Annotations[disruptionfidelity.NodePoolHashKey], disruptionfidelity.NodePoolHashVersionKey: disruptionfidelity.NodePoolHashVersion,
				disruptionfidelity.NodeClassHashKey: w.c.NodeClassHash, disruptionfidelity.NodeClassHashVersionKey: disruptionfidelity.NodeClassHashVersion},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: np.Name, UID: np.UID}}},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: np.Spec.Template.Spec.NodeClassRef,
			Requirements: append([]karpv1.NodeSelectorRequirementWithMinValues{
				{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{typ}},
				{Key: karpv1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{np.Name}},
			}, np.Spec.Template.Spec.Requirements...),
			ExpireAfter: np.Spec.Template.Spec.ExpireAfter,
		},
		Status: karpv1.NodeClaimStatus{ProviderID: providerID, NodeName: name, Capacity: it.Capacity, Allocatable: it.Allocatable,
			LastPodEventTime: metav1.NewTime(now.Add(-podEvent))},
	}
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized, "Ready"} {
		nc.Status.Conditions = append(nc.Status.Conditions, opstatus.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t,
			LastTransitionTime: metav1.NewTime(created.Add(90 * time.Second))})
	}
	labels[corev1.LabelHostname] = name
	labels[karpv1.NodeRegisteredLabelKey] = "true"
	labels[karpv1.NodeInitializedLabelKey] = "true"
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types2uid("node-" + name), Labels: labels, CreationTimestamp: created,
			Finalizers: []string{karpv1.TerminationFinalizer}},
		Spec: corev1.NodeSpec{ProviderID: providerID},
		Status: corev1.NodeStatus{Capacity: it.Capacity, Allocatable: it.Allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: created}}},
	}
	w.c.Nodes = append(w.c.Nodes, n)
	w.c.NodeClaims = append(w.c.NodeClaims, nc)
	return n, nc
}

// pod adds a running pod on node, owned by a ReplicaSet.
func (w *world) pod(name, node string, milliCPU int64) *corev1.Pod {
	start := metav1.NewTime(now.Add(-time.Hour))
	ctrl := true
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types2uid("pod-" + name), CreationTimestamp: start,
			Labels:          map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "uid-rs", Controller: &ctrl}}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "main", Image: "web:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI), corev1.ResourceMemory: resource.MustParse("512Mi")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start}}},
	}
	w.c.Pods = append(w.c.Pods, p)
	return p
}

func copyMap(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func first(t *testing.T, c *disruptionfidelity.Case, horizon time.Duration) disruptionfidelity.Decision {
	t.Helper()
	h, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := h.First(horizon)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (upstream %s)", d, h.Elapsed().Round(time.Millisecond))
	return d
}

func wantCandidates(t *testing.T, d disruptionfidelity.Decision, method string, nodes ...string) {
	t.Helper()
	if d.Method != method || !reflect.DeepEqual(d.Candidates, nodes) {
		t.Fatalf("got %s, want %s %v", d, method, nodes)
	}
}

const wu = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized

func TestEmptyNodeOlderThanConsolidateAfter(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "30s", wu, "m5.xlarge")
	w.node("busy", np, "m5.xlarge", 48*time.Hour, 10*time.Minute)
	w.pod("web-a", "busy", 3500)
	w.node("empty", np, "m5.xlarge", 48*time.Hour, 10*time.Minute)
	d := first(t, w.c, 10*time.Minute)
	wantCandidates(t, d, disruptionfidelity.MethodEmptiness, "empty")
	if d.Reason != string(karpv1.DisruptionReasonEmpty) || d.At != 0 || len(d.Replacements) != 0 {
		t.Fatalf("got %s", d)
	}
}

// The empty node's last pod event was 5 s ago: it becomes consolidatable
// at 25 s, which the 10 s polls see at 30 s.
func TestEmptinessWaitsForConsolidateAfter(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "30s", wu, "m5.xlarge")
	w.node("busy", np, "m5.xlarge", 48*time.Hour, 5*time.Second)
	w.pod("web-a", "busy", 3500)
	w.node("empty", np, "m5.xlarge", 48*time.Hour, 5*time.Second)
	d := first(t, w.c, 10*time.Minute)
	wantCandidates(t, d, disruptionfidelity.MethodEmptiness, "empty")
	if d.At != 30*time.Second {
		t.Fatalf("at %s, want 30s", d.At)
	}
}

func TestDriftByNodePoolHash(t *testing.T) {
	w := newWorld()
	// Consolidation off: only drift may act.
	np := w.pool("default", "Never", wu, "m5.xlarge")
	w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-a", "a", 3500)
	_, nc := w.node("b", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-b", "b", 3500)
	nc.Annotations[disruptionfidelity.NodePoolHashKey] = "pool-0"
	d := first(t, w.c, 5*time.Minute)
	wantCandidates(t, d, disruptionfidelity.MethodDrift, "b")
	// Its pod does not fit on a, so drift replaces it: one on-demand
	// m5.xlarge (the only type the pool allows).
	if d.Reason != string(karpv1.DisruptionReasonDrifted) || len(d.Replacements) != 1 {
		t.Fatalf("got %s", d)
	}
	r := d.Replacements[0]
	if r.Pool != "default" || r.CapacityType != karpv1.CapacityTypeOnDemand || !reflect.DeepEqual(r.Types, []string{"m5.xlarge"}) || r.Cheapest != 0.192 {
		t.Fatalf("replacement %+v", r)
	}
}

func TestDriftByNodeClassHash(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "Never", wu, "m5.xlarge")
	_, nc := w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-a", "a", 500)
	w.node("b", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-b", "b", 500)
	nc.Annotations[disruptionfidelity.NodeClassHashKey] = "class-0"
	d := first(t, w.c, 5*time.Minute)
	// a's pod fits on b: delete without replacement.
	wantCandidates(t, d, disruptionfidelity.MethodDrift, "a")
	if len(d.Replacements) != 0 {
		t.Fatalf("got %s", d)
	}
	// Another hash version: KA does not compare, so no drift.
	nc.Annotations[disruptionfidelity.NodeClassHashVersionKey] = "v3"
	if d := first(t, w.c, 2*time.Minute); !d.None() {
		t.Fatalf("got %s, want none", d)
	}
}

// Two m5.xlarge nodes whose pods fit on one, in a pool that allows only
// m5.xlarge: multi-node consolidation cannot replace both with a cheaper
// node, so single-node consolidation deletes one of them (which one is
// upstream's random tie-break).
func TestConsolidationDeletesOne(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "0s", wu, "m5.xlarge")
	w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-a", "a", 1000)
	w.node("b", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-b", "b", 1000)
	d := first(t, w.c, 5*time.Minute)
	if d.Method != disruptionfidelity.MethodSingleNode || d.Reason != string(karpv1.DisruptionReasonUnderutilized) ||
		len(d.Candidates) != 1 || (d.Candidates[0] != "a" && d.Candidates[0] != "b") || len(d.Replacements) != 0 {
		t.Fatalf("got %s", d)
	}
}

// With smaller types allowed, both nodes are replaced by one m5.large.
func TestMultiNodeConsolidationReplaces(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "0s", wu, "m5.large", "m5.xlarge", "m5.2xlarge")
	w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-a", "a", 500)
	w.node("b", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-b", "b", 500)
	d := first(t, w.c, 5*time.Minute)
	wantCandidates(t, d, disruptionfidelity.MethodMultiNode, "a", "b")
	if len(d.Replacements) != 1 || d.Replacements[0].Types[0] != "m5.large" || d.Replacements[0].Cheapest != 0.096 {
		t.Fatalf("got %s", d)
	}
}

// A node annotated do-not-disrupt is never a candidate: neither empty nor
// drifted.
func TestDoNotDisruptNode(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "0s", wu, "m5.xlarge")
	n, nc := w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	nc.Annotations[disruptionfidelity.NodePoolHashKey] = "pool-0"
	if d := first(t, w.c, time.Minute); d.Method != disruptionfidelity.MethodEmptiness {
		t.Fatalf("without the annotation: got %s", d)
	}
	n.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	if d := first(t, w.c, 10*time.Minute); !d.None() {
		t.Fatalf("got %s, want none", d)
	}
}

// A pod annotated do-not-disrupt blocks its node's consolidation.
func TestDoNotDisruptPod(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "0s", wu, "m5.large", "m5.xlarge")
	w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	p := w.pod("web-a", "a", 500)
	d := first(t, w.c, time.Minute)
	wantCandidates(t, d, disruptionfidelity.MethodSingleNode, "a")
	if len(d.Replacements) != 1 || !reflect.DeepEqual(d.Replacements[0].Types, []string{"m5.large"}) {
		t.Fatalf("without the annotation: got %s", d)
	}
	p.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	if d := first(t, w.c, 10*time.Minute); !d.None() {
		t.Fatalf("got %s, want none", d)
	}
}

func TestExpiration(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "Never", wu, "m5.xlarge")
	np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration("24h")
	w.node("old", np, "m5.xlarge", 25*time.Hour, time.Hour)
	w.node("young", np, "m5.xlarge", 23*time.Hour, time.Hour)
	// The young one expires in an hour, after the horizon.
	for _, nc := range w.c.NodeClaims {
		nc.Spec.ExpireAfter = np.Spec.Template.Spec.ExpireAfter
	}
	d := first(t, w.c, 10*time.Minute)
	wantCandidates(t, d, disruptionfidelity.MethodExpiration, "old")
}

// A NodeClaim being deleted counts against its pool's budget (cluster
// state's MarkedForDeletion): with a budget of one node, the empty node
// waits.
func TestDeletingNodeConsumesBudget(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "0s", wu, "m5.xlarge")
	np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
	w.node("busy", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-a", "busy", 3500)
	w.node("empty", np, "m5.xlarge", 48*time.Hour, time.Hour)
	if d := first(t, w.c, time.Minute); d.Method != disruptionfidelity.MethodEmptiness {
		t.Fatalf("without the deletion: got %s", d)
	}
	_, nc := w.node("going", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-g", "going", 3500)
	del := metav1.NewTime(now.Add(-time.Minute))
	nc.DeletionTimestamp = &del
	if d := first(t, w.c, 2*time.Minute); !d.None() {
		t.Fatalf("got %s, want none", d)
	}
}

// A karpenter.sh/disrupted taint left over (the node not being disrupted)
// is removed before the methods run, as upstream's Reconcile does; the
// case's own objects are not modified.
func TestLeftoverTaintRemoved(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "Never", wu, "m5.xlarge")
	n, _ := w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	n.Spec.Taints = []corev1.Taint{karpv1.DisruptedNoScheduleTaint}
	h, err := NewAt(w.c, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := h.First(0); err != nil || !d.None() {
		t.Fatalf("got %s %v", d, err)
	}
	got := &corev1.Node{}
	if err := h.kube.Get(h.ctx, client.ObjectKey{Name: "a"}, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Taints) != 0 || len(n.Spec.Taints) != 1 {
		t.Fatalf("taints in the client %v, in the case %v", got.Spec.Taints, n.Spec.Taints)
	}
}

// Runs share nothing: the same case gives the same decision twice, and
// the case is left as it was.
func TestRunsIndependent(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "30s", wu, "m5.xlarge")
	w.node("busy", np, "m5.xlarge", 48*time.Hour, 10*time.Minute)
	w.pod("web-a", "busy", 3500)
	w.node("empty", np, "m5.xlarge", 48*time.Hour, 10*time.Minute)
	before := w.c.NodeClaims[1].DeepCopy()
	a := first(t, w.c, time.Minute)
	b := first(t, w.c, time.Minute)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%s then %s", a, b)
	}
	if !reflect.DeepEqual(before, w.c.NodeClaims[1]) {
		t.Fatal("the case's NodeClaim changed")
	}
}

// A state read back from its kubectl export decides as the case does.
func TestFromList(t *testing.T) {
	w := newWorld()
	np := w.pool("default", "0s", wu, "m5.large", "m5.xlarge")
	w.node("a", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-a", "a", 500)
	_, nc := w.node("b", np, "m5.xlarge", 48*time.Hour, time.Hour)
	w.pod("web-b", "b", 3000)
	nc.Annotations[disruptionfidelity.NodeClassHashKey] = "class-0"
	data, err := w.c.Export()
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromList(&disruptionfidelity.Case{Name: "read", Types: w.c.Types}, data)
	if err != nil {
		t.Fatal(err)
	}
	if c.NodeClassHash != "class-1" || len(c.Nodes) != 2 || len(c.NodeClaims) != 2 || len(c.Pods) != 2 || len(c.Pools) != 1 {
		t.Fatalf("read %q %d nodes %d claims %d pods %d pools", c.NodeClassHash, len(c.Nodes), len(c.NodeClaims), len(c.Pods), len(c.Pools))
	}
	want := first(t, w.c, time.Minute)
	got := first(t, c, time.Minute)
	if !reflect.DeepEqual(want, got) || want.Method != disruptionfidelity.MethodDrift {
		t.Fatalf("case %s, read back %s", want, got)
	}
}

// TestSmokeGenerated runs upstream on generated cases: First must return
// without error. The decisions are logged.
func TestSmokeGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("generated cases take a while")
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	cc, err := disruptionfidelity.BuildCatalogue(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range disruptionfidelity.Generate(cc, 1, 20) {
		h, err := New(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		d, err := h.First(30 * time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		t.Logf("%s (%s): %s [upstream %s]", c.Name, c.ShapeString(), d, h.Elapsed().Round(time.Millisecond))
	}
}
