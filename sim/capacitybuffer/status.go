package capacitybuffer

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Controller is whose buffer controller computes a buffer's status: the
// two upstreams resolve references and count replicas by slightly
// different rules, each kept here.
type Controller int

const (
	// Karpenter is KC controllers/capacitybuffer (v1.15.0).
	Karpenter Controller = iota
	// ClusterAutoscaler is CA pkg/capacitybuffer/controller and its
	// translators.
	ClusterAutoscaler
)

// Unresolvable says why the controller can never resolve the buffer
// (ReadyForProvisioning=False, or never reconciled); "" when it can.
func (c Controller) Unresolvable(b *Buffer) string {
	if b.PodTemplate == "" && b.ScalableName == "" {
		if c == ClusterAutoscaler {
			// Neither translator takes it (isPodTemplateBasedBuffer,
			// isScalableObjectBuffer): its status is never set.
			return "Neither podTemplateRef nor scalableRef is set: no translator resolves it"
		}
		// KC sets ReadyForProvisioning False (ResolutionFailed).
		return "Neither podTemplateRef nor scalableRef is set"
	}
	if b.PodTemplate != "" {
		return ""
	}
	g, k := b.ScalableGroup, b.ScalableKind
	if c == ClusterAutoscaler {
		// CA scalable_objects GetSupportedScalableObjectResolvers, keyed
		// by exact API group and kind (ReplicationController, group
		// core, is not simulated as a workload: it is never found).
		switch {
		case g == "apps" && (k == "Deployment" || k == "StatefulSet" || k == "ReplicaSet"), g == "batch" && k == "Job", g == "core" && k == "ReplicationController":
			return ""
		}
		return fmt.Sprintf("kind %s/%s is not supported to use pod template", g, k)
	}
	switch {
	case g != "" && g != "apps":
		return fmt.Sprintf("unsupported scalableRef API group %q", g)
	case k != "Deployment" && k != "StatefulSet" && k != "ReplicaSet":
		return fmt.Sprintf("unsupported kind %q", k)
	}
	return ""
}

// Replicas is the buffer's status.replicas, and "" or why the controller
// finds it not ready for provisioning. workloadReplicas are the
// referenced workload's replicas (a Job's parallelism), requests one
// chunk's requests in milli-units by resource name.
//
// Karpenter (KC capacitybuffer computeReplicas): the larger of replicas
// and ceil(percentage x workloadReplicas / 100) (at least 1 when both
// are positive; percentage counts only with scalableRef), capped by the
// chunks whose requests fit in limits; limits alone when neither is set;
// a limit on no resource the pod requests caps nothing; never not ready.
//
// The Cluster Autoscaler (CA translators getBufferNumberOfPods): the
// same max and cap, but a percentage of a workload with 0 replicas is 0
// chunks (not "unset"), limits naming no requested resource make the
// buffer not ready, and so does a buffer with none of replicas,
// percentage and limits.
func (c Controller) Replicas(b *Buffer, workloadReplicas int32, requests func(resource string) int64) (int32, string) {
	if c == ClusterAutoscaler {
		return caReplicas(b, workloadReplicas, requests)
	}
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
	if limit, matched := limitChunks(b, requests); matched {
		if len(cands) == 0 {
			return limit, ""
		}
		return min(desired, limit), ""
	}
	return desired, ""
}

func caReplicas(b *Buffer, workloadReplicas int32, requests func(resource string) int64) (int32, string) {
	n := int32(-1)
	if b.Replicas != nil {
		n = max(0, *b.Replicas)
	}
	if b.Percentage != nil && b.ScalableName != "" {
		pct := int32(0)
		if p := *b.Percentage; p > 0 && workloadReplicas > 0 {
			pct = int32((int64(p)*int64(workloadReplicas) + 99) / 100)
		}
		n = max(n, pct)
	}
	if len(b.Limits) > 0 {
		limit, matched := limitChunks(b, requests)
		if !matched {
			return 0, "couldn't get number of replicas for buffer: resources in configured limits not found in the pod template"
		}
		if n >= 0 {
			return min(n, limit), ""
		}
		return limit, ""
	}
	if n >= 0 {
		return n, ""
	}
	return 0, "couldn't get number of replicas for buffer: replicas, percentage and limits are not defined"
}

// limitChunks is how many chunks fit in the buffer's limits (floor of
// limit / request, the least over the resources the pod requests), and
// whether any limit names a resource the pod requests.
func limitChunks(b *Buffer, requests func(resource string) int64) (int32, bool) {
	limit, matched := int64(math.MaxInt32), false
	for _, l := range b.Limits {
		r := requests(l.Resource)
		if r <= 0 {
			continue
		}
		matched = true
		limit = min(limit, l.Milli/r)
	}
	return int32(limit), matched
}

// MilliRequest is a spec's request of a resource in milli-units (cpu in
// millicores; memory and the others in thousandths of their unit). A pod
// requests no "pods" (both upstreams sum the containers' requests), so a
// limit on pods constrains nothing.
func MilliRequest(cl *cluster.Cluster, s *cluster.PodSpec, name string) int64 {
	switch name {
	case "cpu":
		return s.Requests[cluster.CPU]
	case "pods":
		return 0
	}
	i, ok := cl.Resources.Lookup(corev1.ResourceName(name))
	if !ok {
		return 0
	}
	v := s.Requests[i]
	if v > math.MaxInt64/1000 {
		return math.MaxInt64
	}
	return v * 1000
}

// Source is the buffer's pod template and the referenced workload's
// replicas as the cluster has them now (cluster.ScaleOf: a PodTemplate's
// are 0); ok false when the object is not there (yet), which leaves the
// buffer not ready (ScalableRefNotFound, PodTemplateNotFound).
func Source(cl *cluster.Cluster, b *Buffer) (spec *cluster.PodSpec, replicas int32, ok bool) {
	kind, name := b.Ref()
	return cl.ScaleOf(b.Namespace, kind, name)
}
