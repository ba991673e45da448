package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The names the plugin counts as extended are v1helper's: a domain
// outside kubernetes.io, no "requests." prefix, a qualified name.
func TestIsExtendedResourceName(t *testing.T) {
	for n, want := range map[corev1.ResourceName]bool{
		"aws.amazon.com/neuron": true, "nvidia.com/gpu": true, "vpc.amazonaws.com/efa": true, "example.com/dongle": true,
		"cpu": false, "memory": false, "hugepages-2Mi": false, "ephemeral-storage": false,
		"kubernetes.io/batteries": false, "node.kubernetes.io/x": false, "requests.example.com/foo": false,
		"example.com/bad name": false, "/gpu": false,
	} {
		require.Equal(t, want, isExtendedResourceName(n), n)
	}
}

// The toleration the plugin adds: one per extended resource of any
// container or init container (given as a request or, defaulted, as a
// limit), sorted, none when the pod already has it. The spec as
// published by the EKS workshop (aws-samples/eks-workshop-v2,
// manifests/modules/aiml/chatbot/vllm.yaml) tolerates the Neuron taint
// itself: nothing is added.
func TestExtendedResourceTolerations(t *testing.T) {
	q := resource.MustParse("1")
	neuron := corev1.Container{Name: "vllm", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{"cpu": resource.MustParse("4"), "aws.amazon.com/neuron": q},
		Limits:   corev1.ResourceList{"cpu": resource.MustParse("4"), "aws.amazon.com/neuron": q}}}
	published := &corev1.PodSpec{Containers: []corev1.Container{neuron},
		Tolerations: []corev1.Toleration{{Effect: corev1.TaintEffectNoSchedule, Key: "aws.amazon.com/neuron", Operator: corev1.TolerationOpExists}}}
	require.Same(t, published, extendedResourceTolerations(published))

	plain := &corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q}}}}}
	require.Same(t, plain, extendedResourceTolerations(plain))

	own := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ml", Effect: corev1.TaintEffectNoSchedule}
	// Equal with no value is not the plugin's Exists: it is kept and the
	// plugin's added.
	equal := corev1.Toleration{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}
	spec := &corev1.PodSpec{
		Containers:     []corev1.Container{neuron},
		InitContainers: []corev1.Container{{Name: "fetch", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": q}}}},
		Tolerations:    []corev1.Toleration{own, equal},
	}
	got := extendedResourceTolerations(spec)
	require.NotSame(t, spec, got)
	require.Len(t, spec.Tolerations, 2, "the template is not changed")
	exists := func(k string) corev1.Toleration {
		return corev1.Toleration{Key: k, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	}
	require.Equal(t, []corev1.Toleration{own, equal, exists("aws.amazon.com/neuron"), exists("nvidia.com/gpu")}, got.Tolerations)
}
