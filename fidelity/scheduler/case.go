// Package schedfidelity compares clustersim's kube-scheduler model
// (sim/scheduler) with upstream's scheduler framework (k8s.io/kubernetes
// pkg/scheduler, default profile and plugins) pod by pod on the same
// generated clusters: the feasible nodes, the nodes of top score, the
// chosen node and the fit error of an unschedulable pod. Upstream is
// imported as a module here only; this nested module keeps it (and its
// staging modules) out of the simulator's build.
package schedfidelity

import (
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Region of every case.
const Region = "us-east-1"

// Well-known label keys the cases use.
const (
	LabelZone     = "topology.kubernetes.io/zone"
	LabelRegion   = "topology.kubernetes.io/region"
	LabelHostname = "kubernetes.io/hostname"
)

// Priority classes of the cases and their values.
var PriorityClasses = map[string]int32{"": 0, "low": -10, "high": 1000}

// Case is one cluster and the pods to place on it, in order. Existing pods
// carry spec.nodeName.
type Case struct {
	Name     string
	Nodes    []*corev1.Node
	Existing []*corev1.Pod
	Pods     []*corev1.Pod
	// Percentage is percentageOfNodesToScore: 100, or 0 for the adaptive
	// default (the sampled cases, which have more than 100 nodes).
	Percentage int32
}

var (
	zoneNames = []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}
	apps      = []string{"web", "db", "cache", "batch"}
	tiers     = []string{"front", "back"}
	pools     = []string{"general", "compute", "memory"}
	cpus      = []string{"2", "4", "8", "16"}
	mems      = []string{"4Gi", "8Gi", "16Gi", "32Gi", "64Gi"}
	reqCPUs   = []string{"", "100m", "250m", "500m", "1", "1500m", "2", "3", "6"}
	reqMems   = []string{"", "128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "12Gi"}
	taints    = []corev1.Taint{
		{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule},
		{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule},
		{Key: "maintenance", Effect: corev1.TaintEffectNoExecute},
	}
)

// Generate returns n cases derived from seed: every fourth is a sampled
// case (more than 100 nodes, the adaptive percentageOfNodesToScore). The
// same seed gives the same cases.
func Generate(seed uint64, n int) []*Case {
	out := make([]*Case, 0, n)
	for i := range n {
		out = append(out, generateOne(seed, i))
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func generateOne(seed uint64, i int) *Case {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	c := &Case{Name: fmt.Sprintf("case-%03d", i), Percentage: 100}
	nNodes := 3 + r.IntN(30)
	nPods := 8 + r.IntN(12)
	if i%4 == 3 {
		c.Percentage = 0
		nNodes = 110 + r.IntN(300)
		nPods = 30
	}
	nZones := 1 + r.IntN(len(zoneNames))
	for j := range nNodes {
		c.Nodes = append(c.Nodes, genNode(r, fmt.Sprintf("node-%03d", j), zoneNames[:nZones]))
	}
	// Pods come from a few templates, as Deployments make them: replicas
	// spread and repel one another.
	var oldTmpls, newTmpls []*corev1.Pod
	for k := range 4 + r.IntN(5) {
		oldTmpls = append(oldTmpls, genPod(r, fmt.Sprintf("old-tmpl-%d", k), true))
	}
	for k := range 3 + r.IntN(4) {
		newTmpls = append(newTmpls, genPod(r, fmt.Sprintf("tmpl-%d", k), false))
	}
	// Existing pods: each node gets a few, some with (anti-)affinity of
	// their own.
	k := 0
	for _, n := range c.Nodes {
		if n.Spec.Unschedulable && r.IntN(2) == 0 {
			continue
		}
		for range r.IntN(5) {
			p := replica(pick(r, oldTmpls), fmt.Sprintf("old-%03d", k))
			p.Spec.NodeName = n.Name
			if !fits(p, n, c.Existing) {
				continue
			}
			c.Existing = append(c.Existing, p)
			k++
		}
	}
	for j := range nPods {
		c.Pods = append(c.Pods, replica(pick(r, newTmpls), fmt.Sprintf("pod-%03d", j)))
	}
	return c
}

// replica is a pod of a template.
func replica(tmpl *corev1.Pod, name string) *corev1.Pod {
	p := tmpl.DeepCopy()
	p.Name, p.UID = name, types.UID("uid-"+name)
	return p
}

func genNode(r *rand.Rand, name string, zones []string) *corev1.Node {
	labels := map[string]string{LabelHostname: name, "pool": pick(r, pools)}
	if r.IntN(20) != 0 { // a few nodes carry no zone
		labels[LabelZone] = pick(r, zones)
		labels[LabelRegion] = Region
	}
	if r.IntN(2) == 0 {
		labels["disk"] = pick(r, []string{"ssd", "hdd"})
	}
	if r.IntN(6) == 0 {
		labels["gpu"] = "true"
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels}}
	n.Spec.Unschedulable = r.IntN(25) == 0
	for _, t := range taints {
		if r.IntN(8) == 0 {
			n.Spec.Taints = append(n.Spec.Taints, t)
		}
	}
	pods := "110"
	if r.IntN(8) == 0 {
		pods = fmt.Sprint(2 + r.IntN(4))
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(pick(r, cpus)),
		corev1.ResourceMemory: resource.MustParse(pick(r, mems)),
		corev1.ResourcePods:   resource.MustParse(pods),
	}
	n.Status = corev1.NodeStatus{Allocatable: alloc, Capacity: alloc,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}
	return n
}

// fits reports whether an existing pod's requests fit the node beside the
// pods already there (so the start state is one a scheduler could reach).
func fits(p *corev1.Pod, n *corev1.Node, existing []*corev1.Pod) bool {
	cpu := n.Status.Allocatable.Cpu().MilliValue()
	mem := n.Status.Allocatable.Memory().Value()
	count := n.Status.Allocatable.Pods().Value()
	add := func(q *corev1.Pod) {
		rq := q.Spec.Containers[0].Resources.Requests
		cpu -= rq.Cpu().MilliValue()
		mem -= rq.Memory().Value()
		count--
	}
	for _, q := range existing {
		if q.Spec.NodeName == n.Name {
			add(q)
		}
	}
	add(p)
	return cpu >= 0 && mem >= 0 && count >= 0
}

func labelSel(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func topoKey(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return LabelZone
	}
	return LabelHostname
}

func podTerm(r *rand.Rand) corev1.PodAffinityTerm {
	t := corev1.PodAffinityTerm{TopologyKey: topoKey(r)}
	if r.IntN(4) == 0 {
		t.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{pick(r, apps), pick(r, apps)}}}}
	} else {
		t.LabelSelector = labelSel("app", pick(r, apps))
	}
	return t
}

