package apis

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
)

// provisioner reads a Provisioner as the karpenter.sh/v1alpha5 object it is
// (or resembles, under another apiVersion) and converts it to a v1
// NodePool, warning about every change. The conversions follow the
// upstream migration guides (v1alpha5 -> v1beta1 -> v1): ttlSecondsAfterEmpty
// becomes WhenEmpty with consolidateAfter, consolidation.enabled becomes
// WhenEmptyOrUnderutilized, ttlSecondsUntilExpired becomes expireAfter,
// providerRef becomes nodeClassRef, kubeletConfiguration moves to the node
// class, and the AWS webhook's v1alpha5 defaults are written out.
func (c *compiler) provisioner(d *manifest.Document) {
	switch d.APIVersion {
	case APIVersionV1alpha5:
		c.warn(d, "kind", "karpenter.sh/v1alpha5 Provisioner was replaced by the NodePool (karpenter.sh/v1beta1, now karpenter.sh/v1) and is not served since Karpenter v0.33: converted to a karpenter.sh/v1 NodePool, each change listed below")
	case APIVersionV1beta1, APIVersionV1:
		c.warnc(d, CodeNoSuchKind, "write it as apiVersion: karpenter.sh/v1, kind: NodePool", "kind", "there is no %s Provisioner: v1beta1 renamed Provisioner to NodePool, and Provisioner existed only in karpenter.sh/v1alpha5: read as the v1alpha5 Provisioner it resembles and converted to a karpenter.sh/v1 NodePool, each change listed below (write it as apiVersion: karpenter.sh/v1, kind: NodePool)", d.APIVersion)
	default:
		c.failc(d, CodeLegacy, "apiVersion", "write a karpenter.sh/v1 NodePool", "Provisioner existed only in karpenter.sh/v1alpha5, not %q", d.APIVersion)
		return
	}
	obj, ok := decode[provisioner](c, d)
	if !ok || !c.named(d, obj.Metadata.Name, "name the Provisioner") {
		return
	}
	s := &obj.Spec
	if len(s.Drift) > 0 {
		c.warn(d, "spec.drift", `drift: {enabled: ...} never was a Provisioner or NodePool field, and drift cannot be turned off in karpenter.sh/v1: read as a budget that blocks drift, {nodes: "0", reasons: [Drifted]}`)
	}
	dr := &draft{d: d}
	p := &dr.pool
	p.Name, p.File, p.Line, p.Source = obj.Metadata.Name, d.File, d.Line, d.APIVersion+" Provisioner"
	p.Weight = c.weight(d, "spec.weight", s.Weight)
	labels := c.labels(d, "spec.labels", s.Labels, legacyAPI)
	annotations, dnd := c.annotations(d, "spec.annotations", s.Annotations)
	p.DoNotDisrupt = dnd
	p.Taints = c.taints(d, "spec.taints", s.Taints, legacyAPI)
	p.StartupTaints = c.taints(d, "spec.startupTaints", s.StartupTaints, legacyAPI)
	p.Requirements = c.requirements(d, "spec.requirements", s.Requirements, legacyAPI, labels)
	p.Requirements = append(p.Requirements, c.awsDefaults(d, s.Requirements)...)
	p.Limits = Limits{Nodes: -1}
	if s.Limits != nil {
		p.Limits = c.limits(d, "spec.limits.resources", s.Limits.Resources)
	}

	// Node class: a reference at path, of kind (defaultKind if unset).
	useRef := func(path, kind, defaultKind, name string) {
		if kind == "" {
			kind = defaultKind
		}
		p.NodeClassRef = NodeClassRef{Group: GroupAWS, Kind: kind, Name: name}
		dr.refPath = path
	}
	switch {
	case s.ProviderRef != nil:
		useRef("spec.providerRef", s.ProviderRef.Kind, KindAWSNodeTemplate, s.ProviderRef.Name)
		c.warn(d, "spec.providerRef", "providerRef is v1alpha5: read as spec.template.spec.nodeClassRef {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}", s.ProviderRef.Name)
		if s.NodeClassRef != nil {
			c.warn(d, "spec.nodeClassRef", "nodeClassRef is not a Provisioner field (it is spec.template.spec.nodeClassRef of a NodePool) and providerRef is also given: ignored")
		}
	case s.NodeClassRef != nil:
		useRef("spec.nodeClassRef", s.NodeClassRef.Kind, KindEC2NodeClass, s.NodeClassRef.Name)
		c.warn(d, "spec.nodeClassRef", "nodeClassRef is not a Provisioner field (it is spec.template.spec.nodeClassRef of a NodePool): read there")
	default:
		useRef("spec", "", KindEC2NodeClass, "default")
		if len(s.Provider) > 0 {
			c.warn(d, "spec.provider", "the inline provider was replaced by an EC2NodeClass in v1beta1: its subnet, security group, AMI and IAM settings do not change where pods land and are ignored; nodes get the default EC2NodeClass settings")
			dr.quietRef = true // the warning above covers the missing node class
		} else {
			dr.quietRef = true
			c.warn(d, "spec", "no providerRef: read as nodeClassRef {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default} (default settings unless an EC2NodeClass named default is given)")
		}
	}
	if s.ProviderRef != nil && len(s.Provider) > 0 {
		c.fail(d, "spec.provider", "keep providerRef and remove provider", "provider and providerRef are mutually exclusive")
	}
	switch {
	case s.KubeletConfiguration != nil:
		k := c.kubelet(d, "spec.kubeletConfiguration", s.KubeletConfiguration)
		dr.kubelet = &k
		c.warn(d, "spec.kubeletConfiguration", "kubeletConfiguration is v1alpha5 (v1 keeps it in the EC2NodeClass's spec.kubelet): applied to this NodePool's nodes")
		if s.Kubelet != nil {
			c.warn(d, "spec.kubelet", "kubelet is not a Provisioner field and kubeletConfiguration is also given: ignored")
		}
	case s.Kubelet != nil:
		k := c.kubelet(d, "spec.kubelet", s.Kubelet)
		dr.kubelet = &k
		c.warn(d, "spec.kubelet", "kubelet is not a Provisioner field (v1 keeps it in the EC2NodeClass's spec.kubelet): applied to this NodePool's nodes")
	}

	c.provisionerExpiry(d, s, p)
	c.provisionerDisruption(d, s, p)
	if len(s.Drift) > 0 {
		p.Disruption.Budgets = append(p.Disruption.Budgets, Budget{Nodes: cluster.IntOrPercent{}, Reasons: []Reason{ReasonDrifted}, Text: `{nodes: "0", reasons: [Drifted]}`})
	}
	c.finish(dr, labels, annotations)
}

