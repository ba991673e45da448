package scenario

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// This file is the API server's admission plugins the run applies to the
// pods made from templates (spec.admission).

// extendedResourceTolerations is the ExtendedResourceToleration admission
// plugin, which EKS enables on every version (the EKS user guide's
// platform-versions.html lists it among every platform version's
// admission controllers; since 1.19, aws/containers-roadmap#739): a pod
// requesting an extended resource tolerates the NoSchedule taint of its
// name, {key: <resource>, operator: Exists, effect: NoSchedule}, so nodes
// tainted with the resource they offer (aws.amazon.com/neuron:NoSchedule)
// keep other pods away. The requests
// of containers and init containers count, after the API server's
// defaulting copied limits into missing requests; a matching toleration
// already there is kept (kubernetes plugin/pkg/admission/
// extendedresourcetoleration/admission.go, AddOrUpdateTolerationInPod).
// spec is returned as is when nothing is added, else a copy.
func extendedResourceTolerations(spec *corev1.PodSpec) *corev1.PodSpec {
	var names []string
	add := func(cs []corev1.Container) {
		for i := range cs {
			r := &cs[i].Resources
			for _, l := range []corev1.ResourceList{r.Requests, r.Limits} {
				for n := range l {
					if isExtendedResourceName(n) && !slices.Contains(names, string(n)) {
						names = append(names, string(n))
					}
				}
			}
		}
	}
	add(spec.Containers)
	add(spec.InitContainers)
	if len(names) == 0 {
		return spec
	}
	slices.Sort(names) // the plugin adds them sorted
	var tols []corev1.Toleration
	for _, n := range names {
		t := corev1.Toleration{Key: n, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
		if !slices.ContainsFunc(spec.Tolerations, func(have corev1.Toleration) bool { return matchToleration(have, t) }) {
			tols = append(tols, t)
		}
	}
	if len(tols) == 0 {
		return spec
	}
	out := *spec
	out.Tolerations = append(slices.Clip(spec.Tolerations), tols...)
	return &out
}

// matchToleration is the API's Toleration.MatchToleration: same key,
// effect, operator and value (the plugin replaces such a toleration by
// its own, which differs at most in tolerationSeconds, meaningless for
// NoSchedule).
func matchToleration(a, b corev1.Toleration) bool {
	op := func(o corev1.TolerationOperator) corev1.TolerationOperator {
		if o == "" {
			return corev1.TolerationOpEqual // the API server's default
		}
		return o
	}
	return a.Key == b.Key && a.Effect == b.Effect && op(a.Operator) == op(b.Operator) && a.Value == b.Value
}

// isExtendedResourceName is v1helper.IsExtendedResourceName (kubernetes
// pkg/apis/core/v1/helper/helpers.go): a name with a domain outside
// kubernetes.io, not "requests."-prefixed, that is a qualified name once
// prefixed with "requests.". cpu, memory, hugepages-2Mi and
// ephemeral-storage are native (no domain).
func isExtendedResourceName(n corev1.ResourceName) bool {
	s := string(n)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(fmt.Sprint(corev1.DefaultResourceRequestsPrefix, s))) == 0
}
