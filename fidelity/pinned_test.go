package fidelity

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
)

// answer is what one solver gives on a pinned case.
type answer struct {
	Nodes         int
	Unschedulable int
	Price         float64 // summed cheapest price of the new nodes, USD/hour
}

func (a answer) String() string {
	return fmt.Sprintf("nodes=%d unschedulable=%d price=%.4f", a.Nodes, a.Unschedulable, a.Price)
}

func answerOf(o Outcome) answer {
	return answer{Nodes: len(o.Nodes), Unschedulable: len(o.Unschedulable), Price: o.price()}
}

func (a answer) equal(b answer) bool {
	return a.Nodes == b.Nodes && a.Unschedulable == b.Unschedulable && math.Abs(a.Price-b.Price) < 1e-6
}

// pinned is a hand-built case with both solvers' answers. When ours and
// up differ it is a known disagreement (docs/fidelity.md explains
// each); when they agree it guards a shape the two solvers
// agree on. Upstream breaks some ties in map order, so up is an answer
// upstream gives in one of upstreamRuns runs.
type pinned struct {
	name     string
	why      string
	build    func() *Case
	ours, up answer
}

const upstreamRuns = 20

func offer(zone, ct string, price float64) Offering {
	return Offering{Zone: zone, CapacityType: ct, Price: price}
}

const (
	od   = karpv1.CapacityTypeOnDemand
	spot = karpv1.CapacityTypeSpot
	za   = "us-east-1a"
	zb   = "us-east-1b"
	zc   = "us-east-1c"
)

func spreadZone(maxSkew int32) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: maxSkew, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}}}}
	}
}

func antiHost(app string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: corev1.LabelHostname}}}}
	}
}

// taintedSpotPool is a pool no pod here tolerates: it only widens the
// topology domains (its instance types' zones count as domains).
func taintedSpotPool() *karpv1.NodePool {
	p := NewPool("bravo", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, spot))
	p.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "bravo", Effect: corev1.TaintEffectNoSchedule}}
	return p
}

