package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Handler receives the events addressed to its [HandlerID].
type Handler interface{ HandleEvent(ev Event) }

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ev Event)

// HandleEvent calls f(ev).
func (f HandlerFunc) HandleEvent(ev Event) { f(ev) }

// Engine owns virtual time: it holds the event queue, dispatches events to
// registered handlers in (At, insertion sequence) order and hands out the
// named random streams. Create one with [New].
type Engine struct {
	q        Queue
	now      Time
	events   uint64
	handlers []Handler // index 0 is reserved: the zero HandlerID is invalid
	stopped  bool
	running  bool

	progEvery uint64
	progNext  uint64 // events count at which progFn is next due; MaxUint64 = off
	progFn    func(now Time, events uint64)

	seed    uint64
	streams map[string]*rand.Rand

	// Checks (EnableChecks): every popped key must belong to a live slot,
	// and an observer is called after every event.
	checks   bool
	observer func(ev Event)
}

// New returns an engine at time 0 whose random streams derive from seed.
func New(seed uint64) *Engine {
	return &Engine{
		handlers: make([]Handler, 1, 16),
		progNext: math.MaxUint64,
		seed:     seed,
		streams:  make(map[string]*rand.Rand),
	}
}

// Register adds h and returns the ID to put in [Event.Handler]. IDs are
// assigned 1, 2, ... in registration order, so they are deterministic.
func (e *Engine) Register(h Handler) HandlerID {
	if h == nil {
		panic("engine: Register(nil)")
	}
	if len(e.handlers) > math.MaxUint16 {
		panic("engine: more than 65535 handlers")
	}
	e.handlers = append(e.handlers, h)
	return HandlerID(len(e.handlers) - 1)
}

// HandlerName names a registered handler by its Go type (for crash
// reports and check failures); "" for an unknown ID.
func (e *Engine) HandlerName(id HandlerID) string {
	if id == 0 || int(id) >= len(e.handlers) {
		return ""
	}
	return fmt.Sprintf("%T", e.handlers[id])
}

// Now returns the current virtual time: the At of the event being (or last)
// dispatched, or the until of a Run that stopped because of it.
func (e *Engine) Now() Time { return e.now }

// Seed returns the root seed given to [New].
func (e *Engine) Seed() uint64 { return e.seed }

// Events returns the number of events dispatched so far.
func (e *Engine) Events() uint64 { return e.events }

// Len returns the number of live (scheduled, not yet fired, not cancelled)
// events.
func (e *Engine) Len() int { return e.q.Len() }

// NextAt returns the time of the earliest pending event; false when none.
func (e *Engine) NextAt() (Time, bool) {
	if len(e.q.heap) <= root {
		return 0, false
	}
	return e.q.heap[root].at, true
}

// Schedule queues ev for time at and returns a Timer that can cancel it.
// ev.At is overwritten with at. Scheduling in the past, or for a HandlerID
// that was not registered, is a model bug and panics.
func (e *Engine) Schedule(at Time, ev Event) Timer {
	if at < e.now {
		e.panicPast(at, ev)
	}
	if ev.Handler == 0 || int(ev.Handler) >= len(e.handlers) {
		e.panicHandler(ev)
	}
	ev.At = at
	return e.q.Push(ev)
}

// After is Schedule(Now()+d, ev). A negative d panics, as does a d that
// would overflow MaxTime.
func (e *Engine) After(d time.Duration, ev Event) Timer {
	at := e.now + d
	if d < 0 || at < e.now {
		e.panicAfter(d, ev)
	}
	// Schedule's checks, repeated rather than called: After is the hot path
	// of most handlers.
	if ev.Handler == 0 || int(ev.Handler) >= len(e.handlers) {
		e.panicHandler(ev)
	}
	ev.At = at
	return e.q.Push(ev)
}

// Cancel removes t's event. It returns true if the event was pending;
// cancelling twice, or cancelling a timer that fired, returns false.
func (e *Engine) Cancel(t Timer) bool { return e.q.Cancel(t) }

