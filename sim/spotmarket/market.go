package spotmarket

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Event kinds of the market's handler.
const (
	evBackground   uint16 = iota // Obj: pool; a background reclaim decision or false alarm
	evRegime                     // Obj: pool; the lazy regime chain moves on
	evNotice                     // Obj: instance; interruption notice
	evReclaim                    // Obj: instance; the reclaim itself
	evRebalance                  // Obj: instance; rebalance recommendation
	evShock                      // Obj: shock process; a shock starts
	evShockEnd                   // Obj: shock
	evScriptStart                // Obj: scripted event
	evScriptEnd                  // Obj: scripted event
	evTrace                      // Obj: trace line index
	evBlockReclaim               // Obj: reservation; EC2 reclaims a Capacity Block's instances
	evResInterrupt               // Obj: index in resInterrupts; an interruptible reservation shrinks
)

// Instance life stages inside the market. A doomed instance has a notice
// scheduled (possibly hours ahead, after an early rebalance) but its owner
// still sees it as running.
const (
	stLive uint8 = iota
	stDoomed
	stNoticed
	stTerminated
	stReclaimed
)

type instance struct {
	pool     int32
	owner    int32
	slot     int32 // index in pool.live while stLive
	state    uint8
	withReb  bool // deliver a rebalance recommendation together with the notice
	launched engine.Time
	ended    engine.Time
	price    float64
	notice   engine.Timer
	reclaim  engine.Timer
	rebal    engine.Timer
}

// Market is the EC2 capacity and spot market of one region. It is an
// engine handler; build it with [New]. It manages instances only: mapping
// them to nodes is the autoscalers' business.
type Market struct {
	eng    *engine.Engine
	cat    *catalog.Catalog
	region string
	zones  []string
	cfg    Config
	id     engine.HandlerID

	pools    []pool
	poolIdx  map[Offering]int32
	subnets  *Subnets // nil: addresses are unlimited (subnets.go)
	families []string // families with spot advisor data in the region, sorted
	famIdx   map[string]int32

	inst     []instance // by InstanceID; [0] unused
	owners   []string
	ownerIdx map[string]int32
	ownerCtr []Counters

	subs       []Subscriber
	delivering bool

	// active lists the spot pools with live instances, the only ones that
	// get regime and background events.
	active []int32

	spotChain, odChain chainParams
	bgFactor           [4]float64 // background hazard multiplier by effective regime
	falseFactor        float64    // false-alarm rebalances per background reclaim
	shockShare         float64    // effective shock share (0 when every level is off)
	levels             [numLevels]levelParams
	procs              []shockProc
	shocks             []shock // slots; see freeShocks
	freeShocks         []int32
	activeShocks       []int32

	scripts       []script
	activeScripts []int32
	joins         joinState

	trace *Trace

	// res are the capacity reservations (reservation.go), resIdx them by
	// id, resInterrupts their scripted interruptions.
	res           []reservation
	resIdx        map[string]int32
	resInterrupts []resInterrupt

	batches   []batch // by owner: the launches of the current instant
	cands     []cand
	poolsTmp  []int32
	spotVCPUs int

	stats Stats
}

