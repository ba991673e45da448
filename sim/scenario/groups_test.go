package scenario

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// Documents go to components by API group and kind, never by kind alone:
// a NodePool in the core group or in a group a typo away from karpenter.sh
// goes to Karpenter, whose compile step makes it an error at its line
// with the served version (it must not be dropped); one of an unrelated
// API group is another product's kind, skipped with a line saying so.
func TestComponentKindsByGroup(t *testing.T) {
	const head = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: g}
spec:
  duration: 1h
  staticNodes: [{name: base, instanceType: m5.large, count: 1}]
---
`
	load := func(doc string) (*Scenario, error) {
		return LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(head + doc)}}, "s.yaml")
	}
	for _, apiVersion := range []string{"v1", "karpenter.io/v1", "karpenter.s/v1"} {
		_, err := load("apiVersion: " + apiVersion + "\nkind: NodePool\nmetadata: {name: p}\nspec: {}\n")
		require.ErrorContains(t, err, "s.yaml:8: apiVersion: ", apiVersion)
		require.ErrorContains(t, err, `NodePool is served as karpenter.sh/v1 (formerly karpenter.sh/v1beta1), not "`+apiVersion+`"; use apiVersion: karpenter.sh/v1`, apiVersion)
	}
	sc, err := load("apiVersion: nodes.example.com/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {}\n")
	require.NoError(t, err)
	require.Empty(t, sc.Components, "another API's NodePool runs no Karpenter")
	var skipped []string
	for _, w := range sc.Warnings {
		if strings.Contains(w.Msg, "NodePool.nodes.example.com") {
			skipped = append(skipped, w.Msg)
		}
	}
	require.Equal(t, []string{"1 NodePool.nodes.example.com object(s) skipped: the simulator reads NodePool of API group karpenter.sh (karpenter), not of nodes.example.com: a custom resource, whose controller is not simulated, nor whatever it would create"}, skipped)
	// Karpenter's own group still reaches its compiler, whose version
	// errors stay as precise as before.
	_, err = load("apiVersion: karpenter.sh/v2\nkind: NodePool\nmetadata: {name: p}\nspec: {}\n")
	require.ErrorContains(t, err, "karpenter.sh/v2")
}
