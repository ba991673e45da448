package report

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Timeline is the run sampled at a fixed interval, and what happened in
// between as a list of events (docs/report.md, "timeline"). Every series
// has one value per sample time T; a sample at T is the state once every
// event at or before T has happened.
type Timeline struct {
	// IntervalSeconds between samples: TimelineInterval of the duration.
	IntervalSeconds float64 `json:"intervalSeconds"`
	// T are the sample times in seconds since the start: 0, interval, ...
	// up to the end of the run.
	T []float64 `json:"t"`
	// PendingPods are unbound pods; StrandedPods those of them whose wait
	// so far exceeds the scenario's strandedAfter (the report's
	// definition of stranded); StartingPods are bound but not yet running
	// (start delay, waiting for an address); RunningPods are running.
	PendingPods  []int32 `json:"pendingPods"`
	StrandedPods []int32 `json:"strandedPods"`
	StartingPods []int32 `json:"startingPods"`
	RunningPods  []int32 `json:"runningPods"`
	// Nodes by capacity type: live nodes (launched, not yet removed).
	SpotNodes     []int32 `json:"spotNodes"`
	OnDemandNodes []int32 `json:"onDemandNodes"`
	ReservedNodes []int32 `json:"reservedNodes"`
	// Pools are the live nodes by NodePool, node group or static pool, in
	// order of their first node.
	Pools []PoolSeries `json:"pools"`
	// CostUSDPerHour is the price per hour of the live nodes (each at its
	// price at launch); CostUSD its integral since the start.
	// OnDemandEquivalent* price the same nodes on demand, as
	// cost.onDemandEquivalentUSD does.
	CostUSDPerHour               []float64 `json:"costUSDPerHour"`
	CostUSD                      []float64 `json:"costUSD"`
	OnDemandEquivalentUSDPerHour []float64 `json:"onDemandEquivalentUSDPerHour"`
	OnDemandEquivalentUSD        []float64 `json:"onDemandEquivalentUSD"`
	// Events are the discrete happenings in time order (TimelineEvent).
	Events []TimelineEvent `json:"events"`
	// Objects are the nodes' and pods' lives, for --metrics' per-node
	// series; nil unless the run kept them (never in the JSON).
	Objects *Objects `json:"-"`
}

// PoolSeries are one pool's nodes over time.
type PoolSeries struct {
	// Owner is static, karpenter or cluster-autoscaler; Name the static
	// pool, NodePool or node group.
	Owner string `json:"owner"`
	Name  string `json:"name"`
	// Nodes are its live nodes; Launched counts the nodes launched into it
	// since the start (not those present at the start).
	Nodes    []int32 `json:"nodes"`
	Launched []int32 `json:"launched"`
	// AllocatableCPU (cores) and AllocatableMemory (bytes) sum its live
	// nodes' allocatable, for --metrics (karpenter_nodes_allocatable);
	// kept in the run, not written to the JSON.
	AllocatableCPU    []float64 `json:"-"`
	AllocatableMemory []float64 `json:"-"`
}

// TimelineEvent is one happening, or several alike: events of the same
// kind, owner, pool, cause and message within one sampling interval are
// merged into the first, whose Count says how many there were.
type TimelineEvent struct {
	T     float64 `json:"t"` // seconds since the start
	Kind  string  `json:"kind"`
	Count int     `json:"count"`
	// Owner is the autoscaler concerned (karpenter, cluster-autoscaler),
	// or the market for scripted events.
	Owner string `json:"owner,omitempty"`
	// Pool is the capacity pool (instanceType/zone/capacityType) of a
	// launch or a spot signal, or the NodePool / node group of a node.
	Pool    string `json:"pool,omitempty"`
	Cause   string `json:"cause,omitempty"`
	Message string `json:"message,omitempty"`
}

// MaxTimelineSamples bounds the samples of a run: TimelineInterval picks
// the finest interval that keeps a run within it.
const MaxTimelineSamples = 1440

