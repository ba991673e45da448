package apis

import (
	"fmt"
	"maps"
	"slices"

	"github.com/clustersim/clustersim/sim/manifest"
)

// obsolete is a field a karpenter.sh/v1 NodePool must not have, with why
// and what to write instead.
type obsolete struct {
	path []string
	msg  string
	hint func(d *manifest.Document) string
	// code is the error's code: CodeLegacyField for a field of an older
	// API, "" for one misplaced.
	code string
}

func fixed(s string) func(*manifest.Document) string {
	return func(*manifest.Document) string { return s }
}

var obsoleteV1 = []obsolete{
	{[]string{"spec", "disruption", "consolidation"},
		"consolidation is not a karpenter.sh/v1 field (consolidation: {enabled: ...} belonged to the v1alpha5 Provisioner)",
		func(d *manifest.Document) string {
			if scalar(lookup(d.Node, "spec", "disruption", "consolidation", "enabled")) == "false" {
				return "to turn consolidation off write spec.disruption.consolidateAfter: Never"
			}
			return "consolidation is on by default in v1 (consolidationPolicy: WhenEmptyOrUnderutilized): remove the field"
		}, CodeLegacyField},
	{[]string{"spec", "disruption", "drift"},
		"drift cannot be turned off in karpenter.sh/v1, and drift: {enabled: ...} never was a NodePool or Provisioner field",
		fixed(`to block drift add a budget: spec.disruption.budgets: [{nodes: "0", reasons: [Drifted]}]`), CodeLegacyField},
	{[]string{"spec", "disruption", "expireAfter"},
		"expireAfter moved from spec.disruption to spec.template.spec.expireAfter in karpenter.sh/v1",
		fixed("move it to spec.template.spec.expireAfter"), CodeLegacyField},
	{[]string{"spec", "template", "spec", "kubelet"},
		"kubelet moved from the NodePool to the EC2NodeClass in karpenter.sh/v1",
		fixed("move it to the EC2NodeClass's spec.kubelet"), CodeLegacyField},
	{[]string{"spec", "template", "spec", "resources"},
		"resources is not a NodePool field in karpenter.sh/v1",
		fixed("remove it; NodeClaims get their requests from the pods scheduled to them"), ""},
	{[]string{"spec", "ttlSecondsAfterEmpty"},
		"ttlSecondsAfterEmpty is a v1alpha5 Provisioner field",
		func(d *manifest.Document) string {
			return fmt.Sprintf("write spec.disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: %ss}", orDefault(scalar(lookup(d.Node, "spec", "ttlSecondsAfterEmpty")), "30"))
		}, CodeLegacyField},
	{[]string{"spec", "ttlSecondsUntilExpired"},
		"ttlSecondsUntilExpired is a v1alpha5 Provisioner field",
		fixed("write spec.template.spec.expireAfter, e.g. 720h"), CodeLegacyField},
	{[]string{"spec", "consolidation"},
		"consolidation is a v1alpha5 Provisioner field",
		fixed("write spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized (or consolidateAfter: Never to turn it off)"), CodeLegacyField},
	{[]string{"spec", "consolidationPolicy"},
		"consolidationPolicy belongs under spec.disruption",
		fixed("move it to spec.disruption.consolidationPolicy"), ""},
	{[]string{"spec", "consolidateAfter"},
		"consolidateAfter belongs under spec.disruption",
		fixed("move it to spec.disruption.consolidateAfter"), ""},
	{[]string{"spec", "requirements"},
		"requirements belong under spec.template.spec in a NodePool",
		fixed("move them to spec.template.spec.requirements"), ""},
	{[]string{"spec", "taints"},
		"taints belong under spec.template.spec in a NodePool",
		fixed("move them to spec.template.spec.taints"), ""},
	{[]string{"spec", "labels"},
		"labels belong under spec.template.metadata in a NodePool",
		fixed("move them to spec.template.metadata.labels"), ""},
	{[]string{"spec", "providerRef"},
		"providerRef is a v1alpha5 Provisioner field",
		fixed("write spec.template.spec.nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}"), CodeLegacyField},
	{[]string{"spec", "template", "spec", "nodeClassRef", "apiVersion"},
		"nodeClassRef.apiVersion is v1beta1; karpenter.sh/v1 names the group",
		fixed("write group: karpenter.k8s.aws (with kind and name)"), CodeLegacyField},
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func joinPath(keys []string) string {
	p := ""
	for i, k := range keys {
		if i > 0 {
			p += "."
		}
		p += k
	}
	return p
}

func (c *compiler) nodePool(d *manifest.Document) {
	switch d.APIVersion {
	case APIVersionV1:
		c.nodePoolV1(d)
	case APIVersionV1beta1:
		c.nodePoolV1beta1(d)
	case APIVersionV1alpha5:
		c.failc(d, CodeLegacy, "kind", "write apiVersion: karpenter.sh/v1 (or kind: Provisioner for a v1alpha5 object)", "karpenter.sh/v1alpha5 has no NodePool (it had Provisioner)")
	default:
		c.failc(d, CodeLegacy, "apiVersion", "use apiVersion: karpenter.sh/v1", "NodePool is served as karpenter.sh/v1 (formerly karpenter.sh/v1beta1), not %q", d.APIVersion)
	}
}

func (c *compiler) nodePoolV1(d *manifest.Document) {
	// Obsolete fields first, each with its own message; then decode a copy
	// without them so the decoder reports only what is left.
	work := d
	for _, o := range obsoleteV1 {
		if lookup(d.Node, o.path...) == nil {
			continue
		}
		c.failc(d, o.code, joinPath(o.path), o.hint(d), "%s", o.msg)
		if work == d {
			work = cloneDoc(d)
		}
		removeKey(lookup(work.Node, o.path[:len(o.path)-1]...), o.path[len(o.path)-1])
	}
	obj, ok := decode[nodePoolV1](c, work)
	if !ok || !c.named(d, obj.Metadata.Name, "name the NodePool") {
		return
	}
	s := &obj.Spec
	dr := &draft{d: d, refPath: "spec.template.spec.nodeClassRef"}
	p := &dr.pool
	p.Name, p.File, p.Line, p.Source = obj.Metadata.Name, d.File, d.Line, "karpenter.sh/v1 NodePool"
	if s.Replicas != nil {
		c.static(d, s, p)
	}
	p.Exported = ExportedHash{obj.Metadata.Annotations[NodePoolHashAnnotation], obj.Metadata.Annotations[NodePoolHashVersionAnnotation]}
	p.Weight = c.weight(d, "spec.weight", s.Weight)
	t := &s.Template.Spec
	labels := c.labels(d, "spec.template.metadata.labels", s.Template.Metadata.Labels, v1API)
	annotations, dnd := c.annotations(d, "spec.template.metadata.annotations", s.Template.Metadata.Annotations)
	p.DoNotDisrupt = dnd
	p.Taints = c.taints(d, "spec.template.spec.taints", t.Taints, v1API)
	p.StartupTaints = c.taints(d, "spec.template.spec.startupTaints", t.StartupTaints, v1API)
	auto := t.NodeClassRef != nil && t.NodeClassRef.Group == GroupEKS
	if auto {
		// Every Auto Mode node is labelled compute-type: auto.
		labels[LabelComputeType] = "auto"
	}
	c.autoMode = auto
	p.Requirements = c.requirements(d, "spec.template.spec.requirements", t.Requirements, v1API, labels)
	c.autoMode = false
	p.Limits = c.limits(d, "spec.limits", s.Limits)
	if t.NodeClassRef == nil {
		c.fail(d, "spec.template.spec.nodeClassRef", "add spec.template.spec.nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}", "nodeClassRef is required")
		return
	}
	ref := *t.NodeClassRef
	if ref.Group == "" && lookup(d.Node, "spec", "template", "spec", "nodeClassRef", "apiVersion") != nil {
		ref.Group = GroupAWS // the obsolete apiVersion was reported above
	}
	if !(ref.Group == GroupAWS && ref.Kind == KindEC2NodeClass || ref.Group == GroupEKS && ref.Kind == KindNodeClass) || ref.Name == "" {
		c.fail(d, "spec.template.spec.nodeClassRef", "write {group: karpenter.k8s.aws, kind: EC2NodeClass, name: <an EC2NodeClass>}, or for EKS Auto Mode {group: eks.amazonaws.com, kind: NodeClass, name: default}",
			"nodeClassRef {group: %q, kind: %q, name: %q} does not name an EC2NodeClass or an EKS Auto Mode NodeClass", ref.Group, ref.Kind, ref.Name)
		return
	}
	p.NodeClassRef = NodeClassRef{Group: ref.Group, Kind: ref.Kind, Name: ref.Name}
	p.ExpireAfter = DefaultExpireAfter
	if auto {
		// EKS's defaults for a pool of its NodeClass (create-node-pool.adoc).
		p.ExpireAfter, p.TerminationGracePeriod = AutoModeExpireAfter, AutoModeTerminationGracePeriod
	}
	if t.ExpireAfter != nil {
		v, never, ok := c.durationOrNever(d, "spec.template.spec.expireAfter", *t.ExpireAfter, neverAllowed)
		if ok {
			p.ExpireAfter = v
			if never {
				p.ExpireAfter = 0
			}
		}
	}
	if t.TerminationGracePeriod != nil {
		if v, _, ok := c.durationOrNever(d, "spec.template.spec.terminationGracePeriod", *t.TerminationGracePeriod, neverRejected); ok {
			p.TerminationGracePeriod = v
		}
	}
	dis := s.Disruption
	if dis == nil {
		dis = &disruptionV1{}
	}
	switch dis.ConsolidationPolicy {
	case "", "WhenEmptyOrUnderutilized":
		p.Disruption.Policy = WhenEmptyOrUnderutilized
	case "WhenEmpty":
		p.Disruption.Policy = WhenEmpty
	case "Balanced":
		p.Disruption.Policy = Balanced
	case "WhenUnderutilized":
		c.failc(d, CodeLegacy, "spec.disruption.consolidationPolicy", "in karpenter.sh/v1 use WhenEmptyOrUnderutilized", `"WhenUnderutilized" is v1beta1`)
	default:
		c.fail(d, "spec.disruption.consolidationPolicy", "use WhenEmpty, WhenEmptyOrUnderutilized or Balanced", "unknown consolidation policy %q", dis.ConsolidationPolicy)
	}
	if dis.ConsolidateAfter != nil {
		if v, never, ok := c.durationOrNever(d, "spec.disruption.consolidateAfter", *dis.ConsolidateAfter, neverAllowed); ok {
			p.Disruption.ConsolidateAfter, p.Disruption.ConsolidateNever = v, never
		}
	}
	p.Disruption.Budgets = c.budgets(d, "spec.disruption.budgets", dis.Budgets)
	c.finish(dr, labels, annotations)
}

// static reads spec.replicas with the rules the v1 CRD puts on a static
// NodePool (KC pkg/apis/v1/nodepool.go, v1.15.0): replicas >= 0, no
// limit but limits.nodes, no weight; consolidationPolicy and
// consolidateAfter are ignored.
func (c *compiler) static(d *manifest.Document, s *nodePoolSpecV1, p *NodePool) {
	p.Static, p.Replicas = true, *s.Replicas
	if p.Replicas < 0 {
		c.fail(d, "spec.replicas", "write the number of nodes the pool keeps, 0 or more", "replicas %d must not be negative", p.Replicas)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Limits)) {
		if k != "nodes" {
			c.fail(d, fmt.Sprintf("spec.limits[%q]", k), "remove it: a static NodePool's size is spec.replicas, bounded by limits.nodes only", "only 'limits.nodes' is supported on static NodePools")
		}
	}
	if s.Weight != nil {
		c.fail(d, "spec.weight", "remove spec.weight: static NodePools take no part in provisioning for pods, so no order among pools applies", "'weight' is not supported on static NodePools")
	}
	if dis := s.Disruption; dis != nil {
		if dis.ConsolidationPolicy != "" {
			c.warnc(d, "ineffective.static-consolidation", "remove it: a static NodePool's size is spec.replicas", "spec.disruption.consolidationPolicy", "ignored on a static NodePool (spec.replicas): Karpenter never consolidates its nodes, it keeps %d of them", p.Replicas)
		}
		if dis.ConsolidateAfter != nil {
			c.warnc(d, "ineffective.static-consolidation", "remove it: a static NodePool's size is spec.replicas", "spec.disruption.consolidateAfter", "ignored on a static NodePool (spec.replicas): Karpenter never consolidates its nodes, it keeps %d of them", p.Replicas)
		}
	}
}

