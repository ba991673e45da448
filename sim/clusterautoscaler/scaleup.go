package clusterautoscaler

import (
	"math"
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// orchestrator is the scale-up orchestrator (core/scaleup/orchestrator):
// it takes the pending pods, groups them into equivalence groups, drops
// those that fit existing and upcoming nodes, asks the estimator for
// each group's option and the expander for the best, balances it over
// similar groups and carries it out on the cluster state.
type orchestrator struct {
	env
	parts

	est     estimator
	scratch upScratch
	// salvoTime is the virtual time the last loop's further scale-ups
	// took (--salvo-scale-up; 0 without), which the loop-time model adds.
	salvoTime time.Duration
	// noScaleUp, when set, hears why pods got no node (explain.go).
	noScaleUp NoScaleUpFunc
}

// upScratch holds the orchestrator's buffers reused across loops.
type upScratch struct {
	pods     []cluster.PodID
	groups   []*podGroup
	byKey    map[groupKey]*podGroup
	existing destSet // filterSchedulable's existing nodes
	fits     []bool
	placed   []placedPod
}

type groupKey struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
}

// option is one way to scale up: a group, how many nodes, for which pods.
type option struct {
	g   *group
	tpl *template
	est estimate
}

// scaleUp runs the scale-up half of a loop. It returns whether it
// launched anything, and whether scale-down must wait this loop: all
// pending pods are too new, or the (last) scale-up succeeded.
func (o *orchestrator) scaleUp(now engine.Time) (scaled, holdScaleDown bool) {
	o.salvoTime = 0
	if o.prq != nil {
		return o.scaleUpWithProvReqs(now)
	}
	groups, opts, hold := o.scaleUpOptions(now, true)
	if hold {
		return false, true
	}
	if len(groups) == 0 {
		return false, false
	}
	if o.noScaleUp != nil {
		o.explainNoScaleUp(groups, now)
	}
	if len(opts) == 0 {
		return false, false
	}
	best := o.exp.expand(opts)
	if best == nil {
		return false, false
	}
	// The pods to help and those left once the scale-up is done.
	total := countPods(groups)
	left := total - len(best.est.pods)
	if !o.execute(best, groups, now, false) {
		return false, false
	}
	if !o.s.SalvoScaleUp {
		return true, true
	}
	return true, o.salvo(total, left, now)
}

// salvo runs the further scale-ups of a loop with --salvo-scale-up
// (core/static_autoscaler.go runScaleUpSalvo, 1.36+): while pods are
// left and the loop has spent less than --salvo-scale-up-budget on
// scale-ups, another scale-up for the pods left, which sees the nodes of
// those before as upcoming (upstream injects them into its snapshot with
// the pods that triggered them; here the filter-out-schedulable step
// places those pods on them). It stops at the first attempt that scales
// nothing. The budget is virtual time: each attempt takes the loop-time
// model's pending-pod term for the pods it tries to help, and that time
// (but the first attempt's, which the model already counts) lengthens
// the loop when loops take computed time. total pods were to help at the
// first scale-up, left of them are not helped by it. It returns whether
// the last attempt succeeded: upstream's loop status is the last
// attempt's, and only a successful one keeps scale-down off in the loop.
// Why pods got no node (OnNoScaleUp) is said for the first attempt only.
func (o *orchestrator) salvo(total, left int, now engine.Time) bool {
	perPod := LoopPerPendingPod * time.Duration(10+len(o.groups)) / 10
	spent := time.Duration(total) * perPod
	for left > 0 {
		if spent >= o.s.SalvoScaleUpBudget {
			return true // the budget is spent
		}
		groups, opts, _ := o.scaleUpOptions(now, false)
		n := countPods(groups)
		cost := time.Duration(n) * perPod
		spent += cost
		o.salvoTime += cost
		if len(opts) == 0 {
			return false
		}
		best := o.exp.expand(opts)
		if best == nil || !o.execute(best, groups, now, false) {
			return false
		}
		left = n - len(best.est.pods)
	}
	return true
}

// countPods is the pods of the groups.
func countPods(groups []*podGroup) int {
	n := 0
	for _, pg := range groups {
		n += len(pg.pods)
	}
	return n
}

