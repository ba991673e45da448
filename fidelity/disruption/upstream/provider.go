package upstream

import (
	"context"
	"sort"
	"time"

	opstatus "github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	disruptionfidelity "github.com/clustersim/clustersim/fidelity/disruption"
)

// awsLabels are the keys the AWS provider registers as well known at
// start-up (KA pkg/apis/v1/labels.go init), so that requirements on them
// are treated as upstream's AWS build treats them.
var awsLabels = []string{
	"karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/capacity-reservation-type",
	"karpenter.k8s.aws/capacity-reservation-interruptible", "karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported", "karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-capability-flex", "karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-local-nvme", "karpenter.k8s.aws/instance-cpu",
	"karpenter.k8s.aws/instance-cpu-manufacturer", "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
	"karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-ebs-bandwidth",
	"karpenter.k8s.aws/instance-network-bandwidth", "karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-count",
	"karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-accelerator-manufacturer", "karpenter.k8s.aws/instance-accelerator-count",
	"topology.k8s.aws/zone-id", "karpenter.k8s.aws/instance-tenancy",
	"karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition",
}

// optionalTypeKeys are the keys KA's computeRequirements defines for every
// instance type and leaves DoesNotExist when they do not apply (GPUs,
// accelerators, local NVMe).
var optionalTypeKeys = []string{
	"karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-memory",
	"karpenter.k8s.aws/instance-accelerator-name", "karpenter.k8s.aws/instance-accelerator-manufacturer",
	"karpenter.k8s.aws/instance-accelerator-count", "karpenter.k8s.aws/instance-local-nvme",
}

// ec2NodeClassGVK is the node class every case's NodePools and NodeClaims
// refer to.
var ec2NodeClassGVK = schema.GroupVersionKind{Group: "karpenter.k8s.aws", Version: "v1", Kind: "EC2NodeClass"}

// ec2NodeClass stands in for KA's EC2NodeClass type: upstream's
// IsManaged/ListManaged filter NodePools and NodeClaims by the GroupKind
// of the provider's GetSupportedNodeClasses (resolved through client-go's
// global scheme), so the provider must name karpenter.k8s.aws/EC2NodeClass
// for the case's objects to count as managed. We wrap the fake provider
// with it rather than rewriting the objects' nodeClassRef, so that states
// read back from a dump load unchanged. No controller we run reads the
// node class object itself.
type ec2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            struct {
		Conditions []opstatus.Condition `json:"conditions,omitempty"`
	} `json:"status,omitempty"`
}

func (in *ec2NodeClass) DeepCopyObject() runtime.Object {
	out := &ec2NodeClass{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = append([]opstatus.Condition(nil), in.Status.Conditions...)
	return out
}

func (in *ec2NodeClass) GetConditions() []opstatus.Condition  { return in.Status.Conditions }
func (in *ec2NodeClass) SetConditions(c []opstatus.Condition) { in.Status.Conditions = c }
func (in *ec2NodeClass) StatusConditions(opts ...opstatus.ForOption) opstatus.ConditionSet {
	return opstatus.NewReadyConditions().For(in, opts...)
}

func registerNodeClass() {
	// Registration is global and idempotent; skip it if a real
	// EC2NodeClass type is already known (KA linked into the binary).
	if !scheme.Scheme.Recognizes(ec2NodeClassGVK) {
		scheme.Scheme.AddKnownTypeWithName(ec2NodeClassGVK, &ec2NodeClass{})
	}
}

// provider is upstream's fake cloud provider with the case's instance
// types, KA's supported node class, and KA's static node class drift.
type provider struct {
	*fake.CloudProvider
	nodeClassHash string
}

func newProvider(c *disruptionfidelity.Case) *provider {
	cp := fake.NewCloudProvider()
	cp.Reset()
	// Every pool gets the whole list, as KA's GetInstanceTypes returns
	// every type of the node class and the scheduler filters by pool.
	cp.InstanceTypes = instanceTypes(c.Types)
	return &provider{CloudProvider: cp, nodeClassHash: c.NodeClassHash}
}

func (p *provider) GetSupportedNodeClasses() []opstatus.Object {
	return []opstatus.Object{&ec2NodeClass{}}
}

// IsDrifted is KA's areStaticFieldsDrifted: the NodeClaim's
// ec2nodeclass-hash differs from the node class's while the hash versions
// agree. KA's AMI, subnet, security group and capacity reservation drift
// are not modelled (the cases do not change them).
func (p *provider) IsDrifted(_ context.Context, nc *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	hash, okHash := nc.Annotations[disruptionfidelity.NodeClassHashKey]
	version, okVersion := nc.Annotations[disruptionfidelity.NodeClassHashVersionKey]
	if !okHash || !okVersion || p.nodeClassHash == "" || version != disruptionfidelity.NodeClassHashVersion {
		return "", nil
	}
	if hash != p.nodeClassHash {
		return "NodeClassDrift", nil
	}
	return "", nil
}

// instanceTypes builds upstream InstanceTypes from our sizing, as KA's
// NewInstanceType would: requirements from the type's labels, zone and
// capacity type from its offerings, DoesNotExist for the AWS keys it
// lacks; Overhead = capacity - allocatable (as KubeReserved) so that
// upstream's allocatable equals ours.
func instanceTypes(types []disruptionfidelity.InstanceType) []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, t := range types {
		out = append(out, instanceType(t))
	}
	return out
}