func (c *compiler) provisionerExpiry(d *manifest.Document, s *provisionerSpec, p *NodePool) {
	exp := s.ExpireAfter
	expPath := "spec.expireAfter"
	if s.Disruption != nil && s.Disruption.ExpireAfter != nil {
		if exp != nil {
			c.warn(d, "spec.disruption.expireAfter", "expireAfter is given twice: spec.expireAfter wins")
		} else {
			exp, expPath = s.Disruption.ExpireAfter, "spec.disruption.expireAfter"
		}
	}
	switch {
	case s.TTLSecondsUntilExpired != nil:
		n := *s.TTLSecondsUntilExpired
		if n < 0 {
			c.fail(d, "spec.ttlSecondsUntilExpired", "", "must not be negative")
			return
		}
		p.ExpireAfter = secondsDuration(n)
		if p.ExpireAfter == 0 {
			p.ExpireAfter = 1 // expires at once; 0 would mean Never
		}
		c.warn(d, "spec.ttlSecondsUntilExpired", "ttlSecondsUntilExpired: %d is v1alpha5: read as spec.template.spec.expireAfter: %s", n, secondsText(n))
		if exp != nil {
			c.warn(d, expPath, "expireAfter is not a Provisioner field and ttlSecondsUntilExpired is also given: ignored")
		}
	case exp != nil:
		if v, never, ok := c.durationOrNever(d, expPath, *exp, neverAllowed); ok {
			p.ExpireAfter = v
			if never {
				p.ExpireAfter = 0
			}
			c.warn(d, expPath, "expireAfter is not a Provisioner field (it is spec.template.spec.expireAfter of a NodePool): read there")
		}
	default:
		p.ExpireAfter = 0
		c.warn(d, "spec", "no ttlSecondsUntilExpired: v1alpha5 nodes never expired: read as expireAfter: Never (v1 would default to 720h)")
	}
}