// New builds the market of region with the given zones, registers it with
// the engine and schedules its first events. It checks cfg (Validate) and
// the names cfg uses against the catalogue and the zones.
func New(eng *engine.Engine, cat *catalog.Catalog, region string, zones []string, cfg Config) (*Market, error) {
	if eng == nil || cat == nil {
		return nil, errors.New("spotmarket: New needs an engine and a catalogue")
	}
	var errs []error
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	if !slices.Contains(cat.Regions(), region) {
		errs = append(errs, fmt.Errorf("market.region: %q has no Spot Advisor data; use one of %s", region, strings.Join(cat.Regions(), ", ")))
	}
	if len(zones) == 0 {
		errs = append(errs, errors.New("market.zones: at least one zone is required"))
	}
	for i, z := range zones {
		if !strings.HasPrefix(z, region) || len(z) == len(region) {
			errs = append(errs, fmt.Errorf("market.zones[%d]: %q is not a zone of %s (e.g. %sa)", i, z, region, region))
		}
		if slices.Index(zones, z) < i {
			errs = append(errs, fmt.Errorf("market.zones[%d]: %q is listed twice", i, z))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m := &Market{
		eng:      eng,
		cat:      cat,
		region:   region,
		zones:    slices.Clone(zones),
		cfg:      cfg,
		poolIdx:  make(map[Offering]int32),
		famIdx:   make(map[string]int32),
		inst:     make([]instance, 1, 64),
		ownerIdx: make(map[string]int32),
		joins:    joinState{rng: eng.Stream("spotmarket/join")},
	}
	if cfg.Trace != nil {
		m.trace = &Trace{Name: cfg.Trace.Name, Events: slices.Clone(cfg.Trace.Events)}
	}
	m.cfg.Events = slices.Clone(cfg.Events)
	seen := map[string]bool{}
	for _, it := range cat.Types() {
		if _, ok := cat.SpotAdvice(region, it.Name); ok && !seen[it.Family] {
			seen[it.Family] = true
			m.families = append(m.families, it.Family)
		}
	}
	slices.Sort(m.families)
	for i, f := range m.families {
		m.famIdx[f] = int32(i)
	}
	if err := m.compileScripts(); err != nil {
		return nil, err
	}
	if err := m.checkTrace(); err != nil {
		return nil, err
	}
	if err := m.checkReservations(); err != nil {
		return nil, err
	}
	m.derive()
	m.id = eng.Register(m)
	m.initReservations()
	m.scheduleStart()
	return m, nil
}

// derive computes the model's constants from the config.
func (m *Market) derive() {
	c := &m.cfg
	rc := c.Regimes
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * rc.DurationScale) }
	const A, C, E = RegimeAvailable, RegimeConstrained, RegimeExhausted
	m.spotChain = newChain(rc.Shape,
		[4]time.Duration{A: scale(rc.AvailableMedian), C: scale(rc.ConstrainedMedian), E: scale(rc.ExhaustedMedian)},
		[4][2]Regime{A: {C, E}, C: {A, E}, E: {C, A}},
		[4]float64{A: rc.AvailableToExhausted, C: rc.ConstrainedToExhausted, E: rc.ExhaustedToAvailable})
	m.odChain = newChain(rc.Shape,
		[4]time.Duration{A: c.OnDemand.AvailableMedian, E: c.OnDemand.ExhaustedMedian},
		[4][2]Regime{A: {E, E}, E: {A, A}},
		[4]float64{})

	// Levels that are on share the shock part of the hazard by weight.
	lv := [numLevels]ShockLevel{levelFamilyZone: c.Shocks.FamilyZone, levelZone: c.Shocks.Zone, levelRegion: c.Shocks.Region}
	var wsum float64
	for l := range lv {
		if lv[l].PerDay*c.Shocks.RateScale > 0 {
			wsum += lv[l].Weight
		}
	}
	if wsum > 0 {
		m.shockShare = c.Shocks.Share
	}
	for l := range lv {
		rate := lv[l].PerDay * c.Shocks.RateScale / 24 // per target per hour
		m.levels[l] = levelParams{rate: rate, reclaim: lv[l].ReclaimFraction,
			scale: weibullScale(lv[l].Duration, rc.Shape)}
		if rate > 0 && wsum > 0 {
			m.levels[l].weight = lv[l].Weight / wsum
		}
	}

	// Background hazard by regime, normalised so its time average is the
	// band's (1 - shock share).
	mult := [4]float64{A: 1, C: rc.ConstrainedHazard, E: rc.ExhaustedHazard}
	var mean float64
	for r := A; r <= E; r++ {
		mean += m.spotChain.initial[r] * mult[r]
	}
	if c.Model == ModelStochastic && mean > 0 {
		for r := A; r <= E; r++ {
			m.bgFactor[r] = (1 - m.shockShare) * mult[r] / mean
		}
	}
	m.falseFactor = c.Rebalance.PerNotice - c.Rebalance.EarlyProb - c.Rebalance.WithNoticeProb
}

