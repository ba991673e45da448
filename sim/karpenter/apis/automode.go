package apis

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/manifest"
)

// EKS Auto Mode: AWS runs a Karpenter of its own for the cluster, with
// its own node class (eks.amazonaws.com/v1 NodeClass), its own instance
// labels (eks.amazonaws.com/instance-*) and two built-in NodePools.
// Sources: the EKS user guide (github.com/awsdocs/amazon-eks-user-guide,
// latest/ug/automode): create-node-class.adoc ("Create a Node Class for
// Amazon EKS"), create-node-pool.adoc ("Create a Node Pool for EKS Auto
// Mode", its supported and unsupported labels, the defaults 336h,
// 10%, terminationGracePeriod 24h), set-builtin-node-pools.adoc ("Enable
// or Disable Built-in NodePools"), automode-learn-instances.adoc (NVMe
// instance stores as RAID0).

// Group, version and kind of Auto Mode's node class.
const (
	GroupEKS        = "eks.amazonaws.com"
	APIVersionEKSV1 = "eks.amazonaws.com/v1"
	KindNodeClass   = "NodeClass"
)

// Auto Mode's built-in NodePools and node class.
const (
	BuiltinGeneralPurpose = "general-purpose"
	BuiltinSystem         = "system"
	// BuiltinNodeClass is the NodeClass EKS creates when a built-in pool
	// is enabled.
	BuiltinNodeClass = "default"
	// BuiltinFile is the file name warnings about built-in objects carry.
	BuiltinFile = "eks-auto-mode-built-in.yaml"
)

// Auto Mode's node defaults.
const (
	// LabelComputeType is on every Auto Mode node with the value auto.
	LabelComputeType = "eks.amazonaws.com/compute-type"
	// AutoModeMaxPods caps a node's pods after the ENI-based count
	// ("EKS limits the maximum number of pods on a node to 110").
	AutoModeMaxPods = 110
	// AutoModeEphemeralGiB is ephemeralStorage.size's default (80Gi).
	AutoModeEphemeralGiB = 80
	// AutoModeExpireAfter and AutoModeTerminationGracePeriod are what
	// EKS applies to a NodePool of its NodeClass that sets none.
	AutoModeExpireAfter            = 336 * time.Hour
	AutoModeTerminationGracePeriod = 24 * time.Hour
	// AutoModeConsolidateAfter is the built-in pools' consolidateAfter.
	AutoModeConsolidateAfter = "30s"
)

// AutoModeLabels maps every eks.amazonaws.com instance label Auto Mode
// supports (create-node-pool.adoc, "EKS Auto Mode Supported Labels") to
// the karpenter.k8s.aws label of the same values: a requirement on one
// narrows instance types as its counterpart does, and Auto Mode nodes
// carry the eks.amazonaws.com key instead of the karpenter.k8s.aws one.
var AutoModeLabels = map[string]string{
	"eks.amazonaws.com/instance-hypervisor":                      "karpenter.k8s.aws/instance-hypervisor",
	"eks.amazonaws.com/instance-encryption-in-transit-supported": "karpenter.k8s.aws/instance-encryption-in-transit-supported",
	"eks.amazonaws.com/instance-category":                        LabelInstanceCategory,
	"eks.amazonaws.com/instance-generation":                      LabelInstanceGen,
	"eks.amazonaws.com/instance-family":                          LabelInstanceFamily,
	"eks.amazonaws.com/instance-size":                            LabelInstanceSize,
	"eks.amazonaws.com/instance-cpu":                             LabelInstanceCPU,
	"eks.amazonaws.com/instance-cpu-manufacturer":                "karpenter.k8s.aws/instance-cpu-manufacturer",
	"eks.amazonaws.com/instance-memory":                          LabelInstanceMemory,
	"eks.amazonaws.com/instance-ebs-bandwidth":                   "karpenter.k8s.aws/instance-ebs-bandwidth",
	"eks.amazonaws.com/instance-network-bandwidth":               "karpenter.k8s.aws/instance-network-bandwidth",
	"eks.amazonaws.com/instance-gpu-name":                        "karpenter.k8s.aws/instance-gpu-name",
	"eks.amazonaws.com/instance-gpu-manufacturer":                "karpenter.k8s.aws/instance-gpu-manufacturer",
	"eks.amazonaws.com/instance-gpu-count":                       LabelInstanceGPUCount,
	"eks.amazonaws.com/instance-gpu-memory":                      "karpenter.k8s.aws/instance-gpu-memory",
	"eks.amazonaws.com/instance-local-nvme":                      "karpenter.k8s.aws/instance-local-nvme",
}

