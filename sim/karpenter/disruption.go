package karpenter

import (
	"math"
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// The disruption controller (KC pkg/controllers/disruption): every
// DisruptionPollInterval while idle (at once after an action) it tries, in
// order, emptiness, drift, multi-node and single-node consolidation, and
// starts the first command one of them finds. Emptiness and consolidation
// commands are re-validated CommandValidationDelay later, during which the
// loop waits. Commands with replacements taint their candidates, launch
// the replacements, and delete the candidates once the replacements are
// initialized (or give up after ReplacementTimeout). Expiration and
// interruption are separate controllers and ignore budgets.

type method uint8

const (
	mEmptiness method = iota
	mDrift
	mMulti
	mSingle
	numMethods
)

func (m method) reason() apis.Reason {
	switch m {
	case mEmptiness:
		return apis.ReasonEmpty
	case mDrift:
		return apis.ReasonDrifted
	}
	return apis.ReasonUnderutilized
}

func (m method) stat() string {
	switch m {
	case mEmptiness:
		return reasonEmpty
	case mDrift:
		return reasonDrifted
	}
	return reasonUnderutilized
}

// disrupter is the disruption controller (see above).
type disrupter struct {
	env
	offerings *offerings
	nodes     *nodeTracker
	pools     *nodePools
	base      *existingBase
	solvers   *solvers
	prov      *provisioner
	term      *terminator

	// pass: what the what-ifs of one pass share (pass.go); provSet: the
	// last provisionable pods prepared for solves.
	pass    passCache
	provSet *podSet
	// fullWhatIfs turns earlyNo off (tests check it changes nothing);
	// earlyStops counts the what-ifs it cut short.
	fullWhatIfs bool
	earlyStops  int64
	// verifyDoomed, in tests, is told whether each what-if doomed skips
	// really fails.
	verifyDoomed func(failed bool)

	nextPass engine.Timer
	// work counts the pods placed by scheduling simulations since the
	// pass (or validation) began; it sets how long the pass takes
	// (passTime).
	work int64
	// unseenPools: the pools a timed-out single-node pass did not reach;
	// the next passes take them first (KC PreviouslyUnseenNodePools, kept
	// until the next timeout).
	unseenPools map[*pool]bool
	// version changes with anything that may make consolidation possible
	// (KC cluster.MarkUnconsolidated).
	version uint64
	// per consolidation method: the version and time it last found
	// nothing to do (KC consolidation.markConsolidated).
	consolidated   [numMethods]uint64
	consolidatedAt [numMethods]engine.Time
	marked         [numMethods]bool
	pending        *command
	running        []*command
}

func (d *disrupter) stateChanged() { d.version++ }

// command is one disruption decision.
type command struct {
	method       method
	cands        []*candidate
	replacements []*claim
	replNodes    []cluster.NodeID
	// optNames: the replacement's instance types, for re-validation.
	optTypes []int32
	deadline engine.Time
}

type candidate struct {
	kn    *knode
	pods  []cluster.PodID // reschedulable pods
	price float64
	ratio float64 // price per unit of disruption (KC SavingsRatio)
}

func (d *disrupter) schedulePass(after engine.Time) {
	d.eng.Cancel(d.nextPass)
	d.nextPass = d.eng.After(after, engine.Event{Handler: d.id, Kind: evDisruption})
}

func (d *disrupter) disruptionPass() {
	if d.pending != nil {
		return // validation in progress; it schedules the next pass
	}
	d.offerings.refreshPrices()
	// The methods' what-ifs share what does not depend on the candidates
	// (pass.go) until a command is found.
	d.work = 0
	d.beginPass()
	var cmd *command
	for m := method(0); m < numMethods && cmd == nil; m++ {
		cmd = d.compute(m)
	}
	d.endPass()
	switch {
	case cmd == nil:
		d.schedulePass(d.passTime(d.work) + d.settings.DisruptionPollInterval)
	case cmd.method == mDrift:
		d.start(cmd)
		d.schedulePass(d.passTime(d.work))
	default:
		// The decision exists once the pass has computed it; validation
		// follows CommandValidationDelay later.
		d.pending = cmd
		d.eng.After(d.passTime(d.work)+d.settings.CommandValidationDelay, engine.Event{Handler: d.id, Kind: evValidate})
	}
}

// passTime is how long the controller computes to place work pods in
// scheduling simulations (Settings.SolverPodsPerSecond; 0: no time).
// Real passes are sequential and take wall time: at scale they, not the
// 10 s polling period, set how often the controller looks.
func (d *disrupter) passTime(work int64) engine.Time {
	r := d.settings.SolverPodsPerSecond
	if r <= 0 || work == 0 {
		return 0
	}
	return engine.Time(float64(work) / r * float64(time.Second))
}

// timedOut reports whether a consolidation method that started when the
// pass had done work0 has computed longer than its timeout.
func (d *disrupter) timedOut(work0 int64, timeout time.Duration) bool {
	if d.settings.SolverPodsPerSecond <= 0 || timeout <= 0 {
		return false
	}
	if d.passTime(d.work-work0) <= timeout {
		return false
	}
	d.stats.ConsolidationTimeouts++
	return true
}

func (d *disrupter) isConsolidated(m method) bool {
	st := d
	return st.marked[m] && st.consolidated[m] == st.version && d.eng.Now()-st.consolidatedAt[m] < d.settings.ConsolidationStateTTL
}

func (d *disrupter) markConsolidated(m method) {
	st := d
	st.marked[m], st.consolidated[m], st.consolidatedAt[m] = true, st.version, d.eng.Now()
}

// evictionCost is KC disruption.EvictionCost without the deletion-cost
// annotation: 1 + priority/2^25, clamped to [-10, 10].
func evictionCost(spec *cluster.PodSpec) float64 {
	c := 1 + float64(spec.Priority)/(1<<25)
	return max(-10, min(10, c))
}

// candidates lists the nodes a method may disrupt now (KC GetCandidates,
// NewCandidate and the method's ShouldDisrupt).
func (d *disrupter) candidates(m method) []*candidate {
	scans := d.nodeScans()
	var out []*candidate
	var slab []candidate // one allocation for the method's candidates
	for _, ns := range scans {
		eventual := m == mDrift && ns.kn.pool.spec.TerminationGracePeriod > 0
		if ns.blocked && !eventual {
			continue
		}
		// Every scanned node is checked (consolidatable may change the
		// consolidation state); only those that pass become candidates.
		if !d.shouldDisrupt(m, ns.kn, len(ns.pods)) {
			continue
		}
		price := d.nodePrice(ns.kn)
		if slab == nil {
			slab = make([]candidate, 0, len(scans))
			out = make([]*candidate, 0, len(scans))
		}
		slab = append(slab, candidate{kn: ns.kn, pods: ns.pods, price: price, ratio: price / ns.cost})
		out = append(out, &slab[len(slab)-1])
	}
	return out
}

func (d *disrupter) nodePrice(kn *knode) float64 {
	z := d.offerings.zoneIndex(kn.offering.Zone)
	ct := ctOnDemand
	if kn.offering.CapacityType == cluster.Spot {
		ct = ctSpot
	}
	if z >= 0 {
		if p := d.offerings.off.price[d.offerings.off.index(kn.it.idx, z, ct)]; p >= 0 {
			return p
		}
	}
	return d.cl.Nodes[kn.id].PriceUSDPerHour
}

// consolidatable: consolidateAfter has passed since the node's last pod
// event (KC Consolidatable condition). A node that just became so changes
// the consolidation state.
func (d *disrupter) consolidatable(kn *knode) bool {
	pa := kn.pool.spec.Disruption
	ok := !pa.ConsolidateNever && d.eng.Now()-kn.lastPodEvent >= pa.ConsolidateAfter
	if ok && !kn.consolidatable {
		d.stateChanged()
	}
	kn.consolidatable = ok
	return ok
}

// shouldDisrupt reports whether a node holding pods reschedulable pods
// is a candidate for method m.
func (d *disrupter) shouldDisrupt(m method, kn *knode, pods int) bool {
	spec := kn.pool.spec
	switch m {
	case mEmptiness:
		return pods == 0 && d.consolidatable(kn)
	case mDrift:
		return d.drifted(kn)
	}
	return pods > 0 && spec.Disruption.Policy == apis.WhenEmptyOrUnderutilized && d.consolidatable(kn)
}

// drifted reports whether the node no longer matches its NodePool: the
// template hash or node class hash changed, the pool is gone, or the
// node's labels no longer meet the pool's requirements (KC drift).
func (d *disrupter) drifted(kn *knode) bool {
	if kn.drifted {
		return true
	}
	p := kn.pool
	if kn.driftChecked == p.spec {
		return false // checked against this version of the pool already
	}
	kn.driftChecked = p.spec
	drift := p.spec.TemplateHash != kn.poolHash || p.spec.NodeClass.Hash != kn.classHash ||
		!compatible(d.cl.Syms, fromLabels(d.cl.Nodes[kn.id].Labels), p.reqs, d.wellKnown)
	if drift {
		kn.drifted, kn.driftedAt = true, d.eng.Now()
	}
	return drift
}

// budgets returns, per pool, how many more nodes the method may disrupt
// now (KC BuildDisruptionBudgetMapping).
func (d *disrupter) budgets(reason apis.Reason) map[*pool]int {
	num := map[*pool]int{}
	disrupting := map[*pool]int{}
	for _, kn := range d.nodes.live {
		if !kn.initialized {
			continue
		}
		num[kn.pool]++
		if kn.deleting || kn.cmd != nil {
			disrupting[kn.pool]++
		}
	}
	out := map[*pool]int{}
	wall := d.wall(d.eng.Now())
	for _, p := range d.pools.all {
		allowed := p.spec.Disruption.AllowedDisruptions(wall, num[p], reason)
		out[p] = max(allowed-disrupting[p], 0)
	}
	return out
}

func sortByRatio(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].ratio != cs[j].ratio {
			return cs[i].ratio > cs[j].ratio
		}
		return cs[i].kn.id < cs[j].kn.id
	})
}

