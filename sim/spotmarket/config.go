package spotmarket

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
)

// Model says what drives the market.
type Model uint8

// Models.
const (
	// ModelStochastic: regimes, reclaims, shocks and price drift are drawn
	// from the seeded model (the default).
	ModelStochastic Model = iota
	// ModelReplay: a recorded [Trace] sets states, prices, interruptions
	// and rebalance recommendations; nothing is random but the choice of
	// which instances a trace line hits, launch failures in constrained
	// pools, and launch latencies.
	ModelReplay
	// ModelOff: every pool is always available at its list or advisor
	// price and nothing is ever reclaimed. Only [Config.Events] act.
	ModelOff
)

var modelNames = [...]string{"stochastic", "replay", "off"}

func (m Model) String() string {
	if int(m) < len(modelNames) {
		return modelNames[m]
	}
	return fmt.Sprintf("Model(%d)", m)
}

// ParseModel reads "stochastic", "replay" or "off".
func ParseModel(s string) (Model, bool) {
	for i, n := range modelNames {
		if n == s {
			return Model(i), true
		}
	}
	return ModelStochastic, false
}

// Defaults. Each says where it comes from: "docs" is docs/models.md "Spot
// market", its "Defaults and sources" (what AWS and the literature publish);
// "issue 4" is the issue that specified this package; "assumption" marks a
// value no source pins down, chosen to meet the calibration targets that
// are stated next to it and checked by the tests.
const (
	// DefaultHazardMultiplier scales every reclaim hazard, background and
	// shocks alike (issue 4: global knob). 1 = calibrated to the advisor.
	DefaultHazardMultiplier = 1.0

	// Fraction of instances reclaimed in 30 days, per Spot Advisor band
	// (docs: band midpoints, read as the share reclaimed over a trailing
	// month). The open band ">20%" has no midpoint; 25% is an assumption
	// (the midpoint of 20-30%: the advisor's label caps at 100%, which
	// would put the middle at an implausible 60%).
	DefaultReclaimBand0 = 0.025 // "<5%"
	DefaultReclaimBand1 = 0.075 // "5-10%"
	DefaultReclaimBand2 = 0.125 // "10-15%"
	DefaultReclaimBand3 = 0.175 // "15-20%"
	DefaultReclaimBand4 = 0.25  // ">20%" (assumption, see above)

	// DefaultNoticeLead is the spot interruption notice: two minutes before
	// the reclaim (docs).
	DefaultNoticeLead = 2 * time.Minute

	// DefaultRegimeShape is the Weibull shape of every regime holding time
	// and shock duration (docs: availability spells Weibull shape about
	// 0.6).
	DefaultRegimeShape = 0.6
	// Median holding times of the spot regimes (docs: medians 0.15 to
	// 0.6 h; with shape 0.6, p90 = 7.4 x median, up to 4.4 h, and the
	// longest of ~10^5 spells near 80 h).
	DefaultAvailableMedian   = 36 * time.Minute // 0.6 h
	DefaultConstrainedMedian = 18 * time.Minute // 0.3 h
	DefaultExhaustedMedian   = 9 * time.Minute  // 0.15 h
	// DefaultRegimeDurationScale multiplies the three medians (issue 4:
	// global knob for regime durations).
	DefaultRegimeDurationScale = 1.0
	// Regime transitions (assumption). A regime that ends moves to one of
	// the other two; these set which. With the medians above a pool is
	// available 59%, constrained 33% and exhausted 8% of the time.
	DefaultAvailableToExhausted   = 0.2 // else constrained
	DefaultConstrainedToExhausted = 0.3 // else available
	DefaultExhaustedToAvailable   = 0.4 // else constrained
	// Relative reclaim hazard in each regime (assumption; available = 1).
	// The hazards are normalised so that their time-weighted mean is 1:
	// the regimes move reclaims in time without changing how many there are.
	DefaultConstrainedHazard = 3.0
	DefaultExhaustedHazard   = 10.0
	// DefaultConstrainedFailure is the probability that a launch in a
	// constrained pool fails with InsufficientInstanceCapacity
	// (assumption; issue 4: "a constrained pool fails with some
	// probability").
	DefaultConstrainedFailure = 0.5

	// On-demand pools run out rarely (issue 4, docs; rates are an
	// assumption): spells of availability with median 500 h, interrupted by
	// exhaustion with median 15 min (about 0.05% of the time), both Weibull
	// with DefaultRegimeShape. On-demand instances are never reclaimed.
	DefaultOnDemandAvailableMedian = 500 * time.Hour
	DefaultOnDemandExhaustedMedian = 15 * time.Minute

	// DefaultShockShare is the share of each band's reclaims delivered by
	// correlated shocks rather than independent per-instance hazard
	// (assumption, calibrated: it puts the share of reclaim events that
	// take several instances of a pool within 3 min at about 0.35 for pools
	// of 5 to 10 instances and 0.25 for 20, inside the docs' observed
	// 22-50%).
	DefaultShockShare = 0.7
	// DefaultShockRateScale multiplies every level's shock rate (issue 4:
	// global knob). It changes how often shocks move regimes, not how many
	// instances they reclaim in total (that is ShockShare of the band).
	DefaultShockRateScale = 1.0
	// DefaultShockSpreadMean is the mean of the exponential delay between a
	// shock and each notice it causes (docs: over 92% of
	// co-interruptions in one pool within 3 min; with a 60 s mean, 95% of
	// pairs of notices of one shock are within 3 min).
	DefaultShockSpreadMean = 60 * time.Second

	// Shock levels (docs: shocks hit a family in a zone, a zone, the
	// region; sizes of one family share fate; zones correlate about 0.4).
	// Rates are per target per day (assumption). Weights split the shock
	// share of reclaims between levels; the region's 0.5 is calibrated to
	// the docs' zone correlation: it puts the correlation of one type's
	// weekly reclaim counts in two zones at about 0.4 (0.33 with 0.4).
	// Reclaim fractions are the mean share of a hit pool's instances
	// reclaimed (assumption, see DefaultShockShare). Durations are the
	// median time a shock holds regimes down (assumption).
	DefaultFamilyZoneShocksPerDay = 1.0 / 7 // per family per zone
	DefaultFamilyZoneWeight       = 0.3
	DefaultFamilyZoneReclaim      = 0.35
	DefaultFamilyZoneDuration     = 30 * time.Minute
	DefaultZoneShocksPerDay       = 1.0 / 14 // per zone
	DefaultZoneWeight             = 0.2
	DefaultZoneReclaim            = 0.35
	DefaultZoneDuration           = 20 * time.Minute
	DefaultRegionShocksPerDay     = 1.0 / 30 // per region
	DefaultRegionWeight           = 0.5
	DefaultRegionReclaim          = 0.35
	DefaultRegionDuration         = 15 * time.Minute

	// Rebalance recommendations (docs: about 2 per actual notice; some
	// 17 min to 9 h before it, some with it, some never followed by a
	// reclaim). The split between early, with-notice and none is an
	// assumption; PerNotice - EarlyProb - WithNoticeProb = 1.2 per notice
	// are false alarms.
	DefaultRebalancePerNotice  = 2.0
	DefaultRebalanceEarly      = 0.5
	DefaultRebalanceWithNotice = 0.3
	DefaultRebalanceLeadMin    = 17 * time.Minute // docs
	DefaultRebalanceLeadMax    = 9 * time.Hour    // docs

	// Spot price drift (docs: spot price changes rarely and smoothly;
	// magnitudes are an assumption): the price is base x (1 + d(t)), d a
	// stationary Gauss-Markov process with standard deviation 5% sampled
	// every 6 h, correlation time 2 days, linear in between, and the price
	// kept between half the advisor estimate and the on-demand price.
	DefaultPriceDriftSigma       = 0.05
	DefaultPriceDriftKnot        = 6 * time.Hour
	DefaultPriceDriftCorrelation = 48 * time.Hour

	// DefaultMinBilled is EC2's minimum charge for a Linux instance: per
	// second, at least 60 s (AWS EC2 pricing, per-second billing).
	DefaultMinBilled = 60 * time.Second

	// Nodes that never join, and slow joins (assumption: no public dataset
	// gives either rate). DefaultJoinFailureShare is the share of launched
	// instances whose node never registers (a bootstrap script that fails,
	// a bad AMI, a kubelet that cannot reach the API server, an instance
	// that fails its status checks): Karpenter's 15-minute registration
	// timeout and the Cluster Autoscaler's unregistered-node handling exist
	// because this happens, but its rate is not published. 0.2% (1 in 500)
	// is small enough that a healthy cluster sees it as an occasional
	// timeout (a cluster launching a few hundred nodes a day sees about one
	// a day), not as a failure mode that dominates its numbers; incidents
	// (a bad AMI rollout) are scripted events with their own share.
	DefaultJoinFailureShare = 0.002
	// DefaultSlowJoinShare of the instances that join take minutes longer
	// than the launch latency (slow image pulls, user-data scripts, driver
	// installs): the long tail of node start-up that users report beyond
	// the typical 30-60 s (docs). 1% of launches, each delayed by a
	// lognormal extra time with median 3 min and p90 8 min, so 2% of the
	// slow ones (1 launch in 5,000) still overrun a 15-minute registration
	// timeout.
	DefaultSlowJoinShare       = 0.01
	DefaultSlowJoinExtraMedian = 3 * time.Minute
	DefaultSlowJoinExtraP90    = 8 * time.Minute

	// DefaultSpotVCPUQuota is the account's spot vCPU quota; 0 = unlimited
	// (assumption: scenarios model a raised quota unless they say so).
	DefaultSpotVCPUQuota = 0
)

