package karpenter

import "sort"

// ReportKey is the key of Karpenter's section in the JSON report.
const ReportKey = "karpenter"

// ReportSection is Karpenter's section of the report (a report.Section):
// its Stats as of now.
func (k *Karpenter) ReportSection() (key string, figures any) { return ReportKey, k.Stats() }

// Stats is the karpenter section of the report. Lists are sorted by name
// so that the JSON is stable.
type Stats struct {
	// NodeClaimsLaunched counts instances launched (replacements
	// included); LaunchFailures NodeClaims deleted because every offering
	// failed or the node never registered.
	NodeClaimsLaunched int64 `json:"nodeClaimsLaunched"`
	// NodeClaimsAdopted counts the nodes of the start state adopted as
	// NodeClaims (Adopt); absent when none.
	NodeClaimsAdopted int64 `json:"nodeClaimsAdopted,omitempty"`
	LaunchFailures    int64 `json:"launchFailures"`
	// LaunchRequests counts fleet requests sent to the cloud.
	LaunchRequests int64 `json:"launchRequests"`
	// RegistrationTimeouts counts NodeClaims deleted because their node did
	// not register within RegistrationTimeout (15 min; KC liveness): nodes
	// that never join, and joins slower than the timeout.
	RegistrationTimeouts int64 `json:"registrationTimeouts"`
	// NeverReadyNodes counts NodeClaims whose node registered and never
	// became Ready (never Initialized); absent when none.
	NeverReadyNodes int64 `json:"neverReadyNodes,omitempty"`
	// ConsolidationTimeouts counts consolidation methods that gave up
	// after their timeout (SingleNodeConsolidationTimeout, 3 min;
	// MultiNodeConsolidationTimeout, 1 min) of simulated computing.
	ConsolidationTimeouts int64 `json:"consolidationTimeouts"`
	// BalancedApproved and BalancedRejected count the consolidation
	// moves of Balanced pools their score approved or turned down, each
	// try of the multi-node search included; absent when none was scored.
	BalancedApproved int64 `json:"balancedApproved,omitempty"`
	BalancedRejected int64 `json:"balancedRejected,omitempty"`
	// Batches counts provisioning batches that had pods to schedule.
	Batches int64 `json:"batches"`
	// SolveTimeouts counts provisioning solves that ran into the
	// one-minute timeout (SolveTimeout) and launched what they had
	// placed; absent when none did.
	SolveTimeouts int64 `json:"solveTimeouts,omitempty"`
	// ReservedLaunches counts NodeClaims launched into capacity
	// reservations; ReservationsDemoted the nodes that became on-demand
	// when their reservation ended (a Capacity Block's deleted nodes are
	// disruptions.capacityBlockExpiring). Absent when 0.
	ReservedLaunches    int64            `json:"reservedLaunches,omitempty"`
	ReservationsDemoted int64            `json:"reservationsDemoted,omitempty"`
	Disruptions         DisruptionCounts `json:"disruptions"`
	// RepairsBlocked counts the unhealthy nodes node repair left because
	// more than 20% of their NodePool was unhealthy (each node once);
	// absent when none.
	RepairsBlocked int64 `json:"repairsBlocked,omitempty"`
	// PodsEvicted counts evictions the eviction API accepted for
	// Karpenter's drains.
	PodsEvicted int64 `json:"podsEvicted"`
	// InterruptionNotices, RebalanceRecommendations and
	// InstancesReclaimed count EC2 signals about Karpenter's instances.
	InterruptionNotices      int64 `json:"interruptionNotices"`
	RebalanceRecommendations int64 `json:"rebalanceRecommendations"`
	InstancesReclaimed       int64 `json:"instancesReclaimed"`
	// BusySeconds is the virtual time provisioning solves took
	// (Settings.ComputeTime); MaxWaitSeconds the longest a batch's pods
	// waited on the provisioner's computing: for an earlier solve to end
	// before their batch could open, then for their own solve.
	BusySeconds    float64     `json:"busySeconds"`
	MaxWaitSeconds float64     `json:"maxWaitSeconds"`
	NodePools      []PoolStats `json:"nodePools"`
}

