package clusterautoscaler

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/manifest"
)

// capacityBuffers reads the scenario's CapacityBuffers (documents
// Karpenter's component takes: the Cluster Autoscaler reads them as its
// peers'), and says what the Cluster Autoscaler does with them. Their
// errors are Karpenter's to report unless the scenario has no NodePool
// (Karpenter then does not read them).
func (c *caCompiler) capacityBuffers(o *config.Options) []capacitybuffer.Buffer {
	var bs []capacitybuffer.Buffer
	karpenter := false
	for _, d := range c.in.Peers {
		karpenter = karpenter || d.Kind == "NodePool" || d.Kind == "Provisioner"
	}
	for _, d := range c.in.Peers {
		if component.KindOf(d) != (component.Kind{Group: capacitybuffer.Group, Kind: capacitybuffer.Kind}) {
			continue
		}
		switch d.APIVersion {
		case capacitybuffer.APIVersionBeta, capacitybuffer.APIVersionAlpha:
			// Both served by the Cluster Autoscaler's CRD.
		default:
			if !karpenter {
				c.errs = append(c.errs, d.Errorf("apiVersion", "write apiVersion: "+capacitybuffer.APIVersionBeta,
					"CapacityBuffer apiVersion %q is not served (the Cluster Autoscaler serves %s and %s)", d.APIVersion, capacitybuffer.APIVersionBeta, capacitybuffer.APIVersionAlpha))
			}
			continue
		}
		b, errs, ok := capacitybuffer.Decode(d)
		if !karpenter {
			c.errs = append(c.errs, errs...)
		}
		if ok {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		return nil
	}
	first := &bs[0]
	w := func(b *capacitybuffer.Buffer, info bool, code, msg, fix string) {
		c.warns = append(c.warns, component.Warning{Code: code, File: b.File, Line: b.Line, Msg: b.String() + ": " + msg, Fix: fix, Info: info})
	}
	const (
		ctl    = "--capacity-buffer-controller-enabled"
		inject = "--capacity-buffer-pod-injection-enabled"
	)
	// Both off by default. Each alone does nothing useful (CA
	// builder/autoscaler.go): the controller fills the buffers' status,
	// which only the pod list processor reads; the processor injects fake
	// pods only for buffers whose status says ready.
	ineffective := func(code, msg, fix string) {
		if karpenter {
			// Karpenter may keep the buffers (its gate on).
			w(first, true, "ca."+code, msg, fix)
			return
		}
		w(first, false, "ineffective.ca-"+code, msg, fix)
	}
	n := len(bs)
	switch {
	case !o.CapacityBufferController && !o.CapacityBufferPodInjection:
		ineffective("buffer-flags-off", fmt.Sprintf("%d CapacityBuffer(s), but %s and %s are off (their defaults): the Cluster Autoscaler keeps no spare capacity for them", n, ctl, inject),
			"set both "+ctl+"=true and "+inject+"=true on the Cluster Autoscaler")
		return nil
	case !o.CapacityBufferPodInjection:
		ineffective("buffer-no-injection", fmt.Sprintf("%s fills %d CapacityBuffer(s)' status, but %s is off: no fake pods join the scale-up, so no spare capacity is kept", ctl, n, inject),
			"set "+inject+"=true")
		return nil
	case !o.CapacityBufferController:
		ineffective("buffer-no-controller", fmt.Sprintf("%s is on, but %s is off: no controller marks the %d CapacityBuffer(s) ready for provisioning, so no fake pods are injected (Karpenter's buffer controller writes the same status when its gate is on; that is not simulated)", inject, ctl, n),
			"set "+ctl+"=true")
		return nil
	}
	for i := range bs {
		b := &bs[i]
		if b.Strategy != capacitybuffer.ActiveCapacity {
			w(b, false, "ineffective.ca-buffer-strategy", fmt.Sprintf("provisioningStrategy %q: the Cluster Autoscaler's controller and pod injection take only %s buffers (strategy filter): it leaves this one alone", b.Strategy, capacitybuffer.ActiveCapacity),
				"drop provisioningStrategy or write "+capacitybuffer.ActiveCapacity)
			continue
		}
		if why := capacitybuffer.ClusterAutoscaler.Unresolvable(b); why != "" {
			w(b, false, "ineffective.ca-buffer-unresolvable", why+": the Cluster Autoscaler's buffer controller never resolves it and keeps no capacity for it",
				"point scalableRef at a Deployment, StatefulSet or ReplicaSet (apiGroup apps) or a Job (apiGroup batch), or use podTemplateRef")
			continue
		}
		if kind, name := b.Ref(); !refIn(c.in.Others, kind, name, b.Namespace) {
			w(b, false, "ineffective.ca-buffer-ref-missing", fmt.Sprintf("%s %s/%s is not in the scenario: the Cluster Autoscaler's buffer controller never resolves it and keeps no capacity for it", kind, b.Namespace, name),
				fmt.Sprintf("add the %s to the scenario, or name one in namespace %s (references are namespace-local)", kind, b.Namespace))
			continue
		}
		if b.Replicas == nil && b.Percentage == nil && len(b.Limits) == 0 {
			w(b, false, "ineffective.ca-buffer-not-ready", "none of replicas, percentage and limits is set: the Cluster Autoscaler's controller marks it not ready for provisioning",
				"set replicas, percentage or limits")
		}
	}
	if karpenter {
		w(first, true, "ca.buffer-both-autoscalers", fmt.Sprintf("the Cluster Autoscaler keeps spare capacity for %d CapacityBuffer(s), and so does Karpenter if its CapacityBuffer gate is on: each provisions for the same buffer, placing its pods in the free room of every node (the other's too), so room one keeps also serves the other; when there is none, both scale up for it at once, and the extra nodes stay until scale-down or consolidation finds them unneeded", n),
			"let one autoscaler act on the buffers: turn the other's CapacityBuffer support off")
	}
	return bs
}

// refIn reports whether docs hold the object kind/name in namespace ns.
func refIn(docs []*manifest.Document, kind, name, ns string) bool {
	for _, d := range docs {
		dns := d.Namespace
		if dns == "" {
			dns = "default"
		}
		if d.Kind == kind && d.Name == name && dns == ns {
			return true
		}
	}
	return false
}
