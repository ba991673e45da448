package clusterautoscaler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
)

// group is one node group (an ASG) and the Cluster Autoscaler's state
// about it.
type group struct {
	cfg *config.NodeGroup
	idx int
	sel config.Selected

	// target is the ASG's desired capacity.
	target int
	// nodes are the group's live nodes (Launching or Ready), in launch
	// order, so by ID.
	nodes []cluster.NodeID
	// deleting counts the nodes being deleted (caNode.deleting).
	deleting int
	// placeholders are instances the ASG could not launch (their launch
	// times); the next ASG refresh reveals them as failed.
	placeholders []engine.Time
	// seenFailed counts placeholders a refresh revealed and the loop has
	// not yet handled.
	seenFailed int
	// retry is the ASG's next retry of its placeholders, retryEvery its
	// current interval (asgretry.go).
	retry      engine.Timer
	retryEvery time.Duration
	seq        int // node name counter
	onDemand   int
	spot       int
	zoneCount  map[string]int
	taints     []cluster.Taint // the nodes' taints, compiled

	tagTemplate *template // from the ASG's tags and the EKS API
	cached      *template // from the last Ready node seen
	tpl         *template // this loop's template

	bo  backoff
	req scaleUpRequest

	stats GroupStats
}

// scaleUpRequest is the cluster state registry's pending scale-up of a
// group (clusterstate.ScaleUpRequest).
type scaleUpRequest struct {
	active   bool
	increase int
	expected engine.Time // the last scale-up + max-node-provision-time
}

// template is a node the Cluster Autoscaler believes the group would add.
type template struct {
	node cluster.Node
	// capCPU and capMem are capacity (millicores, bytes), which
	// least-waste compares.
	capCPU, capMem int64
	gpu            bool
	// src is the node it was copied from (NoNode for the tag template).
	src cluster.NodeID
}

func (cs *clusterState) newGroup(cfg *config.NodeGroup, idx int, sel config.Selected) (*group, error) {
	g := &group{cfg: cfg, idx: idx, sel: sel, zoneCount: map[string]int{}}
	g.stats.Name, g.stats.ASGName, g.stats.Autoscaled = cfg.Name, cfg.ASGName, sel.Autoscaled
	if len(cfg.InstanceTypes) == 0 || len(cfg.Zones) == 0 {
		return nil, fmt.Errorf("node group %s has no instance types or no zones", cfg.Name)
	}
	for _, t := range cfg.InstanceTypes {
		if _, ok := cs.cat.Lookup(t); !ok {
			return nil, fmt.Errorf("node group %s: unknown instance type %q", cfg.Name, t)
		}
	}
	var err error
	if g.taints, err = cs.compileTaints(cfg.Taints); err != nil {
		return nil, fmt.Errorf("node group %s: %w", cfg.Name, err)
	}
	if g.tagTemplate, err = cs.tagTemplate(cfg); err != nil {
		return nil, fmt.Errorf("node group %s: %w", cfg.Name, err)
	}
	return g, nil
}

