package apis

import (
	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/manifest"
)

// CapacityBuffer is the autoscaling.x-k8s.io API the Cluster Autoscaler
// and Karpenter share (package capacitybuffer; KC pkg/apis/autoscaling/
// v1beta1, v1.15.0; gate CapacityBuffer since v1.14). Karpenter v1.15's
// CRD serves v1beta1 only. Karpenter v1.15 provisions for every buffer
// whatever its provisioningStrategy says (it copies the field to the
// status and reads it nowhere else).
const (
	GroupAutoscaling   = capacitybuffer.Group
	KindCapacityBuffer = capacitybuffer.Kind
)

// capacityBuffer compiles a CapacityBuffer (package capacitybuffer
// decodes it; the CRD's rules are errors at their field) after checking
// its apiVersion against Karpenter's CRD.
func (c *compiler) capacityBuffer(d *manifest.Document) {
	beta := capacitybuffer.APIVersionBeta
	switch d.APIVersion {
	case beta:
	case capacitybuffer.APIVersionAlpha:
		c.warnc(d, CodeBufferVersion, "write apiVersion: "+beta, "apiVersion",
			"%s is not served by Karpenter v1.15's CRD (v1beta1 only): kubectl apply rejects it unless the Cluster Autoscaler's CRD is installed; read as %s, whose fields are the same", d.APIVersion, beta)
	default:
		c.fail(d, "apiVersion", "write apiVersion: "+beta, "CapacityBuffer apiVersion %q is not served (Karpenter v1.15 serves %s)", d.APIVersion, beta)
		return
	}
	b, errs, ok := capacitybuffer.Decode(d)
	c.errs = append(c.errs, errs...)
	if ok {
		c.buffers = append(c.buffers, b)
	}
}
