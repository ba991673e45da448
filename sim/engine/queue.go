package engine

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// Time is virtual time since scenario start, in nanoseconds. It is never
// the wall clock.
type Time = time.Duration

// MaxTime is the latest representable virtual time; Run(MaxTime) runs until
// the queue is empty or Stop is called.
const MaxTime Time = math.MaxInt64

// HandlerID names a registered [Handler]. IDs start at 1: the zero value is
// never valid, so an Event whose Handler field was forgotten is caught when
// it is scheduled instead of being delivered to the wrong model.
type HandlerID uint16

// Event is a value type; the payload fields are the handler's to interpret.
// It holds no pointers, so queued events cost the garbage collector nothing.
type Event struct {
	At      Time      // set by the engine when scheduled
	Handler HandlerID // who receives it
	Kind    uint16    // handler-defined
	Obj     int32     // handler-defined, e.g. a pod or node index
	Arg     int64     // handler-defined, e.g. a generation counter
}

// Timer identifies a scheduled event so it can be cancelled. The zero Timer
// is never pending. A Timer may be kept and passed to Cancel and Pending
// for ever: once its event has fired or been cancelled both report false,
// and it never aliases a later event that reuses its slot (the slot's
// generation differs, and a slot is retired before its generation wraps).
type Timer struct {
	slot uint32 // index into Queue.slots
	gen  uint32 // slot generation when scheduled; never 0 for a real timer
}

// entry is a heap key. It is kept to 16 bytes so that the four children of
// a node fill exactly one 64-byte cache line; the payload lives in the slot
// table and is read once, when the event is popped.
type entry struct {
	at   Time
	seq  uint32 // insertion order; renumbered before it can wrap
	slot uint32
}

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// lt is before as 0 or 1, computed without branches: a 96-bit subtraction
// of (at with its sign bit flipped, seq) whose borrow is the answer.
func lt(a, b entry) int {
	_, borrow := bits.Sub64(uint64(a.seq), uint64(b.seq), 0)
	_, borrow = bits.Sub64(uint64(a.at)^(1<<63), uint64(b.at)^(1<<63), borrow)
	return int(borrow)
}

// slot holds an event's payload and where its key currently is in the heap.
// At is not repeated here (the heap key has it): 24 rather than 32 bytes
// per slot kept n=1e5..1e6 queues measurably further inside the cache.
type slot struct {
	handler HandlerID
	kind    uint16
	obj     int32
	arg     int64
	pos     int32  // heap index while live; 1 + next free slot (0 = none) while free
	gen     uint32 // bumped on release so stale Timers miss
}

// maxLen bounds the live events: heap positions are int32 and slots uint32.
const maxLen = math.MaxInt32 - root

// Heap layout. The root is stored at index root = 3 and the children of the
// node at index i are 4i-8 .. 4i-5, so every sibling group starts at a
// multiple of 4 entries = 64 bytes: with the (page-aligned) backing array of
// a large heap, one level of a sift touches one cache line, not two. The
// first three entries are padding.
const root = 3

func parent(i int) int { return i>>2 + 2 }
func child(i int) int  { return 4*i - 8 }

// branchlessLimit is the heap index below which sift-down picks the
// smallest child without branches. The top levels are cache-resident and
// there the cost of a pop is mostly mispredicted compares; lower down the
// cost is memory latency and a predicted branch lets the CPU start the next
// level's loads early, so branches win. 1<<12 entries (64 KiB) measured
// best of 1<<10 .. 1<<16.
const branchlessLimit = 1 << 12

// Queue is the engine's priority queue, exported so it can be benchmarked and
// tested without handlers. Events come out in (At, push order) order. The
// zero value is an empty queue ready to use. See the package documentation
// for costs and the zero-allocation contract.
type Queue struct {
	heap  []entry // heap[:root] is padding; empty until the first Push
	slots []slot
	free  uint32 // 1 + index of the first free slot; 0 = none
	seq   uint32 // next insertion sequence number
	sink  uint32 // keeps the grandchild loads of down from being elided
}

// Len returns the number of pending (pushed, not popped, not cancelled)
// events.
func (q *Queue) Len() int { return max(len(q.heap)-root, 0) }

// Push queues ev with key ev.At and returns a Timer for it.
func (q *Queue) Push(ev Event) Timer {
	if q.seq == math.MaxUint32 {
		q.renumber()
	}
	if len(q.heap) == 0 {
		q.heap = append(q.heap, make([]entry, root)...)
	}
	s := q.alloc()
	sl := &q.slots[s]
	sl.handler, sl.kind, sl.obj, sl.arg = ev.Handler, ev.Kind, ev.Obj, ev.Arg
	x := entry{at: ev.At, seq: q.seq, slot: s}
	q.seq++
	i := len(q.heap)
	q.heap = append(q.heap, x)
	// Most new events belong at the bottom (their parent is earlier): skip
	// the call to up in that common case.
	if i > root && x.before(q.heap[parent(i)]) {
		q.up(i, x)
	} else {
		sl.pos = int32(i)
	}
	return Timer{slot: s, gen: sl.gen}
}

// event reassembles the Event whose key is e.
func (q *Queue) event(e entry) Event {
	sl := &q.slots[e.slot]
	return Event{At: e.at, Handler: sl.handler, Kind: sl.kind, Obj: sl.obj, Arg: sl.arg}
}

