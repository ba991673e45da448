package scenario

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// PodTemplate is a compiled v1 PodTemplate: no controller creates pods
// from it; a CapacityBuffer's podTemplateRef keeps room for copies of
// its pod.
type PodTemplate struct {
	Namespace, Name string
	Pod             *cluster.PodSpec
	File            string
	Line            int
}

// compilePodTemplates compiles the PodTemplates' pods as a workload's,
// errors at their field. Their priority class is not looked up: the
// copies Karpenter makes of them take the lowest priority.
func (l *loader) compilePodTemplates() {
	for _, d := range l.order {
		if d.Kind != "PodTemplate" {
			continue
		}
		obj, ok := decode[corev1.PodTemplate](l, d)
		if !ok {
			continue
		}
		o := podObject{doc: d, name: d.Name, namespace: nsOr(d.Namespace), template: &obj.Template, specPath: "template.spec"}
		if len(obj.Template.Spec.Containers) == 0 {
			l.fail(d.Errorf("template.spec.containers", "a pod needs at least one container", "no containers"))
			continue
		}
		spec := l.compileTemplate(o, &obj.Template.Spec, o.specPath, func(string) (int32, bool, bool) { return 0, false, true })
		if spec == nil {
			continue
		}
		l.out.PodTemplates = append(l.out.PodTemplates, PodTemplate{Namespace: o.namespace, Name: o.name, Pod: spec, File: d.File, Line: d.Line})
	}
}

// ScaleSource is the cluster's scale source (cluster.SetScaleSource):
// the workloads' (workloads) and, for kind PodTemplate, the scenario's
// PodTemplates (0 replicas).
func (s *Scenario) ScaleSource(workloads cluster.ScaleSource) cluster.ScaleSource {
	return func(ns, kind, name string) (*cluster.PodSpec, int32, bool) {
		if kind != "PodTemplate" {
			return workloads(ns, kind, name)
		}
		for i := range s.PodTemplates {
			t := &s.PodTemplates[i]
			if t.Name == name && t.Namespace == ns {
				return t.Pod, 0, true
			}
		}
		return nil, 0, false
	}
}
