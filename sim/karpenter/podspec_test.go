package karpenter

import (
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// podOpt adds a constraint under test to a pod's spec, labels or
// annotations.
type podOpt func(*corev1.PodSpec, map[string]string, map[string]string)

// podSpec compiles the spec of the pods a test deploys: one container
// requesting cpu and mem, in the default namespace, with the labels and
// the options' constraints.
func (h *harness) podSpec(cpu, mem string, labels map[string]string, opts ...podOpt) *cluster.PodSpec {
	h.t.Helper()
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}
	ann := map[string]string{}
	if labels == nil {
		labels = map[string]string{}
	}
	for _, o := range opts {
		o(&spec, labels, ann)
	}
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: labels, Annotations: ann, Spec: &spec})
	require.NoError(h.t, err)
	return cs
}

func withNodeSelector(k, v string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		if s.NodeSelector == nil {
			s.NodeSelector = map[string]string{}
		}
		s.NodeSelector[k] = v
	}
}

func withDoNotDisrupt() podOpt {
	return func(_ *corev1.PodSpec, _, ann map[string]string) { ann["karpenter.sh/do-not-disrupt"] = "true" }
}

func withZoneSpread(app string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}})
	}
}

func withHostAntiAffinity(app string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		if s.Affinity == nil {
			s.Affinity = &corev1.Affinity{}
		}
		s.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: "kubernetes.io/hostname"}}}
	}
}

func withPreferredZone(zone string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		if s.Affinity == nil {
			s.Affinity = &corev1.Affinity{}
		}
		s.Affinity.NodeAffinity = &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}
	}
}
