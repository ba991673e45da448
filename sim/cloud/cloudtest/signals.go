package cloudtest

import (
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/engine"
)

// NoticeLead is the time from an interruption notice to the reclaim, the
// market's default.
const NoticeLead = 2 * time.Minute

// Subscribe adds s; every signal goes to every subscriber in the order
// they subscribed.
func (c *Cloud) Subscribe(s cloud.Subscriber) { c.subs = append(c.subs, s) }

// Signal sends kind about instance id from an engine event at Now(): it
// reaches subscribers when the engine next runs, after the events already
// queued for now, as a signal of the market would. An InterruptionNotice
// carries the deadline Now()+NoticeLead but nothing happens at it (see
// [Cloud.Interrupt]); a Terminated signal ends the instance first.
// Signals about an instance that has ended by then are dropped: the
// market never speaks of an ended instance.
func (c *Cloud) Signal(kind cloud.SignalKind, id cloud.InstanceID) { c.SignalAt(c.eng.Now(), kind, id) }

// SignalAt is Signal at time at (not before Now()).
func (c *Cloud) SignalAt(at engine.Time, kind cloud.SignalKind, id cloud.InstanceID) {
	c.eng.Schedule(at, engine.Event{Handler: c.id, Kind: uint16(kind), Obj: int32(id)})
}

// Reclaim is Signal(cloud.Terminated, id): EC2 takes the instance back
// without notice.
func (c *Cloud) Reclaim(id cloud.InstanceID) { c.Signal(cloud.Terminated, id) }

// Interrupt does what the market does to a spot instance it reclaims: an
// InterruptionNotice now and, unless the owner terminates the instance
// first, a Terminated signal NoticeLead later.
func (c *Cloud) Interrupt(id cloud.InstanceID) {
	c.Signal(cloud.InterruptionNotice, id)
	c.SignalAt(c.eng.Now()+NoticeLead, cloud.Terminated, id)
}

// deliver is the engine handler of scheduled signals.
func (c *Cloud) deliver(ev engine.Event) {
	in := c.live(cloud.InstanceID(ev.Obj))
	if in == nil {
		return
	}
	s := cloud.Signal{Kind: cloud.SignalKind(ev.Kind), Instance: in.ID, Offering: in.Offering, At: ev.At}
	switch s.Kind {
	case cloud.InterruptionNotice:
		s.Deadline = ev.At + NoticeLead
	case cloud.Terminated:
		in.Ended = true
	}
	c.delivering = true
	defer func() { c.delivering = false }()
	for _, sub := range c.subs {
		sub.OnSignal(s)
	}
}
