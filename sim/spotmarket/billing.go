package spotmarket

import (
	"errors"
	"math"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

func joinErrs(errs []error) error { return errors.Join(errs...) }

// drifting reports whether p's price follows the stochastic drift.
func (m *Market) drifting(p *pool) bool {
	return m.cfg.Model == ModelStochastic && p.spot() && m.cfg.Price.DriftSigma > 0
}

// driftFloor is the lowest a drifting spot price goes, as a share of its
// base price (an assumption that keeps a random walk from free capacity).
const driftFloor = 0.5

// driftPrice is the price for the drift's current value: base x (1 + d),
// kept between half the base and the on-demand price (spot never costs more
// than on-demand).
func (m *Market) driftPrice(p *pool) float64 {
	f := 1 + p.drift
	if hi := p.od / p.base; f > hi {
		f = hi
	}
	f = max(f, driftFloor)
	return p.base * f
}

// extend draws price knots until one is at or after t. The drift is a
// Gauss-Markov (discrete Ornstein-Uhlenbeck) process sampled every
// DriftKnot: d' = phi d + sigma sqrt(1 - phi^2) N(0,1), phi =
// exp(-knot/correlation), stationary with standard deviation sigma.
func (m *Market) extend(p *pool, t engine.Time) {
	last := p.pts[len(p.pts)-1].at
	if last >= t {
		return
	}
	pc := m.cfg.Price
	phi := math.Exp(-float64(pc.DriftKnot) / float64(pc.DriftCorrelation))
	sd := pc.DriftSigma * math.Sqrt(1-phi*phi)
	for last < t {
		last += pc.DriftKnot
		p.drift = phi*p.drift + sd*p.priceRn.NormFloat64()
		p.pts = append(p.pts, pricePoint{last, m.driftPrice(p)})
	}
}

// segment returns the index of the last price point at or before t (the
// path starts with a point at 0, so there is one).
func segment(pts []pricePoint, t engine.Time) int {
	lo, hi := 0, len(pts) // invariant: pts[lo].at <= t, pts[hi].at > t (hi == len: none)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if pts[mid].at <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// interp is the price at t on the segment starting at point i.
func interp(pts []pricePoint, i int, t engine.Time) float64 {
	if i+1 >= len(pts) {
		return pts[i].price
	}
	a, b := pts[i], pts[i+1]
	return a.price + (b.price-a.price)*float64(t-a.at)/float64(b.at-a.at)
}

// priceAt is p's price at time t in USD per hour.
func (m *Market) priceAt(p *pool, t engine.Time) float64 {
	if m.drifting(p) {
		m.extend(p, t)
	}
	return interp(p.pts, segment(p.pts, t), t)
}

// setPrice makes p's price v from t on (a step: replay).
func (m *Market) setPrice(p *pool, t engine.Time, v float64) {
	if last := p.pts[len(p.pts)-1]; last.at < t {
		p.pts = append(p.pts, pricePoint{t, last.price})
	}
	p.pts = append(p.pts, pricePoint{t, v})
}

// integral is the cost in USD of running one instance of p over [a, b]:
// the price path integrated exactly (it is piecewise linear).
func (m *Market) integral(p *pool, a, b engine.Time) float64 {
	if b <= a {
		return 0
	}
	if m.drifting(p) {
		m.extend(p, b)
	}
	pts := p.pts
	var usdNs float64
	for i := segment(pts, a); i < len(pts); i++ {
		s0 := max(a, pts[i].at)
		s1 := b
		if i+1 < len(pts) && pts[i+1].at < b {
			s1 = pts[i+1].at
		}
		if s1 > s0 {
			usdNs += (interp(pts, i, s0) + interp(pts, i, s1)) / 2 * float64(s1-s0)
		}
		if s1 == b {
			break
		}
	}
	return usdNs / float64(time.Hour)
}

// CostUSD is what instance id has cost from its launch until the earlier of
// until and its end, billed per second (rounded up) at its pool's price path
// (spot drift and replayed prices included); an instance that ended is
// billed at least MinBilled (EC2: 60 s for Linux). 0 for unknown IDs or an
// until before the launch.
func (m *Market) CostUSD(id InstanceID, until engine.Time) float64 {
	in, a, b, ok := m.billed(id, until)
	if !ok {
		return 0
	}
	return m.integral(&m.pools[in.pool], a, b)
}

// OnDemandEquivalentUSD is what instance id would have cost on demand
// over the time CostUSD bills it (the all-on-demand counterfactual): an
// on-demand instance's own cost, to the bit, and any other's billed
// seconds at the on-demand price of its type in its zone. Pricing both
// over the same billed time keeps an all-on-demand run's savings at 0.
func (m *Market) OnDemandEquivalentUSD(id InstanceID, until engine.Time) float64 {
	in, a, b, ok := m.billed(id, until)
	if !ok {
		return 0
	}
	p := &m.pools[in.pool]
	if p.off.CapacityType == cluster.OnDemand {
		return m.integral(p, a, b)
	}
	return p.od * float64(b-a) / float64(time.Hour)
}

// billed is the span over which instance id is billed until a time:
// from its launch, per second rounded up, at least MinBilled once it
// ended; ok false for unknown IDs or an until before the launch.
func (m *Market) billed(id InstanceID, until engine.Time) (in *instance, a, b engine.Time, ok bool) {
	if id <= 0 || int(id) >= len(m.inst) {
		return nil, 0, 0, false
	}
	in = &m.inst[id]
	if until < in.launched {
		return nil, 0, 0, false
	}
	end, ended := until, false
	if in.state >= stTerminated && in.ended <= until {
		end, ended = in.ended, true
	}
	d := end - in.launched
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	if ended && d < m.cfg.MinBilled {
		d = m.cfg.MinBilled
	}
	return in, in.launched, in.launched + d, true
}
