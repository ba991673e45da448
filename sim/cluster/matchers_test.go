package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// The compiled matchers must agree with Kubernetes' own on every input the
// API server accepts. These tests draw random labels, taints, tolerations
// and selectors from small alphabets (so that matches and near-misses are
// both common) and compare.

var (
	testKeys   = []string{"a", "b", "zone", "example.com/tier"}
	testValues = []string{"x", "y", "", "1", "10", "3", "007"}
)

func randLabels(r *rand.Rand) map[string]string {
	m := map[string]string{}
	for _, k := range testKeys {
		if r.IntN(3) > 0 {
			m[k] = testValues[r.IntN(len(testValues))]
		}
	}
	return m
}

func randValues(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	for range n {
		out = append(out, testValues[r.IntN(len(testValues))])
	}
	return out
}

// randSetOperator is ops[k] of the set-based operators In, NotIn, Exists,
// DoesNotExist, with 1 to maxValues values for In and NotIn.
func randSetOperator[Op ~string](r *rand.Rand, k, maxValues int, ops [4]Op) (Op, []string) {
	if k < 2 {
		return ops[k], randValues(r, 1+r.IntN(maxValues))
	}
	return ops[k], nil
}

func randNodeRequirement(r *rand.Rand) corev1.NodeSelectorRequirement {
	req := corev1.NodeSelectorRequirement{Key: testKeys[r.IntN(len(testKeys))]}
	switch k := r.IntN(6); k {
	case 0, 1, 2, 3:
		req.Operator, req.Values = randSetOperator(r, k, 3, [4]corev1.NodeSelectorOperator{
			corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist})
	case 4:
		req.Operator, req.Values = corev1.NodeSelectorOpGt, []string{fmt.Sprint(r.IntN(12))}
	case 5:
		req.Operator, req.Values = corev1.NodeSelectorOpLt, []string{fmt.Sprint(r.IntN(12))}
	}
	return req
}

func randNodeSelector(r *rand.Rand) *corev1.NodeSelector {
	ns := &corev1.NodeSelector{}
	for range 1 + r.IntN(3) {
		var t corev1.NodeSelectorTerm
		for range r.IntN(4) { // zero expressions: an empty term, which matches nothing
			t.MatchExpressions = append(t.MatchExpressions, randNodeRequirement(r))
		}
		if r.IntN(5) == 0 {
			op := corev1.NodeSelectorOpIn
			if r.IntN(2) == 0 {
				op = corev1.NodeSelectorOpNotIn
			}
			t.MatchFields = append(t.MatchFields, corev1.NodeSelectorRequirement{
				Key: "metadata.name", Operator: op, Values: []string{fmt.Sprintf("node-%d", r.IntN(3))}})
		}
		ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, t)
	}
	return ns
}

func TestNodeSelectorMatchesKubernetes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	syms := NewSymbols()
	matched := 0
	for i := range 20000 {
		nodeLabels := randLabels(r)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", r.IntN(3)), Labels: nodeLabels}}
		ns := randNodeSelector(r)
		want, err := nodeaffinity.NewNodeSelector(ns)
		require.NoError(t, err, "case %d", i)
		got, err := CompileNodeSelector(syms, ns)
		require.NoError(t, err, "case %d", i)
		w := want.Match(node)
		g := got.Matches(syms, CompileLabels(syms, nodeLabels), syms.Intern(node.Name))
		require.Equal(t, w, g, "case %d: selector %+v on node %s %v", i, ns, node.Name, nodeLabels)
		if w {
			matched++
		}
	}
	require.Greater(t, matched, 2000, "the generator must produce matches too")
	require.Less(t, matched, 18000, "and non-matches")
}

