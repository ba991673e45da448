// Package engine is the discrete-event core of the simulator: the virtual
// clock, the event queue, handler dispatch and the named random streams.
// Nothing else in the project owns time; every model advances only by
// scheduling events here.
//
// # Units
//
// [Time] is virtual time since scenario start, a [time.Duration] in
// nanoseconds. It is never read from the wall clock, so a run does not
// depend on how fast the host is.
//
// # Ordering
//
// Events are totally ordered by (At, insertion sequence): of two events at
// the same virtual time the one scheduled first is dispatched first. The
// order therefore never depends on heap layout, queue size or the history of
// cancellations, which is what makes runs reproducible and lets a handler
// schedule a follow-up "now" and know it runs after everything already
// queued for now (FIFO at equal times).
//
// # Cost
//
// The queue is an indexed 4-ary min-heap of 16-byte (At, seq, slot) keys
// over a slot table that holds each event's payload, its heap position and
// a generation counter; freed slots go on a free list. With n live events:
//
//	Push, Schedule, After    O(log n) worst, O(1) expected for a random key
//	Pop, one dispatch in Run O(log n)
//	Cancel                   O(log n)
//	Peek, Pending, Len, Now  O(1)
//
// Memory is 40 bytes per pending event at the run's peak (16 in the heap,
// 24 in the slot table); neither shrinks, which is what makes reuse free.
//
// Why this shape (see bench_test.go for the measurements): a pop's cost is
// the sift-down from the root, i.e. log_d(n) levels of unpredictable
// compares and dependent loads. Four 16-byte keys fill one cache line, and
// the heap is laid out so sibling groups are line-aligned, so a level costs
// one line. The cache-resident upper levels pick the smallest child without
// branches (mispredictions dominate there); the lower, memory-bound levels
// keep branches, which let the CPU run ahead, and touch the grandchildren's
// lines early. Keeping the payload out of the heap halves the bytes moved
// per level; it is read once, at pop, and does not repeat At, so the whole
// queue stays as far inside the cache as it can.
//
// # Zero allocation
//
// Events and timers are values and the heap and slot table are slices that
// only grow, so once they have reached the run's peak size, Schedule,
// Cancel and dispatch allocate nothing (tested with testing.AllocsPerRun).
// A long run therefore creates no garbage in the core loop.
//
// # Cancellation
//
// A [Timer] is a slot index plus the slot's generation at scheduling time.
// The generation is bumped whenever the slot is released (fired or
// cancelled), so a stale Timer is detected in O(1) and cancelling twice, or
// cancelling a timer that already fired, is a harmless no-op. Cancelled
// events are removed from the heap at once (no tombstones), so [Engine.Len]
// is exact and memory does not grow with cancelled timeouts.
//
// # Determinism
//
// Given the same seed and the same sequence of calls, a run is bit-for-bit
// identical: there are no goroutines, no wall clock, no map iteration on the
// event path and no use of the global math/rand source. Randomness comes
// from [Engine.Stream]: each named stream is seeded from (root seed, name)
// only, via [DeriveSeed], so adding a new stream or drawing from one never
// shifts the sequence of another.
//
// The engine is not safe for concurrent use; run independent replications
// in separate Engines instead.
package engine