// scaleUpOptions runs a scale-up up to the expander: the pending pods
// grouped, minus those that fit existing and upcoming nodes, and the
// options for them. With waitNew, it stops (hold) when all the pods are
// too new.
func (o *orchestrator) scaleUpOptions(now engine.Time, waitNew bool) (groups []*podGroup, opts []*option, hold bool) {
	o.refreshTemplates()
	pods := o.collectPending(now)
	if len(pods) == 0 && o.bufs == nil {
		return nil, nil, false
	}
	groups = o.groupPods(pods)
	fakes := false
	if o.bufs != nil {
		// The CapacityBuffer pod list processor runs first (buffers.go).
		groups = o.injectBufferPods(groups)
		fakes = len(groups) > 0 && slices.ContainsFunc(groups, func(pg *podGroup) bool { return pg.fake })
		if len(groups) == 0 {
			return nil, nil, false
		}
	}
	// Pods that just arrived: wait for more (allPodsAreNew).
	oldest, oldestGPU, anyGPU := engine.Time(math.MaxInt64), engine.Time(math.MaxInt64), false
	for _, pg := range groups {
		if pg.fake {
			continue // told apart below
		}
		oldest = min(oldest, pg.oldest)
		if pg.gpu {
			anyGPU = true
			oldestGPU = min(oldestGPU, pg.oldest)
		}
	}
	allNew := waitNew && oldest != math.MaxInt64 && (oldest+o.s.PodTimeBuffer > now || (anyGPU && oldestGPU+o.s.GPUPodTimeBuffer > now))
	if allNew && !fakes {
		return nil, nil, true
	}
	o.prepareSpreads(groups)
	o.prepareHostSpreads(groups)
	groups = o.filterSchedulable(groups)
	if fakes {
		// Upstream asks allPodsAreNew of the pods left after
		// filter-out-schedulable: fake pods left there have no creation
		// time, so the oldest pod is old, and so is the oldest GPU pod if
		// a fake one is left.
		left, leftGPU := false, false
		for _, pg := range groups {
			if pg.fake {
				left, leftGPU = true, leftGPU || pg.gpu
			}
		}
		if left {
			allNew = waitNew && anyGPU && !leftGPU && oldestGPU+o.s.GPUPodTimeBuffer > now
		}
		if allNew {
			return nil, nil, true
		}
	}
	if len(groups) == 0 {
		return nil, nil, false
	}
	return groups, o.options(groups, now), false
}

// collectPending returns the pods the Cluster Autoscaler tries to help:
// unbound, marked unschedulable by the scheduler, not terminating, not
// waiting for a preemption's room (FilterOutExpendableAndSplit; upstream
// also adds such a pod to its nominated node in the snapshot, which we
// do not), not below --expendable-pods-priority-cutoff, older than
// --new-pod-scale-up-delay; sorted by priority, highest first, then by
// creation.
func (o *orchestrator) collectPending(now engine.Time) []cluster.PodID {
	keep := o.pending[:0]
	out := o.scratch.pods[:0]
	for _, id := range o.pending {
		p := &o.cl.Pods[id]
		if p.Phase != cluster.Pending || !p.Unschedulable {
			o.inPending[id] = false
			continue
		}
		keep = append(keep, id)
		if p.Terminating || p.Preempting || p.Spec.Priority < o.s.ExpendablePodsPriorityCutoff || p.Created+o.s.NewPodScaleUpDelay > now {
			continue
		}
		out = append(out, id)
	}
	o.pending = keep
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := o.cl.Pods[out[i]].Spec.Priority, o.cl.Pods[out[j]].Spec.Priority
		if pi != pj {
			return pi > pj
		}
		return out[i] < out[j]
	})
	o.scratch.pods = out
	return out
}

// groupPods splits pods into equivalence groups, in the pods' order.
func (o *orchestrator) groupPods(pods []cluster.PodID) []*podGroup {
	if o.scratch.byKey == nil {
		o.scratch.byKey = map[groupKey]*podGroup{}
	}
	clear(o.scratch.byKey)
	groups := o.scratch.groups[:0]
	gi, gpuOK := o.cl.Resources.Lookup(catalog.GPUResourceName)
	for _, id := range pods {
		p := &o.cl.Pods[id]
		k := groupKey{p.Spec, p.Namespace}
		pg := o.scratch.byKey[k]
		if pg == nil {
			pg = &podGroup{spec: p.Spec, ns: p.Namespace, oldest: p.Created}
			pg.podLevel, pg.hostOnly = podConstraints(p.Spec, o.symHostname)
			pg.domainSpread = !pg.hostOnly && hasDomainSpread(p.Spec, o.symHostname)
			pg.spreadOnly = pg.domainSpread && onlySpreadBeyondHost(p.Spec, o.symHostname)
			pg.gpu = gpuOK && p.Spec.Requests[gi] > 0
			o.scratch.byKey[k] = pg
			groups = append(groups, pg)
		}
		pg.pods = append(pg.pods, id)
		pg.oldest = min(pg.oldest, p.Created)
	}
	o.scratch.groups = groups
	return groups
}

