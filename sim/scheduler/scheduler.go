package scheduler

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Defaults of the scheduling queue (k8s KubeSchedulerConfiguration:
// podInitialBackoffSeconds 1, podMaxBackoffSeconds 10;
// podMaxInUnschedulablePodsDuration 5m).
const (
	DefaultInitialBackoff   = 1 * time.Second
	DefaultMaxBackoff       = 10 * time.Second
	DefaultMaxUnschedulable = 5 * time.Minute
	// minFeasibleNodesToFind and the adaptive percentage follow
	// k8s schedule_one.go numFeasibleNodesToFind.
	minFeasibleNodesToFind        = 100
	minFeasibleNodesPercentToFind = 5
	// basePercentageOfNodesToScore minus one point per
	// adaptivePercentageNodesStep nodes is the adaptive default.
	basePercentageOfNodesToScore = 50
	adaptivePercentageNodesStep  = 125
)

// Config sets the scheduler up. Zero durations take the defaults above.
type Config struct {
	Profiles         []Profile // empty = DefaultProfile()
	InitialBackoff   time.Duration
	MaxBackoff       time.Duration
	MaxUnschedulable time.Duration
	// PDBs are respected where possible when choosing preemption victims.
	PDBs []cluster.PDB
	// NamespaceLabels feed namespaceSelector terms.
	NamespaceLabels map[cluster.Sym]cluster.Labels
	// ComputeTime makes scheduling cycles take virtual time (cycleCost,
	// computetime.go): one cycle at a time, the next after the last one's
	// cost. False: cycles take no time (the zero value; scenarios turn it
	// on unless spec.computeTime is false).
	ComputeTime bool
}

// Event kinds this handler receives.
const (
	evDrain uint16 = iota
	evBackoffDone
	evUnschedulableTimeout
	evVictimGone
)

// Scheduler places pending pods on nodes. It is an engine handler and a
// cluster watcher.
type Scheduler struct {
	eng      *engine.Engine
	cl       *cluster.Cluster
	id       engine.HandlerID
	rng      *rand.Rand
	cfg      Config
	q        queue
	fws      map[string]*framework
	topo     *Topology
	draining bool
	drainSet bool

	// nodes lists Ready nodes in the order the filter scan visits them;
	// nodeSlot maps NodeID to its index here (-1 when absent).
	nodes []cluster.NodeID
	// staticExtra receives the static filters' extra reasons (unused:
	// a static verdict keeps its first reason), reused to not allocate.
	staticExtra []Reason
	// byName finds a scanned node by its name (findNamed).
	byName    map[cluster.Sym]cluster.NodeID
	nodeSlot  []int32
	nextStart int
	// The node tree that orders nodes (nodetree.go): zones in order of
	// their first node, each node's zone, and a count of order changes.
	zones      []treeZone
	nodeZone   []zoneKey
	orderEpoch uint64
	// arrived stamps, per NodeID, when the node last entered its zone
	// of the tree (1, 2, ... from arrivals): the arrival order CheckIndexes
	// rebuilds the tree in.
	arrived                               []uint64
	arrivals                              uint64
	keyRegion, keyBetaRegion, keyBetaZone cluster.Sym

	reasons      []string
	unresolvable []bool
	reasonIDs    map[string]Reason
	reasonCount  []int32
	touched      []Reason
	extra        []Reason
	feasible     []cluster.NodeID
	candidates   []cluster.NodeID // rejected nodes preemption might help
	total        []int64
	failures     []Failure
	failureIDs   map[string]int32
	// boundPriorities counts bound pods by priority, so preemption is not
	// tried when no bound pod has a lower priority than the preemptor.
	boundPriorities map[int32]int
	// version counts cluster changes; failedAt remembers, per pod spec,
	// the version at which a pod of it found no node.
	version  uint64
	failedAt map[*cluster.PodSpec]classFailure

	// Static filter cache (staticcache.go).
	specs     cluster.SpecClasses
	statics   map[staticTableKey]*staticTable
	lastTable struct {
		fw   *framework
		spec *cluster.PodSpec
		t    *staticTable
	}
	view specStatic
	// Label columns (labelcols.go).
	labelCols []*labelColumn
	// Room epochs for the resource score caches (scorecache.go).
	roomEpoch []uint32
	// Fit indexes (fitindex.go).
	fitIdx  map[fitKey]*fitIndex
	fitList []*fitIndex

	stats Stats
	// busyUntil is when the cycle in progress ends (ComputeTime).
	busyUntil engine.Time
}

// classFailure is a spec's last failure, valid while version holds.
type classFailure struct {
	version uint64
	failure int32
	hints   Event
}

// Stats counts the scheduler's work.
type Stats struct {
	Attempts    uint64 // scheduling cycles run
	Bound       uint64
	Failed      uint64 // cycles that found no node
	NodesTested uint64 // filter runs over nodes
	Reused      uint64 // failed cycles decided by an identical pod's failure (equivalence class)
	Preemptions uint64 // preemptions carried out
	Victims     uint64 // pods preempted
	// Busy is the virtual time cycles took (Config.ComputeTime); MaxWait
	// the longest a pod waited from entering the active queue to the end
	// of its cycle.
	Busy    time.Duration
	MaxWait time.Duration
}

// Failure is one distinct fit error: the message kubectl describe shows and
// its reasons with node counts.
type Failure struct {
	Message string
	Reasons []ReasonCount
}

// ReasonCount is one reason and how many nodes gave it.
type ReasonCount struct {
	Reason string
	Nodes  int
}

// New builds the scheduler, registers it with the engine and watches the
// cluster.
func New(eng *engine.Engine, cl *cluster.Cluster, cfg Config) (*Scheduler, error) {
	if cfg.InitialBackoff == 0 {
		cfg.InitialBackoff = DefaultInitialBackoff
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxUnschedulable == 0 {
		cfg.MaxUnschedulable = DefaultMaxUnschedulable
	}
	if len(cfg.Profiles) == 0 {
		cfg.Profiles = []Profile{DefaultProfile()}
	}
	s := &Scheduler{
		eng:             eng,
		cl:              cl,
		cfg:             cfg,
		rng:             eng.Stream("scheduler/tiebreak"),
		fws:             map[string]*framework{},
		topo:            NewTopology(cl),
		reasonIDs:       map[string]Reason{},
		failureIDs:      map[string]int32{},
		boundPriorities: map[int32]int{},
		failedAt:        map[*cluster.PodSpec]classFailure{},
		statics:         map[staticTableKey]*staticTable{},
		fitIdx:          map[fitKey]*fitIndex{},
		byName:          map[cluster.Sym]cluster.NodeID{},
		reasons:         []string{""},
		unresolvable:    []bool{false},
		reasonCount:     []int32{0},
	}
	s.topo.NamespaceLabels = cfg.NamespaceLabels
	s.keyRegion = cl.Syms.Intern("topology.kubernetes.io/region")
	s.keyBetaRegion = cl.Syms.Intern("failure-domain.beta.kubernetes.io/region")
	s.keyBetaZone = cl.Syms.Intern("failure-domain.beta.kubernetes.io/zone")
	s.q.cl = cl
	reg := DefaultRegistry()
	for _, p := range cfg.Profiles {
		if _, dup := s.fws[p.SchedulerName]; dup {
			return nil, fmt.Errorf("two scheduler profiles named %q", p.SchedulerName)
		}
		fw, err := buildFramework(s, reg, p)
		if err != nil {
			return nil, err
		}
		s.fws[p.SchedulerName] = fw
	}
	s.id = eng.Register(s)
	cl.Watch(s)
	return s, nil
}

// Cluster implements Handle.
func (s *Scheduler) Cluster() *cluster.Cluster { return s.cl }

// Nodes implements Handle.
func (s *Scheduler) Nodes() []cluster.NodeID { return s.nodes }

// Topology implements Handle.
func (s *Scheduler) Topology() *Topology { return s.topo }

// Reason implements Handle.
func (s *Scheduler) Reason(msg string, res Resolvability) Reason {
	if r, ok := s.reasonIDs[msg]; ok {
		return r
	}
	r := Reason(len(s.reasons))
	s.reasons = append(s.reasons, msg)
	s.unresolvable = append(s.unresolvable, res == Unresolvable)
	s.reasonIDs[msg] = r
	s.reasonCount = append(s.reasonCount, 0)
	return r
}

// Stats returns the counters so far.
func (s *Scheduler) Stats() Stats { return s.stats }

// LastFailure returns the message of the pod's last failed attempt, in the
// form kubectl describe shows ("0/3 nodes are available: ..."), or "" if
// it never failed. It stays after the pod is bound: it says why it waited.
func (s *Scheduler) LastFailure(id cluster.PodID) string {
	if f := s.FailureOf(id); f != nil {
		return f.Message
	}
	return ""
}

// FailureOf returns the pod's last fit error, or nil.
func (s *Scheduler) FailureOf(id cluster.PodID) *Failure {
	if !s.q.has(id) || s.q.at(id).failure < 0 {
		return nil
	}
	return &s.failures[s.q.at(id).failure]
}

// Attempts returns how many scheduling cycles a pod went through.
func (s *Scheduler) Attempts(id cluster.PodID) int32 {
	if !s.q.has(id) {
		return 0
	}
	return s.q.at(id).attempts
}

// Handles reports whether some profile serves this scheduler name.
func (s *Scheduler) Handles(schedulerName string) bool {
	_, ok := s.fws[schedulerName]
	return ok
}

// OnChange implements cluster.Watcher.
func (s *Scheduler) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.PodCreated, cluster.PodUnschedulable:
	default:
		s.version++ // anything else may change where pods fit
	}
	switch c.Kind {
	case cluster.PodCreated:
		p := &s.cl.Pods[c.Pod]
		if _, ok := s.fws[p.Spec.SchedulerName]; !ok {
			return // no profile serves it: it stays Pending, as with no such scheduler
		}
		s.q.pushActive(c.Pod, s.eng.Now())
		s.wake()
	case cluster.PodBound:
		s.boundPriorities[s.cl.Pods[c.Pod].Spec.Priority]++
		s.topo.update(c.Pod, c.Node, 1)
		s.fitNodeChanged(c.Node)
		s.moveAll(EvPodAssigned)
	case cluster.PodDeleted, cluster.PodFinished:
		if c.Node != cluster.NoNode {
			pr := s.cl.Pods[c.Pod].Spec.Priority
			if s.boundPriorities[pr]--; s.boundPriorities[pr] == 0 {
				delete(s.boundPriorities, pr)
			}
			s.topo.update(c.Pod, c.Node, -1)
			s.fitNodeChanged(c.Node)
			s.moveAll(EvPodUnassigned)
			return
		}
		s.dequeue(c.Pod)
	case cluster.NodeReadied:
		s.nodeChanged(c.Node)
		s.addNode(c.Node)
		s.topo.nodeChanged(c.Node, true)
		s.moveAll(EvNodeAdd)
	case cluster.NodeUpdated:
		s.nodeChanged(c.Node)
		if s.scanned(c.Node) && s.zoneKeyOf(&s.cl.Nodes[c.Node]) != s.nodeZone[c.Node] {
			// A new zone: upstream's tree moves the node to the end of it.
			s.treeRemove(c.Node)
			s.treeAdd(c.Node)
			s.relist()
		}
		s.topo.nodeChanged(c.Node, s.scanned(c.Node))
		s.fitNodeChanged(c.Node)
		s.moveAll(EvNodeUpdate)
	case cluster.NodeRemoved:
		s.nodeChanged(c.Node)
		s.removeNode(c.Node)
		s.topo.nodeChanged(c.Node, false)
		s.moveAll(EvNodeRemove)
	case cluster.NodeAdded:
		s.nodeChanged(c.Node)
	}
}

