package clusterautoscaler

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Registered nodes that never become Ready (cloud.LaunchResult.NeverReady).
// A node of the groups registers when its Ready event would have come
// (cluster.RegisterNotReady: Launching, Ready=False since then). Upstream
// (clusterstate.updateReadinessStats) such a node is NotStarted for
// --max-node-startup-time after its creation, an upcoming node the
// scale-up waiting for it still expects, and Unready after that; it is
// never long-unregistered, so removeOldUnregisteredNodes leaves it alone.
// What removes it is the scale-down of unready nodes: once no scale-up
// protects it (GetUpcomingNodes leaves the NotStarted nodes of a group
// with an active, not backed-off scale-up out of the scale-down
// candidates) it is an empty unneeded node, deleted after
// --scale-down-unready-time (20 min) instead of --scale-down-unneeded-time
// (unneeded.Nodes: the threshold of a node that is not Ready), unless
// --scale-down-unready-enabled=false (eligibility: ScaleDownUnreadyDisabled).

// reasonUnready is the OnDelete reason of an unready node's scale-down.
const reasonUnready = "scaleDownUnready"

// registerNotReady registers a launched node that never becomes Ready.
func (a *Autoscaler) registerNotReady(id cluster.NodeID) {
	if a.nodes.get(id) == nil {
		return
	}
	a.cl.RegisterNotReady(id)
}

// notStarted reports whether a registered, not Ready node is still within
// --max-node-startup-time of its registration (clusterstate: NotStarted;
// after it the node is Unready).
func (cs *clusterState) notStarted(nd *cluster.Node, now engine.Time) bool {
	return nd.ConditionSince+cs.s.MaxNodeStartupTime > now
}

// clusterHealthy is clusterstate.IsClusterHealthy: the cluster is
// unhealthy when more than --ok-total-unready-count nodes and more than
// --max-total-unready-percentage of the registered nodes are Unready (a
// Ready condition not True, past --max-node-startup-time since the node's
// registration), whoever owns them. An unhealthy cluster's loop removes
// long-unregistered nodes and does nothing else, forgetting its unneeded
// nodes (static_autoscaler RunOnce: "Cluster is not ready for
// autoscaling"). The count is walked only while some node is not Ready.
func (cs *clusterState) clusterHealthy(now engine.Time) bool {
	if cs.cl.NotReadyNodes() <= cs.s.OkTotalUnreadyCount {
		return true
	}
	unready, registered := 0, 0
	for i := range cs.cl.Nodes {
		nd := &cs.cl.Nodes[i]
		switch {
		case nd.State == cluster.NodeGone:
			continue
		case nd.State == cluster.NodeLaunching && !nd.RegisteredNotReady():
			continue // not registered: no node object yet
		}
		registered++
		if nd.Condition.NotReady() && !cs.startingUp(nd, now) {
			unready++
		}
	}
	return unready <= cs.s.OkTotalUnreadyCount ||
		float64(unready) <= cs.s.MaxTotalUnreadyPercentage/100*float64(registered)
}

// startingUp: a not Ready node created within --max-node-startup-time
// (NotStarted): a registered launching node from its registration, a
// node that was Ready from when it became Ready, a start node from before
// the start.
func (cs *clusterState) startingUp(nd *cluster.Node, now engine.Time) bool {
	if nd.State == cluster.NodeLaunching {
		return cs.notStarted(nd, now)
	}
	return nd.Ready-nd.AgeAtStart+cs.s.MaxNodeStartupTime > now
}

// forgetUnneeded drops every node's unneeded time (the planner's
// CleanUpUnneededNodes) and the soft taints with them.
func (pl *planner) forgetUnneeded() {
	for _, g := range pl.groups {
		for _, id := range g.nodes {
			pl.nodes.get(id).unneededSince = never
		}
	}
	pl.updateSoftTaints(nil)
}

// scaleDownUnready deletes the groups' registered nodes that never became
// Ready once they have been unneeded for --scale-down-unready-time:
// every such node of an autoscaled group is unneeded (it has no pods)
// unless a scale-up still expects it (NotStarted, its group scaling up
// and not backed off) or its scale-down-disabled label is set. Deletions
// take the scale-down's cool-downs, group minimums and
// --max-scale-down-parallelism, as the planner's empty nodes do. It
// returns whether it started one.
func (pl *planner) scaleDownUnready(now engine.Time, hold bool) bool {
	started := false
	for _, id := range pl.launchingNodes() {
		nd := &pl.cl.Nodes[id]
		n := pl.nodes.get(id)
		if !nd.RegisteredNotReady() || n.deleting {
			continue
		}
		g := n.group
		st := pl.nodeFlags(id)
		protected := g.req.active && !pl.backedOff(g, now) && pl.notStarted(nd, now)
		if !g.sel.Autoscaled || !pl.s.ScaleDownUnreadyEnabled || protected || st.sdDisabled {
			n.unneededSince = never
			continue
		}
		if n.unneededSince == never {
			n.unneededSince = now
		}
		if hold || pl.inCooldown(now) || now-n.unneededSince < pl.s.ScaleDownUnreadyTime ||
			pl.act.scaleDownsInFlight >= pl.s.MaxScaleDownParallelism {
			continue
		}
		if g.target-g.deleting-g.sel.Min <= 0 {
			pl.noteBlocked(BlockMinSize, id)
			continue
		}
		pl.act.startDeleteFor(id, now, deleteScaleDown, reasonUnready)
		pl.stats.unreadyRemoved++
		g.stats.UnreadyNodesRemoved++
		started = true
	}
	if started {
		pl.lastScaleDownDelete = now
	}
	return started
}

// groupHealthy is clusterstate.IsNodeGroupHealthy, which makes a group
// "not ready for scale-up" (the FAQ: unready nodes "concentrated in a
// particular node group" may exclude it from scale-ups): the group's
// missing Ready nodes, its target less its long-unregistered nodes and its
// active scale-up's increase less its Ready nodes, exceed
// --ok-total-unready-count and --max-total-unready-percentage of its
// registered nodes. A bound decides most loops without walking the
// group's nodes: the Ready nodes are at least the nodes not launching
// less the cluster's nodes whose Ready condition is not True.
func (cs *clusterState) groupHealthy(g *group, now engine.Time) bool {
	launching, longUnreg, registeredLaunching := 0, 0, 0
	for _, id := range cs.cache.launching {
		nd := &cs.cl.Nodes[id]
		if on := cs.nodes.get(id); on == nil || on.group != g || nd.State != cluster.NodeLaunching {
			continue
		}
		launching++
		switch {
		case nd.RegisteredNotReady():
			registeredLaunching++
		case nd.Launched+cs.s.MaxNodeProvisionTime < now:
			longUnreg++
		}
	}
	minNodes := g.target - longUnreg
	if g.req.active {
		minNodes -= g.req.increase
	}
	if minNodes-(len(g.nodes)-launching)+cs.cl.NotReadyNodes() <= cs.s.OkTotalUnreadyCount {
		return true
	}
	ready := 0
	for _, id := range g.nodes {
		if nd := &cs.cl.Nodes[id]; nd.State == cluster.NodeReady && !nd.Condition.NotReady() {
			ready++
		}
	}
	unjustified := max(minNodes-ready, 0)
	registered := len(g.nodes) - launching + registeredLaunching
	return unjustified <= cs.s.OkTotalUnreadyCount ||
		float64(unjustified) <= cs.s.MaxTotalUnreadyPercentage/100*float64(registered)
}