// filterSchedulable drops the pods that would fit on existing Ready nodes
// or on the nodes the groups are waiting for (launching nodes and
// placeholders, simulated from their templates), as the
// filter-out-schedulable pod list processor does. It returns the groups
// with pods left.
func (o *orchestrator) filterSchedulable(groups []*podGroup) []*podGroup {
	// The existing nodes pods may go to, set up lazily.
	return o.filterOn(groups, o.startDests(&o.scratch.existing), o.upcomingSets())
}

// upcomingSets are the nodes the groups are waiting for, simulated from
// their templates, empty.
func (o *orchestrator) upcomingSets() []upcomingSet {
	var ups []upcomingSet
	for _, g := range o.groups {
		n := o.upcoming(g, false)
		if n == 0 {
			continue
		}
		set := upcomingSet{tpl: g.tpl, nodes: make([]simNode, n)}
		for i := range set.nodes {
			set.nodes[i].free = g.tpl.node.Allocatable
		}
		ups = append(ups, set)
	}
	return ups
}

// filterOn is filterSchedulable on the existing nodes ex and the
// upcoming ones ups, whose room it takes.
func (o *orchestrator) filterOn(groups []*podGroup, ex *destSet, ups []upcomingSet) []*podGroup {
	out := groups[:0]
	for _, pg := range groups {
		k := 0 // pods of pg placed so far
		// Existing nodes. A pod the scheduler found no room for and whose
		// constraints depend on other topology domains is left to the
		// scheduler's verdict, unless those are spreads (checked here).
		// Pods with domain spreads try the existing nodes, then the
		// upcoming ones, pod by pod.
		for {
			before := k
			// Fake pods have no scheduler verdict: they try the existing
			// nodes whatever their constraints.
			if !pg.podLevel || pg.hostOnly || pg.spreadOnly || pg.fake {
				k = o.onExisting(pg, k, ex)
			}
			if pg.spreads == nil {
				break
			}
			k = o.spreadOnUpcoming(pg, k, ups)
			// A zone the skew refused may take pods once others have
			// caught up: another round while the last one placed some.
			if k == before || k == len(pg.pods) {
				break
			}
		}
		// Upcoming nodes, set by set (pods with domain spreads are done).
		for s := range ups {
			if pg.spreads != nil {
				break
			}
			set := &ups[s]
			if k == len(pg.pods) {
				break
			}
			if m, _ := cluster.StaticFit(o.cl.Syms, pg.spec, &set.tpl.node, nil); m != cluster.Fits {
				continue
			}
			cursor := 0
			for k < len(pg.pods) && cursor < len(set.nodes) {
				sn := &set.nodes[cursor]
				if !pg.spec.Requests.Fits(sn.free) || (pg.podLevel && !podLevelOK(o.cl.Syms, o.symHostname, pg.spec, pg.ns, sn.placed)) {
					cursor++
					continue
				}
				pg.placeOne(&sn.free, &sn.placed)
				if pg.feeds != nil {
					o.countOn(pg, &set.tpl.node)
				}
				k++
			}
		}
		if k < len(pg.pods) {
			pg.pods = pg.pods[k:]
			out = append(out, pg)
		}
	}
	return out
}

// onExisting places the pods of a group, from the k-th on, on existing
// nodes (first fit by ID) and returns the pods placed so far.
func (o *orchestrator) onExisting(pg *podGroup, k int, ex *destSet) int {
	t := ex.jumps.table(o.clusterState, pg.spec)
	cursor := 0
	for k < len(pg.pods) && cursor < len(ex.ids) {
		// Room only shrinks here: nodes that did not fit at the start are
		// passed over.
		if cursor = o.next(t, ex.ids, ex.base, pg.spec, cursor); cursor == len(ex.ids) {
			break
		}
		e := ex.at(cursor)
		nd := &o.cl.Nodes[ex.ids[cursor]]
		if !pg.spec.Requests.Fits(e.free) || !o.podLevelOnNode(pg, ex.ids[cursor], e.extra) ||
			(pg.spreads != nil && !spreadOK(pg, nd)) {
			cursor++
			continue
		}
		pg.placeOne(&e.free, &e.extra)
		if pg.feeds != nil {
			o.countOn(pg, nd)
		}
		if pg.fake {
			o.bufs.notePlaced(ex.ids[cursor], pg.spec, pg.ns)
		}
		k++
	}
	return k
}

