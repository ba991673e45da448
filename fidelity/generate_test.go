package fidelity

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/catalog"
)

func TestGenerateDeterministic(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	a, err := Generate(cat, 7, 30)
	require.NoError(t, err)
	b, err := Generate(cat, 7, 30)
	require.NoError(t, err)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	require.Equal(t, string(ja), string(jb))
	kinds := map[string]bool{}
	for _, c := range a {
		require.NotEmpty(t, c.Pods, c.Name)
		require.NotEmpty(t, c.Pools, c.Name)
		kinds[c.Shape] = true
	}
	require.Greater(t, len(kinds), 20, "cases should differ in shape")
}

// TestCompareSmoke runs both solvers on a few generated cases: the
// harness works end to end and our solve is deterministic (Compare runs it
// OurRuns times and fails otherwise).
func TestCompareSmoke(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	cases, err := Generate(cat, 1, 12)
	require.NoError(t, err)
	var rs []*Result
	for _, c := range cases {
		r, err := Compare(cat, c)
		require.NoError(t, err)
		require.Positive(t, r.UpTime)
		rs = append(rs, r)
	}
	s := Summarize(rs)
	require.Equal(t, len(cases), s.Cases)
	require.Positive(t, s.Speedup)
}

// The wide set is deterministic, offers the whole catalogue (types with
// an on-demand price), never requires an architecture, and has batches of
// up to 1,000 pods (20 and more drawn; anti-affinity templates capped)
// with arrivals for a second round.
func TestGenerateWide(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	a, err := GenerateWide(cat, 1, 40)
	require.NoError(t, err)
	b, err := GenerateWide(cat, 1, 40)
	require.NoError(t, err)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	require.Equal(t, string(ja), string(jb))
	priced := 0
	for _, it := range cat.Types() {
		if od, _, ok := cat.OnDemandPrice(Region, it.Name); ok && od > 0 {
			priced++
		}
	}
	arm, anti := false, false
	smallest, largest := 1000, 0
	for _, c := range a {
		require.LessOrEqual(t, len(c.Pods), 1000, c.Name)
		smallest, largest = min(smallest, len(c.Pods)), max(largest, len(c.Pods))
		require.NotEmpty(t, c.Arrivals, c.Name)
		require.InDelta(t, priced, len(c.Types), float64(priced)/50, c.Name)
		for _, np := range c.Pools {
			for _, r := range np.Spec.Template.Spec.Requirements {
				require.NotEqual(t, "kubernetes.io/arch", r.Key, "%s: pools never require an arch", c.Name)
			}
		}
		for _, ty := range c.Types {
			arm = arm || strings.Contains(ty.Name, "g.") || strings.Contains(ty.Name, "gd.")
		}
		anti = anti || strings.Contains(c.Shape, "anti-affinity")
	}
	require.Less(t, smallest, 60)
	require.Greater(t, largest, 900)
	require.True(t, arm, "Graviton types are offered")
	require.True(t, anti)
}
