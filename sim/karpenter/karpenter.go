package karpenter

import (
	"fmt"
	"time"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// NodePool is a compiled karpenter.sh/v1 NodePool (see package apis).
type NodePool = apis.NodePool

// Settings are the controller settings (see package apis).
type Settings = apis.Settings

// Cloud is what Karpenter needs from EC2: one CreateFleet-like launch,
// termination, the price list, and the interruption signals.
// sim/spotmarket's Market satisfies it.
type Cloud interface {
	// Launch asks for one instance in one of the offerings.
	Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error)
	// Terminate ends an instance Karpenter launched.
	Terminate(id cloud.InstanceID)
	// Price is an offering's current price in USD/hour; false when the
	// offering is not sold.
	Price(o cloud.Offering) (float64, bool)
	// Subscribe registers for interruption signals about every instance.
	Subscribe(s cloud.Subscriber)
}

// Evictor is the eviction API that drains use (sim/eviction's Evictor
// satisfies it).
type Evictor interface {
	// Evict asks to evict a pod; false when a PodDisruptionBudget refuses.
	Evict(pod cluster.PodID, cause cluster.DeleteCause) bool
	// Blocked reports whether a budget forbids evicting the pod now.
	Blocked(pod cluster.PodID) bool
	// HasBudgets reports whether any budget exists (none: nothing is
	// blocked).
	HasBudgets() bool
	// FullyBlocked reports whether no eviction of the pod can ever pass:
	// a budget allowing none by its spec covers it (maxUnavailable 0 or
	// 0%, minAvailable 100%), or more than one budget does.
	FullyBlocked(pod cluster.PodID) bool
}

// DaemonOverheadFunc returns the requests of the DaemonSet pods that would
// run on a node like template (labels of the pool and the instance type,
// the pool's taints; zone and capacity type not yet known), as
// workload.Controllers.DaemonSetOverhead does.
type DaemonOverheadFunc = scheduling.DaemonOverheadFunc

// OwnerName is the Owner of Karpenter's launch requests.
const OwnerName = scheduling.OwnerName

// Engine event kinds.
const (
	evBatchIdle uint16 = iota + 1
	evBatchMax
	evRequeue
	evReady
	evRegistration
	evExpire
	evDisruption
	evValidate
	evDrain
	evSignal
	evPoolUpdate
	evCommandCheck
	evForceDelete
	evSolveDone
	evStatic
	evReservation // Obj: index in Offerings.Reservations; its end or a Capacity Block's expiry
	evBufferResync
	evRegister // Obj: node: a node that never becomes Ready registers
)

// env is what every part of the controller reads: the models it talks to,
// the settings, its engine handler, the counters of the report and the
// label keys interned once. Each part embeds a copy; what changes (the
// counters) is shared through a pointer.
type env struct {
	eng      *engine.Engine
	cl       *cluster.Cluster
	cat      *catalog.Catalog
	cloud    Cloud
	evictor  Evictor
	settings Settings
	id       engine.HandlerID
	stats    *Stats
	// poolStats are the report's counters of each NodePool, by name.
	poolStats map[string]*PoolStats

	keyNodePool, keyDisrupted cluster.Sym
	wellKnownSet              map[cluster.Sym]bool
	autoModeKnown             map[cluster.Sym]bool
}

// Karpenter is the Karpenter controller: an engine handler, a cluster
// watcher and a cloud subscriber. It owns the parts that do the work, as
// upstream's controllers (see doc.go, Structure), and dispatches events,
// cluster changes and cloud signals to them.
type Karpenter struct {
	env
	parts

	// sc is the solve's parts (offerings, pools, base and solvers are
	// its parts too).
	sc *scheduling.Scheduler

	// signals and poolUpdates are the payloads of evSignal and
	// evPoolUpdate events, by the event's Obj.
	signals     []cloud.Signal
	poolUpdates []NodePool
	// buffers is the CapacityBuffer controller, nil with the gate off.
	buffers *buffers
}