// timelineSteps are the intervals TimelineInterval picks from.
var timelineSteps = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// TimelineInterval is the sampling interval of a run of duration d: one
// simulated minute, or the first of 2m, 5m, 10m, 15m, 30m, 1h, 2h, 6h, 12h
// and 1d that gives at most MaxTimelineSamples intervals (a day at 1m, a
// week at 10m).
func TimelineInterval(d time.Duration) time.Duration {
	for _, s := range timelineSteps {
		if d/s <= MaxTimelineSamples {
			return s
		}
	}
	return d / MaxTimelineSamples
}

// TimelineConfig turns the collector's timeline on.
type TimelineConfig struct {
	Interval time.Duration
	// OnDemandPrice prices an instance type on demand (USD/h), as
	// Inputs.OnDemandPrice; nil or !ok prices a node at its own price.
	OnDemandPrice func(instanceType string) (float64, bool)
	// Scripted are events known in advance (the market's script), added
	// to the events in time order.
	Scripted []TimelineEvent
}

// timeline is the collector's running state: counters kept up to date by
// OnChange, read once per sample.
type timeline struct {
	cfg  TimelineConfig
	next engine.Time // the next sample time
	out  Timeline

	pending, starting, running int32
	// stranded counts pending pods older than strandedAfter: cursor walks
	// the pods in creation order (PodIDs are), and a pod it passes while
	// pending counts until it leaves Pending.
	stranded int32
	cursor   int
	nodes    [3]int32 // by CapacityType
	pools    []poolAcc
	poolOf   map[string]int // owner/name -> pools index
	nodePool []int32        // by NodeID: its pools index
	odPrice  map[string]float64

	rate, odRate float64 // USD/h of the live nodes
	cost, odCost float64 // USD until since
	since        engine.Time

	// merge finds the event an event merges into: keys of this interval.
	mergeAt engine.Time
	merge   map[TimelineEvent]int
}

type poolAcc struct {
	nodes, launched int32
	cpu, memory     int64 // allocatable of its live nodes: millicores, bytes
}

// StartTimeline turns the timeline on; call it before the first event.
func (c *Collector) StartTimeline(cfg TimelineConfig) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Minute
	}
	c.tl = &timeline{cfg: cfg, poolOf: map[string]int{}, odPrice: map[string]float64{}, mergeAt: -1}
	c.tl.out.IntervalSeconds = cfg.Interval.Seconds()
}

// clone copies the timeline's books (Collector.Clone).
func (t *timeline) clone() *timeline {
	d := *t
	o := &d.out
	o.T = slices.Clone(o.T)
	o.PendingPods, o.StrandedPods, o.StartingPods, o.RunningPods = slices.Clone(o.PendingPods), slices.Clone(o.StrandedPods), slices.Clone(o.StartingPods), slices.Clone(o.RunningPods)
	o.SpotNodes, o.OnDemandNodes, o.ReservedNodes = slices.Clone(o.SpotNodes), slices.Clone(o.OnDemandNodes), slices.Clone(o.ReservedNodes)
	o.CostUSDPerHour, o.CostUSD = slices.Clone(o.CostUSDPerHour), slices.Clone(o.CostUSD)
	o.OnDemandEquivalentUSDPerHour, o.OnDemandEquivalentUSD = slices.Clone(o.OnDemandEquivalentUSDPerHour), slices.Clone(o.OnDemandEquivalentUSD)
	o.Pools = slices.Clone(o.Pools)
	for i := range o.Pools {
		o.Pools[i].Nodes, o.Pools[i].Launched = slices.Clone(o.Pools[i].Nodes), slices.Clone(o.Pools[i].Launched)
		o.Pools[i].AllocatableCPU, o.Pools[i].AllocatableMemory = slices.Clone(o.Pools[i].AllocatableCPU), slices.Clone(o.Pools[i].AllocatableMemory)
	}
	o.Events = slices.Clone(o.Events)
	d.pools = slices.Clone(t.pools)
	d.nodePool = slices.Clone(t.nodePool)
	d.poolOf, d.odPrice, d.merge = maps.Clone(t.poolOf), maps.Clone(t.odPrice), maps.Clone(t.merge)
	return &d
}