// compute runs one method.
func (d *disrupter) compute(m method) *command {
	cs := d.candidates(m)
	if len(cs) == 0 || m != mDrift && d.isConsolidated(m) {
		return nil
	}
	budget := d.budgets(m.reason())
	switch m {
	case mEmptiness:
		sortByRatio(cs)
		var take []*candidate
		constrained := false
		for _, c := range cs {
			if budget[c.kn.pool] == 0 {
				constrained = true
				continue
			}
			take = append(take, c)
			budget[c.kn.pool]--
		}
		if len(take) == 0 {
			if !constrained {
				d.markConsolidated(m)
			}
			return nil
		}
		return &command{method: m, cands: take}
	case mDrift:
		sort.SliceStable(cs, func(i, j int) bool {
			ei, ej := len(cs[i].pods) == 0, len(cs[j].pods) == 0
			if ei != ej {
				return ei
			}
			if cs[i].kn.driftedAt != cs[j].kn.driftedAt {
				return cs[i].kn.driftedAt < cs[j].kn.driftedAt
			}
			return cs[i].kn.id < cs[j].kn.id
		})
		for _, c := range cs {
			if budget[c.kn.pool] == 0 {
				continue
			}
			s := d.simulate([]*candidate{c}, false)
			ok, claims := d.allMovedScheduled(s), s.claims
			d.solvers.recycle(s)
			if !ok {
				continue
			}
			return &command{method: m, cands: []*candidate{c}, replacements: claims}
		}
		return nil
	case mMulti:
		return d.multiNode(cs, budget)
	}
	return d.singleNode(cs, budget)
}

