package fidelity

import (
	"fmt"
	"math/rand/v2"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
)

// The minValues set: cases of the first generator's kind whose NodePools
// ask for flexibility (minValues on instance-family, instance-type or
// instance-cpu requirements, Exists or In, as Karpenter's docs show
// them), solved under MinValuesPolicy Strict on both sides: a NodeClaim
// keeps at least that many values among its options, or its pods fail.

// GenerateMinValues returns n minValues cases derived from seed; the same
// seed gives the same cases.
func GenerateMinValues(cat *catalog.Catalog, seed uint64, n int) ([]*Case, error) {
	return generateN(cat, seed, n, generateMinValuesOne)
}

func generateMinValuesOne(cat *catalog.Catalog, seed uint64, idx int) (*Case, error) {
	c, err := generateOne(cat, seed^0x3171, idx)
	if err != nil {
		return nil, err
	}
	c.Name = fmt.Sprintf("minvalues-%03d", idx)
	rng := rand.New(rand.NewPCG(seed^0x3171, uint64(idx)*0x9e3779b97f4a7c15+13))
	var shape []string
	for _, np := range c.Pools {
		if rng.IntN(3) == 0 && len(c.Pools) > 1 {
			continue
		}
		mv := 2 + rng.IntN(4)
		switch rng.IntN(4) {
		case 0:
			r := Req("karpenter.k8s.aws/instance-family", corev1.NodeSelectorOpExists)
			r.MinValues = &mv
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
			shape = append(shape, "minvalues-family")
		case 1:
			r := Req(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpExists)
			r.MinValues = &mv
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
			shape = append(shape, "minvalues-type")
		case 2:
			// In over the case's families, as many as minValues or more.
			var fams []string
			seen := map[string]bool{}
			for _, t := range c.Types {
				if it, ok := cat.Lookup(t.Name); ok && !seen[it.Family] {
					seen[it.Family] = true
					fams = append(fams, it.Family)
				}
			}
			if len(fams) < mv {
				mv = max(1, len(fams))
			}
			r := Req("karpenter.k8s.aws/instance-family", corev1.NodeSelectorOpIn, fams...)
			r.MinValues = &mv
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
			shape = append(shape, "minvalues-family-in")
		default:
			r := Req("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpExists)
			r.MinValues = &mv
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
			shape = append(shape, "minvalues-cpu")
		}
	}
	c.Shape = strings.Join(uniq(append(strings.Split(c.Shape, ","), shape...)), ",")
	return c, nil
}
