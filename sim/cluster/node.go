package cluster

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/clustersim/clustersim/sim/engine"
)

// NodeID indexes Cluster.Nodes. IDs are never reused within a run.
type NodeID int32

// NoNode marks the absence of a node.
const NoNode NodeID = -1

// NodeState is a node's life stage.
type NodeState uint8

// Node states. A Launching node is billed but takes no pods; only Ready
// nodes are schedulable.
const (
	NodeLaunching NodeState = iota
	NodeReady
	NodeGone
)

var nodeStateNames = [...]string{"Launching", "Ready", "Gone"}

func (s NodeState) String() string { return nodeStateNames[s] }

// CapacityType is how a node is bought.
type CapacityType uint8

// Capacity types, in the label spelling of karpenter.sh/capacity-type.
const (
	OnDemand CapacityType = iota
	Spot
	Reserved
)

var capacityTypeNames = [...]string{"on-demand", "spot", "reserved"}

func (c CapacityType) String() string { return capacityTypeNames[c] }

// ParseCapacityType accepts on-demand, spot, reserved (and the EKS spellings
// ON_DEMAND and SPOT).
func ParseCapacityType(s string) (CapacityType, bool) {
	switch s {
	case "on-demand", "ON_DEMAND", "":
		return OnDemand, true
	case "spot", "SPOT":
		return Spot, true
	case "reserved":
		return Reserved, true
	}
	return OnDemand, false
}

// OwnerKind says which controller made a node: OwnedByStatic, or a
// component registered by name (RegisterOwner; sim/component registers
// every component it is given). The numbers follow registration order.
type OwnerKind uint8

// OwnedByStatic is a static pool's node or a Node manifest's. An
// autoscaler only ever touches nodes it owns.
const OwnedByStatic OwnerKind = 0

// owners holds the registered names by OwnerKind; a new name replaces
// the slice (copy on write), so reading needs no lock.
var (
	ownersMu sync.Mutex
	owners   atomic.Pointer[[]string]
)

func init() { owners.Store(&[]string{"static"}) }

// RegisterOwner returns the owner called name, registering it on first
// use. Components register when their package is initialised, before any
// run, so the numbers are fixed for the process.
func RegisterOwner(name string) OwnerKind {
	ownersMu.Lock()
	defer ownersMu.Unlock()
	if o, ok := OwnerNamed(name); ok {
		return o
	}
	names := *owners.Load()
	if len(names) > 255 {
		panic("cluster: more than 255 node owners")
	}
	next := append(slices.Clip(names), name)
	owners.Store(&next)
	return OwnerKind(len(next) - 1)
}

// OwnerNamed returns the registered owner called name.
func OwnerNamed(name string) (OwnerKind, bool) {
	i := slices.Index(*owners.Load(), name)
	return OwnerKind(max(i, 0)), i >= 0
}

func (o OwnerKind) String() string {
	if names := *owners.Load(); int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("owner(%d)", o)
}

