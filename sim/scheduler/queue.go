package scheduler

import (
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

// podState is the scheduler's bookkeeping for one pod, indexed by PodID.
type podState struct {
	where    uint8
	attempts int32
	// slot is the pod's index in the active heap or the unschedulable list.
	slot     int32
	timer    engine.Timer
	queuedAt engine.Time // PrioritySort's timestamp: when it last entered the queue
	seq      uint64      // tie-break after the timestamp, for a total order
	lastTry  engine.Time
	failure  int32 // index into Scheduler.failures of the last fit error; -1 none
	// hints are the cluster events that may make the pod schedulable: the
	// union of the events registered by the filters that rejected it.
	hints Event
	// nominated is the node a preemption made room on; NoNode if none.
	nominated cluster.NodeID
}

// queue is the scheduling queue: an active heap ordered by priority then
// queue timestamp (the PrioritySort plugin), a backoff set driven by engine
// timers, and an unschedulable list that cluster events or a 5-minute
// timeout move back (k8s backend/queue/scheduling_queue.go).
type queue struct {
	cl     *cluster.Cluster
	pods   []podState
	active []cluster.PodID // binary heap
	unsch  []cluster.PodID
	seq    uint64
}

func (q *queue) state(id cluster.PodID) *podState {
	for int(id) >= len(q.pods) {
		q.pods = append(q.pods, podState{slot: -1, failure: -1, nominated: cluster.NoNode})
	}
	return &q.pods[id]
}

func (q *queue) less(a, b cluster.PodID) bool {
	pa, pb := q.cl.Pods[a].Spec.Priority, q.cl.Pods[b].Spec.Priority
	if pa != pb {
		return pa > pb
	}
	sa, sb := &q.pods[a], &q.pods[b]
	if sa.queuedAt != sb.queuedAt {
		return sa.queuedAt < sb.queuedAt
	}
	return sa.seq < sb.seq
}

func (q *queue) pushActive(id cluster.PodID, now engine.Time) {
	s := q.state(id)
	s.where = inActive
	s.queuedAt = now
	q.seq++
	s.seq = q.seq
	s.slot = int32(len(q.active))
	q.active = append(q.active, id)
	q.up(int(s.slot))
}

func (q *queue) popActive() (cluster.PodID, bool) {
	if len(q.active) == 0 {
		return cluster.NoPod, false
	}
	id := q.active[0]
	q.removeActiveAt(0)
	return id, true
}

func (q *queue) removeActiveAt(i int) {
	id := q.active[i]
	last := len(q.active) - 1
	if i != last {
		q.swap(i, last)
	}
	q.active = q.active[:last]
	if i != last {
		q.down(i)
		q.up(i)
	}
	s := &q.pods[id]
	s.where = notQueued
	s.slot = -1
}

func (q *queue) swap(i, j int) {
	q.active[i], q.active[j] = q.active[j], q.active[i]
	q.pods[q.active[i]].slot = int32(i)
	q.pods[q.active[j]].slot = int32(j)
}

func (q *queue) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(q.active[i], q.active[parent]) {
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
		if r := l + 1; r < n && q.less(q.active[r], q.active[l]) {
			m = r
		}
		if !q.less(q.active[m], q.active[i]) {
			return
		}
		q.swap(i, m)
		i = m
	}
}

func (q *queue) pushUnschedulable(id cluster.PodID) {
	s := q.state(id)
	s.where = inUnschedulable
	s.slot = int32(len(q.unsch))
	q.unsch = append(q.unsch, id)
}

func (q *queue) removeUnschedulable(id cluster.PodID) {
	s := &q.pods[id]
	i := s.slot
	last := q.unsch[len(q.unsch)-1]
	q.unsch[i] = last
	q.pods[last].slot = i
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