func (cs *clusterState) compileTaints(ts []config.Taint) ([]cluster.Taint, error) {
	var out []cluster.Taint
	for _, t := range ts {
		e, ok := config.NormalizeEffect(t.Effect)
		if !ok {
			return nil, fmt.Errorf("taint %s: unknown effect %q", t.Key, t.Effect)
		}
		c, err := cluster.CompileTaint(cs.cl.Syms, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(e)})
		if err != nil {
			return nil, fmt.Errorf("taint %s: %w", t.Key, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// tagTemplate compiles the group's template from its config.
func (cs *clusterState) tagTemplate(cfg *config.NodeGroup) (*template, error) {
	tc := &cfg.Template
	name := "template-node-for-" + cfg.ASGName
	labels := make(map[string]string, len(tc.Labels)+1)
	for k, v := range tc.Labels {
		labels[k] = v
	}
	labels[cs.cl.Syms.Name(cs.symHostname)] = name
	taints, err := cs.compileTaints(tc.Taints)
	if err != nil {
		return nil, err
	}
	taints = slices.DeleteFunc(taints, func(t cluster.Taint) bool { return cs.templateDrops(t.Key) })
	t := &template{src: cluster.NoNode}
	t.node = cluster.Node{
		Name:         name,
		NameSym:      cs.cl.Syms.Intern(name),
		Labels:       cluster.CompileLabels(cs.cl.Syms, labels),
		Taints:       taints,
		State:        cluster.NodeReady,
		InstanceType: tc.InstanceType,
		Zone:         cs.cl.Syms.Intern(tc.Zone),
	}
	for _, rn := range sortedQuantityNames(tc.Capacity) {
		q := tc.Capacity[rn]
		i, err := cs.cl.Resources.Index(corev1.ResourceName(rn))
		if err != nil {
			return nil, err
		}
		if i == cluster.CPU {
			t.node.Allocatable[i] = q.MilliValue()
		} else {
			t.node.Allocatable[i] = q.Value()
		}
	}
	t.capCPU, t.capMem = t.node.Allocatable[cluster.CPU], t.node.Allocatable[cluster.Memory]
	if gi, ok := cs.cl.Resources.Lookup(catalog.GPUResourceName); ok && t.node.Allocatable[gi] > 0 {
		t.gpu = true
	}
	return t, nil
}

// templateFromNode copies a Ready node of the group, as the template node
// info processor does: another name, no deletion taints.
func (cs *clusterState) templateFromNode(g *group, id cluster.NodeID) *template {
	nd := &cs.cl.Nodes[id]
	name := "template-node-for-" + g.cfg.ASGName
	t := &template{src: id}
	var taints []cluster.Taint
	for _, tt := range nd.Taints {
		if tt.Key != cs.symToBeDeleted && tt.Key != cs.symDeletionCandidate && !cs.templateDrops(tt.Key) {
			taints = append(taints, tt)
		}
	}
	nameSym := cs.cl.Syms.Intern(name)
	t.node = cluster.Node{
		Name:         name,
		NameSym:      nameSym,
		Labels:       nd.Labels.With(cs.symHostname, nameSym),
		Taints:       taints,
		Allocatable:  nd.Allocatable,
		State:        cluster.NodeReady,
		InstanceType: nd.InstanceType,
		Zone:         nd.Zone,
		CapacityType: nd.CapacityType,
	}
	if it, ok := cs.cat.Lookup(nd.InstanceType); ok {
		c := it.Capacity(g.cfg.Kubelet)
		t.capCPU, t.capMem = c.CPUMilli, c.MemoryBytes
		t.gpu = c.GPU > 0
	} else {
		t.capCPU, t.capMem = nd.Allocatable[cluster.CPU], nd.Allocatable[cluster.Memory]
	}
	return t
}

// Taint key prefixes of startup taints (utils/taints IgnoreTaintPrefix,
// StartupTaintPrefix) and of status taints (StatusTaintPrefix), whatever
// the flags, and the node condition taints (NodeConditionTaints: transient
// node states), which templates leave out too.
const (
	statusTaintPrefix = "status-taint.cluster-autoscaler.kubernetes.io/"
)

var (
	startupTaintPrefixes = [...]string{"ignore-taint.cluster-autoscaler.kubernetes.io/", "startup-taint.cluster-autoscaler.kubernetes.io/"}
	nodeConditionTaints  = [...]string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeUnschedulable,
		corev1.TaintNodeMemoryPressure, corev1.TaintNodeDiskPressure, corev1.TaintNodeNetworkUnavailable, corev1.TaintNodePIDPressure,
		"node.cloudprovider.kubernetes.io/uninitialized", "node.cloudprovider.kubernetes.io/shutdown",
		"cloud.google.com/impending-node-termination", "NodeWithImpairedVolumes"}
)

// templateDrops reports whether node templates leave out a taint of this
// key (utils/taints SanitizeTaints): a startup or status taint, or a node
// condition taint.
func (cs *clusterState) templateDrops(key cluster.Sym) bool {
	k := cs.cl.Syms.Name(key)
	return cs.startupTaint(k) || strings.HasPrefix(k, statusTaintPrefix) || slices.Contains(cs.s.StatusTaints, k) ||
		slices.Contains(nodeConditionTaints[:], k)
}

// startupTaint reports whether a taint key is a startup taint: one of
// --startup-taint (or --ignore-taint), or with a built-in or
// --startup-taint-prefix prefix (TaintConfig.IsStartupTaint).
func (cs *clusterState) startupTaint(k string) bool {
	for _, p := range startupTaintPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	for _, p := range cs.s.StartupTaintPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return slices.Contains(cs.s.StartupTaints, k)
}

// refreshTemplates picks each group's template for this loop: a copy of
// its first Ready node, else the last one copied, else the tag template
// (upstream caches node infos from real nodes: --node-info-cache-expire-time
// defaults to ten years).
func (cs *clusterState) refreshTemplates() {
	for _, g := range cs.groups {
		src := cluster.NoNode
		if len(g.nodes) > 0 {
			// Upstream takes the first good node in the node lister's
			// order, which is map order: a random one each loop. From a
			// random start, the next good node in launch order.
			start := 0
			if len(g.nodes) > 1 {
				start = cs.tplRng.IntN(len(g.nodes))
			}
			for i := range g.nodes {
				id := g.nodes[(start+i)%len(g.nodes)]
				n := cs.nodes.get(id)
				nd := &cs.cl.Nodes[id]
				if nd.State == cluster.NodeReady && !nd.Unschedulable && n != nil && !n.deleting {
					src = id
					break
				}
			}
		}
		switch {
		case src != cluster.NoNode:
			if !cs.keepsTemplate(g, src) {
				g.cached = cs.templateFromNode(g, src)
			}
			g.tpl = g.cached
		case g.cached != nil:
			g.tpl = g.cached
		default:
			g.tpl = g.tagTemplate
		}
	}
}

// keepsTemplate reports whether the loop keeps the group's cached
// template when it would copy node src: when copying src would give it
// again. That src is the node it was copied from is not enough: the
// node's labels or taints may have changed since.
func (cs *clusterState) keepsTemplate(g *group, src cluster.NodeID) bool {
	return g.cached != nil && cs.copies(g.cached, src)
}

// copies reports whether templateFromNode would make tpl again from node
// id (a group's nodes are mostly alike: same type, zone, labels and
// taints), so the loop keeps it instead of building a new one.
func (cs *clusterState) copies(tpl *template, id cluster.NodeID) bool {
	nd, t := &cs.cl.Nodes[id], &tpl.node
	if nd.Zone != t.Zone || nd.InstanceType != t.InstanceType || nd.CapacityType != t.CapacityType ||
		nd.Allocatable != t.Allocatable || len(nd.Labels) != len(t.Labels) {
		return false
	}
	for i, l := range nd.Labels {
		if l != t.Labels[i] && !(l.Key == cs.symHostname && t.Labels[i].Key == cs.symHostname) {
			return false
		}
	}
	i := 0
	for _, tt := range nd.Taints {
		if tt.Key == cs.symToBeDeleted || tt.Key == cs.symDeletionCandidate {
			continue
		}
		if i >= len(t.Taints) || t.Taints[i] != tt {
			return false
		}
		i++
	}
	return i == len(t.Taints)
}

// backoff is the exponential back-off of one group
// (utils/backoff/exponential_backoff.go), plus the time it spent backed
// off for the report.
type backoff struct {
	known      bool
	duration   time.Duration
	until      engine.Time
	lastFailed engine.Time

	// Back-off time accounting: closed intervals sum to total; an open
	// one runs from openStart to openEnd.
	total              time.Duration
	open               bool
	openStart, openEnd engine.Time
}

// backoffGroup backs a group off after a failed scale-up
// (exponentialBackoff.Backoff). A failure while the group is backed off
// keeps the current duration (concurrent failures must not raise it) and
// restarts it from now; one after the back-off ended, but within
// --node-group-backoff-reset-timeout of the last failure, doubles it, up
// to the maximum; otherwise it starts at the initial duration.
func (cs *clusterState) backoffGroup(g *group, now engine.Time) {
	d := cs.s.InitialNodeGroupBackoffDuration
	if g.bo.known {
		d = g.bo.duration
		if g.bo.until < now {
			d = min(2*g.bo.duration, cs.s.MaxNodeGroupBackoffDuration)
		}
	}
	g.bo.known, g.bo.duration, g.bo.until, g.bo.lastFailed = true, d, now+d, now
	if g.bo.open && g.bo.openEnd > now {
		g.bo.openEnd = now + d
		return
	}
	g.bo.close(now)
	g.bo.open, g.bo.openStart, g.bo.openEnd = true, now, now+d
}

// close adds the open interval, cut at now, to the total.
func (b *backoff) close(now engine.Time) {
	if b.open {
		b.total += min(b.openEnd, now) - b.openStart
		b.open = false
	}
}

// seconds is the time backed off up to now.
func (b *backoff) seconds(now engine.Time) float64 {
	t := b.total
	if b.open {
		t += min(b.openEnd, now) - b.openStart
	}
	return t.Seconds()
}

func (cs *clusterState) backedOff(g *group, now engine.Time) bool {
	return g.bo.known && g.bo.until > now
}

// cleanBackoffs forgets back-offs whose last failure is older than
// --node-group-backoff-reset-timeout, so the next one starts from the
// initial duration again.
func (cs *clusterState) cleanBackoffs(now engine.Time) {
	for _, g := range cs.groups {
		if g.bo.known && g.bo.lastFailed+cs.s.NodeGroupBackoffResetTimeout < now {
			g.bo.known = false
		}
	}
}

// timeOutScaleUp fails a scale-up whose nodes did not all register within
// --max-node-provision-time (clusterstate: reason timeout).
func (cs *clusterState) timeOutScaleUp(g *group, now engine.Time) {
	cs.stats.scaleUpTimeouts++
	g.stats.ScaleUpTimeouts++
	cs.failScaleUp(g, now)
}

// failScaleUp registers a failed scale-up of a group and backs it off.
func (cs *clusterState) failScaleUp(g *group, now engine.Time) {
	cs.stats.failedScaleUps++
	g.stats.FailedScaleUps++
	cs.backoffGroup(g, now)
}

// upcoming is how many nodes the group expects that are not Ready yet:
// launching nodes and placeholders (failed or not, until deleted). Nodes
// launching for longer than --max-node-provision-time (long-unregistered)
// count only with long: a scale-up is over when none of its nodes is
// missing (clusterstate areThereUpcomingNodesInNodeGroup: target >
// registered), but the scale-up simulation expects only the others
// (GetUpcomingNodes: target - ready - unready - long-unregistered).
//
// A registered node that is not Ready (unready.go) is upcoming while it is
// NotStarted (within --max-node-startup-time of its registration), then
// neither (Unready).
func (cs *clusterState) upcoming(g *group, long bool) int {
	n := len(g.placeholders) + g.seenFailed
	now := cs.eng.Now()
	since := now - cs.s.MaxNodeProvisionTime
	for _, id := range cs.cache.launching {
		nd := &cs.cl.Nodes[id]
		if on := cs.nodes.get(id); on == nil || on.group != g || nd.State != cluster.NodeLaunching {
			continue
		}
		if nd.RegisteredNotReady() {
			if cs.notStarted(nd, now) {
				n++
			}
		} else if long || nd.Launched >= since {
			n++
		}
	}
	return n
}

// launchingNodes returns the groups' launching nodes (in no particular
// order), dropping from the list those no longer launching: a node of
// the groups is launching from its launch until it is Ready or gone, and
// is listed from its launch.
func (cs *clusterState) launchingNodes() []cluster.NodeID {
	keep := cs.cache.launching[:0]
	for _, id := range cs.cache.launching {
		if cs.nodes.get(id) != nil && cs.cl.Nodes[id].State == cluster.NodeLaunching {
			keep = append(keep, id)
		}
	}
	cs.cache.launching = keep
	return keep
}

// sortByGroup sorts nodes of the groups in the groups' order: by group,
// then by ID (a group's nodes are in launch order, so by ID).
func (cs *clusterState) sortByGroup(ids []cluster.NodeID) {
	// Keys read once: group index above, ID (non-negative) below.
	keys := cs.scratch.groupKeys[:0]
	for _, id := range ids {
		keys = append(keys, uint64(cs.nodes.get(id).group.idx)<<32|uint64(id))
	}
	slices.Sort(keys)
	for i, k := range keys {
		ids[i] = cluster.NodeID(uint32(k))
	}
	cs.scratch.groupKeys = keys
}

// updateScaleRequests completes the scale-ups whose nodes are all Ready
// and fails those past --max-node-provision-time (clusterstate
// updateScaleRequests). A completed scale-up leaves a back-off in place:
// since Cluster Autoscaler 1.30 (kubernetes/autoscaler commit 4477707,
// "remove RemoveBackoff from updateScaleRequests") only its expiry and
// --node-group-backoff-reset-timeout end it.
func (cs *clusterState) updateScaleRequests(now engine.Time) {
	for _, g := range cs.groups {
		if !g.req.active {
			continue
		}
		switch {
		case cs.upcoming(g, true) == 0:
			g.req.active = false
		case g.req.expected < now:
			g.req.active = false
			cs.timeOutScaleUp(g, now)
		}
	}
}

// handleCreationErrors handles the placeholders the last refresh revealed:
// if the group was scaling up, the scale-up shrinks by them and fails
// (back-off); either way the placeholders are deleted, lowering the ASG's
// desired capacity, and the next loop refreshes the ASGs again
// (handleInstanceCreationErrors, deleteCreatedNodesWithErrors).
func (cs *clusterState) handleCreationErrors(now engine.Time) {
	for _, g := range cs.groups {
		k := g.seenFailed
		if k == 0 {
			continue
		}
		g.seenFailed = 0
		if g.req.active {
			g.req.increase -= k
			if g.req.increase <= 0 {
				g.req.active = false
			}
			cs.failScaleUp(g, now)
		}
		g.target -= k
		cs.refreshNow = true
	}
}

// removeLongUnregistered deletes nodes still not registered
// --max-node-provision-time after their launch (removeOldUnregisteredNodes;
// a registered node that is not Ready is scaleDownUnready's),
// never below the group's minimum size (the AWS provider's DeleteNodes
// refuses at the minimum: such a node stays, billed, and is counted in
// LongUnregisteredAtEnd) and only in autoscaled groups (the others are no
// node group of the Cluster Autoscaler's).
// Only launching nodes can be due: those of the list, in the groups'
// order (by group, then by ID), each checked again when its turn comes.
func (cs *clusterState) removeLongUnregistered(now engine.Time) {
	due := cs.scratch.due[:0]
	for _, id := range cs.launchingNodes() {
		if nd := &cs.cl.Nodes[id]; nd.Launched+cs.s.MaxNodeProvisionTime < now && !nd.RegisteredNotReady() {
			due = append(due, id)
		}
	}
	cs.sortByGroup(due)
	cs.scratch.due = due
	for _, id := range due {
		n := cs.nodes.get(id)
		nd := &cs.cl.Nodes[id]
		if n == nil || nd.State != cluster.NodeLaunching || nd.RegisteredNotReady() || nd.Launched+cs.s.MaxNodeProvisionTime >= now {
			continue
		}
		g := n.group
		// A scale-up waiting for the node timed out in updateScaleRequests,
		// earlier in this loop (its expected time is the launch plus
		// --max-node-provision-time); a node kept at the minimum and removed
		// later fails no newer scale-up.
		if !g.sel.Autoscaled || g.target <= g.sel.Min {
			continue
		}
		cs.dropNode(id)
		cs.cl.RemoveNode(id)
		cs.cloud.Terminate(n.instance)
		g.target--
		cs.stats.nodesRemoved++
		g.stats.NodesRemoved++
		cs.stats.unregisteredRemoved++
		g.stats.UnregisteredNodesRemoved++
		cs.refreshNow = true
	}
}

// enforceMinSize scales groups below their minimum up to it
// (--enforce-node-group-min-size).
func (cs *clusterState) enforceMinSize(now engine.Time) bool {
	did := false
	for _, g := range cs.groups {
		if !g.sel.Autoscaled || cs.backedOff(g, now) {
			continue
		}
		for g.target < g.sel.Min {
			g.target++
			cs.registerScaleUp(g, 1, now)
			cs.launch(g, launchScaleUp, nil)
			did = true
		}
	}
	return did
}

// registerScaleUp starts or extends the group's scale-up request.
func (cs *clusterState) registerScaleUp(g *group, n int, now engine.Time) {
	if !g.req.active {
		g.req = scaleUpRequest{active: true}
	}
	g.req.increase += n
	g.req.expected = now + cs.s.MaxNodeProvisionTime
}
