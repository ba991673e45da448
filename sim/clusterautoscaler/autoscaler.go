package clusterautoscaler

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/provreq"
	"github.com/clustersim/clustersim/sim/engine"
)

// Cloud is what the Cluster Autoscaler's ASGs need from EC2: launch one
// instance among offerings, terminate one, hear about spot interruptions,
// and the price of an offering (for the price expander). sim/spotmarket's
// Market satisfies it.
type Cloud interface {
	Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error)
	Terminate(id cloud.InstanceID)
	Subscribe(s cloud.Subscriber)
	Price(o cloud.Offering) (usdPerHour float64, ok bool)
}

// Evictor is the eviction API the scale-down drain uses; sim/eviction's
// Evictor satisfies it. Blocked reports whether a PodDisruptionBudget
// forbids evicting the pod now.
type Evictor interface {
	Evict(pod cluster.PodID, cause cluster.DeleteCause) bool
	Blocked(pod cluster.PodID) bool
}

// PDBCoverer is optionally implemented by the Evictor: Covered reports
// whether any PodDisruptionBudget selects the pod. Without it, no pod
// counts as covered, so every kube-system pod blocks scale-down (with
// --skip-nodes-with-system-pods, the default).
type PDBCoverer interface {
	Covered(pod cluster.PodID) bool
}

// PDBBudgets is optionally implemented by the Evictor: the budgets that
// select a pod (their indexes, appended to dst) and the disruptions
// budget i allows now. The scale-down planner counts the pods of the
// nodes a pass finds removable against them, so a budget that allows one
// disruption lets one node of its pods be unneeded, not all (upstream's
// RemainingPdbTracker, core/scaledown/pdb, as the planner's
// categorizeNodes uses it). Without it every node is judged on the
// budgets as they are (Blocked).
type PDBBudgets interface {
	HasBudgets() bool
	CoveringBudgets(pod cluster.PodID, dst []int) []int
	BudgetAllowed(i int) int
}

// NodeGroup and Settings are the compiled inputs (see package config).
type (
	NodeGroup = config.NodeGroup
	Settings  = config.Settings
)

// Owner is the name the Cluster Autoscaler's ASG launches carry in the
// market's statistics.
const Owner = "cluster-autoscaler"

// Taints the Cluster Autoscaler puts on nodes (cluster-autoscaler/utils/
// taints): ToBeDeleted marks a node being removed, DeletionCandidate (soft)
// one found unneeded.
const (
	TaintToBeDeleted       = "ToBeDeletedByClusterAutoscaler"
	TaintDeletionCandidate = "DeletionCandidateOfClusterAutoscaler"
	// LabelScaleDownDisabled stands in for the node annotation
	// cluster-autoscaler.kubernetes.io/scale-down-disabled: "true" (the
	// cluster model keeps no node annotations): a node with this label
	// set to "true" is never scaled down.
	LabelScaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
	// podEvictionHeadroom is added to the longest grace period when a
	// drain waits for its pods to go (utils/drain PodEvictionHeadroom).
	podEvictionHeadroom = 30 * time.Second
	// minLoopGap separates a productive loop from the next one when loops
	// are set to take no time (SettingsSpec.loopDuration: 0s).
	minLoopGap = time.Millisecond
)

// Event kinds.
const (
	evInit uint16 = iota
	evLoop
	evReady    // Obj: node
	evSignal   // Obj: instance, Arg: signal kind
	evDrain    // Obj: node
	evDelete   // Obj: node: an empty node's delay after taint is over
	evASGRetry // Obj: group index: the ASG retries its failed launches
	evRegister // Obj: node: a node that never becomes Ready registers
)

var never = engine.Time(math.MinInt64 / 2)

// env is what every part reads: the models it talks to, the settings,
// the engine handler, the random streams, the report's counters and the
// well-known symbols interned once. Each part embeds a copy; what changes
// (the counters, the settings tests adjust) is shared through pointers.
type env struct {
	eng   *engine.Engine
	cl    *cluster.Cluster
	cat   *catalog.Catalog
	cloud Cloud
	ev    Evictor
	pdbs  PDBCoverer
	// budgets is the Evictor's PDBBudgets when it has budgets, else nil.
	budgets PDBBudgets
	region  string
	zones   []string
	s       *Settings
	id      engine.HandlerID
	rng     *rand.Rand // the expander's random choices
	tplRng  *rand.Rand // the template node's pick
	stats   *statsState

	// well-known symbols
	symHostname, symKubeSystem, symToBeDeleted, symDeletionCandidate, symScaleDownDisabled, symTrue cluster.Sym
}

