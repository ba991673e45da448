// Package provreq reads the ProvisioningRequest API
// (autoscaling.x-k8s.io/v1 ProvisioningRequest) the Cluster Autoscaler
// serves with --enable-provisioning-requests: a request for room for
// count copies of each of its pod sets' PodTemplates, checked against the
// cluster (check-capacity) or scaled up for at once
// (best-effort-atomic-scale-up). Decode checks a document against the
// CRD (cluster-autoscaler pkg/apis/config/crd/
// autoscaling.x-k8s.io_provisioningrequests.yaml), errors at their field;
// package clusterautoscaler runs the requests.
package provreq

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/manifest"
)

// The API's group, versions and kind.
const (
	Group        = "autoscaling.x-k8s.io"
	Kind         = "ProvisioningRequest"
	APIVersion   = "autoscaling.x-k8s.io/v1"
	APIVersionV1 = APIVersion
	// APIVersionBeta1 is the deprecated v1beta1, which the CRD still
	// serves ("autoscaling.k8s.io/v1beta1 API is deprecated").
	APIVersionBeta1 = "autoscaling.x-k8s.io/v1beta1"
)

// Provisioning classes the Cluster Autoscaler supports
// (apis/provisioningrequest/autoscaling.x-k8s.io/v1, FAQ "Supported
// ProvisioningClasses").
const (
	ClassCheckCapacity    = "check-capacity.autoscaling.x-k8s.io"
	ClassBestEffortAtomic = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
)

// Pod annotations (pkg/provisioningrequest/pods/pods.go): a pod that
// carries one consumes the request it names; the Cluster Autoscaler does
// not scale up for it (processors/provreq/pods_filter.go).
const (
	ConsumeAnnotation           = "autoscaling.x-k8s.io/consume-provisioning-request"
	DeprecatedConsumeAnnotation = "cluster-autoscaler.kubernetes.io/consume-provisioning-request"
)

// Parameters the Cluster Autoscaler reads: noRetry (check-capacity:
// "true" sets Failed instead of Provisioned=False when the pods do not
// fit; checkcapacity/provisioningclass.go) and processorInstance
// (supported_classes.go, --check-capacity-processor-instance).
const (
	ParamNoRetry           = "noRetry"
	ParamProcessorInstance = "processorInstance"
)

// Condition types and reasons (apis v1 and pkg/provisioningrequest/
// conditions/conditions.go).
const (
	Accepted       = "Accepted"
	Provisioned    = "Provisioned"
	Failed         = "Failed"
	BookingExpired = "BookingExpired"

	ReasonAccepted                = "Accepted"
	ReasonCapacityIsFound         = "CapacityIsFound"
	ReasonCapacityIsNotFound      = "CapacityIsNotFound"
	ReasonCapacityIsProvisioned   = "CapacityIsProvisioned"
	ReasonFailedToCreatePods      = "FailedToCreatePods"
	ReasonReservationTimeExpired  = "CapacityReservationTimeExpired"
	ReasonCapacityBookingConsumed = "CapacityBookingConsumed"
	ReasonExpired                 = "Expired"
)

// Times the Cluster Autoscaler keeps (processors/provreq/processor.go):
// a Provisioned request's booking lasts ReservationTime; one not
// Provisioned ExpirationTime after its creation fails (reason Expired).
const (
	ReservationTime = 10 * time.Minute
	ExpirationTime  = 7 * 24 * time.Hour
)

// Request is a compiled ProvisioningRequest.
type Request struct {
	Namespace, Name string
	// Class is spec.provisioningClassName as written.
	Class   string
	PodSets []PodSet
	// Parameters is spec.parameters.
	Parameters map[string]string
	File       string
	Line       int
}

// PodSet is one of spec.podSets: Count copies of the PodTemplate named
// Template, in the request's namespace.
type PodSet struct {
	Template string
	Count    int32
	// Line is the line of the pod set's podTemplateRef.name.
	Line int
}

// Pods is how many pods the request asks room for (provreqwrapper
// PodCount).
func (r *Request) Pods() int {
	n := 0
	for _, ps := range r.PodSets {
		n += int(ps.Count)
	}
	return n
}