// scheduleStart queues the shock processes, the scripted events and the
// trace.
func (m *Market) scheduleStart() {
	if m.cfg.Model == ModelStochastic {
		for z := range m.zones {
			m.addProc(levelFamilyZone, z, float64(len(m.families)))
			m.addProc(levelZone, z, 1)
		}
		m.addProc(levelRegion, -1, 1)
	}
	for i := range m.scripts {
		m.eng.Schedule(m.scripts[i].ev.At, engine.Event{Handler: m.id, Kind: evScriptStart, Obj: int32(i)})
	}
	if m.trace != nil && len(m.trace.Events) > 0 {
		m.eng.Schedule(m.trace.Events[0].At, engine.Event{Handler: m.id, Kind: evTrace, Obj: 0})
	}
}

// Subscribe adds s; every signal goes to every subscriber in the order they
// subscribed.
func (m *Market) Subscribe(s Subscriber) { m.subs = append(m.subs, s) }

// Zones returns the market's zones.
func (m *Market) Zones() []string { return slices.Clone(m.zones) }

// Region returns the market's region.
func (m *Market) Region() string { return m.region }

// lookup returns the pool of o, creating it on first use, or -1 and the
// error code when the market does not sell o.
func (m *Market) lookup(o Offering) (int32, string) {
	if i, ok := m.poolIdx[o]; ok {
		return i, ""
	}
	return m.create(o)
}

func (m *Market) create(o Offering) (int32, string) {
	it, ok := m.cat.Lookup(o.InstanceType)
	if !ok {
		return -1, CodeUnsupported
	}
	z := slices.Index(m.zones, o.Zone)
	if z < 0 || o.CapacityType > cluster.Reserved {
		return -1, CodeUnsupported
	}
	res := m.reservationOf(o)
	if o.Reservation != "" && (res == nil || res.cfg.InstanceType != o.InstanceType || res.cfg.Zone != o.Zone) {
		return -1, CodeUnsupported
	}
	od, _, ok := m.cat.OnDemandPrice(m.region, it.Name)
	if !ok {
		return -1, CodeUnsupported
	}
	p := pool{off: o, it: it, zone: int16(z), od: od, base: od, band: -1, fam: -1, activeIdx: -1,
		famHash: engine.FNV1a64(it.Family)}
	if f, ok := m.famIdx[it.Family]; ok {
		p.fam = f
	}
	if o.CapacityType == cluster.Spot {
		adv, ok := m.cat.SpotAdvice(m.region, it.Name)
		if !ok {
			return -1, CodeUnfulfillable
		}
		p.band = int8(adv.Band)
		p.base = od * (1 - float64(adv.SavingsPct)/100)
		frac := m.cfg.BandReclaim[adv.Band]
		// docs/models.md "Spot market": the band's monthly fraction p as a constant hazard
		// -ln(1-p)/720 per hour.
		p.lambda = m.cfg.HazardMultiplier * -math.Log1p(-frac) / 720
		for l := range m.levels {
			p.hit[l], p.frac[l] = m.levels[l].calibrate(m.shockShare*p.lambda, m.cfg.Model == ModelStochastic)
		}
	}
	name := "spotmarket/pool/" + o.String()
	p.rng = m.eng.Stream(name)
	p.regimeRn = m.eng.Stream(name + "/regime")
	p.priceRn = m.eng.Stream(name + "/price")
	p.replayReg = RegimeAvailable
	if m.cfg.Model == ModelStochastic && o.CapacityType != cluster.Reserved {
		p.reg, p.regEnd = m.chain(&p).start(p.regimeRn)
	}
	p.depth = depthState{full: m.fullDepth(&p), set: -1, last: m.eng.Now()}
	p.pts = append(p.pts, pricePoint{0, p.base})
	if m.cfg.Model == ModelStochastic && p.spot() && m.cfg.Price.DriftSigma > 0 {
		p.drift = m.cfg.Price.DriftSigma * p.priceRn.NormFloat64()
		p.pts[0].price = m.driftPrice(&p)
	}
	i := int32(len(m.pools))
	if res != nil {
		m.reservedPool(&p, res, i)
	}
	m.pools = append(m.pools, p)
	m.poolIdx[o] = i
	return i, ""
}

func (m *Market) chain(p *pool) *chainParams {
	if p.spot() {
		return &m.spotChain
	}
	return &m.odChain
}

