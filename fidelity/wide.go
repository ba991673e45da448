package fidelity

import (
	"fmt"
	"math/rand/v2"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
)

// The wide set: cases shaped like what users run. Every case offers the
// whole catalogue (every type with an on-demand price, GPU and metal
// types too) and lets the NodePools' requirements select (category,
// generation, capacity type, zones; never an architecture, so Graviton
// types compete), with batches of 20 to 1,000 pods, with and without
// zone and hostname anti-affinity and spread, several weighted pools with
// taints and limits, zone-limited pools, and a second round of pods that
// arrive while the first round's NodeClaims are in flight.

// GenerateWide returns n wide cases derived from seed; the same seed
// gives the same cases.
func GenerateWide(cat *catalog.Catalog, seed uint64, n int) ([]*Case, error) {
	return generateN(cat, seed, n, generateWideOne)
}

// wideTypes offers every catalogue type with an on-demand price, in
// catalogue order: on-demand in each zone (95%), spot (85%) at the Spot
// Advisor estimate, differing by zone.
func wideTypes(cat *catalog.Catalog, rng *rand.Rand) []InstanceType {
	var out []InstanceType
	for _, it := range cat.Types() {
		od, _, ok := cat.OnDemandPrice(Region, it.Name)
		if !ok || od <= 0 {
			continue
		}
		spot, spotOK := cat.SpotPriceEstimate(Region, it.Name)
		t := InstanceType{Name: it.Name, Offerings: drawOfferings(rng, od, spot, spotOK)}
		if len(t.Offerings) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func generateWideOne(cat *catalog.Catalog, seed uint64, idx int) (*Case, error) {
	rng := rand.New(rand.NewPCG(seed^0x5717e, uint64(idx)*0x9e3779b97f4a7c15+7))
	c := &Case{Name: fmt.Sprintf("wide-%03d", idx)}
	c.Types = wideTypes(cat, rng)

	var shape []string
	nPools := 1 + rng.IntN(4)
	for p := 0; p < nPools; p++ {
		np, tags := widePool(rng, p, nPools)
		c.Pools = append(c.Pools, np)
		shape = append(shape, tags...)
	}
	total := 20 + rng.IntN(981)
	nGroups := 1 + rng.IntN(4)
	n := 0
	for g := 0; g < nGroups; g++ {
		count := total / nGroups
		if g == 0 {
			count += total % nGroups
		}
		t := wideTemplate(rng, fmt.Sprintf("app%d", g), count, c.Pools)
		shape = append(shape, t.kind)
		for i := 0; i < t.count; i++ {
			c.Pods = append(c.Pods, makePod(fmt.Sprintf("%s-%d", t.lbls["app"], i), n, t))
			n++
		}
	}
	// Arrivals: more replicas of a first-round app or a new app.
	nArr := 1 + rng.IntN(2)
	for g := 0; g < nArr; g++ {
		count := 5 + rng.IntN(150)
		var t podTemplate
		if g == 0 && rng.IntN(2) == 0 {
			// Scale-up of app0: its spec again, new replicas.
			t = sameAsFirst(c, "app0", count)
			shape = append(shape, "arrive-scale-up")
		} else {
			t = wideTemplate(rng, fmt.Sprintf("late%d", g), count, c.Pools)
			shape = append(shape, "arrive-"+t.kind)
		}
		for i := 0; i < t.count; i++ {
			c.Arrivals = append(c.Arrivals, makePod(fmt.Sprintf("%s-%d", t.lbls["app"], 100000+i), n, t))
			n++
		}
	}
	c.Shape = strings.Join(uniq(shape), ",")
	return c, nil
}

// sameAsFirst returns the template of a first-round app (its first pod's
// labels and spec) with count replicas.
func sameAsFirst(c *Case, app string, count int) podTemplate {
	for _, p := range c.Pods {
		if p.Labels["app"] == app {
			return podTemplate{kind: "scale-up", count: count, spec: *p.Spec.DeepCopy(), lbls: map[string]string{"app": app}}
		}
	}
	panic("fidelity: no pod of " + app)
}

var widePoolNames = []string{"general", "compute", "memory", "batch"}

func widePool(rng *rand.Rand, p, nPools int) (*karpv1.NodePool, []string) {
	name := widePoolNames[p]
	np := NewPool(name)
	tags := []string{capacityReq(np, rng.IntN(3))}
	// Category: Karpenter's documented defaults (c, m, r), a subset, or
	// none at all (every type, GPUs included, is an option).
	switch k := rng.IntN(10); {
	case k < 6:
		addReq(np, "karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, "c", "m", "r")
		tags = append(tags, "cat-cmr")
	case k < 9:
		cats := [][]string{{"c"}, {"m"}, {"r"}, {"c", "m"}, {"m", "r"}, {"t", "m"}}[rng.IntN(6)]
		addReq(np, "karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, cats...)
		tags = append(tags, "cat-"+strings.Join(cats, ""))
	default:
		tags = append(tags, "cat-any")
	}
	if rng.IntN(4) > 0 {
		g := []string{"2", "4", "5", "6"}[rng.IntN(4)]
		addReq(np, "karpenter.k8s.aws/instance-generation", corev1.NodeSelectorOpGt, g)
		tags = append(tags, "gen-gt"+g)
	}
	if rng.IntN(4) == 0 {
		zs := append([]string(nil), Zones...)
		rng.Shuffle(len(zs), func(i, j int) { zs[i], zs[j] = zs[j], zs[i] })
		zs = zs[:1+rng.IntN(2)]
		addReq(np, corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zs...)
		tags = append(tags, fmt.Sprintf("pool-%dzone", len(zs)))
	}
	if p > 0 && rng.IntN(2) == 0 {
		tags = append(tags, dedicate(np))
	}
	if nPools > 1 && rng.IntN(3) > 0 {
		tags = append(tags, weigh(rng, np))
	}
	switch rng.IntN(6) {
	case 0:
		cpu := []string{"32", "64", "128", "256"}[rng.IntN(4)]
		np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse(cpu)}
		tags = append(tags, "limit-cpu")
	case 1:
		np.Spec.Limits = karpv1.Limits{"nodes": resource.MustParse(fmt.Sprint(2 + rng.IntN(20)))}
		tags = append(tags, "limit-nodes")
	}
	return np, tags
}

var (
	wideCPUs = []string{"100m", "250m", "500m", "1", "2", "4"}
	wideMems = []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi", "16Gi"}
)

func wideTemplate(rng *rand.Rand, app string, count int, pools []*karpv1.NodePool) podTemplate {
	t := podTemplate{lbls: map[string]string{"app": app}, count: count}
	cpu, mem := wideCPUs[rng.IntN(len(wideCPUs))], wideMems[rng.IntN(len(wideMems))]
	t.spec.Containers = requesting(cpu, mem)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	spread := func(key string, skew int32) {
		t.spec.TopologySpreadConstraints = append(t.spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel})
	}
	anti := func(key string) {
		t.spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: sel, TopologyKey: key}}}}
	}
	switch k := rng.IntN(12); k {
	case 0, 1, 2:
		t.kind = "plain"
	case 3, 4:
		t.kind = "zone-spread"
		spread(corev1.LabelTopologyZone, int32(1+rng.IntN(2)))
	case 5:
		t.kind = "host-spread"
		spread(corev1.LabelHostname, int32(1+rng.IntN(3)))
	case 6:
		t.kind = "zone+host-spread"
		spread(corev1.LabelTopologyZone, 1)
		spread(corev1.LabelHostname, int32(1+rng.IntN(4)))
	case 7:
		t.kind = "host-anti-affinity"
		t.count = min(t.count, 60)
		anti(corev1.LabelHostname)
	case 8:
		t.kind = "zone-anti-affinity"
		t.count = min(t.count, 5)
		anti(corev1.LabelTopologyZone)
	case 9:
		t.kind = "arch-selector"
		t.spec.NodeSelector = map[string]string{corev1.LabelArchStable: []string{"amd64", "arm64"}[rng.IntN(2)]}
	case 10, 11:
		t.kind = "tolerations"
		t.spec.Tolerations = tolerateOne(rng, pools)
	}
	return t
}