func (c *compiler) provisionerDisruption(d *manifest.Document, s *provisionerSpec, p *NodePool) {
	policy, policyPath := s.ConsolidationPolicy, "spec.consolidationPolicy"
	after, afterPath := s.ConsolidateAfter, "spec.consolidateAfter"
	var budgets []budgetV1
	if dis := s.Disruption; dis != nil {
		c.warn(d, "spec.disruption", "disruption is not a Provisioner field (it is a NodePool's spec.disruption): read as such")
		if dis.ConsolidationPolicy != "" {
			if policy != nil {
				c.warn(d, "spec.disruption.consolidationPolicy", "consolidationPolicy is given twice: spec.consolidationPolicy wins")
			} else {
				cp := dis.ConsolidationPolicy
				policy, policyPath = &cp, "spec.disruption.consolidationPolicy"
			}
		}
		if dis.ConsolidateAfter != nil {
			if after != nil {
				c.warn(d, "spec.disruption.consolidateAfter", "consolidateAfter is given twice: spec.consolidateAfter wins")
			} else {
				after, afterPath = dis.ConsolidateAfter, "spec.disruption.consolidateAfter"
			}
		}
		if dis.Budgets != nil {
			budgets = []budgetV1{}
			for _, b := range dis.Budgets {
				budgets = append(budgets, budgetV1{Nodes: b.Nodes, Schedule: b.Schedule, Duration: b.Duration})
			}
		}
	}
	p.Disruption.Budgets = c.budgets(d, "spec.disruption.budgets", budgets)
	ttl := s.TTLSecondsAfterEmpty
	consEnabled := s.Consolidation != nil && s.Consolidation.Enabled != nil && *s.Consolidation.Enabled
	if ttl != nil && *ttl < 0 {
		c.fail(d, "spec.ttlSecondsAfterEmpty", "", "must not be negative")
		return
	}
	if ttl != nil && consEnabled {
		c.fail(d, "spec.ttlSecondsAfterEmpty", "keep one: consolidation.enabled: true already removes empty nodes (v1: consolidationPolicy: WhenEmptyOrUnderutilized)",
			"ttlSecondsAfterEmpty and consolidation.enabled are mutually exclusive in a v1alpha5 Provisioner")
		return
	}

	if policy != nil {
		switch *policy {
		case "WhenEmpty":
			p.Disruption.Policy = WhenEmpty
		case "WhenEmptyOrUnderutilized", "WhenUnderutilized":
			p.Disruption.Policy = WhenEmptyOrUnderutilized
		default:
			c.fail(d, policyPath, "use WhenEmpty or WhenEmptyOrUnderutilized", "unknown consolidation policy %q", *policy)
			return
		}
		if policyPath == "spec.consolidationPolicy" {
			note := ""
			if *policy == "WhenUnderutilized" {
				note = ` ("WhenUnderutilized" is the v1beta1 spelling of WhenEmptyOrUnderutilized)`
			}
			c.warn(d, policyPath, "consolidationPolicy is not a Provisioner field (it is spec.disruption.consolidationPolicy of a NodePool): read as disruption.consolidationPolicy: %s%s", p.Disruption.Policy, note)
		}
		if s.Consolidation != nil {
			c.warn(d, "spec.consolidation", "consolidation is v1alpha5 and consolidationPolicy is also given: consolidationPolicy %s wins", p.Disruption.Policy)
		}
		switch {
		case ttl != nil:
			p.Disruption.ConsolidateAfter = secondsDuration(*ttl)
			what := "the wait before empty nodes are removed"
			if p.Disruption.Policy == WhenEmptyOrUnderutilized {
				what = "which in v1 also delays the consolidation of underutilized nodes"
			}
			fix := fmt.Sprintf("v1: consolidationPolicy: %s, consolidateAfter: %s", p.Disruption.Policy, secondsText(*ttl))
			c.warnc(d, "", fix, "spec.ttlSecondsAfterEmpty", "ttlSecondsAfterEmpty: %d next to consolidationPolicy: %s: read as disruption.consolidateAfter: %s, %s (%s)",
				*ttl, p.Disruption.Policy, secondsText(*ttl), what, fix)
			if after != nil {
				c.warn(d, afterPath, "consolidateAfter and ttlSecondsAfterEmpty are both given: ttlSecondsAfterEmpty wins")
			}
		case after != nil:
			if v, never, ok := c.durationOrNever(d, afterPath, *after, neverAllowed); ok {
				p.Disruption.ConsolidateAfter, p.Disruption.ConsolidateNever = v, never
				if afterPath == "spec.consolidateAfter" {
					c.warn(d, afterPath, "consolidateAfter is not a Provisioner field (it is spec.disruption.consolidateAfter of a NodePool): read there")
				}
			}
		default:
			c.warn(d, policyPath, "no consolidateAfter: read as 0s (the v1 default)")
		}
		return
	}

	if after != nil && afterPath == "spec.consolidateAfter" {
		c.warn(d, afterPath, "consolidateAfter is not a Provisioner field (it is spec.disruption.consolidateAfter of a NodePool)")
	}
	switch {
	case ttl != nil:
		p.Disruption.Policy = WhenEmpty
		p.Disruption.ConsolidateAfter = secondsDuration(*ttl)
		c.warn(d, "spec.ttlSecondsAfterEmpty", "ttlSecondsAfterEmpty: %d is v1alpha5: read as disruption {consolidationPolicy: WhenEmpty, consolidateAfter: %s}", *ttl, secondsText(*ttl))
	case consEnabled:
		p.Disruption.Policy = WhenEmptyOrUnderutilized
		c.warn(d, "spec.consolidation", "consolidation: {enabled: true} is v1alpha5: read as disruption {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}")
	default:
		p.Disruption.Policy = WhenEmptyOrUnderutilized
		p.Disruption.ConsolidateNever = true
		path := "spec"
		if s.Consolidation != nil {
			path = "spec.consolidation"
		}
		c.warn(d, path, "no ttlSecondsAfterEmpty and consolidation not enabled: a v1alpha5 Provisioner removed neither empty nor underutilized nodes: read as disruption.consolidateAfter: Never (v1 would consolidate with WhenEmptyOrUnderutilized after 0s)")
		return
	}
	if after != nil {
		if v, never, ok := c.durationOrNever(d, afterPath, *after, neverAllowed); ok && ttl == nil {
			p.Disruption.ConsolidateAfter, p.Disruption.ConsolidateNever = v, never
		}
	}
}

