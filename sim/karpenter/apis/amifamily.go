package apis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/manifest"
)

// AMI families of an EC2NodeClass (spec.amiFamily, or the family an
// amiSelectorTerms alias names) and of an AWSNodeTemplate.
const (
	AMIFamilyAL2          = "AL2"
	AMIFamilyAL2023       = "AL2023"
	AMIFamilyBottlerocket = "Bottlerocket"
	AMIFamilyCustom       = "Custom"
	AMIFamilyUbuntu       = "Ubuntu" // v1beta1 and earlier only
)

// aliasFamilies maps an alias's family part (before "@") to the family.
var aliasFamilies = map[string]string{
	"al2": AMIFamilyAL2, "al2023": AMIFamilyAL2023, "bottlerocket": AMIFamilyBottlerocket,
	"windows2019": "Windows2019", "windows2022": "Windows2022", "windows2025": "Windows2025",
}

// IsWindowsFamily reports whether an AMI family runs Windows nodes
// (Windows2019, Windows2022, Windows2025), which are not simulated.
func IsWindowsFamily(family string) bool {
	return strings.HasPrefix(strings.ToLower(family), "windows")
}

// amiFamily returns a node class's AMI family and the path that sets it:
// the family of the first amiSelectorTerms alias (in v1 an alias decides
// the family and amiFamily may be omitted), else spec.amiFamily, else ""
// (v1beta1's default, AL2, behaves the same here). A Windows family is an
// error at that path: Windows nodes are not simulated.
func (c *compiler) amiFamily(d *manifest.Document, family *string, terms []amiSelectorTerm) string {
	fam, path := "", ""
	for i, t := range terms {
		if t.Alias == "" {
			continue
		}
		name, _, _ := strings.Cut(t.Alias, "@")
		if f, ok := aliasFamilies[strings.ToLower(name)]; ok {
			fam, path = f, fmt.Sprintf("spec.amiSelectorTerms[%d].alias", i)
		}
		break
	}
	if fam == "" && family != nil {
		fam, path = *family, "spec.amiFamily"
	}
	if IsWindowsFamily(fam) {
		hint := "remove this " + d.Kind + " and the NodePools that use it to simulate the Linux part of the cluster (pods that need Windows nodes then stay Pending)"
		c.fail(d, path, hint, "Windows nodes are not simulated (%s): the simulator has no Windows prices, node overheads or Windows-only scheduling", fam)
	}
	return fam
}

// windowsOnlyRequirement says why a NodePool requirement allows Windows
// nodes only ("" when it does not): kubernetes.io/os In [windows] without
// linux, NotIn [linux], or a node.kubernetes.io/windows-build requirement
// that needs the label.
func windowsOnlyRequirement(key, op string, vals []string) string {
	switch {
	case key == LabelOS && op == "In" && slices.Contains(vals, "windows") && !slices.Contains(vals, "linux"):
		return fmt.Sprintf("%s In [%s] allows Windows nodes only", key, strings.Join(vals, ", "))
	case key == LabelOS && op == "NotIn" && slices.Contains(vals, "linux"):
		return fmt.Sprintf("%s NotIn [%s] allows no Linux node", key, strings.Join(vals, ", "))
	case key == LabelWindowsBuild && (op == "In" || op == "Exists"):
		return fmt.Sprintf("%s %s allows Windows nodes only", key, op)
	}
	return ""
}

// ephemeralDevice is the block device whose EBS volume Karpenter counts as
// a node's ephemeral storage for an AMI family (the family's
// EphemeralBlockDevice in karpenter-provider-aws pkg/providers/amifamily):
// Bottlerocket keeps pods' data on its second volume, /dev/xvdb; AL2, AL2023
// and Ubuntu on the root volume /dev/xvda. "" for Custom, whose ephemeral
// storage is the last mapping's.
func ephemeralDevice(family string) string {
	switch family {
	case AMIFamilyBottlerocket:
		return "/dev/xvdb"
	case AMIFamilyCustom:
		return ""
	}
	return "/dev/xvda"
}
