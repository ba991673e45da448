package fidelity

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	"github.com/clustersim/clustersim/sim/catalog"
)

// The overlay set: cases of the first generator's kind with NodeOverlays
// (karpenter.sh/v1alpha1, gate NodeOverlay on both sides): price
// adjustments and prices on families, generations, categories, capacity
// types, zones, instance types and pools, of equal weights now and then
// (upstream refuses the second of two on one offering), and capacity
// overlays giving an extended resource that some pods ask for. Upstream's
// instance types get the overlays through its own controller and store
// (pkg/controllers/nodeoverlay), ours through the compiler and package
// sim/karpenter/overlay.

// overlayResource is the extended resource capacity overlays give.
const overlayResource = "example.com/license"

// GenerateOverlays returns n overlay cases derived from seed; the same
// seed gives the same cases.
func GenerateOverlays(cat *catalog.Catalog, seed uint64, n int) ([]*Case, error) {
	return generateN(cat, seed, n, generateOverlayOne)
}

func generateOverlayOne(cat *catalog.Catalog, seed uint64, idx int) (*Case, error) {
	c, err := generateOne(cat, seed^0x0e71a7, idx)
	if err != nil {
		return nil, err
	}
	c.Name = fmt.Sprintf("overlay-%03d", idx)
	rng := rand.New(rand.NewPCG(seed^0x0e71a7, uint64(idx)*0x9e3779b97f4a7c15+11))
	byName := map[string]*catalog.InstanceType{}
	for _, it := range cat.Types() {
		byName[it.Name] = it
	}
	var shape []string
	n := 1 + rng.IntN(4)
	for i := 0; i < n; i++ {
		o, tags := genOverlay(rng, c, byName, i)
		c.Overlays = append(c.Overlays, o)
		shape = append(shape, tags...)
	}
	// Pods of one template ask for the resource a capacity overlay gives
	// (or would give: a pod nothing gives it to stays unschedulable).
	if hasCapacityOverlay(c) && len(c.Pods) > 0 {
		app := c.Pods[rng.IntN(len(c.Pods))].Labels["app"]
		for _, p := range c.Pods {
			if p.Labels["app"] == app {
				p.Spec.Containers[0].Resources.Requests[overlayResource] = resource.MustParse("1")
				p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{overlayResource: resource.MustParse("1")}
			}
		}
		shape = append(shape, "overlay-resource-pods")
	}
	c.Shape = strings.Join(uniq(append(strings.Split(c.Shape, ","), shape...)), ",")
	return c, nil
}

func hasCapacityOverlay(c *Case) bool {
	for _, o := range c.Overlays {
		if len(o.Spec.Capacity) > 0 {
			return true
		}
	}
	return false
}

// genOverlay draws overlay i of case c: what it selects, what it changes
// and its weight.
func genOverlay(rng *rand.Rand, c *Case, byName map[string]*catalog.InstanceType, i int) (*v1alpha1.NodeOverlay, []string) {
	o := &v1alpha1.NodeOverlay{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1alpha1", Kind: "NodeOverlay"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("overlay-%c", 'a'+i), UID: types.UID(fmt.Sprintf("overlay-%d", i))},
		Spec:       v1alpha1.NodeOverlaySpec{Requirements: []v1alpha1.NodeSelectorRequirement{}},
	}
	req := func(key string, op corev1.NodeSelectorOperator, vals ...string) {
		o.Spec.Requirements = append(o.Spec.Requirements, v1alpha1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals})
	}
	var tags []string
	pick := func() *catalog.InstanceType { return byName[c.Types[rng.IntN(len(c.Types))].Name] }
	label := func(it *catalog.InstanceType, key string) string { v, _ := it.Label(key); return v }
	switch rng.IntN(7) {
	case 0:
		req("karpenter.k8s.aws/instance-family", corev1.NodeSelectorOpIn, pick().Family)
		tags = append(tags, "overlay-family")
	case 1:
		req("karpenter.k8s.aws/instance-generation", corev1.NodeSelectorOpIn, label(pick(), "karpenter.k8s.aws/instance-generation"))
		tags = append(tags, "overlay-generation")
	case 2:
		req("karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, label(pick(), "karpenter.k8s.aws/instance-category"))
		req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, []string{"spot", "on-demand"}[rng.IntN(2)])
		tags = append(tags, "overlay-capacity-type")
	case 3:
		req(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, Zones[rng.IntN(len(Zones))])
		tags = append(tags, "overlay-zone")
	case 4:
		a, b := pick(), pick()
		req(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, a.Name, b.Name)
		tags = append(tags, "overlay-types")
	case 5:
		req(karpv1.NodePoolLabelKey, corev1.NodeSelectorOpIn, c.Pools[rng.IntN(len(c.Pools))].Name)
		req("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpGt, "3")
		tags = append(tags, "overlay-pool")
	default:
		req("team", corev1.NodeSelectorOpIn, c.Pools[rng.IntN(len(c.Pools))].Name)
		tags = append(tags, "overlay-template-label")
	}
	switch k := rng.IntN(10); {
	case k < 4:
		p := []string{"-40%", "-15%", "+20%", "+60%", "-100%"}[rng.IntN(5)]
		o.Spec.PriceAdjustment = &p
		tags = append(tags, "overlay-percent")
	case k < 6:
		p := []string{"-0.05", "+0.02", "+0.5", "-10"}[rng.IntN(4)]
		o.Spec.PriceAdjustment = &p
		tags = append(tags, "overlay-amount")
	case k < 8:
		p := []string{"0.01", "0.2", "3"}[rng.IntN(3)]
		o.Spec.Price = &p
		tags = append(tags, "overlay-price")
	default:
		o.Spec.Capacity = corev1.ResourceList{overlayResource: resource.MustParse(fmt.Sprint(1 + rng.IntN(6)))}
		tags = append(tags, "overlay-capacity")
	}
	if w := []int32{0, 10, 10, 20}[rng.IntN(4)]; w > 0 {
		o.Spec.Weight = &w
	}
	return o, tags
}