func (r *Request) String() string { return r.Namespace + "/" + r.Name }

// Supported reports whether a Cluster Autoscaler with
// --check-capacity-processor-instance=instance processes the request
// (pkg/provisioningrequest/supported_classes.go): best-effort-atomic only
// without an instance; check-capacity when the request's
// processorInstance parameter matches the instance (both empty), or,
// with an instance and no parameter, when the class is the instance's
// name prefixed to check-capacity's (deprecated).
func (r *Request) Supported(instance string) bool {
	if r.Class == ClassBestEffortAtomic {
		return instance == ""
	}
	return r.CheckCapacity(instance)
}

// CheckCapacity reports whether the request is a check-capacity request
// this instance processes (SupportedCheckCapacityClass).
func (r *Request) CheckCapacity(instance string) bool {
	param := r.Parameters[ParamProcessorInstance]
	switch {
	case instance == "":
		return param == "" && r.Class == ClassCheckCapacity
	case param != "":
		return param == instance && r.Class == ClassCheckCapacity
	}
	return len(r.Class) > len(instance) && r.Class[:len(instance)] == instance && r.Class[len(instance):] == ClassCheckCapacity
}

// NoRetry reports the noRetry parameter ("true"; other values but
// "false" are ignored with an error log upstream).
func (r *Request) NoRetry() bool { return r.Parameters[ParamNoRetry] == "true" }

