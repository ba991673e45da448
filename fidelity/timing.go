package fidelity

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
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
		ours.Solve()
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

// ParseTimings reads the table PrintTimings wrote (other lines are
// skipped).
func ParseTimings(r io.Reader) ([]Timing, error) {
	var out []Timing
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 7 || f[0] == "shape" {
			continue
		}
		var t Timing
		var up float64
		if _, err := fmt.Sscan(strings.Join(f[:6], " "), &t.Shape, &t.Pods, &t.Types, &t.Existing, &t.NodeClaims, &up); err != nil {
			return nil, fmt.Errorf("timing line %q: %w", sc.Text(), err)
		}
		t.Up = time.Duration(up * 1e6)
		out = append(out, t)
	}
	return out, sc.Err()
}

// FastestTimings keeps, per grid point, the fastest upstream time of
// several runs (the least disturbed by other load), in grid order.
func FastestTimings(runs ...[]Timing) []Timing {
	best := map[TimingCase]Timing{}
	var order []TimingCase
	for _, ts := range runs {
		for _, t := range ts {
			b, ok := best[t.TimingCase]
			if !ok {
				order = append(order, t.TimingCase)
			}
			if !ok || t.Up < b.Up {
				best[t.TimingCase] = t
			}
		}
	}
	out := make([]Timing, 0, len(order))
	for _, tc := range order {
		out = append(out, best[tc])
	}
	return out
}

// SolveClass is one class of pods of the solve-time model: plain pods,
// pods with topology spread, pods with pod affinity or anti-affinity.
type SolveClass struct {
	PerPod, PerPodType, PerPodPair time.Duration
}

// SolveFit is the provisioner's solve-time model (sim/karpenter
// solvetime.go) fitted to timings: a solve of P pods, T instance types
// and E existing nodes takes, summed over its pods, PerPod + PerPodType x
// T + PerPodPair x P of the pod's class, plus PerPodNode x E (for a plain
// pod; ConstrainedPerPodNode x E for the others).
type SolveFit struct {
	Plain, Spread, Affinity SolveClass
	// PerPodNode is per plain pod and existing node, ConstrainedPerPodNode
	// per pod with spread or pod (anti-)affinity and existing node.
	PerPodNode, ConstrainedPerPodNode time.Duration
	// RMSLog is the root mean square of ln(predicted/measured) per shape
	// and over all points; MaxFactor the worst ratio either way.
	RMSLog    map[string]float64
	MaxFactor float64
}

// class is the model's class of a grid point's pods.
func (f *SolveFit) class(shape string) *SolveClass {
	switch shape {
	case "zone-spread":
		return &f.Spread
	case "host-anti-affinity":
		return &f.Affinity
	}
	return &f.Plain
}

// Predict is the model's time for a grid point.
func (f SolveFit) Predict(tc TimingCase) time.Duration {
	c, node := f.class(tc.Shape), f.PerPodNode
	if tc.Shape != "plain" {
		node = f.ConstrainedPerPodNode
	}
	per := c.PerPod + time.Duration(tc.Types)*c.PerPodType + time.Duration(tc.Pods)*c.PerPodPair + time.Duration(tc.Existing)*node
	return time.Duration(tc.Pods) * per
}

// features of a grid point: P, P x T, P x P, P x E.
func features(t Timing) []float64 {
	p := float64(t.Pods)
	return []float64{p, p * float64(t.Types), p * p, p * float64(t.Existing)}
}

// leastSquares fits y = sum c_i x_i over the features in use, minimizing
// the relative error; a feature whose coefficient comes out negative is
// dropped (its coefficient 0) and the rest refitted.
func leastSquares(ts []Timing, use []bool) ([]float64, error) {
	for {
		var idx []int
		for i, u := range use {
			if u {
				idx = append(idx, i)
			}
		}
		k := len(idx)
		if k == 0 || len(ts) < k {
			return nil, fmt.Errorf("fit: %d timings for %d coefficients", len(ts), k)
		}
		a := make([][]float64, k)
		for i := range a {
			a[i] = make([]float64, k+1)
		}
		for _, t := range ts {
			x, y := features(t), float64(t.Up)
			w := 1 / (y * y)
			for i := range k {
				for j := range k {
					a[i][j] += w * x[idx[i]] * x[idx[j]]
				}
				a[i][k] += w * x[idx[i]] * y
			}
		}
		for i := range k { // Gauss-Jordan with partial pivoting
			p := i
			for r := i + 1; r < k; r++ {
				if math.Abs(a[r][i]) > math.Abs(a[p][i]) {
					p = r
				}
			}
			a[i], a[p] = a[p], a[i]
			if a[i][i] == 0 {
				return nil, fmt.Errorf("fit: the grid does not determine the model")
			}
			for r := range k {
				if r != i {
					f := a[r][i] / a[i][i]
					for c := i; c <= k; c++ {
						a[r][c] -= f * a[i][c]
					}
				}
			}
		}
		out := make([]float64, len(use))
		worst := -1
		for i := range k {
			out[idx[i]] = a[i][k] / a[i][i]
			if out[idx[i]] < 0 && (worst < 0 || out[idx[i]] < out[worst]) {
				worst = idx[i]
			}
		}
		if worst < 0 {
			return out, nil
		}
		use[worst] = false
	}
}

