package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/internal/duration"
)

// MirrorAnnotation is the annotation the API server gives a static pod's
// mirror (its value: a hash of the kubelet's file).
const MirrorAnnotation = "kubernetes.io/config.mirror"

// IsMirrorPod reports whether a pod is a static pod's mirror: owned by its
// Node (KC pod.IsOwnedByNode), as kubectl shows kube-system's static pods
// today, or annotated MirrorAnnotation only, as mirror pods of clusters
// before owner references were set on them are (Spec.Mirror). Upstream
// Karpenter reads the owner, the Cluster Autoscaler the annotation
// (drain.IsMirrorPod); current clusters set both.
func IsMirrorPod(m metav1.ObjectMeta) bool {
	if _, ok := m.Annotations[MirrorAnnotation]; ok {
		return true
	}
	for _, r := range m.OwnerReferences {
		if r.Kind == "Node" && (r.APIVersion == "v1" || r.APIVersion == "") {
			return true
		}
	}
	return false
}

// FieldError is a compile error at a field path relative to the object
// compiled (for a pod template: relative to its spec). The scenario loader
// turns it into a file:line message.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

// Defaults the scheduler uses for pods that request nothing, when scoring
// (k8s pkg/scheduler/util: DefaultMilliCPURequest, DefaultMemoryRequest).
const (
	// DefaultTerminationGrace is the API default of
	// terminationGracePeriodSeconds.
	DefaultTerminationGrace = 30 * time.Second

	DefaultScoreMilliCPU = 100
	DefaultScoreMemory   = 200 << 20
)

// PodSpecInput is what CompilePodSpec needs besides the spec itself.
type PodSpecInput struct {
	Namespace   string
	Labels      map[string]string
	Annotations map[string]string
	Spec        *corev1.PodSpec
	// Priority resolves spec.priorityClassName (""= the global default)
	// to its value; ok false for an unknown class.
	Priority func(className string) (value int32, preemptNever bool, ok bool)
}

// SpecWarning is accepted pod-spec input that behaves differently from
// what its author may expect; Code names it for programs (sim lint), ""
// for most.
type SpecWarning struct {
	Code, Msg string
}

func (w SpecWarning) String() string { return w.Msg }

// CodeInvalidDoNotDisrupt is the code of the warning on a
// karpenter.sh/do-not-disrupt value Karpenter ignores.
const CodeInvalidDoNotDisrupt = "ineffective.do-not-disrupt-value"

// CodeResourceClaims is the code of the warning on a pod that claims
// devices through Dynamic Resource Allocation (spec.resourceClaims),
// which is not modelled.
const CodeResourceClaims = "ineffective.resource-claims"

// CodeRemovedAnnotation is the code of the warning on a pod annotation
// Karpenter v1 removed (karpenter.sh/do-not-evict, do-not-consolidate).
const CodeRemovedAnnotation = "ineffective.removed-annotation"