var pinnedCases = []pinned{
	{
		name: "plain-cheapest-offering",
		why:  "plain pods on a spot and on-demand pool: packed onto the type whose cheapest offering is lowest",
		build: func() *Case {
			c := &Case{Name: "plain-cheapest-offering"}
			c.Pools = []*karpv1.NodePool{NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, spot, od))}
			c.Types = []InstanceType{
				{Name: "m5.large", Offerings: []Offering{offer(za, od, 0.096), offer(za, spot, 0.04), offer(zb, od, 0.096)}},
				{Name: "m5.xlarge", Offerings: []Offering{offer(za, od, 0.192), offer(zb, spot, 0.07), offer(zc, od, 0.192)}},
				{Name: "m5.2xlarge", Offerings: []Offering{offer(za, od, 0.384), offer(zc, spot, 0.15)}},
			}
			c.AddPods("web", 10, "1", "1Gi", nil)
			return c
		},
		ours: answer{Nodes: 2, Unschedulable: 0, Price: 0.22},
		up:   answer{Nodes: 2, Unschedulable: 0, Price: 0.22},
	},
	{
		name: "zone-spread",
		why:  "zone spread with maxSkew 1: one NodeClaim per zone",
		build: func() *Case {
			c := &Case{Name: "zone-spread"}
			c.Pools = []*karpv1.NodePool{NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od))}
			c.Types = []InstanceType{{Name: "c5.xlarge", Offerings: []Offering{offer(za, od, 0.17), offer(zb, od, 0.17), offer(zc, od, 0.17)}}}
			c.AddPods("spread", 6, "500m", "512Mi", spreadZone(1))
			return c
		},
		ours: answer{Nodes: 3, Unschedulable: 0, Price: 0.51},
		up:   answer{Nodes: 3, Unschedulable: 0, Price: 0.51},
	},
	{
		name: "hostname-anti-affinity",
		why:  "required hostname anti-affinity: one node per pod",
		build: func() *Case {
			c := &Case{Name: "hostname-anti-affinity"}
			c.Pools = []*karpv1.NodePool{NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, spot))}
			c.Types = []InstanceType{
				{Name: "t3.large", Offerings: []Offering{offer(za, spot, 0.03), offer(zb, spot, 0.028), offer(zc, spot, 0.031)}},
				{Name: "m5.large", Offerings: []Offering{offer(za, spot, 0.04), offer(zb, spot, 0.04), offer(zc, spot, 0.04)}},
			}
			c.AddPods("db", 4, "250m", "256Mi", antiHost("db"))
			return c
		},
		ours: answer{Nodes: 4, Unschedulable: 0, Price: 0.112},
		up:   answer{Nodes: 4, Unschedulable: 0, Price: 0.112},
	},
	{
		name: "weighted-pools-taints-selector",
		why:  "the heavier pool is tainted: only tolerating pods use it; a nodeSelector on the lighter pool's label, a zone selector",
		build: func() *Case {
			c := &Case{Name: "weighted-pools-taints-selector"}
			heavy := NewPool("gpu-ish", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od))
			w := int32(50)
			heavy.Spec.Weight = &w
			heavy.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
			light := NewPool("general", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, spot, od))
			light.Spec.Template.Labels = map[string]string{"team": "general"}
			c.Pools = []*karpv1.NodePool{heavy, light}
			c.Types = []InstanceType{
				{Name: "c5.2xlarge", Offerings: []Offering{offer(za, od, 0.34), offer(zb, od, 0.34), offer(zb, spot, 0.12)}},
				{Name: "r5.large", Offerings: []Offering{offer(za, od, 0.126), offer(za, spot, 0.05), offer(zc, od, 0.126)}},
			}
			c.AddPods("batch", 5, "1500m", "1Gi", func(s *corev1.PodSpec) {
				s.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
			})
			c.AddPods("web", 4, "250m", "3Gi", func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"team": "general"} })
			c.AddPods("zonal", 2, "250m", "256Mi", func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{corev1.LabelTopologyZone: zc} })
			return c
		},
		ours: answer{Nodes: 2, Unschedulable: 0, Price: 0.466},
		up:   answer{Nodes: 2, Unschedulable: 0, Price: 0.466},
	},
	{
		name: "cpu-limit",
		why:  "a cpu limit counts each new NodeClaim at its largest option (subtractMax); the rest stay pending",
		build: func() *Case {
			c := &Case{Name: "cpu-limit"}
			p := NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od))
			p.Spec.Limits = karpv1.Limits{corev1.ResourceCPU: resource.MustParse("8")}
			c.Pools = []*karpv1.NodePool{p}
			c.Types = []InstanceType{
				{Name: "m5.xlarge", Offerings: []Offering{offer(za, od, 0.192)}},
				{Name: "m5.2xlarge", Offerings: []Offering{offer(za, od, 0.384)}},
			}
			c.AddPods("web", 6, "1500m", "1Gi", antiHost("web"))
			return c
		},
		ours: answer{Nodes: 1, Unschedulable: 5, Price: 0.192},
		up:   answer{Nodes: 1, Unschedulable: 5, Price: 0.192},
	},
	{
		name: "node-limit-within-a-batch",
		why: "a nodes limit counts only the nodes that exist when the solve starts (instance types have no \"nodes\" " +
			"capacity, so subtractMax never lowers it) and NodeClaim creation checks usage > limit: one batch may exceed it",
		build: func() *Case {
			c := &Case{Name: "node-limit-within-a-batch"}
			p := NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od))
			p.Spec.Limits = karpv1.Limits{"nodes": resource.MustParse("1")}
			c.Pools = []*karpv1.NodePool{p}
			c.Types = []InstanceType{{Name: "m5.large", Offerings: []Offering{offer(za, od, 0.096), offer(zb, od, 0.096), offer(zc, od, 0.096)}}}
			c.AddPods("web", 3, "1", "1Gi", antiHost("web"))
			return c
		},
		ours: answer{Nodes: 3, Unschedulable: 0, Price: 0.288},
		up:   answer{Nodes: 3, Unschedulable: 0, Price: 0.288},
	},
	{
		name: "claim-order-ties",
		why: "upstream re-sorts its NodeClaims by pod count in place with sort.Slice (not stable) before each pod; ours " +
			"reproduces that order (a creation-order tie break paired pods differently and gave 25 m6i.xlarge nodes)",
		build: func() *Case {
			c := &Case{Name: "claim-order-ties"}
			c.Pools = []*karpv1.NodePool{NewPool("alpha",
				Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, spot, od),
				Req("karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, "m"),
				Req(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, za, zb))}
			c.Types = []InstanceType{
				{Name: "m6i.xlarge", Offerings: []Offering{offer(za, od, 0.192), offer(za, spot, 0.0778), offer(zb, od, 0.192)}},
				{Name: "m7i.4xlarge", Offerings: []Offering{offer(za, od, 0.8064), offer(za, spot, 0.4335), offer(zb, od, 0.8064), offer(zb, spot, 0.3871)}},
			}
			c.AddPods("app1", 25, "2", "2Gi", antiHost("app1"))
			c.AddPods("app2", 14, "1", "2Gi", func(s *corev1.PodSpec) {
				s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 3, TopologyKey: corev1.LabelHostname,
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app2"}}}}
			})
			c.AddPods("app3", 16, "100m", "7Gi", nil)
			return c
		},
		ours: answer{Nodes: 25, Unschedulable: 0, Price: 23*0.0778 + 2*0.3871},
		up:   answer{Nodes: 25, Unschedulable: 0, Price: 23*0.0778 + 2*0.3871},
	},
	{
		name: "generated-case-178",
		why: "case-178 of seed 1, claim-order ties in a generated case: upstream's pairing leaves two NodeClaims that " +
			"only the 4xlarge type fits (with creation-order ties ours paid 1.945)",
		build: func() *Case { return generated(178) },
		ours:  answer{Nodes: 25, Unschedulable: 30, Price: 2.5636},
		up:    answer{Nodes: 25, Unschedulable: 30, Price: 2.5636},
	},
	{
		name: "generated-case-122",
		why: "case-122 of seed 1: claim-order ties again (hostname spread with maxSkew 3 plus zone spread); upstream's " +
			"order packs one pod more per node: 19 nodes (with creation-order ties ours needed 20)",
		build: func() *Case { return generated(122) },
		ours:  answer{Nodes: 19, Unschedulable: 0, Price: 2.9638},
		up:    answer{Nodes: 19, Unschedulable: 0, Price: 2.9638},
	},
	{
		name: "generated-case-074",
		why: "case-074 of seed 1: zone spread in a two-zone pool; upstream picks among equally loaded zones in map " +
			"order and gives ours (0.4727) in about 4 runs of 10, else 0.5764, so with 6 runs all of them miss ours " +
			"about once in 25 make fidelity runs",
		build: func() *Case { return generated(74) },
		ours:  answer{Nodes: 2, Unschedulable: 0, Price: 0.4727},
		up:    answer{Nodes: 2, Unschedulable: 0, Price: 0.4727},
	},
	{
		name: "spread-tie-unlaunchable-zone",
		why: "zone spread: upstream picks among equally loaded zones in map order, afresh for every NodeClaim it tries, so it " +
			"nearly always finds a zone the pool can launch in; ours takes the first in which the NodeClaim can launch " +
			"(us-east-1a, not us-east-1b where the pool has no offering)",
		build: func() *Case {
			c := &Case{Name: "spread-tie-unlaunchable-zone"}
			c.Pools = []*karpv1.NodePool{NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od)), taintedSpotPool()}
			c.Types = []InstanceType{
				{Name: "m6a.xlarge", Offerings: []Offering{offer(za, od, 0.1728), offer(zc, od, 0.1728)}},
				{Name: "t3.large", Offerings: []Offering{offer(zb, spot, 0.0316)}},
			}
			c.AddPods("spread", 4, "250m", "100Mi", spreadZone(1))
			return c
		},
		ours: answer{Nodes: 2, Unschedulable: 2, Price: 2 * 0.1728},
		up:   answer{Nodes: 2, Unschedulable: 2, Price: 2 * 0.1728},
	},
	{
		name: "affinity-bootstrap-unlaunchable-zone",
		why: "zone self-affinity: the first pod picks its zone; upstream takes one in map order, ours the first in which the " +
			"NodeClaim can launch (us-east-1b, not us-east-1a where the pool has no offering)",
		build: func() *Case {
			c := &Case{Name: "affinity-bootstrap-unlaunchable-zone"}
			c.Pools = []*karpv1.NodePool{NewPool("alpha", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od)), taintedSpotPool()}
			c.Types = []InstanceType{
				{Name: "m6a.xlarge", Offerings: []Offering{offer(zb, od, 0.1728), offer(zc, od, 0.1728)}},
				{Name: "t3.large", Offerings: []Offering{offer(za, spot, 0.0316)}},
			}
			c.AddPods("db", 2, "250m", "100Mi", func(s *corev1.PodSpec) {
				s.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: corev1.LabelTopologyZone}}}}
			})
			return c
		},
		ours: answer{Nodes: 1, Unschedulable: 0, Price: 0.1728},
		up:   answer{Nodes: 1, Unschedulable: 0, Price: 0.1728},
	},
}

