package engine

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// refItem is one pending event in the reference model.
type refItem struct {
	at  Time
	seq int   // push order, the tie-breaker
	id  int64 // carried in Event.Arg to identify what the queue returned
}

// harness drives a Queue and a trivially correct reference (an unsorted
// slice searched linearly) with the same operations and fails on the first
// difference.
type harness struct {
	t      testing.TB
	q      Queue
	ref    []refItem
	seq    int
	timers []Timer // every timer ever issued, index = id
	live   []bool  // whether timers[id] is still pending in the reference
}

func (h *harness) refMin() int {
	m := 0
	for i, it := range h.ref[1:] {
		if it.at < h.ref[m].at || (it.at == h.ref[m].at && it.seq < h.ref[m].seq) {
			m = i + 1
		}
	}
	return m
}

func (h *harness) push(at Time) {
	id := int64(len(h.timers))
	tm := h.q.Push(Event{At: at, Handler: 7, Kind: uint16(id), Obj: int32(-id), Arg: id})
	require.True(h.t, h.q.Pending(tm), "fresh timer not pending")
	require.NotEqual(h.t, Timer{}, tm)
	h.ref = append(h.ref, refItem{at: at, seq: h.seq, id: id})
	h.seq++
	h.timers = append(h.timers, tm)
	h.live = append(h.live, true)
}

func (h *harness) expect(ev Event, ok bool, remove bool) {
	if len(h.ref) == 0 {
		require.False(h.t, ok, "queue returned an event but the reference is empty")
		require.Equal(h.t, Event{}, ev)
		return
	}
	require.True(h.t, ok, "queue empty but reference has %d events", len(h.ref))
	m := h.refMin()
	want := h.ref[m]
	require.Equal(h.t, Event{At: want.at, Handler: 7, Kind: uint16(want.id), Obj: int32(-want.id), Arg: want.id}, ev,
		"wrong event (want at=%d seq=%d)", want.at, want.seq)
	if remove {
		h.ref = slices.Delete(h.ref, m, m+1)
		h.live[want.id] = false
		require.False(h.t, h.q.Pending(h.timers[want.id]), "popped timer still pending")
	}
}

func (h *harness) pop()  { ev, ok := h.q.Pop(); h.expect(ev, ok, true) }
func (h *harness) peek() { ev, ok := h.q.Peek(); h.expect(ev, ok, false) }

// cancel cancels the timer issued id-th; it may have fired or been cancelled.
func (h *harness) cancel(id int) {
	if len(h.timers) == 0 {
		require.False(h.t, h.q.Cancel(Timer{}))
		return
	}
	id %= len(h.timers)
	got := h.q.Cancel(h.timers[id])
	require.Equal(h.t, h.live[id], got, "Cancel(timer %d) result", id)
	if h.live[id] {
		h.live[id] = false
		i := slices.IndexFunc(h.ref, func(it refItem) bool { return it.id == int64(id) })
		h.ref = slices.Delete(h.ref, i, i+1)
	}
	require.False(h.t, h.q.Pending(h.timers[id]))
	require.False(h.t, h.q.Cancel(h.timers[id]), "second cancel must be a no-op")
}

func (h *harness) pending(id int) {
	if len(h.timers) == 0 {
		require.False(h.t, h.q.Pending(Timer{}))
		return
	}
	id %= len(h.timers)
	require.Equal(h.t, h.live[id], h.q.Pending(h.timers[id]))
}

// check verifies the queue's internal invariants: the heap property under
// (at, seq), positions recorded in the slot table, and slot accounting.
func (h *harness) check() {
	q := &h.q
	require.Equal(h.t, len(h.ref), q.Len())
	for i := root + 1; i < len(q.heap); i++ {
		require.False(h.t, q.heap[i].before(q.heap[parent(i)]), "heap property broken at %d", i)
	}
	for i := root; i < len(q.heap); i++ {
		e := q.heap[i]
		require.Equal(h.t, int32(i), q.slots[e.slot].pos, "slot %d position", e.slot)
	}
	free, retired := 0, 0
	for f := q.free; f != 0; f = uint32(q.slots[f-1].pos) {
		free++
		require.LessOrEqual(h.t, free, len(q.slots), "free list cycle")
		require.NotEqual(h.t, uint32(math.MaxUint32), q.slots[f-1].gen, "retired slot on the free list")
	}
	for _, sl := range q.slots {
		if sl.gen == math.MaxUint32 {
			retired++
		}
	}
	require.Equal(h.t, len(q.slots), free+retired+q.Len(), "slots leaked")
	require.False(h.t, q.Pending(Timer{}), "zero Timer pending")
}