// overlayDocs are the case's overlays as manifest documents for our
// compiler.
func overlayDocs(c *Case) ([]byte, error) {
	var out []byte
	for _, o := range c.Overlays {
		b, err := json.Marshal(map[string]any{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
			"metadata": map[string]any{"name": o.Name}, "spec": o.Spec})
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, "---\n"...), b...), '\n')
	}
	return out, nil
}

// itsProvider is a cloud provider whose GetInstanceTypes answers a
// pool's instance types of the case.
type itsProvider struct {
	*fake.CloudProvider
	its map[string][]*cloudprovider.InstanceType
}

func (p itsProvider) GetInstanceTypes(_ context.Context, np *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	return p.its[np.Name], nil
}

// overlayScheme holds core's types, the NodePool and the NodeOverlay.
func overlayScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	v1 := schema.GroupVersion{Group: "karpenter.sh", Version: "v1"}
	s.AddKnownTypes(v1, &karpv1.NodePool{}, &karpv1.NodePoolList{})
	metav1.AddToGroupVersion(s, v1)
	alpha := schema.GroupVersion{Group: "karpenter.sh", Version: "v1alpha1"}
	s.AddKnownTypes(alpha, &v1alpha1.NodeOverlay{}, &v1alpha1.NodeOverlayList{})
	metav1.AddToGroupVersion(s, alpha)
	return s
}

// applyUpstreamOverlays runs upstream's NodeOverlay controller once over
// the case's pools and overlays and replaces each pool's instance types
// by the store's (KC cloudprovider/overlay Decorate with the gate on).
func (u *Upstream) applyUpstreamOverlays(c *Case) error {
	objs := []client.Object{}
	for _, np := range u.pools {
		objs = append(objs, np.DeepCopy())
	}
	for _, o := range c.Overlays {
		objs = append(objs, o.DeepCopy())
	}
	kc := fakecr.NewClientBuilder().WithScheme(overlayScheme()).WithStatusSubresource(&v1alpha1.NodeOverlay{}).WithObjects(objs...).Build()
	cp := itsProvider{CloudProvider: fake.NewCloudProvider(), its: u.its}
	store := nodeoverlay.NewInstanceTypeStore()
	ctrl := nodeoverlay.NewController(&clock.RealClock{}, kc, cp, store, state.NewCluster(&clock.RealClock{}, kc, cp))
	if _, err := ctrl.Reconcile(u.ctx, reconcile.Request{}); err != nil {
		return fmt.Errorf("upstream nodeoverlay controller: %w", err)
	}
	applied := map[string][]*cloudprovider.InstanceType{}
	for _, np := range u.pools {
		its, err := store.ApplyAll(np.Name, u.its[np.Name])
		if err != nil {
			return fmt.Errorf("upstream overlay store: %w", err)
		}
		applied[np.Name] = its
	}
	u.its = applied
	// Which overlays upstream refused, for reports.
	var list v1alpha1.NodeOverlayList
	if err := kc.List(u.ctx, &list); err != nil {
		return err
	}
	for _, o := range list.Items {
		if cond := o.StatusConditions().Get(v1alpha1.ConditionTypeValidationSucceeded); cond != nil && cond.IsFalse() {
			u.refusedOverlays = append(u.refusedOverlays, o.Name+" ("+cond.Reason+")")
		}
	}
	sort.Strings(u.refusedOverlays)
	return nil
}