func TestNodeSelectorMapAndPreferredMatchKubernetes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	syms := NewSymbols()
	for i := range 10000 {
		nodeLabels := randLabels(r)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: nodeLabels}}
		sel := map[string]string{}
		for range r.IntN(3) {
			sel[testKeys[r.IntN(len(testKeys))]] = testValues[r.IntN(len(testValues))]
		}
		var aff *corev1.Affinity
		if r.IntN(2) == 0 {
			aff = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: randNodeSelector(r)}}
		}
		want, err := nodeaffinity.NewRequiredNodeAffinity(sel, aff).Match(node)
		require.NoError(t, err)
		reqs := SelectorFromMap(syms, sel)
		var ns *NodeSelector
		if aff != nil {
			ns, err = CompileNodeSelector(syms, aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
			require.NoError(t, err)
		}
		ls := CompileLabels(syms, nodeLabels)
		got := true
		for j := range reqs {
			got = got && reqs[j].Matches(syms, ls)
		}
		if ns != nil {
			got = got && ns.Matches(syms, ls, syms.Intern("n"))
		}
		require.Equal(t, want, got, "case %d", i)

		// Preferred terms: the score is the sum of matching weights.
		var prefs []corev1.PreferredSchedulingTerm
		for range r.IntN(4) {
			term := randNodeSelector(r).NodeSelectorTerms[0]
			prefs = append(prefs, corev1.PreferredSchedulingTerm{Weight: int32(1 + r.IntN(100)), Preference: term})
		}
		wantScore, err := nodeaffinity.NewPreferredSchedulingTerms(prefs)
		require.NoError(t, err)
		var gotScore int64
		for _, p := range prefs {
			term, empty, err := CompileTerm(syms, p.Preference)
			require.NoError(t, err)
			if !empty && term.Matches(syms, ls, syms.Intern("n")) {
				gotScore += int64(p.Weight)
			}
		}
		require.Equal(t, wantScore.Score(node), gotScore, "case %d", i)
	}
}

func randTaint(r *rand.Rand) corev1.Taint {
	effects := []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
	return corev1.Taint{Key: testKeys[r.IntN(len(testKeys))], Value: testValues[r.IntN(3)], Effect: effects[r.IntN(3)]}
}

func randToleration(r *rand.Rand) corev1.Toleration {
	effects := []corev1.TaintEffect{"", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
	t := corev1.Toleration{Effect: effects[r.IntN(4)]}
	switch r.IntN(4) {
	case 0:
		t.Operator = corev1.TolerationOpExists // any key
	case 1:
		t.Key, t.Operator = testKeys[r.IntN(len(testKeys))], corev1.TolerationOpExists
	case 2:
		t.Key, t.Operator, t.Value = testKeys[r.IntN(len(testKeys))], corev1.TolerationOpEqual, testValues[r.IntN(3)]
	case 3:
		t.Key, t.Value = testKeys[r.IntN(len(testKeys))], testValues[r.IntN(3)] // empty operator means Equal
	}
	return t
}

func TestTaintsMatchKubernetes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	syms := NewSymbols()
	logger := klog.Background()
	noSchedule := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	untolerated := 0
	for i := range 20000 {
		var taints []corev1.Taint
		for range r.IntN(4) {
			taints = append(taints, randTaint(r))
		}
		var tols []corev1.Toleration
		for range r.IntN(4) {
			if r.IntN(8) == 0 {
				// Gt/Lt need an alpha feature gate; with it off they tolerate nothing.
				tols = append(tols, corev1.Toleration{Key: "a", Operator: corev1.TolerationOpGt, Value: "1"})
				continue
			}
			tols = append(tols, randToleration(r))
		}
		wantTaint, wantBad := corev1helpers.FindMatchingUntoleratedTaint(logger, taints, tols, noSchedule, false)
		var ct []Taint
		for _, tt := range taints {
			c, err := CompileTaint(syms, tt)
			require.NoError(t, err)
			ct = append(ct, c)
		}
		var ctols Tolerations
		for _, tol := range tols {
			c, _, err := CompileToleration(syms, tol)
			require.NoError(t, err)
			ctols = append(ctols, c)
		}
		gotTaint, gotBad := ctols.FirstUntolerated(ct)
		require.Equal(t, wantBad, gotBad, "case %d: taints %v tolerations %v", i, taints, tols)
		if wantBad {
			untolerated++
			require.Equal(t, wantTaint.Key, syms.Name(gotTaint.Key))
			require.Equal(t, wantTaint.Value, syms.Name(gotTaint.Value))
			require.Equal(t, string(wantTaint.Effect), gotTaint.Effect.String())
		}
		for j := range taints {
			want := corev1helpers.TolerationsTolerateTaint(logger, tols, &taints[j], false)
			require.Equal(t, want, ctols.Tolerate(ct[j]), "case %d taint %d", i, j)
		}
	}
	require.Greater(t, untolerated, 2000)
	require.Less(t, untolerated, 18000)
}