// Autoscaler is the Cluster Autoscaler: an engine handler, a cluster
// watcher and a cloud subscriber. It is the thin controller of upstream's
// StaticAutoscaler: it owns the parts that do the work (doc.go,
// Structure), dispatches events, cluster changes and cloud signals to
// them and runs the main loop.
type Autoscaler struct {
	env
	parts

	loopTimer engine.Timer
	loopAt    engine.Time
	lastLoop  engine.Time
	// loopTime is how long the last loop took and loopEnd when it ended
	// (looptime.go); boundPods counts pods bound to nodes, for it.
	loopTime  time.Duration
	loopEnd   engine.Time
	boundPods int
}

// parts are the controller's parts (doc.go, Structure). The controller
// and the parts that drive others (orchestrator, planner, actuator) embed
// the same set; the cluster state and the expander point only at the
// little they need.
type parts struct {
	*clusterState
	orch *orchestrator
	exp  *expander
	plan *planner
	act  *actuator
	// prq are the ProvisioningRequests (provreqs.go); nil without
	// --enable-provisioning-requests or without requests.
	prq *provReqs
}

// clusterState is the cluster state registry (upstream's clusterstate
// and the AWS provider's ASG cache): the node groups, their nodes'
// records, their scale-up requests and back-offs, their templates, the
// pending pods, the last scale times, and the incremental snapshot of the
// cluster the what-ifs read (caches, cache.go). It launches instances
// (the ASG side) and forgets nodes that go.
type clusterState struct {
	env

	groups     []*group
	byInstance map[cloud.InstanceID]cluster.NodeID
	// adopted holds the names of adopted nodes (Adopt), which new nodes' names skip.
	adopted map[string]bool
	nodes   nodeTable

	// pending holds pods that were marked unschedulable, in that order;
	// loops drop those no longer pending. inPending dedupes by PodID.
	pending   []cluster.PodID
	inPending []bool

	lastRefresh engine.Time
	refreshNow  bool
	// goneSeen: a node of the groups was removed by someone else since
	// the last sweepGone.
	goneSeen bool

	lastScaleUp, lastScaleDownDelete, lastScaleDownFail engine.Time

	cache   caches
	scratch stateScratch
	// bufs is the CapacityBuffer support (buffers.go), nil unless both of
	// its flags are on and the scenario has buffers.
	bufs *buffers
	// replay is the planner's replay state, told of every node change;
	// act is the actuator, told of nodes gone while being deleted.
	replay *replayState
	act    *actuator
}

// stateScratch holds the cluster state's buffers reused across loops.
type stateScratch struct {
	due       []cluster.NodeID // removeLongUnregistered's nodes
	groupKeys []uint64         // sortByGroup's keys
}

// nodeTable holds the records of the groups' nodes by NodeID (nil for
// other nodes).
type nodeTable []*caNode

func (t nodeTable) get(id cluster.NodeID) *caNode {
	if int(id) < len(t) && id >= 0 {
		return t[id]
	}
	return nil
}

func (t *nodeTable) set(id cluster.NodeID, n *caNode) {
	for int(id) >= len(*t) {
		*t = append(*t, nil)
	}
	(*t)[id] = n
}

func (t nodeTable) del(id cluster.NodeID) {
	if int(id) < len(t) && id >= 0 {
		t[id] = nil
	}
}

// caNode is the Cluster Autoscaler's record of a node of its groups.
type caNode struct {
	group    *group
	instance cloud.InstanceID
	// firstPending is the creation time of the oldest pod the node was
	// launched for (never when none: initial nodes and replacements).
	firstPending engine.Time
	readyTimer   engine.Timer
	// unneededSince is when the node was first found unneeded (never
	// while it is needed).
	unneededSince engine.Time
	// recheckAt: the removal simulation found the node unremovable and
	// skips it until then (--unremovable-node-recheck-timeout).
	recheckAt   engine.Time
	softTainted bool
	deleting    bool
	drain       drainState
	// replacing: a capacity-rebalancing replacement was launched for it;
	// replaces: this node is that replacement for another node.
	replacing bool
	replaces  cluster.NodeID
}

