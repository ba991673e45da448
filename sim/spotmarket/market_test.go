package spotmarket

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const zoneA = "us-east-1a"

// *Market satisfies the Cloud interfaces of sim/karpenter and
// sim/clusterautoscaler (declared there in sim/cloud's terms).
var _ interface {
	Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error)
	Terminate(id cloud.InstanceID)
	Price(o cloud.Offering) (usdPerHour float64, ok bool)
	Subscribe(s cloud.Subscriber)
} = (*Market)(nil)

// strategyMarket is a market with no randomness in the way: model off,
// constrained pools always launch, and regimes fixed by scripted events:
// m5.large exhausted, c5.large constrained, the rest available.
func strategyMarket(t *testing.T) (*engine.Engine, *Market) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Regimes.ConstrainedFailure = 0
	cfg.Events = []ScriptedEvent{
		{At: 0, InstanceTypes: []string{"m5.large"}, State: RegimeExhausted},
		{At: 0, InstanceTypes: []string{"c5.large"}, State: RegimeConstrained},
	}
	eng, m := newTestMarket(t, 1, cfg)
	eng.Run(0)
	return eng, m
}

func TestStrategies(t *testing.T) {
	// Spot prices (advisor estimates, us-east-1): m5.large 0.0326 (band 3),
	// c5.large 0.0349 (band 0), m5.xlarge 0.0653 (band 4), c5.xlarge
	// 0.0748 (band 0), r5.large 0.0504 (band 0).
	offs := []Offering{
		spotOffering("m5.large", zoneA),  // exhausted, cheapest
		spotOffering("c5.xlarge", zoneA), // available, band 0, dearest
		spotOffering("r5.large", zoneA),  // available, band 0
		spotOffering("c5.large", zoneA),  // constrained
		spotOffering("m5.xlarge", zoneA), // available, band 4
	}
	_, m := strategyMarket(t)
	price := func(typ string) float64 {
		p, ok := m.Price(spotOffering(typ, zoneA))
		require.True(t, ok)
		return p
	}
	require.Less(t, price("m5.large"), price("c5.large"))
	require.Less(t, price("c5.large"), price("r5.large"))
	require.Less(t, price("r5.large"), price("m5.xlarge"))
	require.Less(t, price("m5.xlarge"), price("c5.xlarge"))
	ice := []OfferingError{{Offering: offs[0], Code: CodeInsufficientCapacity}}

	for _, tc := range []struct {
		s      Strategy
		want   string
		errors []OfferingError
	}{
		// Best regime (available), then cheapest: not the cheaper
		// constrained c5.large nor the exhausted m5.large.
		{PriceCapacityOptimized, "r5.large", nil},
		// Best regime, then deepest (lowest band), then caller order:
		// c5.xlarge although it is the dearest.
		{CapacityOptimized, "c5.xlarge", nil},
		// Cheapest whatever the regime: m5.large fails, c5.large launches.
		{LowestPrice, "c5.large", ice},
		// Caller order.
		{Prioritized, "c5.xlarge", ice},
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			res, err := m.Launch(LaunchRequest{Owner: "t", Offerings: offs, Strategy: tc.s})
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Offering.InstanceType)
			assert.Equal(t, tc.errors, res.Errors)
			assert.Equal(t, price(tc.want), res.PriceUSDPerHour)
			assert.NotEqual(t, NoInstance, res.Instance)
		})
	}

	// On-demand, lowest price: c5.large (0.085) before m5.large (0.096),
	// whatever the caller's order.
	od := []Offering{
		{InstanceType: "m5.large", Zone: zoneA, CapacityType: cluster.OnDemand},
		{InstanceType: "c5.large", Zone: zoneA, CapacityType: cluster.OnDemand},
	}
	res, err := m.Launch(LaunchRequest{Owner: "t", Offerings: od, Strategy: LowestPrice})
	require.NoError(t, err)
	assert.Equal(t, od[1], res.Offering)
	assert.Equal(t, 0.085, res.PriceUSDPerHour)
}

