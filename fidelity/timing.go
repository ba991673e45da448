package fidelity

import (
	"fmt"
	"io"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
)

// TimingCase is one point of the timing grid: a shape of pods, how many,
// and how many instance types the NodePool may choose from.
type TimingCase struct {
	Shape string // plain, zone-spread, host-anti-affinity
	Pods  int
	Types int
	// Existing nodes the solve must consider first: full ones (no pod
	// fits), not managed by Karpenter, as the nodes of a busy cluster are
	// to the pods a batch holds.
	Existing int
}

// TimingGrid is the grid `fidelity -timing` measures: pod counts and
// instance-type counts around a real burst (upstream's scheduling
// benchmark uses 400 types), for pods with no constraint, with a hard zone
// spread, and with hostname anti-affinity (one node each, the costliest).
func TimingGrid() []TimingCase {
	var out []TimingCase
	for _, shape := range []string{"plain", "zone-spread"} {
		for _, p := range []int{100, 500, 1000, 2500, 5000} {
			for _, t := range []int{20, 100, 400} {
				out = append(out, TimingCase{shape, p, t, 0})
			}
		}
	}
	for _, p := range []int{50, 100, 250, 500} {
		for _, t := range []int{20, 100, 400} {
			out = append(out, TimingCase{"host-anti-affinity", p, t, 0})
		}
	}
	for _, shape := range []string{"plain", "zone-spread"} {
		for _, p := range []int{500, 2000} {
			for _, e := range []int{500, 2000, 5000} {
				out = append(out, TimingCase{shape, p, 100, e})
			}
		}
	}
	return out
}

// TimingCaseOf builds the case of a grid point: the first Types general
// instance types of the catalogue in name order, offered on demand and
// spot in every zone; one NodePool allowing both; Pods pods in five
// templates of different sizes, with the shape's constraint.
func TimingCaseOf(cat *catalog.Catalog, tc TimingCase) (*Case, error) {
	c := &Case{Name: fmt.Sprintf("%s-%dpods-%dtypes-%dnodes", tc.Shape, tc.Pods, tc.Types, tc.Existing), Shape: tc.Shape}
	for _, it := range general(cat) {
		if len(c.Types) == tc.Types {
			break
		}
		od, _, ok := cat.OnDemandPrice(Region, it.Name)
		spot, spotOK := cat.SpotPriceEstimate(Region, it.Name)
		if !ok || !spotOK {
			continue
		}
		t := InstanceType{Name: it.Name}
		for _, z := range Zones {
			t.Offerings = append(t.Offerings, Offering{Zone: z, CapacityType: karpv1.CapacityTypeOnDemand, Price: od},
				Offering{Zone: z, CapacityType: karpv1.CapacityTypeSpot, Price: spot})
		}
		c.Types = append(c.Types, t)
	}
	if len(c.Types) < tc.Types {
		return nil, fmt.Errorf("%s: the catalogue has only %d general instance types", c.Name, len(c.Types))
	}
	c.Pools = []*karpv1.NodePool{NewPool("default", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "on-demand"))}
	sizes := [][2]string{{"250m", "512Mi"}, {"500m", "1Gi"}, {"1", "2Gi"}, {"1500m", "3Gi"}, {"2", "4Gi"}}
	for g, sz := range sizes {
		n := tc.Pods / len(sizes)
		if g < tc.Pods%len(sizes) {
			n++
		}
		app := fmt.Sprintf("app%d", g)
		var edit func(*corev1.PodSpec)
		switch tc.Shape {
		case "zone-spread":
			edit = timingSpread(app)
		case "host-anti-affinity":
			edit = timingAnti(app)
		}
		c.AddPods(app, n, sz[0], sz[1], edit)
	}
	return c, nil
}

func timingSpread(app string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	}
}

func timingAnti(app string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: corev1.LabelHostname}}}}
	}
}

// Timing is one grid point measured.
type Timing struct {
	TimingCase
	NodeClaims int
	Up, Ours   time.Duration // the fastest of the runs
}

// MeasureTiming runs upstream's and our solve runs times each on the
// case and keeps each one's fastest run (the least disturbed by other
// load on the machine).
func MeasureTiming(cat *catalog.Catalog, tc TimingCase, runs int) (Timing, error) {
	c, err := TimingCaseOf(cat, tc)
	if err != nil {
		return Timing{}, err
	}
	ours, err := BuildOurs(cat, c)
	if err != nil {
		return Timing{}, err
	}
	up, err := BuildUpstream(c, ours)
	if err != nil {
		return Timing{}, err
	}
	up.nodes = existingNodes(tc.Existing)
	t := Timing{TimingCase: tc, Up: time.Duration(math.MaxInt64), Ours: time.Duration(math.MaxInt64)}
	for range runs {
		start := time.Now()
		out, err := up.Run()
		t.Up = min(t.Up, time.Since(start))
		if err != nil {
			return Timing{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		t.NodeClaims = len(out.Nodes)
		if tc.Existing > 0 {
			continue // ours would need the nodes in its cluster: upstream only
		}
		start = time.Now()
		ours.Solver.Solve(ours.Pods)
		t.Ours = min(t.Ours, time.Since(start))
	}
	return t, nil
}

// existingNodes are n Ready nodes spread over the zones, full: 100m of
// CPU allocatable, less than any timing pod requests.
func existingNodes(n int) []*state.StateNode {
	var out []*state.StateNode
	for i := range n {
		name := fmt.Sprintf("existing-%05d", i)
		sn := state.NewNode()
		sn.Node = &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				corev1.LabelHostname: name, corev1.LabelTopologyZone: Zones[i%len(Zones)],
				corev1.LabelInstanceTypeStable: "m5.large", karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand,
				corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"}},
			Spec: corev1.NodeSpec{ProviderID: "aws:///" + Zones[i%len(Zones)] + "/i-" + name},
			Status: corev1.NodeStatus{
				Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
				Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			},
		}
		out = append(out, sn)
	}
	return out
}

// PrintTimings writes one line per grid point.
func PrintTimings(w io.Writer, ts []Timing) {
	fmt.Fprintf(w, "%-20s %6s %6s %8s %10s %12s %12s\n", "shape", "pods", "types", "existing", "nodeclaims", "upstream_ms", "ours_ms")
	for _, t := range ts {
		ours := "-"
		if t.Existing == 0 {
			ours = fmt.Sprintf("%.2f", float64(t.Ours)/1e6)
		}
		fmt.Fprintf(w, "%-20s %6d %6d %8d %10d %12.1f %12s\n", t.Shape, t.Pods, t.Types, t.Existing, t.NodeClaims,
			float64(t.Up)/1e6, ours)
	}
}
