package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recorder logs every event it receives together with the engine time.
type recorder struct {
	e   *Engine
	log []Event
	on  func(ev Event)
}

func (r *recorder) HandleEvent(ev Event) {
	if r.e.Now() != ev.At {
		panic("Now() differs from the event's At during dispatch")
	}
	r.log = append(r.log, ev)
	if r.on != nil {
		r.on(ev)
	}
}

func newRec(e *Engine) (*recorder, HandlerID) {
	r := &recorder{e: e}
	return r, e.Register(r)
}

func args(evs []Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Arg
	}
	return out
}

func TestRegisterIDs(t *testing.T) {
	e := New(1)
	_, a := newRec(e)
	_, b := newRec(e)
	require.Equal(t, HandlerID(1), a, "IDs start at 1; 0 is reserved as invalid")
	require.Equal(t, HandlerID(2), b)
	require.Panics(t, func() { e.Register(nil) })
}

func TestDispatchByHandlerID(t *testing.T) {
	e := New(1)
	ra, a := newRec(e)
	rb, b := newRec(e)
	e.Schedule(5, Event{Handler: b, Arg: 1})
	e.Schedule(3, Event{Handler: a, Arg: 2})
	e.Schedule(5, Event{Handler: a, Arg: 3})
	e.Schedule(4, Event{Handler: b, Arg: 4, Kind: 9, Obj: -3})
	e.Run(MaxTime)
	require.Equal(t, []int64{2, 3}, args(ra.log))
	require.Equal(t, []int64{4, 1}, args(rb.log))
	require.Equal(t, Event{At: 4, Handler: b, Kind: 9, Obj: -3, Arg: 4}, rb.log[0], "payload delivered intact, At set by the engine")
	require.Equal(t, uint64(4), e.Events())
	require.Equal(t, Time(5), e.Now())
}

func TestScheduleInvalidHandlerPanics(t *testing.T) {
	e := New(1)
	_, a := newRec(e)
	require.PanicsWithValue(t,
		"engine: event for unregistered handler 0 (kind=0 obj=0 arg=0); 1 handlers registered, IDs start at 1",
		func() { e.Schedule(1, Event{}) })
	require.Panics(t, func() { e.Schedule(1, Event{Handler: a + 1}) })
	require.Equal(t, 0, e.Len())
}

func TestScheduleInThePastPanics(t *testing.T) {
	e := New(1)
	_, a := newRec(e)
	e.Schedule(10*time.Second, Event{Handler: a})
	e.Run(MaxTime)
	require.Equal(t, 10*time.Second, e.Now())
	require.PanicsWithValue(t,
		"engine: event scheduled in the past: at=9s < now=10s (handler=1 kind=2 obj=3 arg=4); this is a model bug",
		func() { e.Schedule(9*time.Second, Event{Handler: a, Kind: 2, Obj: 3, Arg: 4}) })
	require.Panics(t, func() { e.After(-1, Event{Handler: a}) }, "negative delay")
	require.Panics(t, func() { e.After(math.MaxInt64, Event{Handler: a}) }, "overflowing delay")
	// Exactly now is fine.
	e.Schedule(e.Now(), Event{Handler: a})
	e.After(0, Event{Handler: a})
	require.Equal(t, 2, e.Len())
}

func TestRunUntil(t *testing.T) {
	e := New(1)
	r, a := newRec(e)
	for _, at := range []Time{10, 20, 20, 30} {
		e.Schedule(at, Event{Handler: a, Arg: int64(at)})
	}

	e.Run(20)
	require.Equal(t, []int64{10, 20, 20}, args(r.log), "events exactly at until are processed")
	require.Equal(t, Time(20), e.Now())
	require.Equal(t, 1, e.Len())

	e.Run(25)
	require.Len(t, r.log, 3)
	require.Equal(t, Time(25), e.Now(), "stopping because of until advances Now to until")

	e.Run(5)
	require.Equal(t, Time(25), e.Now(), "an until in the past does not move time backwards")
	require.Len(t, r.log, 3)

	e.Run(100)
	require.Equal(t, []int64{10, 20, 20, 30}, args(r.log))
	require.Equal(t, Time(100), e.Now(), "time runs on to until after the queue empties")
	require.Equal(t, 0, e.Len())

	e.Run(MaxTime)
	require.Equal(t, Time(100), e.Now(), "Run(MaxTime) on an empty queue leaves time alone")
	_, ok := e.NextAt()
	require.False(t, ok)
}

