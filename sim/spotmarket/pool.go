package spotmarket

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// pool is one capacity pool. Pools are created the first time an offering is
// used, but everything random about a pool is drawn from its own streams
// from time 0 on, so when (and whether) it is created changes nothing.
type pool struct {
	off     Offering
	it      *catalog.InstanceType
	zone    int16 // index into Market.zones
	fam     int32 // index into Market.families; -1 when the family has no spot data
	famHash uint64
	band    int8 // Spot Advisor band 0..4; -1 for on-demand and reserved

	od   float64 // on-demand price, USD/h
	base float64 // undrifted price: od x (1 - savings) for spot, od otherwise

	// lambda is the calibrated per-instance reclaim hazard of the band
	// (per hour, HazardMultiplier included); hit and frac are, per shock
	// level, the probability that a shock of that level hits this pool and
	// the mean share of its instances a hit reclaims.
	lambda float64
	hit    [numLevels]float64
	frac   [numLevels]float64

	rng      *rand.Rand // call-driven draws: reclaims, shock victims, launch failures, latencies
	regimeRn *rand.Rand // the lazy regime chain only
	priceRn  *rand.Rand // the lazy price path only

	// Lazy regime chain (stochastic model): reg holds until regEnd.
	reg    Regime
	regEnd engine.Time
	// replayReg is the regime the trace last set (replay model).
	replayReg Regime

	// Price path: points joined by straight lines, flat after the last one
	// except in the stochastic model, where knots are drawn as needed.
	pts   []pricePoint
	drift float64 // the drift process's value at the last knot

	live      []InstanceID // running instances not yet doomed to a reclaim
	running   int32        // live + doomed + noticed
	activeIdx int32        // index in Market.active; -1 when not there

	bgTimer    engine.Timer // next background decision (reclaim or false alarm)
	regTimer   engine.Timer // next regime transition while active
	rateRegime Regime       // effective regime bgTimer was drawn for

	depth depthState

	stats Counters
}

type pricePoint struct {
	at    engine.Time
	price float64 // USD/h
}

func (p *pool) spot() bool { return p.off.CapacityType == cluster.Spot }

// chainParams is a regime chain: holding-time scales per regime and where a
// regime goes when it ends.
type chainParams struct {
	shape float64
	scale [4]float64 // Weibull scale in nanoseconds, by Regime
	// A regime r that ends goes to alt[r][1] with probability p2[r], else
	// to alt[r][0].
	alt     [4][2]Regime
	p2      [4]float64
	initial [4]float64 // stationary share of time, by Regime
}

// weibullScale turns a median into the Weibull scale for shape k.
func weibullScale(median time.Duration, k float64) float64 {
	return float64(median) / math.Pow(math.Ln2, 1/k)
}

func newChain(shape float64, med [4]time.Duration, alt [4][2]Regime, p2 [4]float64) chainParams {
	c := chainParams{shape: shape, alt: alt, p2: p2}
	meanFactor := math.Gamma(1 + 1/shape)
	var mean [4]float64
	for r := RegimeAvailable; r <= RegimeExhausted; r++ {
		if med[r] > 0 {
			c.scale[r] = weibullScale(med[r], shape)
			mean[r] = c.scale[r] * meanFactor
		}
	}
	// Stationary distribution of the embedded jump chain over the regimes
	// in use, weighted by mean holding times.
	var P [4][4]float64
	var states []Regime
	for r := RegimeAvailable; r <= RegimeExhausted; r++ {
		if med[r] == 0 {
			continue
		}
		states = append(states, r)
		P[r][alt[r][0]] += 1 - p2[r]
		P[r][alt[r][1]] += p2[r]
	}
	nu := stationary(P, states)
	var tot float64
	for _, r := range states {
		c.initial[r] = nu[r] * mean[r]
		tot += c.initial[r]
	}
	for _, r := range states {
		c.initial[r] /= tot
	}
	return c
}

// stationary solves nu P = nu, sum(nu) = 1 over states (at most three) by
// Gaussian elimination: the balance equations of all states but the last,
// and the normalisation.
func stationary(P [4][4]float64, states []Regime) [4]float64 {
	n := len(states)
	var a [3][4]float64 // augmented matrix, row i = equation, column j = nu[states[j]]
	for i := 0; i < n-1; i++ {
		for j, s := range states {
			a[i][j] = P[s][states[i]]
			if i == j {
				a[i][j]--
			}
		}
	}
	for j := 0; j < n; j++ {
		a[n-1][j] = 1
	}
	a[n-1][n] = 1
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		a[col], a[piv] = a[piv], a[col]
		for r := 0; r < n; r++ {
			if r != col && a[col][col] != 0 {
				f := a[r][col] / a[col][col]
				for k := col; k <= n; k++ {
					a[r][k] -= f * a[col][k]
				}
			}
		}
	}
	var nu [4]float64
	for j, s := range states {
		nu[s] = a[j][n] / a[j][j]
	}
	return nu
}

// holding draws one Weibull holding time of regime r, at least a
// millisecond so that a chain always moves forward.
func (c *chainParams) holding(r Regime, rng *rand.Rand) engine.Time {
	d := c.scale[r] * math.Pow(rng.ExpFloat64(), 1/c.shape)
	if d < float64(time.Millisecond) {
		d = float64(time.Millisecond)
	}
	if d > float64(maxDelay) {
		d = float64(maxDelay)
	}
	return engine.Time(d)
}

// start draws the regime at time 0 from the stationary shares and its
// holding time (a fresh one: the residual of a spell in progress would be
// longer; a simplification).
func (c *chainParams) start(rng *rand.Rand) (Regime, engine.Time) {
	u := rng.Float64()
	r := RegimeExhausted
	for s := RegimeAvailable; s < RegimeExhausted; s++ {
		if u < c.initial[s] {
			r = s
			break
		}
		u -= c.initial[s]
	}
	return r, c.holding(r, rng)
}

// next draws the regime after r.
func (c *chainParams) next(r Regime, rng *rand.Rand) Regime {
	if rng.Float64() < c.p2[r] {
		return c.alt[r][1]
	}
	return c.alt[r][0]
}

// maxDelay bounds every sampled delay so that now + delay cannot overflow:
// 100 years, far beyond any run.
const maxDelay = 100 * 365 * 24 * time.Hour

// hours converts a duration in hours to engine time, capped at maxDelay.
func hours(h float64) time.Duration {
	d := h * float64(time.Hour)
	if !(d < float64(maxDelay)) {
		return maxDelay
	}
	return time.Duration(d)
}

// unit maps 64 random bits to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }
