package karpenter

import (
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// disrupter is the disruption controller (KC pkg/controllers/disruption):
// every DisruptionPollInterval while idle (at once after an action) it
// tries its methods in order (method.go) and starts the first command one
// of them finds. Emptiness and consolidation commands are re-validated
// CommandValidationDelay later, during which the loop waits
// (validation.go). Commands with replacements taint their candidates,
// launch the replacements, and delete the candidates once the
// replacements are initialized, or give up after ReplacementTimeout
// (command.go). Expiration and interruption are not its methods: they are
// forceful deletions that ignore budgets (terminator.go).
type disrupter struct {
	env
	parts

	// methods, in the order a pass tries them (method.go).
	methods []method
	// pass: what the what-ifs of one pass share (pass.go); provSet: the
	// last provisionable pods prepared for solves.
	pass    passCache
	provSet *scheduling.PodSet
	// earlyStops counts the what-ifs cut short by an early verdict
	// (earlyNo, doomed).
	earlyStops int64

	nextPass engine.Timer
	// awaitingStart: the cluster started from an imported state whose
	// pods are not all bound yet; the first pass waits for them (KC
	// Controller.Reconcile requeues until cluster state is synced), then
	// runs at once, as a restarted Karpenter's does.
	awaitingStart bool
	// work counts the pods placed by scheduling simulations since the
	// pass (or validation) began; it sets how long the pass takes
	// (passTime).
	work int64
	// version changes with anything that may make consolidation possible
	// (KC cluster.MarkUnconsolidated).
	version uint64
	// pending: the command waiting for validation; running: the commands
	// waiting for their replacements.
	pending *command
	running []*command
	// onCommand, when set, hears of each moment of a command
	// (Karpenter.OnDisruptionCommand, commandevents.go).
	onCommand func(component.DisruptionCommand)
}

func (d *disrupter) stateChanged() { d.version++ }

// startSyncRequeue is how soon a pass waiting for the imported start
// state to be bound looks again (KC's requeue while state is not synced:
// 1 s).
const startSyncRequeue = time.Second

// startNotRunning reports whether a pod of the imported start state (made at
// time 0, pinned to a node: sim import's startOn) is not running yet: it
// ran at the export. A pass before they are bound would find the imported
// nodes empty; before they run, it would count them as pods still
// starting, which they are not upstream.
func (d *disrupter) startNotRunning() bool {
	for i := range d.cl.Pods {
		p := &d.cl.Pods[i]
		if p.Created == 0 && p.Spec.NodeName != "" && (p.Phase == cluster.Pending || p.Phase == cluster.Bound) {
			return true
		}
	}
	return false
}

// candidate is a node a method may disrupt (KC Candidate).
type candidate struct {
	kn    *knode
	pods  []cluster.PodID // reschedulable pods
	price float64         // $/h
	// cost is its disruption cost: baseDisruptionCost plus its pods'
	// positive eviction costs (KC RescheduleDisruptionCost).
	cost  float64
	ratio float64 // price per unit of disruption (KC SavingsRatio)
}

// baseDisruptionCost is a node's disruption cost without pods (KC
// PerNodeBaseDisruptionCost).
const baseDisruptionCost = 1.0

func (d *disrupter) schedulePass(after engine.Time) {
	d.eng.Cancel(d.nextPass)
	d.nextPass = d.eng.After(after, engine.Event{Handler: d.id, Kind: evDisruption})
}

func (d *disrupter) disruptionPass() {
	if d.pending != nil {
		return // validation in progress; it schedules the next pass
	}
	if d.awaitingStart {
		// A start pod that never binds (its node is not in the export)
		// does not hold the loop past its usual first pass.
		if d.eng.Now() < d.settings.DisruptionPollInterval && d.startNotRunning() {
			d.schedulePass(startSyncRequeue)
			return
		}
		d.awaitingStart = false
	}
	d.offerings.RefreshPrices()
	// The methods' what-ifs share what does not depend on the candidates
	// (pass.go) until a command is found.
	d.work = 0
	d.beginPass()
	var cmd *command
	for _, m := range d.methods {
		if cmd = d.compute(m); cmd != nil {
			break
		}
	}
	d.endPass()
	if cmd != nil && d.onCommand != nil {
		d.tell(cmd, phaseDecided, "")
		for _, sib := range cmd.siblings {
			d.tell(sib, phaseDecided, "")
		}
	}
	switch {
	case cmd == nil:
		d.schedulePass(d.passTime(d.work) + d.settings.DisruptionPollInterval)
	case cmd.method.consolidationState() == nil:
		// Drift: no validation.
		d.start(cmd)
		for _, sib := range cmd.siblings {
			d.start(sib)
		}
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

// evictionCost is KC disruption.EvictionCost: 1 + the disruption (or
// deletion) cost annotation/2^27 + priority/2^25, clamped to [-10, 10].
func evictionCost(spec *cluster.PodSpec) float64 {
	c := 1.0
	if spec.HasDisruptionCost {
		c += float64(spec.DisruptionCost) / (1 << 27)
	}
	c += float64(spec.Priority) / (1 << 25)
	return max(-10, min(10, c))
}

// candidates lists the nodes a method may disrupt now (KC GetCandidates,
// NewCandidate and the method's ShouldDisrupt).
func (d *disrupter) candidates(m method) []*candidate {
	var scans []nodeScan
	if m.class() == repairClass {
		scans = d.scanNodes(true)
	} else {
		scans = d.nodeScans()
	}
	var out []*candidate
	var slab []candidate // one allocation for the method's candidates
	evenBlocked := m.class() != graceful
	for _, ns := range scans {
		if ns.blocked && !(evenBlocked && ns.kn.Pool.Spec.TerminationGracePeriod > 0) {
			continue
		}
		// Every scanned node is checked (consolidatable may change the
		// consolidation state); only those that pass become candidates.
		if !m.shouldDisrupt(ns.kn, ns.cost <= baseDisruptionCost) {
			continue
		}
		price := d.offerings.NodePrice(&ns.kn.Node)
		if slab == nil {
			slab = make([]candidate, 0, len(scans))
			out = make([]*candidate, 0, len(scans))
		}
		slab = append(slab, candidate{kn: ns.kn, pods: ns.pods, price: price, cost: ns.cost, ratio: price / ns.cost})
		out = append(out, &slab[len(slab)-1])
	}
	return out
}

// budgets returns, per pool, how many more nodes the method may disrupt
// now (KC BuildDisruptionBudgetMapping).
func (d *disrupter) budgets(reason apis.Reason) map[*scheduling.Pool]int {
	num := map[*scheduling.Pool]int{}
	disrupting := map[*scheduling.Pool]int{}
	for _, kn := range d.nodes.live {
		if !kn.Initialized || kn.instanceEnded {
			// A node whose instance is terminating counts neither way
			// (KC NodePoolStatsFromNodes skips InstanceTerminating).
			continue
		}
		num[kn.Pool]++
		// A NotReady node takes from every budget but repair's (KC
		// NodePoolStatsFromNodes: it is repair's trigger).
		notReady := d.cl.Nodes[kn.ID].Condition.NotReady() && reason != apis.ReasonUnhealthy
		if kn.Deleting || kn.cmd != nil || notReady {
			disrupting[kn.Pool]++
		}
	}
	out := map[*scheduling.Pool]int{}
	wall := d.wall(d.eng.Now())
	for _, p := range d.pools.All {
		allowed := p.Spec.Disruption.AllowedDisruptions(wall, num[p], reason)
		out[p] = max(allowed-disrupting[p], 0)
	}
	return out
}

func sortByRatio(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].ratio != cs[j].ratio {
			return cs[i].ratio > cs[j].ratio
		}
		return cs[i].kn.ID < cs[j].kn.ID
	})
}

// withinBudget sorts the candidates by savings ratio, best first, and keeps
// those whose NodePool's budget has room, taking one from it for each
// (emptiness and multi-node consolidation); constrained reports whether a
// budget turned any away.
func withinBudget(budget map[*scheduling.Pool]int, cs []*candidate) (take []*candidate, constrained bool) {
	sortByRatio(cs)
	for _, c := range cs {
		if budget[c.kn.Pool] == 0 {
			constrained = true
			continue
		}
		take = append(take, c)
		budget[c.kn.Pool]--
	}
	return take, constrained
}

// compute runs one method: its candidates, unless the cluster is as it
// was when the method last found nothing, then its command.
func (d *disrupter) compute(m method) *command {
	cs := d.candidates(m)
	if len(cs) == 0 {
		return nil
	}
	if c := m.consolidationState(); c != nil && c.isConsolidated() {
		return nil
	}
	return m.computeCommand(d.budgets(m.reason()), cs)
}

// whatIfPurpose is what a disruption what-if is for.
type whatIfPurpose uint8

const (
	forConsolidation whatIfPurpose = iota
	forDrift
)

// simulate reschedules the candidates' pods (with the pending pods and the
// pods of deleting nodes) on the rest of the cluster (KC
// SimulateScheduling), for a consolidation (which may stop early once the
// answer is no) or for drift (which needs the whole answer).
func (d *disrupter) simulate(cs []*candidate, purpose whatIfPurpose) *scheduling.Solver {
	consolidation := purpose == forConsolidation
	exclude := make([]cluster.NodeID, 0, len(cs))
	sets := make([]*scheduling.PodSet, 0, len(cs)+1)
	for _, c := range cs {
		exclude = append(exclude, c.kn.ID)
		sets = append(sets, c.podSet(d.solvers))
		d.work += int64(len(c.pods))
	}
	prov := d.provisionableSet()
	sets = append(sets, prov)
	d.work += int64(len(prov.Pods))
	// The sets are the pods (newSolver stamps them, the queue merges them).
	s := d.solvers.NewSolver(nil, scheduling.SolveOpts{Exclude: exclude, Consolidation: consolidation, Sets: sets, Universe: d.universe(), ReservedFallback: true})
	if consolidation {
		d.earlyNo(s, cs, sets)
	}
	s.Solve(nil)
	return s
}

// allMovedScheduled: every pod that is not pending found a place, and none
// relies on a node that is not initialized unless it comes from a deleting
// node (KC AllNonPendingPodsScheduled and UninitializedNodeError).
func (d *disrupter) allMovedScheduled(s *scheduling.Solver) bool {
	for _, id := range s.Failed {
		if !s.Pending(id) {
			return false
		}
	}
	for _, ex := range s.Existing {
		if ex.Initialized {
			continue
		}
		for _, id := range ex.Placed {
			if !s.Pending(id) && !d.nodes.podOnDeletingNode(id) {
				return false
			}
		}
	}
	return true
}