// nodeFor is the node a group's launch of type it in zone adds, before
// its name, state, price and instance (launch; lint uses it as is).
func (cs *clusterState) nodeFor(g *group, it *catalog.InstanceType, zone string, ct cluster.CapacityType) cluster.Node {
	labels := make(map[string]string, len(g.cfg.Labels)+6)
	for k, v := range g.cfg.Labels {
		labels[k] = v
	}
	labels[config.LabelInstanceType] = it.Name
	labels[config.LabelZone] = zone
	labels[config.LabelRegion] = cs.region
	labels[config.LabelArch] = it.Arch
	labels[config.LabelOS] = "linux"
	return cluster.Node{
		Labels:       cluster.CompileLabels(cs.cl.Syms, labels),
		Taints:       append([]cluster.Taint(nil), g.taints...),
		Allocatable:  cs.allocatable(it, g.cfg.Kubelet),
		InstanceType: it.Name,
		Zone:         cs.cl.Syms.Intern(zone),
		CapacityType: ct,
		Owner:        ownedByCA,
		OwnerName:    g.cfg.Name,
	}
}

// Deps are what the Cluster Autoscaler works with: the engine and the
// cluster it shares with every model, the instance catalogue, the cloud
// that launches its instances and the eviction API that drains its nodes.
type Deps struct {
	Engine  *engine.Engine
	Cluster *cluster.Cluster
	Catalog *catalog.Catalog
	Cloud   Cloud
	Evictor Evictor
}

// Config is the Cluster Autoscaler's part of the scenario: the region and
// zones, its node groups and its flags.
type Config struct {
	Region     string
	Zones      []string
	NodeGroups []NodeGroup
	Settings   Settings
	// CapacityBuffers are the scenario's buffers, kept with both
	// --capacity-buffer-* flags on.
	CapacityBuffers []capacitybuffer.Buffer
	// ProvisioningRequests are the scenario's requests, when
	// --enable-provisioning-requests is on (provreq.go).
	ProvisioningRequests []provreq.Request
}

// New builds the Cluster Autoscaler for the given node groups and
// registers it with the engine, the cluster and the cloud. The groups'
// initial nodes (their desired capacity) are launched, Ready, at the
// engine's current time by an event scheduled now, so construct the
// Cluster Autoscaler before the workload controllers to have them in
// place before the first pods.
func New(deps Deps, cfg Config) (*Autoscaler, error) {
	eng, cl, cat, provider, evictor := deps.Engine, deps.Cluster, deps.Catalog, deps.Cloud, deps.Evictor
	region, zones, groups, settings := cfg.Region, cfg.Zones, cfg.NodeGroups, cfg.Settings
	if eng == nil || cl == nil || cat == nil || provider == nil || evictor == nil {
		return nil, errors.New("clusterautoscaler: New needs an engine, a cluster, a catalogue, a cloud and an evictor")
	}
	if _, err := config.CrossCheck(groups, &settings); err != nil {
		return nil, err
	}
	a := &Autoscaler{boundPods: 0, lastLoop: never, loopTime: settings.LoopDuration}
	s := &settings
	e := env{eng: eng, cl: cl, cat: cat, cloud: provider, ev: evictor, region: region, zones: zones, s: s,
		rng:    eng.Stream("clusterautoscaler/expander"),
		tplRng: eng.Stream("clusterautoscaler/template"),
		stats:  &statsState{},
	}
	if p, ok := evictor.(PDBCoverer); ok {
		e.pdbs = p
	}
	if b, ok := evictor.(PDBBudgets); ok && b.HasBudgets() {
		e.budgets = b
	}
	syms := cl.Syms
	e.symHostname = cl.KeyHostname
	e.symKubeSystem = syms.Intern("kube-system")
	e.symToBeDeleted = syms.Intern(TaintToBeDeleted)
	e.symDeletionCandidate = syms.Intern(TaintDeletionCandidate)
	e.symScaleDownDisabled = syms.Intern(LabelScaleDownDisabled)
	e.symTrue = syms.Intern("true")
	a.env = e
	a.parts = newParts(e)
	a.orch.est = estimator{syms: syms, hostname: cl.KeyHostname}
	if s.CapacityBufferController && s.CapacityBufferPodInjection && len(cfg.CapacityBuffers) > 0 {
		a.bufs = newBuffers(cl, cfg.CapacityBuffers)
	}
	if settings.ProvReq.Enabled && len(cfg.ProvisioningRequests) > 0 {
		p := newProvReqs(a.clusterState, cfg.ProvisioningRequests)
		a.parts.prq, a.orch.parts.prq, a.plan.parts.prq, a.act.parts.prq = p, p, p, p
	}

	sel := config.Select(groups, &settings)
	for i := range groups {
		g, err := a.newGroup(&groups[i], i, sel[i])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", groups[i].File, groups[i].Line, groups[i].Path, err)
		}
		a.groups = append(a.groups, g)
	}
	a.setID(eng.Register(a))
	for i := range cl.Pods {
		if p := &cl.Pods[i]; p.Phase.OnNode() {
			a.antiChanged(p, p.Node, 1)
			a.boundPods++
		}
	}
	for i := range cl.Nodes {
		if cl.Nodes[i].State != cluster.NodeGone {
			a.liveAdd(cluster.NodeID(i))
			a.destTouch(cluster.NodeID(i))
			a.onNodeAdded(cluster.NodeID(i))
		}
	}
	cl.Watch(a)
	provider.Subscribe(a)
	eng.After(0, engine.Event{Handler: a.id, Kind: evInit})
	return a, nil
}