// generated returns case i of seed 1, as `go run ./cmd/fidelity` makes it.
func generated(i int) *Case { return generatedBy(generateOne, i) }

// generatedWide returns wide case i of seed 1.
func generatedWide(i int) *Case { return generatedBy(generateWideOne, i) }

// generatedBy returns case i of seed 1 made by one.
func generatedBy(one func(*catalog.Catalog, uint64, int) (*Case, error), i int) *Case {
	cat, err := catalog.Default()
	if err != nil {
		panic(err)
	}
	c, err := one(cat, 1, i)
	if err != nil {
		panic(err)
	}
	return c
}

// requireUpstreamGives fails t unless one of runs calls of run gives want.
func requireUpstreamGives(t *testing.T, want answer, runs int, run func() (Outcome, error)) {
	t.Helper()
	var seen []answer
	for i := 0; i < runs; i++ {
		o, err := run()
		require.NoError(t, err)
		a := answerOf(o)
		if a.equal(want) {
			return
		}
		seen = append(seen, a)
	}
	t.Fatalf("upstream never gave %v in %d runs: %v", want, runs, seen)
}

// TestPinned runs the pinned cases: ours must give its pinned answer,
// upstream must be able to give its own.
func TestPinned(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	for _, pc := range pinnedCases {
		t.Run(pc.name, func(t *testing.T) {
			c := pc.build()
			ours, err := BuildOurs(cat, c)
			require.NoError(t, err)
			got := answerOf(ours.Run())
			if !pc.ours.equal(pc.up) && got.equal(pc.up) {
				t.Fatalf("ours now gives upstream's answer (%v): the disagreement is fixed; set ours to up in %q and update docs/fidelity.md", got, pc.name)
			}
			require.True(t, got.equal(pc.ours), "ours: got %v, pinned %v (%s)", got, pc.ours, pc.why)
			up, err := BuildUpstream(c, ours)
			require.NoError(t, err)
			requireUpstreamGives(t, pc.up, upstreamRuns, up.Run)
		})
	}
}

