package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// modelAnnotations are the annotations the models read; every other
// annotation is dropped.
var modelAnnotations = []string{
	"karpenter.sh/do-not-disrupt",
	"karpenter.sh/do-not-evict",       // legacy: the loader warns
	"karpenter.sh/do-not-consolidate", // legacy: the loader warns
	"cluster-autoscaler.kubernetes.io/safe-to-evict",
	"cluster-autoscaler.kubernetes.io/scale-down-disabled",
	"controller.kubernetes.io/pod-deletion-cost", // which pod a scale-down removes first
	"karpenter.sh/disruption-cost",               // Karpenter's eviction cost of a pod
	// Karpenter's hash annotations (NodePools, EC2NodeClasses, and a
	// NodeClaim's on its Node): drift when they differ.
	"karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version",
	"karpenter.k8s.aws/ec2nodeclass-hash", "karpenter.k8s.aws/ec2nodeclass-hash-version",
}

// claimHashAnnotations are the NodeClaim annotations sim import writes on
// its Node: Karpenter's hash annotations, against which adoption checks
// drift.
var claimHashAnnotations = []string{
	"karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version",
	"karpenter.k8s.aws/ec2nodeclass-hash", "karpenter.k8s.aws/ec2nodeclass-hash-version",
}

// podAnnotations are the annotations that change what happens to one pod
// (Karpenter's and the Cluster Autoscaler's disruption, a ReplicaSet's
// choice of which pod to delete). sim import keeps a workload's template,
// not each pod: one of them set on a pod itself is named in a notice.
var podAnnotations = []string{
	"karpenter.sh/do-not-disrupt",
	"karpenter.sh/disruption-cost",
	"cluster-autoscaler.kubernetes.io/safe-to-evict",
	"controller.kubernetes.io/pod-deletion-cost",
}

// lastPodEventAnnotation is scenario.LastPodEventAnnotation (the importer
// does not import the loader).
const lastPodEventAnnotation = "clustersim.dev/last-pod-event-time"

// driftedSinceAnnotation is scenario.DriftedSinceAnnotation.
const driftedSinceAnnotation = "clustersim.dev/drifted-since"

// expiresAtAnnotation is scenario.ExpiresAtAnnotation.
const expiresAtAnnotation = "clustersim.dev/expires-at"

// controllerLabels are labels the API server and controllers add to pods
// and templates that name one object (a Job's uid, a ReplicaSet's hash):
// they select nothing in a scenario and change with every object.
var controllerLabels = []string{
	"controller-uid", "batch.kubernetes.io/controller-uid",
	"job-name", "batch.kubernetes.io/job-name",
	"pod-template-hash", "controller-revision-hash",
	"statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index",
	"batch.kubernetes.io/job-completion-index",
}

func keepAnnotations(in map[string]string) map[string]string {
	var out map[string]string
	for _, k := range modelAnnotations {
		if v, ok := in[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

func dropControllerLabels(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := maps.Clone(in)
	for _, k := range controllerLabels {
		delete(out, k)
	}
	return out
}

// meta is the cleaned metadata of an object: name, namespace, labels and
// the annotations the models read.
func (im *Importer) meta(m metav1.ObjectMeta, labels bool) metav1.ObjectMeta {
	out := metav1.ObjectMeta{Name: im.workloadName(m.Name), Namespace: im.namespace(m.Namespace)}
	if labels {
		out.Labels = im.podLabels(dropControllerLabels(m.Labels))
	}
	out.Annotations = keepAnnotations(m.Annotations)
	return out
}

// template cleans a pod template: labels without the controllers' own,
// the annotations the models read, and a cleaned spec.
func (im *Importer) template(t corev1.PodTemplateSpec) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: im.podLabels(dropControllerLabels(t.Labels)), Annotations: keepAnnotations(t.Annotations)},
		Spec:       im.podSpec(t.Spec),
	}
}

// podSpec keeps what the scheduler and the autoscalers read: requests and
// limits, placement rules, priority, the scheduler's name, overhead, the
// restart policy, claim volumes. Commands, args, environment, other
// volumes, probes (but a StatefulSet's probe timing, keepProbeTiming),
// image pull secrets, service accounts and security settings are dropped
// (they may hold secrets and change nothing here). With --redact the
// nodeSelector and node affinity values are redacted as the node labels
// they match.
func (im *Importer) podSpec(s corev1.PodSpec) corev1.PodSpec {
	if c := s.PriorityClassName; c != "" {
		if _, ok := im.classUsed[c]; !ok {
			im.classUsed[c] = im.cur
		}
	}
	out := corev1.PodSpec{
		NodeSelector:              im.nodeSelector(s.NodeSelector),
		Affinity:                  im.affinity(s.Affinity),
		Tolerations:               s.Tolerations,
		TopologySpreadConstraints: im.spread(s.TopologySpreadConstraints),
		PriorityClassName:         s.PriorityClassName,
		PreemptionPolicy:          s.PreemptionPolicy,
		Overhead:                  s.Overhead,
		Resources:                 s.Resources,
		RestartPolicy:             s.RestartPolicy,
		OS:                        s.OS,
		Volumes:                   im.claimVolumes(s.Volumes),
	}
	if s.SchedulerName != corev1.DefaultSchedulerName {
		out.SchedulerName = s.SchedulerName
	}
	if s.RestartPolicy == corev1.RestartPolicyAlways {
		out.RestartPolicy = "" // the default
	}
	clean := func(cs []corev1.Container) []corev1.Container {
		var res []corev1.Container
		for i, c := range cs {
			o := corev1.Container{Name: c.Name, Image: c.Image, Resources: c.Resources, RestartPolicy: c.RestartPolicy}
			if im.opts.Redact {
				o.Name, o.Image = fmt.Sprintf("c%d", i), "redacted"
			}
			res = append(res, o)
		}
		return res
	}
	out.Containers = clean(s.Containers)
	out.InitContainers = clean(s.InitContainers)
	return out
}