// newParts builds the parts around one cluster state, each with its copy
// of e.
func newParts(e env) parts {
	cs := &clusterState{env: e, byInstance: map[cloud.InstanceID]cluster.NodeID{},
		lastRefresh: never, lastScaleUp: never, lastScaleDownDelete: never, lastScaleDownFail: never,
		goneSeen: true}
	cs.cache.scanGI = -2
	p := parts{clusterState: cs, orch: &orchestrator{env: e}, exp: &expander{env: e}, plan: &planner{env: e}, act: &actuator{env: e}}
	p.orch.parts, p.plan.parts, p.act.parts = p, p, p
	cs.replay, cs.act = &p.plan.replay, p.act
	return p
}

// setID gives every part the controller's engine handler.
func (a *Autoscaler) setID(id engine.HandlerID) {
	a.id = id
	a.clusterState.id, a.orch.id, a.exp.id, a.plan.id, a.act.id = id, id, id, id, id
}

// HandleEvent implements engine.Handler.
func (a *Autoscaler) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evInit:
		// Upstream starts with every scale-down cool-down running
		// (NewStaticAutoscaler sets the last scale times to its start).
		now := a.eng.Now()
		a.lastScaleUp, a.lastScaleDownDelete, a.lastScaleDownFail = now, now, now
		a.launchInitial()
		a.scheduleLoop(a.eng.Now())
	case evLoop:
		a.loop()
	case evReady:
		a.nodeReady(cluster.NodeID(ev.Obj))
	case evSignal:
		a.handleSignal(cloud.InstanceID(ev.Obj), cloud.SignalKind(ev.Arg))
	case evDrain:
		a.act.drainStep(cluster.NodeID(ev.Obj))
	case evDelete:
		a.act.finishDelete(cluster.NodeID(ev.Obj))
	case evASGRetry:
		a.asgRetry(a.groups[ev.Obj])
	case evRegister:
		a.registerNotReady(cluster.NodeID(ev.Obj))
	}
}