// awsDefaults adds the requirements the v1alpha5 AWS webhook defaulted
// (KA v0.31 pkg/apis/v1alpha5/provisioner.go SetDefaults), with a warning
// each.
func (c *compiler) awsDefaults(d *manifest.Document, reqs []requirement) []Requirement {
	has := map[string]bool{}
	for _, r := range reqs {
		k := r.Key
		if n, ok := NormalizedLabels[k]; ok {
			k = n
		}
		has[k] = true
	}
	var out []Requirement
	add := func(key string, op corev1.NodeSelectorOperator, vals []string, text string) {
		cr, err := cluster.CompileRequirement(c.env.Syms, corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}, cluster.MatchExpression)
		if err != nil {
			panic(fmt.Sprintf("apis: default requirement %s: %v", key, err)) // constant input
		}
		out = append(out, Requirement{Requirement: cr})
		c.warn(d, "spec.requirements", "no %s requirement: the v1alpha5 AWS webhook defaulted it: added %s %s (v1 has no such default; write it to keep it)", key, key, text)
	}
	if !has[LabelOS] {
		add(LabelOS, corev1.NodeSelectorOpIn, []string{"linux"}, "In [linux]")
	}
	if !has[LabelArch] {
		add(LabelArch, corev1.NodeSelectorOpIn, []string{"amd64"}, "In [amd64]")
	}
	if !has[LabelCapacityType] {
		add(LabelCapacityType, corev1.NodeSelectorOpIn, []string{"on-demand"}, "In [on-demand]")
	}
	if !has[LabelInstanceType] && !has[LabelInstanceFamily] && !has[LabelInstanceCategory] && !has[LabelInstanceGen] {
		add(LabelInstanceCategory, corev1.NodeSelectorOpIn, []string{"c", "m", "r"}, "In [c, m, r]")
		add(LabelInstanceGen, corev1.NodeSelectorOpGt, []string{"2"}, "Gt 2")
	}
	return out
}
