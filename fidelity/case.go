// Package fidelity compares clustersim's Karpenter provisioning solve
// (sim/karpenter) with upstream Karpenter's own (sigs.k8s.io/karpenter
// pkg/controllers/provisioning/scheduling Scheduler.Solve) on the same
// generated inputs. Upstream is imported as a module here only; this
// nested module keeps it out of the simulator's build.
package fidelity

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/statedump"
)

// Region and Zones of every case (the catalogue's prices are us-east-1's).
const Region = "us-east-1"

// Zones of every case.
var Zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// Offering is one instance type x zone x capacity type that is sold, at
// a known price.
type Offering struct {
	Zone         string
	CapacityType string // "on-demand" or "spot"
	Price        float64
}

// InstanceType is an instance type of a case with its offerings.
type InstanceType struct {
	Name      string
	Offerings []Offering
}

// Case is one input both solvers get: instance types with offerings,
// NodePools (upstream's API type: the same objects are compiled for ours)
// and pending pods.
type Case struct {
	Name  string
	Shape string // the kinds of pods and pools it exercises, for the report
	Types []InstanceType
	Pools []*karpv1.NodePool
	Pods  []*corev1.Pod
	// Arrivals, if any, are pods that arrive after the first round
	// launched its NodeClaims, before any is Ready: the second round
	// solves them with the first round's pods, still pending, against
	// the NodeClaims in flight.
	Arrivals []*corev1.Pod
	// Overlays are NodeOverlays, applied with the NodeOverlay gate on
	// (the overlay set only).
	Overlays []*v1alpha1.NodeOverlay
	// Reservations are capacity reservations every pool's EC2NodeClass
	// selects (the reservation set only).
	Reservations []Reservation
}

// podTemplate is a group of identical pods.
type podTemplate struct {
	kind  string
	count int
	spec  corev1.PodSpec
	lbls  map[string]string
}

var (
	cpus = []string{"100m", "250m", "500m", "1", "1500m", "2", "3500m"}
	mems = []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "7Gi"}
	// common families: most cases draw their instance types from these.
	commonFamilies = []string{"m5", "c5", "r5", "m6i", "c6i", "r6i", "m6a", "c6a", "t3", "m6g", "c6g", "r6g", "m7i", "c7i"}
	commonSizes    = []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge"}
)

// Generate returns n cases derived from seed; the same seed gives the same
// cases.
func Generate(cat *catalog.Catalog, seed uint64, n int) ([]*Case, error) {
	return generateN(cat, seed, n, generateOne)
}

