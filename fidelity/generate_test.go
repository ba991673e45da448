package fidelity

import (
	"encoding/json"
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
