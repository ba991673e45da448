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
)

// Config sets the scheduler up. Zero durations take the defaults above.
type Config struct {
	Profiles         []Profile // empty = DefaultProfile()
	InitialBackoff   time.Duration
	MaxBackoff       time.Duration
	MaxUnschedulable time.Duration
}

// Event kinds this handler receives.
const (
	evDrain uint16 = iota
	evBackoffDone
	evUnschedulableTimeout
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
	reg      Registry
	draining bool
	drainSet bool

	// nodes lists Ready nodes in the order the filter scan visits them;
	// nodeSlot maps NodeID to its index here (-1 when absent).
	nodes     []cluster.NodeID
	nodeSlot  []int32
	nextStart int

	reasons     []string
	reasonIDs   map[string]Reason
	reasonCount []int32
	touched     []Reason
	extra       []Reason
	feasible    []cluster.NodeID
	total       []int64
	failures    []string
	failureIDs  map[string]int32

	stats Stats
}

// Stats counts the scheduler's work.
type Stats struct {
	Attempts    uint64 // scheduling cycles run
	Bound       uint64
	Failed      uint64 // cycles that found no node
	NodesTested uint64 // filter runs over nodes
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
		eng:        eng,
		cl:         cl,
		cfg:        cfg,
		rng:        eng.Stream("scheduler/tiebreak"),
		fws:        map[string]*framework{},
		reg:        DefaultRegistry(),
		reasonIDs:  map[string]Reason{},
		failureIDs: map[string]int32{},
		reasons:    []string{""},
	}
	s.q.cl = cl
	for _, p := range cfg.Profiles {
		if _, dup := s.fws[p.SchedulerName]; dup {
			return nil, fmt.Errorf("two scheduler profiles named %q", p.SchedulerName)
		}
		fw, err := buildFramework(s, s.reg, p)
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

// Reason implements Handle.
func (s *Scheduler) Reason(msg string) Reason {
	if r, ok := s.reasonIDs[msg]; ok {
		return r
	}
	r := Reason(len(s.reasons))
	s.reasons = append(s.reasons, msg)
	s.reasonIDs[msg] = r
	s.reasonCount = append(s.reasonCount, 0, 0)[:len(s.reasons)]
	return r
}

// Stats returns the counters so far.
func (s *Scheduler) Stats() Stats { return s.stats }

// LastFailure returns the message of the pod's last failed attempt, in the
// form kubectl describe shows ("0/3 nodes are available: ..."), or "" if
// it never failed. It stays after the pod is bound: it says why it waited.
func (s *Scheduler) LastFailure(id cluster.PodID) string {
	if int(id) >= len(s.q.pods) || s.q.pods[id].failure < 0 {
		return ""
	}
	return s.failures[s.q.pods[id].failure]
}

// Handles reports whether some profile serves this scheduler name.
func (s *Scheduler) Handles(schedulerName string) bool {
	_, ok := s.fws[schedulerName]
	return ok
}

// OnChange implements cluster.Watcher.
func (s *Scheduler) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.PodCreated:
		p := &s.cl.Pods[c.Pod]
		if _, ok := s.fws[p.Spec.SchedulerName]; !ok {
			return // no profile serves it: it stays Pending, as with no such scheduler
		}
		s.q.pushActive(c.Pod, s.eng.Now())
		s.wake()
	case cluster.PodDeleted, cluster.PodFinished:
		if c.Node != cluster.NoNode {
			s.moveAll() // room freed
			return
		}
		s.dequeue(c.Pod)
	case cluster.NodeReadied:
		s.addNode(c.Node)
		s.moveAll()
	case cluster.NodeUpdated:
		s.moveAll()
	case cluster.NodeRemoved:
		s.removeNode(c.Node)
	}
}

func (s *Scheduler) addNode(id cluster.NodeID) {
	for int(id) >= len(s.nodeSlot) {
		s.nodeSlot = append(s.nodeSlot, -1)
	}
	s.nodeSlot[id] = int32(len(s.nodes))
	s.nodes = append(s.nodes, id)
}

func (s *Scheduler) removeNode(id cluster.NodeID) {
	if int(id) >= len(s.nodeSlot) || s.nodeSlot[id] < 0 {
		return
	}
	i := s.nodeSlot[id]
	last := s.nodes[len(s.nodes)-1]
	s.nodes[i] = last
	s.nodeSlot[last] = i
	s.nodes = s.nodes[:len(s.nodes)-1]
	s.nodeSlot[id] = -1
}

// dequeue forgets a pod that left Pending without the scheduler.
func (s *Scheduler) dequeue(id cluster.PodID) {
	if int(id) >= len(s.q.pods) {
		return
	}
	st := &s.q.pods[id]
	s.eng.Cancel(st.timer)
	switch st.where {
	case inActive:
		s.q.removeActiveAt(int(st.slot))
	case inUnschedulable:
		s.q.removeUnschedulable(id)
	case inBackoff:
		st.where = notQueued
	}
}

// moveAll moves every unschedulable pod to the active queue, or to backoff
// if its backoff has not expired: the reaction to a cluster event that may
// make pods schedulable.
func (s *Scheduler) moveAll() {
	if len(s.q.unsch) == 0 {
		return
	}
	now := s.eng.Now()
	// Move in the order the pods became unschedulable, for determinism
	// independent of swap-removal.
	pods := append([]cluster.PodID(nil), s.q.unsch...)
	sort.Slice(pods, func(i, j int) bool { return pods[i] < pods[j] })
	for _, id := range pods {
		s.q.removeUnschedulable(id)
		s.requeue(id, now)
	}
	s.wake()
}