// parts are the controller's parts (doc.go, Structure). The controller
// and the parts that drive the others (provisioner, disrupter, terminator)
// embed the same set; the parts below them (offerings, nodeTracker,
// nodePools, existingBase, solvers) point only at the few they read.
type parts struct {
	offerings *scheduling.Offerings
	nodes     *nodeTracker
	pools     *scheduling.NodePools
	base      *scheduling.ExistingBase
	solvers   *scheduling.Solvers
	prov      *provisioner
	dis       *disrupter
	term      *terminator
	static    *staticPools
}

// reschedulable: a pod Karpenter moves when it disrupts a node: active and
// owned neither by a DaemonSet nor by its node (a static pod's mirror), as
// KC pod.IsReschedulable. How the pod came to its node (the scheduler, a
// preemption's nomination, spec.nodeName in its manifest, sim import's
// startOn) does not matter: spec.nodeName is set on every bound pod.
func reschedulable(p *cluster.Pod) bool {
	return !p.Phase.Terminal() && !p.Terminating && movableSpec(p.Spec)
}

// movableSpec reports whether Karpenter reschedules an active pod of this
// spec when it disrupts the pod's node: not a DaemonSet's pod, not a
// mirror pod.
func movableSpec(spec *cluster.PodSpec) bool {
	return !spec.DaemonSet && !spec.Mirror
}

// awaitsProvisioning: an unschedulable pod Karpenter records as pending
// (provisioner.pending); pods pinned by spec.nodeName wait for their node,
// not for a new one.
func awaitsProvisioning(p *cluster.Pod) bool { return p.Spec.NodeName == "" }

// Deps are the models the controller talks to.
type Deps struct {
	Engine  *engine.Engine
	Cluster *cluster.Cluster
	Catalog *catalog.Catalog
	// Cloud launches and terminates instances, prices offerings and
	// sends interruption signals.
	Cloud Cloud
	// Evictor is the eviction API drains use.
	Evictor Evictor
}

// Config is what the controller is configured with: the region and the
// cluster's zones in it, the compiled NodePools (package apis) and the
// controller settings.
type Config struct {
	Region    string
	Zones     []string
	NodePools []NodePool
	Settings  Settings
	// Scale are the static pools' replica changes (spec.karpenter.scale).
	Scale []apis.Scale
	// NodeOverlays in the order they apply; in force with
	// Settings.NodeOverlay.
	NodeOverlays []apis.NodeOverlay
	// CapacityBuffers are kept with Settings.CapacityBuffer.
	CapacityBuffers []capacitybuffer.Buffer
}

// New builds the controller. It registers the controller with the engine,
// the cluster and the cloud, and starts the disruption loop.
func New(deps Deps, cfg Config) (*Karpenter, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	eng, cl, zones, settings := deps.Engine, deps.Cluster, cfg.Zones, cfg.Settings
	k := &Karpenter{}
	// Nothing below fails: registering first gives the parts their
	// handler ID (registration only numbers the handler).
	e := env{eng: eng, cl: cl, cat: deps.Catalog, cloud: deps.Cloud, evictor: deps.Evictor, settings: settings,
		id: eng.Register(k), stats: &Stats{}, poolStats: map[string]*PoolStats{}}
	// Symbols are interned in a fixed order (zones, capacity types, keys,
	// the beta labels; then the solve's: scheduling.New interns the same
	// names first): symbol numbers must not change.
	syms := cl.Syms
	for _, z := range zones {
		syms.Intern(z)
	}
	syms.Intern("on-demand")
	syms.Intern("spot")
	syms.Intern("reserved")
	e.keyNodePool = syms.Intern(apis.LabelNodePool)
	e.keyDisrupted = syms.Intern(apis.TaintDisrupted)
	sc, err := scheduling.New(scheduling.Inputs{Engine: eng, Cluster: cl, Catalog: deps.Catalog, Prices: deps.Cloud,
		Region: cfg.Region, Zones: zones, NodePools: cfg.NodePools, NodeOverlays: cfg.NodeOverlays, Settings: settings})
	if err != nil {
		return nil, err
	}
	e.wellKnownSet = sc.WellKnownLabels()
	e.autoModeKnown = sc.AutoModeLabels()
	var betaKeys [5]cluster.Sym
	for i, key := range scheduling.BetaKeys {
		betaKeys[i] = syms.Intern(key)
	}
	k.env = e
	for i := range cfg.NodePools {
		k.poolStats[cfg.NodePools[i].Name] = &PoolStats{Name: cfg.NodePools[i].Name}
	}
	k.wire(sc, betaKeys)
	cl.Watch(k)
	deps.Cloud.Subscribe(k)
	k.dis.nextPass = eng.After(settings.DisruptionPollInterval, engine.Event{Handler: k.id, Kind: evDisruption})
	// Static pools fill at the start (after the start state is adopted:
	// upstream waits for its cluster state to sync).
	k.static.poke()
	k.scheduleReservations()
	if settings.CapacityBuffer {
		k.buffers = newBuffers(k.env, cfg.CapacityBuffers)
		k.buffers.parts = k.parts
		k.buffers.start()
	}
	for _, sc := range cfg.Scale {
		for _, p := range cfg.NodePools {
			if p.Name == sc.NodePool {
				p.Replicas = sc.Replicas
				k.UpdateNodePool(sc.At, p)
			}
		}
	}
	return k, nil
}