// sampleBefore takes the samples due before now: called first thing on a
// change at now, when the counters still hold the state before it. The
// pod of ch is read as it was before ch.
func (c *Collector) sampleBefore(now engine.Time, ch cluster.Change) {
	t := c.tl
	for t.next < now {
		c.sample(t.next, ch)
		t.next += t.cfg.Interval
	}
}

// sample appends the state at time at. ch is the change being told (its
// pod was still Pending before a PodBound or a PodDeleted while pending),
// or a change of no pod at the end.
func (c *Collector) sample(at engine.Time, ch cluster.Change) {
	t := c.tl
	// Pods created before at - strandedAfter have waited longer than it.
	limit := at - c.strandedAfter
	for t.cursor < len(c.cl.Pods) && c.cl.Pods[t.cursor].Created < limit {
		id := cluster.PodID(t.cursor)
		pending := c.cl.Pods[id].Phase == cluster.Pending
		if id == ch.Pod && (ch.Kind == cluster.PodBound || ch.Kind == cluster.PodDeleted && ch.Node == cluster.NoNode) {
			pending = true // as it was before this change
		}
		if pending {
			t.stranded++
		}
		t.cursor++
	}
	o := &t.out
	o.T = append(o.T, at.Seconds())
	o.PendingPods = append(o.PendingPods, t.pending)
	o.StrandedPods = append(o.StrandedPods, t.stranded)
	o.StartingPods = append(o.StartingPods, t.starting)
	o.RunningPods = append(o.RunningPods, t.running)
	o.OnDemandNodes = append(o.OnDemandNodes, t.nodes[cluster.OnDemand])
	o.SpotNodes = append(o.SpotNodes, t.nodes[cluster.Spot])
	o.ReservedNodes = append(o.ReservedNodes, t.nodes[cluster.Reserved])
	for i := range t.pools {
		o.Pools[i].Nodes = append(o.Pools[i].Nodes, t.pools[i].nodes)
		o.Pools[i].Launched = append(o.Pools[i].Launched, t.pools[i].launched)
		o.Pools[i].AllocatableCPU = append(o.Pools[i].AllocatableCPU, float64(t.pools[i].cpu)/1000)
		o.Pools[i].AllocatableMemory = append(o.Pools[i].AllocatableMemory, float64(t.pools[i].memory))
	}
	hours := (at - t.since).Hours()
	o.CostUSDPerHour = append(o.CostUSDPerHour, round6(t.rate))
	o.CostUSD = append(o.CostUSD, round6(t.cost+t.rate*hours))
	o.OnDemandEquivalentUSDPerHour = append(o.OnDemandEquivalentUSDPerHour, round6(t.odRate))
	o.OnDemandEquivalentUSD = append(o.OnDemandEquivalentUSD, round6(t.odCost+t.odRate*hours))
}

// change updates the counters after the samples due were taken.
func (c *Collector) timelineChange(ch cluster.Change) {
	t := c.tl
	switch ch.Kind {
	case cluster.PodCreated:
		t.pending++
	case cluster.PodBound:
		t.pending--
		t.starting++
		t.leftPending(ch.Pod)
	case cluster.PodStarted:
		t.starting--
		t.running++
	case cluster.PodFinished:
		t.running--
	case cluster.PodDeleted:
		switch {
		case ch.Node == cluster.NoNode:
			t.pending--
			t.leftPending(ch.Pod)
		case c.cl.Pods[ch.Pod].Ran:
			t.running--
		default:
			t.starting--
		}
	case cluster.NodeAdded:
		c.timelineNode(ch.Node, 1)
	case cluster.NodeRemoved:
		c.timelineNode(ch.Node, -1)
	}
}

func (t *timeline) leftPending(id cluster.PodID) {
	if int(id) < t.cursor {
		t.stranded-- // the cursor counted it
	}
}

