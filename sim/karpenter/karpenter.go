package karpenter

import (
	"fmt"
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
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
}

// DaemonOverheadFunc returns the requests of the DaemonSet pods that would
// run on a node like template (labels of the pool and the instance type,
// the pool's taints; zone and capacity type not yet known), as
// workload.Controllers.DaemonSetOverhead does.
type DaemonOverheadFunc func(template *cluster.Node) cluster.Resources

// OwnerName is the Owner of Karpenter's launch requests.
const OwnerName = "karpenter"

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
)

// Karpenter is the Karpenter controller: an engine handler, a cluster
// watcher and a cloud subscriber.
type Karpenter struct {
	eng      *engine.Engine
	cl       *cluster.Cluster
	cat      *catalog.Catalog
	cloud    Cloud
	evictor  Evictor
	region   string
	zones    []string
	zoneSyms []cluster.Sym
	settings Settings
	id       engine.HandlerID

	types        []*itype
	typeByName   map[string]*itype
	typeKey      [numTypeKeys]cluster.Sym
	typeKeyOf    []int8 // Sym -> index in typeKey, -1 for other keys
	off          offers
	availBuf     []uint64
	availOK      bool
	availAt      engine.Time
	availVersion uint64
	gpuSlot      int
	deferICE     bool
	iceQueue     []cloud.Offering

	pools          []*pool
	poolByName     map[string]*pool
	daemonOverhead DaemonOverheadFunc
	nsLabels       map[cluster.Sym]cluster.Labels

	keyNodePool, keyDisrupted cluster.Sym
	betaKeys                  [5]cluster.Sym
	ctSyms                    [numCT]cluster.Sym
	wellKnownSet              map[cluster.Sym]bool
	normalized                map[cluster.Sym]cluster.Sym

	// nodes tracks Karpenter's nodes by NodeID (nil for others).
	nodes      []*knode
	live       []*knode // the non-nil entries of nodes, by ID
	byInstance map[cloud.InstanceID]cluster.NodeID
	nodeSeq    int
	// antiBound counts bound pods with required anti-affinity.
	antiBound int

	// provisioning
	pending      map[cluster.PodID]bool
	batchOpen    bool
	batchStart   engine.Time
	idleTimer    engine.Timer
	maxTimer     engine.Timer
	requeueTimer engine.Timer
	lastBatch    struct {
		version, hash uint64
		allFailed     bool
	}

	// disruption
	dis  disruption
	pass passCache
	// provSet: the last provisionable pods prepared for solves (pass.go).
	provSet *podSet

	// existing nodes for solves (see existing.go)
	exCache  exCache
	byName   []cluster.NodeID
	solveSeq uint32
	// fullWhatIfs turns earlyNo off (tests check it changes nothing);
	// earlyStops counts the what-ifs it cut short.
	fullWhatIfs bool
	earlyStops  int64
	// verifyDoomed, in tests, is told whether each what-if doomed skips
	// really fails.
	verifyDoomed func(failed bool)
	// Free lists of what-ifs' pod data and node copies (recycle).
	// members changes with anything that changes the existing-node base
	// other than pods (exCache); baseDirty lists the nodes whose pods
	// changed since it was last brought up to date (baseMark: listed).
	members    uint64
	baseDirty  []cluster.NodeID
	baseMark   []bool
	pdFree     []*podData
	pdsFree    []*podData
	exFree     []*exNode
	solverFree []*solver
	// poolOrder: the pools in weight order (orderedPools).
	poolOrder  []*pool
	podMark    []uint32 // per PodID: stamp of the last solve that moved it
	podStatics map[pdKey]*podStatic
	// placeholders are the interned placeholder hostnames by number.
	placeholders []cluster.Sym
	staticsAt    engine.Time
	specs        cluster.SpecClasses
	statics      map[staticKey]*cluster.NodeVerdicts

	signals     []cloud.Signal
	poolUpdates []NodePool

	stats     Stats
	poolStats map[string]*PoolStats
}

// reschedulable: a pod Karpenter moves when it disrupts a node: active and
// not pinned to its node by spec.nodeName (DaemonSet and static pods),
// as KC pod.IsReschedulable.
func reschedulable(p *cluster.Pod) bool {
	return !p.Phase.Terminal() && !p.Terminating && p.Spec.NodeName == ""
}

