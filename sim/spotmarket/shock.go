package spotmarket

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Shock levels.
const (
	levelFamilyZone = iota // one instance family in one zone
	levelZone              // one zone
	levelRegion            // the region
	numLevels
)

// shockSizeSpread spreads each shock's reclaim share uniformly over
// (1 ± shockSizeSpread) x the mean (an assumption: the published figures give
// the mean share, not its spread; docs/models.md "Spot market").
const shockSizeSpread = 0.5

// levelParams are one level's derived constants.
type levelParams struct {
	rate    float64 // shocks per target per hour
	weight  float64 // normalised share of the shock hazard
	reclaim float64 // mean share of a hit pool's instances reclaimed
	scale   float64 // Weibull scale of the duration, ns
}

// calibrate returns, for a pool whose shock-delivered hazard is h per hour,
// the probability that a shock of this level hits it and the mean share of
// its instances a hit reclaims, such that rate x hit x frac = weight x h:
// the level delivers its share of the band's hazard on average. Pools of
// riskier bands are hit more often, not harder, so reclaim events keep their
// size; only when a pool would need more than one hit per shock does the
// share grow instead.
func (l levelParams) calibrate(h float64, on bool) (hit, frac float64) {
	if !on || l.rate <= 0 || l.weight <= 0 || h <= 0 {
		return 0, 0
	}
	x := l.weight * h / (l.rate * l.reclaim)
	if x <= 1 {
		return x, l.reclaim
	}
	return 1, min(1, l.reclaim*x)
}

// shockProc is one Poisson process of shocks: the family-in-zone shocks of
// one zone (the family drawn uniformly per shock), one zone's shocks, or
// the region's. Each has its own stream, so none depends on which pools
// exist.
type shockProc struct {
	level int
	zone  int16   // -1 for the region
	rate  float64 // per hour, all targets of the process
	rng   *rand.Rand
}

// shock is one correlated shock while it lasts.
type shock struct {
	level     int
	zone      int16
	fam       int32   // the family, for levelFamilyZone
	seed      uint64  // with a family's hash, gives the family's draw
	fracScale float64 // this shock's reclaim share relative to the mean, U(0.5, 1.5)
	end       engine.Time
}

// hits reports whether s hits pool p: one uniform draw per family per shock,
// compared with each size's hit probability, so the sizes of a family share
// fate (a riskier size is hit whenever a safer one is), and a region shock
// hits a family in every zone alike.
func (s *shock) hits(p *pool) bool {
	return unit(engine.SplitMix64(s.seed^p.famHash)) < p.hit[s.level]
}

// floor is the regime s holds pool p at (at worst), RegimeUnset if s does
// not touch p. A hit pool in the target is exhausted, the rest of the
// target constrained; a zone shock also constrains the hit types in the
// other zones (docs/models.md "Spot market": an AZ outage tightens the
// other AZs).
func (s *shock) floor(p *pool) Regime {
	switch s.level {
	case levelFamilyZone:
		if p.zone != s.zone || p.fam != s.fam {
			return RegimeUnset
		}
	case levelZone:
		if p.zone != s.zone {
			if s.hits(p) {
				return RegimeConstrained
			}
			return RegimeUnset
		}
	}
	if s.hits(p) {
		return RegimeExhausted
	}
	return RegimeConstrained
}

// reclaims reports whether s reclaims instances of p: hit and in the target.
func (s *shock) reclaims(p *pool) bool {
	return (s.level != levelZone || p.zone == s.zone) && s.floor(p) == RegimeExhausted
}

func (m *Market) addProc(level, zone int, targets float64) {
	lp := m.levels[level]
	if lp.rate <= 0 || targets == 0 {
		return
	}
	name := "spotmarket/shock/region"
	switch level {
	case levelFamilyZone:
		name = "spotmarket/shock/family-zone/" + m.zones[zone]
	case levelZone:
		name = "spotmarket/shock/zone/" + m.zones[zone]
	}
	pr := shockProc{level: level, zone: int16(zone), rate: lp.rate * targets, rng: m.eng.Stream(name)}
	m.procs = append(m.procs, pr)
	m.nextShock(int32(len(m.procs) - 1))
}

func (m *Market) nextShock(i int32) {
	pr := &m.procs[i]
	d := hours(pr.rng.ExpFloat64() / pr.rate)
	if d < maxDelay {
		m.eng.After(d, engine.Event{Handler: m.id, Kind: evShock, Obj: i})
	}
}

