package spotmarket

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/engine"
)

// The vocabulary shared with the autoscaler models lives in sim/cloud; these
// aliases let this package be read and used on its own. The autoscalers
// declare the interfaces they call in cloud's terms, and *Market satisfies
// them.
type (
	// Offering names a capacity pool: (instance type, zone, capacity type).
	Offering = cloud.Offering
	// Strategy is how a launch picks among its candidate offerings.
	Strategy = cloud.Strategy
	// LatencyProfile selects the distribution of the time from launch to
	// node Ready ([Config.Latency]).
	LatencyProfile = cloud.LatencyProfile
	// InstanceID names an instance the market launched (from 1; never
	// reused).
	InstanceID = cloud.InstanceID
	// LaunchRequest asks for one instance in one of several offerings.
	LaunchRequest = cloud.LaunchRequest
	// LaunchResult is the answer to a LaunchRequest.
	LaunchResult = cloud.LaunchResult
	// OfferingError is one offering a launch tried and could not get.
	OfferingError = cloud.OfferingError
	// SignalKind is what a Signal says.
	SignalKind = cloud.SignalKind
	// Signal is one message about one instance.
	Signal = cloud.Signal
	// Subscriber receives every signal about every instance, in event
	// order, synchronously from inside the market's engine events. OnSignal
	// must not call [Market.Launch] or [Market.Terminate] (the market
	// panics if it does): schedule an engine event of your own and act from
	// it, as watchers of the cluster do.
	Subscriber = cloud.Subscriber
	// SubscriberFunc adapts a function to Subscriber.
	SubscriberFunc = cloud.SubscriberFunc
)

// Strategies (see [cloud.Strategy]): price-capacity-optimized tries the best
// regime first, then the cheapest; capacity-optimized the best regime, then
// the deepest pool (lowest Spot Advisor band; on-demand counts as deepest);
// lowest-price the cheapest whatever its regime; prioritized the caller's
// order. Every strategy breaks ties by the caller's order and tries
// offerings the market does not sell last.
const (
	PriceCapacityOptimized = cloud.PriceCapacityOptimized
	CapacityOptimized      = cloud.CapacityOptimized
	LowestPrice            = cloud.LowestPrice
	Prioritized            = cloud.Prioritized
)

// Latency profiles.
const (
	FleetLaunch = cloud.FleetLaunch // Karpenter: node Ready ~30-60 s
	ASGLaunch   = cloud.ASGLaunch   // Cluster Autoscaler: node Ready ~1-4 min
)

// NoInstance is the invalid InstanceID.
const NoInstance = cloud.NoInstance

// Offering error codes, spelled as EC2 returns them (see the cloud package).
const (
	CodeInsufficientCapacity        = cloud.CodeInsufficientCapacity        // exhausted pool, or a constrained one that lost the draw
	CodeSpotLimit                   = cloud.CodeSpotLimit                   // Config.SpotVCPUQuota would be exceeded
	CodeUnfulfillable               = cloud.CodeUnfulfillable               // spot offering of a type with no Spot Advisor data
	CodeUnsupported                 = cloud.CodeUnsupported                 // unknown type, zone not in the market, capacity type not sold
	CodeReservationCapacityExceeded = cloud.CodeReservationCapacityExceeded // the reservation is full or not active
)

// Signal kinds.
const (
	RebalanceRecommendation = cloud.RebalanceRecommendation
	InterruptionNotice      = cloud.InterruptionNotice // the reclaim follows NoticeLead later
	Terminated              = cloud.Terminated         // the reclaim itself
)

// ErrInsufficientCapacity is returned, wrapped in a [*LaunchError], by
// [Market.Launch] when every offering failed; the per-offering errors are
// in the result.
var ErrInsufficientCapacity = cloud.ErrInsufficientCapacity

// LaunchError is the error of a launch in which every offering failed. It
// wraps [ErrInsufficientCapacity]; the offerings' errors are in the
// [LaunchResult].
type LaunchError struct {
	Owner string // the request's Owner
	Tried int    // offerings tried, all failed
	// NoAddresses counts those that failed for want of subnet addresses.
	NoAddresses int
}

func (e *LaunchError) Error() string {
	if e.NoAddresses > 0 {
		return fmt.Sprintf("spotmarket: launch for %q: %v (%d offerings tried, %d of them in zones whose subnets have too few free addresses: InsufficientFreeAddressesInSubnet)",
			e.Owner, ErrInsufficientCapacity, e.Tried, e.NoAddresses)
	}
	return fmt.Sprintf("spotmarket: launch for %q: %v (%d offerings tried)", e.Owner, ErrInsufficientCapacity, e.Tried)
}

// Unwrap returns ErrInsufficientCapacity.
func (e *LaunchError) Unwrap() error { return ErrInsufficientCapacity }

// Regime is a pool's capacity regime. The zero value means "unset" (in a
// [ScriptedEvent]: leave the regime alone).
type Regime uint8

