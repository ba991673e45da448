package spotmarket

import (
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reservedOffering(id, typ, zone string) Offering {
	return Offering{InstanceType: typ, Zone: zone, CapacityType: cluster.Reserved, Reservation: id}
}

// An ODCR takes Count instances and refuses the next; its instances cost
// nothing while it lasts and the on-demand price after its end; the
// reservation itself is billed for every reserved hour, used or not.
func TestReservationODCR(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Reservations = []Reservation{{ID: "cr-0123456789abcdef0", InstanceType: "m5.large", Zone: "us-east-1a", Count: 2,
		MatchCriteria: "targeted", End: 10 * time.Hour}}
	eng, m := newTestMarket(t, 1, cfg)
	o := reservedOffering("cr-0123456789abcdef0", "m5.large", "us-east-1a")
	free, ok := m.ReservationFree("cr-0123456789abcdef0")
	require.True(t, ok)
	assert.Equal(t, 2, free)
	ids := launchN(t, m, o, 2)
	res, err := m.Launch(LaunchRequest{Owner: "t", Offerings: []Offering{o}, Strategy: LowestPrice})
	require.Error(t, err, "a full reservation refuses the third launch")
	require.Len(t, res.Errors, 1)
	assert.Equal(t, CodeReservationCapacityExceeded, res.Errors[0].Code)
	assert.True(t, res.Errors[0].IsCapacityError())
	m.Terminate(ids[1])
	free, _ = m.ReservationFree("cr-0123456789abcdef0")
	assert.Equal(t, 1, free, "a terminated instance frees its slot")

	eng.Run(12 * time.Hour)
	free, _ = m.ReservationFree("cr-0123456789abcdef0")
	assert.Equal(t, 0, free, "an ended reservation takes nothing")
	od, _, _ := testCatalog(t).OnDemandPrice("us-east-1", "m5.large")
	// ids[0] ran 12 h: free for 10 h, then 2 h on demand.
	assert.InDelta(t, 2*od, m.CostUSD(ids[0], eng.Now()), 1e-9)
	st := m.ReservationStats(eng.Now())
	require.Len(t, st, 1)
	assert.InDelta(t, 20, st[0].ReservedHours, 1e-9, "2 instances x 10 h, used or not")
	assert.InDelta(t, 10, st[0].UsedHours, 1e-6, "ids[0] for 10 h, ids[1] for 0 h")
	assert.InDelta(t, 20*od, st[0].CostUSD, 1e-9)
}

// A Capacity Block's instances are reclaimed 30 minutes before its end
// (Terminated, no notice); it takes no launch from then on.
func TestReservationCapacityBlock(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Reservations = []Reservation{{ID: "cr-0aaaaaaaaaaaaaaa1", InstanceType: "p5.48xlarge", Zone: "us-east-1b", Count: 1,
		Kind: cloud.ReservationCapacityBlock, MatchCriteria: "targeted", Start: time.Hour, End: 25 * time.Hour, PriceUSDPerHour: 31.464}}
	eng, m := newTestMarket(t, 1, cfg)
	rec := &recorder{}
	m.Subscribe(rec)
	o := reservedOffering("cr-0aaaaaaaaaaaaaaa1", "p5.48xlarge", "us-east-1b")
	_, err := m.Launch(LaunchRequest{Owner: "t", Offerings: []Offering{o}, Strategy: LowestPrice})
	require.Error(t, err, "no launch before the block starts")
	eng.Run(time.Hour)
	id := launchN(t, m, o, 1)[0]
	eng.Run(24*time.Hour + 29*time.Minute)
	require.Empty(t, rec.sigs)
	eng.Run(24*time.Hour + 31*time.Minute)
	require.Len(t, rec.sigs, 1)
	assert.Equal(t, cloud.Terminated, rec.sigs[0].Kind)
	assert.Equal(t, id, rec.sigs[0].Instance)
	assert.Equal(t, 24*time.Hour+30*time.Minute, rec.sigs[0].At)
	st := m.ReservationStats(30 * time.Hour)
	assert.InDelta(t, 24, st[0].ReservedHours, 1e-9, "the whole block is paid")
	assert.InDelta(t, 23.5, st[0].UsedHours, 1e-6)
	assert.InDelta(t, 24*31.464, st[0].CostUSD, 1e-6)
	assert.Equal(t, uint64(1), m.Stats().ReservationReclaims)
}

// An interruptible reservation's owner takes capacity back: it shrinks
// and as many of its instances get the two-minute notice.
func TestReservationInterruptible(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Reservations = []Reservation{{ID: "cr-0bbbbbbbbbbbbbbb2", InstanceType: "m5.large", Zone: "us-east-1c", Count: 4,
		Interruptible: true, MatchCriteria: "open", Interruptions: []cloud.ReservationInterruption{{At: 2 * time.Hour, Count: 3}}}}
	eng, m := newTestMarket(t, 1, cfg)
	rec := &recorder{}
	m.Subscribe(rec)
	o := reservedOffering("cr-0bbbbbbbbbbbbbbb2", "m5.large", "us-east-1c")
	launchN(t, m, o, 2)
	eng.Run(2*time.Hour + 3*time.Minute)
	var notices, gone int
	for _, s := range rec.sigs {
		switch s.Kind {
		case cloud.InterruptionNotice:
			notices++
			assert.Equal(t, 2*time.Hour+2*time.Minute, s.Deadline)
		case cloud.Terminated:
			gone++
		}
	}
	assert.Equal(t, 2, notices, "both running instances of the 3 taken back")
	assert.Equal(t, 2, gone)
	free, _ := m.ReservationFree("cr-0bbbbbbbbbbbbbbb2")
	assert.Equal(t, 1, free, "4 - 3 left, none running")
	st := m.ReservationStats(4 * time.Hour)
	assert.InDelta(t, 4*2+1*2, st[0].ReservedHours, 1e-9)
}

func TestReservationValidation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Reservations = []Reservation{
		{ID: "cr-X", InstanceType: "m5.large", Zone: "us-east-1a", Count: 0, MatchCriteria: "sometimes"},
		{ID: "cr-0a", InstanceType: "m5.large", Zone: "us-east-1a", Count: 1, MatchCriteria: "open", Kind: cloud.ReservationCapacityBlock, Interruptible: true},
		{ID: "cr-0b", InstanceType: "m5.large", Zone: "us-east-1a", Count: 1, MatchCriteria: "open", Interruptions: []cloud.ReservationInterruption{{At: time.Hour, Count: 1}}},
	}
	err := cfg.Validate()
	require.Error(t, err)
	for _, want := range []string{
		"market.reservations[0].id: \"cr-X\" is not a capacity reservation id",
		"market.reservations[0].count: must be at least 1",
		"market.reservations[0].instanceMatchCriteria: use open or targeted",
		"market.reservations[1].end: a capacity block has an end time",
		"market.reservations[1].interruptible: capacity blocks are not interruptible",
		"market.reservations[2].interruptions: only an interruptible reservation is interrupted",
	} {
		assert.Contains(t, err.Error(), want)
	}
	cfg = DefaultConfig()
	cfg.Reservations = []Reservation{{ID: "cr-0c", InstanceType: "m5.nope", Zone: "us-west-2a", Count: 1, MatchCriteria: "open"}}
	_, err = New(engine.New(1), testCatalog(t), "us-east-1", testZones, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "market.reservations[0].instanceType: unknown instance type \"m5.nope\"")
	assert.Contains(t, err.Error(), "market.reservations[0].zone: \"us-west-2a\" is not one of the market's zones")
}