func TestInsufficientCapacityCounted(t *testing.T) {
	_, m := strategyMarket(t)
	exhausted := spotOffering("m5.large", zoneA)
	offs := []Offering{exhausted, exhausted, {InstanceType: "nope.large", Zone: zoneA}}
	res, err := m.Launch(LaunchRequest{Owner: "karpenter", Offerings: offs})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInsufficientCapacity), "%v", err)
	assert.Equal(t, NoInstance, res.Instance)
	assert.Equal(t, []OfferingError{
		{Offering: exhausted, Code: CodeInsufficientCapacity},
		{Offering: exhausted, Code: CodeInsufficientCapacity},
		{Offering: offs[2], Code: CodeUnsupported},
	}, res.Errors)

	_, err = m.Launch(LaunchRequest{Owner: "cluster-autoscaler", Offerings: []Offering{exhausted, spotOffering("c5.large", zoneA)}, Strategy: Prioritized})
	require.NoError(t, err)

	st := m.Stats()
	assert.Equal(t, uint64(2), st.LaunchRequests)
	assert.Equal(t, uint64(1), st.Launches)
	assert.Equal(t, uint64(1), st.LaunchFailures)
	assert.Equal(t, uint64(3), st.InsufficientCapacityErrors)
	assert.Equal(t, uint64(1), st.UnsupportedErrors)
	require.Len(t, st.ByOwner, 2)
	assert.Equal(t, "cluster-autoscaler", st.ByOwner[0].Owner)
	assert.Equal(t, Counters{LaunchRequests: 1, Launches: 1, InsufficientCapacityErrors: 1}, st.ByOwner[0].Counters)
	assert.Equal(t, Counters{LaunchRequests: 1, InsufficientCapacityErrors: 2}, st.ByOwner[1].Counters)
	require.Len(t, st.ByPool, 2)
	assert.Equal(t, spotOffering("c5.large", zoneA), st.ByPool[0].Offering)
	assert.Equal(t, Counters{Asked: 1, Launches: 1}, st.ByPool[0].Counters)
	assert.Equal(t, exhausted, st.ByPool[1].Offering)
	assert.Equal(t, Counters{Asked: 3, InsufficientCapacityErrors: 3}, st.ByPool[1].Counters)
}

func TestOfferingsTheMarketDoesNotSell(t *testing.T) {
	_, m := strategyMarket(t)
	for _, tc := range []struct {
		o    Offering
		code string
	}{
		{Offering{InstanceType: "c5.larg", Zone: zoneA, CapacityType: cluster.Spot}, CodeUnsupported},
		{Offering{InstanceType: "c5.large", Zone: "us-east-1d", CapacityType: cluster.Spot}, CodeUnsupported},
		{Offering{InstanceType: "c5.large", Zone: "us-west-2a", CapacityType: cluster.OnDemand}, CodeUnsupported},
		// c8a has no Spot Advisor row: no spot pool.
		{Offering{InstanceType: "c8a.large", Zone: zoneA, CapacityType: cluster.Spot}, CodeUnfulfillable},
	} {
		res, err := m.Launch(LaunchRequest{Offerings: []Offering{tc.o}})
		require.ErrorIs(t, err, ErrInsufficientCapacity)
		assert.Equal(t, []OfferingError{{Offering: tc.o, Code: tc.code}}, res.Errors, "%v", tc.o)
		_, ok := m.Price(tc.o)
		assert.False(t, ok)
		assert.False(t, m.Available(tc.o))
	}
	// ... but on-demand c8a is sold.
	_, err := m.Launch(LaunchRequest{Offerings: []Offering{{InstanceType: "c8a.large", Zone: zoneA}}})
	require.NoError(t, err)
	_, err = m.Launch(LaunchRequest{})
	require.Error(t, err)
}

