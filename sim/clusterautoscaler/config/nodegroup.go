package config

import (
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
)

// Tag and label names the Cluster Autoscaler's AWS provider reads
// (cluster-autoscaler/cloudprovider/aws/aws_manager.go) and EKS and eksctl
// write.
const (
	TagPrefixLabel     = "k8s.io/cluster-autoscaler/node-template/label/"
	TagPrefixTaint     = "k8s.io/cluster-autoscaler/node-template/taint/"
	TagPrefixResources = "k8s.io/cluster-autoscaler/node-template/resources/"
	TagEnabled         = "k8s.io/cluster-autoscaler/enabled"
	// tagEKSPrefix: EKS tags a managed node group's ASG eks:cluster-name
	// and eks:nodegroup-name; the provider turns every eks:<k> tag into a
	// template label <k>.
	tagEKSPrefix = "eks:"

	LabelCapacityType     = "eks.amazonaws.com/capacityType" // ON_DEMAND or SPOT
	LabelEKSNodeGroup     = "eks.amazonaws.com/nodegroup"
	LabelEksctlCluster    = "alpha.eksctl.io/cluster-name"
	LabelEksctlNodeGroup  = "alpha.eksctl.io/nodegroup-name"
	LabelInstanceType     = "node.kubernetes.io/instance-type"
	LabelZone             = "topology.kubernetes.io/zone"
	LabelRegion           = "topology.kubernetes.io/region"
	LabelArch             = "kubernetes.io/arch"
	LabelOS               = "kubernetes.io/os"
	LabelEBSCSIZone       = "topology.ebs.csi.aws.com/zone"
	DefaultTemplatePods   = 110 // the AWS provider's template pods capacity ("TODO: get a real value")
	capacityTypeOnDemand  = "ON_DEMAND"
	capacityTypeSpot      = "SPOT"
	managedGroupAMIPrefix = "AL2023_"
)

// Taint is a node taint in Kubernetes spelling (Effect is NoSchedule,
// PreferNoSchedule or NoExecute).
type Taint struct {
	Key, Value, Effect string
}

// NodeGroup is one compiled node group (an ASG, possibly behind an EKS
// managed node group). Strings are not interned: the model interns them
// into its cluster's symbols.
type NodeGroup struct {
	// Name is the eksctl node group name; ASGName the Auto Scaling
	// group's name, which the priority expander's regexes match and
	// --nodes may name.
	Name    string
	ASGName string
	Managed bool
	// InstanceTypes in priority order; the first sizes the template (a
	// mixed-instances group is sized by its first type).
	InstanceTypes []string
	// Zones the ASG may launch in, sorted; the first is the template's
	// zone.
	Zones                             []string
	MinSize, MaxSize, DesiredCapacity int
	// OnDemandBase and OnDemandPercent split launches between on-demand
	// and spot as an ASG's instances distribution does: the first
	// OnDemandBase instances are on-demand, then OnDemandPercent percent
	// of the rest. An all-spot group has 0 and 0; an on-demand group 0
	// and 100.
	OnDemandBase    int
	OnDemandPercent int
	// SpotStrategy and OnDemandStrategy order a launch's offerings.
	SpotStrategy     cloud.Strategy
	OnDemandStrategy cloud.Strategy
	// CapacityRebalance launches a replacement when a spot instance gets
	// a rebalance recommendation (EKS turns it on for spot managed node
	// groups).
	CapacityRebalance bool
	// Labels and Taints are what the kubelet registers the node with
	// (the well-known labels are added by the model).
	Labels map[string]string
	Taints []Taint
	// Tags are the ASG's tags.
	Tags map[string]string
	// Kubelet changes node allocatable (maxPodsPerNode, volumeSize).
	Kubelet catalog.KubeletOptions
	// Template is what the Cluster Autoscaler believes a new node looks
	// like while the group has no Ready node to copy.
	Template Template

	// File, Line and Path locate the group in its document.
	File string
	Line int
	Path string
}

// Spot reports whether every instance of the group is spot.
func (g *NodeGroup) Spot() bool { return g.OnDemandBase == 0 && g.OnDemandPercent == 0 }

// Template is the node the Cluster Autoscaler's AWS provider builds from
// an ASG when the group has no node to copy (buildNodeFromTemplate):
// capacity from the first instance type's nominal vCPUs and memory, 110
// pods, GPUs; allocatable equal to capacity; labels: generic ones (arch,
// os, instance type, region, the ASG's first zone), the
// node-template/label tags, eks:<k> tags as <k>, and for managed node
// groups the labels EKS's DescribeNodegroup returns; taints: the
// node-template/taint tags of the form value:Effect and the managed node
// group's taints; resources tags override capacity.
type Template struct {
	InstanceType string
	Zone         string
	Labels       map[string]string
	Taints       []Taint
	// Capacity in Kubernetes names ("cpu", "memory", "pods",
	// "nvidia.com/gpu", ...), after the resources tags.
	Capacity map[string]resource.Quantity
}

// TagWarning is a tag the provider skips, and why.
type TagWarning struct {
	Tag, Msg string
	// Code names it (CodeTaintTag, CodeResourceTag).
	Code string
}