// FitSolve fits the model: the plain class and the per-existing-node cost
// on the plain points, then each constrained class on its points without
// existing nodes, then the constrained pods' per-existing-node cost on
// theirs with; then the error over every point.
func FitSolve(ts []Timing) (SolveFit, error) {
	byShape := map[string][]Timing{}
	for _, t := range ts {
		if t.Shape == "plain" || t.Existing == 0 {
			byShape[t.Shape] = append(byShape[t.Shape], t)
		}
	}
	ns := func(v float64) time.Duration { return time.Duration(math.Round(v)) }
	f := SolveFit{RMSLog: map[string]float64{}}
	c, err := leastSquares(byShape["plain"], []bool{true, true, true, true})
	if err != nil {
		return f, fmt.Errorf("plain: %w", err)
	}
	f.Plain, f.PerPodNode = SolveClass{ns(c[0]), ns(c[1]), ns(c[2])}, ns(c[3])
	for _, shape := range []string{"zone-spread", "host-anti-affinity"} {
		if len(byShape[shape]) == 0 {
			continue
		}
		c, err := leastSquares(byShape[shape], []bool{true, true, true, false})
		if err != nil {
			return f, fmt.Errorf("%s: %w", shape, err)
		}
		*f.class(shape) = SolveClass{ns(c[0]), ns(c[1]), ns(c[2])}
	}
	// The constrained pods' cost per existing node: least squares on the
	// relative error of what the class leaves to explain.
	var num, den float64
	for _, t := range ts {
		if t.Shape == "plain" || t.Existing == 0 {
			continue
		}
		base := float64(f.Predict(TimingCase{t.Shape, t.Pods, t.Types, 0}))
		x, y := float64(t.Pods)*float64(t.Existing), float64(t.Up)
		num += x * (y - base) / (y * y)
		den += x * x / (y * y)
	}
	f.ConstrainedPerPodNode = f.PerPodNode
	if den > 0 && num > 0 {
		f.ConstrainedPerPodNode = ns(num / den)
	}
	sq, cnt := map[string]float64{}, map[string]int{}
	for _, t := range ts {
		l := math.Log(float64(f.Predict(t.TimingCase)) / float64(t.Up))
		sq[t.Shape] += l * l
		cnt[t.Shape]++
		sq["all"] += l * l
		cnt["all"]++
		f.MaxFactor = max(f.MaxFactor, math.Exp(math.Abs(l)))
	}
	for k, v := range sq {
		f.RMSLog[k] = math.Sqrt(v / float64(cnt[k]))
	}
	return f, nil
}

// Print writes the fit.
func (f SolveFit) Print(w io.Writer) {
	fmt.Fprintf(w, "fit, per pod of the solve: class + %v x existing nodes (%v for constrained pods), class:\n", f.PerPodNode, f.ConstrainedPerPodNode)
	for _, c := range []struct {
		name string
		c    SolveClass
	}{{"plain", f.Plain}, {"topology spread", f.Spread}, {"pod (anti-)affinity", f.Affinity}} {
		fmt.Fprintf(w, "  %-20s %v + %v x types + %v x pods\n", c.name, c.c.PerPod, c.c.PerPodType, c.c.PerPodPair)
	}
	keys := make([]string, 0, len(f.RMSLog))
	for k := range f.RMSLog {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  error %-20s rms %.0f%% (rms of ln(predicted/measured) %.2f)\n", k, (math.Exp(f.RMSLog[k])-1)*100, f.RMSLog[k])
	}
	fmt.Fprintf(w, "  worst point off by a factor of %.1f\n", f.MaxFactor)
}