// Regimes, best first.
const (
	RegimeUnset       Regime = iota
	RegimeAvailable          // launches succeed
	RegimeConstrained        // launches fail with probability Regimes.ConstrainedFailure; reclaims more likely
	RegimeExhausted          // launches fail with InsufficientInstanceCapacity; reclaims much more likely
)

var regimeNames = [...]string{"unset", "available", "constrained", "exhausted"}

func (r Regime) String() string {
	if int(r) < len(regimeNames) {
		return regimeNames[r]
	}
	return fmt.Sprintf("Regime(%d)", r)
}

// ParseRegime reads "available", "constrained" or "exhausted".
func ParseRegime(s string) (Regime, bool) {
	for i := RegimeAvailable; i <= RegimeExhausted; i++ {
		if regimeNames[i] == s {
			return i, true
		}
	}
	return RegimeUnset, false
}

// InstanceState is an instance's life stage as its owner sees it.
type InstanceState uint8

// Instance states.
const (
	InstanceRunning    InstanceState = iota // launched (billed from launch, Ready after ReadyAfter)
	InstanceNoticed                         // got its interruption notice; reclaimed at the deadline
	InstanceTerminated                      // terminated by its owner
	InstanceReclaimed                       // reclaimed by EC2
)

var instanceStateNames = [...]string{"running", "noticed", "terminated", "reclaimed"}

func (s InstanceState) String() string { return instanceStateNames[s] }

// InstanceInfo describes one instance.
type InstanceInfo struct {
	ID              InstanceID
	Offering        Offering
	Owner           string
	State           InstanceState
	LaunchedAt      engine.Time
	EndedAt         engine.Time // when terminated or reclaimed; 0 while running
	PriceUSDPerHour float64     // the pool's price at launch
}

// Stats counts what the market did. Totals first; ByOwner and ByPool split
// them (sorted by owner, and by instance type, zone, capacity type).
type Stats struct {
	LaunchRequests uint64 // calls to Launch (report: provisioning.launchRequests)
	Launches       uint64 // requests that got an instance
	LaunchFailures uint64 // requests where every offering failed
	// InsufficientCapacityErrors counts offering errors with a capacity code
	// (InsufficientInstanceCapacity, MaxSpotInstanceCountExceeded,
	// UnfulfillableCapacity), several per request when several offerings
	// failed (report: provisioning.insufficientCapacityErrors).
	InsufficientCapacityErrors uint64
	// DepthRefusals are the InsufficientCapacityErrors of pools whose depth
	// was used up (report: provisioning.depthRefusals).
	DepthRefusals     uint64
	UnsupportedErrors uint64 // offering errors with code Unsupported
	// InsufficientAddressErrors counts offering errors with code
	// InsufficientFreeAddressesInSubnet (report:
	// provisioning.insufficientAddressErrors).
	InsufficientAddressErrors uint64
	// Interruptions counts interruption notices (report: spot.interruptions).
	Interruptions uint64
	// RebalanceRecommendations counts them (report: spot.rebalanceRecommendations).
	RebalanceRecommendations uint64
	Reclaims                 uint64 // instances EC2 took back (Terminated signals)
	// ReservationReclaims are the instances EC2 took back at a Capacity
	// Block's end; ReservationInterruptions the notices of interruptible
	// reservations (both also in Reclaims and Interruptions).
	ReservationReclaims, ReservationInterruptions uint64
	Terminations                                  uint64 // instances their owners terminated
	Shocks                                        uint64 // correlated shocks that started (stochastic model)
	// PartialFulfilments counts requests (one owner's launches at one
	// instant) in which some launches got an instance and some got none
	// (report: provisioning.partialFulfilments).
	PartialFulfilments uint64
	// JoinFailures counts launched instances whose node never joins the
	// cluster (Config.Join.FailureShare and scripted join failures);
	// SlowJoins those that joined Config.Join.SlowExtra late.
	JoinFailures uint64
	SlowJoins    uint64
	// NotReadyJoins counts launched instances whose node registered and
	// never became Ready (scripted join failures with JoinNotReady).
	NotReadyJoins uint64

	ByOwner []OwnerStats
	ByPool  []PoolStats // pools with any launch, error or signal
}

// Counters is the part of the statistics kept per owner and per pool.
type Counters struct {
	LaunchRequests uint64 // per owner only: a request spans pools
	// Asked counts launches that tried the pool (per pool only): each
	// ends in a launch or an offering error there.
	Asked                      uint64
	Launches                   uint64
	InsufficientCapacityErrors uint64
	// DepthRefusals are the InsufficientCapacityErrors of launches the
	// pool refused because its depth was used up (not its regime).
	DepthRefusals            uint64
	PartialFulfilments       uint64 // per owner only
	Interruptions            uint64
	RebalanceRecommendations uint64
	Reclaims                 uint64
}

// OwnerStats are the counters of one LaunchRequest.Owner.
type OwnerStats struct {
	Owner string
	Counters
}

// PoolStats are the counters of one pool.
type PoolStats struct {
	Offering Offering
	Counters
}