// startShock draws a shock of process i, applies it to the active pools and
// schedules the next one.
func (m *Market) startShock(i int32) {
	pr := &m.procs[i]
	lp := &m.levels[pr.level]
	s := shock{level: pr.level, zone: pr.zone, fam: -1, seed: pr.rng.Uint64(), fracScale: 1 - shockSizeSpread + 2*shockSizeSpread*pr.rng.Float64()}
	if pr.level == levelFamilyZone {
		s.fam = int32(pr.rng.IntN(len(m.families)))
	}
	d := lp.scale * math.Pow(pr.rng.ExpFloat64(), 1/m.cfg.Regimes.Shape)
	dur := max(time.Second, time.Duration(min(d, float64(maxDelay))))
	s.end = m.eng.Now() + dur
	m.nextShock(i)

	// Shock slots are reused, so a long run does not grow the table.
	var sid int32
	if n := len(m.freeShocks); n > 0 {
		sid = m.freeShocks[n-1]
		m.freeShocks = m.freeShocks[:n-1]
		m.shocks[sid] = s
	} else {
		sid = int32(len(m.shocks))
		m.shocks = append(m.shocks, s)
	}
	m.activeShocks = append(m.activeShocks, sid)
	m.eng.After(dur, engine.Event{Handler: m.id, Kind: evShockEnd, Obj: sid})
	m.stats.Shocks++

	sp := &m.shocks[sid]
	tmp := m.poolsTmp[:0]
	for _, pi := range m.active {
		if sp.floor(&m.pools[pi]) != RegimeUnset {
			tmp = append(tmp, pi)
		}
	}
	m.poolsTmp = tmp
	rb := m.cfg.Rebalance
	spread := float64(m.cfg.Shocks.SpreadMean)
	for _, pi := range tmp {
		p := &m.pools[pi]
		if sp.reclaims(p) {
			f := min(1, p.frac[s.level]*s.fracScale)
			// Survivors of a hit pool get false-alarm recommendations at
			// the rate that keeps PerNotice recommendations per notice.
			q := 1.0
			if f < 1 {
				q = min(1, m.falseFactor*f/(1-f))
			}
			// Backwards, so that removing live[k] (the last element moves
			// into its place) never skips an instance.
			for k := len(p.live) - 1; k >= 0; k-- {
				id := p.live[k]
				if p.rng.Float64() < f {
					in := time.Duration(p.rng.ExpFloat64() * spread)
					// An early recommendation comes as early as a sudden
					// shock allows: at once.
					m.doom(id, in, rb.wayOf(p.rng.Float64()))
				} else if p.rng.Float64() < q {
					m.rebalance(id, time.Duration(p.rng.ExpFloat64()*spread))
				}
			}
		}
		m.reschedule(pi)
	}
}

func (m *Market) endShock(sid int32) {
	if i := slices.Index(m.activeShocks, sid); i >= 0 {
		m.activeShocks = slices.Delete(m.activeShocks, i, i+1)
	}
	s := &m.shocks[sid]
	m.refreshWhere(func(p *pool) bool { return s.floor(p) != RegimeUnset })
	m.freeShocks = append(m.freeShocks, sid)
}

// refreshWhere refreshes the active pools that match.
func (m *Market) refreshWhere(match func(p *pool) bool) {
	tmp := m.poolsTmp[:0]
	for _, pi := range m.active {
		if match(&m.pools[pi]) {
			tmp = append(tmp, pi)
		}
	}
	m.poolsTmp = tmp
	for _, pi := range tmp {
		m.refresh(pi)
	}
}

// script is a compiled ScriptedEvent.
type script struct {
	ev     ScriptedEvent
	ctMask uint8
}

func (s *script) matches(p *pool) bool {
	return s.ctMask&(1<<p.off.CapacityType) != 0 &&
		(len(s.ev.Zones) == 0 || slices.Contains(s.ev.Zones, p.off.Zone)) &&
		(len(s.ev.InstanceTypes) == 0 || slices.Contains(s.ev.InstanceTypes, p.off.InstanceType)) &&
		(len(s.ev.Families) == 0 || slices.Contains(s.ev.Families, p.it.Family))
}

func (m *Market) compileScripts() error {
	if len(m.cfg.Events) == 0 {
		return nil
	}
	families := map[string]bool{}
	for _, it := range m.cat.Types() {
		families[it.Family] = true
	}
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("market.%s: %s", path, fmt.Sprintf(format, args...)))
	}
	for i, e := range m.cfg.Events {
		p := fmt.Sprintf("events[%d].", i)
		for j, t := range e.InstanceTypes {
			if _, ok := m.cat.Lookup(t); !ok {
				bad(fmt.Sprintf("%sinstanceTypes[%d]", p, j), "unknown instance type %q", t)
			}
		}
		for j, f := range e.Families {
			if !families[f] {
				bad(fmt.Sprintf("%sfamilies[%d]", p, j), "unknown instance family %q (families are the part before the dot, e.g. c5)", f)
			}
		}
		for j, z := range e.Zones {
			if !slices.Contains(m.zones, z) {
				bad(fmt.Sprintf("%szones[%d]", p, j), "zone %q is not one of the market's zones %v", z, m.zones)
			}
		}
		s := script{ev: e}
		s.ev.InstanceTypes = slices.Clone(e.InstanceTypes)
		s.ev.Families = slices.Clone(e.Families)
		s.ev.Zones = slices.Clone(e.Zones)
		s.ev.Groups = slices.Clone(e.Groups)
		s.ev.CapacityTypes = slices.Clone(e.CapacityTypes)
		if len(e.CapacityTypes) == 0 {
			s.ctMask = 1 << cluster.Spot
		}
		for _, ct := range e.CapacityTypes {
			s.ctMask |= 1 << ct
		}
		m.scripts = append(m.scripts, s)
	}
	if len(errs) > 0 {
		m.scripts = nil
	}
	return joinErrs(errs)
}