// Peek returns the earliest event without removing it; false when empty.
func (q *Queue) Peek() (Event, bool) {
	if len(q.heap) <= root {
		return Event{}, false
	}
	return q.event(q.heap[root]), true
}

// Pop removes and returns the earliest event (ties in push order); false
// when empty.
func (q *Queue) Pop() (Event, bool) {
	n := len(q.heap) - 1
	if n < root {
		return Event{}, false
	}
	h := q.heap
	ev := q.event(h[root])
	q.release(h[root].slot)
	last := h[n]
	q.heap = h[:n]
	if n > root {
		q.down(root, last)
	}
	return ev, true
}

// Pending reports whether t's event is still queued.
func (q *Queue) Pending(t Timer) bool {
	return uint64(t.slot) < uint64(len(q.slots)) && q.slots[t.slot].gen == t.gen
}

// Cancel removes t's event from the queue. It returns true if the event was
// pending; cancelling a zero, fired or already-cancelled Timer returns false
// and changes nothing.
func (q *Queue) Cancel(t Timer) bool {
	if !q.Pending(t) {
		return false
	}
	i := int(q.slots[t.slot].pos)
	q.release(t.slot)
	n := len(q.heap) - 1
	last := q.heap[n]
	q.heap = q.heap[:n]
	if i < n {
		// The moved key may belong above or below the hole.
		if i > root && last.before(q.heap[parent(i)]) {
			q.up(i, last)
		} else {
			q.down(i, last)
		}
	}
	return true
}

func (q *Queue) alloc() uint32 {
	if q.free != 0 {
		s := q.free - 1
		q.free = uint32(q.slots[s].pos)
		return s
	}
	if len(q.slots) >= maxLen {
		panic("engine: more than 2^31-1 pending events")
	}
	// Generations start at 1 so the zero Timer never matches.
	q.slots = append(q.slots, slot{gen: 1})
	return uint32(len(q.slots) - 1)
}

func (q *Queue) release(s uint32) {
	sl := &q.slots[s]
	sl.gen++
	if sl.gen == math.MaxUint32 {
		// Retire the slot instead of letting its generation wrap, so
		// that no stale Timer can ever match a later event. This leaks
		// 24 bytes per 2^32 reuses of one slot.
		return
	}
	sl.pos = int32(q.free)
	q.free = s + 1
}

// up moves key x, destined for hole i, towards the root. Parents are shifted
// into the hole rather than swapped, halving the writes.
func (q *Queue) up(i int, x entry) {
	h := q.heap
	slots := q.slots
	for i > root {
		p := parent(i)
		if !x.before(h[p]) {
			break
		}
		h[i] = h[p]
		slots[h[i].slot].pos = int32(i)
		i = p
	}
	h[i] = x
	slots[x.slot].pos = int32(i)
}

// down moves key x, destined for hole i, towards the leaves.
func (q *Queue) down(i int, x entry) {
	h := q.heap
	slots := q.slots
	n := len(h)
	// Upper levels: branch-free choice of the smallest of four children.
	for {
		c := child(i)
		if c+3 >= n || c >= branchlessLimit {
			break
		}
		ch := h[c : c+4 : c+4]
		a := lt(ch[1], ch[0])
		b := 2 + lt(ch[3], ch[2])
		m := a ^ ((a ^ b) & -lt(ch[b], ch[a])) // a if ch[a] <= ch[b], else b
		if !ch[m].before(x) {
			h[i] = x
			slots[x.slot].pos = int32(i)
			return
		}
		h[i] = ch[m]
		slots[h[i].slot].pos = int32(i)
		i = c + m
	}
	// Lower levels: memory-bound. Touch the four cache lines of the
	// grandchildren before comparing the children so that whichever child
	// wins, its own children are already on their way from memory (Go has
	// no prefetch intrinsic; a used load is the portable equivalent).
	var touch uint32
	for {
		c := child(i)
		if c >= n {
			break
		}
		if g := child(c); g+12 < n {
			touch += h[g].seq + h[g+4].seq + h[g+8].seq + h[g+12].seq
		}
		m := c
		if c+3 < n {
			if h[c+1].before(h[m]) {
				m = c + 1
			}
			if h[c+2].before(h[m]) {
				m = c + 2
			}
			if h[c+3].before(h[m]) {
				m = c + 3
			}
		} else {
			for j := c + 1; j < n; j++ {
				if h[j].before(h[m]) {
					m = j
				}
			}
		}
		if !h[m].before(x) {
			break
		}
		h[i] = h[m]
		slots[h[i].slot].pos = int32(i)
		i = m
	}
	q.sink = touch
	h[i] = x
	slots[x.slot].pos = int32(i)
}

// renumber reassigns sequence numbers 0..n-1 in (At, seq) order so the
// 32-bit counter can continue without wrapping. It runs once per 2^32
// pushes; a sorted array is a valid heap, so no re-heapify is needed.
func (q *Queue) renumber() {
	if len(q.heap) <= root {
		q.seq = 0
		return
	}
	live := q.heap[root:]
	slices.SortFunc(live, func(a, b entry) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
	for i := range live {
		live[i].seq = uint32(i)
		q.slots[live[i].slot].pos = int32(root + i)
	}
	q.seq = uint32(len(live))
}