// regime returns p's effective regime now: the model's (stochastic chain
// raised by active shocks, the trace's, or available), then scripted events.
func (m *Market) regime(p *pool) Regime {
	r := RegimeAvailable
	switch m.cfg.Model {
	case ModelStochastic:
		if p.off.CapacityType != cluster.Reserved {
			m.advance(p, m.eng.Now())
			r = p.reg
		}
		if p.spot() {
			for _, s := range m.activeShocks {
				if f := m.shocks[s].floor(p); f > r {
					r = f
				}
			}
		}
	case ModelReplay:
		r = p.replayReg
	}
	for _, s := range m.activeScripts {
		if m.scripts[s].matches(p) {
			r = m.scripts[s].ev.State
		}
	}
	return r
}

// advance moves p's regime chain to time t. It draws from p's regime stream
// only, in a fixed order, so the chain's path does not depend on when it is
// looked at.
func (m *Market) advance(p *pool, t engine.Time) {
	c := m.chain(p)
	for p.regEnd <= t {
		p.reg = c.next(p.reg, p.regimeRn)
		p.regEnd += c.holding(p.reg, p.regimeRn)
	}
}

// Regime returns the effective capacity regime of o now; ok is false when
// the market does not sell o.
func (m *Market) Regime(o Offering) (r Regime, ok bool) {
	i, code := m.lookup(o)
	if code != "" {
		return RegimeUnset, false
	}
	return m.regime(&m.pools[i]), true
}

// Available reports whether o's regime is not exhausted now: a launch there
// would not fail for certain (in a constrained pool it may still fail,
// and any pool may have given all its depth: see [Market.Depth]). It is
// false for offerings the market does not sell.
func (m *Market) Available(o Offering) bool {
	r, ok := m.Regime(o)
	return ok && r != RegimeExhausted
}

// Price returns o's current price in USD per hour; ok is false when the
// market does not sell o.
func (m *Market) Price(o Offering) (usdPerHour float64, ok bool) {
	i, code := m.lookup(o)
	if code != "" {
		return 0, false
	}
	return m.priceAt(&m.pools[i], m.eng.Now()), true
}

// cand is one candidate offering of a launch.
type cand struct {
	idx   int32 // position in the request
	pool  int32 // -1: not sold
	code  string
	reg   Regime // regimeNotSold for unsold offerings
	band  int8
	price float64
}

const regimeNotSold = RegimeExhausted + 1

// notSold is 1 for offerings the market does not sell: every strategy
// tries them last.
func notSold(c cand) int {
	if c.reg == regimeNotSold {
		return 1
	}
	return 0
}

func byPriceCapacity(a, b cand) int {
	return cmp.Or(cmp.Compare(a.reg, b.reg), cmp.Compare(a.price, b.price), cmp.Compare(a.idx, b.idx))
}

func byCapacity(a, b cand) int {
	return cmp.Or(cmp.Compare(a.reg, b.reg), cmp.Compare(a.band, b.band), cmp.Compare(a.idx, b.idx))
}

func byPrice(a, b cand) int {
	return cmp.Or(cmp.Compare(notSold(a), notSold(b)), cmp.Compare(a.price, b.price), cmp.Compare(a.idx, b.idx))
}