func (d *disrupter) multiNode(cs []*candidate, budget map[*pool]int) *command {
	sortByRatio(cs)
	var ok []*candidate
	constrained := false
	for _, c := range cs {
		if budget[c.kn.pool] == 0 {
			constrained = true
			continue
		}
		ok = append(ok, c)
		budget[c.kn.pool]--
	}
	hi := min(len(ok), d.settings.MultiNodeCandidates)
	var best *command
	if len(ok) >= 2 {
		lo := 1
		if len(ok) <= hi {
			hi = len(ok) - 1
		}
		work0 := d.work
		for lo <= hi {
			if d.timedOut(work0, d.settings.MultiNodeConsolidationTimeout) {
				// Upstream keeps the best command found so far and does
				// not mark the cluster consolidated.
				return best
			}
			mid := (lo + hi) / 2
			cmd := d.consolidate(mMulti, ok[:mid+1])
			if cmd != nil && len(cmd.replacements) == 1 && !d.filterOutSameType(cmd) {
				cmd = nil
			}
			if cmd != nil {
				best = cmd
				lo = mid + 1
			} else {
				hi = mid - 1
			}
		}
	}
	if best == nil && !constrained {
		d.markConsolidated(mMulti)
	}
	return best
}

func (d *disrupter) singleNode(cs []*candidate, budget map[*pool]int) *command {
	mixed := d.interleave(cs)
	// The pools this pass has not reached yet (KC unseenNodePools).
	unseen := map[*pool]bool{}
	for _, c := range mixed {
		unseen[c.kn.pool] = true
	}
	constrained := false
	work0 := d.work
	for _, c := range mixed {
		if d.timedOut(work0, d.settings.SingleNodeConsolidationTimeout) {
			// Not marked consolidated; the pools not reached go first
			// next time (KC PreviouslyUnseenNodePools).
			d.unseenPools = unseen
			return nil
		}
		delete(unseen, c.kn.pool)
		if budget[c.kn.pool] == 0 {
			constrained = true
			continue
		}
		if cmd := d.consolidate(mSingle, []*candidate{c}); cmd != nil {
			return cmd
		}
	}
	if !constrained {
		d.markConsolidated(mSingle)
	}
	return nil
}