// generateN returns cases 0 to n-1 of seed, each made by one.
func generateN(cat *catalog.Catalog, seed uint64, n int, one func(*catalog.Catalog, uint64, int) (*Case, error)) ([]*Case, error) {
	var out []*Case
	for i := 0; i < n; i++ {
		c, err := one(cat, seed, i)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// general returns the catalogue's non-GPU, non-metal types in catalogue
// order.
func general(cat *catalog.Catalog) []*catalog.InstanceType {
	var out []*catalog.InstanceType
	for _, it := range cat.Types() {
		if it.GPU > 0 || strings.Contains(it.Size, "metal") || it.OnDemandUSDPerHour <= 0 {
			continue
		}
		out = append(out, it)
	}
	return out
}

func generateOne(cat *catalog.Catalog, seed uint64, idx int) (*Case, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(idx)*0x9e3779b97f4a7c15+1))
	c := &Case{Name: fmt.Sprintf("case-%03d", idx)}

	// Instance types: a handful of common ones, a wide random draw, or
	// (as upstream's benchmark) 400 of them.
	all := general(cat)
	var chosen []*catalog.InstanceType
	mode := rng.IntN(10)
	switch {
	case mode < 6:
		want := 4 + rng.IntN(12)
		for _, it := range all {
			if contains(commonFamilies, it.Family) && contains(commonSizes, it.Size) {
				chosen = append(chosen, it)
			}
		}
		rng.Shuffle(len(chosen), func(i, j int) { chosen[i], chosen[j] = chosen[j], chosen[i] })
		chosen = chosen[:min(want, len(chosen))]
	case mode < 9:
		perm := rng.Perm(len(all))
		for _, p := range perm[:40+rng.IntN(80)] {
			chosen = append(chosen, all[p])
		}
	default:
		perm := rng.Perm(len(all))
		for _, p := range perm[:min(400, len(all))] {
			chosen = append(chosen, all[p])
		}
	}
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].Name < chosen[j].Name })
	for _, it := range chosen {
		od, _, ok := cat.OnDemandPrice(Region, it.Name)
		if !ok {
			continue
		}
		spot, spotOK := cat.SpotPriceEstimate(Region, it.Name)
		t := InstanceType{Name: it.Name, Offerings: drawOfferings(rng, od, spot, spotOK)}
		if len(t.Offerings) > 0 {
			c.Types = append(c.Types, t)
		}
	}

	// NodePools.
	nPools := 1 + rng.IntN(3)
	var shape []string
	for p := 0; p < nPools; p++ {
		np, tags := genPool(rng, p, nPools)
		c.Pools = append(c.Pools, np)
		shape = append(shape, tags...)
	}

	// Pods: a few groups of varied kinds.
	big := rng.IntN(12) == 0
	nGroups := 1 + rng.IntN(4)
	var tmpls []podTemplate
	for g := 0; g < nGroups; g++ {
		tmpls = append(tmpls, genTemplate(rng, g, c.Pools, big))
	}
	n := 0
	for _, t := range tmpls {
		shape = append(shape, t.kind)
		for i := 0; i < t.count; i++ {
			c.Pods = append(c.Pods, makePod(fmt.Sprintf("%s-%d", t.lbls["app"], i), n, t))
			n++
		}
	}
	c.Shape = strings.Join(uniq(shape), ",")
	return c, nil
}

// drawOfferings draws an instance type's offerings zone by zone:
// on-demand at od in 95% of zones, spot (when spotOK) in 85%, at the spot
// estimate times 0.9, 1.0 or 1.12 (spot prices differ by zone), rounded
// to 1/10000 USD.
func drawOfferings(rng *rand.Rand, od, spot float64, spotOK bool) []Offering {
	spotFactor := []float64{0.9, 1.0, 1.12}
	var out []Offering
	for z, zone := range Zones {
		if rng.Float64() < 0.95 {
			out = append(out, Offering{Zone: zone, CapacityType: karpv1.CapacityTypeOnDemand, Price: od})
		}
		if spotOK && rng.Float64() < 0.85 {
			f := spotFactor[(z+rng.IntN(3))%3]
			p := float64(int64(spot*f*10000+0.5)) / 10000
			out = append(out, Offering{Zone: zone, CapacityType: karpv1.CapacityTypeSpot, Price: p})
		}
	}
	return out
}

func genPool(rng *rand.Rand, p, nPools int) (*karpv1.NodePool, []string) {
	name := []string{"alpha", "bravo", "charlie"}[p]
	np := NewPool(name)
	tags := []string{capacityReq(np, rng.IntN(4))}
	if rng.IntN(3) == 0 {
		cats := [][]string{{"c", "m"}, {"m", "r"}, {"c", "m", "r"}, {"m"}}[rng.IntN(4)]
		addReq(np, "karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, cats...)
		tags = append(tags, "pool-category")
	}
	if rng.IntN(4) == 0 {
		addReq(np, corev1.LabelArchStable, corev1.NodeSelectorOpIn, []string{"amd64", "arm64"}[rng.IntN(2)])
		tags = append(tags, "pool-arch")
	}
	if rng.IntN(5) == 0 {
		addReq(np, corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, Zones[:2]...)
		tags = append(tags, "pool-zones")
	}
	if rng.IntN(6) == 0 {
		addReq(np, "karpenter.k8s.aws/instance-generation", corev1.NodeSelectorOpGt, "5")
		tags = append(tags, "pool-gen-gt")
	}
	if rng.IntN(3) == 0 {
		np.Spec.Template.Labels = map[string]string{"team": name}
		tags = append(tags, "pool-label")
	}
	if p > 0 && rng.IntN(2) == 0 || nPools == 1 && rng.IntN(5) == 0 {
		tags = append(tags, dedicate(np))
	}
	if nPools > 1 && rng.IntN(3) > 0 {
		tags = append(tags, weigh(rng, np))
	}
	if rng.IntN(5) == 0 {
		cpu := []string{"8", "16", "32", "64"}[rng.IntN(4)]
		np.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse(cpu)}
		tags = append(tags, "limit-cpu")
	} else if rng.IntN(8) == 0 {
		np.Spec.Limits = karpv1.Limits{"nodes": resource.MustParse(fmt.Sprint(1 + rng.IntN(4)))}
		tags = append(tags, "limit-nodes")
	}
	return np, tags
}