// CompilePodSpec compiles a pod template once; every pod made from it shares
// the result. Warnings are for accepted input that behaves differently from
// what its author may expect.
func CompilePodSpec(syms *Symbols, res *ResourceNames, in PodSpecInput) (*PodSpec, []SpecWarning, error) {
	spec := in.Spec
	out := &PodSpec{
		Labels:        CompileLabels(syms, in.Labels),
		NodeSelector:  SelectorFromMap(syms, spec.NodeSelector),
		SchedulerName: spec.SchedulerName,
		NodeName:      spec.NodeName,
	}
	for _, v := range spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out.Claims = append(out.Claims, ClaimRef{Name: v.PersistentVolumeClaim.ClaimName})
		case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
			ref := ClaimRef{Name: v.Name, Ephemeral: true}
			if c := v.Ephemeral.VolumeClaimTemplate.Spec.StorageClassName; c != nil {
				ref.Class, ref.NoClass = *c, *c == ""
			}
			out.Claims = append(out.Claims, ref)
		}
	}
	out.TerminationGrace = DefaultTerminationGrace
	if g := spec.TerminationGracePeriodSeconds; g != nil {
		if *g < 0 {
			return nil, nil, &FieldError{Path: "terminationGracePeriodSeconds", Msg: "must not be negative"}
		}
		out.TerminationGrace = duration.FromSeconds(*g)
	}
	if out.SchedulerName == "" {
		out.SchedulerName = corev1.DefaultSchedulerName
	}
	var warns []SpecWarning
	if len(spec.ResourceClaims) > 0 {
		warns = append(warns, SpecWarning{Code: CodeResourceClaims, Msg: fmt.Sprintf("resourceClaims: Dynamic Resource Allocation is not modelled: "+
			"the pod's %d claim(s) (their ResourceClaims or ResourceClaimTemplates, DeviceClasses and ResourceSlices) are ignored, so the scheduler places it and the autoscalers add nodes for it "+
			"as if it claimed no device; to simulate the device, request it as an extended resource in resources.requests (e.g. nvidia.com/gpu: 1)", len(spec.ResourceClaims))})
	}
	for _, k := range slices.Sorted(maps.Keys(spec.NodeSelector)) {
		if err := validateKey(k); err != nil {
			return nil, nil, fieldErr("nodeSelector", err)
		}
		if err := validateValues([]string{spec.NodeSelector[k]}); err != nil {
			return nil, nil, &FieldError{Path: "nodeSelector." + k, Msg: strings.TrimPrefix(err.Error(), "values[0]: ")}
		}
	}

	// Requests as the API server defaults them and the scheduler and
	// kubelet add them up (requests.go).
	reqs, fe := PodRequests(spec)
	if fe != nil {
		return nil, nil, fe
	}
	r, err := res.FromList(reqs)
	if err != nil {
		return nil, nil, &FieldError{Path: "containers", Msg: err.Error()}
	}
	r[Pods] = 1
	out.Requests = r
	out.ScoreCPU, out.ScoreMemory = r[CPU], r[Memory]
	if out.ScoreCPU == 0 {
		out.ScoreCPU = DefaultScoreMilliCPU
	}
	if out.ScoreMemory == 0 {
		out.ScoreMemory = DefaultScoreMemory
	}

	for i, t := range spec.Tolerations {
		tol, warn, err := CompileToleration(syms, t)
		if err != nil {
			return nil, nil, &FieldError{Path: fmt.Sprintf("tolerations[%d]", i), Msg: err.Error()}
		}
		if warn != "" {
			warns = append(warns, SpecWarning{Msg: fmt.Sprintf("tolerations[%d]: %s", i, warn)})
		}
		out.Tolerations = append(out.Tolerations, tol)
	}

	if a := spec.Affinity; a != nil {
		if na := a.NodeAffinity; na != nil {
			ns, err := CompileNodeSelector(syms, na.RequiredDuringSchedulingIgnoredDuringExecution)
			if err != nil {
				return nil, nil, fieldErr("affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", err)
			}
			out.Affinity = ns
			for i, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
				term, empty, err := CompileTerm(syms, p.Preference)
				if err != nil {
					return nil, nil, fieldErr(fmt.Sprintf("affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].preference", i), err)
				}
				if p.Weight < 1 || p.Weight > 100 {
					return nil, nil, &FieldError{Path: fmt.Sprintf("affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].weight", i), Msg: fmt.Sprintf("must be 1 to 100, got %d", p.Weight)}
				}
				if !empty {
					out.Preferred = append(out.Preferred, PreferredTerm{Weight: p.Weight, Term: term})
				}
			}
		}
		if pa := a.PodAffinity; pa != nil {
			if out.PodAffinity, err = compileAffinityTerms(syms, pa.RequiredDuringSchedulingIgnoredDuringExecution, in.Labels, "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"); err != nil {
				return nil, nil, err
			}
			if out.PreferredPodAffinity, err = compileWeightedTerms(syms, pa.PreferredDuringSchedulingIgnoredDuringExecution, in.Labels, "affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution"); err != nil {
				return nil, nil, err
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			if out.PodAntiAffinity, err = compileAffinityTerms(syms, pa.RequiredDuringSchedulingIgnoredDuringExecution, in.Labels, "affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution"); err != nil {
				return nil, nil, err
			}
			if out.PreferredPodAntiAffinity, err = compileWeightedTerms(syms, pa.PreferredDuringSchedulingIgnoredDuringExecution, in.Labels, "affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"); err != nil {
				return nil, nil, err
			}
		}
	}

	for i, c := range spec.TopologySpreadConstraints {
		sc, err := compileSpread(syms, c, in.Labels)
		if err != nil {
			return nil, nil, fieldErr(fmt.Sprintf("topologySpreadConstraints[%d]", i), err)
		}
		out.Spread = append(out.Spread, sc)
	}

	if in.Priority != nil {
		v, never, ok := in.Priority(spec.PriorityClassName)
		if !ok {
			return nil, nil, &FieldError{Path: "priorityClassName", Msg: fmt.Sprintf("no PriorityClass named %q: add its manifest or remove the field", spec.PriorityClassName)}
		}
		out.Priority, out.PreemptNever = v, never
	}
	out.PriorityClassName = spec.PriorityClassName
	if spec.PreemptionPolicy != nil && *spec.PreemptionPolicy == corev1.PreemptNever {
		out.PreemptNever = true
	}

	if v, ok := in.Annotations["karpenter.sh/do-not-disrupt"]; ok {
		// "true", or since Karpenter v1.12 a positive duration that
		// protects the pod until it has run that long. Anything else
		// Karpenter ignores (with an event): so does the model, and says so.
		if v == "true" {
			out.DoNotDisrupt = true
		} else if d, ok := DoNotDisruptDuration(v); ok {
			out.DoNotDisruptFor = d
		} else {
			warns = append(warns, SpecWarning{Code: CodeInvalidDoNotDisrupt,
				Msg: fmt.Sprintf("annotation karpenter.sh/do-not-disrupt: %q is neither \"true\" nor a positive duration such as \"10m\": Karpenter ignores it, and this pod is not protected", v)})
		}
	}
	// Karpenter's disruption cost: its own annotation first, else the
	// ReplicaSet controller's deletion cost (KC disruption.EvictionCost,
	// with the PodDeletionCostManagement gate off, its default). A value
	// that is no int32 is ignored, as upstream logs and skips it.
	for _, k := range []string{"karpenter.sh/disruption-cost", "controller.kubernetes.io/pod-deletion-cost"} {
		if v, ok := in.Annotations[k]; ok {
			if n, err := strconv.ParseInt(v, 10, 32); err == nil {
				out.DisruptionCost, out.HasDisruptionCost = int32(n), true
			}
			break
		}
	}
	if v, ok := in.Annotations["cluster-autoscaler.kubernetes.io/safe-to-evict"]; ok {
		b := v == "true"
		out.SafeToEvict = &b
	}
	// cluster-autoscaler pkg/processors/provreq/pods_filter.go
	// provisioningRequestName: the new key first, then the deprecated one.
	for _, k := range []string{"autoscaling.x-k8s.io/consume-provisioning-request", "cluster-autoscaler.kubernetes.io/consume-provisioning-request"} {
		if v, ok := in.Annotations[k]; ok {
			out.ConsumesProvReq = v
			break
		}
	}
	for _, old := range []string{"karpenter.sh/do-not-evict", "karpenter.sh/do-not-consolidate"} {
		if _, ok := in.Annotations[old]; ok {
			warns = append(warns, SpecWarning{Code: CodeRemovedAnnotation,
				Msg: fmt.Sprintf("annotation %s was removed in Karpenter v1 and is ignored: use karpenter.sh/do-not-disrupt: \"true\"", old)})
		}
	}
	return out, warns, nil
}

