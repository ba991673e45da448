// Package invariants checks, after every event, that the cluster state
// makes sense: every pod is in exactly one state and on at most one node,
// no node's requests exceed its allocatable (or differ from the sum of its
// pods'), gone nodes hold no pods, time never goes backwards, and no
// cancelled timer fires (the engine's own check); at the end every pod ever
// created is accounted for and every node's billing interval is sound. It
// checks only what the event touched, so it is cheap enough to leave on in
// CI (sim run --check). A violation stops the run with the event, the
// simulated time and the seed.
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
// at most one node; every node is consistent.
func (c *Checker) Final() error {
	for i := range c.cl.Pods {
		c.checkPod(nil, cluster.PodID(i))
	}
	for i := range c.cl.Nodes {
		c.checkNode(nil, cluster.NodeID(i))
	}
	return c.err
}
