package cloudtest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// DefaultReadyAfter is the launch-to-Ready time of a new [Cloud].
const DefaultReadyAfter = time.Minute

// Cloud is the fake EC2. Create it with [New]; the zero value is not
// usable. Like the market it is driven by one engine and is not safe for
// concurrent use.
type Cloud struct {
	// ReadyAfter is the time from launch to Ready of every instance, and
	// ReadyAfterFor overrides it per capacity type. Tests may change both
	// between launches.
	ReadyAfter    time.Duration
	ReadyAfterFor map[cluster.CapacityType]time.Duration

	eng    *engine.Engine
	id     engine.HandlerID
	prices Prices
	// priceOf overrides prices per offering (SetPrice).
	priceOf map[cloud.Offering]float64
	// exhausted are the patterns of Exhaust, in the order given.
	exhausted []cloud.Offering
	// failures are the errors the next launches return, first one first.
	failures []error

	instances  []Instance // instances[id-1]; IDs are never reused
	launches   []Launch
	terminated []cloud.InstanceID
	subs       []cloud.Subscriber
	// delivering is set while subscribers run, to catch the calls the
	// Subscriber contract forbids.
	delivering bool
}

// Launch is one recorded call to [Cloud.Launch].
type Launch struct {
	At      engine.Time
	Request cloud.LaunchRequest
	Result  cloud.LaunchResult
	Err     error // nil when an instance was launched
}

// Instance is one instance the fake launched.
type Instance struct {
	ID         cloud.InstanceID
	Offering   cloud.Offering
	LaunchedAt engine.Time
	// Ended is set by Terminate or by a delivered Terminated signal.
	Ended bool
}

// New returns a fake cloud on eng that sells at prices.
func New(eng *engine.Engine, prices Prices) *Cloud {
	c := &Cloud{ReadyAfter: DefaultReadyAfter, eng: eng, prices: prices, priceOf: map[cloud.Offering]float64{}}
	c.id = eng.Register(engine.HandlerFunc(c.deliver))
	return c
}

// SetPrice sells o at usdPerHour, whatever the price source says.
func (c *Cloud) SetPrice(o cloud.Offering, usdPerHour float64) { c.priceOf[o] = usdPerHour }

// SetPrices replaces the price source; SetPrice overrides stay.
func (c *Cloud) SetPrices(p Prices) { c.prices = p }

// Price returns o's price in USD per hour; ok is false when o is not sold.
func (c *Cloud) Price(o cloud.Offering) (usdPerHour float64, ok bool) {
	if p, ok := c.priceOf[o]; ok {
		return p, true
	}
	return c.prices(o)
}

// Exhaust makes the offerings that match pattern fail every launch with
// InsufficientInstanceCapacity until [Cloud.Restore]. An empty
// InstanceType or Zone in pattern matches every type or zone; the capacity
// type must match.
func (c *Cloud) Exhaust(pattern cloud.Offering) { c.exhausted = append(c.exhausted, pattern) }

// Restore undoes every Exhaust of pattern (the same pattern, not the
// offerings it matches: restoring one zone of an exhausted type does not
// punch a hole in it).
func (c *Cloud) Restore(pattern cloud.Offering) {
	c.exhausted = slices.DeleteFunc(c.exhausted, func(p cloud.Offering) bool { return p == pattern })
}

// RestoreAll undoes every Exhaust.
func (c *Cloud) RestoreAll() { c.exhausted = nil }

func (c *Cloud) isExhausted(o cloud.Offering) bool {
	return slices.ContainsFunc(c.exhausted, func(p cloud.Offering) bool {
		return p.CapacityType == o.CapacityType && (p.InstanceType == "" || p.InstanceType == o.InstanceType) && (p.Zone == "" || p.Zone == o.Zone)
	})
}

// Available reports whether o is sold and not exhausted, as the market's
// Available does.
func (c *Cloud) Available(o cloud.Offering) bool {
	_, sold := c.Price(o)
	return sold && !c.isExhausted(o)
}

// FailNext makes the next n launches return err (wrapped) without trying
// any offering, after the failures already queued.
func (c *Cloud) FailNext(n int, err error) {
	for range n {
		c.failures = append(c.failures, err)
	}
}

