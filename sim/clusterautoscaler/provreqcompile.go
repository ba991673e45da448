package clusterautoscaler

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/clusterautoscaler/provreq"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Codes of the ProvisioningRequest findings (sim lint reads them).
const (
	// CodeProvReqDisabled: requests while --enable-provisioning-requests
	// is off (its default): the Cluster Autoscaler ignores them.
	CodeProvReqDisabled = "ineffective.provreq-disabled"
	// CodeProvReqNoReader: requests and no Cluster Autoscaler runs;
	// Karpenter does not read ProvisioningRequests.
	CodeProvReqNoReader = "ineffective.provreq-no-reader"
	// CodeProvReqClass: a class this Cluster Autoscaler does not process.
	CodeProvReqClass = "ineffective.provreq-unsupported-class"
	// CodeProvReqTemplate: a pod set's PodTemplate is not in the
	// manifests: the request fails (FailedToCreatePods).
	CodeProvReqTemplate = "ineffective.provreq-missing-template"
	// CodeProvReqAnnotation: a consume annotation on a controller's
	// metadata, which its pods do not get, or naming no request.
	CodeProvReqAnnotation = "ineffective.provreq-consumer"
)

// compileProvReqs decodes the ProvisioningRequests and checks them against the
// flags (enabled is --enable-provisioning-requests; running: the Cluster
// Autoscaler runs at all) and the scenario's PodTemplates and consuming
// workloads, with warnings for what will not do what its author expects.
func (c *caCompiler) compileProvReqs(docs []*manifest.Document, o *provreqOptions) []provreq.Request {
	var reqs []provreq.Request
	var at []*manifest.Document
	for _, d := range docs {
		r, err := provreq.Decode(d)
		if err != nil {
			c.errs = c.errs.Add(err)
			continue
		}
		reqs = append(reqs, r)
		at = append(at, d)
	}
	if len(reqs) == 0 {
		return nil
	}
	switch {
	case !o.running:
		c.warn(at[0], "", CodeProvReqNoReader, fmt.Sprintf("%d ProvisioningRequest(s), but no Cluster Autoscaler runs (%s), and Karpenter does not read ProvisioningRequests: nothing provisions for them, and the pods that consume them are provisioned for like any other", len(reqs), o.why))
		return nil
	case !o.enabled:
		for _, d := range at {
			w := c.warnAt(d, "", CodeProvReqDisabled, fmt.Sprintf("ProvisioningRequest %s: --enable-provisioning-requests is off (its default), so the Cluster Autoscaler ignores it: no capacity is checked or booked, and the pods that consume it are scaled up for like any other", d.Name))
			w.Fix = "add --enable-provisioning-requests=true to the Cluster Autoscaler's flags (spec.clusterAutoscaler.args or its Deployment)"
		}
		return nil
	}
	templates := map[string]bool{}
	for _, d := range c.in.Others {
		if d.Kind == "PodTemplate" {
			templates[nsOf(d)+"/"+d.Name] = true
		}
	}
	names := map[string]bool{}
	for i, r := range reqs {
		d := at[i]
		names[r.Namespace+"/"+r.Name] = true
		if !r.Supported(o.instance) {
			why := "it is neither " + provreq.ClassCheckCapacity + " nor " + provreq.ClassBestEffortAtomic
			if o.instance != "" {
				why = fmt.Sprintf("with --check-capacity-processor-instance=%s only check-capacity requests whose parameters.processorInstance is %q are processed", o.instance, o.instance)
			} else if r.Parameters[provreq.ParamProcessorInstance] != "" {
				why = "its parameters.processorInstance names a processor instance, and this Cluster Autoscaler has no --check-capacity-processor-instance"
			}
			c.warnAt(d, "spec.provisioningClassName", CodeProvReqClass, fmt.Sprintf("class %q is not processed by this Cluster Autoscaler (%s): the request stays without conditions", r.Class, why))
			continue
		}
		for j, ps := range r.PodSets {
			if !templates[r.Namespace+"/"+ps.Template] {
				c.warnAt(d, fmt.Sprintf("spec.podSets[%d].podTemplateRef.name", j), CodeProvReqTemplate,
					fmt.Sprintf("no PodTemplate %s in namespace %s: the Cluster Autoscaler cannot build the request's pods and marks it Failed (reason %s)", ps.Template, r.Namespace, provreq.ReasonFailedToCreatePods))
			}
		}
	}
	for _, cu := range provreq.Consumers(c.in.Others) {
		switch {
		case cu.OnController:
			c.warnAt(cu.Doc, cu.Path, CodeProvReqAnnotation, fmt.Sprintf("the consume-provisioning-request annotation is on the %s's own metadata, and its pods do not get it: the Cluster Autoscaler scales up for them like any other pods, and does not leave them to request %s", cu.Doc.Kind, cu.Request))
		case !names[nsOf(cu.Doc)+"/"+cu.Request]:
			c.warnAt(cu.Doc, cu.Path, CodeProvReqAnnotation, fmt.Sprintf("its pods consume ProvisioningRequest %s, which is not in namespace %s: the Cluster Autoscaler never scales up for them", cu.Request, nsOf(cu.Doc)))
		}
	}
	return reqs
}

// provreqOptions are what provReqs needs of the settings.
type provreqOptions struct {
	running, enabled bool
	// why no Cluster Autoscaler runs, when running is false.
	why      string
	instance string
}

func nsOf(d *manifest.Document) string {
	if d.Namespace == "" {
		return "default"
	}
	return d.Namespace
}

// warnAt adds a warning at path and returns it for its Fix.
// (valid until the next warning).
func (c *caCompiler) warnAt(d *manifest.Document, path, code, msg string) *component.Warning {
	c.warn(d, path, code, msg)
	return &c.warns[len(c.warns)-1]
}
