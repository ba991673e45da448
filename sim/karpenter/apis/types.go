package apis

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The structs in this file mirror the upstream API types field for field
// (json names from sigs.k8s.io/karpenter and aws/karpenter-provider-aws at
// the versions named on each), so that the strict decoder of sim/manifest
// rejects anything the API server would not know. Fields that do not change
// where pods land (network, AMI, IAM, user data) are decoded and ignored.
// Durations are strings because "Never" is a valid value.

// Group/version strings.
const (
	GroupKarpenter = "karpenter.sh"
	GroupAWS       = "karpenter.k8s.aws"

	APIVersionV1         = "karpenter.sh/v1"
	APIVersionV1beta1    = "karpenter.sh/v1beta1"
	APIVersionV1alpha5   = "karpenter.sh/v1alpha5"
	APIVersionAWSV1      = "karpenter.k8s.aws/v1"
	APIVersionAWSV1beta1 = "karpenter.k8s.aws/v1beta1"
	APIVersionAWSV1alpha = "karpenter.k8s.aws/v1alpha1"
)

// Kinds this package reads.
const (
	KindNodePool        = "NodePool"
	KindProvisioner     = "Provisioner"
	KindEC2NodeClass    = "EC2NodeClass"
	KindAWSNodeTemplate = "AWSNodeTemplate"
)

// --- karpenter.sh/v1 (KC pkg/apis/v1, v1.14) ---

type nodePoolV1 struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       nodePoolSpecV1    `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

type nodePoolSpecV1 struct {
	Template   nodeClaimTemplateV1          `json:"template"`
	Disruption *disruptionV1                `json:"disruption,omitempty"`
	Limits     map[string]resource.Quantity `json:"limits,omitempty"`
	Weight     *int32                       `json:"weight,omitempty"`
	// Replicas makes a static NodePool (alpha since v1.8, feature gate
	// StaticCapacity): that many nodes whatever the pods.
	Replicas *int64 `json:"replicas,omitempty"`
}

type disruptionV1 struct {
	ConsolidateAfter    *string    `json:"consolidateAfter,omitempty"`
	ConsolidationPolicy string     `json:"consolidationPolicy,omitempty"`
	Budgets             []budgetV1 `json:"budgets,omitempty"`
}

type budgetV1 struct {
	Reasons  []string `json:"reasons,omitempty"`
	Nodes    string   `json:"nodes"`
	Schedule *string  `json:"schedule,omitempty"`
	Duration *string  `json:"duration,omitempty"`
}

type templateMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type nodeClaimTemplateV1 struct {
	Metadata templateMeta            `json:"metadata,omitempty"`
	Spec     nodeClaimTemplateSpecV1 `json:"spec"`
}

type nodeClaimTemplateSpecV1 struct {
	Taints                 []taint         `json:"taints,omitempty"`
	StartupTaints          []taint         `json:"startupTaints,omitempty"`
	Requirements           []requirement   `json:"requirements"`
	NodeClassRef           *nodeClassRefV1 `json:"nodeClassRef"`
	TerminationGracePeriod *string         `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            *string         `json:"expireAfter,omitempty"`
}

type nodeClassRefV1 struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// taint is corev1.Taint with the effect kept as written, so that the
// eksctl spelling NO_SCHEDULE gets its own message.
type taint struct {
	Key       string       `json:"key"`
	Value     string       `json:"value,omitempty"`
	Effect    string       `json:"effect"`
	TimeAdded *metav1.Time `json:"timeAdded,omitempty"`
}

