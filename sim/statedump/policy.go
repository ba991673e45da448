package statedump

import (
	"strconv"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/clustersim/clustersim/sim/cluster"
)

// HPA is a workload's HorizontalPodAutoscaler: its bounds and CPU
// utilization target (percent).
type HPA struct {
	Min, Max      int32
	TargetPercent int32
}

func intOrPercent(v *cluster.IntOrPercent) *intstr.IntOrString {
	if v == nil {
		return nil
	}
	var out intstr.IntOrString
	if v.Percent {
		out = intstr.FromString(strconv.Itoa(int(v.Value)) + "%")
	} else {
		out = intstr.FromInt32(v.Value)
	}
	return &out
}

// pdbs writes the PodDisruptionBudgets (policy/v1).
func (d *dumper) pdbs() {
	for i := range d.in.PDBs {
		b := &d.in.PDBs[i]
		ns := d.cl.Syms.Name(b.Namespace)
		d.item(&policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
			ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: ns, UID: UID("PodDisruptionBudget", ns, b.Name),
				CreationTimestamp: metav1.NewTime(d.in.Epoch.UTC())},
			Spec: policyv1.PodDisruptionBudgetSpec{Selector: labelSelector(d.cl.Syms, b.Selector),
				MinAvailable: intOrPercent(b.MinAvailable), MaxUnavailable: intOrPercent(b.MaxUnavailable)}})
	}
}

// hpas writes the HorizontalPodAutoscalers (autoscaling/v2) of the
// workloads that have one, named after the workload.
func (d *dumper) hpas() {
	for i := range d.in.Workloads {
		w := &d.in.Workloads[i]
		if w.HPA == nil || len(w.Instances) == 0 {
			continue
		}
		min, target := w.HPA.Min, w.HPA.TargetPercent
		var replicas int32
		for _, in := range w.Instances {
			replicas += in.Desired
		}
		d.item(&autoscalingv2.HorizontalPodAutoscaler{
			TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
			ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: w.Namespace, UID: UID("HorizontalPodAutoscaler", w.Namespace, w.Name),
				CreationTimestamp: metav1.NewTime(d.in.Epoch.UTC())},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: w.Kind, Name: w.Name},
				MinReplicas:    &min, MaxReplicas: w.HPA.Max,
				Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: "cpu", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}},
			},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: replicas, DesiredReplicas: replicas}})
	}
}