// DoNotDisruptDuration reads a karpenter.sh/do-not-disrupt value given as
// a duration (Karpenter v1.12+, KC pod.parseDoNotDisrupt): ok for a
// positive Go duration such as "10m".
func DoNotDisruptDuration(v string) (time.Duration, bool) {
	d, err := time.ParseDuration(v)
	return d, err == nil && d > 0
}

// fieldErr turns an error of the form "rel.path: message" into a FieldError
// under prefix.
func fieldErr(prefix string, err error) *FieldError {
	path, msg, ok := strings.Cut(err.Error(), ": ")
	if !ok {
		return &FieldError{Path: prefix, Msg: err.Error()}
	}
	return &FieldError{Path: prefix + "." + path, Msg: msg}
}

func compileAffinityTerms(syms *Symbols, terms []corev1.PodAffinityTerm, podLabels map[string]string, path string) ([]AffinityTerm, error) {
	var out []AffinityTerm
	for i, t := range terms {
		at, err := compileAffinityTerm(syms, t, podLabels)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", path, i), err)
		}
		out = append(out, at)
	}
	return out, nil
}

func compileWeightedTerms(syms *Symbols, terms []corev1.WeightedPodAffinityTerm, podLabels map[string]string, path string) ([]AffinityTerm, error) {
	var out []AffinityTerm
	for i, t := range terms {
		if t.Weight < 1 || t.Weight > 100 {
			return nil, &FieldError{Path: fmt.Sprintf("%s[%d].weight", path, i), Msg: fmt.Sprintf("must be 1 to 100, got %d", t.Weight)}
		}
		at, err := compileAffinityTerm(syms, t.PodAffinityTerm, podLabels)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("%s[%d].podAffinityTerm", path, i), err)
		}
		at.Weight = t.Weight
		out = append(out, at)
	}
	return out, nil
}