// OnChange implements cluster.Watcher: it remembers unschedulable pods and,
// with --frequent-loops-enabled, starts a loop at once (the upstream loop
// trigger's pod observer).
func (a *Autoscaler) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.PodUnschedulable:
		if now := a.eng.Now(); now < a.loopEnd {
			a.stats.maxWait = max(a.stats.maxWait, a.loopEnd-now)
		}
	case cluster.PodBound:
		a.boundPods++
		a.antiChanged(&a.cl.Pods[c.Pod], c.Node, 1)
		a.onBound(c.Pod, c.Node)
		return
	case cluster.PodTerminating:
		a.onTerminating(c.Pod, c.Node)
		return
	case cluster.NodeAdded:
		a.liveAdd(c.Node)
		a.nodeChanged(c.Node)
		a.onNodeAdded(c.Node)
		return
	case cluster.NodeRemoved:
		if a.nodes.get(c.Node) != nil {
			a.goneSeen = true
		}
		a.liveRemove(c.Node)
		a.nodeChanged(c.Node)
		return
	case cluster.NodeReadied, cluster.NodeUpdated:
		a.nodeChanged(c.Node)
		return
	case cluster.PodDeleted, cluster.PodFinished:
		a.antiChanged(&a.cl.Pods[c.Pod], c.Node, -1)
		if c.Node != cluster.NoNode {
			a.boundPods--
			a.onUnbound(c.Pod, c.Node)
		}
		// A drained node may now be empty.
		if c.Node != cluster.NoNode {
			if n := a.nodes.get(c.Node); n != nil && n.drain.evicted && a.onlyDaemons(c.Node) {
				a.eng.After(0, engine.Event{Handler: a.id, Kind: evDrain, Obj: int32(c.Node)})
			}
		}
		return
	default:
		return
	}
	id := c.Pod
	for int(id) >= len(a.inPending) {
		a.inPending = append(a.inPending, false)
	}
	if !a.inPending[id] {
		a.inPending[id] = true
		a.pending = append(a.pending, id)
	}
	if a.s.FrequentLoops {
		a.scheduleLoop(max(a.eng.Now(), a.lastLoop+a.loopTime))
	}
}

// OnSignal implements cloud.Subscriber: signals about the groups' instances
// are handled from an engine event of their own.
func (a *Autoscaler) OnSignal(s cloud.Signal) {
	if _, ok := a.byInstance[s.Instance]; !ok {
		return
	}
	a.eng.After(0, engine.Event{Handler: a.id, Kind: evSignal, Obj: int32(s.Instance), Arg: int64(s.Kind)})
}

// scheduleLoop makes the next loop run at t unless one is due earlier.
func (a *Autoscaler) scheduleLoop(t engine.Time) {
	if !a.s.Running {
		return // plain ASGs: no autoscaler loop
	}
	if a.eng.Pending(a.loopTimer) {
		if a.loopAt <= t {
			return
		}
		a.eng.Cancel(a.loopTimer)
	}
	a.loopAt = t
	a.loopTimer = a.eng.Schedule(t, engine.Event{Handler: a.id, Kind: evLoop})
}

// loop is one iteration of the Cluster Autoscaler's main loop
// (core/static_autoscaler.go RunOnce).
func (a *Autoscaler) loop() {
	now := a.eng.Now()
	a.lastLoop = now
	a.sweepGone()
	if a.refreshNow || now-a.lastRefresh >= a.s.ASGRefreshInterval {
		a.refresh(now)
	}
	a.updateScaleRequests(now)
	a.handleCreationErrors(now)
	a.removeLongUnregistered(now)
	a.cleanBackoffs(now)

	a.stats.loops++
	if a.prq != nil {
		a.prq.refresh(now, a.s.ProvReq.ProcessorInstance)
	}
	productive := false
	if !a.clusterHealthy(now) {
		a.stats.unhealthyLoops++
		a.plan.forgetUnneeded()
	} else {
		scaledUp, hold := a.orch.scaleUp(now)
		productive = scaledUp
		if a.s.ScaleDownEnabled {
			productive = a.plan.scaleDown(now, scaledUp || hold) || productive
			productive = a.plan.scaleDownUnready(now, scaledUp || hold) || productive
		}
		if a.s.EnforceNodeGroupMinSize {
			productive = a.enforceMinSize(now) || productive
		}
	}
	a.loopTime = a.loopDuration()
	a.loopEnd = now + a.loopTime
	a.stats.busy += a.loopTime
	next := now + a.loopTime + a.s.ScanInterval
	if productive && a.s.FrequentLoops {
		// Never two loops at one instant: each must see the last one's
		// effects land.
		next = now + max(a.loopTime, minLoopGap)
	}
	a.scheduleLoop(next)
}