func TestConstrainedPoolsFailSometimes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Events = []ScriptedEvent{{At: 0, State: RegimeConstrained}}
	eng, m := newTestMarket(t, 1, cfg)
	eng.Run(0)
	fails := 0
	const n = 4000
	for i := range n {
		_, err := m.Launch(LaunchRequest{Offerings: []Offering{spotOffering("c5.large", testZones[i%3])}})
		if err != nil {
			fails++
		}
	}
	// Binomial(4000, 0.5): 4 standard errors are 0.032.
	assert.InDelta(t, DefaultConstrainedFailure, float64(fails)/n, 0.032)
}

func TestSpotVCPUQuota(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.SpotVCPUQuota = 5 // c5.large has 2 vCPUs
	_, m := newTestMarket(t, 1, cfg)
	o := spotOffering("c5.large", zoneA)
	ids := launchN(t, m, o, 2)
	res, err := m.Launch(LaunchRequest{Offerings: []Offering{o, {InstanceType: "c5.large", Zone: zoneA, CapacityType: cluster.OnDemand}}})
	require.NoError(t, err)
	assert.Equal(t, []OfferingError{{Offering: o, Code: CodeSpotLimit}}, res.Errors)
	assert.Equal(t, cluster.OnDemand, res.Offering.CapacityType)
	m.Terminate(ids[0])
	_, err = m.Launch(LaunchRequest{Offerings: []Offering{o}})
	require.NoError(t, err)
}

