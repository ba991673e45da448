package karpenter

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

func mkReq(t *testing.T, syms *cluster.Symbols, key string, op corev1.NodeSelectorOperator, vals ...string) rq {
	t.Helper()
	r, err := cluster.CompileRequirement(syms, corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}, cluster.MatchExpression)
	require.NoError(t, err)
	return fromRequirement(&r)
}

// The set algebra of KC pkg/scheduling/requirement.go.
func TestRequirementAlgebra(t *testing.T) {
	syms := cluster.NewSymbols()
	in := corev1.NodeSelectorOpIn
	notIn := corev1.NodeSelectorOpNotIn
	ex := corev1.NodeSelectorOpExists
	dne := corev1.NodeSelectorOpDoesNotExist
	gt := corev1.NodeSelectorOpGt
	lt := corev1.NodeSelectorOpLt
	for _, tc := range []struct {
		name        string
		a, b        rq
		intersects  bool
		has, hasNot []string // values the intersection allows / refuses
		wantOp      opKind
	}{
		{"In ∩ In", mkReq(t, syms, "k", in, "a", "b"), mkReq(t, syms, "k", in, "b", "c"), true, []string{"b"}, []string{"a", "c"}, opIn},
		{"In ∩ In disjoint", mkReq(t, syms, "k", in, "a"), mkReq(t, syms, "k", in, "b"), false, nil, []string{"a", "b"}, opDoesNotExist},
		{"In ∩ NotIn", mkReq(t, syms, "k", in, "a", "b"), mkReq(t, syms, "k", notIn, "a"), true, []string{"b"}, []string{"a"}, opIn},
		{"NotIn ∩ NotIn", mkReq(t, syms, "k", notIn, "a"), mkReq(t, syms, "k", notIn, "b"), true, []string{"c"}, []string{"a", "b"}, opNotIn},
		{"Exists ∩ In", mkReq(t, syms, "k", ex), mkReq(t, syms, "k", in, "a"), true, []string{"a"}, []string{"b"}, opIn},
		{"DoesNotExist ∩ In", mkReq(t, syms, "k", dne), mkReq(t, syms, "k", in, "a"), false, nil, []string{"a"}, opDoesNotExist},
		{"Gt ∩ In", mkReq(t, syms, "k", gt, "2"), mkReq(t, syms, "k", in, "1", "3", "x"), true, []string{"3"}, []string{"1", "x"}, opIn},
		{"Gt ∩ Lt", mkReq(t, syms, "k", gt, "2"), mkReq(t, syms, "k", lt, "5"), true, []string{"3", "4"}, []string{"2", "5", "x"}, opExists},
		{"Gt ∩ Lt empty", mkReq(t, syms, "k", gt, "4"), mkReq(t, syms, "k", lt, "5"), false, nil, []string{"4", "5"}, opDoesNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.intersects, hasIntersection(syms, &tc.a, &tc.b))
			require.Equal(t, tc.intersects, hasIntersection(syms, &tc.b, &tc.a), "symmetric")
			x := intersect(syms, &tc.a, &tc.b)
			require.Equal(t, tc.wantOp, x.op())
			for _, v := range tc.has {
				require.True(t, x.has(syms, syms.Intern(v)), v)
			}
			for _, v := range tc.hasNot {
				require.False(t, x.has(syms, syms.Intern(v)), v)
			}
		})
	}
}

// Compatible: undefined custom labels are refused unless the pod's
// requirement is negative; well-known ones are allowed (KC
// Requirements.Compatible with AllowUndefinedWellKnownLabels).
func TestRequirementCompatible(t *testing.T) {
	syms := cluster.NewSymbols()
	wk := syms.Intern("topology.kubernetes.io/zone")
	wellKnown := func(s cluster.Sym) bool { return s == wk }
	node := sortReqs(syms, []rq{mkReq(t, syms, "team", corev1.NodeSelectorOpIn, "a")})
	for _, tc := range []struct {
		name string
		pod  []rq
		want bool
	}{
		{"same value", []rq{mkReq(t, syms, "team", corev1.NodeSelectorOpIn, "a")}, true},
		{"other value", []rq{mkReq(t, syms, "team", corev1.NodeSelectorOpIn, "b")}, false},
		{"undefined custom label", []rq{mkReq(t, syms, "tier", corev1.NodeSelectorOpIn, "x")}, false},
		{"undefined custom label, NotIn", []rq{mkReq(t, syms, "tier", corev1.NodeSelectorOpNotIn, "x")}, true},
		{"undefined custom label, DoesNotExist", []rq{mkReq(t, syms, "tier", corev1.NodeSelectorOpDoesNotExist)}, true},
		{"undefined well-known label", []rq{mkReq(t, syms, "topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, "z")}, true},
		{"both negative", []rq{mkReq(t, syms, "team", corev1.NodeSelectorOpNotIn, "a")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, compatible(syms, node, sortReqs(syms, tc.pod), wellKnown))
		})
	}
	neg := sortReqs(syms, []rq{mkReq(t, syms, "team", corev1.NodeSelectorOpDoesNotExist)})
	require.True(t, compatible(syms, neg, sortReqs(syms, []rq{mkReq(t, syms, "team", corev1.NodeSelectorOpNotIn, "a")}), nil), "two negative requirements are compatible")
}

func TestMergeKeepsOrder(t *testing.T) {
	syms := cluster.NewSymbols()
	a := sortReqs(syms, []rq{mkReq(t, syms, "b", corev1.NodeSelectorOpIn, "1"), mkReq(t, syms, "a", corev1.NodeSelectorOpExists)})
	b := sortReqs(syms, []rq{mkReq(t, syms, "c", corev1.NodeSelectorOpIn, "x"), mkReq(t, syms, "a", corev1.NodeSelectorOpIn, "y")})
	m := merge(syms, a, b)
	require.Len(t, m, 3)
	for i := 1; i < len(m); i++ {
		require.Less(t, m[i-1].key, m[i].key)
	}
	require.Equal(t, opIn, m.get(syms.Intern("a")).op())
	require.Same(t, &a[0], &merge(syms, a, nil)[0], "merging nothing returns the set itself")
}