func genTemplate(rng *rand.Rand, g int, pools []*karpv1.NodePool, big bool) podTemplate {
	app := fmt.Sprintf("app%d", g)
	t := podTemplate{lbls: map[string]string{"app": app}}
	t.count = 1 + rng.IntN(40)
	if big {
		t.count = 100 + rng.IntN(400)
	}
	cpu, mem := cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))]
	t.spec.Containers = requesting(cpu, mem)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	affinity := func() *corev1.Affinity {
		if t.spec.Affinity == nil {
			t.spec.Affinity = &corev1.Affinity{}
		}
		return t.spec.Affinity
	}
	switch k := rng.IntN(14); k {
	case 0, 1:
		t.kind = "plain"
	case 2, 3:
		t.kind = "zone-spread"
		skew := int32(1 + rng.IntN(2))
		t.spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: skew, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	case 4:
		t.kind = "host-spread"
		t.spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1 + int32(rng.IntN(3)), TopologyKey: corev1.LabelHostname,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	case 5, 6:
		t.kind = "host-anti-affinity"
		t.count = min(t.count, 25)
		affinity().PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: sel, TopologyKey: corev1.LabelHostname}}}
	case 7:
		t.kind = "zone-affinity"
		affinity().PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: sel, TopologyKey: corev1.LabelTopologyZone}}}
	case 8:
		t.kind = "node-selector"
		t.spec.NodeSelector = map[string]string{}
		switch rng.IntN(6) {
		case 0:
			t.spec.NodeSelector[corev1.LabelTopologyZone] = Zones[rng.IntN(len(Zones))]
		case 1:
			t.spec.NodeSelector[karpv1.CapacityTypeLabelKey] = []string{"spot", "on-demand"}[rng.IntN(2)]
		case 2:
			t.spec.NodeSelector[corev1.LabelArchStable] = []string{"amd64", "arm64"}[rng.IntN(2)]
		case 3:
			t.spec.NodeSelector["karpenter.k8s.aws/instance-family"] = commonFamilies[rng.IntN(len(commonFamilies))]
		case 4:
			t.spec.NodeSelector["team"] = pools[rng.IntN(len(pools))].Name
		case 5:
			t.spec.NodeSelector[karpv1.NodePoolLabelKey] = pools[rng.IntN(len(pools))].Name
		}
	case 9:
		t.kind = "node-affinity"
		reqs := []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: Zones[1:]}}
		if rng.IntN(2) == 0 {
			reqs = append(reqs, corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"t"}})
		}
		if rng.IntN(2) == 0 {
			reqs = append(reqs, corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: corev1.NodeSelectorOpGt, Values: []string{"3"}})
		}
		affinity().NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}}}
	case 10, 11:
		t.kind = "tolerations"
		t.spec.Tolerations = tolerateOne(rng, pools)
		if rng.IntN(2) == 0 {
			t.spec.NodeSelector = map[string]string{karpv1.NodePoolLabelKey: pools[rng.IntN(len(pools))].Name}
		}
	case 12:
		t.kind = "preferred-zone"
		affinity().NodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{Zones[rng.IntN(len(Zones))]}}}}}}}
	case 13:
		t.kind = "unschedulable"
		switch rng.IntN(3) {
		case 0:
			t.spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("500")
		case 1:
			t.spec.NodeSelector = map[string]string{"no-such-label": "x"}
		case 2:
			t.spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: "us-east-1z"}
		}
		t.count = min(t.count, 5)
	}
	return t
}