// DisruptionCounts counts nodes disrupted, by reason.
type DisruptionCounts struct {
	Empty         int64 `json:"empty"`
	Underutilized int64 `json:"underutilized"`
	Drifted       int64 `json:"drifted"`
	Expired       int64 `json:"expired"`
	Interrupted   int64 `json:"interrupted"`
	// Overprovisioned: nodes of a static NodePool scaled down below its
	// count (KC static deprovisioning's reason).
	Overprovisioned int64 `json:"overprovisioned,omitempty"`
	// CapacityBlockExpiring: nodes of a Capacity Block deleted 40 minutes
	// before its end (KA capacityreservation.expiration).
	CapacityBlockExpiring int64 `json:"capacityBlockExpiring,omitempty"`
	// Unhealthy: nodes node repair replaced (the NodeRepair gate).
	Unhealthy int64 `json:"unhealthy,omitempty"`
}

func (d *DisruptionCounts) add(reason string) {
	switch reason {
	case reasonEmpty:
		d.Empty++
	case reasonUnderutilized:
		d.Underutilized++
	case reasonDrifted:
		d.Drifted++
	case reasonExpired:
		d.Expired++
	case reasonInterrupted:
		d.Interrupted++
	case reasonOverprovisioned:
		d.Overprovisioned++
	case reasonReservationExpiring:
		d.CapacityBlockExpiring++
	case reasonUnhealthy:
		d.Unhealthy++
	}
}

// Total is the sum over reasons.
func (d DisruptionCounts) Total() int64 {
	return d.Empty + d.Underutilized + d.Drifted + d.Expired + d.Interrupted + d.Overprovisioned + d.CapacityBlockExpiring + d.Unhealthy
}

// PoolStats are one NodePool's counters.
type PoolStats struct {
	Name               string           `json:"name"`
	NodeClaimsLaunched int64            `json:"nodeClaimsLaunched"`
	NodeClaimsAdopted  int64            `json:"nodeClaimsAdopted,omitempty"`
	ByCapacityType     []NameCount      `json:"byCapacityType"`
	ByInstanceType     []NameCount      `json:"byInstanceType"`
	LaunchFailures     int64            `json:"launchFailures"`
	Disruptions        DisruptionCounts `json:"disruptions"`
	PodsEvicted        int64            `json:"podsEvicted"`
	InstancesReclaimed int64            `json:"instancesReclaimed"`

	// RegistrationTimeouts counts the pool's NodeClaims deleted because
	// their node did not register within the registration timeout.
	RegistrationTimeouts int64 `json:"registrationTimeouts"`
	// NeverReadyNodes: the pool's NodeClaims whose node registered and
	// never became Ready.
	NeverReadyNodes int64 `json:"neverReadyNodes,omitempty"`
	// RepairsBlocked: the pool's nodes repair left for the 20% rule.
	RepairsBlocked int64 `json:"repairsBlocked,omitempty"`
}

// NameCount is one count in a list sorted by name.
type NameCount struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

func addCount(list []NameCount, name string) []NameCount {
	i := sort.Search(len(list), func(i int) bool { return list[i].Name >= name })
	if i < len(list) && list[i].Name == name {
		list[i].Count++
		return list
	}
	list = append(list, NameCount{})
	copy(list[i+1:], list[i:])
	list[i] = NameCount{Name: name, Count: 1}
	return list
}

func (p *PoolStats) addCapacityType(ct string) { p.ByCapacityType = addCount(p.ByCapacityType, ct) }
func (p *PoolStats) addInstanceType(t string)  { p.ByInstanceType = addCount(p.ByInstanceType, t) }

// Stats returns the counters so far; slices are copies.
func (k *Karpenter) Stats() Stats {
	s := *k.stats
	names := make([]string, 0, len(k.poolStats))
	for n := range k.poolStats {
		names = append(names, n)
	}
	sort.Strings(names)
	s.NodePools = make([]PoolStats, 0, len(names))
	for _, n := range names {
		ps := *k.poolStats[n]
		ps.ByCapacityType = append([]NameCount{}, ps.ByCapacityType...)
		ps.ByInstanceType = append([]NameCount{}, ps.ByInstanceType...)
		s.NodePools = append(s.NodePools, ps)
	}
	return s
}
