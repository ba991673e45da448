package report

import (
	"io"
	"math"
	"slices"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// SchemaVersion of the JSON report. Keys are only ever added; a rename or a
// change of meaning bumps it.
const SchemaVersion = 1

// Report is the summary of one run. Its JSON form is documented in
// docs/report.md; key order is fixed, so the same run gives the same
// bytes: Summary's keys, then each model's own section (Models, in the
// order the run built the models), then Details' keys.
type Report struct {
	Summary
	// Models are the sections of the models with figures of their own
	// (karpenter, clusterAutoscaler), present when the scenario runs them.
	Models []ModelSection `json:"-"`
	Details
	// Timeline is the run over time, written last under "timeline"; nil
	// when the collector kept none.
	Timeline *Timeline `json:"-"`
	// Lead is the run's conclusion (sim/verdict writes it), which the
	// HTML page shows first; empty when the caller set none.
	Lead Lead `json:"-"`
}

// Lead is a run's verdict: what happened and why, what it cost (Summary),
// and the command to run next (Next, or "").
type Lead struct {
	Summary string
	Next    string
}

// Summary is the run and the figures every run has, up to the EC2 side.
type Summary struct {
	SchemaVersion   int     `json:"schemaVersion"`
	Scenario        string  `json:"scenario"`
	Seed            uint64  `json:"seed"`
	DurationSeconds float64 `json:"durationSeconds"`
	// Partial marks a run stopped early (Ctrl-C): the figures cover
	// durationSeconds of simulated time only.
	Partial      bool         `json:"partial,omitempty"`
	Pods         Pods         `json:"pods"`
	Cost         Cost         `json:"cost"`
	Nodes        Nodes        `json:"nodes"`
	Scheduler    Scheduler    `json:"scheduler"`
	Controllers  Controllers  `json:"controllers"`
	Provisioning Provisioning `json:"provisioning"`
	Spot         Spot         `json:"spot"`
	// Reservations are the capacity reservations, billed used or not;
	// absent when there are none.
	Reservations []Reservation `json:"reservations,omitempty"`
}

// Reservation is one capacity reservation's books over the run.
type Reservation struct {
	ID           string `json:"id"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	// Type is default (an ODCR) or capacity-block.
	Type  string `json:"type"`
	Count int    `json:"count"`
	// ReservedHours are the instance-hours billed, UsedHours those
	// instances ran in it; UtilizationPct is 100 x used / reserved.
	ReservedHours  float64 `json:"reservedHours"`
	UsedHours      float64 `json:"usedHours"`
	UtilizationPct float64 `json:"utilizationPct"`
	CostUSD        float64 `json:"costUSD"`
}

// Details are the figures written after the models' sections: races,
// complexity, the engine, per workload and per unschedulable pod.
type Details struct {
	Races      Races      `json:"races"`
	Complexity Complexity `json:"complexity"`
	Engine     Engine     `json:"engine"`
	Workloads  []Workload `json:"workloads"`
	// UnschedulablePods lists every pod the scheduler ever failed to
	// place, with its last fit error, in creation order, but those bound
	// at once (AtOnce: they never waited).
	UnschedulablePods []UnschedulablePod `json:"unschedulablePods"`
	Warnings          []string           `json:"warnings"`
}

// UnschedulablePod is one pod that was ever unschedulable.
type UnschedulablePod struct {
	Pod      string `json:"pod"` // namespace/name
	Workload string `json:"workload,omitempty"`
	// Attempts is the number of scheduling cycles it went through.
	Attempts int32 `json:"attempts"`
	// Bound says whether it was placed in the end.
	Bound          bool    `json:"bound"`
	PendingSeconds float64 `json:"pendingSeconds"`
	Stranded       bool    `json:"stranded"`
	// Message and Reasons are its last fit error: what kubectl describe
	// shows, and the node count per reason.
	Message string         `json:"message"`
	Reasons map[string]int `json:"reasons"`
}

// Pods counts pods over the run.
type Pods struct {
	Total          int         `json:"total"`
	Scheduled      int         `json:"scheduled"` // ever bound
	PendingAtEnd   int         `json:"pendingAtEnd"`
	Stranded       int         `json:"stranded"`
	Succeeded      int         `json:"succeeded"`
	Deleted        int         `json:"deleted"` // removed before finishing (scale-down, eviction, node loss)
	PendingSeconds Percentiles `json:"pendingSeconds"`
	// WaitedOnIPs counts pods that stayed ContainerCreating, bound but
	// without an address of their node's subnet (spec.network), and
	// IPWaitSeconds the seconds they waited in all (one still waiting at
	// the end counts until the end); omitted when none.
	WaitedOnIPs   int     `json:"waitedOnIPs,omitempty"`
	IPWaitSeconds float64 `json:"ipWaitSeconds,omitempty"`
	// Volumes counts the storage model's work; omitted in a scenario
	// without StorageClasses, volumes or claims.
	Volumes *Volumes `json:"volumes,omitempty"`
}

// Volumes counts claims and volumes over the run.
type Volumes struct {
	ClaimsCreated      int `json:"claimsCreated"`
	VolumesProvisioned int `json:"volumesProvisioned"`
	// WaitedOnAttach counts pods that waited, bound, for their volume to
	// detach from another node, AttachWaitSeconds the seconds in all.
	WaitedOnAttach    int     `json:"waitedOnAttach"`
	AttachWaitSeconds float64 `json:"attachWaitSeconds"`
	// ForceDetached counts volumes whose pod went away with its node
	// (no unmount) that the attach/detach controller force-detached 6
	// minutes later.
	ForceDetached int `json:"forceDetached"`
}

// Percentiles of a sample, in seconds, rounded to the millisecond.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Cost in USD, by capacity type.
type Cost struct {
	TotalUSD    float64 `json:"totalUSD"`
	SpotUSD     float64 `json:"spotUSD"`
	OnDemandUSD float64 `json:"onDemandUSD"`
	// OnDemandEquivalentUSD prices the same node-seconds on demand: the
	// all-on-demand counterfactual. SavingsPct is 100 x (1 - total /
	// equivalent).
	OnDemandEquivalentUSD float64 `json:"onDemandEquivalentUSD"`
	SavingsPct            float64 `json:"savingsPct"`
	// IdleUSD is what the unrequested part of the nodes cost: price x (1 -
	// the larger of the requested cpu and memory shares) over time.
	IdleUSD float64 `json:"idleUSD"`
	// OverlaidUSD is the total with each node whose price a NodeOverlay
	// changed at that price instead of EC2's (what a Savings Plan or
	// licence overlay says the node costs); absent when no node's was.
	OverlaidUSD float64 `json:"overlaidUSD,omitempty"`
	// ReservationsUSD is what the capacity reservations cost, used or not
	// (their instances themselves cost nothing while reserved); part of
	// totalUSD, absent without reservations.
	ReservationsUSD float64 `json:"reservationsUSD,omitempty"`
	// PodHours is the time pods spent bound to nodes; PerPodHourUSD and
	// PerRequestedCPUHourUSD divide the total by it and by requested
	// CPU-core-hours.
	PodHours               float64 `json:"podHours"`
	PerPodHourUSD          float64 `json:"perPodHourUSD"`
	PerRequestedCPUHourUSD float64 `json:"perRequestedCPUHourUSD"`
}

// Nodes counts nodes and node-hours.
type Nodes struct {
	Initial       int     `json:"initial"` // present at the start (static pools, Node manifests, node groups' desired capacity)
	Launched      int     `json:"launched"`
	Terminated    int     `json:"terminated"`
	Peak          int     `json:"peak"`
	AtEnd         int     `json:"atEnd"`
	SpotHours     float64 `json:"spotHours"`
	OnDemandHours float64 `json:"onDemandHours"`
	// Failed counts the nodes the scenario's node failures made unhealthy
	// (spec.nodeFailures); absent when none.
	Failed int `json:"failed,omitempty"`
	// UnhealthyHours is the node-hours those nodes spent unhealthy;
	// absent when none failed.
	UnhealthyHours float64 `json:"unhealthyHours,omitempty"`
}

// Scheduler counts scheduling work.
type Scheduler struct {
	Attempts uint64 `json:"attempts"`
	Failed   uint64 `json:"failed"` // attempts that found no node
	// BusySeconds is the virtual time scheduling cycles took
	// (spec.computeTime); MaxWaitSeconds the longest a pod waited from
	// entering the active queue to the end of its cycle.
	BusySeconds    float64 `json:"busySeconds"`
	MaxWaitSeconds float64 `json:"maxWaitSeconds"`
}

// Controllers counts what the workload controllers did.
type Controllers struct {
	PodsCreated  uint64 `json:"podsCreated"`
	PodsReplaced uint64 `json:"podsReplaced"` // replacements of pods lost to eviction, preemption or node loss
	// Resubmissions counts pods a fallback controller resubmitted with its
	// other spec.
	Resubmissions  uint64 `json:"resubmissions"`
	JobsArrived    uint64 `json:"jobsArrived"`
	JobsCompleted  uint64 `json:"jobsCompleted"`
	JobsFailed     uint64 `json:"jobsFailed"` // hit their backoffLimit or activeDeadlineSeconds
	JobPodFailures uint64 `json:"jobPodFailures"`
	// LostPodSeconds is the run time, in seconds from start (Running) to
	// deletion, of the Job pods deleted before they succeeded (evicted,
	// preempted, lost with their node, deleted with their failed Job or a
	// Job a CronJob replaced): work paid for and thrown away. A pod still
	// running at the end is not counted.
	LostPodSeconds float64 `json:"lostPodSeconds"`
	// FailedJobs are the Jobs that failed, in the order they did; absent
	// when none did.
	FailedJobs []FailedJob `json:"failedJobs,omitempty"`
}

// FailedJob is one Job that failed: which, when and why.
type FailedJob struct {
	Job       string  `json:"job"`      // namespace/name
	Workload  string  `json:"workload"` // the workload it is an arrival of
	AtSeconds float64 `json:"atSeconds"`
	// Reason is why: "exceeded backoffLimit 6 after 7 pod failures (7
	// nodeGone)" or "exceeded activeDeadlineSeconds 600 with 3 of 10
	// completions".
	Reason string `json:"reason"`
}

// Provisioning counts requests to EC2.
type Provisioning struct {
	LaunchRequests uint64 `json:"launchRequests"`
	Launches       uint64 `json:"launches"`
	LaunchFailures uint64 `json:"launchFailures"` // requests where every offering failed
	// InsufficientCapacityErrors counts offerings that failed with a
	// capacity error (several per request when several failed).
	InsufficientCapacityErrors uint64 `json:"insufficientCapacityErrors"`
	// DepthRefusals counts the insufficient-capacity errors of pools whose
	// depth (instances obtainable at once) was used up.
	DepthRefusals uint64 `json:"depthRefusals"`
	// PartialFulfilments counts requests (one autoscaler's launches at one
	// instant, as one EC2 Fleet request or one ASG scale-up) of which some
	// got instances and some did not.
	PartialFulfilments uint64 `json:"partialFulfilments"`
	// InsufficientAddressErrors counts offerings that failed with
	// InsufficientFreeAddressesInSubnet (spec.network); omitted when none.
	InsufficientAddressErrors uint64 `json:"insufficientAddressErrors,omitempty"`
	// Pools are the capacity pools launches tried, by instance type, zone
	// and capacity type.
	Pools []PoolLaunches `json:"pools"`
}

// PoolLaunches are one capacity pool's launches.
type PoolLaunches struct {
	Pool     string `json:"pool"`     // instanceType/zone/capacityType
	Asked    uint64 `json:"asked"`    // launches that tried the pool
	Obtained uint64 `json:"obtained"` // launches it filled
	// Refused counts launches it refused with a capacity error; of them
	// DepthRefused because its depth was used up.
	Refused      uint64 `json:"refused"`
	DepthRefused uint64 `json:"depthRefused"`
}

// Spot counts the market's signals.
type Spot struct {
	Interruptions            uint64 `json:"interruptions"` // two-minute notices
	RebalanceRecommendations uint64 `json:"rebalanceRecommendations"`
	Reclaims                 uint64 `json:"reclaims"` // instances taken back
}

// Races counts nodes launched for pods that the other autoscaler also
// launched for (Karpenter and the Cluster Autoscaler both serving one
// pod): the later launches are the extra ones.
type Races struct {
	Pods    int     `json:"pods"`    // pods both autoscalers launched for
	Nodes   int     `json:"nodes"`   // the later-launched nodes of those races
	CostUSD float64 `json:"costUSD"` // what those nodes cost
}

// Complexity weighs a setup's savings against its churn.
type Complexity struct {
	// ControllerActions sums launches, node terminations, evictions and
	// resubmissions: the things operators see in their event streams.
	ControllerActions          uint64  `json:"controllerActions"`
	Launches                   uint64  `json:"launches"`
	Terminations               uint64  `json:"terminations"`
	Evictions                  uint64  `json:"evictions"`
	Resubmissions              uint64  `json:"resubmissions"`
	InsufficientCapacityErrors uint64  `json:"insufficientCapacityErrors"`
	Interruptions              uint64  `json:"interruptions"`
	NodesChurnedPerHour        float64 `json:"nodesChurnedPerHour"` // (launched + terminated) / hours
}

// Engine describes the simulation itself. Wall-clock figures never appear
// here (they go to stderr), so reports stay byte-identical across runs.
type Engine struct {
	Events uint64 `json:"events"`
}

// Workload is the per-workload summary.
type Workload struct {
	Ref            string      `json:"ref"`
	Pods           int         `json:"pods"`
	Scheduled      int         `json:"scheduled"`
	PendingAtEnd   int         `json:"pendingAtEnd"`
	Stranded       int         `json:"stranded"`
	PendingSeconds Percentiles `json:"pendingSeconds"`
	// StrandedReason is the scheduler's most frequent last message for the
	// stranded pods ("0/6 nodes are available: ...").
	StrandedReason string `json:"strandedReason,omitempty"`
	// UnschedulablePods counts its pods that were ever unschedulable;
	// UnschedulableReasons counts, per reason, those of them whose last
	// fit error gave it; WaitReason is their most frequent last message.
	UnschedulablePods    int            `json:"unschedulablePods"`
	UnschedulableReasons map[string]int `json:"unschedulableReasons,omitempty"`
	WaitReason           string         `json:"waitReason,omitempty"`
	// Jobs only: instances completed and failed, pods resubmitted, and
	// the run time of pods lost before they finished.
	JobsCompleted  int     `json:"jobsCompleted,omitempty"`
	JobsFailed     int     `json:"jobsFailed,omitempty"`
	Resubmissions  int     `json:"resubmissions,omitempty"`
	LostPodSeconds float64 `json:"lostPodSeconds,omitempty"`
}

// Inputs is what Build needs besides the collector: the run's figures and
// each model's, filled by the part of the run that built the model.
type Inputs struct {
	Scenario string
	Seed     uint64
	End      engine.Time
	Events   uint64
	Attempts uint64
	Failed   uint64
	// SchedulerBusy and SchedulerMaxWait are the scheduler's computing
	// time and the longest wait on it.
	SchedulerBusy, SchedulerMaxWait time.Duration
	WorkloadRefs                    []string
	// WorkloadExtras are per-workload controller figures, by workload.
	WorkloadExtras []WorkloadExtra
	Controllers    Controllers
	Warnings       []string
	Provisioning   Provisioning
	Spot           Spot
	// Reservations are the capacity reservations' books.
	Reservations []Reservation
	// Models are the models with figures of their own, in the order the
	// run built them: each gives its section as of the build.
	Models []Section
	// Evictions counts evictions through the eviction API (drains).
	Evictions uint64
	// IPWaitPods and IPWaitSeconds: pods that waited for an address of
	// their node's subnet, and how long in all.
	IPWaitPods    int
	IPWaitSeconds float64
	// NodeFailures: nodes spec.nodeFailures made unhealthy.
	NodeFailures   int
	UnhealthyHours float64
	// Volumes is the storage model's counters (nil without storage).
	Volumes *Volumes
	// NodeCost, when set, bills a node from launch until a time (e.g. along
	// the market's price path); !ok falls back to its price.
	NodeCost func(n *cluster.Node, until engine.Time) (usd float64, ok bool)
	// OnDemandEquivalent, when set, prices what a node would have cost on
	// demand from launch until a time, over the same billed time as
	// NodeCost (the all-on-demand counterfactual); !ok falls back to
	// OnDemandPrice.
	OnDemandEquivalent func(n *cluster.Node, until engine.Time) (usd float64, ok bool)
	// OnDemandPrice prices an instance type on demand (USD/h), for the
	// all-on-demand counterfactual of a node NodeCost does not bill; nil
	// or !ok prices a node at its own price.
	OnDemandPrice func(instanceType string) (float64, bool)
	// Failure returns a pod's last fit error (ok false if it never had
	// one) and its scheduling attempts.
	Failure func(cluster.PodID) (f Failure, attempts int32, ok bool)
}

// WorkloadExtra are a workload's controller figures.
type WorkloadExtra struct {
	JobsCompleted, JobsFailed, Resubmissions int
	LostPodSeconds                           float64
}

// Failure is a fit error as the scheduler reports it.
type Failure struct {
	Message string
	Reasons map[string]int
}

// Build closes the collector's books and returns the report.
func (c *Collector) Build(in Inputs) *Report {
	timeline := c.finishTimeline(in.End)
	pendingAtEnd, nodeUSD := c.finish(in.End, in.NodeCost)
	r := &Report{
		Summary: Summary{
			SchemaVersion:   SchemaVersion,
			Scenario:        in.Scenario,
			Seed:            in.Seed,
			DurationSeconds: round3(in.End.Seconds()),
			Controllers:     in.Controllers,
			Provisioning:    in.Provisioning,
			Spot:            in.Spot,
			Reservations:    in.Reservations,
			Scheduler:       Scheduler{Attempts: in.Attempts, Failed: in.Failed, BusySeconds: round3(in.SchedulerBusy.Seconds()), MaxWaitSeconds: round3(in.SchedulerMaxWait.Seconds())},
		},
		Details: Details{
			Engine:    Engine{Events: in.Events},
			Warnings:  in.Warnings,
			Workloads: []Workload{},
		},
		Timeline: timeline,
	}
	if r.Provisioning.Pools == nil {
		r.Provisioning.Pools = []PoolLaunches{}
	}
	for _, m := range in.Models {
		key, figures := m.ReportSection()
		r.Models = append(r.Models, ModelSection{Key: key, Figures: figures})
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	r.Pods.WaitedOnIPs, r.Pods.IPWaitSeconds = in.IPWaitPods, round3(in.IPWaitSeconds)
	if v := in.Volumes; v != nil {
		c := *v
		c.AttachWaitSeconds = round3(c.AttachWaitSeconds)
		r.Pods.Volumes = &c
	}
	for i := range c.cl.Pods {
		p := &c.cl.Pods[i]
		r.Pods.Total++
		switch p.Phase {
		case cluster.Succeeded:
			r.Pods.Succeeded++
		case cluster.Deleted:
			r.Pods.Deleted++
		}
		if p.Phase != cluster.Pending && (p.Phase != cluster.Deleted || p.Node != cluster.NoNode) {
			r.Pods.Scheduled++
		}
	}
	r.Pods.PendingAtEnd = pendingAtEnd
	for _, s := range c.stranded {
		if s {
			r.Pods.Stranded++
		}
	}
	r.Pods.PendingSeconds = percentiles(c.pending)

	r.Cost.SpotUSD = round6(c.costUSD[cluster.Spot])
	r.Cost.OnDemandUSD = round6(c.costUSD[cluster.OnDemand] + c.costUSD[cluster.Reserved])
	total := c.costUSD[cluster.Spot] + c.costUSD[cluster.OnDemand] + c.costUSD[cluster.Reserved]
	for _, rs := range in.Reservations {
		r.Cost.ReservationsUSD += rs.CostUSD
	}
	total += r.Cost.ReservationsUSD
	r.Cost.ReservationsUSD = round6(r.Cost.ReservationsUSD)
	r.Cost.TotalUSD = round6(total)
	var equivalent, podSecs, cpuSecs, overlaid float64
	anyOverlaid := false
	for i := range c.cl.Nodes {
		n := &c.cl.Nodes[i]
		until := in.End
		if n.State == cluster.NodeGone {
			until = n.Deleted
		}
		if n.PriceOverlaid {
			anyOverlaid = true
			overlaid += (until - n.Launched).Seconds() * (n.OverlaidUSDPerHour - n.PriceUSDPerHour) / 3600
		}
		// The counterfactual bills the time the cost bills: from the
		// instance's launch, per second rounded up, at least a minute
		// (spotmarket). Pricing the node's lifetime instead gave an
		// all-on-demand run savings of a few thousandths of a percent,
		// either way.
		if in.OnDemandEquivalent != nil {
			if usd, ok := in.OnDemandEquivalent(n, until); ok {
				equivalent += usd
				continue
			}
		}
		price := n.PriceUSDPerHour
		if in.OnDemandPrice != nil {
			if p, ok := in.OnDemandPrice(n.InstanceType); ok {
				price = p
			}
		}
		equivalent += (until - n.Launched).Seconds() * price / 3600
	}
	for i := range c.cl.Pods {
		p := &c.cl.Pods[i]
		if !p.Phase.OnNode() && (p.Node == cluster.NoNode || p.Phase == cluster.Pending) {
			continue
		}
		until := in.End
		if p.Phase.Terminal() {
			until = p.Ended
		}
		secs := (until - p.BoundAt).Seconds()
		podSecs += secs
		cpuSecs += secs * float64(p.Spec.Requests[cluster.CPU]) / 1000
	}
	r.Cost.OnDemandEquivalentUSD = round6(equivalent)
	if anyOverlaid {
		r.Cost.OverlaidUSD = round6(max(total+overlaid, 0))
	}
	if equivalent > 0 {
		r.Cost.SavingsPct = round3(100 * (1 - total/equivalent))
		if r.Cost.SavingsPct == 0 {
			r.Cost.SavingsPct = 0 // not -0 from a rounded tiny negative
		}
	}
	r.Cost.IdleUSD = round6(c.idleUSD)
	r.Cost.PodHours = round3(podSecs / 3600)
	if podSecs > 0 {
		r.Cost.PerPodHourUSD = round6(total / (podSecs / 3600))
	}
	if cpuSecs > 0 {
		r.Cost.PerRequestedCPUHourUSD = round6(total / (cpuSecs / 3600))
	}
	r.Nodes = Nodes{
		Initial:        c.initialNodes,
		Launched:       c.launched,
		Terminated:     c.terminated,
		Peak:           c.peak,
		AtEnd:          c.live,
		SpotHours:      round3(c.nodeSeconds[cluster.Spot] / 3600),
		OnDemandHours:  round3((c.nodeSeconds[cluster.OnDemand] + c.nodeSeconds[cluster.Reserved]) / 3600),
		Failed:         in.NodeFailures,
		UnhealthyHours: round3(in.UnhealthyHours),
	}

	pendingByWL := make([]int, len(c.byWL))
	for i := range c.cl.Pods {
		if p := &c.cl.Pods[i]; p.Phase == cluster.Pending && p.Workload >= 0 {
			pendingByWL[p.Workload]++
		}
	}
	for i, acc := range c.byWL {
		w := Workload{
			Ref:            in.WorkloadRefs[i],
			Pods:           acc.pods,
			Scheduled:      acc.scheduled,
			PendingAtEnd:   pendingByWL[i],
			Stranded:       acc.stranded,
			PendingSeconds: percentiles(acc.pending),
		}
		if i < len(in.WorkloadExtras) {
			x := in.WorkloadExtras[i]
			w.JobsCompleted, w.JobsFailed, w.Resubmissions = x.JobsCompleted, x.JobsFailed, x.Resubmissions
			w.LostPodSeconds = round3(x.LostPodSeconds)
		}
		r.Workloads = append(r.Workloads, w)
	}
	r.Races = c.races(nodeUSD)
	r.Complexity = Complexity{
		Launches:                   uint64(r.Nodes.Launched),
		Terminations:               uint64(r.Nodes.Terminated),
		Evictions:                  in.Evictions,
		Resubmissions:              in.Controllers.Resubmissions,
		InsufficientCapacityErrors: in.Provisioning.InsufficientCapacityErrors,
		Interruptions:              in.Spot.Interruptions,
	}
	r.Complexity.ControllerActions = r.Complexity.Launches + r.Complexity.Terminations + r.Complexity.Evictions + r.Complexity.Resubmissions
	if hours := in.End.Hours(); hours > 0 {
		r.Complexity.NodesChurnedPerHour = round3(float64(r.Nodes.Launched+r.Nodes.Terminated) / hours)
	}
	r.UnschedulablePods = []UnschedulablePod{}
	if in.Failure != nil {
		c.unschedulable(r, in.Failure)
	}
	return r
}

// races finds pods that both Karpenter and the Cluster Autoscaler launched
// a node for; of each race the nodes after the first are extra.
func (c *Collector) races(nodeUSD []float64) Races {
	var out Races
	extra := map[cluster.NodeID]bool{}
	for i := range c.cl.Pods {
		nodes := c.cl.LaunchedFor(cluster.PodID(i))
		if len(nodes) < 2 {
			continue
		}
		owners := map[cluster.OwnerKind]bool{}
		for _, n := range nodes {
			owners[c.cl.Nodes[n].Owner] = true
		}
		if len(owners) < 2 {
			continue // one autoscaler relaunching is not a race
		}
		out.Pods++
		first := nodes[0]
		for _, n := range nodes[1:] {
			if c.cl.Nodes[n].Owner != c.cl.Nodes[first].Owner {
				extra[n] = true
			}
		}
	}
	ids := make([]cluster.NodeID, 0, len(extra))
	for n := range extra {
		ids = append(ids, n)
	}
	slices.Sort(ids) // a fixed order keeps the float sum byte-identical
	for _, n := range ids {
		out.Nodes++
		out.CostUSD += nodeUSD[n]
	}
	out.CostUSD = round6(out.CostUSD)
	return out
}

// AtOnce is the wait under which a pod bound after a failed attempt
// counts as bound at once, not as having waited: the scheduler's default
// initial backoff (podInitialBackoffSeconds 1), so a pod under it was
// retried on the cluster event that let it fit, in the same instant or
// the next cycle.
const AtOnce = time.Second

// unschedulable fills the per-pod fit errors and their per-workload
// summaries. A pod bound at once (AtOnce) is left out: it never waited.
func (c *Collector) unschedulable(r *Report, failure func(cluster.PodID) (Failure, int32, bool)) {
	msgs := make([]map[string]int, len(r.Workloads))
	stranded := make([]map[string]int, len(r.Workloads))
	for i := range c.cl.Pods {
		id := cluster.PodID(i)
		f, attempts, ok := failure(id)
		if !ok {
			continue
		}
		p := &c.cl.Pods[i]
		bound := p.Phase != cluster.Pending && (p.Phase != cluster.Deleted || p.Node != cluster.NoNode)
		if bound && c.waited[id] < AtOnce {
			// Bound at once: its fit error (often "0/0 nodes are
			// available." from before the first nodes) held it back no
			// time, and is no reason for its workload's wait.
			continue
		}
		e := UnschedulablePod{
			Pod:      c.cl.Syms.Name(p.Namespace) + "/" + p.Name,
			Attempts: attempts,
			Bound:    bound,
			Stranded: int(id) < len(c.stranded) && c.stranded[id],
			Message:  f.Message,
			Reasons:  f.Reasons,
		}
		e.PendingSeconds = round3(c.waited[id].Seconds())
		if w := p.Workload; w >= 0 {
			e.Workload = r.Workloads[w].Ref
			wl := &r.Workloads[w]
			wl.UnschedulablePods++
			if wl.UnschedulableReasons == nil {
				wl.UnschedulableReasons = map[string]int{}
				msgs[w] = map[string]int{}
				stranded[w] = map[string]int{}
			}
			for reason := range f.Reasons {
				wl.UnschedulableReasons[reason]++
			}
			msgs[w][f.Message]++
			if e.Stranded {
				stranded[w][f.Message]++
			}
		}
		r.UnschedulablePods = append(r.UnschedulablePods, e)
	}
	for w := range r.Workloads {
		r.Workloads[w].WaitReason = mostFrequent(msgs[w])
		r.Workloads[w].StrandedReason = mostFrequent(stranded[w])
	}
}

// mostFrequent returns the most common message, ties to the lexically
// smallest.
func mostFrequent(counts map[string]int) string {
	best, n := "", 0
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return best
}

// percentiles uses the empirical quantile (the smallest value whose
// cumulative share reaches p) from gonum.
func percentiles(samples []time.Duration) Percentiles {
	if len(samples) == 0 {
		return Percentiles{}
	}
	xs := make([]float64, len(samples))
	for i, d := range samples {
		xs[i] = d.Seconds()
	}
	slices.Sort(xs)
	q := func(p float64) float64 { return round3(stat.Quantile(p, stat.Empirical, xs, nil)) }
	return Percentiles{
		P50:  q(0.50),
		P95:  q(0.95),
		P99:  q(0.99),
		Max:  round3(xs[len(xs)-1]),
		Mean: round3(stat.Mean(xs, nil)),
	}
}

func round3(x float64) float64 { return math.Round(x*1e3) / 1e3 }
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// WriteJSON writes the report as indented JSON with a final newline: the
// bytes of JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	data, err := r.JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
