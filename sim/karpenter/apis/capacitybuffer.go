package apis

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/manifest"
)

// CapacityBuffer is the autoscaling.x-k8s.io API the Cluster Autoscaler
// and Karpenter share (KC pkg/apis/autoscaling/v1beta1, v1.15.0; gate
// CapacityBuffer since v1.14). Karpenter v1.15's CRD serves v1beta1 only.
const (
	GroupAutoscaling       = "autoscaling.x-k8s.io"
	KindCapacityBuffer     = "CapacityBuffer"
	APIVersionBufferBeta1  = "autoscaling.x-k8s.io/v1beta1"
	APIVersionBufferAlpha1 = "autoscaling.x-k8s.io/v1alpha1"
	// ActiveCapacity is provisioningStrategy's default (the CRD's
	// +default); Karpenter v1.15 provisions for every buffer whatever its
	// strategy says (it copies the field to the status and reads it
	// nowhere else).
	ActiveCapacity = "buffer.x-k8s.io/active-capacity"
)

type capacityBufferDoc struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Metadata   metav1.ObjectMeta   `json:"metadata"`
	Spec       *capacityBufferSpec `json:"spec"`
	Status     json.RawMessage     `json:"status,omitempty"`
}

type capacityBufferSpec struct {
	ProvisioningStrategy *string                      `json:"provisioningStrategy,omitempty"`
	PodTemplateRef       *localObjectRef              `json:"podTemplateRef,omitempty"`
	ScalableRef          *scalableRef                 `json:"scalableRef,omitempty"`
	Replicas             *int32                       `json:"replicas,omitempty"`
	Percentage           *int32                       `json:"percentage,omitempty"`
	Limits               map[string]resource.Quantity `json:"limits,omitempty"`
}

type localObjectRef struct {
	Name string `json:"name"`
}

type scalableRef struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// CapacityBuffer is a compiled CapacityBuffer: spare capacity for
// Replicas (or a share of a workload's replicas) copies of a pod.
type CapacityBuffer struct {
	Name, Namespace string
	File            string
	Line            int
	// Strategy is provisioningStrategy (ActiveCapacity when unset).
	Strategy string
	// PodTemplate is podTemplateRef's name; ScalableKind and
	// ScalableName are scalableRef's (group apps). One of the two is set.
	PodTemplate                string
	ScalableKind, ScalableName string
	// Replicas and Percentage are nil when unset.
	Replicas, Percentage *int32
	// Limits are the buffer's resource limits in milli-units by resource
	// name, sorted by name.
	Limits []BufferLimit
	// Unresolvable says why the buffer controller can never resolve it
	// (upstream: ReadyForProvisioning=False); "" when it can.
	Unresolvable string
}

// BufferLimit is one of spec.limits, in milli-units.
type BufferLimit struct {
	Resource string
	Milli    int64
}

func (b *CapacityBuffer) String() string {
	return fmt.Sprintf("CapacityBuffer %s/%s (%s:%d)", b.Namespace, b.Name, b.File, b.Line)
}

// Chunks is the buffer's status.replicas (KC capacitybuffer
// computeReplicas): the larger of replicas and ceil(percentage x the
// workload's replicas / 100) (at least 1 when both are positive;
// percentage counts only with scalableRef), capped by the chunks whose
// requests fit in limits; limits alone when neither is set. requests are
// one chunk's requests in milli-units by resource name (as the
// resources' names are written).
func (b *CapacityBuffer) Chunks(workloadReplicas int32, requests func(resource string) int64) int32 {
	var cands []int32
	if b.ScalableName != "" && b.Percentage != nil && workloadReplicas > 0 {
		n := int32(math.Ceil(float64(workloadReplicas) * float64(*b.Percentage) / 100))
		if n < 1 && *b.Percentage > 0 {
			n = 1
		}
		cands = append(cands, n)
	}
	if b.Replicas != nil {
		cands = append(cands, *b.Replicas)
	}
	desired := int32(0)
	for _, c := range cands {
		desired = max(desired, c)
	}
	if len(b.Limits) > 0 {
		limit, matched := int64(math.MaxInt32), false
		for _, l := range b.Limits {
			r := requests(l.Resource)
			if r <= 0 {
				continue
			}
			matched = true
			limit = min(limit, l.Milli/r)
		}
		if matched {
			if len(cands) == 0 {
				return int32(limit)
			}
			return min(desired, int32(limit))
		}
	}
	return desired
}