// check reports what makes the configuration unusable.
func (cfg *Config) check() error {
	if len(cfg.Zones) == 0 {
		return fmt.Errorf("karpenter: no zones")
	}
	if len(cfg.Zones)*scheduling.NumCapacityTypes > 64 {
		return fmt.Errorf("karpenter: %d zones; at most %d are supported", len(cfg.Zones), 64/scheduling.NumCapacityTypes)
	}
	s := &cfg.Settings
	if s.BatchIdleDuration <= 0 || s.BatchMaxDuration <= 0 || s.DisruptionPollInterval <= 0 {
		return fmt.Errorf("karpenter: settings must come from apis.DefaultSettings or SettingsSpec.Compile (zero durations)")
	}
	seen := map[string]bool{}
	for i := range cfg.NodePools {
		if seen[cfg.NodePools[i].Name] {
			return fmt.Errorf("karpenter: two NodePools named %q", cfg.NodePools[i].Name)
		}
		seen[cfg.NodePools[i].Name] = true
	}
	return nil
}

// wire makes the controller's parts around the solve's (sc): the
// controller and the driving parts share one set of all.
func (k *Karpenter) wire(sc *scheduling.Scheduler, betaKeys [5]cluster.Sym) {
	e := k.env
	nodes := &nodeTracker{env: e, byInstance: map[cloud.InstanceID]cluster.NodeID{}, idx: sc.Nodes}
	k.sc = sc
	off, pools, base, sv := sc.Offerings, sc.Pools, sc.Base, sc.Solvers
	prov := &provisioner{env: e, betaKeys: betaKeys, pending: map[cluster.PodID]bool{}}
	dis := &disrupter{env: e}
	term := &terminator{env: e}
	static := &staticPools{env: e}
	ps := parts{offerings: off, nodes: nodes, pools: pools, base: base, solvers: sv, prov: prov, dis: dis, term: term, static: static}
	k.parts, prov.parts, dis.parts, term.parts, static.parts = ps, ps, ps, ps, ps
	dis.methods = newMethods(dis)
}

// SetDaemonOverhead sets the hook that says what DaemonSet pods would run
// on a new node (none by default): their requests are added to every
// NodeClaim's (KC daemonOverheadGroups).
func (k *Karpenter) SetDaemonOverhead(f DaemonOverheadFunc) {
	k.pools.SetDaemonOverhead(f)
}

// SetNamespaceLabels gives the namespaces' labels, for pod affinity terms
// with namespace selectors.
func (k *Karpenter) SetNamespaceLabels(m map[cluster.Sym]cluster.Labels) {
	k.solvers.NamespaceLabels = m
}