// AutoModeNodeLabel is the key an Auto Mode node carries for the
// karpenter.k8s.aws label key: its eks.amazonaws.com counterpart, "" when
// Auto Mode has none (the node lacks it); other keys are kept.
func AutoModeNodeLabel(key string) string {
	if !strings.HasPrefix(key, GroupAWS+"/") {
		return key
	}
	for _, eks := range slices.Sorted(maps.Keys(AutoModeLabels)) {
		if AutoModeLabels[eks] == key {
			return eks
		}
	}
	return ""
}

// autoModeEKSLabel is the eks.amazonaws.com key for a karpenter.k8s.aws
// one, "" when Auto Mode has none.
func autoModeEKSLabel(key string) string {
	if k := AutoModeNodeLabel(key); k != key {
		return k
	}
	return ""
}

// Codes of Auto Mode's findings.
const (
	// CodeAutoModeFee: Auto Mode's management fee is not in the prices.
	CodeAutoModeFee = "karpenter.auto-mode-fee"
	// CodeAutoModeField: a NodeClass field that is accepted and not
	// modelled.
	CodeAutoModeField = "karpenter.auto-mode-field"
	// CodeAutoModeLabel: a requirement on a label Auto Mode does not
	// support.
	CodeAutoModeLabel = "ineffective.auto-mode-label"
	// CodeAutoModeStorage: a StorageClass of the self-managed EBS CSI
	// driver in a cluster of Auto Mode nodes only.
	CodeAutoModeStorage = "ineffective.auto-mode-storage"
)

// AutoMode says that EKS Auto Mode is on and which built-in NodePools
// are enabled (Env.AutoMode).
type AutoMode struct {
	// NodePools are the enabled built-in pools (general-purpose, system);
	// none: Auto Mode runs only the users' NodePools of its NodeClasses.
	NodePools []string
	// Doc and Path say where Auto Mode was turned on (an eksctl
	// ClusterConfig's autoModeConfig, the Scenario's spec.karpenter.autoMode).
	Doc  *manifest.Document
	Path string
}

// --- eks.amazonaws.com/v1 NodeClass (create-node-class.adoc) ---

type eksNodeClass struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       eksNodeClassSpec  `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

type eksNodeClassSpec struct {
	Role                             string                `json:"role,omitempty"`
	SubnetSelectorTerms              []selectorTerm        `json:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms       []selectorTerm        `json:"securityGroupSelectorTerms,omitempty"`
	PodSubnetSelectorTerms           []selectorTerm        `json:"podSubnetSelectorTerms,omitempty"`
	PodSecurityGroupSelectorTerms    []selectorTerm        `json:"podSecurityGroupSelectorTerms,omitempty"`
	CapacityReservationSelectorTerms []reservationTermSpec `json:"capacityReservationSelectorTerms,omitempty"`
	SNATPolicy                       *string               `json:"snatPolicy,omitempty"`
	NetworkPolicy                    *string               `json:"networkPolicy,omitempty"`
	NetworkPolicyEventLogs           *string               `json:"networkPolicyEventLogs,omitempty"`
	EphemeralStorage                 *eksEphemeral         `json:"ephemeralStorage,omitempty"`
	AdvancedNetworking               json.RawMessage       `json:"advancedNetworking,omitempty"`
	AdvancedSecurity                 json.RawMessage       `json:"advancedSecurity,omitempty"`
	CertificateBundles               json.RawMessage       `json:"certificateBundles,omitempty"`
	Tags                             map[string]string     `json:"tags,omitempty"`
}