// Launch asks for one instance in one of req.Offerings at Now(), trying
// them in the order req.Strategy gives (see [Strategy]); an exhausted pool
// fails with InsufficientInstanceCapacity, so does a pool whose depth is
// used up (the error's Dry is set), and a constrained one with
// probability Regimes.ConstrainedFailure. The first success is the answer;
// failures before it are in Errors. When all fail the error wraps
// [ErrInsufficientCapacity]. Launch must not be called from OnSignal.
func (m *Market) Launch(req LaunchRequest) (LaunchResult, error) {
	if m.delivering {
		panic("spotmarket: Launch called from a Subscriber's OnSignal; schedule an engine event and launch from there")
	}
	owner := m.owner(req.Owner)
	m.stats.LaunchRequests++
	m.ownerCtr[owner].LaunchRequests++
	if len(req.Offerings) == 0 {
		m.stats.LaunchFailures++
		return LaunchResult{}, fmt.Errorf("spotmarket: launch for %q lists no offerings", req.Owner)
	}
	if req.Strategy > Prioritized {
		return LaunchResult{}, fmt.Errorf("spotmarket: launch for %q: unknown strategy %d", req.Owner, req.Strategy)
	}
	cs := m.cands[:0]
	for i, o := range req.Offerings {
		c := cand{idx: int32(i)}
		c.pool, c.code = m.lookup(o)
		if c.pool < 0 {
			c.reg = regimeNotSold
		} else {
			p := &m.pools[c.pool]
			c.reg = m.regime(p)
			c.band = max(p.band, 0)
			c.price = m.priceAt(p, m.eng.Now())
		}
		cs = append(cs, c)
	}
	switch req.Strategy {
	case PriceCapacityOptimized:
		slices.SortFunc(cs, byPriceCapacity)
	case CapacityOptimized:
		slices.SortFunc(cs, byCapacity)
	case LowestPrice:
		slices.SortFunc(cs, byPrice)
	}
	m.cands = cs
	var res LaunchResult
	for _, c := range cs {
		o := req.Offerings[c.idx]
		code := c.code
		dry := false
		if c.pool >= 0 {
			p := &m.pools[c.pool]
			p.stats.Asked++
			switch {
			case p.spot() && m.cfg.SpotVCPUQuota > 0 && m.spotVCPUs+p.it.VCPU > m.cfg.SpotVCPUQuota:
				code = CodeSpotLimit
			case p.off.Reservation != "" && m.resFree(m.reservationOf(p.off)) < 1:
				code = CodeReservationCapacityExceeded
			case c.reg == RegimeExhausted:
				code = CodeInsufficientCapacity
			case m.depthNow(p, c.reg) < 1:
				code, dry = CodeInsufficientCapacity, true
			case c.reg == RegimeConstrained && p.rng.Float64() < m.cfg.Regimes.ConstrainedFailure:
				code = CodeInsufficientCapacity
			}
			if code == "" {
				code = m.addressCode(p.off.Zone)
			}
		}
		if code != "" {
			res.Errors = append(res.Errors, OfferingError{Offering: o, Code: code, Dry: dry})
			if code == CodeUnsupported {
				m.stats.UnsupportedErrors++
			} else if code == CodeInsufficientAddresses {
				m.stats.InsufficientAddressErrors++
			} else {
				m.stats.InsufficientCapacityErrors++
				m.ownerCtr[owner].InsufficientCapacityErrors++
				if c.pool >= 0 {
					m.pools[c.pool].stats.InsufficientCapacityErrors++
				}
				if dry {
					m.stats.DepthRefusals++
					m.ownerCtr[owner].DepthRefusals++
					m.pools[c.pool].stats.DepthRefusals++
				}
			}
			continue
		}
		p := &m.pools[c.pool]
		m.take(p)
		m.noteBatch(owner, true)
		res.Instance = m.start(c.pool, owner, c.price)
		res.Offering = p.off
		res.PriceUSDPerHour = c.price
		lat := m.cfg.Latency.Fleet
		if req.Latency == ASGLaunch {
			lat = m.cfg.Latency.ASG
		}
		res.ReadyAfter = lat.Sample(p.rng)
		if !req.Joined {
			m.joinOutcome(&res, p, &req)
		}
		m.stats.Launches++
		m.ownerCtr[owner].Launches++
		p.stats.Launches++
		return res, nil
	}
	m.stats.LaunchFailures++
	m.noteBatch(owner, false)
	return res, &LaunchError{Owner: req.Owner, Tried: len(res.Errors), NoAddresses: noAddresses(res.Errors)}
}

func (m *Market) owner(name string) int32 {
	if i, ok := m.ownerIdx[name]; ok {
		return i
	}
	i := int32(len(m.owners))
	m.owners = append(m.owners, name)
	m.ownerCtr = append(m.ownerCtr, Counters{})
	m.ownerIdx[name] = i
	return i
}