// run interprets data as a program of queue operations. The op encoding
// favours small times so that equal times (ties) are common, but also
// reaches extreme keys so signed comparisons are exercised.
func (h *harness) run(data []byte) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	for len(data) > 0 {
		switch op := next(); op % 10 {
		case 0, 1, 2: // push at a small time: many ties
			h.push(Time(next() % 16))
		case 3: // push at a wide or extreme time
			var b [8]byte
			for i := range b {
				b[i] = next()
			}
			at := Time(int64(binary.LittleEndian.Uint64(b[:])))
			switch op / 10 % 4 {
			case 0:
				at = math.MinInt64
			case 1:
				at = math.MaxInt64
			}
			h.push(at)
		case 4, 5:
			h.pop()
		case 6:
			h.peek()
		case 7, 8:
			h.cancel(int(next()))
		case 9:
			h.pending(int(next()))
		}
		require.Equal(h.t, len(h.ref), h.q.Len())
	}
	h.check()
	for len(h.ref) > 0 {
		h.pop()
	}
	h.pop()
	h.check()
}

func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 4, 4, 4})
	f.Add([]byte{0, 5, 1, 5, 2, 5, 7, 1, 4, 7, 1, 7, 0, 4, 4})
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 13, 0, 0, 0, 0, 0, 0, 0, 0, 23, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 4, 4, 4, 4, 9, 2})
	r := rand.New(rand.NewPCG(42, 42))
	for range 8 {
		b := make([]byte, 200)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := &harness{t: t}
		h.run(data)
	})
}

// TestQueueRandomized runs long random programs against the reference. Each
// seed picks its own mix so that some runs grow large heaps, some stay near
// empty, some are dominated by cancels, and the time range varies from
// "all equal" to wide.
func TestQueueRandomized(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	for seed := range uint64(seeds) {
		r := rand.New(rand.NewPCG(seed, 0xc0ffee))
		h := &harness{t: t}
		wPush := 1 + r.IntN(10)
		wPop := 1 + r.IntN(10)
		wCancel := r.IntN(8)
		wOther := 1 + r.IntN(3)
		span := []int{1, 3, 50, 1 << 20}[r.IntN(4)]
		total := wPush + wPop + wCancel + wOther
		now := Time(0)
		for op := range 3000 {
			switch x := r.IntN(total); {
			case x < wPush:
				// Mostly at or after the last popped time, like a simulation.
				h.push(now + Time(r.IntN(span)))
			case x < wPush+wPop:
				if ev, ok := h.q.Peek(); ok {
					now = ev.At
				}
				h.pop()
			case x < wPush+wPop+wCancel:
				// Bias towards recent timers so that live ones are hit
				// too, not only long-fired ones.
				id := r.IntN(len(h.timers) + 1)
				if len(h.timers) > 0 && r.IntN(2) == 0 {
					id = len(h.timers) - 1 - r.IntN(min(len(h.timers), 32))
				}
				h.cancel(id)
			default:
				if r.IntN(2) == 0 {
					h.peek()
				} else {
					h.pending(r.IntN(len(h.timers) + 1))
				}
			}
			if op%500 == 0 {
				h.check()
			}
		}
		h.check()
		for len(h.ref) > 0 {
			h.pop()
		}
		h.check()
	}
}

// TestQueueSeqRenumber forces the 32-bit insertion counter to its limit
// repeatedly and checks that ordering (ties included) survives.
func TestQueueSeqRenumber(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	h := &harness{t: t}
	for round := range 50 {
		h.q.seq = math.MaxUint32 - uint32(r.IntN(20))
		for range 100 {
			switch x := r.IntN(10); {
			case x < 5:
				h.push(Time(r.IntN(4)))
			case x < 8:
				h.pop()
			default:
				h.cancel(r.IntN(len(h.timers) + 1))
			}
		}
		h.check()
		require.Less(t, h.q.seq, uint32(math.MaxUint32-20), "round %d: counter was not renumbered", round)
	}
}

func TestQueueZeroValue(t *testing.T) {
	var q Queue
	_, ok := q.Pop()
	require.False(t, ok)
	_, ok = q.Peek()
	require.False(t, ok)
	require.Equal(t, 0, q.Len())
	require.False(t, q.Pending(Timer{}))
	require.False(t, q.Cancel(Timer{}))
	require.False(t, q.Cancel(Timer{slot: 5, gen: 1}), "out-of-range timer")

	tm := q.Push(Event{At: 3})
	require.False(t, q.Pending(Timer{}), "zero Timer must not alias slot 0")
	require.False(t, q.Cancel(Timer{}))
	require.True(t, q.Pending(tm))
	require.True(t, q.Cancel(tm))
	require.False(t, q.Cancel(tm))
	require.Equal(t, 0, q.Len())

	// A reused slot must not revive the old Timer.
	tm2 := q.Push(Event{At: 4})
	require.Equal(t, tm.slot, tm2.slot)
	require.False(t, q.Pending(tm))
	require.False(t, q.Cancel(tm))
	require.True(t, q.Pending(tm2))
}

