// Package invariants checks, after every event, that the cluster state
// makes sense: every pod is in exactly one state and on at most one node,
// no node's requests exceed its allocatable (or differ from the sum of its
// pods'), gone nodes hold no pods, time never goes backwards, and no
// cancelled timer fires (the engine's own check); at the end every pod ever
// created is accounted for and every node's billing interval is sound. It
// checks only what the event touched, so it is cheap enough to leave on in
// CI (sim run --check). It also verifies the models' incremental
// structures (indexes, caches, mirrors) against recomputations from
// scratch, every few thousand events and at the end (CheckStructures). A
// violation stops the run with the event, the simulated time and the
// seed.
package invariants

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Checker is a cluster watcher and engine observer.
type Checker struct {
	eng   *engine.Engine
	cl    *cluster.Cluster
	pods  []cluster.PodID
	nodes []cluster.NodeID
	seen  map[int64]bool // touched in this event: pod IDs >= 0, node IDs as -1-id
	last  engine.Time
	err   error

	// structures are the models' incremental copies of facts, checked
	// every structEvery events and at the end (CheckStructures).
	structures  []Structure
	structEvery uint64
	sinceCheck  uint64

	// recent are the last events dispatched (a ring of recentEvents),
	// for a crash report.
	recent     [recentEvents]recentEvent
	recentNext int
	recentLen  int
}

// recentEvents is how many of the last events a Checker remembers.
const recentEvents = 20

type recentEvent struct {
	at engine.Time
	ev engine.Event
}

// A Structure is a model's incremental copy of a fact (an index, a
// cache, a mirror of the cluster) with a check that recomputes the fact
// from scratch and says where the copy drifted (nil: it agrees).
type Structure struct {
	Name  string
	Check func() error
}

// DefaultStructureEvery is how often, in events, sim run --check verifies
// the models' structures: each check recomputes them from scratch, so
// this keeps a checked 2,000-node day within a few times its plain run.
const DefaultStructureEvery = 2000

// CheckStructures has the checker verify each structure every `every`
// events (0: only at the end) and in Final. A drift fails the run like a
// violated invariant.
func (c *Checker) CheckStructures(every uint64, ss ...Structure) {
	c.structures = append(c.structures, ss...)
	c.structEvery = every
}

// Recent describes the last events dispatched, oldest first, one line
// each (time, handler, kind, object): what a crash report names.
func (c *Checker) Recent() []string {
	out := make([]string, 0, c.recentLen)
	start := (c.recentNext - c.recentLen + recentEvents) % recentEvents
	for i := 0; i < c.recentLen; i++ {
		r := c.recent[(start+i)%recentEvents]
		out = append(out, fmt.Sprintf("t=%s handler=%d (%s) kind=%d obj=%d arg=%d", r.at, r.ev.Handler, c.eng.HandlerName(r.ev.Handler), r.ev.Kind, r.ev.Obj, r.ev.Arg))
	}
	return out
}

// checkStructures runs every structure's check; ev nil at the end.
func (c *Checker) checkStructures(ev *engine.Event) {
	for _, st := range c.structures {
		if err := st.Check(); err != nil {
			c.fail(ev, "%s drifted from its recomputation: %v", st.Name, err)
			return
		}
	}
}

// New watches the cluster and observes every engine event.
func New(eng *engine.Engine, cl *cluster.Cluster) *Checker {
	c := &Checker{eng: eng, cl: cl, seen: map[int64]bool{}}
	cl.Watch(c)
	eng.EnableChecks(c.afterEvent)
	return c
}

// Err is the first violation, or nil.
func (c *Checker) Err() error { return c.err }

// OnChange implements cluster.Watcher: remember what the event touched.
func (c *Checker) OnChange(ch cluster.Change) {
	if ch.Pod != cluster.NoPod && !c.seen[int64(ch.Pod)] {
		c.seen[int64(ch.Pod)] = true
		c.pods = append(c.pods, ch.Pod)
	}
	if ch.Node != cluster.NoNode && !c.seen[-1-int64(ch.Node)] {
		c.seen[-1-int64(ch.Node)] = true
		c.nodes = append(c.nodes, ch.Node)
	}
}

