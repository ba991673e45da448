// Package report collects what happened during a run and renders the
// summary: a table for people, a versioned JSON document for scripts, a
// self-contained HTML page with SVG charts (html.go, svg.go), and the
// timeline as OpenMetrics text (openmetrics.go).
//
// The timeline (timeline.go) samples counters the collector keeps up to
// date on every cluster change, once per interval, lazily: a change takes
// the samples due before it, so sampling schedules no event. Its cost is
// each node at its launch price (cost.totalUSD bills spot along the
// market's price path, so the two can differ slightly).
//
// Definitions (also in docs/report.md):
//   - pending time: from creation until the pod is bound; a pod deleted
//     while pending counts until its deletion, a pod still pending at the
//     end until the end (a lower bound of its true wait);
//   - stranded: a pod whose pending time exceeded the scenario's
//     strandedAfter threshold, counted once;
//   - cost: each node's price per hour times the time from launch to
//     deletion (or the end), billed per second.
package report

import (
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Collector watches the cluster and accumulates the figures of a run.
type Collector struct {
	cl            *cluster.Cluster
	strandedAfter time.Duration

	pending  []time.Duration // one sample per pod that left Pending
	waited   []time.Duration // by PodID: its pending time once it left Pending
	stranded []bool          // by PodID
	byWL     []workloadAcc

	initialNodes, launched, terminated, live, peak int
	costUSD                                        [3]float64 // by CapacityType
	nodeSeconds                                    [3]float64

	// Idle cost: per node, the used share (the larger of requested cpu and
	// memory over allocatable) since usedSince; idleUSD accumulates price x
	// unused share x time.
	used      []float64
	usedSince []engine.Time
	idleUSD   float64

	// tl is the timeline's state when StartTimeline turned it on.
	tl *timeline
}

type workloadAcc struct {
	pods, scheduled, stranded int
	pending                   []time.Duration
}

// NewCollector starts watching. strandedAfter is the scenario's threshold.
func NewCollector(cl *cluster.Cluster, strandedAfter time.Duration, workloads int) *Collector {
	c := &Collector{cl: cl, strandedAfter: strandedAfter, byWL: make([]workloadAcc, workloads)}
	cl.Watch(c)
	return c
}

// Clone returns a copy of the books so far that watches nothing: Build
// closes the books, so a report mid-run is built from a copy and the run
// goes on with the original.
func (c *Collector) Clone() *Collector {
	d := *c
	d.pending = slices.Clone(c.pending)
	d.waited = slices.Clone(c.waited)
	d.stranded = slices.Clone(c.stranded)
	d.byWL = slices.Clone(c.byWL)
	for i := range d.byWL {
		d.byWL[i].pending = slices.Clone(c.byWL[i].pending)
	}
	d.used = slices.Clone(c.used)
	d.usedSince = slices.Clone(c.usedSince)
	if c.tl != nil {
		d.tl = c.tl.clone()
	}
	return &d
}

// OnChange implements cluster.Watcher.
func (c *Collector) OnChange(ch cluster.Change) {
	if c.tl != nil {
		c.sampleBefore(c.cl.Now(), ch)
		defer c.timelineChange(ch)
	}
	switch ch.Kind {
	case cluster.PodCreated:
		if w := c.cl.Pods[ch.Pod].Workload; w >= 0 {
			c.byWL[w].pods++
		}
	case cluster.PodBound:
		c.usage(ch.Node)
		p := &c.cl.Pods[ch.Pod]
		c.leftPending(ch.Pod, p.BoundAt-p.Created)
		if p.Workload >= 0 {
			c.byWL[p.Workload].scheduled++
		}
	case cluster.PodFinished:
		c.usage(ch.Node)
	case cluster.PodDeleted:
		if ch.Node != cluster.NoNode {
			c.usage(ch.Node)
		}
		if ch.Node == cluster.NoNode { // deleted while pending
			p := &c.cl.Pods[ch.Pod]
			c.leftPending(ch.Pod, p.Ended-p.Created)
		}
	case cluster.NodeAdded:
		n := &c.cl.Nodes[ch.Node]
		if n.StartNode() {
			c.initialNodes++
		} else {
			c.launched++
		}
		c.live++
		c.peak = max(c.peak, c.live)
		c.usage(ch.Node)
	case cluster.NodeRemoved:
		c.terminated++
		c.live--
		c.usage(ch.Node)
	}
}

func (c *Collector) leftPending(id cluster.PodID, wait time.Duration) {
	c.pending = append(c.pending, wait)
	for int(id) >= len(c.waited) {
		c.waited = append(c.waited, 0)
	}
	c.waited[id] = wait
	p := &c.cl.Pods[id]
	if p.Workload >= 0 {
		c.byWL[p.Workload].pending = append(c.byWL[p.Workload].pending, wait)
	}
	if wait > c.strandedAfter {
		c.markStranded(id)
	}
}

func (c *Collector) markStranded(id cluster.PodID) {
	for int(id) >= len(c.stranded) {
		c.stranded = append(c.stranded, false)
	}
	if c.stranded[id] {
		return
	}
	c.stranded[id] = true
	if w := c.cl.Pods[id].Workload; w >= 0 {
		c.byWL[w].stranded++
	}
}

// usage closes the node's current usage interval and opens the next with
// its current requests (called after every change of them).
func (c *Collector) usage(id cluster.NodeID) {
	n := &c.cl.Nodes[id]
	for int(id) >= len(c.used) {
		c.used = append(c.used, 0)
		c.usedSince = append(c.usedSince, n.Launched) // opened at NodeAdded
	}
	now := c.cl.Now()
	secs := (now - c.usedSince[id]).Seconds()
	c.idleUSD += secs * n.PriceUSDPerHour / 3600 * (1 - c.used[id])
	c.usedSince[id] = now
	c.used[id] = usedShare(n)
}

func usedShare(n *cluster.Node) float64 {
	if n.State == cluster.NodeGone {
		return 1 // nothing more to bill
	}
	share := 0.0
	for _, r := range []int{cluster.CPU, cluster.Memory} {
		if a := n.Allocatable[r]; a > 0 {
			share = max(share, float64(n.Requested[r])/float64(a))
		}
	}
	return min(share, 1)
}

// bill adds a node's cost from launch until its deletion or the end.
func (c *Collector) bill(n *cluster.Node, until engine.Time, cost func(*cluster.Node, engine.Time) (float64, bool)) float64 {
	secs := (until - n.Launched).Seconds()
	usd := secs * n.PriceUSDPerHour / 3600
	if cost != nil {
		if v, ok := cost(n, until); ok {
			usd = v
		}
	}
	c.nodeSeconds[n.CapacityType] += secs
	c.costUSD[n.CapacityType] += usd
	return usd
}

// finish closes the books at the end of the run: pods still pending get
// their wait so far, every node is billed, and the cost of each is
// returned by NodeID.
func (c *Collector) finish(end engine.Time, cost func(*cluster.Node, engine.Time) (float64, bool)) (pendingAtEnd int, nodeUSD []float64) {
	for i := range c.cl.Pods {
		p := &c.cl.Pods[i]
		if p.Phase == cluster.Pending {
			pendingAtEnd++
			c.leftPending(cluster.PodID(i), end-p.Created)
		}
	}
	nodeUSD = make([]float64, len(c.cl.Nodes))
	for i := range c.cl.Nodes {
		n := &c.cl.Nodes[i]
		until := n.Deleted
		if n.State != cluster.NodeGone {
			c.usage(cluster.NodeID(i))
			until = end
		}
		nodeUSD[i] = c.bill(n, until, cost)
	}
	return pendingAtEnd, nodeUSD
}
