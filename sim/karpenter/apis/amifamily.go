package apis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/catalog"
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

// SkippedPool is a NodePool left out of the simulation: Windows nodes are
// not simulated, so a pool that can launch only Windows nodes is skipped
// with a warning rather than stopping the run.
type SkippedPool struct {
	Name string
	File string
	Line int
	// Why says why, e.g. "kubernetes.io/os In [windows] allows Windows
	// nodes only".
	Why string
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
		c.warnc(d, CodeWindows, "", path, "Windows nodes are not simulated (%s): the simulator has no Windows prices, node overheads or Windows-only scheduling: this %s is skipped, and so are the NodePools that use it (pods that need Windows nodes stay Pending)", fam, d.Kind)
	}
	return fam
}

// windowsClass is a node class skipped because it runs Windows: where it
// is and its family.
type windowsClass struct {
	File   string
	Line   int
	Family string
}

// skipWindows leaves out a NodePool that can launch only Windows nodes,
// with a warning saying why (why) and what it means for pods.
func (c *compiler) skipWindows(dr *draft, path, why string) {
	c.warnc(dr.d, CodeWindows, "", path, "Windows nodes are not simulated: %s: NodePool %q is skipped and the rest of the cluster simulated (pods that need Windows nodes stay Pending; sim lint lists them)", why, dr.pool.Name)
	c.skipped = append(c.skipped, SkippedPool{Name: dr.pool.Name, File: dr.d.File, Line: dr.d.Line, Why: "Windows nodes are not simulated: " + why})
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

// familyKubeletConfig drops the kubelet settings Karpenter does not pass
// to nodes of an AMI family, with a warning each: Bottlerocket takes
// neither podsPerCore nor evictionSoft (its FeatureFlags PodsPerCoreEnabled
// and EvictionSoftEnabled are false; bottlerocket-os/bottlerocket#1445).
func (c *compiler) familyKubeletConfig(d *manifest.Document, path, family string, k *kubeletConfig) *kubeletConfig {
	if family != AMIFamilyBottlerocket {
		return k
	}
	cp := *k
	if cp.PodsPerCore != nil {
		c.warn(d, path+".podsPerCore", "Karpenter does not pass podsPerCore to Bottlerocket nodes: ignored")
		cp.PodsPerCore = nil
	}
	if len(cp.EvictionSoft) > 0 {
		c.warn(d, path+".evictionSoft", "Karpenter does not pass evictionSoft to Bottlerocket nodes: ignored")
		cp.EvictionSoft = nil
	}
	return &cp
}

// familyKubelet applies an AMI family's overhead rules to a compiled
// kubelet configuration, as Karpenter's instance types do
// (pkg/providers/instancetype/types.go with the family's FeatureFlags). On
// Bottlerocket (UsesENILimitedMemoryOverhead false) kube-reserved memory
// is 11 MiB per pod of the node's pod capacity plus 255 MiB, so with
// maxPods set it follows maxPods instead of the ENI-limited count; and
// podsPerCore does not apply. AL2, AL2023 and the others keep the
// ENI-limited count (the catalogue's default). A kube-reserved memory the
// user sets wins, as upstream.
func familyKubelet(family string, k Kubelet) Kubelet {
	if family != AMIFamilyBottlerocket {
		return k
	}
	k.PodsPerCore = 0
	if k.MaxPods > 0 && !k.KubeReserved.SetMemory {
		k.KubeReserved.MemoryBytes = (11*int64(k.MaxPods) + 255) * catalog.MiB
		k.KubeReserved.SetMemory = true
	}
	return k
}