// refresh is the AWS provider's ASG cache refresh: desired capacity above
// the running instances shows up as placeholder instances, marked
// unfulfillable when the ASG's scaling activity failed.
func (cs *clusterState) refresh(now engine.Time) {
	cs.lastRefresh = now
	cs.refreshNow = false
	for _, g := range cs.groups {
		g.seenFailed += len(g.placeholders)
		g.placeholders = g.placeholders[:0]
	}
}

// sweepGone forgets nodes of the groups that someone else removed.
func (cs *clusterState) sweepGone() {
	if !cs.goneSeen {
		return // nodes only go by RemoveNode, which notifies us
	}
	cs.goneSeen = false
	for _, g := range cs.groups {
		keep := g.nodes[:0]
		for _, id := range g.nodes {
			if cs.cl.Nodes[id].State == cluster.NodeGone {
				// Out of the group's instance counts too, as dropNode
				// takes it out (they counted it while it was listed).
				g.uncount(cs.cl, id)
				cs.forget(id)
				continue
			}
			keep = append(keep, id)
		}
		g.nodes = keep
	}
}

// forget drops a node's records (the node is gone).
func (cs *clusterState) forget(id cluster.NodeID) {
	n := cs.nodes.get(id)
	if n == nil {
		return
	}
	cs.eng.Cancel(n.readyTimer)
	cs.eng.Cancel(n.drain.timer)
	if n.drain.active && !n.drain.empty && n.drain.kind == deleteScaleDown {
		cs.act.drains--
	}
	if n.deleting {
		cs.act.countDeleting(n, -1)
	}
	delete(cs.byInstance, n.instance)
	cs.nodes.del(id)
}

// removeNode takes a node out of the group's list.
func (g *group) removeNode(id cluster.NodeID) {
	for i, have := range g.nodes {
		if have == id {
			g.nodes = append(g.nodes[:i], g.nodes[i+1:]...)
			return
		}
	}
}

// launchInitial brings every group to its desired capacity: the cluster
// as it stands when the scenario starts, its nodes Ready at once. Nodes
// the group adopted (Adopt) are already in it and count.
func (cs *clusterState) launchInitial() {
	for _, g := range cs.groups {
		for k := g.target; k < g.cfg.DesiredCapacity; k++ {
			g.target++
			cs.launch(g, launchInitial, nil)
		}
	}
}

type launchKind uint8

const (
	launchInitial launchKind = iota
	launchScaleUp
	launchReplace // the ASG keeps desired capacity after a reclaim
	launchRebalance
)