func TestQueueFIFOTies(t *testing.T) {
	var q Queue
	for i := range 1000 {
		q.Push(Event{At: Time(i % 3), Arg: int64(i)})
	}
	prevAt, prevArg := Time(-1), int64(-1)
	for range 1000 {
		ev, ok := q.Pop()
		require.True(t, ok)
		if ev.At == prevAt {
			require.Greater(t, ev.Arg, prevArg, "ties must pop in push order")
		} else {
			require.Greater(t, ev.At, prevAt)
		}
		prevAt, prevArg = ev.At, ev.Arg
	}
}

// TestQueueZeroAllocs checks the zero-allocation contract. Each measured
// run does many operations, so even one allocation in thousands fails
// (AllocsPerRun reports an integer average per run).
func TestQueueZeroAllocs(t *testing.T) {
	var q Queue
	r := rand.New(rand.NewPCG(1, 2))
	const n, ops = 10000, 20000
	for range n {
		q.Push(Event{At: Time(r.IntN(1000))})
	}
	var now Time
	allocs := testing.AllocsPerRun(5, func() {
		for range ops {
			ev, _ := q.Pop()
			now = ev.At
			q.Push(Event{At: now + Time(r.IntN(1000))})
		}
	})
	require.Zero(t, allocs, "Pop+Push")

	// Timeouts: far-future events that are cancelled and re-armed.
	timers := make([]Timer, 1000)
	for i := range timers {
		timers[i] = q.Push(Event{At: now + 1e9 + Time(r.IntN(1000))})
	}
	i := 0
	allocs = testing.AllocsPerRun(5, func() {
		for range ops {
			ev, _ := q.Pop()
			now = ev.At
			q.Push(Event{At: now + Time(r.IntN(1000))})
			k := i % len(timers)
			if !q.Cancel(timers[k]) {
				panic("timeout fired or lost")
			}
			timers[k] = q.Push(Event{At: now + 1e9 + Time(r.IntN(1000))})
			i++
		}
	})
	require.Zero(t, allocs, "Pop+Push+Cancel")
	require.Equal(t, n+len(timers), q.Len())
}

// TestQueueLarge covers heaps deep enough to use both sift-down loops (the
// branch-free upper levels and the lower levels with grandchild loads). A
// linear reference is too slow at this size, so it checks instead that, in
// a hold model where nothing is pushed before the last popped time, pops
// come out in strictly increasing (At, push order), that every live event
// comes out exactly once, and the internal invariants periodically.
func TestQueueLarge(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 3} {
		r := rand.New(rand.NewPCG(seed, 99))
		h := &harness{t: t}
		var q Queue
		type key struct {
			at Time
			id int64
		}
		var timers []Timer
		live := map[int64]Time{}
		push := func(at Time) {
			id := int64(len(timers))
			timers = append(timers, q.Push(Event{At: at, Arg: id}))
			live[id] = at
		}
		last := key{at: -1, id: -1}
		pop := func() {
			ev, ok := q.Pop()
			require.True(t, ok)
			at, isLive := live[ev.Arg]
			require.True(t, isLive, "popped a dead event %d", ev.Arg)
			require.Equal(t, at, ev.At)
			k := key{ev.At, ev.Arg}
			require.True(t, k.at > last.at || (k.at == last.at && k.id > last.id), "out of order: %v after %v", k, last)
			last = k
			delete(live, ev.Arg)
		}
		span := []Time{1, 10, 1000, 1 << 30}[seed%4]
		for range 20000 {
			push(Time(r.Int64N(int64(span))))
		}
		for op := range 60000 {
			if r.IntN(10) < 7 {
				pop()
				push(last.at + Time(r.Int64N(int64(span))))
			} else {
				id := int64(r.IntN(len(timers)))
				_, isLive := live[id]
				require.Equal(t, isLive, q.Cancel(timers[id]))
				delete(live, id)
				push(last.at + Time(r.Int64N(int64(span))))
			}
			if op%10000 == 0 {
				h.q = q
				h.ref = make([]refItem, len(live))
				h.check()
			}
			require.Equal(t, len(live), q.Len())
		}
		for len(live) > 0 {
			pop()
		}
		_, ok := q.Pop()
		require.False(t, ok)
	}
}

// TestQueueGenerationRetire drives one slot to the end of its generation
// range: it must be retired, never reused with a wrapped generation that
// would let an old Timer cancel a new event.
func TestQueueGenerationRetire(t *testing.T) {
	h := &harness{t: t}
	h.push(1)
	h.pop()
	h.q.slots[0].gen = math.MaxUint32 - 3
	first := len(h.timers)
	for range 10 {
		h.push(2)
		h.pop()
	}
	for id := first; id < len(h.timers); id++ {
		require.False(t, h.q.Pending(h.timers[id]))
	}
	require.Equal(t, uint32(0), h.timers[first].slot)
	require.NotEqual(t, uint32(0), h.timers[len(h.timers)-1].slot, "slot 0 should be retired")
	require.Equal(t, uint32(math.MaxUint32), h.q.slots[0].gen)
	h.check()
	for id := range len(h.timers) {
		h.cancel(id)
	}
	h.check()
}
