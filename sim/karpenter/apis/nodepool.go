package apis

import (
	"fmt"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Defaults of a karpenter.sh/v1 NodePool (KC pkg/apis/v1/nodepool.go,
// docs/models.md "Karpenter", its "Defaults and sources").
const (
	// DefaultExpireAfter is spec.template.spec.expireAfter's default.
	DefaultExpireAfter = 720 * time.Hour
	// DefaultBudgetNodes is the default disruption budget, {nodes: "10%"}.
	DefaultBudgetNodes = "10%"
	// MaxWeight bounds spec.weight (1-100).
	MaxWeight = 100
)

// Well-known label keys (KC pkg/apis/v1/labels.go, KA pkg/apis/v1/labels.go).
const (
	LabelNodePool         = "karpenter.sh/nodepool"
	LabelCapacityType     = "karpenter.sh/capacity-type"
	LabelZone             = "topology.kubernetes.io/zone"
	LabelRegion           = "topology.kubernetes.io/region"
	LabelInstanceType     = "node.kubernetes.io/instance-type"
	LabelArch             = "kubernetes.io/arch"
	LabelOS               = "kubernetes.io/os"
	LabelHostname         = "kubernetes.io/hostname"
	LabelWindowsBuild     = "node.kubernetes.io/windows-build"
	LabelInstanceCategory = "karpenter.k8s.aws/instance-category"
	LabelInstanceFamily   = "karpenter.k8s.aws/instance-family"
	LabelInstanceGen      = "karpenter.k8s.aws/instance-generation"
	LabelInstanceSize     = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU      = "karpenter.k8s.aws/instance-cpu"
	LabelInstanceMemory   = "karpenter.k8s.aws/instance-memory"
	LabelInstanceGPUCount = "karpenter.k8s.aws/instance-gpu-count"

	// The labels of a node in a capacity reservation (KA
	// cloudprovider.ReservedCapacityLabels).
	LabelCapacityReservationID            = "karpenter.k8s.aws/capacity-reservation-id"
	LabelCapacityReservationType          = "karpenter.k8s.aws/capacity-reservation-type"
	LabelCapacityReservationInterruptible = "karpenter.k8s.aws/capacity-reservation-interruptible"

	// AnnotationDoNotDisrupt on a pod or node blocks voluntary disruption.
	AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"
	// TaintDisrupted is put on nodes Karpenter is about to remove.
	TaintDisrupted = "karpenter.sh/disrupted"
)

// WellKnownLabels are the keys a pod may require although no NodePool
// defines them (scheduling.AllowUndefinedWellKnownLabels): core's set plus
// the AWS provider's instance labels.
var WellKnownLabels = []string{
	LabelNodePool, LabelZone, LabelRegion, LabelInstanceType, LabelArch, LabelOS, LabelCapacityType, LabelWindowsBuild,
	LabelCapacityReservationID, LabelCapacityReservationType,
	LabelCapacityReservationInterruptible, "karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported", LabelInstanceCategory,
	"karpenter.k8s.aws/instance-capability-flex", LabelInstanceFamily, LabelInstanceGen, LabelInstanceSize,
	"karpenter.k8s.aws/instance-local-nvme", LabelInstanceCPU, "karpenter.k8s.aws/instance-cpu-manufacturer",
	"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz", LabelInstanceMemory,
	"karpenter.k8s.aws/instance-ebs-bandwidth", "karpenter.k8s.aws/instance-network-bandwidth",
	"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer", LabelInstanceGPUCount,
	"karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-accelerator-manufacturer", "karpenter.k8s.aws/instance-accelerator-count",
	"topology.k8s.aws/zone-id", "karpenter.k8s.aws/instance-tenancy",
	"karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition",
}

// NormalizedLabels maps deprecated aliases to the keys Karpenter uses
// (KC pkg/apis/v1/labels.go NormalizedLabels).
var NormalizedLabels = map[string]string{
	"failure-domain.beta.kubernetes.io/zone":   LabelZone,
	"beta.kubernetes.io/arch":                  LabelArch,
	"beta.kubernetes.io/os":                    LabelOS,
	"beta.kubernetes.io/instance-type":         LabelInstanceType,
	"failure-domain.beta.kubernetes.io/region": LabelRegion,
}

// ConsolidationPolicy says which nodes consolidation may remove.
type ConsolidationPolicy uint8

// Consolidation policies.
const (
	// WhenEmptyOrUnderutilized (the v1 default) removes empty nodes and
	// replaces or removes underutilized ones.
	WhenEmptyOrUnderutilized ConsolidationPolicy = iota
	// WhenEmpty removes only nodes without pods.
	WhenEmpty
	// Balanced (v1.14) is WhenEmptyOrUnderutilized with each move of an
	// underutilized node scored: savings against disruption, both as
	// fractions of the pool's (KC disruption/balanced.go).
	Balanced
)

// BalancedK is Balanced's scoring parameter: a move is approved when its
// score is at least 1/BalancedK (KC v1.BalancedK).
const BalancedK = 2

func (p ConsolidationPolicy) String() string {
	switch p {
	case WhenEmpty:
		return "WhenEmpty"
	case Balanced:
		return "Balanced"
	}
	return "WhenEmptyOrUnderutilized"
}

// ConsolidatesUnderutilized reports whether the policy replaces or
// removes nodes that still have pods (every policy but WhenEmpty).
func (p ConsolidationPolicy) ConsolidatesUnderutilized() bool { return p != WhenEmpty }

// Reason is a disruption reason budgets can name.
type Reason uint8

// Disruption reasons of budgets (KC pkg/apis/v1 DisruptionReason).
const (
	ReasonEmpty Reason = iota
	ReasonUnderutilized
	ReasonDrifted
	// ReasonUnhealthy is v1.15's node repair (the NodeRepair feature
	// gate, off by default): a budget may name it; no modelled method
	// disrupts for it (nodes do not turn unhealthy here).
	ReasonUnhealthy
	numReasons
)

var reasonNames = [...]string{"Empty", "Underutilized", "Drifted", "Unhealthy"}

func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", r)
}

// Requirement is a compiled NodePool requirement. Gte N is stored as Gt
// N-1 and Lte N as Lt N+1.
type Requirement struct {
	cluster.Requirement
	// MinValues is minValues (0 when unset).
	MinValues int32
}

// Limits caps what a NodePool may launch, summed over its nodes'
// capacity. Has marks the dimensions set; Nodes < 0 means no node limit.
type Limits struct {
	Max   cluster.Resources
	Has   [cluster.MaxResources]bool
	Nodes int64
}

// Any reports whether some limit is set.
func (l Limits) Any() bool {
	if l.Nodes >= 0 {
		return true
	}
	for _, h := range l.Has {
		if h {
			return true
		}
	}
	return false
}

// Budget is one compiled disruption budget.
type Budget struct {
	// Nodes is how many nodes may be disrupting at once (rounded up for a
	// percentage, as Kubernetes does for maxUnavailable).
	Nodes cluster.IntOrPercent
	// Reasons the budget applies to; empty means all.
	Reasons []Reason
	// Schedule and Duration make the budget active only from each cron
	// hit (UTC) for Duration. Nil Schedule: always active.
	Schedule *Schedule
	Duration time.Duration
	// Text is the budget as written, for messages.
	Text string
}

// Applies reports whether the budget counts for reason.
func (b *Budget) Applies(r Reason) bool {
	if len(b.Reasons) == 0 {
		return true
	}
	for _, have := range b.Reasons {
		if have == r {
			return true
		}
	}
	return false
}

// Active reports whether the budget is in force at wall time t (UTC): the
// next schedule hit after t-Duration is not after t (KC Budget.IsActive).
func (b *Budget) Active(t time.Time) bool {
	if b.Schedule == nil {
		return true
	}
	next := b.Schedule.Next(t.Add(-b.Duration).Add(-time.Nanosecond))
	return !next.After(t)
}

// Allowed is how many of numNodes the budget lets be disrupted at t;
// MaxInt32 when inactive.
func (b *Budget) Allowed(t time.Time, numNodes int) int {
	if !b.Active(t) {
		return 1<<31 - 1
	}
	if !b.Nodes.Percent {
		return int(b.Nodes.Value)
	}
	return (int(b.Nodes.Value)*numNodes + 99) / 100
}

// Disruption is a NodePool's spec.disruption.
type Disruption struct {
	Policy ConsolidationPolicy
	// ConsolidateAfter is how long a node must see no pod event before
	// consolidation considers it; ConsolidateNever disables consolidation
	// (emptiness included).
	ConsolidateAfter time.Duration
	ConsolidateNever bool
	Budgets          []Budget
}

// AllowedDisruptions is the smallest allowance of the budgets that apply
// to reason at t (KC NodePool.GetAllowedDisruptionsByReason).
func (d *Disruption) AllowedDisruptions(t time.Time, numNodes int, reason Reason) int {
	allowed := 1<<31 - 1
	for i := range d.Budgets {
		if d.Budgets[i].Applies(reason) {
			allowed = min(allowed, d.Budgets[i].Allowed(t, numNodes))
		}
	}
	return allowed
}

// Binding is the budget whose allowance AllowedDisruptions returns for
// reason at t (the first of the smallest), nil when none applies or
// none is active.
func (d *Disruption) Binding(t time.Time, numNodes int, reason Reason) *Budget {
	var out *Budget
	allowed := 1<<31 - 1
	for i := range d.Budgets {
		b := &d.Budgets[i]
		if !b.Applies(reason) {
			continue
		}
		if a := b.Allowed(t, numNodes); a < allowed {
			out, allowed = b, a
		}
	}
	return out
}

// Reserved is a set of reserved resources (kubeReserved, systemReserved):
// Set marks the values given.
type Reserved struct {
	CPUMilli, MemoryBytes, EphemeralBytes int64
	SetCPU, SetMemory, SetEphemeral       bool
}

// Kubelet holds the kubelet settings that change a node's pods and
// allocatable.
type Kubelet struct {
	// MaxPods overrides the ENI-limited pod count (0: not set).
	MaxPods int32
	// PodsPerCore caps pods at PodsPerCore x vCPUs (0: not set).
	PodsPerCore    int32
	KubeReserved   Reserved
	SystemReserved Reserved
	// EvictionMemoryBytes overrides the 100Mi memory.available hard
	// threshold when > 0; EvictionMemoryPercent when > 0 is a share of
	// capacity instead. EvictionNodefsPercent overrides the 10%
	// nodefs.available threshold when > 0.
	EvictionMemoryBytes   int64
	EvictionMemoryPercent float64
	EvictionNodefsPercent float64
}

// NodeClass is a compiled EC2NodeClass (or AWSNodeTemplate): the parts
// that shape nodes.
type NodeClass struct {
	Name string
	// Kind is EC2NodeClass, AWSNodeTemplate or (EKS Auto Mode) NodeClass.
	Kind string
	// Group is eks.amazonaws.com for an Auto Mode NodeClass, else "".
	Group      string
	File       string
	Line       int
	Kubelet    Kubelet
	HasKubelet bool
	// AMIFamily is the family of spec.amiSelectorTerms' alias, else
	// spec.amiFamily ("" when neither says).
	AMIFamily string
	// RootVolumeGiB is the size of the EBS volume that holds ephemeral
	// storage (0: the 20 GiB default).
	RootVolumeGiB int64
	// InstanceStoreRAID0 is instanceStorePolicy: RAID0: the NVMe instance
	// stores hold ephemeral storage instead of the root volume.
	InstanceStoreRAID0 bool
	// ReservationTerms are spec.capacityReservationSelectorTerms: the
	// capacity reservations the class's nodes may launch into.
	ReservationTerms []ReservationTerm
	// AutoMode: an EKS Auto Mode NodeClass (eks.amazonaws.com/v1): AWS
	// runs the Karpenter that launches its nodes, which carry
	// eks.amazonaws.com instance labels and at most AutoModeMaxPods pods.
	AutoMode bool
	// Hash covers the fields that make nodes drift when changed.
	Hash uint64
	// Exported is the class's hash annotation as Karpenter wrote it on a
	// live cluster (karpenter.k8s.aws/ec2nodeclass-hash and its
	// version), kept by sim import: an adopted node whose NodeClaim
	// carries another hash of the same version has drifted.
	Exported ExportedHash
}

// ExportedHash is one of Karpenter's hash annotations (on a NodePool, an
// EC2NodeClass or a NodeClaim) and its hash version; empty when absent.
type ExportedHash struct{ Hash, Version string }

// DriftedFrom says whether a NodeClaim that carries claim was made from
// another version of the object that carries h: Karpenter's static drift
// (KC areStaticFieldsDrifted, KA's node class hash): both hashes and
// versions present, the versions equal, the hashes different. A version
// change is no drift (upstream rehashes on upgrade).
func (h ExportedHash) DriftedFrom(claim ExportedHash) bool {
	if h.Hash == "" || h.Version == "" || claim.Hash == "" || claim.Version == "" || h.Version != claim.Version {
		return false
	}
	return h.Hash != claim.Hash
}

// Upstream's hash annotations.
const (
	NodePoolHashAnnotation         = "karpenter.sh/nodepool-hash"
	NodePoolHashVersionAnnotation  = "karpenter.sh/nodepool-hash-version"
	NodeClassHashAnnotation        = "karpenter.k8s.aws/ec2nodeclass-hash"
	NodeClassHashVersionAnnotation = "karpenter.k8s.aws/ec2nodeclass-hash-version"
)

// NodeClassRef names a node class.
type NodeClassRef struct {
	Group, Kind, Name string
}

// NodePool is a compiled karpenter.sh/v1 NodePool, whatever it was read
// from.
type NodePool struct {
	Name string
	File string
	Line int
	// Source is what it was read from, e.g. "karpenter.sh/v1alpha5 Provisioner".
	Source string

	Weight int32
	// Static is a static NodePool (spec.replicas, KC v1.8+, feature gate
	// StaticCapacity): Karpenter keeps Replicas nodes of it whatever the
	// pods, never provisions for pods through it and never consolidates
	// it; only limits.nodes applies, and drift replaces its nodes one for
	// one (sim/karpenter static.go).
	Static   bool
	Replicas int64
	// Labels are spec.template.metadata.labels; Annotations its
	// annotations. DoNotDisrupt is the karpenter.sh/do-not-disrupt
	// annotation, which every node of the pool carries.
	Labels       cluster.Labels
	Annotations  map[string]string
	DoNotDisrupt bool

	Requirements  []Requirement
	Taints        []cluster.Taint
	StartupTaints []cluster.Taint
	Limits        Limits

	NodeClassRef NodeClassRef
	// NodeClass is the resolved class (defaults when it names none that
	// was given).
	NodeClass NodeClass

	// ExpireAfter is the node lifetime (0: Never).
	ExpireAfter time.Duration
	// TerminationGracePeriod bounds a node's drain (0: wait forever).
	TerminationGracePeriod time.Duration

	Disruption Disruption

	// TemplateHash covers what makes nodes drift: template labels and
	// annotations, taints, startup taints, expireAfter,
	// terminationGracePeriod and nodeClassRef (not requirements, which
	// drift by value, nor weight, limits or disruption).
	TemplateHash uint64
	// Exported is the pool's karpenter.sh/nodepool-hash annotation and
	// its version, as a live cluster's export has them.
	Exported ExportedHash
}

// String names the pool for messages.
func (p *NodePool) String() string { return "NodePool/" + p.Name }

// HasPreferNoScheduleTaint reports whether a template taint has effect
// PreferNoSchedule (preference relaxation then tolerates those).
func (p *NodePool) HasPreferNoScheduleTaint() bool {
	for _, t := range p.Taints {
		if t.Effect == cluster.EffectPreferNoSchedule {
			return true
		}
	}
	return false
}

// Warning is accepted input that may not do what its author expects.
type Warning struct {
	// Code names the finding for programs (sim lint), one of the Code
	// constants; "" for most.
	Code string
	File string
	Line int
	// Path is the field path, e.g. spec.ttlSecondsAfterEmpty ("" for the
	// document).
	Path string
	Msg  string
	// Fix is the fix Msg words in parentheses ("write ...", "v1: ..."),
	// for programs that show it apart; "" for none.
	Fix string
}

// Codes of Karpenter's warnings and errors (Warning.Code,
// manifest.Error.Code): stable names sim lint reads.
const (
	// CodeLegacy: a warning about a v1alpha5 Provisioner or a v1beta1
	// NodePool (every warning inside one), or another legacy form; as an
	// error, a legacy API the loader refuses.
	CodeLegacy = "karpenter.legacy"
	// CodeLegacyField: an error for a legacy field in a karpenter.sh/v1
	// NodePool.
	CodeLegacyField = "karpenter.legacy-field"
	// CodeNoSuchKind: a kind that never existed in its apiVersion (a
	// karpenter.sh/v1beta1 Provisioner), read as the one it resembles.
	CodeNoSuchKind = "karpenter.no-such-kind"
	// CodeBufferVersion: a CapacityBuffer in autoscaling.x-k8s.io/v1alpha1,
	// which Karpenter v1.15's CRD does not serve.
	CodeBufferVersion = "karpenter.buffer-version"
	// CodeUnknownLabel: a requirement on a key no instance type has,
	// neither well known nor a template label.
	CodeUnknownLabel = "karpenter.unknown-label"
	// CodeDoNotConsolidateTaint: the karpenter.sh/do-not-consolidate
	// taint, which Karpenter does not read.
	CodeDoNotConsolidateTaint = "ineffective.do-not-consolidate-taint"
	// CodeRemovedAnnotation: karpenter.sh/do-not-evict or
	// do-not-consolidate, removed in v1.
	CodeRemovedAnnotation = "ineffective.removed-annotation"
	// CodeEffectSpelling: a taint effect in the EKS API's spelling.
	CodeEffectSpelling = "karpenter.effect-spelling"
	// CodeOverlayInert: a NodeOverlay that sets neither a price nor
	// capacity.
	CodeOverlayInert = "ineffective.node-overlay-inert"
	// CodeWindows: a Windows node class or a NodePool that launches only
	// Windows nodes, skipped (Windows nodes are not simulated).
	CodeWindows = "karpenter.windows-skipped"
	// CodeOverlayInvalid: a NodeOverlay the controller's runtime
	// validation refuses, so it is never applied.
	CodeOverlayInvalid = "ineffective.node-overlay-invalid"
)

// Message is "path: msg", or msg alone for document-level warnings.
func (w Warning) Message() string {
	if w.Path == "" {
		return w.Msg
	}
	return w.Path + ": " + w.Msg
}

// String is "file:line: path: msg".
func (w Warning) String() string {
	var b strings.Builder
	if w.File != "" {
		b.WriteString(w.File)
		if w.Line > 0 {
			fmt.Fprintf(&b, ":%d", w.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(w.Message())
	return b.String()
}