// timelineNode counts a node in (+1) or out (-1).
func (c *Collector) timelineNode(id cluster.NodeID, d int32) {
	t := c.tl
	n := &c.cl.Nodes[id]
	now := c.cl.Now()
	hours := (now - t.since).Hours()
	t.cost += t.rate * hours
	t.odCost += t.odRate * hours
	t.since = now
	od, ok := t.odPrice[n.InstanceType]
	if !ok {
		od = n.PriceUSDPerHour // unknown on demand: at its own price
		if t.cfg.OnDemandPrice != nil {
			if p, ok := t.cfg.OnDemandPrice(n.InstanceType); ok {
				od = p
				t.odPrice[n.InstanceType] = p
			}
		}
	}
	t.rate += float64(d) * n.PriceUSDPerHour
	t.odRate += float64(d) * od
	if t.rate < 1e-9 {
		t.rate = 0 // no drift below zero once every node is gone
	}
	if t.odRate < 1e-9 {
		t.odRate = 0
	}
	t.nodes[n.CapacityType] += d
	for int(id) >= len(t.nodePool) {
		t.nodePool = append(t.nodePool, -1)
	}
	p := t.nodePool[id]
	if p < 0 {
		key := n.Owner.String() + "/" + n.OwnerName
		i, ok := t.poolOf[key]
		if !ok {
			i = len(t.pools)
			t.poolOf[key] = i
			t.pools = append(t.pools, poolAcc{})
			// Zeros before its first node keep every series as long as T.
			t.out.Pools = append(t.out.Pools, PoolSeries{Owner: n.Owner.String(), Name: n.OwnerName,
				Nodes: make([]int32, len(t.out.T)), Launched: make([]int32, len(t.out.T)),
				AllocatableCPU: make([]float64, len(t.out.T)), AllocatableMemory: make([]float64, len(t.out.T))})
		}
		p = int32(i)
		t.nodePool[id] = p
	}
	t.pools[p].nodes += d
	t.pools[p].cpu += int64(d) * n.Allocatable[cluster.CPU]
	t.pools[p].memory += int64(d) * n.Allocatable[cluster.Memory]
	if d > 0 && !n.StartNode() {
		t.pools[p].launched++
	}
}

// Happened adds an event at the current time (the driver reports what the
// cluster's changes do not show: launches and their errors, spot signals,
// the autoscalers' disruptions). Alike events within one interval merge.
func (c *Collector) Happened(e TimelineEvent) {
	t := c.tl
	if t == nil {
		return
	}
	now := c.cl.Now()
	c.sampleBefore(now, cluster.Change{Pod: cluster.NoPod, Node: cluster.NoNode})
	// The interval now falls in: (next - interval, next].
	if t.mergeAt != t.next {
		t.mergeAt = t.next
		clear(t.merge)
		if t.merge == nil {
			t.merge = map[TimelineEvent]int{}
		}
	}
	e.T, e.Count = 0, 0
	if i, ok := t.merge[e]; ok {
		t.out.Events[i].Count++
		return
	}
	t.merge[e] = len(t.out.Events)
	e.T, e.Count = round3(now.Seconds()), 1
	t.out.Events = append(t.out.Events, e)
}

// finishTimeline takes the samples up to end and returns the timeline,
// with the scripted events in their places.
func (c *Collector) finishTimeline(end engine.Time) *Timeline {
	t := c.tl
	if t == nil {
		return nil
	}
	none := cluster.Change{Pod: cluster.NoPod, Node: cluster.NoNode}
	for t.next <= end {
		c.sample(t.next, none)
		t.next += t.cfg.Interval
	}
	out := t.out
	if out.Pools == nil {
		out.Pools = []PoolSeries{}
	}
	events := make([]TimelineEvent, 0, len(out.Events)+len(t.cfg.Scripted))
	i := 0
	for _, s := range t.cfg.Scripted {
		if s.T > end.Seconds() {
			continue
		}
		for i < len(out.Events) && out.Events[i].T <= s.T {
			events = append(events, out.Events[i])
			i++
		}
		events = append(events, s)
	}
	out.Events = append(events, out.Events[i:]...)
	return &out
}

// PoolName is a pool's series label: owner/name.
func (p PoolSeries) PoolName() string { return p.Owner + "/" + p.Name }

// appendInts writes a series on one line.
func appendInts(b []byte, xs []int32) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
