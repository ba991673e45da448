package scheduler

import (
	"container/heap"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Where a pod sits in the scheduling queue.
const (
	notQueued uint8 = iota
	inActive
	inBackoff
	inUnschedulable
)

// podState is the scheduler's bookkeeping for one pod, indexed by PodID
// (40 bytes: one is kept for every pod ever created).
type podState struct {
	where uint8
	// hints are the cluster events that may make the pod schedulable: the
	// union of the events registered by the filters that rejected it.
	hints    Event
	attempts int32
	// slot is the pod's index in the active heap or the unschedulable list.
	slot    int32
	failure int32 // index into Scheduler.failures of the last fit error; -1 none
	// nominated is the node a preemption made room on; NoNode if none.
	nominated cluster.NodeID
	timer     engine.Timer
	lastTry   engine.Time
}

// podStatePageBits sets the page size of the pod states: 1<<12 states of
// 40 bytes, 160 KiB a page.
const (
	podStatePageBits = 12
	podStatePageMask = 1<<podStatePageBits - 1
)

// queue is the scheduling queue: an active heap ordered by priority then
// queue timestamp (the PrioritySort plugin), a backoff heap ordered by
// backoff expiry (then as the active heap) whose pods engine timers move
// to the active heap, and an unschedulable list that cluster events or a
// 5-minute timeout move back (k8s backend/queue/scheduling_queue.go).
// When the active heap is empty the scheduler pops the backoff heap's
// head even before its backoff ends (SchedulerPopFromBackoffQ, on by
// default since Kubernetes 1.33).
type queue struct {
	cl *cluster.Cluster
	// pages hold the pod states by PodID, a page at a time, so that the
	// states of the pods ever created (a million over a simulated week)
	// are never copied to grow; n is how many exist (PodIDs below n).
	pages   [][]podState
	n       int
	active  []activeEntry // binary heap
	backoff backoffHeap
	unsch   []cluster.PodID
	seq     uint64
}

// activeEntry is a pod in the active heap with its sort key, so that
// comparisons read neither pod records nor pod states.
type activeEntry struct {
	id       cluster.PodID
	priority int32
	queuedAt engine.Time // PrioritySort's timestamp: when it last entered the queue
	seq      uint64      // tie-break after the timestamp, for a total order
}

// has reports whether the pod has a state.
func (q *queue) has(id cluster.PodID) bool { return int(id) < q.n }

// at returns the state of a pod that has one.
func (q *queue) at(id cluster.PodID) *podState {
	return &q.pages[id>>podStatePageBits][id&podStatePageMask]
}

// state returns the pod's state, creating the states up to it if new.
func (q *queue) state(id cluster.PodID) *podState {
	for int(id) >= q.n {
		if q.n>>podStatePageBits == len(q.pages) {
			page := make([]podState, 1<<podStatePageBits)
			for i := range page {
				page[i] = podState{slot: -1, failure: -1, nominated: cluster.NoNode}
			}
			q.pages = append(q.pages, page)
		}
		q.n = min(int(id)+1, len(q.pages)<<podStatePageBits)
	}
	return q.at(id)
}

func (a *activeEntry) less(b *activeEntry) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.queuedAt != b.queuedAt {
		return a.queuedAt < b.queuedAt
	}
	return a.seq < b.seq
}

func (q *queue) less(i, j int) bool { return q.active[i].less(&q.active[j]) }

func (q *queue) pushActive(id cluster.PodID, now engine.Time) {
	s := q.state(id)
	s.where = inActive
	q.seq++
	s.slot = int32(len(q.active))
	q.active = append(q.active, activeEntry{id: id, priority: q.cl.Pods[id].Spec.Priority, queuedAt: now, seq: q.seq})
	q.up(int(s.slot))
}

// popActive takes the first pod of the active heap and returns it with
// the time it entered the queue.
func (q *queue) popActive() (cluster.PodID, engine.Time, bool) {
	if len(q.active) == 0 {
		return cluster.NoPod, 0, false
	}
	id, at := q.active[0].id, q.active[0].queuedAt
	q.removeActiveAt(0)
	return id, at, true
}