// interleave orders single-node candidates (KC SortCandidates): by
// savings ratio within each pool, then one from each pool in turn. Pools
// that a timed-out pass never reached come first; pools are otherwise in
// name order (upstream takes them in map order).
func (d *disrupter) interleave(cs []*candidate) []*candidate {
	sortByRatio(cs)
	byPool := map[*pool][]*candidate{}
	var order []*pool
	for _, c := range cs {
		if _, ok := byPool[c.kn.pool]; !ok {
			order = append(order, c.kn.pool)
		}
		byPool[c.kn.pool] = append(byPool[c.kn.pool], c)
	}
	unseen := d.unseenPools
	sort.SliceStable(order, func(i, j int) bool {
		if ui, uj := unseen[order[i]], unseen[order[j]]; ui != uj {
			return ui
		}
		return order[i].spec.Name < order[j].spec.Name
	})
	mixed := make([]*candidate, 0, len(cs))
	for i := 0; len(mixed) < len(cs); i++ {
		for _, p := range order {
			if i < len(byPool[p]) {
				mixed = append(mixed, byPool[p][i])
			}
		}
	}
	return mixed
}

// simulate reschedules the candidates' pods (with the pending pods and the
// pods of deleting nodes) on the rest of the cluster (KC
// SimulateScheduling).
func (d *disrupter) simulate(cs []*candidate, consolidation bool) *solver {
	exclude := make([]cluster.NodeID, 0, len(cs))
	sets := make([]*podSet, 0, len(cs)+1)
	for _, c := range cs {
		exclude = append(exclude, c.kn.id)
		sets = append(sets, c.podSet(d.solvers))
		d.work += int64(len(c.pods))
	}
	prov := d.provisionableSet()
	sets = append(sets, prov)
	d.work += int64(len(prov.pods))
	// The sets are the pods (newSolver stamps them, the queue merges them).
	s := d.solvers.newSolver(nil, solveOpts{exclude: exclude, consolidation: consolidation, sets: sets, universe: d.universe()})
	if consolidation {
		d.earlyNo(s, cs, sets)
	}
	s.solve(nil)
	return s
}

