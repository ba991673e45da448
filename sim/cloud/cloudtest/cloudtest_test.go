package cloudtest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

func offering(typ, zone string, ct cluster.CapacityType) cloud.Offering {
	return cloud.Offering{InstanceType: typ, Zone: zone, CapacityType: ct}
}

var (
	largeA  = offering("m5.large", "us-east-1a", cluster.OnDemand)
	largeB  = offering("m5.large", "us-east-1b", cluster.OnDemand)
	xlargeA = offering("m5.xlarge", "us-east-1a", cluster.OnDemand)
	spotA   = offering("m5.large", "us-east-1a", cluster.Spot)
)

// newPriced is a fake where xlargeA costs less than largeB, which costs
// less than largeA: price order differs from request order.
func newPriced(t *testing.T) (*engine.Engine, *Cloud) {
	t.Helper()
	eng := engine.New(1)
	c := New(eng, FlatPrice(0.3))
	c.SetPrice(largeB, 0.2)
	c.SetPrice(xlargeA, 0.1)
	return eng, c
}

func launch(t *testing.T, c *Cloud, s cloud.Strategy, offs ...cloud.Offering) cloud.LaunchResult {
	t.Helper()
	res, err := c.Launch(cloud.LaunchRequest{Owner: "test", Offerings: offs, Strategy: s})
	require.NoError(t, err)
	return res
}

func TestLaunchOrderIDsAndRecords(t *testing.T) {
	eng, c := newPriced(t)
	for _, s := range []cloud.Strategy{cloud.PriceCapacityOptimized, cloud.LowestPrice} {
		res := launch(t, c, s, largeA, largeB, xlargeA)
		require.Equal(t, xlargeA, res.Offering, "%v: cheapest first", s)
		require.Equal(t, 0.1, res.PriceUSDPerHour)
	}
	for _, s := range []cloud.Strategy{cloud.Prioritized, cloud.CapacityOptimized} {
		require.Equal(t, largeA, launch(t, c, s, largeA, largeB, xlargeA).Offering, "%v: request order", s)
	}
	eng.Run(time.Minute)
	c.ReadyAfter = 30 * time.Second
	c.ReadyAfterFor = map[cluster.CapacityType]time.Duration{cluster.Spot: 5 * time.Minute}
	require.Equal(t, 30*time.Second, launch(t, c, cloud.Prioritized, largeB).ReadyAfter)
	spot := launch(t, c, cloud.Prioritized, spotA)
	require.Equal(t, 5*time.Minute, spot.ReadyAfter)
	require.Equal(t, cloud.InstanceID(6), spot.Instance, "IDs count up from 1")

	ls := c.Launches()
	require.Len(t, ls, 6)
	require.Equal(t, engine.Time(0), ls[0].At)
	require.Equal(t, time.Minute, ls[5].At)
	require.Equal(t, spot, ls[5].Result)
	require.Equal(t, []cloud.Offering{spotA}, c.Requests()[5].Offerings)
	require.Equal(t, Instance{ID: 6, Offering: spotA, LaunchedAt: time.Minute}, c.Instance(6))
	require.Equal(t, Instance{}, c.Instance(7), "never launched")
}

func TestExhaustAndRestore(t *testing.T) {
	_, c := newPriced(t)
	anyZone := cloud.Offering{InstanceType: "m5.large", CapacityType: cluster.OnDemand}
	c.Exhaust(anyZone)
	require.False(t, c.Available(largeA))
	require.False(t, c.Available(largeB))
	require.True(t, c.Available(xlargeA))
	require.True(t, c.Available(spotA), "the capacity type must match")

	res, err := c.Launch(cloud.LaunchRequest{Offerings: []cloud.Offering{largeA, largeB}, Strategy: cloud.Prioritized})
	require.ErrorIs(t, err, cloud.ErrInsufficientCapacity)
	require.Equal(t, cloud.NoInstance, res.Instance)
	require.Equal(t, []cloud.OfferingError{{Offering: largeA, Code: cloud.CodeInsufficientCapacity}, {Offering: largeB, Code: cloud.CodeInsufficientCapacity}}, res.Errors)
	require.Equal(t, err, c.Launches()[0].Err)

	res = launch(t, c, cloud.Prioritized, largeA, xlargeA)
	require.Equal(t, xlargeA, res.Offering)
	require.Equal(t, []cloud.OfferingError{{Offering: largeA, Code: cloud.CodeInsufficientCapacity}}, res.Errors, "failures before the success are listed")

	c.Restore(largeA)
	require.False(t, c.Available(largeA), "restoring one offering does not punch a hole in a wider pattern")
	c.Exhaust(largeB)
	c.Restore(anyZone)
	require.True(t, c.Available(largeA))
	require.False(t, c.Available(largeB))
	c.RestoreAll()
	require.Equal(t, largeB, launch(t, c, cloud.Prioritized, largeB).Offering)
}

