package apis

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/manifest"
)

// The rules below are those of karpenter-provider-aws v1.15.0's CRD
// (pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml): required fields,
// item counts and the CEL rules that need no cluster state. The API server
// refuses an EC2NodeClass that breaks one, so its NodePools launch nothing;
// here each is an error at its field, and each NodePool that names the
// class gets one too (refusedClassRef).

// maxSelectorTerms is maxItems of every selector-terms list.
const maxSelectorTerms = 30

// maxBlockDeviceMappings is maxItems of spec.blockDeviceMappings.
const maxBlockDeviceMappings = 50

// aliasPattern is the alias format rule: family@version.
var aliasPattern = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)

// restrictedTagKeys are spec.tags keys the CRD refuses (Karpenter sets
// them); a key starting with kubernetes.io/cluster is refused too.
var restrictedTagKeys = []string{"eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass"}

// selectorHint is the fix for missing or empty selector terms: the
// subnets, security groups and AMIs are not simulated, but the API server
// needs them.
const selectorHint = "add %s such as [{tags: {karpenter.sh/discovery: <cluster name>}}] as in Karpenter's examples (the simulator does not model %s, but the API server refuses an EC2NodeClass without them and its NodePools launch nothing)"

// validateEC2NodeClass checks a karpenter.k8s.aws EC2NodeClass's spec as
// the v1 CRD does; v1beta1 (converted to v1) is checked without the AMI
// rules, which the conversion fills. It reports whether the class is
// valid.
func (c *compiler) validateEC2NodeClass(d *manifest.Document, s *ec2NodeClassSpec, v1 bool) bool {
	n := len(c.errs)
	c.selectorTerms(d, "spec.subnetSelectorTerms", "subnetSelectorTerms", "subnets", len(s.SubnetSelectorTerms), func(i int) string {
		t := s.SubnetSelectorTerms[i]
		if t.Name != "" {
			return "name is not a subnet selector field (use tags or id)"
		}
		return termFields(t.Tags != nil, t.ID != "", t.ID != "" && t.Tags != nil, "tags", "id")
	}, func(i int) map[string]string { return s.SubnetSelectorTerms[i].Tags })
	c.selectorTerms(d, "spec.securityGroupSelectorTerms", "securityGroupSelectorTerms", "security groups", len(s.SecurityGroupSelectorTerms), func(i int) string {
		t := s.SecurityGroupSelectorTerms[i]
		if t.ID != "" && (t.Tags != nil || t.Name != "") {
			return "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term"
		}
		if t.Name != "" && t.Tags != nil {
			return "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term"
		}
		return termFields(t.Tags != nil || t.Name != "", t.ID != "", false, "tags", "id", "name")
	}, func(i int) map[string]string { return s.SecurityGroupSelectorTerms[i].Tags })
	if v1 {
		c.amiSelectorTerms(d, s)
	}
	switch hasRole, hasProfile := s.Role != "", s.InstanceProfile != nil; {
	case hasRole == hasProfile:
		c.fail(d, "spec", "give the node IAM role (role: KarpenterNodeRole-<cluster name>) or an instanceProfile, not both", "must specify exactly one of ['role', 'instanceProfile']")
	case hasProfile && *s.InstanceProfile == "":
		c.fail(d, "spec.instanceProfile", "name the instance profile, or give role instead", "instanceProfile cannot be empty")
	}
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		p := fmt.Sprintf("spec.tags[%q]", k)
		switch {
		case k == "":
			c.fail(d, p, "remove the empty key", "empty tag keys aren't supported")
		case slices.Contains(restrictedTagKeys, k) || strings.HasPrefix(k, "kubernetes.io/cluster"):
			c.fail(d, p, "remove it: Karpenter sets this tag itself", "tag contains a restricted tag matching %s", k)
		}
	}
	if len(s.BlockDeviceMappings) > maxBlockDeviceMappings {
		c.fail(d, "spec.blockDeviceMappings", "", "must have at most %d items, has %d", maxBlockDeviceMappings, len(s.BlockDeviceMappings))
	}
	roots := 0
	for i, b := range s.BlockDeviceMappings {
		if b.RootVolume {
			roots++
		}
		if b.EBS != nil && b.EBS.SnapshotID == nil && b.EBS.VolumeSize == nil {
			c.fail(d, fmt.Sprintf("spec.blockDeviceMappings[%d].ebs", i), "give volumeSize such as 20Gi", "snapshotID or volumeSize must be defined")
		}
	}
	if roots > 1 {
		c.fail(d, "spec.blockDeviceMappings", "mark one mapping rootVolume: true", "must have only one blockDeviceMappings with rootVolume")
	}
	return len(c.errs) == n
}