func instanceType(t disruptionfidelity.InstanceType) *cloudprovider.InstanceType {
	var zones, cts []string
	var offs cloudprovider.Offerings
	for _, o := range t.Offerings {
		zones = append(zones, o.Zone)
		cts = append(cts, o.CapacityType)
		offs = append(offs, &cloudprovider.Offering{
			Requirements: scheduling.NewRequirements(
				scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, o.CapacityType),
				scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, o.Zone)),
			Price:     o.Price,
			Available: true,
		})
	}
	reqs := scheduling.NewRequirements(
		scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
		scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...),
		scheduling.NewRequirement(corev1.LabelWindowsBuild, corev1.NodeSelectorOpDoesNotExist),
	)
	keys := make([]string, 0, len(t.Labels))
	for k := range t.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == corev1.LabelTopologyZone || k == karpv1.CapacityTypeLabelKey {
			continue
		}
		reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpIn, t.Labels[k]))
	}
	if _, ok := t.Labels[corev1.LabelInstanceTypeStable]; !ok {
		reqs.Add(scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, t.Name))
	}
	if _, ok := t.Labels[corev1.LabelTopologyRegion]; !ok {
		reqs.Add(scheduling.NewRequirement(corev1.LabelTopologyRegion, corev1.NodeSelectorOpIn, disruptionfidelity.Region))
	}
	for _, k := range optionalTypeKeys {
		if _, ok := t.Labels[k]; !ok {
			reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	capacity := t.Capacity.DeepCopy()
	overhead := corev1.ResourceList{}
	for name, q := range capacity {
		a, ok := t.Allocatable[name]
		if !ok {
			continue
		}
		d := q.DeepCopy()
		d.Sub(a)
		overhead[name] = d
	}
	return &cloudprovider.InstanceType{
		Name: t.Name, Requirements: reqs, Offerings: offs, Capacity: capacity,
		Overhead: &cloudprovider.InstanceTypeOverhead{KubeReserved: overhead, SystemReserved: corev1.ResourceList{}, EvictionThreshold: corev1.ResourceList{}},
	}
}

// RepairPolicies are the AWS provider's (KA pkg/cloudprovider
// cloudprovider.go RepairPolicies: Ready False or Unknown 30 min,
// AcceleratedHardwareReady False 10 min, the node monitoring agent's
// StorageReady, NetworkingReady, KernelReady, ContainerRuntimeReady False
// 30 min; all replace the node, no drain bound, one priority) in v1.15's
// form, which wants exactly one default fallback (no reason regex): Ready
// False is that, the others match any reason.
func (p *provider) RepairPolicies() []cloudprovider.RepairPolicy {
	pol := func(t corev1.NodeConditionType, s corev1.ConditionStatus, regex string, tol time.Duration) cloudprovider.RepairPolicy {
		return cloudprovider.RepairPolicy{ConditionType: t, ConditionStatus: s, ReasonRegex: regex, TolerationDuration: tol, Action: cloudprovider.ReplaceNode}
	}
	return []cloudprovider.RepairPolicy{
		pol(corev1.NodeReady, corev1.ConditionFalse, "", 30*time.Minute),
		pol(corev1.NodeReady, corev1.ConditionUnknown, ".*", 30*time.Minute),
		pol("AcceleratedHardwareReady", corev1.ConditionFalse, ".*", 10*time.Minute),
		pol("StorageReady", corev1.ConditionFalse, ".*", 30*time.Minute),
		pol("NetworkingReady", corev1.ConditionFalse, ".*", 30*time.Minute),
		pol("KernelReady", corev1.ConditionFalse, ".*", 30*time.Minute),
		pol("ContainerRuntimeReady", corev1.ConditionFalse, ".*", 30*time.Minute),
	}
}