func TestLaunchLatency(t *testing.T) {
	_, m := newTestMarket(t, 1, DefaultConfig())
	med := func(p LatencyProfile) time.Duration {
		var ds []time.Duration
		for i := 0; len(ds) < 2001; i++ {
			res, err := m.Launch(LaunchRequest{Offerings: []Offering{{InstanceType: "m5.large", Zone: testZones[i%3]}}, Latency: p})
			if err == nil {
				ds = append(ds, res.ReadyAfter)
			}
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	// Lognormal medians 45 s and 100 s (docs/models.md "Spot market": 30-60 s; 1-4 min); the
	// sample median of 2001 draws is within 5% with overwhelming odds.
	assert.InEpsilon(t, float64(DefaultFleetLatencyMedian), float64(med(FleetLaunch)), 0.05)
	assert.InEpsilon(t, float64(DefaultASGLatencyMedian), float64(med(ASGLaunch)), 0.05)
}

// signalsOf returns the signals about id.
func signalsOf(sigs []Signal, id InstanceID) []Signal {
	var out []Signal
	for _, s := range sigs {
		if s.Instance == id {
			out = append(out, s)
		}
	}
	return out
}

func TestNoticePrecedesEveryReclaimByTwoMinutes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HazardMultiplier = 20 // many reclaims in a short test; shocks stay on
	eng, m := newTestMarket(t, 7, cfg)
	cat := testCatalog(t)
	bands := typesByBand(t, cat, 4)
	pools := spotPools(bands[4])
	k := newKeeper(t, eng, m, pools, 10)
	eng.Run(30 * day)
	reclaims := 0
	for id := range k.pool {
		sigs := signalsOf(k.sigs, id)
		for i, s := range sigs {
			if s.Kind != Terminated {
				continue
			}
			reclaims++
			require.Equal(t, len(sigs)-1, i, "no signal after Terminated: %v", sigs)
			j := slices.IndexFunc(sigs, func(s Signal) bool { return s.Kind == InterruptionNotice })
			require.GreaterOrEqual(t, j, 0, "a reclaim without notice: %v", sigs)
			assert.Equal(t, DefaultNoticeLead, s.At-sigs[j].At)
			assert.Equal(t, s.At, sigs[j].Deadline)
		}
	}
	require.Greater(t, reclaims, 300)
	assert.Equal(t, uint64(reclaims), m.Stats().Reclaims)
}

func TestRebalanceProportions(t *testing.T) {
	// A high hazard gives many notices quickly, but also false alarms that
	// happen to fall 17 min-9 h before a notice and count as early: at 5x
	// the band-4 hazard about 2% of notices.
	cfg := DefaultConfig().ShocksOff()
	cfg.HazardMultiplier = 5
	eng, m := newTestMarket(t, 8, cfg)
	bands := typesByBand(t, testCatalog(t), 10)
	pools := spotPools(bands[4])
	k := newKeeper(t, eng, m, pools, 20)
	eng.Run(60 * day)
	var early, with, notices int
	for id := range k.pool {
		sigs := signalsOf(k.sigs, id)
		n := slices.IndexFunc(sigs, func(s Signal) bool { return s.Kind == InterruptionNotice })
		if n < 0 {
			continue
		}
		notices++
		for _, s := range sigs[:n+1] {
			if s.Kind != RebalanceRecommendation {
				continue
			}
			switch lead := sigs[n].At - s.At; {
			case lead == 0:
				with++
			case lead >= DefaultRebalanceLeadMin && lead <= DefaultRebalanceLeadMax:
				early++
			}
		}
	}
	st := m.Stats()
	perNotice := float64(st.RebalanceRecommendations) / float64(st.Interruptions)
	t.Logf("notices %d: early %.3f, with the notice %.3f, recommendations per notice %.2f",
		notices, float64(early)/float64(notices), float64(with)/float64(notices), perNotice)
	// docs/models.md "Spot market": about 2 per notice, some early, some with it, some never
	// followed by a reclaim. Over ~2000 notices the shares have standard
	// errors near 0.011; a false alarm can also land before a notice, which
	// the tolerances absorb.
	require.Greater(t, notices, 1500)
	assert.InDelta(t, DefaultRebalanceEarly, float64(early)/float64(notices), 0.06)
	assert.InDelta(t, DefaultRebalanceWithNotice, float64(with)/float64(notices), 0.06)
	assert.InDelta(t, DefaultRebalancePerNotice, perNotice, 0.15)
}

func TestTerminateCancelsPendingSignals(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Events = []ScriptedEvent{{At: 10 * time.Minute, InterruptFraction: 1, RebalanceFraction: 1}}
	eng, m := newTestMarket(t, 1, cfg)
	rec := &recorder{}
	m.Subscribe(rec)
	o := spotOffering("c5.large", zoneA)
	ids := launchN(t, m, o, 4)
	// An instance doomed by the model with an early recommendation (now) and
	// its notice hours away: terminating it silences both.
	m.doom(ids[3], 5*time.Hour, rebalanceNow)

	eng.Run(10*time.Minute + time.Second)
	// ids[0..2] got a rebalance recommendation and a notice; ids[3] only
	// its early recommendation.
	require.Len(t, rec.sigs, 7)
	m.Terminate(ids[0]) // after its notice, before its reclaim
	m.Terminate(ids[3]) // before its notice
	m.Terminate(ids[3]) // twice is harmless
	info, ok := m.Instance(ids[1])
	require.True(t, ok)
	assert.Equal(t, InstanceNoticed, info.State)
	eng.Run(10 * time.Hour)
	for _, s := range rec.sigs[7:] {
		assert.NotContains(t, []InstanceID{ids[0], ids[3]}, s.Instance, "signal after Terminate: %+v", s)
	}
	require.Len(t, rec.sigs, 9) // ids[1], ids[2] reclaimed
	for _, id := range ids[1:3] {
		info, _ := m.Instance(id)
		assert.Equal(t, InstanceReclaimed, info.State)
		assert.Equal(t, 12*time.Minute, info.EndedAt)
	}
	info, _ = m.Instance(ids[0])
	assert.Equal(t, InstanceTerminated, info.State)
	assert.Equal(t, uint64(2), m.Stats().Terminations)
	assert.Equal(t, 0, eng.Len(), "no timers left behind")
}

func TestOnSignalMustNotCallBack(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Events = []ScriptedEvent{{At: time.Minute, InterruptFraction: 1}}
	eng, m := newTestMarket(t, 1, cfg)
	m.Subscribe(SubscriberFunc(func(s Signal) {
		m.Launch(LaunchRequest{Offerings: []Offering{spotOffering("c5.large", zoneA)}})
	}))
	_, err := m.Launch(LaunchRequest{Offerings: []Offering{spotOffering("c5.large", zoneA)}})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "spotmarket: Launch called from a Subscriber's OnSignal; schedule an engine event and launch from there",
		func() { eng.Run(time.Hour) })
}