// selectorTerms checks one selector-terms list: present, 1 to 30 terms,
// each term's fields (bad returns why a term is refused, "" when fine) and
// its tags (no empty key or value).
func (c *compiler) selectorTerms(d *manifest.Document, path, field, what string, n int, bad func(int) string, tags func(int) map[string]string) {
	switch {
	case n == 0:
		c.fail(d, path, fmt.Sprintf(selectorHint, field, what), "%s is required and cannot be empty", field)
		return
	case n > maxSelectorTerms:
		c.fail(d, path, "", "must have at most %d items, has %d", maxSelectorTerms, n)
	}
	for i := range n {
		p := fmt.Sprintf("%s[%d]", path, i)
		if why := bad(i); why != "" {
			c.fail(d, p, "", "%s", why)
		}
		for k, v := range tags(i) {
			if k == "" || v == "" {
				c.fail(d, p+".tags", "give every tag a key and a value (\"*\" matches any value)", "empty tag keys or values aren't supported")
				break
			}
		}
	}
}

// termFields words a selector term's field rules: one of the fields is
// set (some, or the exclusive id), and id is not combined (combined).
func termFields(some, id, combined bool, fields ...string) string {
	switch {
	case !some && !id:
		return fmt.Sprintf("expected at least one, got none, ['%s']", strings.Join(fields, "', '"))
	case combined:
		return "'id' is mutually exclusive, cannot be set with a combination of other fields"
	}
	return ""
}

// amiSelectorTerms checks the v1 AMI rules: terms present (1 to 30), each
// with a selector field; id and alias alone in their term, an alias alone
// in the list, of the form family@version with a known family (Windows
// families only @latest); amiFamily, when set, agreeing with the alias, and
// required without one.
func (c *compiler) amiSelectorTerms(d *manifest.Document, s *ec2NodeClassSpec) {
	const path = "spec.amiSelectorTerms"
	terms := s.AMISelectorTerms
	switch {
	case len(terms) == 0:
		c.fail(d, path, "add amiSelectorTerms: [{alias: al2023@latest}] (or the family your nodes run; AMIs are not simulated, but the API server refuses an EC2NodeClass without them and its NodePools launch nothing)", "amiSelectorTerms is required and cannot be empty in %s", APIVersionAWSV1)
		return
	case len(terms) > maxSelectorTerms:
		c.fail(d, path, "", "must have at most %d items, has %d", maxSelectorTerms, len(terms))
	}
	alias, hasAlias := "", false
	for i, t := range terms {
		p := fmt.Sprintf("%s[%d]", path, i)
		others := t.Tags != nil || t.Name != "" || t.Owner != ""
		switch {
		case t.Tags == nil && t.ID == "" && t.Name == "" && t.Alias == "" && t.SSMParameter == "":
			c.fail(d, p, "", "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']")
		case t.ID != "" && (t.Alias != "" || others):
			c.fail(d, p, "", "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms")
		case t.Alias != "" && (t.ID != "" || others):
			c.fail(d, p, "", "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms")
		}
		for k, v := range t.Tags {
			if k == "" || v == "" {
				c.fail(d, p+".tags", "give every tag a key and a value", "empty tag keys or values aren't supported")
				break
			}
		}
		if t.Alias == "" {
			continue
		}
		hasAlias = true
		if len(terms) != 1 {
			c.fail(d, p+".alias", "give the alias as the only term", "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms")
		}
		family, version, _ := strings.Cut(t.Alias, "@")
		switch {
		case !aliasPattern.MatchString(t.Alias):
			c.fail(d, p+".alias", "write family@version such as al2023@latest", "'alias' is improperly formatted, must match the format 'family@version'")
			continue
		case aliasFamilies[family] == "":
			c.fail(d, p+".alias", "", "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'")
			continue
		case IsWindowsFamily(family) && version != "latest":
			c.fail(d, p+".alias", "write "+family+"@latest", "windows families may only specify version 'latest'")
		}
		if alias == "" {
			alias = aliasFamilies[family]
		}
	}
	switch {
	case s.AMIFamily == nil && !hasAlias:
		c.fail(d, "spec", "add amiFamily (AL2023, Bottlerocket, Custom, ...) or select the AMI by an alias", "must specify amiFamily if amiSelectorTerms does not contain an alias")
	case s.AMIFamily != nil && alias != "" && *s.AMIFamily != alias && *s.AMIFamily != AMIFamilyCustom:
		c.fail(d, "spec.amiFamily", "remove amiFamily (the alias decides it) or write "+alias, "if set, amiFamily must be '%s' or 'Custom' when using %s %s alias", alias, article(alias), alias)
	}
}

// refusedClassRef records an error at a NodePool's nodeClassRef when the
// class it names was refused.
func (c *compiler) refusedClassRef(dr *draft) {
	ref := dr.pool.NodeClassRef
	r, ok := c.refused[ref.Kind+"/"+ref.Name]
	if !ok {
		return
	}
	c.fail(dr.d, dr.refPath, "fix the "+ref.Kind+" (its errors are listed at its own lines)",
		"%s %q (%s:%d) is refused by the API server (%s), so NodePool %q cannot launch nodes", ref.Kind, ref.Name, r.File, r.Line, r.why, dr.pool.Name)
}

// refusal is a refused node class: where it is and its first error.
type refusal struct {
	File string
	Line int
	why  string
}

// fieldMessage is "path: msg" of an error, or msg alone.
func fieldMessage(e *manifest.Error) string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// article is the CRD messages' article before an alias family.
func article(family string) string {
	if strings.HasPrefix(family, "A") {
		return "an"
	}
	return "a"
}

// legacyNodeClass warns that a karpenter.k8s.aws/v1beta1 EC2NodeClass is
// read as v1, as a karpenter.sh/v1beta1 NodePool is: v1beta1 is not
// served since Karpenter v1.1. The v1 conversion webhook (karpenter-provider-aws
// v1.0 pkg/apis/v1/ec2nodeclass_conversion.go) turned an amiFamily without
// amiSelectorTerms into the alias family@latest; the family, which is
// all the simulation reads, does not change.
func (c *compiler) legacyNodeClass(d *manifest.Document, s *ec2NodeClassSpec) {
	conv := ""
	if s.AMIFamily != nil && len(s.AMISelectorTerms) == 0 {
		if alias := familyAlias(*s.AMIFamily); alias != "" {
			conv = fmt.Sprintf("; its amiFamily: %s becomes amiSelectorTerms: [{alias: %s@latest}]", *s.AMIFamily, alias)
		}
	}
	fix := "write apiVersion: " + APIVersionAWSV1 + conv
	c.warnc(d, CodeLegacy, fix, "apiVersion", "karpenter.k8s.aws/v1beta1 EC2NodeClass was replaced by %s (v1beta1 is not served since Karpenter v1.1, whose API server refuses it): read as %s, as Karpenter v1.0's conversion webhook read it (%s)",
		APIVersionAWSV1, APIVersionAWSV1, fix)
}

// familyAlias is the alias family of an AMI family ("" for none: Custom,
// Ubuntu).
func familyAlias(family string) string {
	for a, f := range aliasFamilies {
		if f == family {
			return a
		}
	}
	return ""
}