func (s *Scheduler) addNode(id cluster.NodeID) {
	for int(id) >= len(s.nodeSlot) {
		s.nodeSlot = append(s.nodeSlot, -1)
	}
	s.byName[s.cl.Nodes[id].NameSym] = id
	s.treeAdd(id)
	s.relist()
	for _, x := range s.fitList {
		x.set(s, id, int(s.nodeSlot[id]))
	}
}

// scanned reports whether a node is in the scan list (Ready).
func (s *Scheduler) scanned(id cluster.NodeID) bool {
	return int(id) < len(s.nodeSlot) && s.nodeSlot[id] >= 0
}

func (s *Scheduler) removeNode(id cluster.NodeID) {
	if int(id) >= len(s.nodeSlot) || s.nodeSlot[id] < 0 {
		return
	}
	for _, x := range s.fitList {
		x.unset(id, -1)
	}
	s.treeRemove(id)
	s.nodeSlot[id] = -1
	delete(s.byName, s.cl.Nodes[id].NameSym)
	s.relist()
}

// dequeue forgets a pod that left Pending without the scheduler.
func (s *Scheduler) dequeue(id cluster.PodID) {
	if !s.q.has(id) {
		return
	}
	st := s.q.at(id)
	s.eng.Cancel(st.timer)
	switch st.where {
	case inActive:
		s.q.removeActiveAt(int(st.slot))
	case inUnschedulable:
		s.q.removeUnschedulable(id)
	case inBackoff:
		s.q.removeBackoff(id)
	}
}

