// Package cloud is the vocabulary between the autoscaler models and the
// EC2 model: offerings (capacity pools), launch requests and their answers,
// instance IDs and the spot signals. It holds value types only, but for
// Subnets: the VPC's free addresses, which EC2 and the kubelet share. Each
// autoscaler declares the small interface it calls, in its own package, in
// these terms; sim/spotmarket implements them and tests fake them, so the
// models never import each other.
package cloud

import (
	"errors"
	"fmt"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Offering names a capacity pool: an instance type in one zone bought one way.
type Offering struct {
	InstanceType string // e.g. "c5.large"
	Zone         string // e.g. "us-east-1a"
	CapacityType cluster.CapacityType
	// Reservation is the capacity reservation (cr-...) a reserved offering
	// launches into; empty for spot and on-demand.
	Reservation string
}

// String is "c5.large/us-east-1a/spot", the pool syntax of traces, with
// the reservation after a reserved offering ("/reserved/cr-0123").
func (o Offering) String() string {
	s := o.InstanceType + "/" + o.Zone + "/" + o.CapacityType.String()
	if o.Reservation != "" {
		s += "/" + o.Reservation
	}
	return s
}

// Strategy is how a launch picks among its candidate offerings (the EC2
// Fleet allocation strategies).
type Strategy uint8

// Strategies. The first two are meant for spot, the last two for on-demand,
// but any strategy accepts any mix of capacity types.
const (
	// PriceCapacityOptimized tries pools in the best capacity regime first
	// and, within a regime, the cheapest first (Karpenter's spot default).
	PriceCapacityOptimized Strategy = iota
	// CapacityOptimized tries pools in the best regime first and, within a
	// regime, the deepest first (lowest Spot Advisor band; on-demand counts
	// as deepest), ignoring price.
	CapacityOptimized
	// LowestPrice tries the cheapest pool first, whatever its regime
	// (Karpenter's on-demand strategy).
	LowestPrice
	// Prioritized tries the offerings in the caller's order (ASG mixed
	// instances policy, CA's priority expander).
	Prioritized
)

var strategyNames = [...]string{"price-capacity-optimized", "capacity-optimized", "lowest-price", "prioritized"}

func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", s)
}

// LatencyProfile selects the distribution of the time from launch to node
// Ready (configured in the market).
type LatencyProfile uint8

// Latency profiles.
const (
	FleetLaunch LatencyProfile = iota // Karpenter: CreateFleet instant, node Ready ~30-60 s
	ASGLaunch                         // Cluster Autoscaler: ASG scaling activity, node Ready ~1-4 min
)

func (l LatencyProfile) String() string {
	switch l {
	case FleetLaunch:
		return "fleet"
	case ASGLaunch:
		return "asg"
	}
	return fmt.Sprintf("LatencyProfile(%d)", l)
}

// InstanceID names an instance the market launched. IDs start at 1 and are
// never reused within a run; the zero value [NoInstance] is never valid.
type InstanceID int32

// NoInstance is the invalid InstanceID.
const NoInstance InstanceID = 0

// LaunchRequest asks for one instance in one of several offerings.
type LaunchRequest struct {
	// Owner names the caller ("karpenter", "cluster-autoscaler", ...); the
	// market only uses it to split its statistics.
	Owner string
	// Offerings are the candidates, in the caller's priority order (which
	// Prioritized follows and the other strategies use as the last
	// tie-break).
	Offerings []Offering
	Strategy  Strategy
	Latency   LatencyProfile
	// Group names what the instance is for within its Owner (a NodePool, a
	// node group); the market matches scripted join failures by it.
	Group string
	// Joined: the instance stands for a node already in the cluster when
	// the scenario starts (a node group's initial nodes); its node has
	// joined, so the market draws no join outcome for it.
	Joined bool
}

// Error codes of [OfferingError], spelled as EC2 returns them.
const (
	// CodeInsufficientCapacity: the pool is exhausted, or constrained and
	// the launch lost the draw.
	CodeInsufficientCapacity = "InsufficientInstanceCapacity"
	// CodeSpotLimit: the account's spot vCPU quota (the market's spot vCPU quota)
	// would be exceeded.
	CodeSpotLimit = "MaxSpotInstanceCountExceeded"
	// CodeUnfulfillable: a spot offering of a type the market has no Spot
	// Advisor data for (newer families): EC2's "There is no Spot capacity
	// available that matches your request".
	CodeUnfulfillable = "UnfulfillableCapacity"
	// CodeInsufficientAddresses: the zone's subnets have too few free
	// addresses for the instance (see [Subnets]). Karpenter caches it as
	// an unavailable offering like the capacity errors (newer
	// karpenter-provider-aws pkg/errors lists it among the unfulfillable
	// capacity codes).
	CodeInsufficientAddresses = "InsufficientFreeAddressesInSubnet"
	// CodeUnsupported: the type is unknown, the zone is not one of the
	// market's, or the capacity type is not sold here. Not a capacity
	// error: the caller asked for something that does not exist.
	CodeUnsupported = "Unsupported"
	// CodeReservationCapacityExceeded: the capacity reservation a reserved
	// offering names has no free instance (or is not active). Karpenter
	// treats it as a capacity error (KA pkg/errors).
	CodeReservationCapacityExceeded = "ReservationCapacityExceeded"
)