// Launch latency defaults (docs): Karpenter node Ready typically 30-60 s
// (maintainer 30-40 s, users 40-120 s): lognormal median 45 s, p90 80 s.
// ASG launch for the Cluster Autoscaler 1-2 min (AWS) to 3-4 min (CA FAQ):
// lognormal median 100 s, p90 210 s.
const (
	DefaultFleetLatencyMedian = 45 * time.Second
	DefaultFleetLatencyP90    = 80 * time.Second
	DefaultASGLatencyMedian   = 100 * time.Second
	DefaultASGLatencyP90      = 210 * time.Second
)

// Config sets the market up. Start from [DefaultConfig]; the zero value is
// not valid.
type Config struct {
	Model Model
	// HazardMultiplier scales every reclaim hazard (>= 0).
	HazardMultiplier float64
	// BandReclaim is, per Spot Advisor band 0..4, the fraction of instances
	// reclaimed within 30 days (0 <= f < 1).
	BandReclaim [5]float64
	// NoticeLead is the time from interruption notice to reclaim.
	NoticeLead time.Duration
	Regimes    RegimeConfig
	OnDemand   OnDemandConfig
	Shocks     ShockConfig
	Rebalance  RebalanceConfig
	Price      PriceConfig
	Latency    LatencyConfig
	// Depth sets how many instances a pool can give at once (depth.go).
	Depth DepthConfig
	// Join is what happens between a launch and its node joining the
	// cluster: a share never joins, a share joins late.
	Join JoinConfig
	// SpotVCPUQuota caps the vCPUs of running spot instances (0 = no cap);
	// a launch over it fails with MaxSpotInstanceCountExceeded.
	SpotVCPUQuota int
	// MinBilled is the minimum billed time of an instance that ended.
	MinBilled time.Duration
	// Events are scripted market events, applied in every model.
	Events []ScriptedEvent
	// Trace drives the market when Model is ModelReplay (required then,
	// refused otherwise).
	Trace *Trace
	// Reservations are the account's capacity reservations
	// (reservation.go).
	Reservations []Reservation
}