func TestRunEmptyAtStart(t *testing.T) {
	e := New(1)
	e.Run(MaxTime)
	require.Equal(t, Time(0), e.Now())
	e.Run(50)
	require.Equal(t, Time(50), e.Now(), "an idle run still lasts until")
	require.Equal(t, uint64(0), e.Events())
}

func TestStop(t *testing.T) {
	e := New(1)
	r, a := newRec(e)
	for i := range 10 {
		e.Schedule(Time(i), Event{Handler: a, Arg: int64(i)})
	}
	r.on = func(ev Event) {
		if ev.Arg == 3 {
			e.Stop()
			// Work scheduled by the stopping event is kept for later.
			e.After(0, Event{Handler: a, Arg: 100})
		}
	}
	e.Run(MaxTime)
	require.Equal(t, []int64{0, 1, 2, 3}, args(r.log), "Run returns right after the event that called Stop")
	require.Equal(t, Time(3), e.Now(), "Stop does not advance time to until")
	require.Equal(t, 7, e.Len())

	// Stop does not carry over into the next Run.
	e.Run(5)
	require.Equal(t, []int64{0, 1, 2, 3, 100, 4, 5}, args(r.log))
	require.Equal(t, Time(5), e.Now())

	// Stop outside Run has no effect on the next Run.
	e.Stop()
	e.Run(MaxTime)
	require.Len(t, r.log, 11)
}

func TestSameTimeFIFOFromHandler(t *testing.T) {
	e := New(1)
	r, a := newRec(e)
	e.Schedule(5, Event{Handler: a, Arg: 1})
	e.Schedule(5, Event{Handler: a, Arg: 2})
	e.Schedule(6, Event{Handler: a, Arg: 3})
	r.on = func(ev Event) {
		switch ev.Arg {
		case 1:
			// Scheduled at the current time: after the current event and
			// after everything already queued for now.
			e.After(0, Event{Handler: a, Arg: 10})
			e.Schedule(e.Now(), Event{Handler: a, Arg: 11})
		case 10:
			e.After(0, Event{Handler: a, Arg: 20})
		}
	}
	e.Run(MaxTime)
	require.Equal(t, []int64{1, 2, 10, 11, 20, 3}, args(r.log))
}

func TestCancelFromHandler(t *testing.T) {
	e := New(1)
	r, a := newRec(e)
	var timeout Timer
	r.on = func(ev Event) {
		switch ev.Kind {
		case 1: // work completes: cancel the timeout
			require.True(t, e.Pending(timeout))
			require.True(t, e.Cancel(timeout))
			require.False(t, e.Cancel(timeout), "cancelling twice is a no-op")
			require.False(t, e.Pending(timeout))
		case 2:
			t.Fatal("cancelled timeout fired")
		}
	}
	timeout = e.After(time.Minute, Event{Handler: a, Kind: 2})
	self := e.After(time.Second, Event{Handler: a, Kind: 1})
	require.Equal(t, 2, e.Len())
	e.Run(MaxTime)
	require.Len(t, r.log, 1)
	require.Equal(t, time.Second, e.Now())
	require.False(t, e.Pending(self), "a fired timer is not pending")
	require.False(t, e.Cancel(self), "cancelling a fired timer is a no-op")
	require.False(t, e.Pending(Timer{}))
	require.False(t, e.Cancel(Timer{}))
	require.Equal(t, 0, e.Len())
}

func TestCancelSameTimeEventFromHandler(t *testing.T) {
	e := New(1)
	r, a := newRec(e)
	var later Timer
	r.on = func(ev Event) {
		if ev.Arg == 1 {
			require.True(t, e.Cancel(later))
		}
	}
	e.Schedule(5, Event{Handler: a, Arg: 1})
	later = e.Schedule(5, Event{Handler: a, Arg: 2})
	e.Schedule(5, Event{Handler: a, Arg: 3})
	e.Run(MaxTime)
	require.Equal(t, []int64{1, 3}, args(r.log))
}

func TestProgress(t *testing.T) {
	e := New(1)
	_, a := newRec(e)
	for i := range 10 {
		e.Schedule(Time(i*10), Event{Handler: a})
	}
	type call struct {
		now    Time
		events uint64
	}
	var calls []call
	e.SetProgress(3, func(now Time, events uint64) { calls = append(calls, call{now, events}) })
	e.Run(MaxTime)
	require.Equal(t, []call{{20, 3}, {50, 6}, {80, 9}}, calls)

	// Off, then on again mid-run: due at the next multiple of every.
	calls = nil
	e.SetProgress(0, nil)
	for i := range 10 {
		e.After(Time(i), Event{Handler: a})
	}
	e.Run(95) // dispatches 90..95: Events() = 16
	require.Empty(t, calls)
	e.SetProgress(3, func(now Time, events uint64) {
		calls = append(calls, call{now, events})
		e.Stop()
	})
	e.Run(MaxTime)
	require.Equal(t, []call{{97, 18}}, calls, "due at the next multiple of every; the callback may call Stop")
	require.Equal(t, uint64(18), e.Events())
	require.Equal(t, 2, e.Len())
}

func TestRunReentrantPanics(t *testing.T) {
	e := New(1)
	r, a := newRec(e)
	r.on = func(Event) { e.Run(MaxTime) }
	e.Schedule(1, Event{Handler: a})
	require.PanicsWithValue(t, "engine: Run called from inside a handler", func() { e.Run(MaxTime) })
	// The engine is usable again after the panic unwound Run.
	r.on = nil
	e.Schedule(2, Event{Handler: a})
	e.Run(MaxTime)
	require.Len(t, r.log, 2)
}

// TestEngineDeterministic runs a randomized model (handlers that schedule,
// often at the current time, and cancel) twice from the same seed and
// requires identical traces.
func TestEngineDeterministic(t *testing.T) {
	trace := func(seed uint64) []Event {
		e := New(seed)
		var out []Event
		var timers []Timer
		var id HandlerID
		h := HandlerFunc(func(ev Event) {
			out = append(out, ev)
			r := e.Stream("model")
			for range r.IntN(3) {
				timers = append(timers, e.After(Time(r.IntN(4)), Event{Handler: id, Arg: r.Int64()}))
			}
			if len(timers) > 0 && r.IntN(3) == 0 {
				e.Cancel(timers[r.IntN(len(timers))])
			}
		})
		id = e.Register(h)
		for range 5 {
			e.After(0, Event{Handler: id})
		}
		e.SetProgress(1000, func(Time, uint64) {})
		e.Run(2000)
		return out
	}
	a, b := trace(3), trace(3)
	require.Greater(t, len(a), 100)
	require.Equal(t, a, b, "same seed, same run")
	require.NotEqual(t, a, trace(4))
}

func TestEngineZeroAllocs(t *testing.T) {
	e := New(1)
	rng := e.Stream("hold")
	var id HandlerID
	var timeouts [64]Timer
	k := 0
	id = e.Register(HandlerFunc(func(ev Event) {
		e.After(Time(rng.IntN(1000)), ev)
		// A timeout per event, cancelled 64 events later.
		e.Cancel(timeouts[k])
		timeouts[k] = e.After(time.Hour, Event{Handler: id, Kind: 1})
		k = (k + 1) % len(timeouts)
	}))
	for range 1000 {
		e.After(Time(rng.IntN(1000)), Event{Handler: id})
	}
	e.SetProgress(100, func(Time, uint64) {})
	e.Run(e.Now() + 100000) // reach steady-state sizes
	allocs := testing.AllocsPerRun(5, func() {
		e.Run(e.Now() + 100000)
	})
	require.Zero(t, allocs, "Schedule + dispatch + Cancel must not allocate")
	require.Equal(t, 1000+len(timeouts), e.Len())
}