func compileAffinityTerm(syms *Symbols, t corev1.PodAffinityTerm, podLabels map[string]string) (AffinityTerm, error) {
	var out AffinityTerm
	if t.TopologyKey == "" {
		return out, fmt.Errorf("topologyKey: must not be empty")
	}
	out.TopologyKey = syms.Intern(t.TopologyKey)
	sel, err := CompileLabelSelector(syms, t.LabelSelector)
	if err != nil {
		return out, fmt.Errorf("labelSelector.%w", err)
	}
	addLabelKeys(syms, &sel, t.MatchLabelKeys, OpIn, podLabels)
	addLabelKeys(syms, &sel, t.MismatchLabelKeys, OpNotIn, podLabels)
	out.Selector = sel
	for _, ns := range t.Namespaces {
		out.Namespaces = append(out.Namespaces, syms.Intern(ns))
	}
	if t.NamespaceSelector != nil {
		nsSel, err := CompileLabelSelector(syms, t.NamespaceSelector)
		if err != nil {
			return out, fmt.Errorf("namespaceSelector.%w", err)
		}
		out.NamespaceSelector = &nsSel
	}
	return out, nil
}

func compileSpread(syms *Symbols, c corev1.TopologySpreadConstraint, podLabels map[string]string) (SpreadConstraint, error) {
	out := SpreadConstraint{MaxSkew: c.MaxSkew, HonorNodeAffinity: true}
	if c.MaxSkew < 1 {
		return out, fmt.Errorf("maxSkew: must be at least 1, got %d", c.MaxSkew)
	}
	if c.TopologyKey == "" {
		return out, fmt.Errorf("topologyKey: must not be empty")
	}
	out.TopologyKey = syms.Intern(c.TopologyKey)
	switch c.WhenUnsatisfiable {
	case corev1.DoNotSchedule:
		out.Hard = true
	case corev1.ScheduleAnyway:
	default:
		return out, fmt.Errorf("whenUnsatisfiable: %q is not one of DoNotSchedule, ScheduleAnyway", c.WhenUnsatisfiable)
	}
	if c.MinDomains != nil {
		if *c.MinDomains < 1 {
			return out, fmt.Errorf("minDomains: must be at least 1, got %d", *c.MinDomains)
		}
		if !out.Hard {
			return out, fmt.Errorf("minDomains: only allowed with whenUnsatisfiable: DoNotSchedule")
		}
		out.MinDomains = *c.MinDomains
	}
	if p := c.NodeAffinityPolicy; p != nil {
		switch *p {
		case corev1.NodeInclusionPolicyHonor:
		case corev1.NodeInclusionPolicyIgnore:
			out.HonorNodeAffinity = false
		default:
			return out, fmt.Errorf("nodeAffinityPolicy: %q is not one of Honor, Ignore", *p)
		}
	}
	if p := c.NodeTaintsPolicy; p != nil {
		switch *p {
		case corev1.NodeInclusionPolicyHonor:
			out.HonorTaints = true
		case corev1.NodeInclusionPolicyIgnore:
		default:
			return out, fmt.Errorf("nodeTaintsPolicy: %q is not one of Honor, Ignore", *p)
		}
	}
	sel, err := CompileLabelSelector(syms, c.LabelSelector)
	if err != nil {
		return out, fmt.Errorf("labelSelector.%w", err)
	}
	addLabelKeys(syms, &sel, c.MatchLabelKeys, OpIn, podLabels)
	out.Selector = sel
	return out, nil
}

// addLabelKeys adds to sel, for each of keys the pod's own labels have, a
// requirement that the key be (op In: matchLabelKeys) or not be (op NotIn:
// mismatchLabelKeys) the pod's value (KEP-3633). A template's labels are
// fixed, so the merge happens at compile time.
func addLabelKeys(syms *Symbols, sel *LabelSelector, keys []string, op Op, podLabels map[string]string) {
	for _, k := range keys {
		if v, ok := podLabels[k]; ok {
			sel.Reqs = append(sel.Reqs, Requirement{Key: syms.Intern(k), Op: op, Values: []Sym{syms.Intern(v)}})
		}
	}
}