func TestLabelSelectorMatchesKubernetes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	syms := NewSymbols()
	for i := range 10000 {
		podLabels := randLabels(r)
		var sel *metav1.LabelSelector
		if r.IntN(10) > 0 {
			sel = &metav1.LabelSelector{}
			if r.IntN(2) == 0 {
				sel.MatchLabels = map[string]string{testKeys[r.IntN(len(testKeys))]: testValues[r.IntN(3)]}
			}
			for range r.IntN(3) {
				e := metav1.LabelSelectorRequirement{Key: testKeys[r.IntN(len(testKeys))]}
				e.Operator, e.Values = randSetOperator(r, r.IntN(4), 2, [4]metav1.LabelSelectorOperator{
					metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist})
				sel.MatchExpressions = append(sel.MatchExpressions, e)
			}
		}
		var want bool
		if sel != nil { // a nil selector matches nothing in affinity and spread
			s, err := metav1.LabelSelectorAsSelector(sel)
			require.NoError(t, err)
			want = s.Matches(labels.Set(podLabels))
		}
		got, err := CompileLabelSelector(syms, sel)
		require.NoError(t, err)
		require.Equal(t, want, got.Matches(syms, CompileLabels(syms, podLabels)), "case %d: %v on %v", i, sel, podLabels)
	}
}

func TestCompileRejectsWhatTheAPIServerRejects(t *testing.T) {
	syms := NewSymbols()
	cases := []struct {
		req  corev1.NodeSelectorRequirement
		want string
	}{
		{corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpIn}, "values: operator In needs at least one value"},
		{corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpExists, Values: []string{"x"}}, "values: operator Exists takes no values, got 1"},
		{corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpGt, Values: []string{"x"}}, `values[0]: operator Gt needs an integer, got "x"`},
		{corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpLt, Values: []string{"1", "2"}}, "values: operator Lt needs exactly one value, got 2"},
		{corev1.NodeSelectorRequirement{Key: "a", Operator: "Equals", Values: []string{"x"}}, `operator: "Equals" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt`},
		{corev1.NodeSelectorRequirement{Key: "", Operator: corev1.NodeSelectorOpExists}, "key: must not be empty"},
		{corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"-3"}}, `values[0]: "-3" is not a valid label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{corev1.NodeSelectorRequirement{Key: "bad key", Operator: corev1.NodeSelectorOpExists}, `key: "bad key" is not a valid label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
	}
	for _, c := range cases {
		_, err := CompileRequirement(syms, c.req, MatchExpression)
		require.EqualError(t, err, c.want)
	}
	_, _, err := CompileToleration(syms, corev1.Toleration{Operator: corev1.TolerationOpEqual, Value: "x"})
	require.EqualError(t, err, "operator Equal needs a key (an empty key is only valid with operator Exists)")
	_, warn, err := CompileToleration(syms, corev1.Toleration{Key: "a", Operator: corev1.TolerationOpLt, Value: "3"})
	require.NoError(t, err)
	require.Contains(t, warn, "TaintTolerationComparisonOperators")
	_, err = CompileTaint(syms, corev1.Taint{Key: "a", Effect: "NoSchedul"})
	require.EqualError(t, err, `effect "NoSchedul" is not one of NoSchedule, PreferNoSchedule, NoExecute`)
}