func (q *queue) removeActiveAt(i int) {
	id := q.active[i].id
	last := len(q.active) - 1
	if i != last {
		q.swap(i, last)
	}
	q.active = q.active[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
	s := q.at(id)
	s.where = notQueued
	s.slot = -1
}

func (q *queue) swap(i, j int) {
	q.active[i], q.active[j] = q.active[j], q.active[i]
	q.at(q.active[i].id).slot = int32(i)
	q.at(q.active[j].id).slot = int32(j)
}

func (q *queue) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			return
		}
		q.swap(i, parent)
		i = parent
	}
}

func (q *queue) down(i int) {
	n := len(q.active)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q.swap(i, m)
		i = m
	}
}

// backoffEntry is a pod in the backoff heap with its sort key.
type backoffEntry struct {
	until engine.Time // when its backoff ends
	activeEntry
}

// backoffHeap is container/heap's view of the backoff heap: by backoff
// expiry, then priority, then queue time (upstream's backoffQ with
// SchedulerPopFromBackoffQ orders ties as the activeQ does). Pods' slots
// hold their index here while they are in it.
type backoffHeap struct {
	q     *queue
	items []backoffEntry
}

func (h *backoffHeap) Len() int { return len(h.items) }

func (h *backoffHeap) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.until != b.until {
		return a.until < b.until
	}
	return a.activeEntry.less(&b.activeEntry)
}

func (h *backoffHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.q.at(h.items[i].id).slot = int32(i)
	h.q.at(h.items[j].id).slot = int32(j)
}

func (h *backoffHeap) Push(x any) {
	e := x.(backoffEntry)
	h.q.at(e.id).slot = int32(len(h.items))
	h.items = append(h.items, e)
}

func (h *backoffHeap) Pop() any {
	last := len(h.items) - 1
	e := h.items[last]
	h.items = h.items[:last]
	return e
}

// pushBackoff parks a pod until its backoff ends at until; queuedAt is
// its queue timestamp (its last attempt).
func (q *queue) pushBackoff(id cluster.PodID, until, queuedAt engine.Time) {
	s := q.state(id)
	s.where = inBackoff
	q.seq++
	q.backoff.q = q
	heap.Push(&q.backoff, backoffEntry{until: until, activeEntry: activeEntry{id: id, priority: q.cl.Pods[id].Spec.Priority, queuedAt: queuedAt, seq: q.seq}})
}

// removeBackoff takes a pod out of the backoff heap.
func (q *queue) removeBackoff(id cluster.PodID) {
	s := q.at(id)
	heap.Remove(&q.backoff, int(s.slot))
	s.where = notQueued
	s.slot = -1
}

// popBackoff takes the backoff heap's head, whose backoff may not have
// ended.
func (q *queue) popBackoff() (cluster.PodID, bool) {
	if len(q.backoff.items) == 0 {
		return cluster.NoPod, false
	}
	id := q.backoff.items[0].id
	q.removeBackoff(id)
	return id, true
}

func (q *queue) pushUnschedulable(id cluster.PodID) {
	s := q.state(id)
	s.where = inUnschedulable
	s.slot = int32(len(q.unsch))
	q.unsch = append(q.unsch, id)
}

func (q *queue) removeUnschedulable(id cluster.PodID) {
	s := q.at(id)
	i := s.slot
	last := q.unsch[len(q.unsch)-1]
	q.unsch[i] = last
	q.at(last).slot = i
	q.unsch = q.unsch[:len(q.unsch)-1]
	s.where = notQueued
	s.slot = -1
}

// backoff is initial doubling per failed attempt up to max
// (k8s calculateBackoffDuration).
func backoff(attempts int32, initial, max time.Duration) time.Duration {
	d := initial
	for i := int32(1); i < attempts; i++ {
		if d > max-d {
			return max
		}
		d += d
	}
	if d > max {
		return max
	}
	return d
}