// Launch launches one instance in the first offering, in strategy order,
// that is sold and not exhausted; see the package doc. It panics when
// called from a subscriber's OnSignal, as the market does.
func (c *Cloud) Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error) {
	if c.delivering {
		panic("cloudtest: Launch called from a Subscriber's OnSignal; schedule an engine event and launch from there")
	}
	res, err := c.launch(req)
	c.launches = append(c.launches, Launch{At: c.eng.Now(), Request: req, Result: res, Err: err})
	return res, err
}

func (c *Cloud) launch(req cloud.LaunchRequest) (cloud.LaunchResult, error) {
	if len(c.failures) > 0 {
		err := c.failures[0]
		c.failures = c.failures[1:]
		return cloud.LaunchResult{}, fmt.Errorf("cloudtest: failed on request: %w", err)
	}
	var res cloud.LaunchResult
	for _, o := range c.order(req) {
		price, sold := c.Price(o)
		switch {
		case !sold:
			res.Errors = append(res.Errors, cloud.OfferingError{Offering: o, Code: cloud.CodeUnsupported})
		case c.isExhausted(o):
			res.Errors = append(res.Errors, cloud.OfferingError{Offering: o, Code: cloud.CodeInsufficientCapacity})
		default:
			id := cloud.InstanceID(len(c.instances) + 1)
			c.instances = append(c.instances, Instance{ID: id, Offering: o, LaunchedAt: c.eng.Now()})
			res.Instance, res.Offering, res.PriceUSDPerHour = id, o, price
			res.ReadyAfter = c.ReadyAfter
			if d, ok := c.ReadyAfterFor[o.CapacityType]; ok {
				res.ReadyAfter = d
			}
			return res, nil
		}
	}
	return res, fmt.Errorf("cloudtest: %w", cloud.ErrInsufficientCapacity)
}

// order returns the offerings in the order a launch tries them: the two
// price strategies cheapest first (unsold last, ties in request order),
// the others in request order.
func (c *Cloud) order(req cloud.LaunchRequest) []cloud.Offering {
	offs := slices.Clone(req.Offerings)
	if req.Strategy != cloud.PriceCapacityOptimized && req.Strategy != cloud.LowestPrice {
		return offs
	}
	slices.SortStableFunc(offs, func(a, b cloud.Offering) int {
		pa, soldA := c.Price(a)
		pb, soldB := c.Price(b)
		if soldA != soldB {
			if soldA {
				return -1
			}
			return 1
		}
		return cmp.Compare(pa, pb)
	})
	return offs
}

// Terminate ends an instance at its owner's request and records the call;
// unknown or ended instances are recorded and otherwise ignored. No signal
// about the instance follows. It panics when called from OnSignal.
func (c *Cloud) Terminate(id cloud.InstanceID) {
	if c.delivering {
		panic("cloudtest: Terminate called from a Subscriber's OnSignal; schedule an engine event and terminate from there")
	}
	c.terminated = append(c.terminated, id)
	if in := c.live(id); in != nil {
		in.Ended = true
	}
}

// Launches returns every Launch call so far, in call order.
func (c *Cloud) Launches() []Launch { return c.launches }

// Requests returns the request of every Launch call so far, in call order.
func (c *Cloud) Requests() []cloud.LaunchRequest {
	out := make([]cloud.LaunchRequest, len(c.launches))
	for i, l := range c.launches {
		out[i] = l.Request
	}
	return out
}

// Terminated returns the IDs of every Terminate call so far, in call order.
func (c *Cloud) Terminated() []cloud.InstanceID { return c.terminated }

// Instance describes a launched instance, live or ended; for an ID the
// fake never returned it is the zero Instance (ID NoInstance).
func (c *Cloud) Instance(id cloud.InstanceID) Instance {
	if id <= 0 || int(id) > len(c.instances) {
		return Instance{}
	}
	return c.instances[id-1]
}

// Live returns the instances not yet ended, in ID order.
func (c *Cloud) Live() []cloud.InstanceID {
	var out []cloud.InstanceID
	for _, in := range c.instances {
		if !in.Ended {
			out = append(out, in.ID)
		}
	}
	return out
}

// live returns id's instance if it is launched and not ended, else nil.
func (c *Cloud) live(id cloud.InstanceID) *Instance {
	if id <= 0 || int(id) > len(c.instances) || c.instances[id-1].Ended {
		return nil
	}
	return &c.instances[id-1]
}
