package engine

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The hold model: n events are pending; each operation pops the earliest
// and pushes one at now + Exp(1) (mean 1 s of virtual time). Delays are
// drawn inline from a PCG stream in every benchmark alike, so the RNG cost
// (about 5 ns) is part of each and the ratio between them is fair.
//
// Design measurements behind queue.go: the hold model on the bare Queue,
// ns per pop+push, thread CPU time (best of 5, 2M ops each) on the 2-vCPU
// development VM while other builds were running, so +-10% is noise:
//
//	variant                                         n=1e3  n=1e5  n=1e6
//	2-ary, plain sift                                  82    190    482
//	4-ary, plain sift                                  83    176    466
//	8-ary, plain sift                                  90    212    570
//	4-ary, branch-free child choice at every level     80    210    745
//	4-ary, Floyd bottom-up pop                         89    202    562
//	4-ary, payload inline (32-byte heap entries)      102    209    669
//	4-ary, payload and pos/gen in separate tables      62    192    557
//	4-ary, line-aligned, branch-free above
//	  1<<12 entries, grandchild loads below            64    166    447
//	final: the same with At dropped from the slot
//	  (24- instead of 32-byte slots)                   66    144    378
//
// Branch-free selection removes mispredictions but also the speculation
// that overlaps one level's cache misses with the next, hence the hybrid.

var holdSizes = []int{1000, 100000, 1000000}

func expDelay(r *rand.Rand) Time { return Time(r.ExpFloat64() * float64(time.Second)) }

func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "events/s")
	}
}

// holdHandler reschedules every event it receives, so each op is one full
// Engine cycle: pop, dispatch through the Handler interface, After.
type holdHandler struct {
	e    *Engine
	rng  *rand.Rand
	left int
}

func (h *holdHandler) HandleEvent(ev Event) {
	if h.left--; h.left == 0 {
		h.e.Stop()
	}
	h.e.After(expDelay(h.rng), ev)
}

func BenchmarkHold(b *testing.B) {
	for _, n := range holdSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			e := New(1)
			h := &holdHandler{e: e, rng: rand.New(rand.NewPCG(1, 2))}
			id := e.Register(h)
			for i := 0; i < n; i++ {
				e.After(expDelay(h.rng), Event{Handler: id, Obj: int32(i)})
			}
			h.left = b.N
			b.ReportAllocs()
			b.ResetTimer()
			e.Run(MaxTime)
			b.StopTimer()
			if e.Events() != uint64(b.N) || e.Len() != n {
				b.Fatalf("events=%d len=%d, want %d, %d", e.Events(), e.Len(), b.N, n)
			}
			reportRate(b)
		})
	}
}

// pqItem and pq are the container/heap priority-queue example from the
// standard library documentation, ordered by (At, seq) like the engine:
// the baseline allocates one *pqItem per event.
type pqItem struct {
	ev    Event
	seq   uint64
	index int
}

type pq []*pqItem

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	return q[i].ev.At < q[j].ev.At || (q[i].ev.At == q[j].ev.At && q[i].seq < q[j].seq)
}
func (q pq) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *pq) Push(x any) {
	it := x.(*pqItem)
	it.index = len(*q)
	*q = append(*q, it)
}
func (q *pq) Pop() any {
	old := *q
	n := len(old)
	it := old[n-1]
	old[n-1] = nil
	it.index = -1
	*q = old[:n-1]
	return it
}

// BenchmarkHoldContainerHeap is the baseline: the same hold model on
// container/heap, without handler dispatch (which only flatters it).
func BenchmarkHoldContainerHeap(b *testing.B) {
	for _, n := range holdSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			q := make(pq, 0, n)
			var seq uint64
			for i := 0; i < n; i++ {
				heap.Push(&q, &pqItem{ev: Event{At: expDelay(rng), Obj: int32(i)}, seq: seq})
				seq++
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it := heap.Pop(&q).(*pqItem)
				ev := it.ev
				ev.At += expDelay(rng)
				heap.Push(&q, &pqItem{ev: ev, seq: seq})
				seq++
			}
			b.StopTimer()
			reportRate(b)
		})
	}
}

// cancelHandler is the hold model plus timeouts: on 3 of every 7 events it
// also schedules a "timeout" and cancels the one scheduled ring-size
// timeouts ago, so 3 of every 10 pushed events are cancelled before they
// fire. Timeouts are placed 1 s beyond the hold horizon, so they sit inside
// the heap (not at the top) and the ring is short enough (n/100) that every
// one is cancelled in time.
type cancelHandler struct {
	e         *Engine
	rng       *rand.Rand
	left      int
	tick      int
	ring      []Timer
	ri        int
	doomed    int // timeouts pushed while timing
	cancelled int
	missed    int
}

const kindTimeout = 1

func (h *cancelHandler) HandleEvent(ev Event) {
	if ev.Kind == kindTimeout {
		h.missed++
		return
	}
	if h.left--; h.left == 0 {
		h.e.Stop()
	}
	h.e.After(expDelay(h.rng), ev)
	if h.tick++; h.tick == 7 {
		h.tick = 0
	}
	if h.tick < 3 {
		if h.e.Cancel(h.ring[h.ri]) {
			h.cancelled++
		}
		h.doomed++
		to := ev
		to.Kind = kindTimeout
		h.ring[h.ri] = h.e.After(time.Second+expDelay(h.rng), to)
		if h.ri++; h.ri == len(h.ring) {
			h.ri = 0
		}
	}
}

func BenchmarkCancel(b *testing.B) {
	for _, n := range holdSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			e := New(1)
			h := &cancelHandler{e: e, rng: rand.New(rand.NewPCG(1, 2)), ring: make([]Timer, max(n/100, 8))}
			id := e.Register(h)
			for i := 0; i < n; i++ {
				e.After(expDelay(h.rng), Event{Handler: id, Obj: int32(i)})
			}
			// Arm the ring up front so the queue is at its steady-state
			// size (n + ring) before timing starts.
			for i := range h.ring {
				h.ring[i] = e.After(time.Second+expDelay(h.rng), Event{Handler: id, Kind: kindTimeout})
			}
			h.left = b.N
			b.ReportAllocs()
			b.ResetTimer()
			e.Run(MaxTime)
			b.StopTimer()
			if h.missed != 0 {
				b.Fatalf("%d timeouts fired before being cancelled", h.missed)
			}
			reportRate(b)
			if pushed := b.N + h.doomed; pushed > 0 {
				b.ReportMetric(100*float64(h.cancelled)/float64(pushed), "%cancelled")
			}
		})
	}
}