// UpdateNodePool replaces (or adds) a NodePool at time at, as a scenario
// event: nodes launched from the old template drift when the template
// (labels, annotations, taints, startup taints, expireAfter,
// terminationGracePeriod, node class) or the requirements no longer match;
// weight, limits and disruption changes take effect without drift.
func (k *Karpenter) UpdateNodePool(at engine.Time, p NodePool) {
	k.poolUpdates = append(k.poolUpdates, p)
	k.eng.Schedule(at, engine.Event{Handler: k.id, Kind: evPoolUpdate, Obj: int32(len(k.poolUpdates) - 1)})
}

func (k *Karpenter) applyPoolUpdate(i int) {
	u := k.poolUpdates[i]
	k.offerings.RefreshPrices()
	k.addPool(u)
	k.dis.stateChanged()
	k.static.poke()
}

// addPool puts a NodePool in force (replacing one of the same name), with
// its report counters.
func (k *Karpenter) addPool(spec NodePool) *scheduling.Pool {
	if k.poolStats[spec.Name] == nil {
		k.poolStats[spec.Name] = &PoolStats{Name: spec.Name}
	}
	return k.pools.Add(spec)
}

// poolStat returns a pool's report counters.
func (e *env) poolStat(p *scheduling.Pool) *PoolStats { return e.poolStats[p.Spec.Name] }

func (e *env) wellKnown(key cluster.Sym) bool { return e.wellKnownSet[key] }

func (e *env) wellKnownAuto(key cluster.Sym) bool { return e.wellKnownSet[key] || e.autoModeKnown[key] }

// wellKnownIn is pool p's well-known test: EKS Auto Mode's Karpenter
// also knows its eks.amazonaws.com instance labels.
func (e *env) wellKnownIn(p *scheduling.Pool) func(cluster.Sym) bool {
	if p.Spec.NodeClass.AutoMode {
		return e.wellKnownAuto
	}
	return e.wellKnown
}

// wall maps simulated time to the wall clock of budget schedules.
func (e *env) wall(t engine.Time) time.Time { return e.settings.Epoch.Add(t) }

// HandleEvent implements engine.Handler.
func (k *Karpenter) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evBatchIdle, evBatchMax:
		k.prov.closeBatch()
	case evSolveDone:
		k.prov.solveDone()
	case evRequeue:
		if k.prov.hasProvisionable() {
			k.prov.trigger()
		}
	case evReady:
		k.prov.nodeReady(cluster.NodeID(ev.Obj))
	case evRegistration:
		k.prov.registrationTimeout(cluster.NodeID(ev.Obj))
	case evRegister:
		k.prov.registerNotReady(cluster.NodeID(ev.Obj))
	case evExpire:
		k.term.expire(cluster.NodeID(ev.Obj))
	case evDisruption:
		k.dis.disruptionPass()
	case evValidate:
		k.dis.validatePending()
	case evDrain:
		k.term.drain(cluster.NodeID(ev.Obj))
	case evSignal:
		k.term.handleSignal(k.signals[ev.Obj])
	case evPoolUpdate:
		k.applyPoolUpdate(int(ev.Obj))
	case evCommandCheck:
		k.dis.checkCommands()
	case evForceDelete:
		k.cl.DeletePod(cluster.PodID(ev.Obj), cluster.CauseEvicted)
	case evStatic:
		k.static.reconcile()
	case evReservation:
		k.reservationEvent(int(ev.Obj))
	case evBufferResync:
		k.buffers.resync()
	}
}

