package spotmarket

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twentyTypes are 20 general-purpose types of 4 and 8 vCPUs, as a
// diversified NodePool allows them (c, m, r families, three generations).
var twentyTypes = []string{
	"c5.xlarge", "c5a.xlarge", "c5n.xlarge", "c6i.xlarge", "c6a.xlarge", "c7i.xlarge", "c5.2xlarge", "c6i.2xlarge",
	"m5.xlarge", "m5a.xlarge", "m5n.xlarge", "m6i.xlarge", "m6a.xlarge", "m7i.xlarge", "m5.2xlarge", "m6i.2xlarge",
	"r5.xlarge", "r5a.xlarge", "r6i.xlarge", "r6a.xlarge",
}

// burst asks for n instances at one instant, each launch with every
// offering of offs (one fleet request of n instances), and returns how many
// it got.
func burst(m *Market, offs []Offering, n int, strategy Strategy) int {
	got := 0
	for range n {
		if res, err := m.Launch(LaunchRequest{Owner: "burst", Offerings: offs, Strategy: strategy}); err == nil && res.Instance != NoInstance {
			got++
		}
	}
	return got
}

const depthSeeds = 20

// A 200-instance burst into one type in one zone sees partial fulfilment
// (or none) in most seeds: one pool rarely holds 200 xlarge instances.
func TestDepthSinglePoolBurstIsPartial(t *testing.T) {
	short, partial := 0, 0
	for seed := uint64(1); seed <= depthSeeds; seed++ {
		_, m := newTestMarket(t, seed, DefaultConfig())
		got := burst(m, []Offering{spotOffering("c5.xlarge", zoneA)}, 200, PriceCapacityOptimized)
		if got < 200 {
			short++
		}
		if got > 0 && got < 200 {
			partial++
			assert.Equal(t, uint64(1), m.Stats().PartialFulfilments, "seed %d", seed)
		}
		st := m.Stats()
		require.Len(t, st.ByPool, 1)
		p := st.ByPool[0].Counters
		assert.Equal(t, uint64(200), p.Asked)
		assert.Equal(t, uint64(got), p.Launches)
		assert.Equal(t, uint64(200-got), p.InsufficientCapacityErrors)
	}
	t.Logf("single pool: short in %d of %d seeds, partial in %d", short, depthSeeds, partial)
	assert.GreaterOrEqual(t, short, depthSeeds*3/4, "a 200-instance single-pool burst should fall short in most seeds")
	assert.GreaterOrEqual(t, partial, depthSeeds/2, "most shortfalls should be partial fulfilments")
}

// The same burst over 20 types in three zones (60 pools) with
// price-capacity-optimized is fulfilled in most seeds.
func TestDepthDiversifiedBurstIsFulfilled(t *testing.T) {
	full := 0
	for seed := uint64(1); seed <= depthSeeds; seed++ {
		_, m := newTestMarket(t, seed, DefaultConfig())
		offs := spotPools(twentyTypes)
		require.Len(t, offs, 60)
		got := burst(m, offs, 200, PriceCapacityOptimized)
		if got == 200 {
			full++
			assert.Zero(t, m.Stats().PartialFulfilments)
		}
	}
	t.Logf("60 pools: fulfilled in %d of %d seeds", full, depthSeeds)
	assert.GreaterOrEqual(t, full, depthSeeds*9/10)
}