// knode is one of Karpenter's nodes (its NodeClaim).
type knode struct {
	id          cluster.NodeID
	pool        *pool
	it          *itype
	offering    cloud.Offering
	instance    cloud.InstanceID
	capacity    cluster.Resources
	initialized bool
	// set: its reschedulable pods prepared for consolidation solves
	// (pass.go), while they stay the same.
	set *podSet
	// scan is what the disruption passes read of its pods, kept until a
	// pod is bound, leaves or starts terminating (scanValid).
	scan      podScan
	scanValid bool
	// lastPodEvent is the last time a pod was bound to or left the node
	// (KC NodeClaim status.lastPodEventTime), for consolidateAfter.
	lastPodEvent   engine.Time
	consolidatable bool
	// poolHash and classHash are the pool's template and node class
	// hashes at launch, for drift.
	poolHash, classHash uint64
	driftedAt           engine.Time
	drifted             bool
	driftChecked        *apis.NodePool
	nominatedUntil      engine.Time
	// deleting: the NodeClaim is being deleted (tainted, draining).
	deleting    bool
	tgpDeadline engine.Time
	// cmd is the disruption command the node is a candidate of, waiting
	// for its replacements.
	cmd *command
	// replacementOf is the command this node replaces nodes for.
	replacementOf *command
	drainTimer    engine.Timer
	drainBackoff  time.Duration
	regTimer      engine.Timer
	expireTimer   engine.Timer
}

// New builds the controller. The pools are compiled NodePools (package
// apis); zones are the cluster's zones in the region. New registers the
// controller with the engine, the cluster and the cloud, and starts the
// disruption loop.
func New(eng *engine.Engine, cl *cluster.Cluster, cat *catalog.Catalog, ec2 Cloud, evictor Evictor,
	region string, zones []string, pools []NodePool, settings Settings) (*Karpenter, error) {
	if len(zones) == 0 {
		return nil, fmt.Errorf("karpenter: no zones")
	}
	if len(zones)*numCT > 64 {
		return nil, fmt.Errorf("karpenter: %d zones; at most 32 are supported", len(zones))
	}
	if settings.BatchIdleDuration <= 0 || settings.BatchMaxDuration <= 0 || settings.DisruptionPollInterval <= 0 {
		return nil, fmt.Errorf("karpenter: settings must come from apis.DefaultSettings or SettingsSpec.Compile (zero durations)")
	}
	k := &Karpenter{
		eng: eng, cl: cl, cat: cat, cloud: ec2, evictor: evictor, region: region,
		zones: append([]string(nil), zones...), settings: settings,
		typeByName: map[string]*itype{}, poolByName: map[string]*pool{},
		byInstance: map[cloud.InstanceID]cluster.NodeID{}, pending: map[cluster.PodID]bool{},
		poolStats: map[string]*PoolStats{}, gpuSlot: -1,
		specs: cluster.SpecClasses{WithScoring: true}, statics: map[staticKey]*cluster.NodeVerdicts{},
	}
	syms := cl.Syms
	for _, z := range zones {
		k.zoneSyms = append(k.zoneSyms, syms.Intern(z))
	}
	k.ctSyms[ctOnDemand] = syms.Intern("on-demand")
	k.ctSyms[ctSpot] = syms.Intern("spot")
	k.keyNodePool = syms.Intern(apis.LabelNodePool)
	k.keyDisrupted = syms.Intern(apis.TaintDisrupted)
	k.wellKnownSet = map[cluster.Sym]bool{}
	for _, w := range apis.WellKnownLabels {
		k.wellKnownSet[syms.Intern(w)] = true
	}
	k.normalized = map[cluster.Sym]cluster.Sym{}
	froms := make([]string, 0, len(apis.NormalizedLabels))
	for from := range apis.NormalizedLabels {
		froms = append(froms, from)
	}
	sort.Strings(froms) // intern in a fixed order: symbols must not depend on map order
	for _, from := range froms {
		k.normalized[syms.Intern(from)] = syms.Intern(apis.NormalizedLabels[from])
	}
	for i, key := range []string{"beta.kubernetes.io/instance-type", "beta.kubernetes.io/arch", "beta.kubernetes.io/os",
		"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"} {
		k.betaKeys[i] = syms.Intern(key)
	}
	if slot, ok := cl.Resources.Lookup(catalog.GPUResourceName); ok {
		k.gpuSlot = slot
	}
	k.buildTypes()
	for _, t := range k.types {
		k.typeByName[t.name] = t
	}
	k.refreshPrices()
	seen := map[string]bool{}
	for i := range pools {
		if seen[pools[i].Name] {
			return nil, fmt.Errorf("karpenter: two NodePools named %q", pools[i].Name)
		}
		seen[pools[i].Name] = true
		k.addPool(pools[i])
	}
	k.id = eng.Register(k)
	for i := range cl.Nodes {
		if cl.Nodes[i].State != cluster.NodeGone {
			k.nodeOrderAdd(cluster.NodeID(i))
		}
	}
	cl.Watch(k)
	ec2.Subscribe(k)
	k.dis.nextPass = eng.After(settings.DisruptionPollInterval, engine.Event{Handler: k.id, Kind: evDisruption})
	return k, nil
}