// EnableChecks turns on the engine's own invariant checks and calls
// observe (if not nil) after every dispatched event: time never goes
// backwards, and no cancelled timer ever fires (every key popped must
// belong to a live slot: a cancelled or fired timer's slot is released).
// A failed check panics with the event; sim --check turns that into an
// error with the time and the seed.
func (e *Engine) EnableChecks(observe func(ev Event)) {
	e.checks = true
	e.observer = observe
}

// Pending reports whether t's event is scheduled and has not fired or been
// cancelled.
func (e *Engine) Pending(t Timer) bool { return e.q.Pending(t) }

// Run dispatches events in (At, insertion sequence) order until the next
// event is after until, the queue is empty, or a handler calls Stop. Events
// at exactly until are dispatched. Unless stopped, simulated time then
// advances to until, whether events remain or not: a run lasts the time it
// was asked to, even if nothing happens at its end (a node keeps costing
// money while the cluster is idle). Run(MaxTime) is the exception: with an
// empty queue Now() stays at the last event. Time never moves backwards: an
// until earlier than Now() leaves Now() alone. Run must not be called from a
// handler.
func (e *Engine) Run(until Time) {
	if e.running {
		panic("engine: Run called from inside a handler")
	}
	e.running = true
	e.stopped = false
	defer e.endRun()
	q := &e.q
	for !e.stopped {
		// Queue.Pop, inlined: this loop is the simulator's hot path.
		h := q.heap
		n := len(h) - 1
		if n < root || h[root].at > until {
			if until > e.now && until != MaxTime {
				e.now = until
			}
			return
		}
		top := h[root]
		ev := q.event(top)
		if e.checks && q.slots[top.slot].pos != root {
			panic(fmt.Sprintf("engine: a cancelled or fired timer fired again (handler=%d kind=%d obj=%d at %v)", ev.Handler, ev.Kind, ev.Obj, ev.At))
		}
		q.release(top.slot)
		q.heap = h[:n]
		if n > root {
			q.down(root, h[n])
		}
		if ev.At < e.now {
			panic(fmt.Sprintf("engine: time went backwards: %v after %v", ev.At, e.now))
		}
		e.now = ev.At
		e.events++
		e.handlers[ev.Handler].HandleEvent(ev)
		if e.observer != nil {
			e.observer(ev)
		}
		if e.events == e.progNext {
			e.progNext += e.progEvery
			e.progFn(e.now, e.events)
		}
	}
}

func (e *Engine) endRun() { e.running = false }

// Stop makes Run return after the event being dispatched. It is meant to be
// called from a handler (or a progress callback); it does not carry over to
// the next Run.
func (e *Engine) Stop() { e.stopped = true }

// SetProgress arranges for fn to be called after every `every` dispatched
// events, i.e. whenever Events() reaches a multiple of every. every == 0 or
// fn == nil turns it off. fn may call Stop.
func (e *Engine) SetProgress(every uint64, fn func(now Time, events uint64)) {
	if every == 0 || fn == nil {
		e.progEvery, e.progNext, e.progFn = 0, math.MaxUint64, nil
		return
	}
	e.progEvery, e.progFn = every, fn
	e.progNext = (e.events/every + 1) * every
}

// The panic helpers are kept out of line so the hot paths stay small.
func (e *Engine) panicPast(at Time, ev Event) {
	panic(fmt.Sprintf("engine: event scheduled in the past: at=%v < now=%v (handler=%d kind=%d obj=%d arg=%d); this is a model bug",
		at, e.now, ev.Handler, ev.Kind, ev.Obj, ev.Arg))
}

func (e *Engine) panicAfter(d time.Duration, ev Event) {
	panic(fmt.Sprintf("engine: After(%v) at now=%v: delay is negative or overflows virtual time (handler=%d kind=%d obj=%d arg=%d); this is a model bug",
		d, e.now, ev.Handler, ev.Kind, ev.Obj, ev.Arg))
}

func (e *Engine) panicHandler(ev Event) {
	panic(fmt.Sprintf("engine: event for unregistered handler %d (kind=%d obj=%d arg=%d); %d handlers registered, IDs start at 1",
		ev.Handler, ev.Kind, ev.Obj, ev.Arg, len(e.handlers)-1))
}