// start creates a running instance in pool pi.
func (m *Market) start(pi, owner int32, price float64) InstanceID {
	id := InstanceID(len(m.inst))
	p := &m.pools[pi]
	m.inst = append(m.inst, instance{pool: pi, owner: owner, slot: int32(len(p.live)), state: stLive,
		launched: m.eng.Now(), price: price})
	p.live = append(p.live, id)
	p.running++
	m.subnets.TakeNode(id, p.off.Zone)
	if p.spot() {
		m.spotVCPUs += p.it.VCPU
		if len(p.live) == 1 {
			m.activate(pi)
		}
		m.reschedule(pi)
	}
	return id
}

// activate puts a spot pool that just got its first live instance on the
// active list and, in the stochastic model, follows its regime chain with
// events.
func (m *Market) activate(pi int32) {
	p := &m.pools[pi]
	p.activeIdx = int32(len(m.active))
	m.active = append(m.active, pi)
	if m.cfg.Model == ModelStochastic {
		m.advance(p, m.eng.Now())
		p.regTimer = m.eng.Schedule(p.regEnd, engine.Event{Handler: m.id, Kind: evRegime, Obj: pi})
	}
}

func (m *Market) deactivate(pi int32) {
	p := &m.pools[pi]
	last := m.active[len(m.active)-1]
	m.active[p.activeIdx] = last
	m.pools[last].activeIdx = p.activeIdx
	m.active = m.active[:len(m.active)-1]
	p.activeIdx = -1
	m.eng.Cancel(p.regTimer)
	m.eng.Cancel(p.bgTimer)
	p.regTimer, p.bgTimer = engine.Timer{}, engine.Timer{}
}

// reschedule redraws pool pi's next background decision for its current
// live count and effective regime (exponential, so redrawing is exact).
func (m *Market) reschedule(pi int32) {
	p := &m.pools[pi]
	m.eng.Cancel(p.bgTimer)
	p.bgTimer = engine.Timer{}
	if len(p.live) == 0 {
		if p.activeIdx >= 0 {
			m.deactivate(pi)
		}
		return
	}
	if m.cfg.Model != ModelStochastic {
		return
	}
	r := m.regime(p)
	p.rateRegime = r
	rate := float64(len(p.live)) * p.lambda * m.bgFactor[r] * (1 + m.falseFactor) // per hour
	if rate <= 0 {
		return
	}
	d := hours(p.rng.ExpFloat64() / rate)
	if d >= maxDelay {
		return
	}
	p.bgTimer = m.eng.After(d, engine.Event{Handler: m.id, Kind: evBackground, Obj: pi})
}

// refresh reschedules pool pi if its effective regime changed.
func (m *Market) refresh(pi int32) {
	p := &m.pools[pi]
	if len(p.live) > 0 && m.regime(p) != p.rateRegime {
		m.reschedule(pi)
	}
}

// removeLive takes id off its pool's live list.
func (m *Market) removeLive(id InstanceID) {
	in := &m.inst[id]
	p := &m.pools[in.pool]
	last := p.live[len(p.live)-1]
	p.live[in.slot] = last
	m.inst[last].slot = in.slot
	p.live = p.live[:len(p.live)-1]
	in.slot = -1
}

// rebalanceWay is when a reclaimed instance's rebalance recommendation
// comes, if at all.
type rebalanceWay uint8

const (
	rebalanceNone       rebalanceWay = iota
	rebalanceNow                     // at once, ahead of the notice
	rebalanceWithNotice              // together with the notice
)

// wayOf draws a rebalanceWay from u, uniform on [0, 1), with the
// configured probabilities.
func (b RebalanceConfig) wayOf(u float64) rebalanceWay {
	switch {
	case u < b.EarlyProb:
		return rebalanceNow
	case u < b.EarlyProb+b.WithNoticeProb:
		return rebalanceWithNotice
	}
	return rebalanceNone
}

// doom commits a live instance to a reclaim: its notice comes after
// noticeIn, a rebalance recommendation as way says. The caller reschedules
// the pool.
func (m *Market) doom(id InstanceID, noticeIn time.Duration, way rebalanceWay) {
	m.removeLive(id)
	in := &m.inst[id]
	in.state = stDoomed
	in.withReb = way == rebalanceWithNotice
	in.notice = m.eng.After(noticeIn, engine.Event{Handler: m.id, Kind: evNotice, Obj: int32(id)})
	if way == rebalanceNow {
		m.rebalance(id, 0)
	}
}

