package spotmarket

import (
	"math"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Pool depth: how many instances a pool can give right now. See the
// package doc ("Pool depth") for the model and the reason of every default.
//
// A pool's full depth is a number of instances fixed when the pool is
// created: the depth of a 4-vCPU type (DepthConfig.Spot or .OnDemand),
// scaled by the size (x (4/vCPU)^SizeExponent), the kind of hardware
// (Accelerated, NewAccelerated, Metal) and a per-pool lognormal factor
// (Spread) drawn from the pool's own stream. The regime scales it (available
// x1, constrained x Constrained, exhausted x0). What the run took is
// "drawn": +1 per launch, -1 per termination or reclaim (never below 0),
// and it decays towards 0 with time constant Refill (EC2 refills a pool as
// other tenants release capacity and new hosts come in). A launch gets an
// instance while round(full x regime) - drawn >= 1. Everything is O(1) per
// launch and termination: the decay is applied lazily, when the pool is
// touched.

// Depth defaults (assumptions: no public dataset of pool depths exists;
// each is chosen to reproduce what is documented and widely reported, see
// the package doc, "Pool depth").
const (
	// DefaultDepthSpot is the median depth, in instances, of an available
	// spot pool of a 4-vCPU type (xlarge) in one zone: 150. Chosen so that
	// a request for a couple of hundred instances of one type in one zone
	// sees InsufficientInstanceCapacity in most pools (AWS: "diversify
	// across instance types and Availability Zones"; users report ICE at a
	// few dozen to a few hundred instances of one pool), while 60 pools
	// (20 types x 3 zones) hold thousands.
	DefaultDepthSpot = 150.0
	// DefaultDepthOnDemand is the same for on-demand: 20,000 xlarge
	// instances per zone (8,400 m5.2xlarge at the median), so that
	// on-demand requests of common types do not run out at cluster scale
	// (a 5,000-node on-demand node group of one type in three zones is
	// filled) while rare types (p5, trn, large metal) run out on requests
	// of a few instances.
	DefaultDepthOnDemand = 20000.0
	// DefaultDepthSizeExponent: a type with v vCPUs has (4/v)^1.25 times
	// the xlarge depth in instances: slightly fewer vCPUs per pool for
	// larger sizes (hosts are shared by smaller sizes first; the
	// 24xlarge/metal sizes take a whole host). m5.large 356, m5.4xlarge 26,
	// m5.24xlarge 3 at the median.
	DefaultDepthSizeExponent = 1.25
	// DefaultDepthSpread is the standard deviation of the log of the
	// per-pool factor: pools of one type differ by zone and by type about
	// 2x either way (one sigma).
	DefaultDepthSpread = 0.7
	// DefaultDepthConstrained is the share of the full depth left while a
	// pool is constrained (exhausted: none).
	DefaultDepthConstrained = 0.1
	// DefaultDepthRefill is the time constant with which what the run took
	// from a pool comes back: 30 min (EC2 advises retrying an ICE "in a few
	// minutes"; Karpenter caches it for 3 min; a drained pool is about
	// half refilled after 20 min).
	DefaultDepthRefill = 30 * time.Minute
	// DefaultDepthAccelerated scales GPU, Inferentia, Trainium and Gaudi
	// types (families g*, p*, inf*, trn*, dl*, vt*, f*): 0.3.
	DefaultDepthAccelerated = 0.3
	// DefaultDepthNewAccelerated scales the newest, scarcest accelerated
	// families (p4d, p4de, p5*, p6*, trn1*, trn2*, g6e): a further 0.03, so
	// a p5.48xlarge on-demand pool holds about two instances in a zone (AWS
	// steers p5 buyers to Capacity Blocks) and its spot pool usually none.
	DefaultDepthNewAccelerated = 0.03
	// DefaultDepthMetal scales .metal sizes: 0.5.
	DefaultDepthMetal = 0.5
)

// DepthConfig sets pool depth ([Config.Depth]).
type DepthConfig struct {
	// Unlimited turns depth off: pools never run out because of the size
	// of a request (the model before pool depth). ModelOff is always
	// unlimited.
	Unlimited bool
	// Spot and OnDemand are the median full depth, in instances, of a
	// 4-vCPU type's pool in one zone (> 0). Reserved pools are unlimited.
	Spot, OnDemand float64
	SizeExponent   float64       // depth in instances x (4/vCPU)^SizeExponent (>= 0)
	Spread         float64       // lognormal sigma of the per-pool factor (>= 0)
	Constrained    float64       // share of the depth while constrained (0..1)
	Refill         time.Duration // time constant of the refill (> 0)
	Accelerated    float64       // factor for accelerated types (0..1)
	NewAccelerated float64       // further factor for the newest accelerated families (0..1)
	Metal          float64       // factor for .metal sizes (0..1)
}

// DefaultDepth returns the calibrated depth defaults.
func DefaultDepth() DepthConfig {
	return DepthConfig{
		Spot: DefaultDepthSpot, OnDemand: DefaultDepthOnDemand, SizeExponent: DefaultDepthSizeExponent,
		Spread: DefaultDepthSpread, Constrained: DefaultDepthConstrained, Refill: DefaultDepthRefill,
		Accelerated: DefaultDepthAccelerated, NewAccelerated: DefaultDepthNewAccelerated, Metal: DefaultDepthMetal,
	}
}

func (d DepthConfig) validate(bad func(path, format string, args ...any)) {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	pos := func(p string, x float64) {
		if !finite(x) || x <= 0 {
			bad("depth."+p, "must be > 0 (instances of a 4-vCPU type in one zone's pool), got %v", x)
		}
	}
	frac := func(p string, x float64) {
		if !finite(x) || x < 0 || x > 1 {
			bad("depth."+p, "must be between 0 and 1, got %v", x)
		}
	}
	pos("spot", d.Spot)
	pos("onDemand", d.OnDemand)
	if !finite(d.SizeExponent) || d.SizeExponent < 0 || d.SizeExponent > 4 {
		bad("depth.sizeExponent", "must be between 0 and 4, got %v", d.SizeExponent)
	}
	if !finite(d.Spread) || d.Spread < 0 || d.Spread > 3 {
		bad("depth.spread", "must be between 0 and 3, got %v", d.Spread)
	}
	frac("constrained", d.Constrained)
	frac("accelerated", d.Accelerated)
	frac("newAccelerated", d.NewAccelerated)
	frac("metal", d.Metal)
	if d.Refill <= 0 {
		bad("depth.refill", "must be positive, got %s", d.Refill)
	}
}

// newAcceleratedPrefixes start the families DepthConfig.NewAccelerated
// scales: the newest NVIDIA and Trainium generations (p5 covers p5e and
// p5en, p6 p6-b200, trn1 trn1n).
var newAcceleratedPrefixes = []string{"p4d", "p4de", "p5", "p6", "trn1", "trn2", "g6e"}

// accelerated reports whether it is an accelerated type, and whether of
// the newest, scarcest families.
func accelerated(it *catalog.InstanceType) (acc, newest bool) {
	switch it.Category {
	case "g", "p", "inf", "trn", "dl", "vt", "f", "gr":
		acc = true
	}
	if it.GPU > 0 || len(it.Extended) > 0 && hasAccelerator(it) {
		acc = true
	}
	for _, f := range newAcceleratedPrefixes {
		if strings.HasPrefix(it.Family, f) {
			newest = true
		}
	}
	return acc || newest, newest
}

func hasAccelerator(it *catalog.InstanceType) bool {
	for _, e := range it.Extended {
		switch e.Name {
		case catalog.GPUResourceName, "amd.com/gpu", "aws.amazon.com/neuron", "habana.ai/gaudi":
			return true
		}
	}
	return false
}

// fullDepth computes pool p's full depth (instances while available) from
// the config and one draw of p's depth stream.
func (m *Market) fullDepth(p *pool) float64 {
	d := m.cfg.Depth
	if d.Unlimited || m.cfg.Model == ModelOff || p.off.CapacityType == cluster.Reserved {
		return math.Inf(1)
	}
	base := d.Spot
	if !p.spot() {
		base = d.OnDemand
	}
	v := float64(max(p.it.VCPU, 1))
	x := base * math.Pow(4/v, d.SizeExponent)
	acc, newest := accelerated(p.it)
	if acc {
		x *= d.Accelerated
	}
	if newest {
		x *= d.NewAccelerated
	}
	if strings.Contains(p.it.Size, "metal") {
		x *= d.Metal
	}
	rn := m.eng.Stream("spotmarket/pool/" + p.off.String() + "/depth")
	return x * math.Exp(d.Spread*rn.NormFloat64())
}

// depthState is a pool's depth bookkeeping.
type depthState struct {
	full   float64     // instances while available (+Inf: unlimited)
	set    float64     // a trace's depth line: the full depth from then on (<0: none)
	drawn  float64     // what the run took and has not yet come back
	last   engine.Time // when drawn was last decayed
	wasDry bool        // the last launch at this instant found the pool dry after taking from it
}

// decay brings p's drawn count to now.
func (m *Market) decay(p *pool) {
	now := m.eng.Now()
	ds := &p.depth
	if now > ds.last && ds.drawn > 0 {
		ds.drawn *= math.Exp(-float64(now-ds.last) / float64(m.cfg.Depth.Refill))
		if ds.drawn < 1e-9 {
			ds.drawn = 0
		}
	}
	ds.last = now
}

// capacity is p's depth at regime r before what the run took.
func (m *Market) capacity(p *pool, r Regime) float64 {
	full := p.depth.full
	if p.depth.set >= 0 {
		full = p.depth.set
	}
	switch r {
	case RegimeExhausted:
		return 0
	case RegimeConstrained:
		return full * m.cfg.Depth.Constrained
	}
	return full
}

// Depth returns how many instances a launch could get from o now (its
// regime's depth less what the run took; math.MaxInt when unlimited); ok
// is false when the market does not sell o. Constrained pools may still
// fail a launch by the draw of Regimes.ConstrainedFailure.
func (m *Market) Depth(o Offering) (n int, ok bool) {
	i, code := m.lookup(o)
	if code != "" {
		return 0, false
	}
	p := &m.pools[i]
	return m.depthNow(p, m.regime(p)), true
}

func (m *Market) depthNow(p *pool, r Regime) int {
	c := m.capacity(p, r)
	if math.IsInf(c, 1) {
		return math.MaxInt
	}
	m.decay(p)
	return max(int(math.Round(c-p.depth.drawn)), 0)
}

// take takes one instance from p's depth; the caller checked depthNow.
func (m *Market) take(p *pool) {
	if math.IsInf(p.depth.full, 1) && p.depth.set < 0 {
		return
	}
	m.decay(p)
	p.depth.drawn++
}

// giveBack returns one instance to p's depth (termination or reclaim).
func (m *Market) giveBack(p *pool) {
	if math.IsInf(p.depth.full, 1) && p.depth.set < 0 {
		return
	}
	m.decay(p)
	p.depth.drawn = max(p.depth.drawn-1, 0)
}

// setDepth is a trace's depth line: from now the pool's full depth is n
// and nothing is drawn (n < 0: back to the model's depth).
func (m *Market) setDepth(p *pool, n float64) {
	m.decay(p)
	p.depth.set = n
	p.depth.drawn = 0
}

// batch tracks one owner's launches at one instant: the model's "request".
// Karpenter launches the NodeClaims of one provisioning pass at one
// instant (upstream batches their CreateFleet calls into one fleet request
// of N), the Cluster Autoscaler asks an ASG for N more at one instant; a
// batch in which some launches got an instance and some got none is a
// partial fulfilment.
type batch struct {
	at               engine.Time
	obtained, failed bool
	counted          bool
}

// noteBatch records one launch's outcome for owner and counts a partial
// fulfilment the first time a batch has both.
func (m *Market) noteBatch(owner int32, ok bool) {
	for int(owner) >= len(m.batches) {
		m.batches = append(m.batches, batch{at: -1})
	}
	b := &m.batches[owner]
	now := m.eng.Now()
	if b.at != now {
		*b = batch{at: now}
	}
	if ok {
		b.obtained = true
	} else {
		b.failed = true
	}
	if b.obtained && b.failed && !b.counted {
		b.counted = true
		m.stats.PartialFulfilments++
		m.ownerCtr[owner].PartialFulfilments++
	}
}