// upcomingSet is a group's upcoming nodes, simulated from its template.
type upcomingSet struct {
	tpl   *template
	nodes []simNode
}

// spreadOnUpcoming places the pods of a group with domain spreads, from
// the k-th on, on the upcoming nodes, one pod at a time on the first
// node of any set that passes the filters, as the scheduling simulation
// does: a set whose zone the skew refuses is passed over for one in
// another zone. It returns the pods placed so far.
func (o *orchestrator) spreadOnUpcoming(pg *podGroup, k int, ups []upcomingSet) int {
	for _, s := range pg.spreads {
		s.zoneOK = false
	}
	for k < len(pg.pods) {
		placed := false
		for s := range ups {
			set := &ups[s]
			if m, _ := cluster.StaticFit(o.cl.Syms, pg.spec, &set.tpl.node, nil); m != cluster.Fits || !spreadOK(pg, &set.tpl.node) {
				continue
			}
			for i := range set.nodes {
				sn := &set.nodes[i]
				if !pg.spec.Requests.Fits(sn.free) || !podLevelOK(o.cl.Syms, o.symHostname, pg.spec, pg.ns, sn.placed) {
					continue
				}
				pg.placeOne(&sn.free, &sn.placed)
				o.countOn(pg, &set.tpl.node)
				placed = true
				break
			}
			if placed {
				break
			}
		}
		if !placed {
			break // the pods are identical: the next one fits nowhere either
		}
		k++
	}
	return k
}

// placeOne takes one of the group's pods' requests from a node's free
// room and, when the group has pod-level constraints, which later pods
// check, adds the pod to the node's placed pods.
func (pg *podGroup) placeOne(free *cluster.Resources, placed *[]placedPod) {
	*free = free.Sub(pg.spec.Requests)
	if pg.podLevel {
		*placed = append(*placed, placedPod{pg.spec, pg.ns})
	}
}

// podLevelOnNode checks a group's hostname-keyed pod constraints against
// an existing node's pods and those the simulation added.
func (o *orchestrator) podLevelOnNode(pg *podGroup, id cluster.NodeID, extra []placedPod) bool {
	if !pg.podLevel && len(extra) == 0 && !o.anyAntiAffinity(id) {
		return true
	}
	placed := o.scratch.placed[:0]
	for _, p := range o.state(id).pods {
		placed = append(placed, placedPod{p.spec, p.ns})
	}
	placed = append(placed, extra...)
	o.scratch.placed = placed
	return podLevelOK(o.cl.Syms, o.symHostname, pg.spec, pg.ns, placed)
}