// moveAll moves the unschedulable pods that ev may help (by the queueing
// hints of the plugins that rejected them) to the active queue, or to
// backoff if their backoff has not expired.
func (s *Scheduler) moveAll(ev Event) {
	if len(s.q.unsch) == 0 {
		return
	}
	now := s.eng.Now()
	var moved []cluster.PodID
	for _, id := range s.q.unsch {
		if s.q.at(id).hints&ev != 0 {
			moved = append(moved, id)
		}
	}
	if len(moved) == 0 {
		return
	}
	// Move in PodID order, independent of the list's swap-removals.
	sort.Slice(moved, func(i, j int) bool { return moved[i] < moved[j] })
	for _, id := range moved {
		s.q.removeUnschedulable(id)
		s.requeue(id, now)
	}
	s.wake()
}

func (s *Scheduler) requeue(id cluster.PodID, now engine.Time) {
	st := s.q.at(id)
	s.eng.Cancel(st.timer)
	until := st.lastTry + backoff(st.attempts, s.cfg.InitialBackoff, s.cfg.MaxBackoff)
	if until > now {
		s.q.pushBackoff(id, until, st.lastTry)
		st.timer = s.eng.Schedule(until, engine.Event{Handler: s.id, Kind: evBackoffDone, Obj: int32(id)})
		return
	}
	s.q.pushActive(id, now)
}

func (s *Scheduler) wake() {
	if s.drainSet || s.draining || len(s.q.active) == 0 && len(s.q.backoff.items) == 0 {
		return
	}
	s.drainSet = true
	s.eng.Schedule(max(s.eng.Now(), s.busyUntil), engine.Event{Handler: s.id, Kind: evDrain})
}

// HandleEvent implements engine.Handler.
func (s *Scheduler) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evDrain:
		s.drainSet = false
		s.drain()
	case evBackoffDone:
		id := cluster.PodID(ev.Obj)
		st := s.q.at(id)
		if st.where == inBackoff && s.cl.Pods[id].Phase == cluster.Pending {
			s.q.removeBackoff(id)
			s.q.pushActive(id, s.eng.Now())
			s.wake()
		}
	case evUnschedulableTimeout:
		id := cluster.PodID(ev.Obj)
		if s.q.at(id).where == inUnschedulable {
			s.q.removeUnschedulable(id)
			s.requeue(id, s.eng.Now())
			s.wake()
		}
	case evVictimGone:
		s.cl.DeletePod(cluster.PodID(ev.Obj), cluster.CausePreempted)
	}
}

// drain runs scheduling cycles until the active queue and the backoff
// queue are empty: with no active pod, the pod whose backoff ends first
// is tried at once (SchedulerPopFromBackoffQ). Without Config.ComputeTime
// cycles take no virtual time: the scheduler is infinitely fast. With it,
// drain runs one cycle, which keeps the scheduler busy for its cost; the
// next runs when it ends (wake).
func (s *Scheduler) drain() {
	s.draining = true
	if s.cfg.ComputeTime {
		if id, queued, ok := s.pop(); ok {
			now := s.eng.Now()
			cost := s.cycleCost(s.cl.Pods[id].Spec, s.scheduleOne(id))
			s.busyUntil = now + cost
			s.stats.Busy += cost
			s.stats.MaxWait = max(s.stats.MaxWait, s.busyUntil-queued)
		}
		s.draining = false
		s.wake()
		return
	}
	for {
		id, _, ok := s.pop()
		if !ok {
			break
		}
		s.scheduleOne(id)
	}
	s.draining = false
}

// pop takes the pod the next cycle tries and when it was queued: the head
// of the active queue, else the head of the backoff queue, whose backoff
// timer is cancelled (SchedulerPopFromBackoffQ); a pod taken early from
// backoff counts as queued now, so its backoff is not counted as a wait.
func (s *Scheduler) pop() (cluster.PodID, engine.Time, bool) {
	if id, queued, ok := s.q.popActive(); ok {
		return id, queued, true
	}
	id, ok := s.q.popBackoff()
	if !ok {
		return cluster.NoPod, 0, false
	}
	s.eng.Cancel(s.q.at(id).timer)
	return id, s.eng.Now(), true
}