// BuildTemplate derives the template of a group from its instance type,
// zones, tags and (for managed groups) the EKS API's labels and taints.
// Warnings name tags the provider would skip.
func BuildTemplate(it *catalog.InstanceType, region string, zones []string, tags map[string]string, mngLabels map[string]string, mngTaints []Taint) (Template, []TagWarning) {
	var warns []TagWarning
	t := Template{InstanceType: it.Name, Labels: map[string]string{}, Capacity: map[string]resource.Quantity{}}
	if len(zones) > 0 {
		t.Zone = zones[0]
	}
	t.Capacity["cpu"] = *resource.NewQuantity(int64(it.VCPU), resource.DecimalSI)
	t.Capacity["memory"] = *resource.NewQuantity(it.MemoryMiB<<20, resource.BinarySI)
	t.Capacity["pods"] = *resource.NewQuantity(DefaultTemplatePods, resource.DecimalSI)
	for _, e := range it.Accelerators() { // nvidia.com/gpu, amd.com/gpu, Neuron, Gaudi
		t.Capacity[e.Name] = *resource.NewQuantity(e.Count, resource.DecimalSI)
	}
	t.Labels[LabelArch] = it.Arch
	t.Labels[LabelOS] = "linux"
	t.Labels[LabelInstanceType] = it.Name
	t.Labels[LabelRegion] = region
	t.Labels[LabelZone] = t.Zone
	t.Labels[LabelEBSCSIZone] = t.Zone
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		v := tags[k]
		switch {
		case strings.HasPrefix(k, TagPrefixLabel):
			if l := strings.TrimPrefix(k, TagPrefixLabel); l != "" {
				t.Labels[l] = v
			}
		case strings.HasPrefix(k, tagEKSPrefix):
			if l := strings.TrimPrefix(k, tagEKSPrefix); l != "" {
				t.Labels[l] = v
			}
		case strings.HasPrefix(k, TagPrefixTaint):
			key := strings.TrimPrefix(k, TagPrefixTaint)
			taint, ok := parseTaintTag(key, v)
			if !ok {
				warns = append(warns, TagWarning{k, fmt.Sprintf("tag %s=%q: the Cluster Autoscaler reads only taint tags whose value is <value>:<Effect> (NoSchedule, PreferNoSchedule or NoExecute), so it ignores this one", k, v), CodeTaintTag})
				continue
			}
			t.Taints = append(t.Taints, taint)
		case strings.HasPrefix(k, TagPrefixResources):
			name := strings.TrimPrefix(k, TagPrefixResources)
			q, err := resource.ParseQuantity(v)
			if name == "" || err != nil {
				warns = append(warns, TagWarning{k, fmt.Sprintf("tag %s=%q: not a resource quantity, so the Cluster Autoscaler ignores it", k, v), CodeResourceTag})
				continue
			}
			t.Capacity[name] = q
		}
	}
	for _, k := range slices.Sorted(maps.Keys(mngLabels)) {
		t.Labels[k] = mngLabels[k]
	}
	t.Taints = append(t.Taints, mngTaints...)
	return t, warns
}

// taintTagValue is the provider's test for a taint tag's value.
var taintTagValue = regexp.MustCompile(`(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)`)

func parseTaintTag(key, v string) (Taint, bool) {
	if key == "" || !taintTagValue.MatchString(v) {
		return Taint{}, false
	}
	value, effect, _ := strings.Cut(v, ":")
	switch effect {
	case "NoSchedule", "NoExecute", "PreferNoSchedule":
	default:
		return Taint{}, false
	}
	return Taint{Key: key, Value: value, Effect: effect}, true
}

// NormalizeEffect accepts the Kubernetes spelling of a taint effect and the
// EKS API's (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE) and returns the
// Kubernetes one.
func NormalizeEffect(e string) (string, bool) {
	switch e {
	case "NoSchedule", "NO_SCHEDULE":
		return "NoSchedule", true
	case "PreferNoSchedule", "PREFER_NO_SCHEDULE":
		return "PreferNoSchedule", true
	case "NoExecute", "NO_EXECUTE":
		return "NoExecute", true
	}
	return "", false
}

// asgName makes a stable ASG name in the shape AWS gives it: for a managed
// node group "eks-<name>-<uuid>", for an eksctl node group
// "eksctl-<cluster>-nodegroup-<name>-NodeGroup-<suffix>". The random parts
// are a hash of the cluster and group names, so runs are reproducible.
func asgName(cluster, name string, kind nodeGroupKind) string {
	h := fnv.New128a()
	h.Write([]byte(cluster + "\x00" + name))
	sum := h.Sum(nil)
	if kind == managedGroup {
		x := fmt.Sprintf("%x", sum)
		return fmt.Sprintf("eks-%s-%s-%s-%s-%s-%s", name, x[0:8], x[8:12], x[12:16], x[16:20], x[20:32])
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b strings.Builder
	for _, c := range sum[:12] {
		b.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return fmt.Sprintf("eksctl-%s-nodegroup-%s-NodeGroup-%s", cluster, name, b.String())
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
