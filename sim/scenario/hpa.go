package scenario

import (
	"fmt"
	"strings"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/workload"
)

// hpaTargetPercent is the CPU utilization target of an HPA without metrics
// (autoscaling/v1 targetCPUUtilizationPercentage and the v2 default).
const hpaTargetPercent = int32(workload.DefaultHPATarget * 100)

// manifestHPA is a HorizontalPodAutoscaler of the manifests (autoscaling/v2
// or v1): the bounds it puts on its target's replicas, and what it tells a
// scenario's synthetic-load HPA (spec.workloads[].hpa).
type manifestHPA struct {
	doc      *manifest.Document
	ref      string // HorizontalPodAutoscaler/namespace/name
	target   string // Kind/namespace/name
	min, max int32
	// cpuTarget is the CPU utilization target in percent (0: none; the
	// API's default of 80% applies when the HPA has no metrics).
	cpuTarget int32
	// stabilization is behavior.scaleDown.stabilizationWindowSeconds
	// (negative: unset).
	stabilization time.Duration
	// otherMetrics names the metrics a synthetic CPU load cannot stand
	// for (memory, pods, object, external).
	otherMetrics []string
}

// compileHPAs reads the HorizontalPodAutoscalers and returns them by the
// reference of the workload they scale. An HPA whose target is not in the
// scenario, or not a Deployment, StatefulSet or ReplicaSet, is ignored with
// a warning; two HPAs on one target are both ignored, as the HPA controller
// refuses to act on either (AmbiguousSelector).
func (l *loader) compileHPAs(objs []podObject) map[string]*manifestHPA {
	known := map[string]bool{}
	for _, o := range objs {
		known[l.refOf(o.doc)] = true
	}
	out := map[string]*manifestHPA{}
	ambiguous := map[string]bool{}
	for _, d := range l.docsOf("HorizontalPodAutoscaler") {
		h, ok := l.decodeHPA(d)
		if !ok {
			continue
		}
		kind := strings.SplitN(h.target, "/", 2)[0]
		switch {
		case kind != "Deployment" && kind != "StatefulSet" && kind != "ReplicaSet":
			l.warn(d, "spec.scaleTargetRef.kind", "%s scales a %s: only Deployments, StatefulSets and ReplicaSets are scaled in the simulation; ignored", h.ref, kind)
			continue
		case !known[h.target]:
			l.warn(d, "spec.scaleTargetRef", "%s scales %s, which is not in the scenario; ignored", h.ref, h.target)
			continue
		}
		if prev, dup := out[h.target]; dup {
			l.warn(d, "spec.scaleTargetRef", "%s and %s (%s:%d) both scale %s: the HPA controller acts on neither (AmbiguousSelector), so neither bounds its replicas",
				h.ref, prev.ref, prev.doc.File, prev.doc.Line, h.target)
			ambiguous[h.target] = true
			continue
		}
		out[h.target] = h
	}
	for t := range ambiguous {
		delete(out, t)
	}
	return out
}

func (l *loader) decodeHPA(d *manifest.Document) (*manifestHPA, bool) {
	h := &manifestHPA{doc: d, ref: l.refOf(d), min: workload.DefaultHPAMinReplicas, stabilization: -1}
	var (
		ref       autoscalingv2.CrossVersionObjectReference
		minR      *int32
		maxR      int32
		minPath   = "spec.minReplicas"
		maxPath   = "spec.maxReplicas"
		errsAtEnd = len(l.errs)
	)
	if d.APIVersion == "autoscaling/v1" {
		obj, ok := decode[autoscalingv1.HorizontalPodAutoscaler](l, d)
		if !ok {
			return nil, false
		}
		ref = autoscalingv2.CrossVersionObjectReference(obj.Spec.ScaleTargetRef)
		minR, maxR = obj.Spec.MinReplicas, obj.Spec.MaxReplicas
		h.cpuTarget = hpaTargetPercent
		if p := obj.Spec.TargetCPUUtilizationPercentage; p != nil {
			h.cpuTarget = *p
		}
	} else {
		obj, ok := decode[autoscalingv2.HorizontalPodAutoscaler](l, d)
		if !ok {
			return nil, false
		}
		ref = obj.Spec.ScaleTargetRef
		minR, maxR = obj.Spec.MinReplicas, obj.Spec.MaxReplicas
		if len(obj.Spec.Metrics) == 0 {
			h.cpuTarget = hpaTargetPercent
		}
		for i, m := range obj.Spec.Metrics {
			switch {
			case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
				m.Resource.Target.Type == autoscalingv2.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil:
				h.cpuTarget = *m.Resource.Target.AverageUtilization
			case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
				h.otherMetrics = append(h.otherMetrics, fmt.Sprintf("spec.metrics[%d] (%s %s)", i, m.Resource.Name, m.Resource.Target.Type))
			default:
				h.otherMetrics = append(h.otherMetrics, fmt.Sprintf("spec.metrics[%d] (%s)", i, m.Type))
			}
		}
		if b := obj.Spec.Behavior; b != nil && b.ScaleDown != nil && b.ScaleDown.StabilizationWindowSeconds != nil {
			s := *b.ScaleDown.StabilizationWindowSeconds
			if s < 0 || s > 3600 {
				l.fail(d.Errorf("spec.behavior.scaleDown.stabilizationWindowSeconds", "use 0 to 3600 seconds", "%d is out of range", s))
			}
			h.stabilization = time.Duration(s) * time.Second
		}
	}
	if ref.Kind == "" || ref.Name == "" {
		l.fail(d.Errorf("spec.scaleTargetRef", "name the workload it scales, e.g. {apiVersion: apps/v1, kind: Deployment, name: web}", "scaleTargetRef needs kind and name"))
	}
	h.target = ref.Kind + "/" + nsOr(d.Namespace) + "/" + ref.Name
	if minR != nil {
		h.min = *minR
		if h.min < 1 {
			l.fail(d.Errorf(minPath, "use 1 or more (0 needs the alpha HPAScaleToZero feature gate, which the simulation does not model)", "minReplicas %d is below 1", h.min))
		}
	}
	h.max = maxR
	switch {
	case maxR < 1:
		l.fail(d.Errorf(maxPath, "give the most replicas the HPA may set, e.g. maxReplicas: 10", "maxReplicas must be at least 1"))
	case maxR < h.min:
		l.fail(d.Errorf(maxPath, "make maxReplicas at least minReplicas", "maxReplicas %d is below minReplicas %d", maxR, h.min))
	case maxR > maxReplicas:
		l.fail(d.Errorf(maxPath, fmt.Sprintf("use at most %d", maxReplicas), "maxReplicas %d is too large", maxR))
	}
	if h.cpuTarget < 0 || h.cpuTarget > 1000 {
		l.fail(d.Errorf("spec", "give a CPU utilization target in percent, e.g. 70", "CPU utilization target %d%% is out of range", h.cpuTarget))
	}
	return h, len(l.errs) == errsAtEnd
}