// rebalance schedules a rebalance recommendation for id; one already
// pending absorbs it.
func (m *Market) rebalance(id InstanceID, in time.Duration) {
	x := &m.inst[id]
	if m.eng.Pending(x.rebal) {
		return
	}
	x.rebal = m.eng.After(in, engine.Event{Handler: m.id, Kind: evRebalance, Obj: int32(id)})
}

// Terminate ends an instance at its owner's request: billing stops now and
// no signal about it follows, including any already scheduled. Unknown or
// ended instances are ignored. It must not be called from OnSignal.
func (m *Market) Terminate(id InstanceID) {
	if m.delivering {
		panic("spotmarket: Terminate called from a Subscriber's OnSignal; schedule an engine event and terminate from there")
	}
	if id <= 0 || int(id) >= len(m.inst) {
		return
	}
	in := &m.inst[id]
	if in.state >= stTerminated {
		return
	}
	m.eng.Cancel(in.notice)
	m.eng.Cancel(in.reclaim)
	m.eng.Cancel(in.rebal)
	wasLive := in.state == stLive
	if wasLive {
		m.removeLive(id)
	}
	m.end(id, stTerminated)
	m.stats.Terminations++
	if wasLive && m.pools[in.pool].spot() {
		m.reschedule(in.pool)
	}
}

func (m *Market) end(id InstanceID, st uint8) {
	m.subnets.ReleaseNode(id)
	in := &m.inst[id]
	in.state = st
	in.ended = m.eng.Now()
	p := &m.pools[in.pool]
	p.running--
	m.giveBack(p)
	if p.spot() {
		m.spotVCPUs -= p.it.VCPU
	}
}

// HandleEvent implements engine.Handler.
func (m *Market) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evBackground:
		m.background(ev.Obj)
	case evRegime:
		p := &m.pools[ev.Obj]
		m.advance(p, m.eng.Now())
		p.regTimer = m.eng.Schedule(p.regEnd, engine.Event{Handler: m.id, Kind: evRegime, Obj: ev.Obj})
		m.refresh(ev.Obj)
	case evNotice:
		id := InstanceID(ev.Obj)
		in := &m.inst[id]
		in.state = stNoticed
		in.reclaim = m.eng.After(m.cfg.NoticeLead, engine.Event{Handler: m.id, Kind: evReclaim, Obj: ev.Obj})
		if in.withReb {
			m.signal(RebalanceRecommendation, id, 0)
		}
		m.signal(InterruptionNotice, id, m.eng.Now()+m.cfg.NoticeLead)
	case evReclaim:
		id := InstanceID(ev.Obj)
		m.eng.Cancel(m.inst[id].rebal)
		m.end(id, stReclaimed)
		m.signal(Terminated, id, 0)
	case evRebalance:
		m.signal(RebalanceRecommendation, InstanceID(ev.Obj), 0)
	case evShock:
		m.startShock(ev.Obj)
	case evShockEnd:
		m.endShock(ev.Obj)
	case evScriptStart:
		m.startScript(ev.Obj)
	case evScriptEnd:
		m.endScript(ev.Obj)
	case evTrace:
		m.replay(ev.Obj)
	case evBlockReclaim:
		m.blockReclaim(ev.Obj)
	case evResInterrupt:
		m.resInterrupt(ev.Obj)
	}
}

// background handles a pool's background decision: with odds 1 :
// falseFactor it dooms a random live instance (notice now or after an early
// rebalance) or sends one a false-alarm rebalance recommendation.
func (m *Market) background(pi int32) {
	p := &m.pools[pi]
	p.bgTimer = engine.Timer{}
	if len(p.live) == 0 {
		return
	}
	rb := m.cfg.Rebalance
	id := p.live[p.rng.IntN(len(p.live))]
	if p.rng.Float64()*(1+m.falseFactor) >= 1 {
		m.rebalance(id, 0)
	} else {
		way := rb.wayOf(p.rng.Float64())
		noticeIn := time.Duration(0)
		if way == rebalanceNow {
			noticeIn = m.earlyLead(p)
		}
		m.doom(id, noticeIn, way)
	}
	m.reschedule(pi)
}

