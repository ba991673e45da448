package clusterautoscaler

import (
	"math"
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/provreq"

	"gonum.org/v1/gonum/stat"
)

// ReportKey is the key of the Cluster Autoscaler's section in the JSON
// report.
const ReportKey = "clusterAutoscaler"

// ReportSection is the Cluster Autoscaler's section of the report (a
// report.Section): its Stats as of now.
func (a *Autoscaler) ReportSection() (key string, figures any) { return ReportKey, a.Stats() }

// Stats is the Cluster Autoscaler's section of the report (JSON key
// clusterAutoscaler).
type Stats struct {
	// ScaleUps counts scale-ups of a node group (a balanced scale-up over
	// three groups counts three).
	ScaleUps int `json:"scaleUps"`
	// FailedScaleUps counts scale-ups that failed: instances the ASG
	// could not launch, or nodes not Ready within
	// --max-node-provision-time.
	FailedScaleUps int `json:"failedScaleUps"`
	// NodesAdded counts nodes launched after the start (scale-ups and the
	// ASGs' replacements of reclaimed instances).
	NodesAdded int `json:"nodesAdded"`
	// NodesRemoved counts nodes the Cluster Autoscaler deleted (scale-down,
	// nodes that never became Ready).
	NodesRemoved int `json:"nodesRemoved"`
	// NodesReclaimed counts spot nodes EC2 took back.
	NodesReclaimed int `json:"nodesReclaimed"`
	// SpotDrains counts spot nodes drained ahead of EC2 taking them back
	// or of a capacity rebalance terminating them; omitted when none.
	SpotDrains int `json:"spotDrains,omitempty"`
	// ScaleUpTimeouts counts failed scale-ups whose nodes did not all
	// register within --max-node-provision-time (failed_scale_ups_total
	// with reason timeout); each backed its group off.
	ScaleUpTimeouts int `json:"scaleUpTimeouts"`
	// UnregisteredNodesRemoved counts nodes removed because they had not
	// registered --max-node-provision-time after their launch
	// (old_unregistered_nodes_removed_count); they are in NodesRemoved too.
	UnregisteredNodesRemoved int `json:"unregisteredNodesRemoved"`
	// LongUnregisteredAtEnd counts nodes unregistered for longer than
	// --max-node-provision-time at the end: kept because their group was
	// at its minimum size, or not in an autoscaled group.
	LongUnregisteredAtEnd int `json:"longUnregisteredAtEnd"`
	// UnreadyNodesRemoved counts registered nodes that never became Ready
	// which scale-down removed after --scale-down-unready-time (they are
	// in NodesRemoved too); UnreadyAtEnd those still there at the end
	// (a group at its minimum, --scale-down-unready-enabled=false, an
	// unhealthy cluster). Omitted when none.
	UnreadyNodesRemoved int `json:"unreadyNodesRemoved,omitempty"`
	UnreadyAtEnd        int `json:"unreadyAtEnd,omitempty"`
	// UnhealthyLoops counts loops that did nothing because too many nodes
	// were unready (--max-total-unready-percentage past
	// --ok-total-unready-count); omitted when none.
	UnhealthyLoops int `json:"unhealthyLoops,omitempty"`
	// RaceNodes counts nodes launched for pods for which another
	// autoscaler (Karpenter) had already launched a node.
	RaceNodes int `json:"raceNodes"`
	// LaunchFailures counts instance launches EC2 could not fill.
	LaunchFailures int `json:"launchFailures"`
	// ASGRetries counts launches the ASGs retried on their own for
	// desired capacity they had not met.
	ASGRetries int `json:"asgRetries"`
	// FailedScaleDowns counts drains given up (evictions refused past
	// --max-pod-eviction-time).
	FailedScaleDowns int `json:"failedScaleDowns"`
	// ScaleDownBlockedNodes counts, per reason (NotReplicated,
	// UnmovableKubeSystemPod, NotSafeToEvictAnnotation, NotEnoughPdb,
	// NoPlaceToMovePods, ScaleDownDisabledAnnotation,
	// NodeGroupMinSizeReached), the underused nodes it ever kept.
	ScaleDownBlockedNodes map[string]int `json:"scaleDownBlockedNodes"`
	// BackoffSeconds sums the time each group spent backed off.
	BackoffSeconds float64 `json:"backoffSeconds"`
	// PendingToReadySeconds is, over nodes launched for pending pods, the
	// time from the oldest of those pods' creation to the node being
	// Ready.
	PendingToReadySeconds Quantiles `json:"pendingToReadySeconds"`
	Loops                 int       `json:"loops"`
	// BusySeconds is the virtual time the loops took (Settings.
	// ComputeTime: the loop-time model; else the fixed loop duration);
	// MaxWaitSeconds the longest a pod that became unschedulable during
	// a loop waited for that loop to end.
	BusySeconds    float64 `json:"busySeconds"`
	MaxWaitSeconds float64 `json:"maxWaitSeconds"`
	// NodeGroups has one entry per node group, sorted by name.
	NodeGroups []GroupStats `json:"nodeGroups"`
	// ProvisioningRequests counts the ProvisioningRequests and their
	// outcomes; omitted without --enable-provisioning-requests or
	// requests.
	ProvisioningRequests *ProvReqStats `json:"provisioningRequests,omitempty"`
}

