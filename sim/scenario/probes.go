package scenario

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/workload"
)

// readyAfter checks the readiness and startup probes of a workload's
// containers and sidecars (initContainers with restartPolicy Always) as
// the API server validates them (validateProbe: no negative
// initialDelaySeconds, periodSeconds or successThreshold; a startup
// probe's successThreshold must be 1), and returns, for a StatefulSet, the
// delay from a pod's start to its Ready condition (kubelet.ReadyAfter,
// with the scenario's podStartDelay); ok is false after an error. Only
// StatefulSets read it (OrderedReady and minReadySeconds).
func (l *loader) readyAfter(o podObject) (time.Duration, bool) {
	spec := &o.template.Spec
	var all []kubelet.Probes
	ok := true
	check := func(path string, c *corev1.Container) {
		var probes kubelet.Probes
		for _, pr := range []struct {
			field   string
			p       *corev1.Probe
			startup bool
			out     **kubelet.Probe
		}{
			{"readinessProbe", c.ReadinessProbe, false, &probes.Readiness},
			{"startupProbe", c.StartupProbe, true, &probes.Startup},
		} {
			if pr.p == nil {
				continue
			}
			p, err := l.probe(o, path+"."+pr.field, pr.p, pr.startup)
			if err {
				ok = false
				continue
			}
			*pr.out = p
		}
		all = append(all, probes)
	}
	for i := range spec.Containers {
		check(fmt.Sprintf("%s.containers[%d]", o.specPath, i), &spec.Containers[i])
	}
	for i := range spec.InitContainers {
		if c := &spec.InitContainers[i]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			check(fmt.Sprintf("%s.initContainers[%d]", o.specPath, i), c)
		}
	}
	if !ok || o.kind != workload.StatefulSet {
		return 0, ok
	}
	return kubelet.ReadyAfter(l.out.PodStartDelay, all), true
}

// probe reads one probe's timing with the API's defaults; bad is true
// after an error.
func (l *loader) probe(o podObject, path string, p *corev1.Probe, startup bool) (out *kubelet.Probe, bad bool) {
	for _, f := range []struct {
		name string
		v    int32
	}{
		{"initialDelaySeconds", p.InitialDelaySeconds},
		{"periodSeconds", p.PeriodSeconds},
		{"successThreshold", p.SuccessThreshold},
		{"timeoutSeconds", p.TimeoutSeconds},
		{"failureThreshold", p.FailureThreshold},
	} {
		if f.v < 0 {
			l.fail(o.doc.Errorf(path+"."+f.name, "give 0 or more (0 takes the default)", "%s %d is negative (the API server rejects this)", f.name, f.v))
			bad = true
		}
	}
	if bad {
		return nil, true
	}
	out = &kubelet.Probe{InitialDelay: time.Duration(p.InitialDelaySeconds) * time.Second,
		Period: time.Duration(p.PeriodSeconds) * time.Second, SuccessThreshold: p.SuccessThreshold}
	if out.Period == 0 {
		out.Period = 10 * time.Second // SetDefaults_Probe
	}
	if out.SuccessThreshold == 0 {
		out.SuccessThreshold = 1
	}
	if startup && out.SuccessThreshold != 1 {
		l.fail(o.doc.Errorf(path+".successThreshold", "remove it or set 1", "a startup probe's successThreshold must be 1 (the API server rejects %d)", out.SuccessThreshold))
		return nil, true
	}
	return out, false
}