// scheduleOne runs one scheduling cycle. It returns the work as upstream
// would have done it, for cycleCost: how many nodes the cycle evaluated,
// and -1 when it ran none (the pod is no longer pending).
func (s *Scheduler) scheduleOne(id cluster.PodID) (evaluated int) {
	p := &s.cl.Pods[id]
	if p.Phase != cluster.Pending {
		return -1
	}
	fw := s.fws[p.Spec.SchedulerName]
	st := s.q.state(id)
	st.attempts++
	now := s.eng.Now()
	st.lastTry = now
	s.stats.Attempts++

	// Equivalence classes: pods of one template decide alike. If a pod of
	// this spec found no node and nothing changed since, this one fails
	// the same way, with the same message, without scanning every node.
	if f, ok := s.failedAt[p.Spec]; ok && f.version == s.version && !s.canPreempt(p.Spec) {
		s.stats.Failed++
		s.stats.Reused++
		st.failure, st.hints = f.failure, f.hints
		s.fail(id, st)
		return len(s.nodes)
	}
	cs := CycleState{Pod: id, Spec: p.Spec, Namespace: p.Namespace}
	fw.preFilter(&cs)
	rejectors := s.findFeasible(fw, &cs)
	switch len(s.feasible) {
	case 0:
		s.stats.Failed++
		st.failure = s.recordFailure(len(s.nodes))
		st.hints = EvNodeAdd // a new node can always help
		for i, f := range fw.filters {
			if rejectors&(1<<i) != 0 {
				st.hints |= f.Events()
			}
		}
		// Preemption first: the nomination and the condition are one
		// status update upstream, so the autoscalers never see the pod
		// unschedulable and not yet preempting.
		version := s.version
		s.preempt(fw, &cs)
		s.cl.MarkUnschedulable(id)
		if s.version == version {
			s.failedAt[p.Spec] = classFailure{version: version, failure: st.failure, hints: st.hints}
		}
		s.fail(id, st)
		return len(s.nodes)
	case 1:
		s.bind(id, s.feasible[0])
		return s.evaluated(fw, p.Spec)
	}
	s.bind(id, s.selectHost(fw, &cs))
	return s.evaluated(fw, p.Spec)
}

// fail parks a pod that found no node in the unschedulable list.
func (s *Scheduler) fail(id cluster.PodID, st *podState) {
	s.cl.MarkUnschedulable(id)
	s.q.pushUnschedulable(id)
	st.timer = s.eng.After(s.cfg.MaxUnschedulable, engine.Event{Handler: s.id, Kind: evUnschedulableTimeout, Obj: int32(id)})
}

// canPreempt reports whether a pod of this spec might preempt: then every
// attempt runs in full, as preemption needs its candidates.
func (s *Scheduler) canPreempt(spec *cluster.PodSpec) bool {
	if spec.PreemptNever || s.fws[spec.SchedulerName].profile.NoPreemption {
		return false
	}
	for pr := range s.boundPriorities {
		if pr < spec.Priority {
			return true
		}
	}
	return false
}

func (s *Scheduler) bind(id cluster.PodID, node cluster.NodeID) {
	s.stats.Bound++
	// VolumeBinding's PreBind: unbound WaitForFirstConsumer claims are
	// provisioned in the chosen node's zone before the pod binds.
	s.cl.BindVolumes(id, node)
	s.cl.Bind(id, node)
	s.nominate(id, cluster.NoNode) // bound: no longer the autoscalers' concern
}