// RegimeConfig is the capacity-regime process of spot pools.
type RegimeConfig struct {
	Shape                                               float64 // Weibull shape of holding times
	AvailableMedian, ConstrainedMedian, ExhaustedMedian time.Duration
	DurationScale                                       float64 // multiplies the three medians
	AvailableToExhausted                                float64 // P(available -> exhausted), else constrained
	ConstrainedToExhausted                              float64 // P(constrained -> exhausted), else available
	ExhaustedToAvailable                                float64 // P(exhausted -> available), else constrained
	ConstrainedHazard, ExhaustedHazard                  float64 // reclaim hazard relative to available
	ConstrainedFailure                                  float64 // P(a launch in a constrained pool fails)
}

// OnDemandConfig is the (rare) exhaustion of on-demand pools. Holding times
// are Weibull with Regimes.Shape.
type OnDemandConfig struct {
	AvailableMedian, ExhaustedMedian time.Duration
}

// ShockConfig is the correlated part of the reclaims.
type ShockConfig struct {
	// Share of each band's reclaims that shocks deliver (0..1); the rest is
	// independent per-instance hazard. With every level's rate at 0 the
	// whole band goes to the independent hazard.
	Share      float64
	RateScale  float64       // multiplies every level's PerDay
	SpreadMean time.Duration // mean delay from a shock to each of its notices
	FamilyZone ShockLevel    // one instance family in one zone
	Zone       ShockLevel    // one zone (also constrains the hit types in the other zones)
	Region     ShockLevel    // the whole region
}