type eksEphemeral struct {
	Size       *resource.Quantity `json:"size,omitempty"`
	IOPS       *int64             `json:"iops,omitempty"`
	Throughput *int64             `json:"throughput,omitempty"`
	KMSKeyID   *string            `json:"kmsKeyID,omitempty"`
}

// restrictedNodeClassTags are the tags a NodeClass may not set.
var restrictedNodeClassTags = []string{"karpenter.sh/provisioner-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.sh/managed-by", "eks.amazonaws.com/nodeclass"}

func (c *compiler) eksNodeClass(d *manifest.Document) {
	if d.APIVersion != APIVersionEKSV1 {
		c.fail(d, "apiVersion", "use apiVersion: "+APIVersionEKSV1, "NodeClass (EKS Auto Mode) is served as %s, not %q", APIVersionEKSV1, d.APIVersion)
		return
	}
	obj, ok := decode[eksNodeClass](c, d)
	if !ok || !c.named(d, obj.Metadata.Name, "name the NodeClass; NodePools refer to it by name") {
		return
	}
	if obj.Metadata.Name == BuiltinNodeClass && d.File != BuiltinFile && c.env.AutoMode != nil && len(c.env.AutoMode.NodePools) > 0 {
		c.warn(d, "metadata.name", "EKS owns the NodeClass named default while a built-in NodePool is enabled and puts its own settings back: this one is ignored, the built-in default is simulated (give yours another name, as the EKS user guide says)")
		return
	}
	s := &obj.Spec
	// Auto Mode nodes run Bottlerocket (AWS chooses the image); NVMe
	// instance stores are formatted as RAID0 and hold ephemeral storage.
	def := autoModeDefaults(obj.Metadata.Name)
	nc := &def
	nc.File, nc.Line = d.File, d.Line
	if e := s.EphemeralStorage; e != nil {
		if q := e.Size; q != nil {
			// Range 1-59000Gi (1-64000G, 1-58Ti, 1-64T).
			if q.Cmp(resource.MustParse("1Gi")) < 0 && q.Cmp(resource.MustParse("1G")) < 0 || q.Cmp(resource.MustParse("64000G")) > 0 {
				c.fail(d, "spec.ephemeralStorage.size", "give a size from 1Gi to 59000Gi, e.g. 80Gi", "size %s is out of range", q.String())
			} else {
				nc.RootVolumeGiB = max((q.Value()+catalog.GiB-1)/catalog.GiB, 1)
			}
		}
		if e.IOPS != nil && (*e.IOPS < 3000 || *e.IOPS > 16000) {
			c.fail(d, "spec.ephemeralStorage.iops", "give 3000 to 16000", "iops %d is out of range", *e.IOPS)
		}
		if e.Throughput != nil && (*e.Throughput < 125 || *e.Throughput > 1000) {
			c.fail(d, "spec.ephemeralStorage.throughput", "give 125 to 1000 (MiB/s)", "throughput %d is out of range", *e.Throughput)
		}
	}
	for _, f := range []struct {
		path string
		v    *string
		ok   []string
	}{{"spec.snatPolicy", s.SNATPolicy, []string{"Random", "Disabled"}},
		{"spec.networkPolicy", s.NetworkPolicy, []string{"DefaultAllow", "DefaultDeny"}},
		{"spec.networkPolicyEventLogs", s.NetworkPolicyEventLogs, []string{"Disabled", "Enabled"}}} {
		if f.v != nil && !slices.Contains(f.ok, *f.v) {
			c.fail(d, f.path, "use "+strings.Join(f.ok, " or "), "%q is not one of %s", *f.v, strings.Join(f.ok, ", "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		if slices.Contains(restrictedNodeClassTags, k) || strings.HasPrefix(k, "kubernetes.io/cluster/") {
			c.fail(d, fmt.Sprintf("spec.tags[%q]", k), "remove it: EKS sets it itself", "tag %s is restricted", k)
		}
	}
	if (len(s.PodSubnetSelectorTerms) > 0) != (len(s.PodSecurityGroupSelectorTerms) > 0) {
		c.fail(d, "spec", "set podSubnetSelectorTerms and podSecurityGroupSelectorTerms together", "podSubnetSelectorTerms and podSecurityGroupSelectorTerms go together")
	}
	if s.NetworkPolicy != nil && *s.NetworkPolicy == "DefaultDeny" {
		c.warnc(d, CodeAutoModeField, "", "spec.networkPolicy", "network policies are not simulated: DefaultDeny changes no pod's placement here")
	}
	if len(s.CapacityReservationSelectorTerms) > 0 {
		// The EKS NodeClass selects reservations as the EC2NodeClass does
		// (EKS user guide, Create a Node Class: capacityReservationSelectorTerms).
		nc.ReservationTerms = c.reservationTerms(d, "spec.capacityReservationSelectorTerms", s.CapacityReservationSelectorTerms)
	}
	nc.Hash = hashJSON(struct {
		E *eksEphemeral
		R string
		S []selectorTerm
		G []selectorTerm
		T map[string]string
	}{s.EphemeralStorage, s.Role, s.SubnetSelectorTerms, s.SecurityGroupSelectorTerms, s.Tags})
	c.addClass(d, nc)
}

// autoModeDefaults is an Auto Mode NodeClass with every default.
func autoModeDefaults(name string) NodeClass {
	return NodeClass{Name: name, Kind: KindNodeClass, Group: GroupEKS, AMIFamily: AMIFamilyBottlerocket,
		RootVolumeGiB: AutoModeEphemeralGiB, InstanceStoreRAID0: true, AutoMode: true}
}

// autoModeRequirementKey checks a requirement key in a NodePool of an
// Auto Mode NodeClass and returns the key the requirement narrows by
// (the karpenter.k8s.aws counterpart of an eks.amazonaws.com label), ""
// after an error.
func (c *compiler) autoModeRequirementKey(d *manifest.Document, path, key string) string {
	if k, ok := AutoModeLabels[key]; ok {
		return k
	}
	switch {
	case strings.HasPrefix(key, GroupAWS+"/"):
		hint := "Auto Mode has no counterpart of it: remove it"
		if eks := autoModeEKSLabel(key); eks != "" {
			hint = "write " + eks
		}
		c.failc(d, CodeAutoModeLabel, path, hint, "EKS Auto Mode's instance types have no %s label (Auto Mode labels instances eks.amazonaws.com/...): this requirement would narrow nothing", key)
		return ""
	case key == LabelOS || key == LabelWindowsBuild:
		c.warnc(d, CodeAutoModeLabel, "remove it", path, "EKS Auto Mode lists %s among the labels it does not support (it runs Linux nodes only)", key)
	}
	return key
}

// nonAutoModeKey warns about an eks.amazonaws.com instance label in a
// NodePool of an EC2NodeClass: self-managed Karpenter's instance types
// do not have it.
func (c *compiler) nonAutoModeKey(d *manifest.Document, path, key string) bool {
	k, ok := AutoModeLabels[key]
	if !ok {
		return false
	}
	fix := "write " + k + " (eks.amazonaws.com labels are EKS Auto Mode's, for NodePools of an eks.amazonaws.com NodeClass)"
	c.warnc(d, CodeUnknownLabel, fix, path, "requirement key %s is an EKS Auto Mode label: self-managed Karpenter's instance types do not have it, so it does not narrow them and Karpenter only puts it on the node (%s)", key, fix)
	return true
}

// builtinManifests are the built-in NodePools and their default
// NodeClass as EKS creates them (set-builtin-node-pools.adoc: on-demand
// only, categories c, m and r, generation 5 or newer, general-purpose
// amd64, system amd64 and arm64 with the CriticalAddonsOnly taint; the
// rest as `kubectl get nodepool -o yaml` shows them on an Auto Mode
// cluster: consolidateAfter 30s, expireAfter 336h,
// terminationGracePeriod 24h, the 10% budget).
const builtinManifests = `apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: default
spec:
  ephemeralStorage:
    size: 80Gi
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general-purpose
spec:
  disruption:
    budgets:
    - nodes: 10%
    consolidateAfter: 30s
    consolidationPolicy: WhenEmptyOrUnderutilized
  template:
    spec:
      expireAfter: 336h
      nodeClassRef:
        group: eks.amazonaws.com
        kind: NodeClass
        name: default
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["on-demand"]
      - key: eks.amazonaws.com/instance-category
        operator: In
        values: ["c", "m", "r"]
      - key: eks.amazonaws.com/instance-generation
        operator: Gt
        values: ["4"]
      - key: kubernetes.io/arch
        operator: In
        values: ["amd64"]
      terminationGracePeriod: 24h0m0s
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: system
spec:
  disruption:
    budgets:
    - nodes: 10%
    consolidateAfter: 30s
    consolidationPolicy: WhenEmptyOrUnderutilized
  template:
    spec:
      expireAfter: 336h
      nodeClassRef:
        group: eks.amazonaws.com
        kind: NodeClass
        name: default
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["on-demand"]
      - key: eks.amazonaws.com/instance-category
        operator: In
        values: ["c", "m", "r"]
      - key: eks.amazonaws.com/instance-generation
        operator: Gt
        values: ["4"]
      - key: kubernetes.io/arch
        operator: In
        values: ["amd64", "arm64"]
      taints:
      - key: CriticalAddonsOnly
        effect: NoSchedule
      terminationGracePeriod: 24h0m0s
`

// builtinDocs returns the default NodeClass and the enabled built-in
// NodePools, and the users' documents without those EKS replaces: a
// NodePool named like an enabled built-in one (EKS owns it and puts its
// own spec back), with a warning.
func (c *compiler) builtinDocs(docs []*manifest.Document) []*manifest.Document {
	am := c.env.AutoMode
	if am == nil || len(am.NodePools) == 0 {
		return docs
	}
	all, err := manifest.ReadBytes(BuiltinFile, []byte(builtinManifests))
	if err != nil {
		panic("karpenter/apis: built-in Auto Mode manifests: " + err.Error())
	}
	var out []*manifest.Document
	for _, d := range docs {
		if d.Kind == KindNodePool && slices.Contains(am.NodePools, d.Name) {
			c.warn(d, "metadata.name", "%s is an EKS Auto Mode built-in NodePool, enabled at %s:%d (%s): EKS owns it and restores its spec, so this one is ignored and the built-in pool is simulated (disable the built-in pool or rename this one)",
				d.Name, am.Doc.File, am.Doc.LineOf(am.Path), am.Path)
			continue
		}
		out = append(out, d)
	}
	for _, d := range all {
		if d.Kind == KindNodeClass || slices.Contains(am.NodePools, d.Name) {
			out = append(out, d)
		}
	}
	return out
}

// CheckBuiltinNodePools reports built-in pool names that are not EKS's.
func CheckBuiltinNodePools(d *manifest.Document, path string, names []string) error {
	var errs manifest.Errors
	for i, n := range names {
		if n != BuiltinGeneralPurpose && n != BuiltinSystem {
			errs = append(errs, d.Errorf(fmt.Sprintf("%s[%d]", path, i), "use general-purpose or system", "%q is not an EKS Auto Mode built-in NodePool", n))
		}
	}
	return errs.Err()
}
