package spotmarket

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

// Calibration tests (issue 4). Each uses fixed seeds and states its
// tolerance and why.

// With shocks off, the share of instances reclaimed within 30 days lands on
// each Spot Advisor band's midpoint.
func TestCalibrationBandReclaimFraction(t *testing.T) {
	cfg := DefaultConfig().ShocksOff()
	cfg.Depth.Unlimited = true // 40,000 instances per band: reclaim calibration, not depth
	eng, m := newTestMarket(t, 1, cfg)
	bands := typesByBand(t, testCatalog(t), 10)
	rec := &recorder{}
	m.Subscribe(rec)
	// 40,000 instances per band over 30 pools (10 types x 3 zones), all
	// launched at 0 and never terminated by their owner.
	const perBand = 40000
	band := make(map[InstanceID]int, 5*perBand)
	for b := range bands {
		var offs []Offering
		for _, ty := range bands[b] {
			for _, z := range testZones {
				offs = append(offs, spotOffering(ty, z))
			}
		}
		for i := range perBand {
			band[mustLaunch(t, m, "test", offs, i).Instance] = b
		}
	}
	eng.Run(30 * day)
	var reclaimed [5]int
	for _, s := range rec.sigs {
		if s.Kind == Terminated {
			reclaimed[band[s.Instance]]++
		}
	}
	for b, n := range reclaimed {
		p := cfg.BandReclaim[b]
		got := float64(n) / perBand
		// Tolerance: 4 binomial standard errors (chance exceeds it once in
		// ~16,000 bands) plus 3% of p for the model's own bias: the hazard
		// varies with the regime, so survival is E[exp(-integral)] >=
		// exp(-E[integral]) (Jensen: slightly fewer reclaims), and half the
		// background reclaims have their notice delayed by an early
		// rebalance (mean lead 2.5 h), pushing a few past day 30.
		tol := 4*math.Sqrt(p*(1-p)/perBand) + 0.03*p
		t.Logf("band %d (%s): reclaimed %.4f in 30 days, midpoint %.4f, tolerance %.4f", b, bandLabels[b], got, p, tol)
		assert.InDelta(t, p, got, tol, "band %d", b)
	}
}

// reclaimMarket is a market with the default reclaim model, shocks
// included, and unlimited depth (reclaim calibration, not depth), and the
// spot pools of perBand instance types of every Spot Advisor band.
func reclaimMarket(t *testing.T, seed uint64, perBand int) (*engine.Engine, *Market, []Offering) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Depth.Unlimited = true
	eng, m := newTestMarket(t, seed, cfg)
	bands := typesByBand(t, testCatalog(t), perBand)
	return eng, m, spotPools(bands[:]...)
}

var bandLabels = [...]string{"<5%", "5-10%", "10-15%", "15-20%", ">20%"}

// With default correlation, a substantial share of reclaim events take
// several instances of one pool within 3 minutes.
func TestCalibrationMultiInstanceReclaims(t *testing.T) {
	eng, m, pools := reclaimMarket(t, 2, 10)
	// 150 pools of 10 instances, kept at 10 by relaunching, for 180 days.
	k := newKeeper(t, eng, m, pools, 10)
	eng.Run(180 * day)
	byPool := map[Offering][]time.Duration{}
	for _, s := range k.sigs {
		if s.Kind == Terminated {
			byPool[s.Offering] = append(byPool[s.Offering], s.At)
		}
	}
	// A reclaim event is a reclaim and every later reclaim of the same
	// pool within 3 minutes of it.
	events, multi, reclaims := 0, 0, 0
	for _, ts := range byPool {
		slices.Sort(ts)
		for i := 0; i < len(ts); {
			j := i
			for j < len(ts) && ts[j]-ts[i] <= 3*time.Minute {
				j++
			}
			events++
			if j-i >= 2 {
				multi++
			}
			reclaims += j - i
			i = j
		}
	}
	share := float64(multi) / float64(events)
	t.Logf("%d reclaims in %d events; %.3f of events take several instances of one pool within 3 min", reclaims, events, share)
	// Tolerance: the observed range, 22-50% (docs/models.md "Spot market"). The estimate's standard
	// error is about 0.02 (about 600 events); the model's expected share
	// for pools of 10 is about 0.33, so the range holds it with room.
	require.Greater(t, events, 400)
	assert.GreaterOrEqual(t, share, 0.22)
	assert.LessOrEqual(t, share, 0.50)
}

// Pool availability spells are heavy tailed.
func TestCalibrationSpellsHeavyTailed(t *testing.T) {
	eng, m, pools := reclaimMarket(t, 3, 4)
	// Probe 60 pools every 30 s for 60 days, as a caller would see them,
	// shocks included.
	const step = 30 * time.Second
	type track struct {
		reg    Regime
		up     bool
		rSince time.Duration
		uSince time.Duration
	}
	tr := make([]track, len(pools))
	var regime [4][]float64 // spell lengths in hours, by regime
	var launchable []float64
	var probe engine.HandlerID
	probe = eng.Register(engine.HandlerFunc(func(engine.Event) {
		now := eng.Now()
		for i, o := range pools {
			r, _ := m.Regime(o)
			x := &tr[i]
			if r != x.reg {
				if x.reg != RegimeUnset && x.rSince > 0 {
					regime[x.reg] = append(regime[x.reg], (now - x.rSince).Hours())
				}
				x.reg, x.rSince = r, now
			}
			if up := r != RegimeExhausted; up != x.up {
				if x.up && x.uSince > 0 {
					launchable = append(launchable, (now - x.uSince).Hours())
				}
				x.up, x.uSince = up, now
			}
		}
		eng.After(step, engine.Event{Handler: probe})
	}))
	eng.Schedule(0, engine.Event{Handler: probe})
	eng.Run(60 * day)

	describe := func(name string, x []float64) (median, cv float64) {
		mean, sd := stat.MeanStdDev(x, nil)
		s := slices.Clone(x)
		slices.Sort(s)
		median = stat.Quantile(0.5, stat.Empirical, s, nil)
		t.Logf("%-12s spells %5d  median %.2f h  p90 %.2f h  max %.1f h  CV %.2f", name, len(s), median,
			stat.Quantile(0.9, stat.Empirical, s, nil), s[len(s)-1], sd/mean)
		return median, sd / mean
	}
	// Each regime's spells: Weibull shape 0.6 has CV 1.76. Tolerance: CV
	// above 1.5 (sample CVs of ~10^4 heavy-tailed spells move by about
	// 0.1), medians within the observed 0.15-0.6 h (docs/models.md) widened to 0.1-0.8 h
	// because the 30 s probe misses the shortest spells and so merges
	// their neighbours, and shocks cut spells short.
	for r := RegimeAvailable; r <= RegimeExhausted; r++ {
		med, cv := describe(r.String(), regime[r])
		assert.Greater(t, cv, 1.5, "%s", r)
		assert.GreaterOrEqual(t, med, 0.1, "%s", r)
		assert.LessOrEqual(t, med, 0.8, "%s", r)
	}
	// Spells in which a launch is possible (not exhausted) chain available
	// and constrained spells, which thins the tail; still CV well above 1
	// (measured 1.28; the bound leaves 0.1 for sampling).
	_, cv := describe("launchable", launchable)
	assert.Greater(t, cv, 1.15)
}
