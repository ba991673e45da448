package scheduling

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

func mkReq(t *testing.T, syms *cluster.Symbols, key string, op corev1.NodeSelectorOperator, vals ...string) Requirement {
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
		a, b        Requirement
		intersects  bool
		has, hasNot []string // values the intersection allows / refuses
		wantOp      Operator
	}{
		{"In ∩ In", mkReq(t, syms, "k", in, "a", "b"), mkReq(t, syms, "k", in, "b", "c"), true, []string{"b"}, []string{"a", "c"}, OperatorIn},
		{"In ∩ In disjoint", mkReq(t, syms, "k", in, "a"), mkReq(t, syms, "k", in, "b"), false, nil, []string{"a", "b"}, OperatorDoesNotExist},
		{"In ∩ NotIn", mkReq(t, syms, "k", in, "a", "b"), mkReq(t, syms, "k", notIn, "a"), true, []string{"b"}, []string{"a"}, OperatorIn},
		{"NotIn ∩ NotIn", mkReq(t, syms, "k", notIn, "a"), mkReq(t, syms, "k", notIn, "b"), true, []string{"c"}, []string{"a", "b"}, OperatorNotIn},
		{"Exists ∩ In", mkReq(t, syms, "k", ex), mkReq(t, syms, "k", in, "a"), true, []string{"a"}, []string{"b"}, OperatorIn},
		{"DoesNotExist ∩ In", mkReq(t, syms, "k", dne), mkReq(t, syms, "k", in, "a"), false, nil, []string{"a"}, OperatorDoesNotExist},
		{"Gt ∩ In", mkReq(t, syms, "k", gt, "2"), mkReq(t, syms, "k", in, "1", "3", "x"), true, []string{"3"}, []string{"1", "x"}, OperatorIn},
		{"Gt ∩ Lt", mkReq(t, syms, "k", gt, "2"), mkReq(t, syms, "k", lt, "5"), true, []string{"3", "4"}, []string{"2", "5", "x"}, OperatorExists},
		{"Gt ∩ Lt empty", mkReq(t, syms, "k", gt, "4"), mkReq(t, syms, "k", lt, "5"), false, nil, []string{"4", "5"}, OperatorDoesNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.intersects, HasIntersection(syms, &tc.a, &tc.b))
			require.Equal(t, tc.intersects, HasIntersection(syms, &tc.b, &tc.a), "symmetric")
			x := intersect(syms, &tc.a, &tc.b)
			require.Equal(t, tc.wantOp, x.Operator())
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
	node := SortRequirements(syms, []Requirement{mkReq(t, syms, "team", corev1.NodeSelectorOpIn, "a")})
	for _, tc := range []struct {
		name string
		pod  []Requirement
		want bool
	}{
		{"same value", []Requirement{mkReq(t, syms, "team", corev1.NodeSelectorOpIn, "a")}, true},
		{"other value", []Requirement{mkReq(t, syms, "team", corev1.NodeSelectorOpIn, "b")}, false},
		{"undefined custom label", []Requirement{mkReq(t, syms, "tier", corev1.NodeSelectorOpIn, "x")}, false},
		{"undefined custom label, NotIn", []Requirement{mkReq(t, syms, "tier", corev1.NodeSelectorOpNotIn, "x")}, true},
		{"undefined custom label, DoesNotExist", []Requirement{mkReq(t, syms, "tier", corev1.NodeSelectorOpDoesNotExist)}, true},
		{"undefined well-known label", []Requirement{mkReq(t, syms, "topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, "z")}, true},
		{"both negative", []Requirement{mkReq(t, syms, "team", corev1.NodeSelectorOpNotIn, "a")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, RequirementsCompatible(syms, node, SortRequirements(syms, tc.pod), wellKnown))
		})
	}
	neg := SortRequirements(syms, []Requirement{mkReq(t, syms, "team", corev1.NodeSelectorOpDoesNotExist)})
	require.True(t, RequirementsCompatible(syms, neg, SortRequirements(syms, []Requirement{mkReq(t, syms, "team", corev1.NodeSelectorOpNotIn, "a")}), nil), "two negative requirements are compatible")
}

func TestMergeKeepsOrder(t *testing.T) {
	syms := cluster.NewSymbols()
	a := SortRequirements(syms, []Requirement{mkReq(t, syms, "b", corev1.NodeSelectorOpIn, "1"), mkReq(t, syms, "a", corev1.NodeSelectorOpExists)})
	b := SortRequirements(syms, []Requirement{mkReq(t, syms, "c", corev1.NodeSelectorOpIn, "x"), mkReq(t, syms, "a", corev1.NodeSelectorOpIn, "y")})
	m := MergeRequirements(syms, a, b)
	require.Len(t, m, 3)
	for i := 1; i < len(m); i++ {
		require.Less(t, m[i-1].Key, m[i].Key)
	}
	require.Equal(t, OperatorIn, m.Get(syms.Intern("a")).Operator())
	require.Same(t, &a[0], &MergeRequirements(syms, a, nil)[0], "merging nothing returns the set itself")
}

// The queue orders pods of equal requests by creationTimestamp, which
// keeps whole seconds, then by uid (KC byCPUAndMemoryDescending).
func TestQueueOrderWithinASecondIsByUID(t *testing.T) {
	key := func(id cluster.PodID, created time.Duration, rank uint64) QueueKey {
		return QueueKey{CPU: 1000, Memory: 1 << 30, Created: created, UIDRank: rank, ID: id}
	}
	// Created 0.2 s apart in one second: the uid decides, not the time.
	require.Equal(t, 1, CompareQueueKeys(key(1, 100*time.Millisecond, 9), key(2, 300*time.Millisecond, 3)))
	// A second apart: the older first, whatever the uid.
	require.Equal(t, -1, CompareQueueKeys(key(1, 900*time.Millisecond, 9), key(2, time.Second, 3)))
	// Before the run's start (imported pods): -0.5 s is in the second before 0.
	require.Equal(t, -1, CompareQueueKeys(key(1, -500*time.Millisecond, 9), key(2, 0, 3)))
	// Larger requests first, whatever the rest.
	big := key(3, time.Hour, 99)
	big.CPU = 2000
	require.Equal(t, -1, CompareQueueKeys(big, key(1, 0, 0)))
	// Same uid rank: the pod ID.
	require.Equal(t, -1, CompareQueueKeys(key(1, 0, 5), key(2, 0, 5)))
}
