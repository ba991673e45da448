package sweep

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

func decode(t *testing.T, doc string) (*Sweep, bool, error) {
	docs, err := manifest.ReadBytes("grid.yaml", []byte(doc))
	require.NoError(t, err)
	return Decode(docs, func(rel string, scenario bool) (string, bool) {
		return "dir/" + rel, rel != "missing.yaml"
	})
}

// The grid is every base times every combination of the values, the last
// axis fastest; settings multiply, overrides add up in axis order.
func TestDecodeGrid(t *testing.T) {
	s, seedSet, err := decode(t, `apiVersion: clustersim.dev/v1alpha1
kind: Sweep
metadata: {name: g}
spec:
  scenarios: [a.yaml, b.yaml]
  runs: 4
  axes:
    - name: load
      values: [{name: 1x}, {name: 2x, scaleWorkloads: 2, overrides: [big.yaml]}]
    - name: market
      values: [{name: calm}, {name: stormy, hazardMultiplier: 3, fallbackAfter: 2m, overrides: [od.yaml]}]
`)
	require.NoError(t, err)
	require.False(t, seedSet)
	require.Equal(t, 4, s.Runs)
	require.Equal(t, []string{"scenario", "load", "market"}, s.Axes)
	require.Len(t, s.Points, 8)
	var names []string
	for _, p := range s.Points {
		names = append(names, p.Name)
	}
	require.Equal(t, []string{"a.yaml load=1x market=calm", "a.yaml load=1x market=stormy", "a.yaml load=2x market=calm", "a.yaml load=2x market=stormy",
		"b.yaml load=1x market=calm", "b.yaml load=1x market=stormy", "b.yaml load=2x market=calm", "b.yaml load=2x market=stormy"}, names)
	require.Equal(t, Point{Name: "a.yaml load=2x market=stormy", Values: []string{"a.yaml", "2x", "stormy"}, Base: "dir/a.yaml",
		Overrides: []string{"dir/big.yaml", "dir/od.yaml"}, Scale: 2, Hazard: 3, FallbackAfter: 2 * time.Minute}, s.Points[3])
}

// Mistakes are reported at their line and field, with what to do.
func TestDecodeErrors(t *testing.T) {
	head := "apiVersion: clustersim.dev/v1alpha1\nkind: Sweep\nmetadata: {name: g}\nspec:\n"
	cases := map[string]string{
		"  scenarios: [a.yaml]\n  runz: 3\n": `grid.yaml:6: spec.runz: unknown field "runz"`,
		"  scenarios: [missing.yaml]\n":      "grid.yaml:5: spec.scenarios[0]: missing.yaml: no such file or embedded scenario; give a scenario file (relative to this file) or the name of an embedded scenario",
		"  scenarios: [a.yaml]\n  runs: 0\n": "grid.yaml:6: spec.runs: 0 runs per point; use 1 to 100000",
		"  scenarios: [a.yaml]\n  axes:\n    - name: x\n      values: [{name: a, scaleWorkloads: -1}]\n":        "grid.yaml:8: spec.axes[0].values[0].scaleWorkloads: scale factor -1; use a number above 0",
		"  scenarios: [a.yaml]\n  axes:\n    - name: x\n      values: [{name: a, fallbackAfter: soon}]\n":       `grid.yaml:8: spec.axes[0].values[0].fallbackAfter: fallback timeout "soon"; write a positive duration`,
		"  scenarios: [a.yaml]\n  axes:\n    - name: x\n      values: [{name: a}, {name: a}]\n":                 `grid.yaml:8: spec.axes[0].values[1].name: a second value named "a"`,
		"  scenarios: [a.yaml]\n  axes:\n    - name: x\n      values: [{name: a, overrides: [missing.yaml]}]\n": "spec.axes[0].values[0].overrides[0]: missing.yaml: no such file",
		"  scenarios: [a.yaml]\n  axes:\n    - name: x y\n      values: [{name: a}]\n":                          `grid.yaml:7: spec.axes[0].name: axis name "x y"`,
		"  scenarios: []\n": "spec.scenarios: no base scenario",
	}
	for body, want := range cases {
		_, _, err := decode(t, head+body)
		require.Error(t, err, body)
		require.Contains(t, err.Error(), want, body)
	}
	_, _, err := decode(t, "apiVersion: clustersim.dev/v2\nkind: Sweep\nspec: {scenarios: [a]}\n")
	require.ErrorContains(t, err, `grid.yaml:1: apiVersion: "clustersim.dev/v2" is not a Sweep version this simulator reads; use apiVersion: clustersim.dev/v1alpha1`)
}