// earlyNo tells a consolidation what-if when it may stop because
// consolidate will answer no whatever the remaining pods do (at scale
// most what-ifs of a pass fail, and most fail early):
//   - with two NodeClaims (consolidation replaces with at most one);
//   - when every candidate is spot, spot-to-spot consolidation is off and
//     the first NodeClaim may launch spot: it keeps that spot offering
//     unless a pod requires a capacity type, or a topology group spreads
//     over capacity types, which rules this case out.
//
// The work counted (passTime) is that of the whole what-if, as upstream
// computes it whole.
func (d *disrupter) earlyNo(s *solver, cs []*candidate, sets []*podSet) {
	if d.fullWhatIfs {
		return
	}
	s.stopAtTwo = true
	if d.settings.SpotToSpotConsolidation {
		return
	}
	for _, c := range cs {
		if c.kn.offering.CapacityType != cluster.Spot {
			return
		}
	}
	for _, ps := range sets {
		if ps.namesCapacityType {
			return
		}
	}
	for _, g := range s.topo.inverse {
		if g.key == d.cl.KeyCapacityType {
			return
		}
	}
	s.stopAtSpot, s.spotBits = true, d.offerings.ctBits(ctSpot)
}

// allMovedScheduled: every pod that is not pending found a place, and none
// relies on a node that is not initialized unless it comes from a deleting
// node (KC AllNonPendingPodsScheduled and UninitializedNodeError).
func (d *disrupter) allMovedScheduled(s *solver) bool {
	for _, id := range s.failed {
		if !s.pending(id) {
			return false
		}
	}
	for _, ex := range s.exists {
		if ex.initialized {
			continue
		}
		for _, id := range ex.got {
			if !s.pending(id) && !d.nodes.podOnDeletingNode(id) {
				return false
			}
		}
	}
	return true
}

// consolidate computes a consolidation of the candidates (KC
// computeConsolidation): delete them if their pods fit elsewhere, or
// replace them with one cheaper node.
func (d *disrupter) consolidate(m method, cs []*candidate) *command {
	if d.doomed(cs) {
		if d.verifyDoomed != nil {
			// Tests: the what-if computed whole must agree.
			d.fullWhatIfs = true
			d.verifyDoomed(d.consolidate(m, cs) == nil)
			d.fullWhatIfs = false
		}
		// Counted as computed, as simulate counts it.
		for _, c := range cs {
			d.work += int64(len(c.pods))
		}
		d.work += int64(len(d.provisionableSet().pods))
		d.earlyStops++
		return nil
	}
	s := d.simulate(cs, true)
	defer d.solvers.recycle(s)
	if s.decided {
		d.earlyStops++
		return nil
	}
	if !d.allMovedScheduled(s) {
		return nil
	}
	switch len(s.claims) {
	case 0:
		return &command{method: m, cands: cs}
	case 1:
	default:
		return nil
	}
	c := s.claims[0]
	d.solvers.sortedOptions(c)
	price := 0.0
	allSpot := true
	for _, cd := range cs {
		price += cd.price
		allSpot = allSpot && cd.kn.offering.CapacityType == cluster.Spot
	}
	spotBits := d.offerings.ctBits(ctSpot)
	if allSpot && c.mask&spotBits != 0 {
		return d.spotToSpot(m, cs, c, price)
	}
	d.filterByPrice(c, price)
	if len(c.opts) == 0 {
		return nil
	}
	if c.mask&spotBits != 0 && c.mask&d.offerings.ctBits(ctOnDemand) != 0 {
		// On-demand replaced by a pool that allows spot: replace with spot
		// only, so a spot shortage fails the launch instead of buying a
		// dearer on-demand node.
		d.restrictToSpot(c)
		if len(c.opts) == 0 {
			return nil
		}
	}
	return d.replaceCommand(m, cs, c)
}

