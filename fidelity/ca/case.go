// Package ca compares clustersim's Cluster Autoscaler scale-up decision
// (sim/clusterautoscaler, Autoscaler.DecideScaleUp) with upstream's
// (sigs.k8s.io/cluster-autoscaler pkg/core/scaleup/orchestrator, driven
// with its test cloud provider as upstream's own scale-up tests do) on the
// same generated node groups and pending pods; and its scale-down plan
// (Autoscaler.PlanScaleDown) with upstream's planner
// (pkg/core/scaledown/planner with its eligibility checker, removal
// simulator and default drainability rules) on the same generated
// clusters (scaledown_*.go).
//
// Upstream is not served by the Go module proxy, so this nested module
// builds against a checkout of kubernetes-sigs/cluster-autoscaler in
// .upstream/cluster-autoscaler at the root of the repository (see the
// Makefile's fidelity-ca target); nothing of upstream is copied into the
// repository.
package ca

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/clustersim/clustersim/sim/catalog"
)

// Region and Zones of every case.
const Region = "us-east-1"

// Zones of every case.
var Zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// Taint is a node group's taint (always NoSchedule here).
type Taint struct{ Key, Value string }

// Group is one generated node group (an ASG of one instance type).
type Group struct {
	Name         string // also the ASG's name, which priorities match
	InstanceType string
	Zones        []string
	Min, Max     int
	Size         int // current nodes, Ready, each full with one filler pod
	Labels       map[string]string
	Taints       []Taint
}

// Case is one input both sides get.
type Case struct {
	Name   string
	Shape  string // kinds of groups and pods, for reports
	Groups []Group
	Pods   []*corev1.Pod // pending
	// Expanders is the --expander chain; Priorities the priority
	// expander's ConfigMap (priority -> regexes on group names).
	Expanders  []string
	Priorities map[int][]string
}

var (
	families = []string{"m5", "c5", "r5", "m6i", "c6i", "r6i", "m6g", "c6g", "t3", "m7i"}
	sizes    = []string{"large", "xlarge", "2xlarge", "4xlarge"}
	cpus     = []string{"100m", "250m", "500m", "1", "1500m", "2", "3500m"}
	mems     = []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "7Gi"}
	chains   = [][]string{{"least-waste"}, {"most-pods"}, {"priority"}, {"priority", "least-waste"}}
)

// Generate returns n cases derived from seed; the same seed gives the same
// cases. Case i uses the expander chain i mod 4, so every chain gets a
// quarter of the cases.
func Generate(cat *catalog.Catalog, seed uint64, n int) ([]*Case, error) {
	var itypes []string
	for _, f := range families {
		for _, s := range sizes {
			if _, ok := cat.Lookup(f + "." + s); ok {
				itypes = append(itypes, f+"."+s)
			}
		}
	}
	if len(itypes) == 0 {
		return nil, fmt.Errorf("fidelity-ca: no instance itypes of %v in the catalogue", families)
	}
	out := make([]*Case, n)
	for i := range out {
		out[i] = generateOne(itypes, seed, i)
	}
	return out, nil
}

func generateOne(itypes []string, seed uint64, idx int) *Case {
	rng := rand.New(rand.NewPCG(seed, uint64(idx)*0x9e3779b97f4a7c15+7))
	c := &Case{Name: fmt.Sprintf("case-%03d", idx), Expanders: chains[idx%len(chains)]}
	var shape []string
	nGroups := 1 + rng.IntN(5)
	teams := []string{"a", "b"}
	for g := 0; g < nGroups; g++ {
		it := itypes[rng.IntN(len(itypes))]
		gr := Group{
			Name:         fmt.Sprintf("ng-%d-%s", g, strings.ReplaceAll(it, ".", "-")),
			InstanceType: it,
			Labels:       map[string]string{},
		}
		switch rng.IntN(3) {
		case 0:
			gr.Zones = []string{Zones[rng.IntN(len(Zones))]}
		case 1:
			gr.Zones = append([]string(nil), Zones[:2]...)
		default:
			gr.Zones = append([]string(nil), Zones...)
		}
		if len(gr.Zones) > 1 {
			shape = append(shape, "multi-zone")
		}
		gr.Size = []int{0, 0, 1, 2, 3}[rng.IntN(5)]
		gr.Min = min(gr.Size, rng.IntN(2))
		gr.Max = gr.Size + []int{1, 3, 10, 50}[rng.IntN(4)]
		if rng.IntN(3) == 0 {
			gr.Labels["team"] = teams[rng.IntN(2)]
			shape = append(shape, "labels")
		}
		if rng.IntN(4) == 0 {
			gr.Taints = []Taint{{Key: "dedicated", Value: teams[rng.IntN(2)]}}
			shape = append(shape, "taints")
		}
		c.Groups = append(c.Groups, gr)
	}
	if contains(c.Expanders, "priority") {
		c.Priorities = map[int][]string{}
		for g := range c.Groups {
			if rng.IntN(4) == 0 {
				continue // no priority: upstream drops the group
			}
			p := 10 * (1 + rng.IntN(3))
			c.Priorities[p] = append(c.Priorities[p], fmt.Sprintf("ng-%d-.*", g))
		}
		if len(c.Priorities) == 0 {
			c.Priorities[10] = []string{".*"}
		}
	}
	nTmpl := 1 + rng.IntN(3)
	n := 0
	for t := 0; t < nTmpl; t++ {
		kind, pods := genPods(rng, c, t)
		shape = append(shape, kind)
		for _, p := range pods {
			p.Name = fmt.Sprintf("%s-%d", p.Labels["app"], n)
			p.UID = types.UID(c.Name + "/" + p.Name)
			n++
			c.Pods = append(c.Pods, p)
		}
	}
	c.Shape = strings.Join(uniq(shape), ",")
	return c
}

// genPods returns count copies of one pod template of a random kind.
func genPods(rng *rand.Rand, c *Case, t int) (string, []*corev1.Pod) {
	app := fmt.Sprintf("app%d", t)
	i := rng.IntN(len(cpus))
	j := max(0, min(len(mems)-1, i+rng.IntN(3)-1))
	spec := corev1.PodSpec{Containers: []corev1.Container{{
		Name:  "c",
		Image: "busybox",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpus[i]),
			corev1.ResourceMemory: resource.MustParse(mems[j]),
		}},
	}}}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	count := 1 + rng.IntN(30)
	kinds := []string{"plain", "zone-spread", "host-spread", "anti-affinity", "selector", "toleration"}
	kind := kinds[rng.IntN(len(kinds))]
	switch kind {
	case "zone-spread":
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: int32(1 + rng.IntN(2)), TopologyKey: "topology.kubernetes.io/zone",
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	case "host-spread":
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	case "anti-affinity":
		count = 1 + rng.IntN(12)
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: "kubernetes.io/hostname", LabelSelector: sel}}}}
	case "selector":
		spec.NodeSelector = map[string]string{"team": []string{"a", "b"}[rng.IntN(2)]}
	case "toleration":
		spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual,
			Value: []string{"a", "b"}[rng.IntN(2)], Effect: corev1.TaintEffectNoSchedule}}
	}
	controller := true
	out := make([]*corev1.Pod, count)
	for k := range out {
		out[k] = &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Labels: map[string]string{"app": app},
				// One ReplicaSet per template: upstream groups pods by
				// controller into equivalence groups.
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app,
					UID: types.UID(c.Name + "/rs/" + app), Controller: &controller}}},
			Spec: *spec.DeepCopy(),
		}
	}
	return kind, out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func uniq(xs []string) []string {
	sort.Strings(xs)
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