func (m *Market) startScript(i int32) {
	s := &m.scripts[i]
	m.startJoinFailure(i)
	if s.ev.For > 0 && (s.ev.State != RegimeUnset || s.ev.JoinFailure > 0) {
		m.eng.After(s.ev.For, engine.Event{Handler: m.id, Kind: evScriptEnd, Obj: i})
	}
	if s.ev.joinOnly() {
		return
	}
	if s.ev.State != RegimeUnset {
		m.activeScripts = append(m.activeScripts, i)
	}
	tmp := m.poolsTmp[:0]
	for _, pi := range m.active {
		if s.matches(&m.pools[pi]) {
			tmp = append(tmp, pi)
		}
	}
	m.poolsTmp = tmp
	for _, pi := range tmp {
		m.hitFraction(pi, s.ev.RebalanceFraction, s.ev.InterruptFraction)
	}
}

func (m *Market) endScript(i int32) {
	m.endJoinFailure(i)
	if m.scripts[i].ev.State == RegimeUnset {
		return
	}
	if k := slices.Index(m.activeScripts, i); k >= 0 {
		m.activeScripts = slices.Delete(m.activeScripts, k, k+1)
	}
	s := &m.scripts[i]
	m.refreshWhere(s.matches)
}

// hitFraction sends rebalance recommendations to ceil(reb x n) and then
// interruption notices to ceil(intr x n) of pool pi's n live instances,
// chosen at random, now; then reschedules the pool (its regime may have
// changed too).
func (m *Market) hitFraction(pi int32, reb, intr float64) {
	p := &m.pools[pi]
	n := len(p.live)
	for j, k := 0, share(reb, n); j < k; j++ {
		r := j + p.rng.IntN(n-j)
		p.live[j], p.live[r] = p.live[r], p.live[j]
		m.inst[p.live[j]].slot = int32(j)
		m.inst[p.live[r]].slot = int32(r)
		m.rebalance(p.live[j], 0)
	}
	for k := share(intr, n); k > 0 && len(p.live) > 0; k-- {
		m.doom(p.live[p.rng.IntN(len(p.live))], 0, rebalanceNone)
	}
	m.reschedule(pi)
}

// share is ceil(f x n), robust to rounding (0.8 x 10 is 8, not 9).
func share(f float64, n int) int {
	if f <= 0 || n == 0 {
		return 0
	}
	return min(n, int(math.Ceil(f*float64(n)-1e-9)))
}

// replay applies trace line i and queues the next.
func (m *Market) replay(i int32) {
	ev := &m.trace.Events[i]
	if next := i + 1; int(next) < len(m.trace.Events) {
		m.eng.Schedule(m.trace.Events[next].At, engine.Event{Handler: m.id, Kind: evTrace, Obj: next})
	}
	pi, _ := m.lookup(ev.Pool)
	p := &m.pools[pi]
	switch ev.Kind {
	case TraceState:
		p.replayReg = ev.State
	case TracePrice:
		m.setPrice(p, m.eng.Now(), ev.Value)
	case TraceDepth:
		m.setDepth(p, ev.Value)
	case TraceInterrupt:
		if p.activeIdx >= 0 {
			m.hitFraction(pi, 0, ev.Value)
		}
	case TraceRebalance:
		if p.activeIdx >= 0 {
			m.hitFraction(pi, ev.Value, 0)
		}
	}
}

// checkTrace checks every trace line's pool against the market.
func (m *Market) checkTrace() error {
	if m.trace == nil {
		return nil
	}
	var errs []error
	for _, ev := range m.trace.Events {
		if why := m.whyNotSold(ev.Pool); why != "" {
			errs = append(errs, fmt.Errorf("%s:%d: pool: %s", m.trace.Name, ev.Line, why))
		}
	}
	return joinErrs(errs)
}

// whyNotSold says why the market has no pool o, or "" if it has.
func (m *Market) whyNotSold(o Offering) string {
	it, ok := m.cat.Lookup(o.InstanceType)
	switch {
	case !ok:
		return fmt.Sprintf("unknown instance type %q", o.InstanceType)
	case !slices.Contains(m.zones, o.Zone):
		return fmt.Sprintf("zone %q is not one of the market's zones %v", o.Zone, m.zones)
	case o.CapacityType > cluster.Reserved:
		return fmt.Sprintf("unknown capacity type %d", o.CapacityType)
	}
	if o.CapacityType == cluster.Spot {
		if _, ok := m.cat.SpotAdvice(m.region, it.Name); !ok {
			return fmt.Sprintf("%s has no Spot Advisor data in %s, so the market has no spot pool for it", it.Name, m.region)
		}
	}
	return ""
}