// launch asks the cloud for one instance of group g. On success the node
// appears (Launching, or Ready for initial nodes) and its Ready event is
// scheduled; on failure the ASG is left with a placeholder that the next
// refresh reveals. It returns the node, or cluster.NoNode.
func (cs *clusterState) launch(g *group, kind launchKind, pods []cluster.PodID) cluster.NodeID {
	spot := cs.nextIsSpot(g)
	req := cloud.LaunchRequest{Owner: Owner, Group: g.cfg.Name, Offerings: cs.offerings(g, spot), Latency: cloud.ASGLaunch, Strategy: g.cfg.OnDemandStrategy,
		Joined: kind == launchInitial}
	if spot {
		req.Strategy = g.cfg.SpotStrategy
	}
	res, err := cs.cloud.Launch(req)
	if err != nil || res.Instance == cloud.NoInstance {
		cs.stats.launchFailures++
		g.stats.LaunchFailures++
		if kind != launchRebalance {
			g.placeholders = append(g.placeholders, cs.eng.Now())
			cs.asgRetryLater(g)
		}
		return cluster.NoNode
	}
	it, ok := cs.cat.Lookup(res.Offering.InstanceType)
	if !ok {
		// The cloud launched a type we never asked for: a bug upstream of us.
		panic(fmt.Sprintf("clusterautoscaler: cloud launched unknown instance type %q", res.Offering.InstanceType))
	}
	node := cs.nodeFor(g, it, res.Offering.Zone, res.Offering.CapacityType)
	for {
		// Named after the group and a counter, skipping adopted nodes'
		// names (a dumped and imported cluster's are named so too).
		g.seq++
		if node.Name = fmt.Sprintf("%s-%d", g.cfg.Name, g.seq); !cs.adopted[node.Name] {
			break
		}
	}
	node.State = cluster.NodeLaunching
	if kind == launchInitial {
		node.State, node.Initial = cluster.NodeReady, true
	}
	node.PriceUSDPerHour = res.PriceUSDPerHour
	node.Instance = int32(res.Instance)
	id := cs.cl.AddNode(node)
	n := &caNode{group: g, instance: res.Instance, firstPending: never, unneededSince: never, replaces: cluster.NoNode}
	cs.nodes.set(id, n)
	cs.byInstance[res.Instance] = id
	g.nodes = append(g.nodes, id)
	if cs.cl.Nodes[id].State == cluster.NodeLaunching {
		cs.cache.launching = append(cs.cache.launching, id)
	}
	if res.Offering.CapacityType == cluster.Spot {
		g.spot++
	} else {
		g.onDemand++
	}
	g.zoneCount[res.Offering.Zone]++
	if kind != launchInitial {
		cs.stats.nodesAdded++
		g.stats.NodesAdded++
		switch {
		case res.NeverReady:
			// It registers then, and is left to scaleDownUnready.
			n.readyTimer = cs.eng.After(res.ReadyAfter, engine.Event{Handler: cs.id, Kind: evRegister, Obj: int32(id)})
		case !res.NeverJoins:
			// A node that never joins is left to removeLongUnregistered.
			n.readyTimer = cs.eng.After(res.ReadyAfter, engine.Event{Handler: cs.id, Kind: evReady, Obj: int32(id)})
		}
	}
	if kind == launchReplace || kind == launchRebalance {
		g.stats.Replacements++
	}
	if len(pods) > 0 {
		cs.noteLaunch(id, n, pods)
	}
	return id
}

// noteLaunch records the pods a node was launched for: in the cluster, for
// the race report, and as the node's first pending time.
func (cs *clusterState) noteLaunch(id cluster.NodeID, n *caNode, pods []cluster.PodID) {
	race := false
	for _, p := range pods {
		if isFake(p) {
			continue // a CapacityBuffer's or ProvisioningRequest's: no pod to note
		}
		for _, other := range cs.cl.LaunchedFor(p) {
			if cs.cl.Nodes[other].Owner != ownedByCA {
				race = true
			}
		}
		cs.cl.NoteLaunchFor(p, id)
		if c := cs.cl.Pods[p].Created; n.firstPending == never || c < n.firstPending {
			n.firstPending = c
		}
	}
	if race {
		cs.stats.raceNodes++
		n.group.stats.RaceNodes++
	}
}

// nextIsSpot decides the capacity type of a group's next instance from its
// instances distribution: on-demand up to the base, then the on-demand
// percentage of the instances above it (rounded up).
func (cs *clusterState) nextIsSpot(g *group) bool {
	base, pct := g.cfg.OnDemandBase, g.cfg.OnDemandPercent
	if g.onDemand < base {
		return false
	}
	above := g.onDemand + g.spot + 1 - base
	odAbove := g.onDemand - base
	return odAbove*100 >= above*pct
}

// offerings lists the group's instance types in each of its zones, the
// zones with fewest of the group's instances first (the ASG's AZ
// balancing), types in the group's order.
func (cs *clusterState) offerings(g *group, spot bool) []cloud.Offering {
	zones := append([]string(nil), g.cfg.Zones...)
	sort.SliceStable(zones, func(i, j int) bool { return g.zoneCount[zones[i]] < g.zoneCount[zones[j]] })
	ct := cluster.OnDemand
	if spot {
		ct = cluster.Spot
	}
	out := make([]cloud.Offering, 0, len(zones)*len(g.cfg.InstanceTypes))
	for _, z := range zones {
		for _, t := range g.cfg.InstanceTypes {
			out = append(out, cloud.Offering{InstanceType: t, Zone: z, CapacityType: ct})
		}
	}
	return out
}

