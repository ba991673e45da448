package spotmarket

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readExample(t *testing.T) Trace {
	f, err := os.Open("testdata/example-incident.csv")
	require.NoError(t, err)
	defer f.Close()
	tr, err := ReadTrace(f, "example-incident.csv")
	require.NoError(t, err)
	return tr
}

func TestReadTraceFormats(t *testing.T) {
	tr := readExample(t)
	require.Len(t, tr.Events, 18)
	assert.Equal(t, TraceEvent{Line: 12, At: 0, Pool: spotOffering("c5.large", zoneA), Kind: TracePrice, Value: 0.0349}, tr.Events[0])
	assert.Equal(t, TraceEvent{Line: 20, At: 30 * time.Minute, Pool: spotOffering("c5.large", zoneA), Kind: TraceInterrupt, Value: 0.8}, tr.Events[8])

	jsonl := `# the same kinds as JSON Lines
{"time": "0s", "pool": "c5.large/us-east-1a/spot", "kind": "price", "value": 0.0349}

{"time": 1800, "pool": "c5.large/us-east-1a", "kind": "state", "value": "exhausted"}
{"time": "1d2h", "pool": "c5.large/us-east-1a/spot", "kind": "interrupt"}
{"time": "1d2h", "pool": "m5.large/us-east-1b/on-demand", "kind": "state", "value": "exhausted"}
`
	for _, name := range []string{"t.jsonl", "t"} { // by extension, and sniffed
		tr, err := ReadTrace(strings.NewReader(jsonl), name)
		require.NoError(t, err)
		assert.Equal(t, []TraceEvent{
			{Line: 2, At: 0, Pool: spotOffering("c5.large", zoneA), Kind: TracePrice, Value: 0.0349},
			{Line: 4, At: 30 * time.Minute, Pool: spotOffering("c5.large", zoneA), Kind: TraceState, State: RegimeExhausted},
			{Line: 5, At: 26 * time.Hour, Pool: spotOffering("c5.large", zoneA), Kind: TraceInterrupt, Value: 1},
			{Line: 6, At: 26 * time.Hour, Pool: Offering{InstanceType: "m5.large", Zone: "us-east-1b", CapacityType: cluster.OnDemand}, Kind: TraceState, State: RegimeExhausted},
		}, tr.Events)
	}
}

func TestReadTraceErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"order.csv", "time,pool,kind,value\n30m,c5.large/us-east-1a,state,exhausted\n20m,c5.large/us-east-1a,state,available\n",
			[]string{"order.csv:3: time: 20m0s is before 30m0s on line 2; lines must be in time order"}},
		{"kind.csv", "# c\ntime,pool,kind,value\n0s,c5.large/us-east-1a,interupt,1\n",
			[]string{`kind.csv:3: kind: unknown kind "interupt"; want price, state, interrupt, rebalance or depth`}},
		{"many.csv", "time,pool,kind,value\nsoon,c5.large,price,-1\n1m,c5.large/us-east-1a/on-demand,interrupt,2\n2m,c5.large/us-east-1a,state,gone\n",
			[]string{
				`many.csv:2: time: "soon" is not a duration`,
				`many.csv:2: pool: "c5.large" is not instanceType/zone[/capacityType]`,
				`many.csv:2: value: a price needs a value in USD per hour > 0, got "-1"`,
				`many.csv:3: value: interrupt needs the fraction of the pool's instances hit, > 0 and <= 1 (default 1), got "2"`,
				`many.csv:3: pool: interrupt applies to spot pools only`,
				`many.csv:4: value: unknown state "gone"`,
			}},
		{"price.csv", "time,pool,kind,value\n0s,c5.large/us-east-1a,price,1e300\n",
			[]string{`price.csv:2: value: price 1e300 is more than $10000 per hour, far above any EC2 instance's; give USD per hour (check the unit)`}},
		{"header.csv", "when,pool,kind\n", []string{`header.csv:1: header: unknown column "when"`, `header.csv:1: header: no "time" column`}},
		{"bad.jsonl", "{\"time\": \"1m\", \"pool\": \"c5.large/us-east-1a\", \"kind\": \"price\", \"value\": 1, \"extra\": 1}\n{\"time\": \"1m\",\n",
			[]string{`bad.jsonl:1: json: unknown field "extra"`, "bad.jsonl:2: unexpected EOF"}},
		{"empty.csv", "time,pool,kind,value\n", []string{"empty.csv: no events"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTrace(strings.NewReader(tc.text), tc.name)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, len(tc.want), strings.Count(err.Error(), "\n")+1, "%v", err)
		})
	}
}