func (c *compiler) nodePoolV1beta1(d *manifest.Document) {
	obj, ok := decode[nodePoolV1beta1](c, d)
	if !ok || !c.named(d, obj.Metadata.Name, "name the NodePool") {
		return
	}
	c.warn(d, "apiVersion", "karpenter.sh/v1beta1 NodePool was replaced by karpenter.sh/v1 (v1beta1 is not served since Karpenter v1.1): converted to karpenter.sh/v1, each change listed below")
	s := &obj.Spec
	dr := &draft{d: d, refPath: "spec.template.spec.nodeClassRef"}
	p := &dr.pool
	p.Name, p.File, p.Line, p.Source = obj.Metadata.Name, d.File, d.Line, "karpenter.sh/v1beta1 NodePool"
	p.Weight = c.weight(d, "spec.weight", s.Weight)
	t := &s.Template.Spec
	labels := c.labels(d, "spec.template.metadata.labels", s.Template.Metadata.Labels, legacyAPI)
	annotations, dnd := c.annotations(d, "spec.template.metadata.annotations", s.Template.Metadata.Annotations)
	p.DoNotDisrupt = dnd
	p.Taints = c.taints(d, "spec.template.spec.taints", t.Taints, legacyAPI)
	p.StartupTaints = c.taints(d, "spec.template.spec.startupTaints", t.StartupTaints, legacyAPI)
	p.Requirements = c.requirements(d, "spec.template.spec.requirements", t.Requirements, legacyAPI, labels)
	p.Limits = c.limits(d, "spec.limits", s.Limits)
	if len(t.Resources) > 0 {
		c.warn(d, "spec.template.spec.resources", "resources is not a NodePool field in karpenter.sh/v1: ignored")
	}
	if t.Kubelet != nil {
		k := c.kubelet(d, "spec.template.spec.kubelet", t.Kubelet)
		dr.kubelet = &k
		c.warn(d, "spec.template.spec.kubelet", "kubelet moved to the EC2NodeClass (spec.kubelet) in karpenter.sh/v1: applied to this NodePool's nodes")
	}
	ref := t.NodeClassRef
	switch {
	case ref == nil:
		c.warn(d, "spec.template.spec", "no nodeClassRef: read as {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}")
		p.NodeClassRef = NodeClassRef{Group: GroupAWS, Kind: KindEC2NodeClass, Name: "default"}
	default:
		kind := ref.Kind
		if kind == "" {
			kind = KindEC2NodeClass
		}
		p.NodeClassRef = NodeClassRef{Group: GroupAWS, Kind: kind, Name: ref.Name}
		if ref.APIVersion != "" {
			c.warnc(d, CodeLegacy, "", "spec.template.spec.nodeClassRef.apiVersion", "nodeClassRef.apiVersion is v1beta1: read as group: karpenter.k8s.aws")
		}
	}
	dis := s.Disruption
	if dis == nil {
		dis = &disruptionV1beta1{}
	}
	p.ExpireAfter = DefaultExpireAfter
	if dis.ExpireAfter != nil {
		if v, never, ok := c.durationOrNever(d, "spec.disruption.expireAfter", *dis.ExpireAfter, neverAllowed); ok {
			p.ExpireAfter = v
			if never {
				p.ExpireAfter = 0
			}
			c.warn(d, "spec.disruption.expireAfter", "expireAfter moved to spec.template.spec.expireAfter in karpenter.sh/v1: read there")
		}
	}
	switch dis.ConsolidationPolicy {
	case "", "WhenUnderutilized":
		p.Disruption.Policy = WhenEmptyOrUnderutilized
		if dis.ConsolidationPolicy != "" {
			c.warn(d, "spec.disruption.consolidationPolicy", `"WhenUnderutilized" is v1beta1: read as WhenEmptyOrUnderutilized`)
		}
		if dis.ConsolidateAfter != nil {
			c.warn(d, "spec.disruption.consolidateAfter", "v1beta1 allowed consolidateAfter only with consolidationPolicy: WhenEmpty (the API server rejected it here): read as v1 reads it, the wait before underutilized nodes are consolidated")
		}
	case "WhenEmpty":
		p.Disruption.Policy = WhenEmpty
		if dis.ConsolidateAfter == nil {
			c.warn(d, "spec.disruption", "v1beta1 required consolidateAfter with consolidationPolicy: WhenEmpty: read as consolidateAfter: 0s")
		}
	case "WhenEmptyOrUnderutilized":
		c.warnc(d, CodeLegacy, "", "spec.disruption.consolidationPolicy", "WhenEmptyOrUnderutilized is the v1 spelling (v1beta1 wrote WhenUnderutilized): read as is")
	default:
		c.fail(d, "spec.disruption.consolidationPolicy", "use WhenEmpty or WhenUnderutilized (v1: WhenEmptyOrUnderutilized)", "unknown consolidation policy %q", dis.ConsolidationPolicy)
	}
	if dis.ConsolidateAfter != nil {
		if v, never, ok := c.durationOrNever(d, "spec.disruption.consolidateAfter", *dis.ConsolidateAfter, neverAllowed); ok {
			p.Disruption.ConsolidateAfter, p.Disruption.ConsolidateNever = v, never
		}
	}
	var budgets []budgetV1
	if dis.Budgets != nil {
		budgets = []budgetV1{}
		for _, b := range dis.Budgets {
			budgets = append(budgets, budgetV1{Nodes: b.Nodes, Schedule: b.Schedule, Duration: b.Duration})
		}
	}
	p.Disruption.Budgets = c.budgets(d, "spec.disruption.budgets", budgets)
	c.finish(dr, labels, annotations)
}