// ProvReqStats are the ProvisioningRequests' figures at the end.
type ProvReqStats struct {
	// Requests counts them; Provisioned those ever Provisioned=True
	// (BookingExpired since or not), Failed those Failed=True, Waiting
	// the others (Provisioned=False or not yet tried).
	Requests    int `json:"requests"`
	Provisioned int `json:"provisioned"`
	Failed      int `json:"failed"`
	Waiting     int `json:"waiting"`
	// BookingExpired counts those whose booking ended (10 min, or all
	// their consumers scheduled).
	BookingExpired int `json:"bookingExpired"`
	// Each is one request's outcome, in the manifests' order.
	Each []ProvReqOutcome `json:"each"`
}

// ProvReqOutcome is one ProvisioningRequest's outcome.
type ProvReqOutcome struct {
	Name  string `json:"name"` // namespace/name
	Class string `json:"class"`
	// Outcome is Provisioned, BookingExpired, Failed or Waiting; Reason
	// the reason of that condition ("" for Waiting untried).
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// ProvisionedSeconds is when it became Provisioned (-1: never);
	// Attempts how often its class ran for it.
	ProvisionedSeconds float64 `json:"provisionedSeconds"`
	Attempts           int     `json:"attempts"`
}

// provReqStats are the requests' figures.
func (p *provReqs) stats() *ProvReqStats {
	if p == nil {
		return nil
	}
	s := &ProvReqStats{Requests: len(p.reqs), Each: []ProvReqOutcome{}}
	for _, r := range p.reqs {
		o := ProvReqOutcome{Name: r.req.String(), Class: r.req.Class, Outcome: "Waiting", ProvisionedSeconds: -1, Attempts: r.attempts}
		if r.provisionedAt != never {
			s.Provisioned++
			o.ProvisionedSeconds = round3(r.provisionedAt.Seconds())
		}
		c := &r.cond[condProvisioned]
		switch {
		case r.is(condFailed):
			s.Failed++
			o.Outcome, c = provreq.Failed, &r.cond[condFailed]
		case r.is(condBookingExpired):
			s.BookingExpired++
			o.Outcome, c = provreq.BookingExpired, &r.cond[condBookingExpired]
		case r.is(condProvisioned):
			o.Outcome = provreq.Provisioned
		default:
			s.Waiting++
		}
		o.Reason = c.reason
		s.Each = append(s.Each, o)
	}
	return s
}

// GroupStats is one node group's part of the report.
type GroupStats struct {
	Name           string `json:"name"`
	ASGName        string `json:"asgName"`
	Autoscaled     bool   `json:"autoscaled"`
	ScaleUps       int    `json:"scaleUps"`
	FailedScaleUps int    `json:"failedScaleUps"`
	NodesAdded     int    `json:"nodesAdded"`
	// NodesAdopted counts the start nodes adopted as the group's
	// instances (Adopt); omitted when none.
	NodesAdopted   int `json:"nodesAdopted,omitempty"`
	NodesRemoved   int `json:"nodesRemoved"`
	NodesReclaimed int `json:"nodesReclaimed"`
	Replacements   int `json:"replacements"`
	// SpotDrains counts spot nodes drained ahead of EC2 taking them back
	// (EKS for managed groups, aws-node-termination-handler for others);
	// omitted when none.
	SpotDrains     int     `json:"spotDrains,omitempty"`
	LaunchFailures int     `json:"launchFailures"`
	ASGRetries     int     `json:"asgRetries"`
	RaceNodes      int     `json:"raceNodes"`
	BackoffSeconds float64 `json:"backoffSeconds"`
	// PendingToReadySeconds: from the oldest pending pod a node was
	// launched for to the node being Ready.
	PendingToReadySeconds Quantiles `json:"pendingToReadySeconds"`
	DesiredAtEnd          int       `json:"desiredAtEnd"`
	NodesAtEnd            int       `json:"nodesAtEnd"`

	// ScaleUpTimeouts, UnregisteredNodesRemoved, LongUnregisteredAtEnd:
	// the group's part of the figures of the same name in Stats.
	ScaleUpTimeouts          int `json:"scaleUpTimeouts"`
	UnregisteredNodesRemoved int `json:"unregisteredNodesRemoved"`
	LongUnregisteredAtEnd    int `json:"longUnregisteredAtEnd"`
	// UnreadyNodesRemoved, UnreadyAtEnd: the group's part of Stats'.
	UnreadyNodesRemoved int `json:"unreadyNodesRemoved,omitempty"`
	UnreadyAtEnd        int `json:"unreadyAtEnd,omitempty"`

	pendingToReady []float64
}