// upstreamSecondOrderRuns is how many times upstream's second round runs
// with the NodeClaims in flight in ours' order: it must give the pinned
// answer every time (what is left to vary is its map-order zone ties).
const upstreamSecondOrderRuns = 3

// upstreamBracketRuns bounds the random-order runs that must bracket
// ours: ours sits inside upstream's range, so a miss needs every run on
// one side of it (wide-019, the widest: about one in 2 million).
const upstreamBracketRuns = 50

// pinnedSeconds are second rounds kept as tests: ours must give its
// answer; upstream, with the NodeClaims in flight in ours' order, must
// give up in every run, and in a random order its answers must bracket
// ours. (Asking one random-order run out of k to give ours exactly was
// flaky: on wide-002 upstream gives 12 to 16 new nodes and ours' 14 in
// 40% of runs, so 8 runs missed it about once in 60.)
var pinnedSeconds = []pinned{
	{
		name: "in-flight-order",
		why: "wide-002 of seed 1: the second round re-packs 398 pending pods onto 60 NodeClaims in flight; upstream tries " +
			"them by their random generated names and needs 12 to 16 new nodes; trying them in creation order (ours " +
			"before) left more pods over: 19 new nodes, an answer upstream never gives",
		build: func() *Case { return generatedWide(2) },
		ours:  answer{Nodes: 14, Unschedulable: 2, Price: 0.539},
		up:    answer{Nodes: 14, Unschedulable: 2, Price: 0.539},
	},
	{
		name: "over-node-limit-in-flight",
		why: "the heavy pool's first round overshoots its nodes limit (3 NodeClaims for a limit of 1, allowed within a " +
			"batch); in the second round its remaining nodes are -2: upstream's filterByRemainingResources drops every " +
			"instance type (no \"nodes\" capacity, 0 > -2), so the new pod goes to the light pool, as ours (nodesLeft 0)",
		build: func() *Case {
			c := &Case{Name: "over-node-limit-in-flight"}
			heavy := NewPool("heavy", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od))
			w := int32(100)
			heavy.Spec.Weight = &w
			heavy.Spec.Limits = karpv1.Limits{"nodes": resource.MustParse("1")}
			light := NewPool("light", Req(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, od))
			c.Pools = []*karpv1.NodePool{heavy, light}
			c.Types = []InstanceType{{Name: "m5.large", Offerings: []Offering{offer(za, od, 0.096), offer(zb, od, 0.096), offer(zc, od, 0.096)}}}
			c.AddPods("web", 3, "1", "1Gi", antiHost("web"))
			first := len(c.Pods)
			c.AddPods("web", 4, "1", "1Gi", antiHost("web"))
			c.Arrivals, c.Pods = c.Pods[first+3:], c.Pods[:first]
			return c
		},
		ours: answer{Nodes: 1, Unschedulable: 0, Price: 0.096},
		up:   answer{Nodes: 1, Unschedulable: 0, Price: 0.096},
	},
}