// genPod draws a pod. Existing pods are simpler: requests, labels and
// sometimes (anti-)affinity terms of their own, which new pods must
// respect (symmetry).
func genPod(r *rand.Rand, name string, existing bool) *corev1.Pod {
	app, tier := pick(r, apps), pick(r, tiers)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
		Labels: map[string]string{"app": app, "tier": tier}}}
	req := corev1.ResourceList{}
	if v := pick(r, reqCPUs); v != "" {
		req[corev1.ResourceCPU] = resource.MustParse(v)
	}
	if v := pick(r, reqMems); v != "" {
		req[corev1.ResourceMemory] = resource.MustParse(v)
	}
	p.Spec.Containers = []corev1.Container{{Name: "c", Image: "app", Resources: corev1.ResourceRequirements{Requests: req}}}
	class := pick(r, []string{"", "", "low", "high"})
	p.Spec.PriorityClassName = class
	prio := PriorityClasses[class]
	p.Spec.Priority = &prio
	p.Spec.SchedulerName = corev1.DefaultSchedulerName
	if existing {
		if r.IntN(8) == 0 {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm(r)}}}
		} else if r.IntN(8) == 0 {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + r.IntN(100)), PodAffinityTerm: podTerm(r)}}}}
		}
		return p
	}
	if r.IntN(5) == 0 {
		p.Spec.NodeSelector = map[string]string{"pool": pick(r, pools)}
	}
	aff := &corev1.Affinity{}
	if r.IntN(5) == 0 {
		req := corev1.NodeSelectorRequirement{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}
		switch r.IntN(3) {
		case 1:
			req = corev1.NodeSelectorRequirement{Key: "pool", Operator: corev1.NodeSelectorOpNotIn, Values: []string{pick(r, pools)}}
		case 2:
			req = corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpDoesNotExist}
		}
		aff.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req}}}}}
	}
	if r.IntN(3) == 0 {
		if aff.NodeAffinity == nil {
			aff.NodeAffinity = &corev1.NodeAffinity{}
		}
		for range 1 + r.IntN(2) {
			aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.PreferredSchedulingTerm{Weight: int32(1 + r.IntN(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: pick(r, []string{"disk", "pool", LabelZone}), Operator: corev1.NodeSelectorOpIn,
						Values: []string{pick(r, []string{"ssd", "general", "compute", zoneNames[0], zoneNames[1]})}}}}})
		}
	}
	if r.IntN(3) == 0 {
		for _, t := range taints {
			if r.IntN(2) == 0 {
				tol := corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}
				if t.Value == "" || r.IntN(3) == 0 {
					tol = corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpExists}
				}
				p.Spec.Tolerations = append(p.Spec.Tolerations, tol)
			}
		}
	}
	if r.IntN(5) == 0 {
		aff.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm(r)}}
	}
	if r.IntN(4) == 0 {
		if aff.PodAffinity == nil {
			aff.PodAffinity = &corev1.PodAffinity{}
		}
		aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + r.IntN(100)), PodAffinityTerm: podTerm(r)}}
	}
	if r.IntN(4) == 0 {
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm(r)}}
	}
	if r.IntN(4) == 0 {
		if aff.PodAntiAffinity == nil {
			aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(1 + r.IntN(100)), PodAffinityTerm: podTerm(r)}}
	}
	if aff.NodeAffinity != nil || aff.PodAffinity != nil || aff.PodAntiAffinity != nil {
		p.Spec.Affinity = aff
	}
	if r.IntN(5) < 2 {
		for range 1 + r.IntN(2) {
			p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, genSpread(r, app))
		}
		// Two constraints on one key and condition are invalid.
		if len(p.Spec.TopologySpreadConstraints) == 2 {
			a, b := p.Spec.TopologySpreadConstraints[0], p.Spec.TopologySpreadConstraints[1]
			if a.TopologyKey == b.TopologyKey && a.WhenUnsatisfiable == b.WhenUnsatisfiable {
				p.Spec.TopologySpreadConstraints = p.Spec.TopologySpreadConstraints[:1]
			}
		}
	}
	return p
}

func genSpread(r *rand.Rand, app string) corev1.TopologySpreadConstraint {
	c := corev1.TopologySpreadConstraint{MaxSkew: int32(1 + r.IntN(3)), TopologyKey: topoKey(r),
		WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: labelSel("app", app)}
	if r.IntN(3) == 0 {
		c.WhenUnsatisfiable = corev1.ScheduleAnyway
	}
	if c.WhenUnsatisfiable == corev1.DoNotSchedule && r.IntN(3) == 0 {
		m := int32(1 + r.IntN(5))
		c.MinDomains = &m
	}
	policies := []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}
	if r.IntN(2) == 0 {
		v := pick(r, policies)
		c.NodeAffinityPolicy = &v
	}
	if r.IntN(2) == 0 {
		v := pick(r, policies)
		c.NodeTaintsPolicy = &v
	}
	if r.IntN(3) == 0 {
		c.MatchLabelKeys = []string{"tier"}
	}
	return c
}