// Quantiles summarises durations in seconds (empirical quantiles,
// rounded to the millisecond).
type Quantiles struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	Max   float64 `json:"max"`
}

type statsState struct {
	scaleUps, failedScaleUps, nodesAdded, nodesRemoved, nodesReclaimed, spotDrains int
	raceNodes, launchFailures, failedScaleDowns, loops                             int
	asgRetries, scaleUpTimeouts, unregisteredRemoved                               int
	unreadyRemoved, unhealthyLoops                                                 int
	busy, maxWait                                                                  time.Duration
}

// Stats returns the counters so far.
func (a *Autoscaler) Stats() Stats {
	now := a.eng.Now()
	s := Stats{
		ScaleUps: a.stats.scaleUps, FailedScaleUps: a.stats.failedScaleUps, NodesAdded: a.stats.nodesAdded,
		NodesRemoved: a.stats.nodesRemoved, NodesReclaimed: a.stats.nodesReclaimed, SpotDrains: a.stats.spotDrains, RaceNodes: a.stats.raceNodes,
		LaunchFailures: a.stats.launchFailures, ASGRetries: a.stats.asgRetries, FailedScaleDowns: a.stats.failedScaleDowns, Loops: a.stats.loops,
		BusySeconds: math.Round(a.stats.busy.Seconds()*1e3) / 1e3, MaxWaitSeconds: math.Round(a.stats.maxWait.Seconds()*1e3) / 1e3,
		ScaleUpTimeouts: a.stats.scaleUpTimeouts, UnregisteredNodesRemoved: a.stats.unregisteredRemoved,
		UnreadyNodesRemoved: a.stats.unreadyRemoved, UnhealthyLoops: a.stats.unhealthyLoops,
		NodeGroups: []GroupStats{}, ScaleDownBlockedNodes: map[string]int{},
	}
	for why, nodes := range a.plan.blocked {
		s.ScaleDownBlockedNodes[why] = len(nodes)
	}
	var all []float64
	for _, g := range a.groups {
		gs := g.stats
		gs.BackoffSeconds = round3(g.bo.seconds(now))
		gs.PendingToReadySeconds = quantiles(g.stats.pendingToReady)
		gs.DesiredAtEnd = g.target
		gs.NodesAtEnd = len(g.nodes)
		for _, id := range g.nodes {
			nd := &a.cl.Nodes[id]
			switch {
			case nd.RegisteredNotReady():
				gs.UnreadyAtEnd++
			case nd.State == cluster.NodeLaunching && nd.Launched+a.s.MaxNodeProvisionTime < now:
				gs.LongUnregisteredAtEnd++
			}
		}
		s.LongUnregisteredAtEnd += gs.LongUnregisteredAtEnd
		s.UnreadyAtEnd += gs.UnreadyAtEnd
		gs.pendingToReady = nil
		s.BackoffSeconds += gs.BackoffSeconds
		all = append(all, g.stats.pendingToReady...)
		s.NodeGroups = append(s.NodeGroups, gs)
	}
	s.ProvisioningRequests = a.prq.stats()
	s.BackoffSeconds = round3(s.BackoffSeconds)
	s.PendingToReadySeconds = quantiles(all)
	sort.SliceStable(s.NodeGroups, func(i, j int) bool { return s.NodeGroups[i].Name < s.NodeGroups[j].Name })
	return s
}

func quantiles(xs []float64) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	return Quantiles{
		Count: len(sorted),
		P50:   round3(stat.Quantile(0.5, stat.Empirical, sorted, nil)),
		Max:   round3(sorted[len(sorted)-1]),
	}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