func TestPinnedSecondRound(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	for _, pc := range pinnedSeconds {
		t.Run(pc.name, func(t *testing.T) {
			c := pc.build()
			ours, err := BuildOursTwoRounds(cat, c)
			require.NoError(t, err)
			out, fl := ours.RunTwoRounds()
			got := answerOf(out)
			require.True(t, got.equal(pc.ours), "ours: got %v, pinned %v (%s)", got, pc.ours, pc.why)
			up, err := BuildUpstream(c, ours)
			require.NoError(t, err)
			for i := 0; i < upstreamSecondOrderRuns; i++ {
				o, err := up.RunSecondInOurOrder(fl)
				require.NoError(t, err)
				require.True(t, answerOf(o).equal(pc.up), "upstream in ours' order: %v, pinned %v", answerOf(o), pc.up)
			}
			requireBracketed(t, got, func() (Outcome, error) { return up.RunSecond(fl) })
		})
	}
}

// requireBracketed runs upstream (at most upstreamBracketRuns times) until
// it has given an answer with at least as many nodes as got and as dear,
// and one with at most as many and as cheap, and returns the answers it
// saw. Every run must leave as many pods unschedulable as got.
func requireBracketed(t *testing.T, got answer, run func() (Outcome, error)) []answer {
	t.Helper()
	above, below := false, false
	var seen []answer
	for i := 0; i < upstreamBracketRuns && !(above && below); i++ {
		o, err := run()
		require.NoError(t, err)
		a := answerOf(o)
		require.Equal(t, got.Unschedulable, a.Unschedulable, "unschedulable pods, upstream run %d", i)
		seen = append(seen, a)
		above = above || a.Nodes >= got.Nodes && a.Price >= got.Price*(1-PriceTolerance)
		below = below || a.Nodes <= got.Nodes && a.Price <= got.Price*(1+PriceTolerance)
	}
	require.True(t, above && below, "ours %v outside upstream's range: %v", got, seen)
	return seen
}