// ShockLevel is one level of correlated shocks.
type ShockLevel struct {
	PerDay          float64       // shocks per target per day (>= 0; 0 turns the level off)
	Weight          float64       // share of the shock reclaims from this level (normalised over levels that are on)
	ReclaimFraction float64       // mean share of a hit pool's instances reclaimed (0 < f <= 1)
	Duration        time.Duration // median time the shock holds regimes down
}

// RebalanceConfig sets the rebalance recommendations.
type RebalanceConfig struct {
	PerNotice      float64       // rebalance recommendations per interruption notice, on average
	EarlyProb      float64       // P(a reclaimed instance got one EarlyLeadMin..EarlyLeadMax before the notice)
	WithNoticeProb float64       // P(it came together with the notice)
	EarlyLeadMin   time.Duration // early lead times are log-uniform on [min, max]
	EarlyLeadMax   time.Duration
}

// PriceConfig sets the spot price drift.
type PriceConfig struct {
	DriftSigma       float64       // standard deviation of the relative deviation (0 = constant price)
	DriftKnot        time.Duration // sampling interval; linear in between
	DriftCorrelation time.Duration // correlation time of the deviation
}

// LatencyConfig is the time from launch to node Ready, per [LatencyProfile].
type LatencyConfig struct {
	Fleet dist.Duration
	ASG   dist.Duration
}

// JoinConfig sets how launched instances join the cluster. Initial nodes
// of node groups are not launched through the market's join (they are the
// cluster as it stands).
type JoinConfig struct {
	// FailureShare of launched instances never join (0..1): the instance
	// runs and is billed, its node never registers.
	FailureShare float64
	// SlowShare of the instances that join become Ready SlowExtra (a
	// sample) later than the launch latency says (0..1).
	SlowShare float64
	SlowExtra dist.Duration
}

// ScriptedEvent is a market event a scenario fixes in advance, e.g. "at 30m,
// pools of families c5, c5a, c6i in us-east-1a become exhausted for 45m and
// 80% of their instances get a notice". A pool matches when it matches every
// non-empty selector.
type ScriptedEvent struct {
	At            time.Duration
	For           time.Duration          // how long State holds; 0 = to the end of the run
	InstanceTypes []string               // exact types; empty = any
	Families      []string               // instance families ("c5"); empty = any
	Zones         []string               // empty = any of the market's zones
	CapacityTypes []cluster.CapacityType // empty = spot only
	// State forces the matching pools' regime while the event holds
	// (RegimeUnset = leave it alone). It overrides the stochastic regime and
	// shocks; of two scripted events the one started later wins.
	State Regime
	// InterruptFraction of each matching spot pool's running instances
	// (rounded up) get an interruption notice at At (0..1).
	InterruptFraction float64
	// RebalanceFraction of them get a rebalance recommendation at At (0..1).
	RebalanceFraction float64
	// JoinFailure, while the event holds, is the share of launches into
	// the matching pools whose node never joins (0..1; a bad AMI rollout
	// is 1). For join failures an empty CapacityTypes means any capacity
	// type, and Groups, when set, narrows the event to launches for those
	// NodePools or node groups.
	JoinFailure float64
	// JoinNotReady makes the join failure's nodes register and never
	// become Ready (LaunchResult.NeverReady) instead of never registering.
	JoinNotReady bool
	Groups       []LaunchGroup
}

