package overlay

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// BenchmarkEvaluate: 20 overlays (price adjustments by family and
// capacity type, capacity by GPU count, two of one weight) over 5 pools
// and every catalogue type in three zones; Karpenter evaluates when its
// pools are built and when one changes.
func BenchmarkEvaluate(b *testing.B) {
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	syms := cluster.NewSymbols()
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	types := CatalogTypes(syms, cat, "us-east-1", zones)
	keys := Keys{Zone: syms.Intern(apis.LabelZone), CapacityType: syms.Intern(apis.LabelCapacityType)}
	var pools []Pool
	for i := range 5 {
		name := fmt.Sprintf("pool-%d", i)
		pools = append(pools, Pool{Name: name, Labels: cluster.Labels{}.With(syms.Intern(apis.LabelNodePool), syms.Intern(name))})
	}
	req := func(key, op string, vals ...string) cluster.Requirement {
		r, err := cluster.CompileRequirement(syms, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: vals}, cluster.MatchExpression)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	var ovs []apis.NodeOverlay
	fams := []string{"m5", "m6i", "m7i", "c5", "c6i", "c7i", "r5", "r6i", "r7i", "m6a", "c6a", "r6a", "m7g", "c7g", "r7g", "t3"}
	for i, f := range fams {
		pc, _ := apis.ParsePriceChange("priceAdjustment", "-10%")
		ovs = append(ovs, apis.NodeOverlay{Name: fmt.Sprintf("sp-%02d", i), Weight: int32(10 + i%2),
			Requirements: []cluster.Requirement{req("karpenter.k8s.aws/instance-family", "In", f), req(apis.LabelCapacityType, "In", "on-demand")}, Price: pc})
	}
	for i, n := range []string{"1", "2", "4", "8"} {
		ovs = append(ovs, apis.NodeOverlay{Name: fmt.Sprintf("gpu-%d", i), Weight: 5,
			Requirements: []cluster.Requirement{req("karpenter.k8s.aws/instance-gpu-count", "In", n)},
			Capacity:     []apis.ExtendedResource{{Name: "nvidia.com/gpu-slice", Count: 4}}})
	}
	apis.OrderOverlays(ovs)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Evaluate(syms, keys, ovs, pools, types)
	}
}