// Larger sizes of a family are scarcer; new GPU types scarcer still; on
// demand is deep for common types and shallow for rare ones.
func TestDepthBySize(t *testing.T) {
	const seeds = 30
	mean := func(o Offering) float64 {
		var sum float64
		for seed := uint64(1); seed <= seeds; seed++ {
			cfg := DefaultConfig()
			cfg.Model = ModelReplay // every pool available: depth by size alone
			cfg.Trace = &Trace{Name: "t", Events: []TraceEvent{{At: time.Hour, Pool: o, Kind: TracePrice, Value: 1}}}
			_, m := newTestMarket(t, seed, cfg)
			n, ok := m.Depth(o)
			require.True(t, ok)
			sum += float64(n)
		}
		return sum / seeds
	}
	large, xl4, xl24 := mean(spotOffering("m5.large", zoneA)), mean(spotOffering("m5.4xlarge", zoneA)), mean(spotOffering("m5.24xlarge", zoneA))
	t.Logf("spot m5 depth: large %.0f, 4xlarge %.1f, 24xlarge %.1f", large, xl4, xl24)
	assert.Greater(t, large, 4*xl4)
	assert.Greater(t, xl4, 4*xl24)
	// Per vCPU too, larger sizes are scarcer.
	assert.Greater(t, large*2, xl4*16)

	od := func(ty string) Offering {
		return Offering{InstanceType: ty, Zone: zoneA, CapacityType: cluster.OnDemand}
	}
	p5, g5, m5 := mean(od("p5.48xlarge")), mean(od("g5.48xlarge")), mean(od("m5.large"))
	t.Logf("on-demand depth: p5.48xlarge %.1f, g5.48xlarge %.1f, m5.large %.0f", p5, g5, m5)
	assert.Less(t, p5, 10.0, "p5 on demand fails a request for ten")
	assert.Less(t, p5, g5)
	assert.Greater(t, m5, 1000.0, "common on-demand types do not run out at cluster scale")
}

// Launches take from the depth; terminations give it back; what was taken
// refills over time.
func TestDepthTakeGiveBackRefill(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelReplay
	o := spotOffering("c5.xlarge", zoneA)
	cfg.Trace = &Trace{Name: "t", Events: []TraceEvent{{At: 0, Pool: o, Kind: TraceDepth, Value: 10}}}
	eng, m := newTestMarket(t, 1, cfg)
	eng.Run(time.Second)
	n, _ := m.Depth(o)
	require.Equal(t, 10, n)
	assert.Equal(t, 10, burst(m, []Offering{o}, 12, Prioritized))
	n, _ = m.Depth(o)
	assert.Equal(t, 0, n)
	st := m.Stats()
	assert.Equal(t, uint64(2), st.DepthRefusals)
	assert.Equal(t, uint64(1), st.PartialFulfilments)
	assert.Equal(t, uint64(12), st.ByPool[0].Asked)

	m.Terminate(1)
	m.Terminate(2)
	n, _ = m.Depth(o)
	assert.Equal(t, 2, n, "terminations give back")

	eng.Run(eng.Now() + DefaultDepthRefill)
	n, _ = m.Depth(o)
	assert.Equal(t, 10-int(math.Round(8*math.Exp(-1))), n, "what was taken refills with time constant Refill")
	eng.Run(eng.Now() + 10*DefaultDepthRefill)
	n, _ = m.Depth(o)
	assert.Equal(t, 10, n)
}

// Regimes scale the depth: constrained keeps a tenth, exhausted none.
func TestDepthFollowsRegime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelReplay
	o := spotOffering("c5.xlarge", zoneA)
	cfg.Trace = &Trace{Name: "t", Events: []TraceEvent{
		{At: 0, Pool: o, Kind: TraceDepth, Value: 100},
		{At: time.Minute, Pool: o, Kind: TraceState, State: RegimeConstrained},
		{At: 2 * time.Minute, Pool: o, Kind: TraceState, State: RegimeExhausted},
		{At: 3 * time.Minute, Pool: o, Kind: TraceDepth, Value: -1},
		{At: 3 * time.Minute, Pool: o, Kind: TraceState, State: RegimeAvailable},
	}}
	eng, m := newTestMarket(t, 1, cfg)
	var got []int
	for _, at := range []time.Duration{30 * time.Second, 90 * time.Second, 150 * time.Second, 210 * time.Second} {
		eng.Run(at)
		n, _ := m.Depth(o)
		got = append(got, n)
	}
	assert.Equal(t, []int{100, 10, 0}, got[:3])
	assert.NotEqual(t, 100, got[3], "depth model returns the model's depth")
	assert.Positive(t, got[3])
}