// OfferingError is one offering a launch tried and could not get.
type OfferingError struct {
	Offering Offering
	Code     string // one of the Code* constants
	// Dry marks an InsufficientInstanceCapacity of a pool whose depth (the
	// instances it gives at once) was used up: a fleet that asks for more
	// than a pool holds is partially fulfilled.
	Dry bool
}

// IsCapacityError reports whether the code is one that Karpenter caches as
// an unavailable offering (ICE, spot quota, unfulfillable).
func (e OfferingError) IsCapacityError() bool {
	return e.Code == CodeInsufficientCapacity || e.Code == CodeSpotLimit || e.Code == CodeUnfulfillable || e.Code == CodeInsufficientAddresses ||
		e.Code == CodeReservationCapacityExceeded
}

// LaunchResult is the answer to a [LaunchRequest].
type LaunchResult struct {
	Instance InstanceID // NoInstance when every offering failed
	Offering Offering
	// PriceUSDPerHour is the pool's price at launch; the bill follows the
	// pool's price over time (see the market's cost).
	PriceUSDPerHour float64
	// ReadyAfter is the sampled time from now until the node is Ready.
	ReadyAfter time.Duration
	// NeverJoins: the instance runs and is billed, but its node never
	// registers with the cluster (a bootstrap failure, a bad AMI, a
	// kubelet that cannot reach the API server); ReadyAfter is then
	// meaningless. The owner's registration timeout has to deal with it.
	NeverJoins bool
	// NeverReady: the node registers ReadyAfter from now but its Ready
	// condition never turns True (a CNI plugin that never starts, a
	// kubelet that cannot pull its pause image): the node object exists,
	// NotReady and tainted node.kubernetes.io/not-ready, and takes no
	// pods. The owner's unready-node handling has to deal with it.
	NeverReady bool
	// Errors lists the offerings tried that failed, in the order tried,
	// also when a later one succeeded.
	Errors []OfferingError
}

// ErrInsufficientCapacity is returned, wrapped, by the market's Launch when
// every offering failed; the per-offering errors are in the result.
var ErrInsufficientCapacity = errors.New("insufficient capacity in every offering")

// SignalKind is what a [Signal] says.
type SignalKind uint8

// Signal kinds.
const (
	// RebalanceRecommendation: the instance is at elevated risk of
	// interruption (EC2 instance rebalance recommendation). It may be
	// followed by a notice minutes to hours later, at once, or never.
	RebalanceRecommendation SignalKind = iota
	// InterruptionNotice: the two-minute spot interruption warning. The
	// instance is reclaimed at [Signal.Deadline] unless terminated first.
	InterruptionNotice
	// Terminated: EC2 reclaimed the instance (NoticeLead after its notice).
	// It is gone and no longer billed.
	Terminated
)

var signalNames = [...]string{"RebalanceRecommendation", "InterruptionNotice", "Terminated"}

func (k SignalKind) String() string {
	if int(k) < len(signalNames) {
		return signalNames[k]
	}
	return fmt.Sprintf("SignalKind(%d)", k)
}

// Signal is one message about one instance.
type Signal struct {
	Kind     SignalKind
	Instance InstanceID
	Offering Offering
	At       engine.Time
	// Deadline is when the instance will be reclaimed, for an
	// InterruptionNotice (At + NoticeLead); zero otherwise.
	Deadline engine.Time
}

// Subscriber receives every signal about every instance, in event order,
// synchronously from inside the market's engine events. OnSignal must not
// call Launch or Terminate (the market panics if it does): react by scheduling an engine event of your own, as watchers of
// the cluster do.
type Subscriber interface{ OnSignal(s Signal) }

// SubscriberFunc adapts a function to [Subscriber].
type SubscriberFunc func(s Signal)

// OnSignal calls f(s).
func (f SubscriberFunc) OnSignal(s Signal) { f(s) }