func (cs *clusterState) hasTaint(nd *cluster.Node, key cluster.Sym) bool {
	for _, t := range nd.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// options estimates, for every group that may grow, how many nodes the
// pending pods need (the scale-up orchestrator's computeExpansionOption).
func (o *orchestrator) options(groups []*podGroup, now engine.Time) []*option {
	var opts []*option
	for _, g := range o.groups {
		if !g.sel.Autoscaled || o.backedOff(g, now) || g.target >= g.sel.Max || !o.groupHealthy(g, now) {
			continue
		}
		if g.target == 0 && !o.s.ScaleUpFromZero {
			continue
		}
		tpl := g.tpl
		fits := o.scratch.fits[:0]
		anyFit := false
		for _, pg := range groups {
			ok := o.templateTakes(pg.spec, pg, tpl)
			fits = append(fits, ok)
			anyFit = anyFit || ok
		}
		o.scratch.fits = fits
		if !anyFit {
			continue
		}
		maxNodes := min(o.s.MaxNodesPerScaleUp, g.sel.Max-g.target)
		opt := &option{g: g, tpl: tpl}
		o.est.run(groups, fits, &tpl.node, maxNodes, &opt.est)
		if opt.est.nodes > 0 {
			opts = append(opts, opt)
		}
	}
	return opts
}

// templateTakes is the predicate check of a pod (of group pg, nil when
// not at hand) on a group's template node (SchedulablePodGroups):
// cluster.StaticFit, then the group's domain spreads with the template in
// its zone.
func (o *orchestrator) templateTakes(spec *cluster.PodSpec, pg *podGroup, tpl *template) bool {
	if m, _ := cluster.StaticFit(o.cl.Syms, spec, &tpl.node, &tpl.node.Allocatable); m != cluster.Fits {
		return false
	}
	if pg != nil && pg.spreads != nil {
		for _, s := range pg.spreads {
			s.zoneOK = false // outside an estimation
		}
		return spreadOK(pg, &tpl.node)
	}
	return true
}

// execute carries out the chosen option: caps it by --max-nodes-total and
// the cluster's core and memory limits, balances it over similar groups
// when asked, raises the ASGs' desired capacity and launches the
// instances.
//
// atomic is the all-or-nothing scale-up of a best-effort-atomic
// ProvisioningRequest (core/scaleup/orchestrator prepareScaleUp with
// allOrNothing): it does nothing when a cap or the balancing leaves fewer
// nodes than the estimate. The increases themselves are not atomic: the
// AWS provider's AtomicIncreaseSize returns ErrNotImplemented, and the
// executor (orchestrator/executor.go increaseSize) falls back to
// IncreaseSize, group by group.
func (o *orchestrator) execute(best *option, groups []*podGroup, now engine.Time, atomic bool) bool {
	n := best.est.nodes
	if o.s.MaxNodesTotal > 0 {
		total := o.cl.LiveNodes()
		for _, g := range o.groups {
			total += len(g.placeholders)
		}
		n = min(n, o.s.MaxNodesTotal-total)
	}
	n = min(n, o.limitByResources(best.tpl))
	if n <= 0 || (atomic && n < best.est.nodes) {
		return false
	}
	plan := []struct {
		g *group
		n int
	}{{best.g, n}}
	if o.s.BalanceSimilarNodeGroups {
		plan = plan[:0]
		for _, s := range o.balance(best, groups, n, now) {
			plan = append(plan, struct {
				g *group
				n int
			}{s.g, s.n})
		}
	}
	if atomic {
		total := 0
		for _, step := range plan {
			total += step.n
		}
		if total < n {
			return false
		}
	}
	// Pods per simulated node, so each launched node knows its pods (a
	// ProvisioningRequest's pods are no pods of the cluster: fakePod).
	byNode := make([][]cluster.PodID, best.est.nodes)
	for i, p := range best.est.pods {
		if p >= 0 {
			byNode[best.est.nodeOf[i]] = append(byNode[best.est.nodeOf[i]], p)
		}
	}
	k := 0
	for _, step := range plan {
		if step.n <= 0 {
			continue
		}
		g := step.g
		o.stats.scaleUps++
		g.stats.ScaleUps++
		g.target += step.n
		o.registerScaleUp(g, step.n, now)
		for j := 0; j < step.n; j++ {
			var pods []cluster.PodID
			if k < len(byNode) {
				pods = byNode[k]
			}
			k++
			o.launch(g, launchScaleUp, pods)
		}
	}
	o.lastScaleUp = now
	return true
}

// limitByResources caps a scale-up by --cores-total and --memory-total: at
// most the nodes of the template that keep the cluster's capacity under
// the maxima.
func (o *orchestrator) limitByResources(tpl *template) int {
	var cores, memGiB float64
	for _, i := range o.cache.live {
		nd := &o.cl.Nodes[i]
		if it, ok := o.cat.Lookup(nd.InstanceType); ok {
			cores += float64(it.VCPU)
			memGiB += float64(it.MemoryMiB) / 1024
		} else {
			cores += float64(nd.Allocatable[cluster.CPU]) / 1000
			memGiB += float64(nd.Allocatable[cluster.Memory]) / (1 << 30)
		}
	}
	nodeCores := float64(tpl.capCPU) / 1000
	nodeMem := float64(tpl.capMem) / (1 << 30)
	limit := math.MaxInt32
	if nodeCores > 0 {
		limit = min(limit, int((float64(o.s.CoresTotal[1])-cores)/nodeCores))
	}
	if nodeMem > 0 {
		limit = min(limit, int((float64(o.s.MemoryTotalGiB[1])-memGiB)/nodeMem))
	}
	return limit
}

func sortedQuantityNames(m map[string]resource.Quantity) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