// DefaultConfig returns the calibrated defaults (see the Default*
// constants for each value's source).
func DefaultConfig() Config {
	fleet, err := dist.NewLogNormal(DefaultFleetLatencyMedian, DefaultFleetLatencyP90)
	if err != nil {
		panic(err) // constants
	}
	asg, err := dist.NewLogNormal(DefaultASGLatencyMedian, DefaultASGLatencyP90)
	if err != nil {
		panic(err)
	}
	slow, err := dist.NewLogNormal(DefaultSlowJoinExtraMedian, DefaultSlowJoinExtraP90)
	if err != nil {
		panic(err)
	}
	return Config{
		Model:            ModelStochastic,
		HazardMultiplier: DefaultHazardMultiplier,
		BandReclaim:      [5]float64{DefaultReclaimBand0, DefaultReclaimBand1, DefaultReclaimBand2, DefaultReclaimBand3, DefaultReclaimBand4},
		NoticeLead:       DefaultNoticeLead,
		Regimes: RegimeConfig{
			Shape:                  DefaultRegimeShape,
			AvailableMedian:        DefaultAvailableMedian,
			ConstrainedMedian:      DefaultConstrainedMedian,
			ExhaustedMedian:        DefaultExhaustedMedian,
			DurationScale:          DefaultRegimeDurationScale,
			AvailableToExhausted:   DefaultAvailableToExhausted,
			ConstrainedToExhausted: DefaultConstrainedToExhausted,
			ExhaustedToAvailable:   DefaultExhaustedToAvailable,
			ConstrainedHazard:      DefaultConstrainedHazard,
			ExhaustedHazard:        DefaultExhaustedHazard,
			ConstrainedFailure:     DefaultConstrainedFailure,
		},
		OnDemand: OnDemandConfig{
			AvailableMedian: DefaultOnDemandAvailableMedian,
			ExhaustedMedian: DefaultOnDemandExhaustedMedian,
		},
		Shocks: ShockConfig{
			Share:      DefaultShockShare,
			RateScale:  DefaultShockRateScale,
			SpreadMean: DefaultShockSpreadMean,
			FamilyZone: ShockLevel{DefaultFamilyZoneShocksPerDay, DefaultFamilyZoneWeight, DefaultFamilyZoneReclaim, DefaultFamilyZoneDuration},
			Zone:       ShockLevel{DefaultZoneShocksPerDay, DefaultZoneWeight, DefaultZoneReclaim, DefaultZoneDuration},
			Region:     ShockLevel{DefaultRegionShocksPerDay, DefaultRegionWeight, DefaultRegionReclaim, DefaultRegionDuration},
		},
		Rebalance: RebalanceConfig{
			PerNotice:      DefaultRebalancePerNotice,
			EarlyProb:      DefaultRebalanceEarly,
			WithNoticeProb: DefaultRebalanceWithNotice,
			EarlyLeadMin:   DefaultRebalanceLeadMin,
			EarlyLeadMax:   DefaultRebalanceLeadMax,
		},
		Price: PriceConfig{
			DriftSigma:       DefaultPriceDriftSigma,
			DriftKnot:        DefaultPriceDriftKnot,
			DriftCorrelation: DefaultPriceDriftCorrelation,
		},
		Latency:       LatencyConfig{Fleet: fleet, ASG: asg},
		Depth:         DefaultDepth(),
		Join:          JoinConfig{FailureShare: DefaultJoinFailureShare, SlowShare: DefaultSlowJoinShare, SlowExtra: slow},
		SpotVCPUQuota: DefaultSpotVCPUQuota,
		MinBilled:     DefaultMinBilled,
	}
}