func TestUnsoldOfferingsAreUnsupportedAndTriedLast(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	c := New(engine.New(1), CatalogPrices(cat, "us-east-1"))
	unknown := offering("no.such-type", "us-east-1a", cluster.OnDemand)
	_, ok := c.Price(unknown)
	require.False(t, ok)
	require.False(t, c.Available(unknown))
	od, ok := c.Price(largeA)
	require.True(t, ok)
	spot, ok := c.Price(spotA)
	require.True(t, ok)
	require.Less(t, spot, od, "spot at the catalogue's discount")

	require.Equal(t, largeA, launch(t, c, cloud.LowestPrice, unknown, largeA).Offering, "unsold last")
	res, err := c.Launch(cloud.LaunchRequest{Offerings: []cloud.Offering{unknown}, Strategy: cloud.Prioritized})
	require.ErrorIs(t, err, cloud.ErrInsufficientCapacity)
	require.Equal(t, []cloud.OfferingError{{Offering: unknown, Code: cloud.CodeUnsupported}}, res.Errors)
}

func TestFailNext(t *testing.T) {
	_, c := newPriced(t)
	boom := errors.New("boom")
	c.FailNext(2, boom)
	for range 2 {
		res, err := c.Launch(cloud.LaunchRequest{Offerings: []cloud.Offering{largeA}})
		require.ErrorIs(t, err, boom)
		require.Equal(t, cloud.LaunchResult{}, res)
	}
	require.Equal(t, cloud.InstanceID(1), launch(t, c, cloud.Prioritized, largeA).Instance, "failed calls launch nothing")
	require.Len(t, c.Launches(), 3)
	require.ErrorIs(t, c.Launches()[1].Err, boom)
}

func TestTerminateRecordsEveryCall(t *testing.T) {
	_, c := newPriced(t)
	for range 3 {
		launch(t, c, cloud.Prioritized, largeA)
	}
	c.Terminate(2)
	c.Terminate(2)
	c.Terminate(9)
	require.Equal(t, []cloud.InstanceID{2, 2, 9}, c.Terminated())
	require.Equal(t, []cloud.InstanceID{1, 3}, c.Live())
	require.True(t, c.Instance(2).Ended)
}

// recorder is a subscriber that keeps what it receives.
type recorder struct{ got []cloud.Signal }

func (r *recorder) OnSignal(s cloud.Signal) { r.got = append(r.got, s) }

func (r *recorder) kinds() []cloud.SignalKind {
	var out []cloud.SignalKind
	for _, s := range r.got {
		out = append(out, s.Kind)
	}
	return out
}

func TestSignalsAreEngineEvents(t *testing.T) {
	eng, c := newPriced(t)
	var first, second recorder
	c.Subscribe(&first)
	c.Subscribe(&second)
	id := launch(t, c, cloud.Prioritized, spotA).Instance

	c.Signal(cloud.RebalanceRecommendation, id)
	require.Empty(t, first.got, "not delivered from inside the call")
	eng.Run(0)
	require.Equal(t, []cloud.Signal{{Kind: cloud.RebalanceRecommendation, Instance: id, Offering: spotA}}, first.got)
	require.Equal(t, first.got, second.got, "every subscriber")

	c.SignalAt(time.Minute, cloud.InterruptionNotice, id)
	c.SignalAt(2*time.Minute, cloud.Terminated, id)
	c.SignalAt(3*time.Minute, cloud.RebalanceRecommendation, id)
	eng.Run(time.Hour)
	require.Equal(t, cloud.Signal{Kind: cloud.InterruptionNotice, Instance: id, Offering: spotA, At: time.Minute, Deadline: time.Minute + NoticeLead}, first.got[1])
	require.Equal(t, []cloud.SignalKind{cloud.RebalanceRecommendation, cloud.InterruptionNotice, cloud.Terminated}, first.kinds(),
		"nothing about an instance after it is reclaimed")
	require.Empty(t, c.Live())
	require.True(t, c.Instance(id).Ended)
}

func TestInterrupt(t *testing.T) {
	eng, c := newPriced(t)
	var r recorder
	c.Subscribe(&r)
	kept := launch(t, c, cloud.Prioritized, spotA).Instance
	saved := launch(t, c, cloud.Prioritized, spotA).Instance
	c.Interrupt(kept)
	c.Interrupt(saved)
	eng.Run(time.Minute)
	c.Terminate(saved)
	eng.Run(time.Hour)
	require.Equal(t, []cloud.SignalKind{cloud.InterruptionNotice, cloud.InterruptionNotice, cloud.Terminated}, r.kinds())
	require.Equal(t, kept, r.got[2].Instance)
	require.Equal(t, NoticeLead, r.got[2].At, "reclaimed at the notice's deadline")
	require.Equal(t, r.got[0].Deadline, r.got[2].At)
}

func TestSubscriberMustNotCallBack(t *testing.T) {
	for name, call := range map[string]func(c *Cloud, id cloud.InstanceID){
		"Launch":    func(c *Cloud, _ cloud.InstanceID) { c.Launch(cloud.LaunchRequest{Offerings: []cloud.Offering{largeA}}) },
		"Terminate": func(c *Cloud, id cloud.InstanceID) { c.Terminate(id) },
	} {
		t.Run(name, func(t *testing.T) {
			eng, c := newPriced(t)
			c.Subscribe(cloud.SubscriberFunc(func(s cloud.Signal) { call(c, s.Instance) }))
			c.Reclaim(launch(t, c, cloud.Prioritized, largeA).Instance)
			require.Contains(t, fmt.Sprint(panicValue(func() { eng.Run(0) })), name+" called from a Subscriber's OnSignal")
		})
	}
}

// panicValue runs f and returns what it panicked with, nil if it did not.
func panicValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