// numFeasibleNodesToFind is how many feasible nodes a cycle looks for before
// it stops filtering (k8s percentageOfNodesToScore).
func numFeasibleNodesToFind(percentage int32, all int) int {
	if all < minFeasibleNodesToFind || percentage >= 100 {
		return all
	}
	pct := int(percentage)
	if pct <= 0 {
		pct = basePercentageOfNodesToScore - all/adaptivePercentageNodesStep
		if pct < minFeasibleNodesPercentToFind {
			pct = minFeasibleNodesPercentToFind
		}
	}
	n := all * pct / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// findFeasible filters nodes starting where the last cycle stopped, until
// it has enough feasible ones, counting the reasons of those it rejects.
// As upstream's findNodesThatPassFilters, it stops at the next feasible
// node past the quota, not at the last one it keeps: the rejected nodes in
// between count as processed, and the next cycle starts at that node. It
// returns the mask of filters that rejected some node and collects the
// rejected nodes whose reasons preemption could resolve.
func (s *Scheduler) findFeasible(fw *framework, cs *CycleState) (rejectors uint32) {
	s.feasible = s.feasible[:0]
	s.candidates = s.candidates[:0]
	for _, r := range s.touched {
		s.reasonCount[r] = 0
	}
	s.touched = s.touched[:0]
	all := len(s.nodes)
	if all == 0 {
		return 0
	}
	if cs.Spec.NodeName != "" && fw.nameFi >= 0 {
		return s.findNamed(fw, cs, all)
	}
	want := numFeasibleNodesToFind(fw.profile.PercentageOfNodesToScore, all)
	if x := s.fitIndexFor(fw, cs); x != nil {
		return s.findIndexed(x, want)
	}
	processed := 0
	// With every static filter active, their verdict comes from the
	// cache; the others run in filter order as usual. A node's reasons are
	// those of the first filter in filter order that rejects it.
	var st *staticTable
	if len(fw.static) > 0 && fw.staticActive() {
		st = s.staticTableFor(fw, cs.Spec)
	}
	for i := 0; i < all; i++ {
		nid := s.nodes[(s.nextStart+i)%all]
		n := &s.cl.Nodes[nid]
		processed++
		filters := fw.activeFilters
		fail := int8(-1)
		var failReason Reason
		if st != nil {
			e := s.static(fw, st, cs, nid, n)
			fail, failReason = e.fail, e.reason
			filters = fw.dynamic
			if fail >= 0 {
				filters = fw.activeFilters
			}
		}
		ok := true
		for _, fi := range filters {
			s.extra = s.extra[:0]
			var r Reason
			if st != nil && fw.isStatic[fi] {
				if int8(fi) != fail {
					continue
				}
				r = failReason
			} else if r = fw.filters[fi].Filter(cs, nid, n, &s.extra); r == Pass {
				continue
			}
			rejectors |= 1 << fi
			s.reject(nid, r)
			ok = false
			break
		}
		if ok {
			if len(s.feasible) == want {
				// A feasible node past the quota ends the scan and is
				// where the next cycle starts (upstream cancels its
				// search on the first node past the quota).
				processed--
				break
			}
			s.feasible = append(s.feasible, nid)
		}
	}
	s.stats.NodesTested += uint64(processed)
	s.nextStart = (s.nextStart + processed) % all
	return rejectors
}

// reject counts a rejected node's reasons (r and s.extra); the node is a
// preemption candidate when preemption could resolve all of them.
func (s *Scheduler) reject(nid cluster.NodeID, r Reason) {
	s.count(r)
	resolvable := !s.unresolvable[r]
	for _, e := range s.extra {
		s.count(e)
		resolvable = resolvable && !s.unresolvable[e]
	}
	if resolvable {
		s.candidates = append(s.candidates, nid)
	}
}

// findNamed is findFeasible for a pod naming its node (DaemonSet pods):
// only that node is evaluated, as upstream's PreFilter result narrows the
// scan to it, and every other node counts as rejected by NodeName.
// Scanning every node for such pods made each DaemonSet cost nodes^2.
//
// A pod that is not a DaemonSet's and names its node (a bare Pod with
// spec.nodeName, or a pod sim import found running there) never reaches
// the real kube-scheduler: the kubelet admits it with its general
// predicates only (node name, resources, node affinity and selector), so
// taints without NoExecute, cordons, topology spread and pod affinity do
// not stop it. Only those filters run for it here.
func (s *Scheduler) findNamed(fw *framework, cs *CycleState, all int) (rejectors uint32) {
	nid, found := cluster.NoNode, false
	if sym, ok := s.cl.Syms.Lookup(cs.Spec.NodeName); ok {
		nid, found = s.byName[sym]
	}
	others := all
	if found {
		others--
		by := kubeletAdmission
		if cs.Spec.DaemonSet {
			by = everyFilter
		}
		if fi, r := s.firstRejection(fw, cs, nid, by); fi < 0 {
			s.feasible = append(s.feasible, nid)
		} else {
			rejectors |= 1 << fi
			s.reject(nid, r)
		}
	}
	if others > 0 {
		r := fw.filters[fw.nameFi].(*nodeName).reason
		rejectors |= 1 << fw.nameFi
		if s.reasonCount[r] == 0 {
			s.touched = append(s.touched, r)
		}
		s.reasonCount[r] += int32(others)
	}
	s.stats.NodesTested++
	s.nextStart = (s.nextStart + 1) % all
	return rejectors
}

func (s *Scheduler) count(r Reason) {
	if s.reasonCount[r] == 0 {
		s.touched = append(s.touched, r)
	}
	s.reasonCount[r]++
}

// recordFailure renders the fit error as upstream does (FitError.Error:
// "0/N nodes are available: " + sorted "count reason" strings).
func (s *Scheduler) recordFailure(total int) int32 {
	msg := s.failureMessage(total)
	if i, ok := s.failureIDs[msg]; ok {
		return i
	}
	f := Failure{Message: msg}
	for _, r := range s.touched {
		f.Reasons = append(f.Reasons, ReasonCount{Reason: s.reasons[r], Nodes: int(s.reasonCount[r])})
	}
	sort.Slice(f.Reasons, func(i, j int) bool { return f.Reasons[i].Reason < f.Reasons[j].Reason })
	i := int32(len(s.failures))
	s.failures = append(s.failures, f)
	s.failureIDs[msg] = i
	return i
}

// failureMessage renders the reasons counted by the last findFeasible.
func (s *Scheduler) failureMessage(total int) string {
	parts := make([]string, 0, len(s.touched))
	for _, r := range s.touched {
		parts = append(parts, fmt.Sprintf("%d %s", s.reasonCount[r], s.reasons[r]))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available", total)
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "."
}

// selectHost scores the feasible nodes and returns the best, breaking ties
// uniformly at random with the seeded stream (reservoir sampling, as
// upstream selectHost does).
func (s *Scheduler) selectHost(fw *framework, cs *CycleState) cluster.NodeID {
	n := len(s.feasible)
	total := s.total[:0]
	for range n {
		total = append(total, 0)
	}
	s.total = total
	fw.preScore(cs, s.feasible)
	for _, k := range fw.activeScorers {
		buf := fw.scoreBuf[k]
		if cap(buf) < n {
			buf = make([]int64, n, 2*n)
		}
		buf = buf[:n]
		if b := fw.batch[k]; b != nil {
			b.scoreAll(cs, s.cl.Nodes, s.feasible, buf)
		} else {
			sp := fw.scorers[k]
			for i, nid := range s.feasible {
				buf[i] = sp.Score(cs, nid, &s.cl.Nodes[nid])
			}
		}
		if norm := fw.normals[k]; norm != nil {
			norm.NormalizeScore(cs, buf)
		}
		w := fw.weights[k]
		for i, v := range buf {
			total[i] += v * w
		}
		fw.scoreBuf[k] = buf
	}
	best, ties := 0, 1
	for i := 1; i < n; i++ {
		switch {
		case total[i] > total[best]:
			best, ties = i, 1
		case total[i] == total[best]:
			ties++
			if s.rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return s.feasible[best]
}

// admission says which filters decide whether a pod naming its node may
// run there.
type admission uint8

const (
	// everyFilter: the scheduler's (a DaemonSet's pod).
	everyFilter admission = iota
	// kubeletAdmission: only those of the kubelet's admission (kubeletAdmits).
	kubeletAdmission
)

// firstRejection runs the active filters on one node in filter order and
// returns the index and reason of the first that rejects it (-1, Pass if
// none does), running only the filters the admission uses.
func (s *Scheduler) firstRejection(fw *framework, cs *CycleState, nid cluster.NodeID, by admission) (int, Reason) {
	n := &s.cl.Nodes[nid]
	for _, fi := range fw.activeFilters {
		if by == kubeletAdmission && !kubeletAdmits(fw.filters[fi].Name()) {
			continue
		}
		s.extra = s.extra[:0]
		if r := fw.filters[fi].Filter(cs, nid, n, &s.extra); r != Pass {
			return fi, r
		}
	}
	return -1, Pass
}

// kubeletAdmits reports whether the kubelet's admission of a pod that
// names its node runs the filter (its GeneralPredicates: node name,
// resources, node affinity and selector; pkg/kubelet/lifecycle).
func kubeletAdmits(filter string) bool {
	switch filter {
	case NameNodeName, NameNodeResourcesFit, NameNodeAffinity:
		return true
	}
	return false
}
