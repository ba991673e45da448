package spotmarket

import (
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/require"
)

const day = 24 * time.Hour

var testZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

func testCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	require.NoError(t, err)
	return cat
}

func newTestMarket(t testing.TB, seed uint64, cfg Config) (*engine.Engine, *Market) {
	t.Helper()
	eng := engine.New(seed)
	m, err := New(eng, testCatalog(t), "us-east-1", testZones, cfg)
	require.NoError(t, err)
	return eng, m
}

// recorder keeps every signal.
type recorder struct{ sigs []Signal }

func (r *recorder) OnSignal(s Signal) { r.sigs = append(r.sigs, s) }

// typesByBand returns, per Spot Advisor band, up to n us-east-1 instance
// types of that band, in name order.
func typesByBand(t testing.TB, cat *catalog.Catalog, n int) [5][]string {
	var out [5][]string
	for _, it := range cat.Types() {
		a, ok := cat.SpotAdvice("us-east-1", it.Name)
		if ok && len(out[a.Band]) < n {
			out[a.Band] = append(out[a.Band], it.Name)
		}
	}
	for b := range out {
		require.Len(t, out[b], n, "band %d", b)
	}
	return out
}

func spotOffering(typ, zone string) Offering {
	return Offering{InstanceType: typ, Zone: zone, CapacityType: cluster.Spot}
}

// launchN launches n instances in offering o and returns their IDs.
func launchN(t testing.TB, m *Market, o Offering, n int) []InstanceID {
	t.Helper()
	var ids []InstanceID
	for range n {
		res, err := m.Launch(LaunchRequest{Offerings: []Offering{o}})
		require.NoError(t, err)
		ids = append(ids, res.Instance)
	}
	return ids
}

// spotPools lists the spot offerings of types in every test zone, type by
// type.
func spotPools(types ...[]string) []Offering {
	var out []Offering
	for _, ts := range types {
		for _, ty := range ts {
			for _, z := range testZones {
				out = append(out, spotOffering(ty, z))
			}
		}
	}
	return out
}

// mustLaunch launches one instance in one of offs (Prioritized, starting at
// offs[start%len]) and fails the test if none succeeds.
func mustLaunch(t testing.TB, m *Market, owner string, offs []Offering, start int) LaunchResult {
	t.Helper()
	rot := make([]Offering, 0, len(offs))
	for i := range offs {
		rot = append(rot, offs[(start+i)%len(offs)])
	}
	res, err := m.Launch(LaunchRequest{Owner: owner, Offerings: rot, Strategy: Prioritized})
	require.NoError(t, err)
	return res
}

// keeper keeps a fixed number of instances in each of a set of pools: it
// relaunches a reclaimed instance in the same pool (retrying every minute
// while the pool refuses), as an owner replacing lost nodes would.
type keeper struct {
	t     testing.TB
	eng   *engine.Engine
	m     *Market
	id    engine.HandlerID
	pools []Offering
	owner string
	sigs  []Signal
	pool  map[InstanceID]int32
}

func newKeeper(t testing.TB, eng *engine.Engine, m *Market, pools []Offering, perPool int) *keeper {
	k := &keeper{t: t, eng: eng, m: m, pools: pools, owner: "keeper", pool: map[InstanceID]int32{}}
	k.id = eng.Register(k)
	m.Subscribe(k)
	for i := range pools {
		for j := 0; j < perPool; j++ {
			eng.Schedule(0, engine.Event{Handler: k.id, Obj: int32(i)})
		}
	}
	return k
}

func (k *keeper) OnSignal(s Signal) {
	k.sigs = append(k.sigs, s)
	if s.Kind == Terminated {
		k.eng.After(0, engine.Event{Handler: k.id, Obj: k.pool[s.Instance]})
	}
}

func (k *keeper) HandleEvent(ev engine.Event) {
	res, err := k.m.Launch(LaunchRequest{Owner: k.owner, Offerings: k.pools[ev.Obj : ev.Obj+1], Strategy: Prioritized})
	if err != nil {
		k.eng.After(time.Minute, ev)
		return
	}
	k.pool[res.Instance] = ev.Obj
}