func TestScriptedIssueExample(t *testing.T) {
	// issue 4: at 30m, pools of families c5, c5a, c6i in us-east-1a become
	// exhausted for 45m and 80% of their instances get a notice.
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Events = []ScriptedEvent{{
		At: 30 * time.Minute, For: 45 * time.Minute,
		Families: []string{"c5", "c5a", "c6i"}, Zones: []string{zoneA},
		State: RegimeExhausted, InterruptFraction: 0.8,
	}}
	eng, m := newTestMarket(t, 1, cfg)
	rec := &recorder{}
	m.Subscribe(rec)
	hit := []Offering{spotOffering("c5.large", zoneA), spotOffering("c6i.xlarge", zoneA)}
	spared := []Offering{spotOffering("c5.large", "us-east-1b"), spotOffering("m5.large", zoneA),
		{InstanceType: "c5.large", Zone: zoneA, CapacityType: cluster.OnDemand}}
	for _, o := range append(slices.Clone(hit), spared...) {
		launchN(t, m, o, 10)
	}
	eng.Run(31 * time.Minute)
	for _, o := range hit {
		assert.False(t, m.Available(o))
		r, _ := m.Regime(o)
		assert.Equal(t, RegimeExhausted, r)
		_, err := m.Launch(LaunchRequest{Offerings: []Offering{o}})
		assert.ErrorIs(t, err, ErrInsufficientCapacity)
	}
	for _, o := range spared {
		assert.True(t, m.Available(o))
	}
	eng.Run(2 * time.Hour)
	notices := map[Offering]int{}
	for _, s := range rec.sigs {
		if s.Kind == InterruptionNotice {
			assert.Equal(t, 30*time.Minute, s.At)
			notices[s.Offering]++
		}
	}
	assert.Equal(t, map[Offering]int{hit[0]: 8, hit[1]: 8}, notices)
	for _, o := range hit {
		assert.True(t, m.Available(o), "exhausted for 45m only")
	}
}

func TestOnDemandPools(t *testing.T) {
	// On-demand instances are never interrupted, whatever the hazard; a
	// scenario event can exhaust on-demand pools.
	cfg := DefaultConfig()
	cfg.HazardMultiplier = 50
	od := Offering{InstanceType: "m5.large", Zone: zoneA, CapacityType: cluster.OnDemand}
	cfg.Events = []ScriptedEvent{{At: time.Hour, For: time.Hour, InstanceTypes: []string{"m5.large"},
		CapacityTypes: []cluster.CapacityType{cluster.OnDemand}, State: RegimeExhausted}}
	eng, m := newTestMarket(t, 1, cfg)
	rec := &recorder{}
	m.Subscribe(rec)
	for range 20 {
		for {
			if _, err := m.Launch(LaunchRequest{Offerings: []Offering{od}}); err == nil {
				break
			}
			eng.Run(eng.Now() + time.Minute) // the pool's own rare exhaustion
		}
	}
	eng.Run(90 * time.Minute)
	_, err := m.Launch(LaunchRequest{Offerings: []Offering{od}})
	require.ErrorIs(t, err, ErrInsufficientCapacity)
	eng.Run(3 * time.Hour)
	_, err = m.Launch(LaunchRequest{Offerings: []Offering{od}})
	require.NoError(t, err)
	eng.Run(30 * day)
	assert.Empty(t, rec.sigs)
	p, ok := m.Price(od)
	require.True(t, ok)
	assert.Equal(t, 0.096, p)
}

