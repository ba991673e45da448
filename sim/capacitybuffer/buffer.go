// Package capacitybuffer is the autoscaling.x-k8s.io CapacityBuffer API
// that Karpenter and the Cluster Autoscaler both read: the document
// decoded and checked against the CRD's rules, and what a buffer
// controller computes from it (the pod shape and status.replicas), by the
// rules of each controller (Controller). Karpenter (sim/karpenter) and the
// Cluster Autoscaler (sim/clusterautoscaler) consume the buffers each as
// its upstream does.
package capacitybuffer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/manifest"
)

// The API (CA pkg/apis/config/crd/autoscaling.x-k8s.io_capacitybuffers.yaml
// serves v1alpha1 and v1beta1; KC pkg/apis/crds, v1.15.0, v1beta1 only).
const (
	Group          = "autoscaling.x-k8s.io"
	Kind           = "CapacityBuffer"
	APIVersionBeta = "autoscaling.x-k8s.io/v1beta1"
	// APIVersionAlpha is served by the Cluster Autoscaler's CRD, not by
	// Karpenter's.
	APIVersionAlpha = "autoscaling.x-k8s.io/v1alpha1"
	// ActiveCapacity is provisioningStrategy's default (the CRD's
	// +default; CA capacitybuffer ActiveProvisioningStrategy).
	ActiveCapacity = "buffer.x-k8s.io/active-capacity"
)

type bufferDoc struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       *bufferSpec       `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

type bufferSpec struct {
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

// Buffer is a decoded CapacityBuffer: spare capacity for Replicas (or a
// share of a workload's replicas, or as many as Limits allow) copies of a
// pod.
type Buffer struct {
	Name, Namespace string
	File            string
	Line            int
	// Strategy is provisioningStrategy (ActiveCapacity when unset).
	Strategy string
	// PodTemplate is podTemplateRef's name; ScalableGroup, ScalableKind
	// and ScalableName are scalableRef's. At most one of the two is set.
	PodTemplate                               string
	ScalableGroup, ScalableKind, ScalableName string
	// Replicas and Percentage are nil when unset.
	Replicas, Percentage *int32
	// Limits are the buffer's resource limits in milli-units by resource
	// name, sorted by name.
	Limits []Limit
}

// Limit is one of spec.limits, in milli-units.
type Limit struct {
	Resource string
	Milli    int64
}

func (b *Buffer) String() string {
	return fmt.Sprintf("CapacityBuffer %s/%s (%s:%d)", b.Namespace, b.Name, b.File, b.Line)
}

// Ref is the kind and name of the object the buffer copies its pod from
// ("" kind when it names none).
func (b *Buffer) Ref() (kind, name string) {
	if b.PodTemplate != "" {
		return "PodTemplate", b.PodTemplate
	}
	return b.ScalableKind, b.ScalableName
}

// Decode reads a CapacityBuffer document (its apiVersion is the caller's
// to check); the CRD's rules are errors at their field, and a buffer
// with errors is not returned (ok false).
func Decode(d *manifest.Document) (b Buffer, errs manifest.Errors, ok bool) {
	fail := func(path, hint, format string, args ...any) {
		errs = append(errs, d.Errorf(path, hint, format, args...))
	}
	var o bufferDoc
	if err := d.Decode(&o); err != nil {
		return b, errs.Add(err), false
	}
	if o.Metadata.Name == "" {
		fail("metadata.name", "name the buffer", "missing metadata.name")
		return b, errs, false
	}
	if o.Spec == nil {
		fail("spec", "give spec.scalableRef (a Deployment, StatefulSet or ReplicaSet) or spec.podTemplateRef, and replicas, percentage or limits", "missing spec")
		return b, errs, false
	}
	s := o.Spec
	ns := o.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	b = Buffer{Name: o.Metadata.Name, Namespace: ns, File: d.File, Line: d.Line, Strategy: ActiveCapacity,
		Replicas: s.Replicas, Percentage: s.Percentage}
	if s.ProvisioningStrategy != nil && *s.ProvisioningStrategy != "" {
		// An empty strategy is the default (CA common
		// mapEmptyProvStrategyToDefault).
		b.Strategy = *s.ProvisioningStrategy
	}
	switch {
	case s.PodTemplateRef != nil && s.ScalableRef != nil:
		fail("spec.scalableRef", "keep one of podTemplateRef and scalableRef", "You must define either PodTemplateRef or ScalableRef, but not both")
	case s.PodTemplateRef != nil:
		if s.PodTemplateRef.Name == "" {
			fail("spec.podTemplateRef.name", "name the PodTemplate", "spec.podTemplateRef.name is required")
		}
		if s.Replicas == nil && s.Limits == nil {
			fail("spec.podTemplateRef", "add replicas or limits", "If podTemplateRef is set, replicas or limits must also be set")
		}
		b.PodTemplate = s.PodTemplateRef.Name
	case s.ScalableRef != nil:
		r := s.ScalableRef
		if r.Kind == "" || r.Name == "" {
			fail("spec.scalableRef", "give kind (Deployment, StatefulSet or ReplicaSet) and name", "spec.scalableRef needs kind and name")
		}
		b.ScalableGroup, b.ScalableKind, b.ScalableName = r.APIGroup, r.Kind, r.Name
	}
	if s.Replicas != nil && *s.Replicas < 0 {
		fail("spec.replicas", "write 0 or more", "spec.replicas %d: should be greater than or equal to 0", *s.Replicas)
	}
	if s.Percentage != nil && *s.Percentage < 0 {
		fail("spec.percentage", "write 0 or more", "spec.percentage %d: should be greater than or equal to 0", *s.Percentage)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Limits)) {
		q := s.Limits[name]
		b.Limits = append(b.Limits, Limit{Resource: name, Milli: q.MilliValue()})
	}
	if len(errs) > 0 {
		return Buffer{}, errs, false
	}
	return b, nil, true
}