// ShocksOff returns c with every shock level turned off, so the whole band
// hazard is independent per instance.
func (c Config) ShocksOff() Config {
	c.Shocks.FamilyZone.PerDay = 0
	c.Shocks.Zone.PerDay = 0
	c.Shocks.Region.PerDay = 0
	return c
}

// Validate checks the values on their own (names of types, families and
// zones are checked by [New], which knows the catalogue). It returns every
// problem, each as "market.<field path>: <what is wrong>".
func (c Config) Validate() error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("market.%s: %s", path, fmt.Sprintf(format, args...)))
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	nonNeg := func(path string, x float64) {
		if !finite(x) || x < 0 {
			bad(path, "must be >= 0, got %v", x)
		}
	}
	prob := func(path string, x float64) {
		if !finite(x) || x < 0 || x > 1 {
			bad(path, "must be between 0 and 1, got %v", x)
		}
	}
	positive := func(path string, d time.Duration) {
		if d <= 0 {
			bad(path, "must be positive, got %s", d)
		}
	}

	if int(c.Model) >= len(modelNames) {
		bad("model", "unknown model %d; want stochastic, replay or off", c.Model)
	}
	validateReservations(c.Reservations, bad)
	nonNeg("hazardMultiplier", c.HazardMultiplier)
	for i, f := range c.BandReclaim {
		if !finite(f) || f < 0 || f >= 1 {
			bad(fmt.Sprintf("bandReclaim[%d]", i), "must be >= 0 and < 1 (a 30-day reclaim fraction), got %v", f)
		}
	}
	positive("noticeLead", c.NoticeLead)

	r := c.Regimes
	if !finite(r.Shape) || r.Shape <= 0 {
		bad("regimes.shape", "must be > 0, got %v", r.Shape)
	}
	positive("regimes.availableMedian", r.AvailableMedian)
	positive("regimes.constrainedMedian", r.ConstrainedMedian)
	positive("regimes.exhaustedMedian", r.ExhaustedMedian)
	if !finite(r.DurationScale) || r.DurationScale <= 0 {
		bad("regimes.durationScale", "must be > 0, got %v", r.DurationScale)
	}
	prob("regimes.availableToExhausted", r.AvailableToExhausted)
	prob("regimes.constrainedToExhausted", r.ConstrainedToExhausted)
	prob("regimes.exhaustedToAvailable", r.ExhaustedToAvailable)
	nonNeg("regimes.constrainedHazard", r.ConstrainedHazard)
	nonNeg("regimes.exhaustedHazard", r.ExhaustedHazard)
	prob("regimes.constrainedFailure", r.ConstrainedFailure)

	positive("onDemand.availableMedian", c.OnDemand.AvailableMedian)
	positive("onDemand.exhaustedMedian", c.OnDemand.ExhaustedMedian)

	s := c.Shocks
	prob("shocks.share", s.Share)
	nonNeg("shocks.rateScale", s.RateScale)
	if s.SpreadMean < 0 {
		bad("shocks.spreadMean", "must be >= 0, got %s", s.SpreadMean)
	}
	for _, l := range []struct {
		name string
		l    ShockLevel
	}{{"familyZone", s.FamilyZone}, {"zone", s.Zone}, {"region", s.Region}} {
		p := "shocks." + l.name + "."
		nonNeg(p+"perDay", l.l.PerDay)
		nonNeg(p+"weight", l.l.Weight)
		if !finite(l.l.ReclaimFraction) || l.l.ReclaimFraction <= 0 || l.l.ReclaimFraction > 1 {
			bad(p+"reclaimFraction", "must be > 0 and <= 1, got %v", l.l.ReclaimFraction)
		}
		positive(p+"duration", l.l.Duration)
	}

	b := c.Rebalance
	prob("rebalance.earlyProb", b.EarlyProb)
	prob("rebalance.withNoticeProb", b.WithNoticeProb)
	if finite(b.EarlyProb+b.WithNoticeProb) && b.EarlyProb+b.WithNoticeProb > 1 {
		bad("rebalance", "earlyProb + withNoticeProb must be <= 1, got %v", b.EarlyProb+b.WithNoticeProb)
	}
	if !finite(b.PerNotice) || b.PerNotice < b.EarlyProb+b.WithNoticeProb {
		bad("rebalance.perNotice", "must be >= earlyProb + withNoticeProb (%v), got %v", b.EarlyProb+b.WithNoticeProb, b.PerNotice)
	}
	positive("rebalance.earlyLeadMin", b.EarlyLeadMin)
	if b.EarlyLeadMax < b.EarlyLeadMin {
		bad("rebalance.earlyLeadMax", "must be >= earlyLeadMin (%s), got %s", b.EarlyLeadMin, b.EarlyLeadMax)
	}

	if !finite(c.Price.DriftSigma) || c.Price.DriftSigma < 0 || c.Price.DriftSigma >= 1 {
		bad("price.driftSigma", "must be >= 0 and < 1, got %v", c.Price.DriftSigma)
	}
	positive("price.driftKnot", c.Price.DriftKnot)
	positive("price.driftCorrelation", c.Price.DriftCorrelation)

	if c.Latency.Fleet == nil {
		bad("latency.fleet", "is required (a duration distribution)")
	}
	if c.Latency.ASG == nil {
		bad("latency.asg", "is required (a duration distribution)")
	}
	c.Depth.validate(bad)
	prob("join.failureShare", c.Join.FailureShare)
	prob("join.slowShare", c.Join.SlowShare)
	if c.Join.SlowShare > 0 && c.Join.SlowExtra == nil {
		bad("join.slowExtra", "is required when slowShare > 0 (a duration distribution)")
	}
	if c.SpotVCPUQuota < 0 {
		bad("spotVCPUQuota", "must be >= 0 (0 = unlimited), got %d", c.SpotVCPUQuota)
	}
	if c.MinBilled < 0 {
		bad("minBilled", "must be >= 0, got %s", c.MinBilled)
	}

	for i, e := range c.Events {
		p := fmt.Sprintf("events[%d].", i)
		if e.At < 0 {
			bad(p+"at", "must be >= 0, got %s", e.At)
		}
		if e.For < 0 {
			bad(p+"for", "must be >= 0 (0 = to the end of the run), got %s", e.For)
		}
		if e.State > RegimeExhausted {
			bad(p+"state", "unknown regime %d; want available, constrained or exhausted", e.State)
		}
		prob(p+"interruptFraction", e.InterruptFraction)
		prob(p+"rebalanceFraction", e.RebalanceFraction)
		for j, ct := range e.CapacityTypes {
			if ct > cluster.Reserved {
				bad(fmt.Sprintf("%scapacityTypes[%d]", p, j), "unknown capacity type %d", ct)
			}
		}
		prob(p+"joinFailure", e.JoinFailure)
		if e.State == RegimeUnset && e.InterruptFraction == 0 && e.RebalanceFraction == 0 && e.JoinFailure == 0 {
			bad(p[:len(p)-1], "does nothing; set state, interruptFraction, rebalanceFraction or joinFailure")
		}
		if e.For > 0 && e.State == RegimeUnset && e.JoinFailure == 0 {
			bad(p+"for", "needs a state or a join failure to hold")
		}
		if e.JoinNotReady && e.JoinFailure == 0 {
			bad(p+"joinNotReady", "only says how a join failure fails; set joinFailure")
		}
		if len(e.Groups) > 0 && e.JoinFailure == 0 {
			bad(p+"groups", "only narrow a join failure; set joinFailure")
		}
	}

	switch {
	case c.Model == ModelReplay && c.Trace == nil:
		bad("trace", "is required when the model is replay")
	case c.Model != ModelReplay && c.Trace != nil:
		bad("trace", "is set but the model is %s; set model: replay to replay it", c.Model)
	}
	return errors.Join(errs...)
}