func (d *disrupter) replaceCommand(m method, cs []*candidate, c *claim) *command {
	return &command{method: m, cands: cs, replacements: []*claim{c}, optTypes: d.optTypes(c)}
}

func (d *disrupter) optTypes(c *claim) []int32 {
	out := make([]int32, len(c.opts))
	for i, pos := range c.opts {
		out[i] = c.pool.types[pos].t.idx
	}
	return out
}

// filterByPrice keeps the instance types whose worst launch price is below
// the price of what they replace (KC RemoveInstanceTypeOptionsByPriceAndMinValues).
func (d *disrupter) filterByPrice(c *claim, price float64) {
	kept := c.opts[:0]
	for _, pos := range c.opts {
		if d.offerings.worstLaunchPrice(c.pool.types[pos].t, c.mask) < price {
			kept = append(kept, pos)
		}
	}
	c.opts = kept
}

func (d *disrupter) restrictToSpot(c *claim) {
	c.reqs = c.reqs.with(d.cl.Syms, single(d.cl.KeyCapacityType, d.offerings.ctSyms[ctSpot]))
	c.mask &= d.offerings.ctBits(ctSpot)
	kept := c.opts[:0]
	for _, pos := range c.opts {
		if d.offerings.cheapest(c.pool.types[pos].t, c.mask) < math.Inf(1) {
			kept = append(kept, pos)
		}
	}
	c.opts = kept
}

// spotToSpot applies the spot-to-spot rules: the feature gate, and for a
// single node at least SpotToSpotMinTypes cheaper types, of which the
// cheapest SpotToSpotMinTypes are kept.
func (d *disrupter) spotToSpot(m method, cs []*candidate, c *claim, price float64) *command {
	if !d.settings.SpotToSpotConsolidation {
		return nil
	}
	d.restrictToSpot(c)
	d.filterByPrice(c, price)
	if len(c.opts) == 0 {
		return nil
	}
	if len(cs) > 1 {
		return d.replaceCommand(m, cs, c)
	}
	if len(c.opts) < d.settings.SpotToSpotMinTypes {
		return nil
	}
	c.opts = c.opts[:d.settings.SpotToSpotMinTypes]
	return d.replaceCommand(m, cs, c)
}

// filterOutSameType drops replacement types no cheaper than the cheapest
// candidate of the same type (KC filterOutSameInstanceType); false when
// nothing is left.
func (d *disrupter) filterOutSameType(cmd *command) bool {
	c := cmd.replacements[0]
	maxPrice := math.Inf(1)
	for _, pos := range c.opts {
		t := c.pool.types[pos].t
		for _, cd := range cmd.cands {
			if cd.kn.it == t {
				maxPrice = min(maxPrice, cd.price)
			}
		}
	}
	d.filterByPrice(c, maxPrice)
	cmd.optTypes = d.optTypes(c)
	return len(c.opts) > 0
}

// validatePending re-checks the pending command after the validation
// delay and starts it if it still holds (KC Validator).
func (d *disrupter) validatePending() {
	cmd := d.pending
	d.pending = nil
	d.work = 0
	if cmd != nil && d.stillValid(cmd) {
		d.start(cmd)
	}
	d.schedulePass(d.passTime(d.work))
}

