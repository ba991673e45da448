package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// matchLabelKeys and mismatchLabelKeys (KEP-3633) add the pod's own values
// to the selectors of its affinity terms and (matchLabelKeys only) of its
// spread constraints; keys the pod lacks add nothing.
func TestMatchLabelKeys(t *testing.T) {
	syms := NewSymbols()
	tier := &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}
	spec := corev1.PodSpec{
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: "kubernetes.io/hostname", LabelSelector: tier,
			MatchLabelKeys: []string{"app", "absent"}, MismatchLabelKeys: []string{"ver"},
		}}}},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: tier, MatchLabelKeys: []string{"app", "absent"},
		}},
	}
	out, _, err := CompilePodSpec(syms, NewResourceNames(), PodSpecInput{Namespace: "default",
		Labels: map[string]string{"tier": "web", "app": "shop", "ver": "v1"}, Spec: &spec})
	require.NoError(t, err)
	require.Len(t, out.PodAntiAffinity, 1)
	require.Len(t, out.Spread, 1)
	term, spread := &out.PodAntiAffinity[0].Selector, &out.Spread[0].Selector
	for _, tc := range []struct {
		labels     map[string]string
		term, sprd bool
	}{
		{map[string]string{"tier": "web", "app": "shop", "ver": "v2"}, true, true},
		{map[string]string{"tier": "web", "app": "shop", "ver": "v1"}, false, true},  // mismatchLabelKeys: same ver
		{map[string]string{"tier": "web", "app": "cart", "ver": "v2"}, false, false}, // matchLabelKeys: other app
		{map[string]string{"tier": "db", "app": "shop", "ver": "v2"}, false, false},
	} {
		ls := CompileLabels(syms, tc.labels)
		require.Equal(t, tc.term, term.Matches(syms, ls), "term %v", tc.labels)
		require.Equal(t, tc.sprd, spread.Matches(syms, ls), "spread %v", tc.labels)
	}
}