func (s *Scheduler) requeue(id cluster.PodID, now engine.Time) {
	st := &s.q.pods[id]
	s.eng.Cancel(st.timer)
	until := st.lastTry + backoff(st.attempts, s.cfg.InitialBackoff, s.cfg.MaxBackoff)
	if until > now {
		st.where = inBackoff
		st.timer = s.eng.Schedule(until, engine.Event{Handler: s.id, Kind: evBackoffDone, Obj: int32(id)})
		return
	}
	s.q.pushActive(id, now)
}

func (s *Scheduler) wake() {
	if s.drainSet || s.draining || len(s.q.active) == 0 {
		return
	}
	s.drainSet = true
	s.eng.Schedule(s.eng.Now(), engine.Event{Handler: s.id, Kind: evDrain})
}

// HandleEvent implements engine.Handler.
func (s *Scheduler) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evDrain:
		s.drainSet = false
		s.drain()
	case evBackoffDone:
		id := cluster.PodID(ev.Obj)
		st := &s.q.pods[id]
		if st.where == inBackoff && s.cl.Pods[id].Phase == cluster.Pending {
			s.q.pushActive(id, s.eng.Now())
			s.wake()
		}
	case evUnschedulableTimeout:
		id := cluster.PodID(ev.Obj)
		if s.q.pods[id].where == inUnschedulable {
			s.q.removeUnschedulable(id)
			s.requeue(id, s.eng.Now())
			s.wake()
		}
	}
}

// drain runs scheduling cycles until the active queue is empty. Cycles take
// no virtual time: the model's scheduler is infinitely fast (see package
// doc).
func (s *Scheduler) drain() {
	s.draining = true
	for {
		id, ok := s.q.popActive()
		if !ok {
			break
		}
		s.scheduleOne(id)
	}
	s.draining = false
}

func (s *Scheduler) scheduleOne(id cluster.PodID) {
	p := &s.cl.Pods[id]
	if p.Phase != cluster.Pending {
		return
	}
	fw := s.fws[p.Spec.SchedulerName]
	st := s.q.state(id)
	st.attempts++
	now := s.eng.Now()
	st.lastTry = now
	s.stats.Attempts++

	cs := CycleState{Pod: id, Spec: p.Spec, Total: len(s.nodes)}
	s.findFeasible(fw, &cs)
	switch len(s.feasible) {
	case 0:
		s.stats.Failed++
		st.failure = s.recordFailure(len(s.nodes))
		s.cl.MarkUnschedulable(id)
		s.q.pushUnschedulable(id)
		st.timer = s.eng.After(s.cfg.MaxUnschedulable, engine.Event{Handler: s.id, Kind: evUnschedulableTimeout, Obj: int32(id)})
		return
	case 1:
		s.bind(id, s.feasible[0])
		return
	}
	s.bind(id, s.selectHost(fw, &cs))
}

func (s *Scheduler) bind(id cluster.PodID, node cluster.NodeID) {
	s.stats.Bound++
	s.cl.Bind(id, node)
}

// numFeasibleNodesToFind is how many feasible nodes a cycle looks for before
// it stops filtering (k8s percentageOfNodesToScore).
func numFeasibleNodesToFind(percentage int32, all int) int {
	if all < minFeasibleNodesToFind || percentage >= 100 {
		return all
	}
	pct := int(percentage)
	if pct <= 0 {
		pct = 50 - all/125
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
func (s *Scheduler) findFeasible(fw *framework, cs *CycleState) {
	s.feasible = s.feasible[:0]
	for _, r := range s.touched {
		s.reasonCount[r] = 0
	}
	s.touched = s.touched[:0]
	all := len(s.nodes)
	if all == 0 {
		return
	}
	want := numFeasibleNodesToFind(fw.profile.PercentageOfNodesToScore, all)
	processed := 0
	for i := 0; i < all && len(s.feasible) < want; i++ {
		nid := s.nodes[(s.nextStart+i)%all]
		n := &s.cl.Nodes[nid]
		processed++
		s.stats.NodesTested++
		ok := true
		for _, f := range fw.filters {
			s.extra = s.extra[:0]
			r := f.Filter(cs, n, &s.extra)
			if r == Pass {
				continue
			}
			s.count(r)
			for _, e := range s.extra {
				s.count(e)
			}
			ok = false
			break
		}
		if ok {
			s.feasible = append(s.feasible, nid)
		}
	}
	s.nextStart = (s.nextStart + processed) % all
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
	parts := make([]string, 0, len(s.touched))
	for _, r := range s.touched {
		parts = append(parts, fmt.Sprintf("%d %s", s.reasonCount[r], s.reasons[r]))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available", total)
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	msg += "."
	if i, ok := s.failureIDs[msg]; ok {
		return i
	}
	i := int32(len(s.failures))
	s.failures = append(s.failures, msg)
	s.failureIDs[msg] = i
	return i
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
	for k, sp := range fw.scorers {
		buf := fw.scoreBuf[k][:0]
		for _, nid := range s.feasible {
			buf = append(buf, sp.Score(cs, &s.cl.Nodes[nid]))
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