func (k *Karpenter) addPool(spec NodePool) *pool {
	st := k.poolStats[spec.Name]
	if st == nil {
		st = &PoolStats{Name: spec.Name}
		k.poolStats[spec.Name] = st
	}
	s := spec
	p := k.buildPool(&s, st)
	k.poolOrder = nil
	k.baseChanged()
	if old, ok := k.poolByName[spec.Name]; ok {
		// Replace in place so nodes keep pointing at the pool in force.
		*old = *p
		return old
	}
	k.pools = append(k.pools, p)
	k.poolByName[spec.Name] = p
	sort.SliceStable(k.pools, func(i, j int) bool { return k.pools[i].spec.Name < k.pools[j].spec.Name })
	return p
}

// SetDaemonOverhead sets the hook that says what DaemonSet pods would run
// on a new node (none by default): their requests are added to every
// NodeClaim's (KC daemonOverheadGroups).
func (k *Karpenter) SetDaemonOverhead(f DaemonOverheadFunc) {
	k.daemonOverhead = f
	k.poolOrder = nil
	k.baseChanged()
	for _, p := range k.pools {
		*p = *k.buildPool(p.spec, p.stats)
	}
}

// SetNamespaceLabels gives the namespaces' labels, for pod affinity terms
// with namespace selectors.
func (k *Karpenter) SetNamespaceLabels(m map[cluster.Sym]cluster.Labels) { k.nsLabels = m }

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
	k.refreshPrices()
	k.addPool(u)
	k.dis.stateChanged()
}

func (k *Karpenter) knodeOf(id cluster.NodeID) *knode {
	if int(id) < len(k.nodes) {
		return k.nodes[id]
	}
	return nil
}

func (k *Karpenter) wellKnown(key cluster.Sym) bool { return k.wellKnownSet[key] }

func (k *Karpenter) normalize(key cluster.Sym) cluster.Sym {
	if n, ok := k.normalized[key]; ok {
		return n
	}
	return key
}

// wall maps simulated time to the wall clock of budget schedules.
func (k *Karpenter) wall(t engine.Time) time.Time { return k.settings.Epoch.Add(t) }

// HandleEvent implements engine.Handler.
func (k *Karpenter) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evBatchIdle, evBatchMax:
		k.closeBatch()
	case evRequeue:
		if k.hasProvisionable() {
			k.trigger()
		}
	case evReady:
		k.nodeReady(cluster.NodeID(ev.Obj))
	case evRegistration:
		k.registrationTimeout(cluster.NodeID(ev.Obj))
	case evExpire:
		k.expire(cluster.NodeID(ev.Obj))
	case evDisruption:
		k.disruptionPass()
	case evValidate:
		k.validatePending()
	case evDrain:
		k.drain(cluster.NodeID(ev.Obj))
	case evSignal:
		k.handleSignal(k.signals[ev.Obj])
	case evPoolUpdate:
		k.applyPoolUpdate(int(ev.Obj))
	case evCommandCheck:
		k.checkCommands()
	case evForceDelete:
		k.cl.DeletePod(cluster.PodID(ev.Obj), cluster.CauseEvicted)
	}
}

// OnChange implements cluster.Watcher. It never mutates the cluster:
// reactions are engine events.
func (k *Karpenter) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.PodUnschedulable:
		p := &k.cl.Pods[c.Pod]
		if p.Spec.NodeName == "" {
			k.pending[c.Pod] = true
			k.trigger()
		}
		k.dis.stateChanged()
	case cluster.PodBound:
		delete(k.pending, c.Pod)
		if len(k.cl.Pods[c.Pod].Spec.PodAntiAffinity) > 0 {
			k.antiBound++
		}
		k.podEvent(c.Node)
	case cluster.PodDeleted, cluster.PodFinished:
		delete(k.pending, c.Pod)
		if c.Node != cluster.NoNode {
			if len(k.cl.Pods[c.Pod].Spec.PodAntiAffinity) > 0 {
				k.antiBound--
			}
			k.podEvent(c.Node)
		}
	case cluster.PodTerminating:
		if kn := k.knodeOf(c.Node); kn != nil {
			kn.scanValid = false
		}
	case cluster.NodeReadied:
		k.baseNodeChanged(c.Node)
		if kn := k.knodeOf(c.Node); kn != nil && kn.replacementOf != nil {
			k.eng.After(0, engine.Event{Handler: k.id, Kind: evCommandCheck})
		}
		k.dis.stateChanged()
	case cluster.NodeAdded:
		k.baseNodeChanged(c.Node)
		k.nodeOrderAdd(c.Node)
		k.dis.stateChanged()
	case cluster.NodeRemoved:
		k.baseNodeChanged(c.Node)
		k.nodeOrderRemove(c.Node)
		k.dis.stateChanged()
	case cluster.NodeUpdated:
		k.baseNodeChanged(c.Node)
		k.dis.stateChanged()
	}
}

func (k *Karpenter) podEvent(node cluster.NodeID) {
	k.baseNodeChanged(node)
	if kn := k.knodeOf(node); kn != nil {
		kn.scanValid = false
		kn.lastPodEvent = k.eng.Now()
		if kn.deleting {
			k.wakeDrain(kn)
		}
	}
	k.dis.stateChanged()
}

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