func TestPriceDriftAndBilling(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HazardMultiplier = 0 // keep the instance for the whole test
	eng, m := newTestMarket(t, 3, cfg)
	o := spotOffering("m5.large", zoneA)
	base := 0.096 * (1 - 0.66)
	var prices []float64
	var res LaunchResult
	for {
		var err error
		if res, err = m.Launch(LaunchRequest{Offerings: []Offering{o}}); err == nil {
			break
		}
		eng.Run(eng.Now() + time.Minute)
	}
	start := eng.Now()
	for h := 1; h <= 24*60; h++ {
		eng.Run(time.Duration(h) * time.Hour)
		p, _ := m.Price(o)
		prices = append(prices, p)
	}
	// Slow and smooth: never more than a few percent per hour, within
	// [base/2, on-demand], and not constant.
	lo, hi := slices.Min(prices), slices.Max(prices)
	assert.Greater(t, hi-lo, 0.01*base)
	assert.GreaterOrEqual(t, lo, base/2)
	assert.LessOrEqual(t, hi, 0.096)
	for i := 1; i < len(prices); i++ {
		assert.Less(t, math.Abs(prices[i]-prices[i-1]), 0.03*base)
	}
	// Billing integrates the path: close to the hourly prices summed.
	var riemann float64
	for _, p := range prices {
		riemann += p
	}
	info, _ := m.Instance(res.Instance)
	require.Equal(t, InstanceRunning, info.State)
	cost := m.CostUSD(res.Instance, eng.Now())
	assert.InEpsilon(t, riemann*float64(eng.Now()-start)/float64(time.Duration(len(prices))*time.Hour), cost, 0.01)
	t.Logf("price %.4f..%.4f $/h (base %.4f), 60 days cost %.2f $", lo, hi, base, cost)
}

func TestCostUSDPerSecond(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	eng, m := newTestMarket(t, 1, cfg)
	od := Offering{InstanceType: "m5.large", Zone: zoneA, CapacityType: cluster.OnDemand}
	launch := func() InstanceID {
		res, err := m.Launch(LaunchRequest{Offerings: []Offering{od}})
		require.NoError(t, err)
		return res.Instance
	}
	a, b := launch(), launch()
	eng.Run(10*time.Second + time.Millisecond)
	m.Terminate(a) // 10.001 s: billed the 60 s minimum
	eng.Run(time.Hour + 500*time.Millisecond)
	assert.InDelta(t, 0.096*60/3600, m.CostUSD(a, eng.Now()), 1e-12)
	// Running: billed to until, rounded up to the second.
	assert.InDelta(t, 0.096*3601/3600, m.CostUSD(b, eng.Now()), 1e-12)
	assert.InDelta(t, 0.096*0.5, m.CostUSD(b, 30*time.Minute), 1e-12)
	assert.Zero(t, m.CostUSD(NoInstance, time.Hour))
	assert.Zero(t, m.CostUSD(999, time.Hour))
}

// The all-on-demand counterfactual bills the same time as the cost: an
// on-demand instance's equals its cost to the bit (an all-on-demand run
// saves exactly 0%), a spot instance's is its billed seconds (the 60 s
// minimum, the rounding up) at the on-demand price.
func TestOnDemandEquivalentBillsTheSameTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	eng, m := newTestMarket(t, 1, cfg)
	launch := func(ct cluster.CapacityType) InstanceID {
		res, err := m.Launch(LaunchRequest{Offerings: []Offering{{InstanceType: "m5.large", Zone: zoneA, CapacityType: ct}}})
		require.NoError(t, err)
		return res.Instance
	}
	od, short, spot := launch(cluster.OnDemand), launch(cluster.Spot), launch(cluster.Spot)
	eng.Run(10*time.Second + time.Millisecond)
	m.Terminate(short)
	eng.Run(time.Hour + 500*time.Millisecond)
	now := eng.Now()
	assert.Equal(t, m.CostUSD(od, now), m.OnDemandEquivalentUSD(od, now))
	assert.InDelta(t, 0.096*60/3600, m.OnDemandEquivalentUSD(short, now), 1e-12, "the 60 s minimum, at the on-demand price")
	assert.InDelta(t, 0.096*3601/3600, m.OnDemandEquivalentUSD(spot, now), 1e-12, "rounded up to the second")
	assert.Less(t, m.CostUSD(spot, now), m.OnDemandEquivalentUSD(spot, now))
	assert.Zero(t, m.OnDemandEquivalentUSD(NoInstance, now))
}

