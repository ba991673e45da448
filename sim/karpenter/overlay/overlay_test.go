package overlay

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// fakeTypes are instance types with labels and offerings, as KC's fake
// cloud provider gives them in the nodeoverlay controller's suite.
type fakeTypes struct {
	names  []string
	labels []cluster.Labels
	offers [][]Offering
}

func (f *fakeTypes) Len() int                                       { return len(f.names) }
func (f *fakeTypes) Name(t int) string                              { return f.names[t] }
func (f *fakeTypes) Label(t int, k cluster.Sym) (cluster.Sym, bool) { return f.labels[t].Get(k) }
func (f *fakeTypes) Offerings(t int) []Offering                     { return f.offers[t] }

type fixture struct {
	t     *testing.T
	syms  *cluster.Symbols
	keys  Keys
	types *fakeTypes
}

func newFixture(t *testing.T) *fixture {
	syms := cluster.NewSymbols()
	return &fixture{t: t, syms: syms, keys: Keys{Zone: syms.Intern(apis.LabelZone), CapacityType: syms.Intern(apis.LabelCapacityType)}, types: &fakeTypes{}}
}

// typ adds an instance type; offers are "zone/capacity-type".
func (f *fixture) typ(name string, offers ...[2]string) {
	f.types.names = append(f.types.names, name)
	f.types.labels = append(f.types.labels, cluster.Labels{}.With(f.syms.Intern(apis.LabelInstanceType), f.syms.Intern(name)))
	var of []Offering
	for _, o := range offers {
		of = append(of, Offering{Zone: f.syms.Intern(o[0]), CapacityType: f.syms.Intern(o[1])})
	}
	f.types.offers = append(f.types.offers, of)
}

func (f *fixture) pool(name string, labels map[string]string) Pool {
	ls := cluster.CompileLabels(f.syms, labels).With(f.syms.Intern(apis.LabelNodePool), f.syms.Intern(name))
	return Pool{Name: name, Labels: ls}
}

type ovSpec struct {
	name     string
	weight   int32
	key      string
	values   []string
	price    string // "price=1.5" or "adj=+10%"
	capacity map[string]int64
}

func (f *fixture) overlays(specs ...ovSpec) []apis.NodeOverlay {
	var out []apis.NodeOverlay
	for _, s := range specs {
		o := apis.NodeOverlay{Name: s.name, Weight: s.weight}
		if s.key != "" {
			r, err := cluster.CompileRequirement(f.syms, corev1.NodeSelectorRequirement{Key: s.key, Operator: corev1.NodeSelectorOpIn, Values: s.values}, cluster.MatchExpression)
			require.NoError(f.t, err)
			o.Requirements = append(o.Requirements, r)
		}
		if s.price != "" {
			field, text := "price", s.price[len("price="):]
			if s.price[:4] == "adj=" {
				field, text = "priceAdjustment", s.price[4:]
			}
			pc, err := apis.ParsePriceChange(field, text)
			require.NoError(f.t, err)
			o.Price = pc
		}
		for name, n := range s.capacity {
			o.Capacity = append(o.Capacity, apis.ExtendedResource{Name: name, Count: n})
		}
		out = append(out, o)
	}
	apis.OrderOverlays(out)
	return out
}

func statusOf(ovs []apis.NodeOverlay, res Result, name string) Status {
	for i := range ovs {
		if ovs[i].Name == name {
			return res.Status[i]
		}
	}
	panic(name)
}

// priceOf is the price an offering of type t in pool p ends up with.
func priceOf(ovs []apis.NodeOverlay, res Result, p, t, offer int, base float64) float64 {
	u := res.Updates[p][t]
	if u == nil || u.Price == nil || u.Price[offer] < 0 {
		return base
	}
	return ovs[u.Price[offer]].Price.Apply(base)
}