func (d *disrupter) stillValid(cmd *command) bool {
	cur := map[*knode]*candidate{}
	for _, c := range d.candidates(cmd.method) {
		cur[c.kn] = c
	}
	budget := d.budgets(cmd.method.reason())
	var fresh []*candidate
	for _, c := range cmd.cands {
		nc, ok := cur[c.kn]
		if !ok || budget[c.kn.pool] == 0 {
			return false
		}
		budget[c.kn.pool]--
		fresh = append(fresh, nc)
	}
	if cmd.method == mEmptiness {
		return true
	}
	again := d.consolidate(cmd.method, fresh)
	if again == nil {
		return false
	}
	if len(cmd.replacements) == 0 {
		return len(again.replacements) == 0
	}
	if len(again.replacements) != 1 {
		return false
	}
	if cmd.method == mMulti && !d.filterOutSameType(again) {
		return false
	}
	// The original options must still all be possible.
	have := map[int32]bool{}
	for _, t := range again.optTypes {
		have[t] = true
	}
	for _, t := range cmd.optTypes {
		if !have[t] {
			return false
		}
	}
	cmd.cands = fresh
	return true
}

// start executes a command.
func (d *disrupter) start(cmd *command) {
	reason := cmd.method.stat()
	if len(cmd.replacements) == 0 {
		for _, c := range cmd.cands {
			d.term.startDeletion(c.kn, reason)
		}
		return
	}
	// The replacements are created before the candidates are marked for
	// deletion, so the candidates count against the limits (limits.go).
	usage := d.pools.usages()
	for _, c := range cmd.cands {
		c.kn.cmd = cmd
		d.base.nodeDirty(c.kn.id)
		d.cl.AddTaint(c.kn.id, cluster.Taint{Key: d.keyDisrupted, Effect: cluster.EffectNoSchedule})
	}
	for _, r := range cmd.replacements {
		id := cluster.NoNode
		if launchAllowed(r.pool, usage) {
			id = d.prov.launchClaim(r, cmd)
		}
		if id == cluster.NoNode {
			d.abort(cmd)
			return
		}
		cmd.replNodes = append(cmd.replNodes, id)
	}
	cmd.deadline = d.eng.Now() + d.settings.ReplacementTimeout
	d.running = append(d.running, cmd)
	d.eng.Schedule(cmd.deadline, engine.Event{Handler: d.id, Kind: evCommandCheck})
}

// checkCommands deletes the candidates of commands whose replacements are
// all initialized, and abandons those past their deadline or whose
// replacement is gone.
func (d *disrupter) checkCommands() {
	now := d.eng.Now()
	var keep []*command
	for _, cmd := range d.running {
		ready, gone := true, false
		for _, id := range cmd.replNodes {
			kn := d.nodes.get(id)
			if kn == nil {
				gone = true
				break
			}
			ready = ready && kn.initialized
		}
		switch {
		case gone || (!ready && now >= cmd.deadline):
			d.release(cmd)
		case ready:
			for _, c := range cmd.cands {
				if c.kn.cmd == cmd {
					d.term.startDeletion(c.kn, cmd.method.stat())
				}
			}
		default:
			keep = append(keep, cmd)
		}
	}
	d.running = keep
}

// release untaints the candidates that are still waiting.
func (d *disrupter) release(cmd *command) {
	for _, c := range cmd.cands {
		if c.kn.cmd == cmd && !c.kn.deleting {
			c.kn.cmd = nil
			d.base.nodeDirty(c.kn.id)
			if d.cl.Nodes[c.kn.id].State != cluster.NodeGone {
				d.cl.RemoveTaint(c.kn.id, d.keyDisrupted, cluster.EffectNoSchedule)
			}
		}
	}
}

// abort releases a command and drops it from the running list.
func (d *disrupter) abort(cmd *command) {
	d.release(cmd)
	var keep []*command
	for _, c := range d.running {
		if c != cmd {
			keep = append(keep, c)
		}
	}
	d.running = keep
}