// requirement is NodeSelectorRequirementWithMinValues; the operator is a
// string because v1 adds Gte and Lte.
type requirement struct {
	Key       string   `json:"key"`
	Operator  string   `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues *int     `json:"minValues,omitempty"`
}

// --- karpenter.k8s.aws/v1 EC2NodeClass (KA pkg/apis/v1, v1.14) ---

type ec2NodeClassV1 struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       ec2NodeClassSpec  `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

// ec2NodeClassSpec covers v1 and v1beta1 (v1beta1 lacks a few fields and has
// kubelet in the NodePool; the compiler refuses v1-only fields in v1beta1
// documents).
type ec2NodeClassSpec struct {
	SubnetSelectorTerms              []selectorTerm        `json:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms       []selectorTerm        `json:"securityGroupSelectorTerms,omitempty"`
	CapacityReservationSelectorTerms []reservationTermSpec `json:"capacityReservationSelectorTerms,omitempty"`
	PlacementGroupSelector           json.RawMessage       `json:"placementGroupSelector,omitempty"`
	AssociatePublicIPAddress         *bool                 `json:"associatePublicIPAddress,omitempty"`
	IPPrefixCount                    *int32                `json:"ipPrefixCount,omitempty"`
	AMISelectorTerms                 []amiSelectorTerm     `json:"amiSelectorTerms,omitempty"`
	AMIFamily                        *string               `json:"amiFamily,omitempty"`
	UserData                         *string               `json:"userData,omitempty"`
	Role                             string                `json:"role,omitempty"`
	InstanceProfile                  *string               `json:"instanceProfile,omitempty"`
	Tags                             map[string]string     `json:"tags,omitempty"`
	Kubelet                          *kubeletConfig        `json:"kubelet,omitempty"`
	BlockDeviceMappings              []blockDeviceMapping  `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy              *string               `json:"instanceStorePolicy,omitempty"`
	NetworkInterfaces                []json.RawMessage     `json:"networkInterfaces,omitempty"`
	DetailedMonitoring               *bool                 `json:"detailedMonitoring,omitempty"`
	MetadataOptions                  *metadataOptions      `json:"metadataOptions,omitempty"`
	ConnectionTracking               json.RawMessage       `json:"connectionTracking,omitempty"`
	Context                          *string               `json:"context,omitempty"`
	CPUOptions                       json.RawMessage       `json:"cpuOptions,omitempty"`
}

type selectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
}

type amiSelectorTerm struct {
	Alias        string            `json:"alias,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Owner        string            `json:"owner,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty"`
}

type metadataOptions struct {
	HTTPEndpoint            *string `json:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        *string `json:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64  `json:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              *string `json:"httpTokens,omitempty"`
}

type blockDeviceMapping struct {
	DeviceName *string      `json:"deviceName,omitempty"`
	EBS        *blockDevice `json:"ebs,omitempty"`
	RootVolume bool         `json:"rootVolume,omitempty"`
}

type blockDevice struct {
	DeleteOnTermination      *bool              `json:"deleteOnTermination,omitempty"`
	Encrypted                *bool              `json:"encrypted,omitempty"`
	IOPS                     *int64             `json:"iops,omitempty"`
	KMSKeyID                 *string            `json:"kmsKeyID,omitempty"`
	SnapshotID               *string            `json:"snapshotID,omitempty"`
	Throughput               *int64             `json:"throughput,omitempty"`
	VolumeInitializationRate *int32             `json:"volumeInitializationRate,omitempty"`
	VolumeSize               *resource.Quantity `json:"volumeSize,omitempty"`
	VolumeType               *string            `json:"volumeType,omitempty"`
}

// kubeletConfig is the KubeletConfiguration of v1alpha5, v1beta1 and the v1
// EC2NodeClass (identical field names; v1alpha5 types the reserved maps as
// resource lists, which decode the same from YAML).
type kubeletConfig struct {
	ClusterDNS                  []string                   `json:"clusterDNS,omitempty"`
	ContainerRuntime            *string                    `json:"containerRuntime,omitempty"`
	MaxPods                     *int32                     `json:"maxPods,omitempty"`
	PodsPerCore                 *int32                     `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string          `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string          `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string          `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string          `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32                     `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32                     `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32                     `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool                      `json:"cpuCFSQuota,omitempty"`
}

// --- karpenter.sh/v1beta1 NodePool (KC pkg/apis/v1beta1, v0.37) ---

type nodePoolV1beta1 struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Metadata   metav1.ObjectMeta   `json:"metadata"`
	Spec       nodePoolSpecV1beta1 `json:"spec"`
	Status     json.RawMessage     `json:"status,omitempty"`
}

type nodePoolSpecV1beta1 struct {
	Template   nodeClaimTemplateV1beta1     `json:"template"`
	Disruption *disruptionV1beta1           `json:"disruption,omitempty"`
	Limits     map[string]resource.Quantity `json:"limits,omitempty"`
	Weight     *int32                       `json:"weight,omitempty"`
}

type disruptionV1beta1 struct {
	ConsolidateAfter    *string         `json:"consolidateAfter,omitempty"`
	ConsolidationPolicy string          `json:"consolidationPolicy,omitempty"`
	ExpireAfter         *string         `json:"expireAfter,omitempty"`
	Budgets             []budgetV1beta1 `json:"budgets,omitempty"`
}

type budgetV1beta1 struct {
	Nodes    string  `json:"nodes"`
	Schedule *string `json:"schedule,omitempty"`
	Duration *string `json:"duration,omitempty"`
}