// dedicate taints np dedicated=<its name>:NoSchedule, the taint
// tolerateOne tolerates, and returns the case tag.
func dedicate(np *karpv1.NodePool) string {
	np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: np.Name, Effect: corev1.TaintEffectNoSchedule}}
	return "pool-taint"
}

// weigh gives np a weight of 1, 10, 50 or 100, drawn at random, and
// returns the case tag.
func weigh(rng *rand.Rand, np *karpv1.NodePool) string {
	w := int32([]int{1, 10, 50, 100}[rng.IntN(4)])
	np.Spec.Weight = &w
	return "weights"
}

// tolerateOne tolerates the dedicated taint of one of the tainted pools,
// drawn at random, or of none ("none") when no pool is tainted.
func tolerateOne(rng *rand.Rand, pools []*karpv1.NodePool) []corev1.Toleration {
	var tainted []string
	for _, p := range pools {
		for _, tt := range p.Spec.Template.Spec.Taints {
			tainted = append(tainted, tt.Value)
		}
	}
	v := "none"
	if len(tainted) > 0 {
		v = tainted[rng.IntN(len(tainted))]
	}
	return []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: v, Effect: corev1.TaintEffectNoSchedule}}
}

// requesting is a pod's one container, requesting cpu and mem.
func requesting(cpu, mem string) []corev1.Container {
	return []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}
}

// makePod builds pod n of a template. Every pod is created at the same
// time; its UID is the one our state dump gives a pod of its name
// (statedump.UID), whose order is our queue's tie-break (cluster
// PodUIDRank), so both solvers break ties between equal pods alike, of
// one template or of two.
func makePod(name string, _ int, t podTemplate) *corev1.Pod {
	labels := map[string]string{}
	for k, v := range t.lbls {
		labels[k] = v
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: statedump.UID("Pod", "default", name),
			Labels: labels, CreationTimestamp: metav1.Unix(1700000000, 0)},
		Spec:   *t.spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// NewPool returns a NodePool on the default node class with the given
// requirements (key, operator, values...).
func NewPool(name string, reqs ...karpv1.NodeSelectorRequirementWithMinValues) *karpv1.NodePool {
	return &karpv1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("pool-" + name)},
		Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: karpv1.NodeClaimTemplateSpec{
			NodeClassRef: &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: reqs,
		}}},
	}
}

// Req is one NodePool requirement.
func Req(key string, op corev1.NodeSelectorOperator, vals ...string) karpv1.NodeSelectorRequirementWithMinValues {
	return karpv1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: vals}
}

// AddPods appends count pods labelled app=<app> with the requests; edit,
// when set, changes their spec.
func (c *Case) AddPods(app string, count int, cpu, mem string, edit func(*corev1.PodSpec)) {
	t := podTemplate{lbls: map[string]string{"app": app}}
	t.spec.Containers = requesting(cpu, mem)
	if edit != nil {
		edit(&t.spec)
	}
	for i := 0; i < count; i++ {
		c.Pods = append(c.Pods, makePod(fmt.Sprintf("%s-%d", app, i), len(c.Pods), t))
	}
}

// addReq appends the requirement key op vals to np's template.
func addReq(np *karpv1.NodePool, key string, op corev1.NodeSelectorOperator, vals ...string) {
	np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, Req(key, op, vals...))
}

// capacityReq restricts np's capacity type by the draw k: 0 on-demand, 1
// spot, any other both; it returns the case tag for the choice.
func capacityReq(np *karpv1.NodePool, k int) string {
	switch k {
	case 0:
		addReq(np, karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand)
		return "pool-od"
	case 1:
		addReq(np, karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot)
		return "pool-spot"
	default:
		addReq(np, karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand)
		return "pool-spot+od"
	}
}