// keepProbeTiming copies, into a cleaned StatefulSet pod spec, the timing
// of its containers' readiness and startup probes: when its pods become
// Ready, which its OrderedReady controller waits for (kubelet.ReadyAfter).
// The handlers (commands, URLs, headers) are not kept: they may hold
// secrets, and the model takes every probe to succeed.
func keepProbeTiming(out, in *corev1.PodSpec) {
	timing := func(p *corev1.Probe) *corev1.Probe {
		if p == nil {
			return nil
		}
		return &corev1.Probe{InitialDelaySeconds: p.InitialDelaySeconds, PeriodSeconds: p.PeriodSeconds,
			SuccessThreshold: p.SuccessThreshold}
	}
	copyAll := func(out, in []corev1.Container) {
		for i := range min(len(out), len(in)) {
			out[i].ReadinessProbe, out[i].StartupProbe = timing(in[i].ReadinessProbe), timing(in[i].StartupProbe)
		}
	}
	copyAll(out.Containers, in.Containers)
	copyAll(out.InitContainers, in.InitContainers)
}

// hash is a stable short digest of a name, for --redact: the same name
// gives the same hash in every run and every file.
func hash(prefix, s string) string {
	sum := sha256.Sum256([]byte("clustersim/redact\x00" + s))
	return prefix + hex.EncodeToString(sum[:5])
}

func (im *Importer) namespace(ns string) string {
	if ns == "" || !im.opts.Redact {
		return ns
	}
	return hash("ns-", ns)
}

func (im *Importer) workloadName(n string) string {
	if n == "" || !im.opts.Redact {
		return n
	}
	return hash("w-", n)
}

func (im *Importer) nodeName(n string) string {
	if n == "" || !im.opts.Redact {
		return n
	}
	return hash("node-", n)
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// ordinal is a StatefulSet pod's ordinal (name-N), or -1.
func ordinal(pod, set string) int {
	rest, ok := strings.CutPrefix(pod, set+"-")
	if !ok || rest == "" || len(rest) > 7 {
		return -1
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// podLabels redacts the values of pod labels (with --redact): they often
// repeat the workload's name. Every selector that matches pods is
// redacted the same way (Selector), so matching is unchanged; node labels
// and node selectors are kept, since they match the nodes' real labels.
func (im *Importer) podLabels(in map[string]string) map[string]string {
	if !im.opts.Redact || len(in) == 0 {
		return in
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = hash("v-", v)
	}
	return out
}

// Selector redacts a selector of pods as podLabels redacts their labels.
func (im *Importer) Selector(sel *metav1.LabelSelector) *metav1.LabelSelector {
	if !im.opts.Redact || sel == nil {
		return sel
	}
	out := &metav1.LabelSelector{MatchLabels: im.podLabels(sel.MatchLabels)}
	for _, e := range sel.MatchExpressions {
		r := metav1.LabelSelectorRequirement{Key: e.Key, Operator: e.Operator}
		for _, v := range e.Values {
			r.Values = append(r.Values, hash("v-", v))
		}
		out.MatchExpressions = append(out.MatchExpressions, r)
	}
	return out
}

func (im *Importer) spread(cs []corev1.TopologySpreadConstraint) []corev1.TopologySpreadConstraint {
	if !im.opts.Redact {
		return cs
	}
	out := make([]corev1.TopologySpreadConstraint, len(cs))
	for i, c := range cs {
		c.LabelSelector = im.Selector(c.LabelSelector)
		out[i] = c
	}
	return out
}

// affinity redacts the pod (anti-)affinity terms' selectors and
// namespaces, and node affinity as nodeAffinity does.
func (im *Importer) affinity(a *corev1.Affinity) *corev1.Affinity {
	if !im.opts.Redact || a == nil {
		return a
	}
	out := &corev1.Affinity{NodeAffinity: im.nodeAffinity(a.NodeAffinity)}
	terms := func(ts []corev1.PodAffinityTerm) []corev1.PodAffinityTerm {
		var res []corev1.PodAffinityTerm
		for _, t := range ts {
			t.LabelSelector = im.Selector(t.LabelSelector)
			t.NamespaceSelector = im.namespaceSelector(t.NamespaceSelector)
			var nss []string
			for _, ns := range t.Namespaces {
				nss = append(nss, im.namespace(ns))
			}
			t.Namespaces = nss
			res = append(res, t)
		}
		return res
	}
	weighted := func(ts []corev1.WeightedPodAffinityTerm) []corev1.WeightedPodAffinityTerm {
		var res []corev1.WeightedPodAffinityTerm
		for _, t := range ts {
			t.PodAffinityTerm = terms([]corev1.PodAffinityTerm{t.PodAffinityTerm})[0]
			res = append(res, t)
		}
		return res
	}
	if p := a.PodAffinity; p != nil {
		out.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms(p.RequiredDuringSchedulingIgnoredDuringExecution),
			PreferredDuringSchedulingIgnoredDuringExecution: weighted(p.PreferredDuringSchedulingIgnoredDuringExecution)}
	}
	if p := a.PodAntiAffinity; p != nil {
		out.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms(p.RequiredDuringSchedulingIgnoredDuringExecution),
			PreferredDuringSchedulingIgnoredDuringExecution: weighted(p.PreferredDuringSchedulingIgnoredDuringExecution)}
	}
	return out
}
