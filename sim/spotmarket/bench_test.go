package spotmarket

import (
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/require"
)

// fleetPools returns n spot pools over every band and zone.
func fleetPools(t testing.TB, n int) []Offering {
	bands := typesByBand(t, testCatalog(t), (n+14)/15)
	var pools []Offering
	for i := 0; len(pools) < n; i++ {
		b := i % 5
		ty := bands[b][i/5%len(bands[b])]
		for _, z := range testZones {
			if len(pools) < n {
				pools = append(pools, spotOffering(ty, z))
			}
		}
	}
	return pools
}

// counter counts signals without allocating.
type counter struct{ n [3]int }

func (c *counter) OnSignal(s Signal) { c.n[s.Kind]++ }

// Signal events allocate nothing in steady state: regime moves, background
// decisions, shocks, notices, reclaims and rebalance recommendations.
func TestZeroAllocsPerSignalEvent(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HazardMultiplier = 20
	eng, m := newTestMarket(t, 5, cfg)
	c := &counter{}
	m.Subscribe(c)
	pools := fleetPools(t, 100)
	for i := range 1000 {
		mustLaunch(t, m, "test", pools, i)
	}
	eng.Run(2 * day) // warm up: queues and slices reach their size
	before, events := c.n, eng.Events()
	allocs := testing.AllocsPerRun(10, func() { eng.Run(eng.Now() + 6*time.Hour) })
	t.Logf("%d events, signals %v, %.2f allocations per run", eng.Events()-events, [3]int{c.n[0] - before[0], c.n[1] - before[1], c.n[2] - before[2]}, allocs)
	require.Greater(t, c.n[Terminated]-before[Terminated], 50)
	require.Zero(t, allocs)
}

// relauncher keeps every reclaimed instance replaced in the same pool, as
// an autoscaler would, retrying a refused launch a minute later.
type relauncher struct {
	eng    *engine.Engine
	m      *Market
	id     engine.HandlerID
	pools  []Offering
	poolOf []int32 // by InstanceID
}

func (r *relauncher) OnSignal(s Signal) {
	if s.Kind == Terminated {
		r.eng.After(0, engine.Event{Handler: r.id, Obj: r.poolOf[s.Instance]})
	}
}

func (r *relauncher) HandleEvent(ev engine.Event) {
	res, err := r.m.Launch(LaunchRequest{Owner: "bench", Offerings: r.pools[ev.Obj : ev.Obj+1], Strategy: Prioritized})
	if err != nil {
		r.eng.After(time.Minute, ev)
		return
	}
	for int(res.Instance) >= len(r.poolOf) {
		r.poolOf = append(r.poolOf, 0)
	}
	r.poolOf[res.Instance] = ev.Obj
}

// BenchmarkMarket runs a market with 1,000 running instances in 100 spot
// pools (10 each, every band, three zones) for a simulated week, default
// model, reclaimed instances replaced. One op is one week.
func BenchmarkMarket(b *testing.B) {
	cat := testCatalog(b)
	pools := fleetPools(b, 100)
	var events uint64
	var sigs int
	for b.Loop() {
		eng := engine.New(1)
		m, err := New(eng, cat, "us-east-1", testZones, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		r := &relauncher{eng: eng, m: m, pools: pools}
		r.id = eng.Register(r)
		m.Subscribe(r)
		c := &counter{}
		m.Subscribe(c)
		for i := range pools {
			for range 10 {
				eng.Schedule(0, engine.Event{Handler: r.id, Obj: int32(i)})
			}
		}
		eng.Run(7 * day)
		events += eng.Events()
		sigs += c.n[0] + c.n[1] + c.n[2]
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(float64(sigs)/float64(b.N), "signals/op")
}