// Depth off: the model before pool depth, and ModelOff.
func TestDepthUnlimited(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Depth.Unlimited = true
	_, m := newTestMarket(t, 1, cfg)
	o := Offering{InstanceType: "m5.large", Zone: zoneA, CapacityType: cluster.OnDemand}
	assert.Equal(t, 500, burst(m, []Offering{o}, 500, Prioritized))
	cfg = DefaultConfig()
	cfg.Model = ModelOff
	_, m = newTestMarket(t, 1, cfg)
	assert.Equal(t, 300, burst(m, []Offering{spotOffering("c5.4xlarge", zoneA)}, 300, Prioritized))
}

func TestDepthConfigErrors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Depth.Spot = 0
	cfg.Depth.Constrained = 1.5
	cfg.Depth.Refill = 0
	cfg.Depth.SizeExponent = math.NaN()
	err := cfg.Validate()
	require.Error(t, err)
	for _, want := range []string{
		"market.depth.spot: must be > 0",
		"market.depth.constrained: must be between 0 and 1, got 1.5",
		"market.depth.refill: must be positive",
		"market.depth.sizeExponent: must be between 0 and 4, got NaN",
	} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestReadTraceDepth(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("time,pool,kind,value\n0s,c5.large/us-east-1a,depth,40\n1h,c5.large/us-east-1a,depth,model\n"), "d.csv")
	require.NoError(t, err)
	assert.Equal(t, []TraceEvent{
		{Line: 2, At: 0, Pool: spotOffering("c5.large", zoneA), Kind: TraceDepth, Value: 40},
		{Line: 3, At: time.Hour, Pool: spotOffering("c5.large", zoneA), Kind: TraceDepth, Value: -1},
	}, tr.Events)
	_, err = ReadTrace(strings.NewReader("time,pool,kind,value\n0s,c5.large/us-east-1a,depth,-3\n0s,c5.large/us-east-1a,depth,2.5\n0s,c5.large/us-east-1a/reserved,depth,4\n0s,c5.large/us-east-1a,depth\n"), "bad.csv")
	require.Error(t, err)
	for _, want := range []string{
		`bad.csv:2: value: depth needs a whole number of instances >= 0, or model for the model's depth, got "-3"`,
		`bad.csv:3: value: depth needs a whole number`,
		`bad.csv:4: pool: depth applies to spot and on-demand pools; reserved capacity has no depth`,
		`bad.csv:5: value: depth needs a whole number`,
	} {
		assert.Contains(t, err.Error(), want)
	}
}

// On-demand pools have depth too: a request for 16 p5.48xlarge in one zone
// (128 H100 GPUs for one training job) falls short in
// most seeds, while 200 m5.xlarge on demand are always filled.
func TestDepthOnDemandRareTypes(t *testing.T) {
	short := 0
	for seed := uint64(1); seed <= depthSeeds; seed++ {
		_, m := newTestMarket(t, seed, DefaultConfig())
		p5 := Offering{InstanceType: "p5.48xlarge", Zone: zoneA, CapacityType: cluster.OnDemand}
		if burst(m, []Offering{p5}, 16, LowestPrice) < 16 {
			short++
		}
		m5 := Offering{InstanceType: "m5.xlarge", Zone: zoneA, CapacityType: cluster.OnDemand}
		if r, _ := m.Regime(m5); r == RegimeAvailable {
			assert.Equal(t, 200, burst(m, []Offering{m5}, 200, LowestPrice), "seed %d", seed)
		}
	}
	t.Logf("16 p5.48xlarge on demand: short in %d of %d seeds", short, depthSeeds)
	assert.GreaterOrEqual(t, short, depthSeeds*3/4)
}