// signalKey is a signal without the instance ID (IDs depend on launches in
// other pools).
type signalKey struct {
	Kind     SignalKind
	Offering Offering
	At       time.Duration
}

func keys(sigs []Signal, keep func(Offering) bool) []signalKey {
	var out []signalKey
	for _, s := range sigs {
		if keep(s.Offering) {
			out = append(out, signalKey{s.Kind, s.Offering, s.At})
		}
	}
	return out
}

func runFleet(t *testing.T, seed uint64, pools []Offering) ([]Signal, Stats) {
	cfg := DefaultConfig()
	cfg.HazardMultiplier = 10
	eng, m := newTestMarket(t, seed, cfg)
	k := newKeeper(t, eng, m, pools, 10)
	eng.Run(20 * day)
	return k.sigs, m.Stats()
}

func TestDeterminism(t *testing.T) {
	pools := []Offering{spotOffering("m5.xlarge", zoneA), spotOffering("m5.large", "us-east-1b"), spotOffering("r5.2xlarge", "us-east-1c")}
	s1, st1 := runFleet(t, 11, pools)
	s2, st2 := runFleet(t, 11, pools)
	require.Greater(t, len(s1), 50)
	assert.Equal(t, s1, s2)
	assert.Equal(t, st1, st2)
	s3, _ := runFleet(t, 12, pools)
	assert.NotEqual(t, s1, s3)
}

func TestPoolStreamIndependence(t *testing.T) {
	// Adding a pool (with its own launches, reclaims and relaunches) must
	// not change another pool's history.
	p1 := spotOffering("m5.xlarge", zoneA)
	alone, _ := runFleet(t, 21, []Offering{p1})
	with, _ := runFleet(t, 21, []Offering{spotOffering("m5.2xlarge", zoneA), p1, spotOffering("c5.4xlarge", "us-east-1b")})
	is1 := func(o Offering) bool { return o == p1 }
	others := func(o Offering) bool { return o != p1 }
	require.Greater(t, len(keys(alone, is1)), 20)
	require.NotEmpty(t, keys(with, others))
	assert.Equal(t, keys(alone, is1), keys(with, is1))
}

func TestRebalanceWayOf(t *testing.T) {
	b := RebalanceConfig{EarlyProb: 0.25, WithNoticeProb: 0.5}
	for u, want := range map[float64]rebalanceWay{
		0: rebalanceNow, 0.2: rebalanceNow,
		0.25: rebalanceWithNotice, 0.7: rebalanceWithNotice,
		0.75: rebalanceNone, 0.99: rebalanceNone,
	} {
		assert.Equal(t, want, b.wayOf(u), "u=%v", u)
	}
}

// An adopted instance (a node of an imported cluster) runs from now, is
// billed at the pool's price like a launched one and ends when terminated,
// but counts as no launch; an offering the market does not sell is an
// error.
func TestAdoptIsBilledButNotALaunch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	eng, m := newTestMarket(t, 1, cfg)
	od := Offering{InstanceType: "m5.large", Zone: zoneA, CapacityType: cluster.OnDemand}
	res, err := m.Adopt("karpenter", "default", od)
	require.NoError(t, err)
	require.NotEqual(t, NoInstance, res.Instance)
	require.Equal(t, od, res.Offering)
	assert.InDelta(t, 0.096, res.PriceUSDPerHour, 1e-12)
	assert.Zero(t, m.Stats().Launches)
	assert.Zero(t, m.Stats().LaunchRequests)
	eng.Run(time.Hour)
	m.Terminate(res.Instance)
	eng.Run(2 * time.Hour)
	assert.InDelta(t, 0.096, m.CostUSD(res.Instance, eng.Now()), 1e-12)
	_, err = m.Adopt("karpenter", "default", Offering{InstanceType: "x9.huge", Zone: zoneA})
	require.Error(t, err)
}