// OnChange implements cluster.Watcher. It never mutates the cluster:
// reactions are engine events.
func (k *Karpenter) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.PodUnschedulable:
		if p := &k.cl.Pods[c.Pod]; awaitsProvisioning(p) {
			k.prov.pending[c.Pod] = true
			if !p.Preempting { // not provisionable: no batch for it (KC pod controller)
				k.prov.trigger()
			}
		}
		k.dis.stateChanged()
	case cluster.PodBound:
		delete(k.prov.pending, c.Pod)
		if len(k.cl.Pods[c.Pod].Spec.PodAntiAffinity) > 0 {
			k.nodes.idx.BoundAntiAffinityPods++
		}
		k.podEvent(c.Node, c.Pod, !k.startStatePod(c.Node, c.Pod))
	case cluster.PodDeleted, cluster.PodFinished:
		delete(k.prov.pending, c.Pod)
		if c.Node != cluster.NoNode {
			if len(k.cl.Pods[c.Pod].Spec.PodAntiAffinity) > 0 {
				k.nodes.idx.BoundAntiAffinityPods--
			}
			k.podEvent(c.Node, c.Pod, true)
		}
	case cluster.PodTerminating:
		if kn := k.nodes.get(c.Node); kn != nil {
			kn.scanValid = false
			// A pod told to stop is a pod event too (KC podevents:
			// "went terminating"): a node whose last pods are being
			// evicted or preempted is not consolidatable at once.
			if countsAsPodEvent(&k.cl.Pods[c.Pod]) {
				kn.notePodEvent(k.eng.Now())
				k.base.NodeDirty(c.Node) // its snapshot's ucaUntil follows lastPodEvent
			}
		}
	case cluster.NodeReadied:
		k.base.NodeDirty(c.Node)
		if kn := k.nodes.get(c.Node); kn != nil && kn.replacementOf != nil {
			k.eng.After(0, engine.Event{Handler: k.id, Kind: evCommandCheck})
		}
		k.dis.stateChanged()
	case cluster.NodeAdded:
		k.base.NodeDirty(c.Node)
		k.base.NodeOrderAdd(c.Node)
		k.dis.stateChanged()
	case cluster.NodeRemoved:
		k.base.NodeDirty(c.Node)
		k.base.NodeOrderRemove(c.Node)
		k.dis.stateChanged()
	case cluster.NodeUpdated:
		k.base.NodeDirty(c.Node)
		k.dis.stateChanged()
	}
}

// startStatePod reports whether a pod binding to an adopted node is part
// of the imported start state: created at time 0 and pinned to that node
// (sim import's startOn, a bare pod naming it). It was bound before the
// export, so its binding is no new pod event: the NodeClaim's imported
// lastPodEventTime already counts it.
func (k *Karpenter) startStatePod(node cluster.NodeID, pod cluster.PodID) bool {
	p, n := &k.cl.Pods[pod], &k.cl.Nodes[node]
	return n.Adopted && n.HasLastPodEvent && p.Created == 0 && p.Spec.NodeName == n.Name
}

// podEvent follows a pod bound to a node, gone terminal or deleted: the
// node's snapshot and pod scan are stale, a drain may go on, and the
// NodeClaim's last pod event is recorded (notePodEvent) unless record is
// false (a bind of the imported start state: startStatePod).
func (k *Karpenter) podEvent(node cluster.NodeID, pod cluster.PodID, record bool) {
	k.base.NodeDirty(node)
	if kn := k.nodes.get(node); kn != nil {
		kn.scanValid = false
		if record && countsAsPodEvent(&k.cl.Pods[pod]) {
			kn.notePodEvent(k.eng.Now())
		}
		if kn.Deleting {
			k.term.wakeDrain(kn)
		}
	}
	k.dis.stateChanged()
}

// countsAsPodEvent: a change of this pod on a node is one of the node's
// pod events (KC podevents: DaemonSet pods do not count).
func countsAsPodEvent(p *cluster.Pod) bool { return !p.Spec.DaemonSet }

// OnSignal implements cloud.Subscriber: the signal is handled in an engine
// event of its own (the cloud forbids calls back from inside).
func (k *Karpenter) OnSignal(s cloud.Signal) {
	k.signals = append(k.signals, s)
	k.eng.After(0, engine.Event{Handler: k.id, Kind: evSignal, Obj: int32(len(k.signals) - 1)})
}

// Settings returns the settings in force.
func (k *Karpenter) Settings() Settings { return k.settings }

var (
	_ engine.Handler   = (*Karpenter)(nil)
	_ cluster.Watcher  = (*Karpenter)(nil)
	_ cloud.Subscriber = (*Karpenter)(nil)
)