func (c *Checker) fail(ev *engine.Event, format string, args ...any) {
	if c.err != nil {
		return
	}
	where := "at the end of the run"
	if ev != nil {
		where = fmt.Sprintf("after event handler=%d kind=%d obj=%d", ev.Handler, ev.Kind, ev.Obj)
	}
	c.err = fmt.Errorf("invariant violated at t=%s %s (seed %d): %s", c.eng.Now(), where, c.eng.Seed(), fmt.Sprintf(format, args...))
	c.eng.Stop()
}

func (c *Checker) afterEvent(ev engine.Event) {
	now := c.eng.Now()
	c.recent[c.recentNext] = recentEvent{at: now, ev: ev}
	c.recentNext = (c.recentNext + 1) % recentEvents
	c.recentLen = min(c.recentLen+1, recentEvents)
	if now < c.last {
		c.fail(&ev, "time went backwards from %s", c.last)
	}
	c.last = now
	for _, id := range c.pods {
		c.checkPod(&ev, id)
	}
	for _, id := range c.nodes {
		c.checkNode(&ev, id)
	}
	c.pods, c.nodes = c.pods[:0], c.nodes[:0]
	clear(c.seen)
	if c.structEvery > 0 && len(c.structures) > 0 {
		if c.sinceCheck++; c.sinceCheck >= c.structEvery {
			c.sinceCheck = 0
			c.checkStructures(&ev)
		}
	}
}

func (c *Checker) checkPod(ev *engine.Event, id cluster.PodID) {
	p := &c.cl.Pods[id]
	name := c.cl.Syms.Name(p.Namespace) + "/" + p.Name
	switch {
	case p.Phase > cluster.Deleted:
		c.fail(ev, "pod %s has no valid phase (%d)", name, p.Phase)
	case p.Phase == cluster.Pending && p.Node != cluster.NoNode:
		c.fail(ev, "pending pod %s names node %d", name, p.Node)
	case p.Phase.OnNode():
		if p.Node == cluster.NoNode {
			c.fail(ev, "pod %s is %s on no node", name, p.Phase)
			return
		}
		n := &c.cl.Nodes[p.Node]
		if n.State == cluster.NodeGone {
			c.fail(ev, "pod %s is %s on gone node %s", name, p.Phase, n.Name)
		}
		count := 0
		for _, q := range n.Pods {
			if q == id {
				count++
			}
		}
		if count != 1 {
			c.fail(ev, "pod %s is %s on node %s, which lists it %d times", name, p.Phase, n.Name, count)
		}
	case p.Phase == cluster.Deleted && p.Cause == cluster.CauseNone:
		c.fail(ev, "pod %s was deleted without a cause", name)
	}
}

func (c *Checker) checkNode(ev *engine.Event, id cluster.NodeID) {
	n := &c.cl.Nodes[id]
	if n.State == cluster.NodeGone {
		if len(n.Pods) > 0 {
			c.fail(ev, "gone node %s still holds %d pods", n.Name, len(n.Pods))
		}
		if n.Deleted < n.Launched {
			c.fail(ev, "node %s was deleted before it launched", n.Name)
		}
		return
	}
	var sum cluster.Resources
	for _, pid := range n.Pods {
		p := &c.cl.Pods[pid]
		if p.Node != id || !p.Phase.OnNode() {
			c.fail(ev, "node %s lists pod %s, which is %s on node %d", n.Name, p.Name, p.Phase, p.Node)
			return
		}
		sum = sum.Add(p.Spec.Requests)
	}
	if sum != n.Requested {
		c.fail(ev, "node %s: requested %v differs from its pods' sum %v", n.Name, n.Requested, sum)
	}
	for i := range sum {
		if sum[i] > n.Allocatable[i] {
			c.fail(ev, "node %s is overcommitted on %s: %d requested, %d allocatable", n.Name, c.cl.Resources.Name(i), sum[i], n.Allocatable[i])
			return
		}
	}
}

// Final checks the whole state at the end of the run: every pod ever
// created is completed, running, pending or deleted with a cause, and on
// at most one node; every node is consistent; every structure agrees with
// its recomputation.
func (c *Checker) Final() error {
	for i := range c.cl.Pods {
		c.checkPod(nil, cluster.PodID(i))
	}
	for i := range c.cl.Nodes {
		c.checkNode(nil, cluster.NodeID(i))
	}
	if c.err == nil {
		c.checkStructures(nil)
	}
	return c.err
}