// allocatable is a real node's allocatable (the same overhead rules as the
// scenario's static nodes).
func (cs *clusterState) allocatable(it *catalog.InstanceType, opts catalog.KubeletOptions) cluster.Resources {
	al := it.Allocatable(opts)
	var r cluster.Resources
	r[cluster.CPU] = al.CPUMilli
	r[cluster.Memory] = al.MemoryBytes
	r[cluster.Ephemeral] = al.EphemeralBytes
	r[cluster.Pods] = al.Pods
	for _, e := range it.Accelerators() { // nvidia.com/gpu, amd.com/gpu, Neuron, Gaudi
		if i, err := cs.cl.Resources.Index(corev1.ResourceName(e.Name)); err == nil {
			r[i] = e.Count
		}
	}
	return r
}

// nodeReady makes a launched node Ready and records its pending-to-ready
// time; a rebalancing replacement then drains the node it replaces.
func (a *Autoscaler) nodeReady(id cluster.NodeID) {
	n := a.nodes.get(id)
	if n == nil || a.cl.Nodes[id].State != cluster.NodeLaunching {
		return
	}
	a.cl.MarkNodeReady(id)
	// Whatever puts a startup taint on (a CNI or CSI agent's, e.g. Cilium's
	// node.cilium.io/agent-not-ready) takes it off once the node is up;
	// those agents are not modelled, so it goes when the node is Ready.
	for i := len(a.cl.Nodes[id].Taints) - 1; i >= 0; i-- {
		if t := a.cl.Nodes[id].Taints[i]; a.startupTaint(a.cl.Syms.Name(t.Key)) {
			a.cl.RemoveTaint(id, t.Key, t.Effect)
		}
	}
	if n.firstPending != never {
		n.group.stats.pendingToReady = append(n.group.stats.pendingToReady, (a.eng.Now() - n.firstPending).Seconds())
	}
	if old := n.replaces; old != cluster.NoNode {
		if on := a.nodes.get(old); on != nil && a.cl.Nodes[old].State != cluster.NodeGone {
			a.act.retireRebalanced(old, on)
		}
	}
}

// handleSignal reacts to a spot signal about one of the groups' instances.
// The Cluster Autoscaler has no interruption handler: only the ASG acts.
func (a *Autoscaler) handleSignal(inst cloud.InstanceID, kind cloud.SignalKind) {
	id, ok := a.byInstance[inst]
	if !ok {
		return
	}
	n := a.nodes.get(id)
	g := n.group
	switch kind {
	case cloud.RebalanceRecommendation, cloud.InterruptionNotice:
		// Capacity rebalancing launches a replacement first (EKS turns it
		// on for spot managed node groups).
		if g.cfg.CapacityRebalance && !n.replacing && !n.deleting {
			if rid := a.launch(g, launchRebalance, nil); rid != cluster.NoNode {
				n.replacing = true
				a.nodes.get(rid).replaces = id
			}
		}
		// Then whoever drains the group's nodes acts (spotdrain.go).
		a.act.spotSignal(id, n, kind)
	case cloud.Terminated:
		a.stats.nodesReclaimed++
		g.stats.NodesReclaimed++
		scaledDown := n.deleting && n.drain.kind == deleteScaleDown
		replaced := n.replacing || (n.deleting && n.drain.kind == deleteRebalance)
		a.dropNode(id)
		a.cl.RemoveNode(id)
		switch {
		case scaledDown:
			// It was on its way out: the scale-down's target drop stands.
			g.target--
		case replaced:
			// The rebalancing replacement already took its place.
		default:
			// The ASG replaces the instance to keep its desired capacity.
			a.launch(g, launchReplace, nil)
		}
	}
}

// dropNode removes a node from its group's books (not from the cluster).
func (cs *clusterState) dropNode(id cluster.NodeID) {
	n := cs.nodes.get(id)
	if n == nil {
		return
	}
	g := n.group
	g.uncount(cs.cl, id)
	g.removeNode(id)
	cs.forget(id)
}

// uncount takes a node of the group out of its capacity-type and zone
// counts.
func (g *group) uncount(cl *cluster.Cluster, id cluster.NodeID) {
	nd := &cl.Nodes[id]
	if nd.CapacityType == cluster.Spot {
		g.spot--
	} else {
		g.onDemand--
	}
	g.zoneCount[cl.Syms.Name(nd.Zone)]--
}