// KC nodeoverlay suite: "should update price updates offerings instance
// types from multiple overlays with different weights": the weight-20
// overlay sets zone 2, the weight-10 one only the zone it alone selects.
func TestDifferentWeightsShareAType(t *testing.T) {
	for _, tc := range []struct {
		a, b         string
		zone2, zone4 float64
	}{
		{"price=121.421", "price=165.421", 121.421, 165.421},
		{"adj=+201", "adj=-1.5", 203.020, 2.520},
	} {
		f := newFixture(t)
		f.typ("default-instance-type", [2]string{"test-zone-1", "spot"}, [2]string{"test-zone-2", "on-demand"}, [2]string{"test-zone-4", "reserved"})
		ovs := f.overlays(
			ovSpec{name: "a-test-100", weight: 20, key: apis.LabelZone, values: []string{"test-zone-2"}, price: tc.a},
			ovSpec{name: "b-test-100", weight: 10, key: apis.LabelZone, values: []string{"test-zone-2", "test-zone-4"}, price: tc.b})
		res := Evaluate(f.syms, f.keys, ovs, []Pool{f.pool("default", nil)}, f.types)
		require.InDelta(t, 1.020, priceOf(ovs, res, 0, 0, 0, 1.020), 1e-9, "zone 1 is in neither overlay")
		require.InDelta(t, tc.zone2, priceOf(ovs, res, 0, 0, 1, 2.020), 1e-9)
		require.InDelta(t, tc.zone4, priceOf(ovs, res, 0, 0, 2, 4.020), 1e-9)
		require.Equal(t, -1, statusOf(ovs, res, "b-test-100").ConflictWith)
	}
}

// KC suite: "should fail with pricing updates are the same overlays with
// overlapping requirements": equal weights on a shared type conflict; the
// later name goes first, so overlay-a is the one refused, everywhere
// (also on small-instance-type, which overlay-b does not select).
func TestSameWeightPriceConflict(t *testing.T) {
	f := newFixture(t)
	for _, n := range []string{"default-instance-type", "small-instance-type", "gpu-vendor-instance-type"} {
		f.typ(n, [2]string{"test-zone-1", "on-demand"})
	}
	ovs := f.overlays(
		ovSpec{name: "overlay-a", weight: 10, key: apis.LabelInstanceType, values: []string{"default-instance-type", "small-instance-type"}, price: "price=100"},
		ovSpec{name: "overlay-b", weight: 10, key: apis.LabelInstanceType, values: []string{"default-instance-type", "gpu-vendor-instance-type"}, price: "price=100"})
	res := Evaluate(f.syms, f.keys, ovs, []Pool{f.pool("default", nil)}, f.types)
	a, b := statusOf(ovs, res, "overlay-a"), statusOf(ovs, res, "overlay-b")
	require.Equal(t, "overlay-b", ovs[a.ConflictWith].Name)
	require.Equal(t, "price", a.ConflictOn)
	require.Zero(t, a.Types)
	require.Equal(t, -1, b.ConflictWith)
	require.Equal(t, 2, b.Types)
	require.InDelta(t, 0.5, priceOf(ovs, res, 0, 1, 0, 0.5), 1e-9, "small-instance-type keeps its price: overlay-a applies nowhere")
}

