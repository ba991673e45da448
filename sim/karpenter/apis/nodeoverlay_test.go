package apis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The NodeOverlay CRD's schema and rules (KC pkg/apis/crds/
// karpenter.sh_nodeoverlays.yaml, v1.15.0) are errors at their field;
// what only the controller's runtime validation refuses is a warning that
// the overlay is never applied.
func TestNodeOverlayRules(t *testing.T) {
	overlay := func(spec string) string {
		return "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: o}\nspec:\n" + spec
	}
	req := "  requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}]\n"
	res, _, err := compileYAML(t, "ov.yaml", overlay(req+"  priceAdjustment: \"-25%\"\n  weight: 7\n  capacity: {example.com/license: 2}\n"))
	require.NoError(t, err)
	require.Len(t, res.NodeOverlays, 1)
	o := res.NodeOverlays[0]
	require.Equal(t, int32(7), o.Weight)
	require.InDelta(t, 0.75, o.Price.Apply(1), 1e-9)
	require.Equal(t, []ExtendedResource{{Name: "example.com/license", Count: 2}}, o.Capacity)

	for spec, want := range map[string]string{
		"  price: \"1\"\n": "ov.yaml:4: spec: spec.requirements is required",
		req + "  price: \"1\"\n  priceAdjustment: \"+1\"\n": "ov.yaml:6: spec.price: cannot set both 'price' and 'priceAdjustment'",
		req + "  price: \"-1\"\n":                           `ov.yaml:6: spec.price: price "-1" does not match`,
		req + "  priceAdjustment: \"10%\"\n":                `ov.yaml:6: spec.priceAdjustment: priceAdjustment "10%" is not a signed amount or percentage`,
		req + "  priceAdjustment: \"-150%\"\n":              `priceAdjustment "-150%" is not a signed amount`,
		req + "  capacity: {cpu: 4}\n":                      "ov.yaml:6: spec.capacity.cpu: invalid resource restricted: cpu",
		req + "  capacity: {example.com/x: 500m}\n":         "spec.capacity.example.com/x: extended resource example.com/x must be a whole number",
		req + "  weight: 0\n  price: \"1\"\n":               "ov.yaml:6: spec.weight: weight 0 is out of range",
		"  requirements: [{key: kubernetes.io/hostname, operator: In, values: [a]}]\n  price: \"1\"\n":             `ov.yaml:5: spec.requirements[0].key: label "kubernetes.io/hostname" is restricted`,
		"  requirements: [{key: karpenter.sh/do-not-disrupt, operator: Exists}]\n  price: \"1\"\n":                 `label domain "karpenter.sh" is restricted`,
		"  requirements: [{key: karpenter.k8s.aws/instance-cpu, operator: Gte, values: [x]}]\n  price: \"1\"\n":    "must have a single positive integer value",
		"  requirements: [{key: karpenter.k8s.aws/instance-cpu, operator: in, values: [\"4\"]}]\n  price: \"1\"\n": "write operator: In",
		"  requirements: [{key: karpenter.sh/capacity-type, operator: NotIn}]\n  price: \"1\"\n":                   "requirements with operator 'NotIn' must have a value defined",
	} {
		_, _, err := compileYAML(t, "ov.yaml", overlay(spec))
		require.Error(t, err, spec)
		require.Contains(t, err.Error(), want, spec)
	}
	_, _, err = compileYAML(t, "ov.yaml", strings.Replace(overlay(req+"  price: \"1\"\n"), "v1alpha1", "v1", 1))
	require.ErrorContains(t, err, `NodeOverlay apiVersion "karpenter.sh/v1" is not served`)

	// Accepted by the API server, refused by the controller: never
	// applied, and said so.
	res, _, err = compileYAML(t, "ov.yaml", overlay("  requirements: [{key: karpenter.k8s.aws/instance-colour, operator: In, values: [red]}]\n  price: \"1\"\n"))
	require.NoError(t, err)
	require.Empty(t, res.NodeOverlays)
	require.Contains(t, strings.Join(warningTexts(res), "\n"), "fails Karpenter's runtime validation (spec.requirements[0].key: label karpenter.k8s.aws/instance-colour is in the karpenter.k8s.aws domain")

	// Order: weight descending, then name descending (KC OrderByWeight).
	two := overlay(req+"  price: \"1\"\n") + "---\n" + strings.Replace(overlay(req+"  price: \"2\"\n"), "name: o", "name: p", 1) +
		"---\n" + strings.Replace(overlay(req+"  price: \"3\"\n  weight: 5\n"), "name: o", "name: a", 1)
	res, _, err = compileYAML(t, "ov.yaml", two)
	require.NoError(t, err)
	var names []string
	for _, o := range res.NodeOverlays {
		names = append(names, o.Name)
	}
	require.Equal(t, []string{"a", "p", "o"}, names)
}