// clamp is the replica count the HPA sets for a wanted count: within
// [min, max]; 0 stays 0, as a workload scaled to zero turns its HPA off.
func (h *manifestHPA) clamp(n int32) int32 {
	if n == 0 {
		return 0
	}
	return min(max(n, h.min), h.max)
}

// boundSteps keeps a replica plan's steps within the HPA's bounds, warning
// at each scenario step outside them. scenarioSteps is how many of steps
// come from the scenario (the rest, first, from the manifest).
func (l *loader) boundSteps(h *manifestHPA, o podObject, base string, steps []workload.Step, scenarioSteps int) {
	fromManifest := len(steps) - scenarioSteps
	for i := range steps {
		n := steps[i].Count
		c := h.clamp(n)
		if c == n {
			continue
		}
		steps[i].Count = c
		if i < fromManifest {
			if o.replicasSet {
				l.warn(o.doc, "spec.replicas", "%d replicas is outside %s's %d-%d: the HPA sets %d", n, h.ref, h.min, h.max, c)
			}
			continue
		}
		l.warn(l.scenarioDoc, fmt.Sprintf("%s.replicas[%d].count", base, i-fromManifest),
			"%d replicas is outside %s's minReplicas-maxReplicas %d-%d: the HPA sets %d", n, h.ref, h.min, h.max, c)
	}
	what := "the scenario's replica steps are held within them"
	if scenarioSteps == 0 {
		what = fmt.Sprintf("the replicas stay at %d; its metrics are not simulated: give spec.workloads[].replicas steps, or spec.workloads[].hpa.loadCores to scale on a synthetic CPU load", steps[0].Count)
	}
	l.warn(h.doc, "spec", "%s bounds %s to %d-%d replicas: %s", h.ref, h.target, h.min, h.max, what)
}

// boundDaily keeps a daily replica curve within the HPA's bounds.
func (l *loader) boundDaily(h *manifestHPA, path string, ds *dailySpec) *dailySpec {
	if ds.Min == nil || ds.Max == nil {
		return ds // reported by dailyPlan
	}
	out := *ds
	for _, f := range []struct {
		name string
		v    **int32
	}{{"min", &out.Min}, {"max", &out.Max}} {
		n := **f.v
		// A curve stands for the HPA's own answer to a load: it never
		// goes below minReplicas (only an operator scales to zero).
		if c := min(max(n, h.min), h.max); c != n {
			l.warn(l.scenarioDoc, path+"."+f.name, "%d replicas is outside %s's minReplicas-maxReplicas %d-%d: the HPA sets %d", n, h.ref, h.min, h.max, c)
			*f.v = &c
		}
	}
	l.warn(h.doc, "spec", "%s bounds %s to %d-%d replicas: the scenario's daily curve is held within them", h.ref, h.target, h.min, h.max)
	return &out
}

// mergeHPA completes a scenario's synthetic-load HPA with the manifest's:
// minReplicas, maxReplicas, the CPU target and the scale-down
// stabilization window, where the scenario does not give them; where both
// do and differ, the scenario's value is used, with a warning.
func (l *loader) mergeHPA(h *manifestHPA, path string, hs *hpaSpec) *hpaSpec {
	out := *hs
	pick := func(field string, scenario **int32, manifest int32) {
		switch {
		case *scenario == nil:
			v := manifest
			*scenario = &v
		case **scenario != manifest:
			l.warn(l.scenarioDoc, path+"."+field, "%d differs from %s's %d: the scenario's value is used", **scenario, h.ref, manifest)
		}
	}
	pick("minReplicas", &out.MinReplicas, h.min)
	pick("maxReplicas", &out.MaxReplicas, h.max)
	if h.cpuTarget > 0 {
		pick("targetCPUUtilizationPercentage", &out.TargetCPUUtilizationPercentage, h.cpuTarget)
	}
	if out.ScaleDownStabilization == "" && h.stabilization >= 0 {
		out.ScaleDownStabilization = h.stabilization.String()
	}
	if len(h.otherMetrics) > 0 {
		l.warn(h.doc, "spec.metrics", "only CPU utilization is simulated (on the scenario's synthetic load): %s not", strings.Join(h.otherMetrics, ", "))
	}
	if h.cpuTarget == 0 {
		l.warn(h.doc, "spec.metrics", "no CPU utilization metric: the scenario's synthetic CPU load is scaled on a %d%% target", hpaTargetPercent)
	}
	return &out
}