// KC suite: "should fail with conflicting capacity overlays with multiple
// overlays": good-overlay-1 (fuse) and conflicting-overlay-2 (hugepages)
// share a weight but no resource; conflicting-overlay-1 repeats
// hugepages at that weight and is refused.
func TestCapacityConflictOnSharedResource(t *testing.T) {
	f := newFixture(t)
	f.typ("default-instance-type", [2]string{"test-zone-1", "on-demand"})
	f.typ("small-instance-type", [2]string{"test-zone-1", "on-demand"})
	ovs := f.overlays(
		ovSpec{name: "conflicting-overlay-1", weight: 10, key: apis.LabelInstanceType, values: []string{"default-instance-type", "small-instance-type"}, capacity: map[string]int64{"hugepage-1Gi": 2}},
		ovSpec{name: "good-overlay-1", weight: 10, key: apis.LabelInstanceType, values: []string{"default-instance-type"}, capacity: map[string]int64{"smarter-devices/fuse": 1}},
		ovSpec{name: "conflicting-overlay-2", weight: 10, key: apis.LabelInstanceType, values: []string{"default-instance-type"}, capacity: map[string]int64{"hugepage-1Gi": 3}})
	res := Evaluate(f.syms, f.keys, ovs, []Pool{f.pool("default", nil)}, f.types)
	require.Equal(t, "conflicting-overlay-2", ovs[statusOf(ovs, res, "conflicting-overlay-1").ConflictWith].Name)
	require.Equal(t, "capacity", statusOf(ovs, res, "conflicting-overlay-1").ConflictOn)
	require.Equal(t, -1, statusOf(ovs, res, "good-overlay-1").ConflictWith)
	require.Equal(t, -1, statusOf(ovs, res, "conflicting-overlay-2").ConflictWith)
	require.Equal(t, []apis.ExtendedResource{{Name: "hugepage-1Gi", Count: 3}, {Name: "smarter-devices/fuse", Count: 1}}, res.Updates[0][0].Capacity)
	require.Nil(t, res.Updates[0][1], "small-instance-type is only in the refused overlay")
}

// KC suite: "should only apply pricing updates for nodeclaim spec labels
// that defined in the overlay requirements": a requirement on a custom
// label matches the pool whose template has it, and no other.
func TestTemplateLabelSelectsPool(t *testing.T) {
	f := newFixture(t)
	f.typ("default-instance-type", [2]string{"test-zone-1", "on-demand"})
	ovs := f.overlays(ovSpec{name: "o", weight: 10, key: "test-label", values: []string{"test-value"}, price: "adj=+1000"})
	res := Evaluate(f.syms, f.keys, ovs, []Pool{f.pool("one", nil), f.pool("two", map[string]string{"test-label": "test-value"})}, f.types)
	require.InDelta(t, 1.020, priceOf(ovs, res, 0, 0, 0, 1.020), 1e-9)
	require.InDelta(t, 1001.020, priceOf(ovs, res, 1, 0, 0, 1.020), 1e-9)
}

// A requirement on a label the type lacks matches only NotIn and
// DoesNotExist (KC Requirements.Compatible): gpu-count In [1] leaves a
// type without GPUs alone.
func TestMissingLabelDoesNotMatch(t *testing.T) {
	f := newFixture(t)
	f.typ("m5.large", [2]string{"z", "on-demand"})
	ovs := f.overlays(ovSpec{name: "gpu", key: "karpenter.k8s.aws/instance-gpu-count", values: []string{"1"}, capacity: map[string]int64{"nvidia.com/gpu": 4}})
	res := Evaluate(f.syms, f.keys, ovs, []Pool{f.pool("default", nil)}, f.types)
	require.Zero(t, res.Status[0].Types)
}

func TestPriceChangeApply(t *testing.T) {
	for _, tc := range []struct {
		field, text string
		in, out     float64
	}{
		{"price", "0.5", 2, 0.5},
		{"priceAdjustment", "+10%", 2, 2.2},
		{"priceAdjustment", "-15%", 2, 1.7},
		{"priceAdjustment", "-100%", 2, 0},
		{"priceAdjustment", "+0.25", 2, 2.25},
		{"priceAdjustment", "-5", 2, 0}, // floored at 0 (KC AdjustedPrice)
	} {
		pc, err := apis.ParsePriceChange(tc.field, tc.text)
		require.NoError(t, err, tc.text)
		require.InDelta(t, tc.out, pc.Apply(tc.in), 1e-9, tc.text)
	}
	for _, bad := range [][2]string{{"price", "-1"}, {"price", "$1"}, {"priceAdjustment", "10%"}, {"priceAdjustment", "-101%"}, {"priceAdjustment", "+x"}} {
		_, err := apis.ParsePriceChange(bad[0], bad[1])
		require.Error(t, err, bad[1])
	}
}