// The remaining second-round class: where upstream disagrees with itself
// most (the NodeClaims in flight come in a random order and zone-spread
// ties go in map order), its answers spread over a range and ours, one
// more draw of the same process, can miss all k sampled answers while
// lying within their range. wide-019 of seed 1 (upstream agreed with
// itself on 7% to 20% of pairs in make fidelity, 27 to 36 new nodes):
// ours is pinned, and upstream, run until it has given an answer with at
// least as many nodes as ours and one with at most as many and as
// cheap (at most upstreamBracketRuns runs; ours sits in the upper quarter of upstream's
// range, so 50 runs miss a bracket about once in 2 million), gives at least
// 3 different node counts.
func TestSecondRoundWithinUpstreamsRange(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	c := generatedWide(19)
	ours, err := BuildOursTwoRounds(cat, c)
	require.NoError(t, err)
	out, fl := ours.RunTwoRounds()
	got := answerOf(out)
	require.True(t, got.equal(answer{Nodes: 35, Unschedulable: 0, Price: 3.7054}), "ours: %v", got)
	up, err := BuildUpstream(c, ours)
	require.NoError(t, err)
	seen := requireBracketed(t, got, func() (Outcome, error) { return up.RunSecond(fl) })
	// Bracketed early, it may not have seen 3 node counts yet: run on.
	counts := map[int]bool{}
	for _, a := range seen {
		counts[a.Nodes] = true
	}
	for i := len(seen); i < upstreamBracketRuns && len(counts) < 3; i++ {
		o, err := up.RunSecond(fl)
		require.NoError(t, err)
		a := answerOf(o)
		seen = append(seen, a)
		counts[a.Nodes] = true
	}
	require.GreaterOrEqual(t, len(counts), 3, "upstream varies: %v", seen)
}

// wide-005 of seed 1: ours' second round (6 new nodes, 31.83 USD/h) is
// cheaper than every upstream run in make fidelity (35.7 to 136.5). The
// whole difference is the order in which the NodeClaims in flight are
// tried (by name: upstream's are random, ours are drawn from the seed):
// the plain arrivals (late0, 4 CPU) take the first nodes in that order,
// and the first round's arm64 pods they push out need new NodeClaims;
// with the u7i-12tb.224xlarge early they push out 200+ of its pods, for
// a second 224xlarge. Given ours' order (NodeClaims named by
// OrderName), upstream gives ours' answer exactly, in every run; in a
// random order it gives it about once in 40 (ours' order, with both
// r8g nodes after the u7i and the others before it, is upstream's
// cheapest outcome), so k runs miss it most of the time.
func TestSecondRoundOrderOfInFlightNodeClaims(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	c := generatedWide(5)
	ours, err := BuildOursTwoRounds(cat, c)
	require.NoError(t, err)
	out, fl := ours.RunTwoRounds()
	got := answerOf(out)
	require.Equal(t, 6, got.Nodes)
	require.Zero(t, got.Unschedulable)
	require.InDelta(t, 31.8269, got.Price, 1e-4)
	require.Len(t, fl, 7)
	up, err := BuildUpstream(c, ours)
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		o, err := up.RunSecondInOurOrder(fl)
		require.NoError(t, err)
		require.True(t, answerOf(o).equal(got), "upstream in ours' order: %v, ours %v", answerOf(o), got)
	}
	// In a random order upstream's answers differ, and ours is at the
	// cheap end of them.
	var seen []answer
	dearer := false
	for i := 0; i < 12 && !dearer; i++ {
		o, err := up.RunSecond(fl)
		require.NoError(t, err)
		a := answerOf(o)
		seen = append(seen, a)
		require.GreaterOrEqual(t, a.Price, got.Price*(1-PriceTolerance), "upstream cheaper than ours")
		dearer = a.Price > got.Price*(1+PriceTolerance)
	}
	require.True(t, dearer, "upstream never dearer than ours: %v", seen)
}
