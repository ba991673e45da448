package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// StaticFit names the first check a node fails, in the scheduler's filter
// order (cordon, node name, taints, node selector/affinity, resources),
// returns the untolerated taint, and skips resources when free is nil.
// (That it agrees with the scheduler's own filters is checked in
// sim/scheduler, TestStaticFitAgreesWithFilters.)
func TestStaticFitOrderAndReasons(t *testing.T) {
	syms := NewSymbols()
	pool, a, b := syms.Intern("pool"), syms.Intern("a"), syms.Intern("b")
	key, gpu := syms.Intern("k"), syms.Intern("gpu")
	taint := Taint{Key: key, Value: gpu, Effect: EffectNoSchedule}
	var room, small, req Resources
	room[CPU], small[CPU], req[CPU] = 4000, 500, 1000

	node := func(name string, poolName Sym, cordoned bool, taints ...Taint) *Node {
		n := &Node{Name: name, Labels: Labels{}.With(pool, poolName), Unschedulable: cordoned, Taints: taints}
		n.SetIdentity(syms, syms.Intern("kubernetes.io/hostname"))
		return n
	}
	plain := &PodSpec{Requests: req}
	inPoolB := &PodSpec{Requests: req, NodeSelector: []Requirement{{Key: pool, Op: OpIn, Values: []Sym{b}}}}
	named := &PodSpec{Requests: req, NodeName: "n1"}
	tolerant := &PodSpec{Requests: req, Tolerations: Tolerations{{Op: TolerateExists}}}

	for _, c := range []struct {
		name  string
		spec  *PodSpec
		node  *Node
		free  *Resources
		want  Mismatch
		taint Taint
	}{
		{"fits", plain, node("n1", a, false), &room, Fits, Taint{}},
		{"no resource check without free", plain, node("n1", a, false), nil, Fits, Taint{}},
		{"too small", plain, node("n1", a, false), &small, Insufficient, Taint{}},
		{"cordoned first", inPoolB, node("n1", a, true, taint), &small, Cordoned, Taint{}},
		{"cordon tolerated", tolerant, node("n1", a, true, taint), &room, Fits, Taint{}},
		{"node name before taints", named, node("n2", a, false, taint), &room, WrongNodeName, Taint{}},
		{"node name matches", named, node("n1", a, false), &room, Fits, Taint{}},
		{"taint before selector", inPoolB, node("n1", a, false, taint), &small, UntoleratedTaint, taint},
		{"PreferNoSchedule does not filter", plain, node("n1", a, false, Taint{Key: key, Effect: EffectPreferNoSchedule}), &room, Fits, Taint{}},
		{"selector before resources", inPoolB, node("n1", a, false), &small, NodeSelectorMismatch, Taint{}},
		{"selector matches", inPoolB, node("n1", b, false), &room, Fits, Taint{}},
	} {
		m, got := StaticFit(syms, c.spec, c.node, c.free)
		require.Equal(t, c.want, m, c.name)
		require.Equal(t, c.taint, got, c.name)
	}
}

func TestMismatchNames(t *testing.T) {
	seen := map[string]bool{}
	for m := Fits; m <= Insufficient; m++ {
		s := m.String()
		require.NotEmpty(t, s)
		require.False(t, seen[s], "two mismatches share the name %q", s)
		seen[s] = true
	}
	require.Equal(t, "untolerated taint", UntoleratedTaint.String())
}
