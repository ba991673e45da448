package spotmarket

import (
	"strings"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfigIsValid(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	require.NoError(t, DefaultConfig().ShocksOff().Validate())
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		mod  func(c *Config)
		want string
	}{
		{func(c *Config) { c.HazardMultiplier = -1 }, "market.hazardMultiplier: must be >= 0, got -1"},
		{func(c *Config) { c.Model = 7 }, "market.model: unknown model 7; want stochastic, replay or off"},
		{func(c *Config) { c.BandReclaim[4] = 1 }, "market.bandReclaim[4]: must be >= 0 and < 1 (a 30-day reclaim fraction), got 1"},
		{func(c *Config) { c.NoticeLead = 0 }, "market.noticeLead: must be positive, got 0s"},
		{func(c *Config) { c.Regimes.Shape = 0 }, "market.regimes.shape: must be > 0, got 0"},
		{func(c *Config) { c.Regimes.ExhaustedMedian = -time.Minute }, "market.regimes.exhaustedMedian: must be positive, got -1m0s"},
		{func(c *Config) { c.Regimes.AvailableToExhausted = 1.5 }, "market.regimes.availableToExhausted: must be between 0 and 1, got 1.5"},
		{func(c *Config) { c.Regimes.ConstrainedFailure = -0.1 }, "market.regimes.constrainedFailure: must be between 0 and 1, got -0.1"},
		{func(c *Config) { c.OnDemand.AvailableMedian = 0 }, "market.onDemand.availableMedian: must be positive, got 0s"},
		{func(c *Config) { c.Shocks.Share = 2 }, "market.shocks.share: must be between 0 and 1, got 2"},
		{func(c *Config) { c.Shocks.Zone.PerDay = -1 }, "market.shocks.zone.perDay: must be >= 0, got -1"},
		{func(c *Config) { c.Shocks.Region.ReclaimFraction = 0 }, "market.shocks.region.reclaimFraction: must be > 0 and <= 1, got 0"},
		{func(c *Config) { c.Rebalance.PerNotice = 0.5 }, "market.rebalance.perNotice: must be >= earlyProb + withNoticeProb (0.8), got 0.5"},
		{func(c *Config) { c.Rebalance.EarlyLeadMax = time.Minute }, "market.rebalance.earlyLeadMax: must be >= earlyLeadMin (17m0s), got 1m0s"},
		{func(c *Config) { c.Price.DriftSigma = 1 }, "market.price.driftSigma: must be >= 0 and < 1, got 1"},
		{func(c *Config) { c.Latency.ASG = nil }, "market.latency.asg: is required (a duration distribution)"},
		{func(c *Config) { c.SpotVCPUQuota = -1 }, "market.spotVCPUQuota: must be >= 0 (0 = unlimited), got -1"},
		{func(c *Config) { c.Events = []ScriptedEvent{{At: time.Minute}} }, "market.events[0]: does nothing; set state, interruptFraction, rebalanceFraction or joinFailure"},
		{func(c *Config) { c.Events = []ScriptedEvent{{InterruptFraction: 1.2, State: RegimeExhausted}} }, "market.events[0].interruptFraction: must be between 0 and 1, got 1.2"},
		{func(c *Config) { c.Events = []ScriptedEvent{{For: time.Hour, RebalanceFraction: 1}} }, "market.events[0].for: needs a state or a join failure to hold"},
		{func(c *Config) { c.Model = ModelReplay }, "market.trace: is required when the model is replay"},
		{func(c *Config) { c.Trace = &Trace{} }, "market.trace: is set but the model is stochastic; set model: replay to replay it"},
	} {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		require.Error(t, err, tc.want)
		assert.Equal(t, tc.want, err.Error())
	}
	// Every problem at once.
	c := DefaultConfig()
	c.HazardMultiplier, c.NoticeLead = -1, 0
	assert.Equal(t, 2, strings.Count(c.Validate().Error(), "market."))
}

func TestNewChecksNames(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Events = []ScriptedEvent{{Families: []string{"c5", "c5x"}, Zones: []string{"us-east-1z"}, InstanceTypes: []string{"m5.larg"}, State: RegimeExhausted}}
	_, err := New(engine.New(1), testCatalog(t), "us-east-1", testZones, cfg)
	require.Error(t, err)
	assert.Equal(t, `market.events[0].instanceTypes[0]: unknown instance type "m5.larg"
market.events[0].families[1]: unknown instance family "c5x" (families are the part before the dot, e.g. c5)
market.events[0].zones[0]: zone "us-east-1z" is not one of the market's zones [us-east-1a us-east-1b us-east-1c]`, err.Error())

	_, err = New(engine.New(1), testCatalog(t), "mars-1", []string{"us-east-1a", "us-east-1a"}, DefaultConfig())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `market.region: "mars-1" has no Spot Advisor data`)
	assert.Contains(t, err.Error(), `market.zones[0]: "us-east-1a" is not a zone of mars-1`)
	assert.Contains(t, err.Error(), `market.zones[1]: "us-east-1a" is listed twice`)
}