type nodeClaimTemplateV1beta1 struct {
	Metadata templateMeta                 `json:"metadata,omitempty"`
	Spec     nodeClaimTemplateSpecV1beta1 `json:"spec"`
}

type nodeClaimTemplateSpecV1beta1 struct {
	Taints        []taint          `json:"taints,omitempty"`
	StartupTaints []taint          `json:"startupTaints,omitempty"`
	Requirements  []requirement    `json:"requirements"`
	Resources     json.RawMessage  `json:"resources,omitempty"`
	Kubelet       *kubeletConfig   `json:"kubelet,omitempty"`
	NodeClassRef  *nodeClassRefOld `json:"nodeClassRef,omitempty"`
}

// nodeClassRefOld is the v1beta1 NodeClassReference and the v1alpha5
// providerRef (MachineTemplateRef): same fields.
type nodeClassRefOld struct {
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// --- karpenter.sh/v1alpha5 Provisioner (KC pkg/apis/v1alpha5, v0.31) ---

// provisioner is the v1alpha5 Provisioner, widened with the NodePool fields
// that mixed manifests (such as the seed thread's "v1beta1 Provisioner")
// put at spec level, so that each can be read and warned about instead of
// failing as unknown.
type provisioner struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       provisionerSpec   `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

type provisionerSpec struct {
	Annotations            map[string]string  `json:"annotations,omitempty"`
	Labels                 map[string]string  `json:"labels,omitempty"`
	Taints                 []taint            `json:"taints,omitempty"`
	StartupTaints          []taint            `json:"startupTaints,omitempty"`
	Requirements           []requirement      `json:"requirements,omitempty"`
	KubeletConfiguration   *kubeletConfig     `json:"kubeletConfiguration,omitempty"`
	Provider               json.RawMessage    `json:"provider,omitempty"`
	ProviderRef            *nodeClassRefOld   `json:"providerRef,omitempty"`
	TTLSecondsAfterEmpty   *int64             `json:"ttlSecondsAfterEmpty,omitempty"`
	TTLSecondsUntilExpired *int64             `json:"ttlSecondsUntilExpired,omitempty"`
	Limits                 *provisionerLimits `json:"limits,omitempty"`
	Weight                 *int32             `json:"weight,omitempty"`
	Consolidation          *consolidation     `json:"consolidation,omitempty"`

	// Not Provisioner fields: NodePool fields written at spec level by
	// mixed manifests. Each is read with a warning.
	ConsolidationPolicy *string            `json:"consolidationPolicy,omitempty"`
	ConsolidateAfter    *string            `json:"consolidateAfter,omitempty"`
	ExpireAfter         *string            `json:"expireAfter,omitempty"`
	Disruption          *disruptionV1beta1 `json:"disruption,omitempty"`
	NodeClassRef        *nodeClassRefOld   `json:"nodeClassRef,omitempty"`
	Kubelet             *kubeletConfig     `json:"kubelet,omitempty"`
	Drift               json.RawMessage    `json:"drift,omitempty"`
}

type provisionerLimits struct {
	Resources map[string]resource.Quantity `json:"resources,omitempty"`
}

type consolidation struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// --- karpenter.k8s.aws/v1alpha1 AWSNodeTemplate (KA pkg/apis/v1alpha1, v0.31) ---

type awsNodeTemplate struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Metadata   metav1.ObjectMeta   `json:"metadata"`
	Spec       awsNodeTemplateSpec `json:"spec"`
	Status     json.RawMessage     `json:"status,omitempty"`
}

type awsNodeTemplateSpec struct {
	UserData              *string              `json:"userData,omitempty"`
	AMIFamily             *string              `json:"amiFamily,omitempty"`
	Context               *string              `json:"context,omitempty"`
	InstanceProfile       *string              `json:"instanceProfile,omitempty"`
	SubnetSelector        map[string]string    `json:"subnetSelector,omitempty"`
	SecurityGroupSelector map[string]string    `json:"securityGroupSelector,omitempty"`
	Tags                  map[string]string    `json:"tags,omitempty"`
	LaunchTemplateName    *string              `json:"launchTemplate,omitempty"`
	MetadataOptions       *metadataOptions     `json:"metadataOptions,omitempty"`
	BlockDeviceMappings   []blockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	AMISelector           map[string]string    `json:"amiSelector,omitempty"`
	DetailedMonitoring    *bool                `json:"detailedMonitoring,omitempty"`
}