type requestDoc struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       *requestSpec      `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

type requestSpec struct {
	ProvisioningClassName string            `json:"provisioningClassName"`
	PodSets               []podSetDoc       `json:"podSets"`
	Parameters            map[string]string `json:"parameters,omitempty"`
}

type podSetDoc struct {
	PodTemplateRef *struct {
		Name string `json:"name"`
	} `json:"podTemplateRef"`
	Count *int32 `json:"count"`
}

// dnsSubdomain is the CRD's pattern for class and template names.
var dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// CRD limits.
const (
	maxPodSets    = 32
	maxNameLength = 253
	maxParams     = 100
	maxParamValue = 255
)

// Decode compiles a ProvisioningRequest document; what the CRD rejects is
// an error at its field, all of them together.
func Decode(d *manifest.Document) (Request, error) {
	var errs manifest.Errors
	fail := func(path, hint, format string, args ...any) {
		errs = append(errs, d.Errorf(path, hint, format, args...))
	}
	switch d.APIVersion {
	case APIVersion, APIVersionBeta1:
	default:
		return Request{}, manifest.Errors{d.Errorf("apiVersion", "write apiVersion: "+APIVersion,
			"ProvisioningRequest apiVersion %q is not served (the CRD serves %s and the deprecated %s)", d.APIVersion, APIVersion, APIVersionBeta1)}.Err()
	}
	var o requestDoc
	if err := d.Decode(&o); err != nil {
		return Request{}, err
	}
	if o.Metadata.Name == "" {
		fail("metadata.name", "name the request: consuming pods name it in their "+ConsumeAnnotation+" annotation", "missing metadata.name")
	}
	if o.Spec == nil {
		fail("spec", "give spec.provisioningClassName and spec.podSets", "missing spec")
		return Request{}, errs.Err()
	}
	s := o.Spec
	ns := o.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	r := Request{Namespace: ns, Name: o.Metadata.Name, Class: s.ProvisioningClassName, Parameters: s.Parameters, File: d.File, Line: d.Line}
	switch {
	case s.ProvisioningClassName == "":
		fail("spec.provisioningClassName", "write "+ClassCheckCapacity+" or "+ClassBestEffortAtomic, "missing spec.provisioningClassName (required)")
	case len(s.ProvisioningClassName) > maxNameLength || !dnsSubdomain.MatchString(s.ProvisioningClassName):
		fail("spec.provisioningClassName", "a lowercase DNS subdomain such as "+ClassCheckCapacity, "%q is not a valid class name", s.ProvisioningClassName)
	}
	switch n := len(s.PodSets); {
	case n == 0:
		fail("spec.podSets", "list at least one pod set (podTemplateRef.name and count)", "spec.podSets needs at least 1 item")
	case n > maxPodSets:
		fail("spec.podSets", "split the request", "spec.podSets has %d items, more than the CRD's %d", n, maxPodSets)
	}
	for i, ps := range s.PodSets {
		at := fmt.Sprintf("spec.podSets[%d]", i)
		out := PodSet{Line: d.LineOf(at + ".podTemplateRef.name")}
		switch {
		case ps.PodTemplateRef == nil || ps.PodTemplateRef.Name == "":
			fail(at+".podTemplateRef.name", "name a PodTemplate in the request's namespace", "missing podTemplateRef.name (required)")
		case len(ps.PodTemplateRef.Name) > maxNameLength || !dnsSubdomain.MatchString(ps.PodTemplateRef.Name):
			fail(at+".podTemplateRef.name", "a PodTemplate's name: lowercase letters, digits, - and .", "%q is not a valid PodTemplate name", ps.PodTemplateRef.Name)
		default:
			out.Template = ps.PodTemplateRef.Name
		}
		switch {
		case ps.Count == nil:
			fail(at+".count", "give the number of pods", "missing count (required)")
		case *ps.Count < 1:
			fail(at+".count", "write 1 or more", "count %d: should be greater than or equal to 1", *ps.Count)
		default:
			out.Count = *ps.Count
		}
		r.PodSets = append(r.PodSets, out)
	}
	if len(s.Parameters) > maxParams {
		fail("spec.parameters", "", "spec.parameters has %d entries, more than the CRD's %d", len(s.Parameters), maxParams)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Parameters)) {
		if len(s.Parameters[k]) > maxParamValue {
			fail(fmt.Sprintf("spec.parameters[%q]", k), "", "value longer than the CRD's %d characters", maxParamValue)
		}
	}
	if err := errs.Err(); err != nil {
		return Request{}, err
	}
	return r, nil
}

// Consumer is a document whose pods consume a ProvisioningRequest, or
// whose controller carries the annotation where its pods do not get it.
type Consumer struct {
	Doc *manifest.Document
	// Request is the annotation's value (the request's name); Path the
	// annotation's field path.
	Request, Path string
	// OnController: the annotation is on the controller's metadata, not
	// on its pod template, so its pods do not carry it.
	OnController bool
}

// podMetadata is where a kind's pods' metadata sits.
var podMetadata = map[string][]string{
	"Pod":         {"metadata"},
	"Deployment":  {"spec", "template", "metadata"},
	"StatefulSet": {"spec", "template", "metadata"},
	"ReplicaSet":  {"spec", "template", "metadata"},
	"DaemonSet":   {"spec", "template", "metadata"},
	"Job":         {"spec", "template", "metadata"},
	"CronJob":     {"spec", "jobTemplate", "spec", "template", "metadata"},
}

// Consumers lists the documents that name a ProvisioningRequest in
// either consume annotation (the new key wins, as pods_filter.go reads
// it first).
func Consumers(docs []*manifest.Document) []Consumer {
	var out []Consumer
	for _, d := range docs {
		keys, ok := podMetadata[d.Kind]
		if !ok {
			continue
		}
		if name, key, found := consumeAnnotation(d, keys); found {
			out = append(out, Consumer{Doc: d, Request: name, Path: strings.Join(keys, ".") + ".annotations[" + fmt.Sprintf("%q", key) + "]"})
			continue
		}
		if d.Kind == "Pod" {
			continue
		}
		if name, key, found := consumeAnnotation(d, []string{"metadata"}); found {
			out = append(out, Consumer{Doc: d, Request: name, Path: "metadata.annotations[" + fmt.Sprintf("%q", key) + "]", OnController: true})
		}
	}
	return out
}

func consumeAnnotation(d *manifest.Document, meta []string) (name, key string, ok bool) {
	ann := manifest.Lookup(d.Node, append(append([]string(nil), meta...), "annotations")...)
	if ann == nil {
		return "", "", false
	}
	for _, k := range []string{ConsumeAnnotation, DeprecatedConsumeAnnotation} {
		if v := manifest.MappingValue(ann, k); v != nil {
			return manifest.Scalar(v), k, true
		}
	}
	return "", "", false
}