// earlyLead draws the time from an early rebalance recommendation to the
// notice: log-uniform on [EarlyLeadMin, EarlyLeadMax].
func (m *Market) earlyLead(p *pool) time.Duration {
	lo, hi := float64(m.cfg.Rebalance.EarlyLeadMin), float64(m.cfg.Rebalance.EarlyLeadMax)
	return time.Duration(lo * math.Exp(p.rng.Float64()*math.Log(hi/lo)))
}

// signal counts and delivers one signal. Every signal is delivered from its
// own engine event after the market's state is updated.
func (m *Market) signal(k SignalKind, id InstanceID, deadline engine.Time) {
	in := &m.inst[id]
	p := &m.pools[in.pool]
	oc := &m.ownerCtr[in.owner]
	switch k {
	case RebalanceRecommendation:
		m.stats.RebalanceRecommendations++
		p.stats.RebalanceRecommendations++
		oc.RebalanceRecommendations++
	case InterruptionNotice:
		m.stats.Interruptions++
		p.stats.Interruptions++
		oc.Interruptions++
	case Terminated:
		m.stats.Reclaims++
		p.stats.Reclaims++
		oc.Reclaims++
	}
	s := Signal{Kind: k, Instance: id, Offering: p.off, At: m.eng.Now(), Deadline: deadline}
	m.delivering = true
	for _, sub := range m.subs {
		sub.OnSignal(s)
	}
	m.delivering = false
}

// Instance describes id; ok is false for an unknown ID.
func (m *Market) Instance(id InstanceID) (InstanceInfo, bool) {
	if id <= 0 || int(id) >= len(m.inst) {
		return InstanceInfo{}, false
	}
	in := &m.inst[id]
	st := InstanceRunning
	switch in.state {
	case stNoticed:
		st = InstanceNoticed
	case stTerminated:
		st = InstanceTerminated
	case stReclaimed:
		st = InstanceReclaimed
	}
	return InstanceInfo{ID: id, Offering: m.pools[in.pool].off, Owner: m.owners[in.owner], State: st,
		LaunchedAt: in.launched, EndedAt: in.ended, PriceUSDPerHour: in.price}, true
}

// Stats returns the counters so far.
func (m *Market) Stats() Stats {
	s := m.stats
	s.ByOwner = make([]OwnerStats, len(m.owners))
	for i, o := range m.owners {
		s.ByOwner[i] = OwnerStats{Owner: o, Counters: m.ownerCtr[i]}
	}
	slices.SortFunc(s.ByOwner, func(a, b OwnerStats) int { return strings.Compare(a.Owner, b.Owner) })
	s.ByPool = nil
	for i := range m.pools {
		if p := &m.pools[i]; p.stats != (Counters{}) {
			s.ByPool = append(s.ByPool, PoolStats{Offering: p.off, Counters: p.stats})
		}
	}
	slices.SortFunc(s.ByPool, func(a, b PoolStats) int {
		return cmp.Or(strings.Compare(a.Offering.InstanceType, b.Offering.InstanceType),
			strings.Compare(a.Offering.Zone, b.Offering.Zone),
			cmp.Compare(a.Offering.CapacityType, b.Offering.CapacityType))
	})
	return s
}

// Adopt registers an instance that already runs when the scenario starts
// (a node of an imported cluster that an autoscaler adopts) in offering o,
// for owner and group, at the pool's price now. Nothing is drawn: there is
// no capacity check, no depth taken and no join outcome, and it counts as
// no launch; from then on it is billed, can be interrupted and is
// terminated as a launched instance is. It fails only when the market
// does not sell o.
func (m *Market) Adopt(owner, group string, o Offering) (LaunchResult, error) {
	pi, code := m.lookup(o)
	if pi < 0 {
		return LaunchResult{}, fmt.Errorf("spotmarket: cannot adopt an instance of %s for %s %s: %s", o, owner, group, code)
	}
	p := &m.pools[pi]
	price := m.priceAt(p, m.eng.Now())
	id := m.start(pi, m.owner(owner), price)
	return LaunchResult{Instance: id, Offering: p.off, PriceUSDPerHour: price}, nil
}