func TestStreams(t *testing.T) {
	draw := func(r *rand.Rand) []uint64 {
		out := make([]uint64, 8)
		for i := range out {
			out[i] = r.Uint64()
		}
		return out
	}
	e1 := New(42)
	a1 := draw(e1.Stream("arrivals"))

	// Creating and using other streams first, in another order, does not
	// change "arrivals".
	e2 := New(42)
	draw(e2.Stream("zzz"))
	draw(e2.Stream("failures"))
	a2 := draw(e2.Stream("arrivals"))
	require.Equal(t, a1, a2)

	// Creating and drawing from other streams in between draws does not
	// change it either.
	e3 := New(42)
	a := e3.Stream("arrivals")
	inter := []uint64{a.Uint64(), a.Uint64(), a.Uint64()}
	draw(e3.Stream("new-model"))
	e3.Stream("another").Float64()
	for range 5 {
		inter = append(inter, a.Uint64())
	}
	require.Equal(t, a1, inter)

	// The same name returns the same *rand.Rand, which continues.
	require.Same(t, e1.Stream("arrivals"), e1.Stream("arrivals"))
	require.NotEqual(t, a1, draw(e1.Stream("arrivals")))

	// Different names and different seeds differ.
	require.NotEqual(t, a1, draw(New(42).Stream("arrival")))
	require.NotEqual(t, a1, draw(New(43).Stream("arrivals")))
	require.NotEqual(t, draw(New(0).Stream("")), draw(New(1).Stream("")))

	// NewStream is the same stream outside an engine.
	require.Equal(t, a1, draw(NewStream(42, "arrivals")))
	require.Equal(t, uint64(42), e1.Seed())
}

// TestDeriveSeedFrozen pins the derivation: changing it would silently
// change every simulation result.
func TestDeriveSeedFrozen(t *testing.T) {
	require.Equal(t, uint64(0xe220a8397b1dcdaf), SplitMix64(0), "SplitMix64 reference value")
	require.Equal(t, SplitMix64(SplitMix64(1)^14695981039346656037), DeriveSeed(1, ""))
	// FNV-1a("a") = 0xaf63dc4c8601ec8c.
	require.Equal(t, SplitMix64(SplitMix64(7)^0xaf63dc4c8601ec8c), DeriveSeed(7, "a"))
	seen := map[uint64]bool{}
	for root := range uint64(100) {
		for _, name := range []string{"", "a", "b", "ab", "ba", "run/1", "run/2"} {
			s := DeriveSeed(root, name)
			require.False(t, seen[s], "collision at %d %q", root, name)
			seen[s] = true
		}
	}
	r := NewStream(1, "golden")
	require.Equal(t, goldenFirst, r.Uint64(), "stream derivation changed")
}

const goldenFirst uint64 = 0xec800a4bf4cd4a33

func TestChecksCatchAStaleEvent(t *testing.T) {
	e := New(1)
	_, a := newRec(e)
	observed := 0
	e.EnableChecks(func(Event) { observed++ })
	e.Schedule(5, Event{Handler: a})
	e.Run(10)
	require.Equal(t, 1, observed, "the observer sees every event")

	// Corrupt the queue as a bug would: a cancelled event's key stays.
	tm := e.Schedule(20, Event{Handler: a, Kind: 7})
	stale := e.q.heap[root]
	require.True(t, e.Cancel(tm))
	e.q.heap = append(e.q.heap, stale)
	require.PanicsWithValue(t, "engine: a cancelled or fired timer fired again (handler=1 kind=7 obj=0 at 20ns)", func() { e.Run(30) })
}