// Node is one node object.
type Node struct {
	Name    string
	NameSym Sym
	Labels  Labels
	Taints  []Taint

	Allocatable Resources
	Requested   Resources
	// ScoreRequested sums the pods' ScoreCPU and ScoreMemory (index CPU
	// and Memory only): what the scheduler's scoring sees as used.
	ScoreRequested [2]int64
	// Pods holds the pods bound to the node, in no particular order.
	Pods []PodID
	// PodRefs mirrors Pods (same order) with what controllers scanning a
	// node's pods read, so a scan reads the node, not one pod record per
	// pod (records are scattered over every pod ever created).
	PodRefs []PodRef

	Unschedulable bool // cordoned
	State         NodeState

	InstanceType string
	Zone         Sym
	CapacityType CapacityType
	// PriceUSDPerHour is what the node costs while it exists, billed per
	// second from launch to deletion.
	PriceUSDPerHour float64
	// OverlaidUSDPerHour is the price its autoscaler decided on when a
	// NodeOverlay changed it (PriceOverlaid): Karpenter's view, not the
	// bill (the report's cost.overlaidUSD).
	OverlaidUSDPerHour float64
	PriceOverlaid      bool

	Owner     OwnerKind
	OwnerName string // static pool, NodePool or node group name
	// Instance is the cloud instance behind the node (a cloud.InstanceID;
	// 0 for static nodes).
	Instance int32
	// Adopted: a node of the start state that an autoscaler adopted (an
	// imported cluster's node of a NodePool); counted as a start node,
	// not a launch.
	Adopted bool
	// Initial: a node an autoscaler brings at the start as part of the
	// cluster as it stands (a node group's starting desired capacity);
	// counted as a start node, not a launch.
	Initial bool
	// AgeAtStart is how old a start node already was when the simulation
	// started (an imported node: spec.importedAt minus its
	// creationTimestamp); 0 for every other node. Karpenter's expireAfter
	// of an adopted node counts from its real launch.
	AgeAtStart engine.Time
	// LastPodEventAgo is, for an imported Karpenter node with
	// HasLastPodEvent, how long before the start its NodeClaim's
	// status.lastPodEventTime was; without it Karpenter counts
	// consolidateAfter from the start.
	LastPodEventAgo engine.Time
	HasLastPodEvent bool
	// DriftedAgo is, with HasDriftedAt, how long before the start an
	// imported Karpenter node's NodeClaim turned Drifted (its condition's
	// lastTransitionTime).
	DriftedAgo   engine.Time
	HasDriftedAt bool
	// ExpiresIn is, with HasExpiry, when an imported Karpenter node's
	// NodeClaim expires, from the start (its creationTimestamp plus its
	// own spec.expireAfter, less spec.importedAt; 0 or less: at once);
	// NeverExpires: its spec.expireAfter is Never. Without HasExpiry,
	// its NodePool's expireAfter counts from AgeAtStart.
	ExpiresIn    engine.Time
	HasExpiry    bool
	NeverExpires bool
	// Annotations are a start node's manifest annotations (an imported
	// node carries its NodeClaim's hash annotations, which Karpenter's
	// adoption compares with its NodePool's for drift); nil otherwise.
	Annotations map[string]string

	// Condition is the node's unhealthy condition (Healthy: none), set
	// since ConditionSince (its lastTransitionTime): a fault the scenario
	// injects (spec.nodeFailures); SetNodeCondition.
	Condition      NodeCondition
	ConditionSince engine.Time

	Launched engine.Time
	Ready    engine.Time
	Deleted  engine.Time
}

// PodRef is the part of a bound pod a node keeps beside its ID.
type PodRef struct {
	Spec        *PodSpec
	Created     engine.Time
	UIDRank     uint64
	Namespace   Sym
	Terminating bool
}

// Free is allocatable minus requested.
func (n *Node) Free() Resources { return n.Allocatable.Sub(n.Requested) }

// StartNode: the node was there when the run started (a static node, an
// adopted one, a node group's initial capacity), not launched during it.
func (n *Node) StartNode() bool {
	return n.Launched == 0 && (n.Owner == OwnedByStatic || n.Adopted || n.Initial)
}

// Schedulable reports whether the scheduler may place new pods here.
func (n *Node) Schedulable() bool { return n.State == NodeReady && !n.Unschedulable }

// RegisteredNotReady reports whether a launching node has registered
// without becoming Ready (Register): its node object exists, its Ready
// condition is False since ConditionSince, its registration.
func (n *Node) RegisteredNotReady() bool {
	return n.State == NodeLaunching && n.Condition == ReadyFalse
}

// SetIdentity interns the node's name and sets its hostname label from it,
// as every node of a cluster has (AddNode; lint's would-be nodes too).
func (n *Node) SetIdentity(syms *Symbols, hostnameKey Sym) {
	n.NameSym = syms.Intern(n.Name)
	n.Labels = n.Labels.With(hostnameKey, n.NameSym)
}