func TestReplayUnknownPools(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader(`time,pool,kind,value
0s,c5.larg/us-east-1a,price,1
1m,c5.large/us-east-1d,state,exhausted
2m,c8a.large/us-east-1a/spot,interrupt,1
3m,c5.large/us-east-1a,price,1
`), "pools.csv")
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.Model = ModelReplay
	cfg.Trace = &tr
	_, err = New(engine.New(1), testCatalog(t), "us-east-1", testZones, cfg)
	require.Error(t, err)
	assert.Equal(t, `pools.csv:2: pool: unknown instance type "c5.larg"
pools.csv:3: pool: zone "us-east-1d" is not one of the market's zones [us-east-1a us-east-1b us-east-1c]
pools.csv:4: pool: c8a.large has no Spot Advisor data in us-east-1, so the market has no spot pool for it`, err.Error())
}

func TestReplayDrivesTheMarket(t *testing.T) {
	tr := readExample(t)
	cfg := DefaultConfig()
	cfg.Model = ModelReplay
	cfg.Trace = &tr
	eng, m := newTestMarket(t, 1, cfg)
	rec := &recorder{}
	m.Subscribe(rec)
	c5l, c5x, m5b := spotOffering("c5.large", zoneA), spotOffering("c5.xlarge", zoneA), spotOffering("m5.large", "us-east-1b")
	for _, o := range []Offering{c5l, c5x, m5b} {
		launchN(t, m, o, 10)
	}
	regime := func(o Offering) Regime { r, _ := m.Regime(o); return r }
	price := func(o Offering) float64 { p, _ := m.Price(o); return p }

	eng.Run(21 * time.Minute)
	assert.Equal(t, RegimeConstrained, regime(c5l))
	assert.Equal(t, 0.0748, price(c5x))
	eng.Run(31*time.Minute + time.Second)
	assert.False(t, m.Available(c5l))
	assert.False(t, m.Available(c5x))
	assert.True(t, m.Available(m5b))
	eng.Run(46 * time.Minute)
	assert.Equal(t, 0.0412, price(c5l))
	assert.Equal(t, RegimeConstrained, regime(m5b))
	eng.Run(3 * time.Hour)
	for _, o := range []Offering{c5l, c5x, m5b} {
		assert.Equal(t, RegimeAvailable, regime(o))
	}
	assert.Equal(t, 0.0365, price(c5l))

	count := map[Offering][3]int{}
	for _, s := range rec.sigs {
		c := count[s.Offering]
		c[s.Kind]++
		count[s.Offering] = c
		switch s.Kind {
		case InterruptionNotice:
			assert.Contains(t, []time.Duration{30 * time.Minute, 31 * time.Minute}, s.At)
		case RebalanceRecommendation:
			assert.Equal(t, 25*time.Minute, s.At)
		}
	}
	// rebalance 0.5 of 10, interrupt 0.8 of 10 (then reclaimed); m5 untouched.
	assert.Equal(t, map[Offering][3]int{c5l: {5, 8, 8}, c5x: {5, 8, 8}}, count)

	// Billing follows the replayed price steps: a c5.large that survived
	// cost 0.0349 $/h until 45m, 0.0412 until 2h, then 0.0365.
	var survivor InstanceID
	for id := InstanceID(1); id <= 10; id++ {
		if info, _ := m.Instance(id); info.State == InstanceRunning {
			survivor = id
		}
	}
	require.NotEqual(t, NoInstance, survivor)
	want := 0.0349*0.75 + 0.0412*1.25 + 0.0365*1
	assert.InDelta(t, want, m.CostUSD(survivor, 3*time.Hour), 1e-12)
}