// capacityBuffer compiles a CapacityBuffer; the CRD's rules are errors at
// their field.
func (c *compiler) capacityBuffer(d *manifest.Document) {
	switch d.APIVersion {
	case APIVersionBufferBeta1:
	case APIVersionBufferAlpha1:
		c.warnc(d, CodeBufferVersion, "write apiVersion: "+APIVersionBufferBeta1, "apiVersion",
			"%s is not served by Karpenter v1.15's CRD (v1beta1 only): kubectl apply rejects it unless the Cluster Autoscaler's CRD is installed; read as %s, whose fields are the same", d.APIVersion, APIVersionBufferBeta1)
	default:
		c.fail(d, "apiVersion", "write apiVersion: "+APIVersionBufferBeta1, "CapacityBuffer apiVersion %q is not served (Karpenter v1.15 serves %s)", d.APIVersion, APIVersionBufferBeta1)
		return
	}
	o, ok := decode[capacityBufferDoc](c, d)
	if !ok || !c.named(d, o.Metadata.Name, "name the buffer") {
		return
	}
	if o.Spec == nil {
		c.fail(d, "spec", "give spec.scalableRef (a Deployment, StatefulSet or ReplicaSet) or spec.podTemplateRef, and replicas, percentage or limits", "missing spec")
		return
	}
	s := o.Spec
	ns := o.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	b := CapacityBuffer{Name: o.Metadata.Name, Namespace: ns, File: d.File, Line: d.Line, Strategy: ActiveCapacity,
		Replicas: s.Replicas, Percentage: s.Percentage}
	if s.ProvisioningStrategy != nil {
		b.Strategy = *s.ProvisioningStrategy
	}
	errsBefore := len(c.errs)
	switch {
	case s.PodTemplateRef != nil && s.ScalableRef != nil:
		c.fail(d, "spec.scalableRef", "keep one of podTemplateRef and scalableRef", "You must define either PodTemplateRef or ScalableRef, but not both")
	case s.PodTemplateRef != nil:
		if s.PodTemplateRef.Name == "" {
			c.fail(d, "spec.podTemplateRef.name", "name the PodTemplate", "spec.podTemplateRef.name is required")
		}
		if s.Replicas == nil && s.Limits == nil {
			c.fail(d, "spec.podTemplateRef", "add replicas or limits", "If podTemplateRef is set, replicas or limits must also be set")
		}
		b.PodTemplate = s.PodTemplateRef.Name
	case s.ScalableRef != nil:
		r := s.ScalableRef
		if r.Kind == "" || r.Name == "" {
			c.fail(d, "spec.scalableRef", "give kind (Deployment, StatefulSet or ReplicaSet) and name", "spec.scalableRef needs kind and name")
		}
		b.ScalableKind, b.ScalableName = r.Kind, r.Name
		switch {
		case r.APIGroup != "" && r.APIGroup != "apps":
			b.Unresolvable = fmt.Sprintf("unsupported scalableRef API group %q", r.APIGroup)
		case r.Kind != "Deployment" && r.Kind != "StatefulSet" && r.Kind != "ReplicaSet":
			b.Unresolvable = fmt.Sprintf("unsupported kind %q", r.Kind)
		}
	default:
		// Admitted by the CRD; the controller sets ReadyForProvisioning
		// False (ResolutionFailed).
		b.Unresolvable = "Neither podTemplateRef nor scalableRef is set"
	}
	if s.Replicas != nil && *s.Replicas < 0 {
		c.fail(d, "spec.replicas", "write 0 or more", "spec.replicas %d: should be greater than or equal to 0", *s.Replicas)
	}
	if s.Percentage != nil && *s.Percentage < 0 {
		c.fail(d, "spec.percentage", "write 0 or more", "spec.percentage %d: should be greater than or equal to 0", *s.Percentage)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Limits)) {
		q := s.Limits[name]
		b.Limits = append(b.Limits, BufferLimit{Resource: name, Milli: q.MilliValue()})
	}
	if len(c.errs) > errsBefore {
		return
	}
	c.buffers = append(c.buffers, b)
}
