package clusterautoscaler

import (
	"math"
	"sort"

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
// launched anything, and whether scale-down must wait (all pending pods
// are too new).
func (a *orchestrator) scaleUp(now engine.Time) (scaled, holdScaleDown bool) {
	groups, opts, hold := a.scaleUpOptions(now, true)
	if hold {
		return false, true
	}
	if len(groups) == 0 {
		return false, false
	}
	if a.noScaleUp != nil {
		a.explainNoScaleUp(groups, now)
	}
	if len(opts) == 0 {
		return false, false
	}
	best := a.exp.expand(opts)
	if best == nil {
		return false, false
	}
	return a.execute(best, groups, now), false
}

// scaleUpOptions runs a scale-up up to the expander: the pending pods
// grouped, minus those that fit existing and upcoming nodes, and the
// options for them. With waitNew, it stops (hold) when all the pods are
// too new.
func (a *orchestrator) scaleUpOptions(now engine.Time, waitNew bool) (groups []*podGroup, opts []*option, hold bool) {
	a.refreshTemplates()
	pods := a.collectPending(now)
	if len(pods) == 0 {
		return nil, nil, false
	}
	groups = a.groupPods(pods)
	// Pods that just arrived: wait for more (allPodsAreNew).
	oldest, oldestGPU, anyGPU := engine.Time(math.MaxInt64), engine.Time(math.MaxInt64), false
	for _, pg := range groups {
		oldest = min(oldest, pg.oldest)
		if pg.gpu {
			anyGPU = true
			oldestGPU = min(oldestGPU, pg.oldest)
		}
	}
	if waitNew && (oldest+a.s.PodTimeBuffer > now || (anyGPU && oldestGPU+a.s.GPUPodTimeBuffer > now)) {
		return nil, nil, true
	}
	a.prepareSpreads(groups)
	a.prepareHostSpreads(groups)
	groups = a.filterSchedulable(groups)
	if len(groups) == 0 {
		return nil, nil, false
	}
	return groups, a.options(groups, now), false
}

// collectPending returns the pods the Cluster Autoscaler tries to help:
// unbound, marked unschedulable by the scheduler, not terminating, not
// below --expendable-pods-priority-cutoff, older than
// --new-pod-scale-up-delay; sorted by priority, highest first, then by
// creation.
func (a *orchestrator) collectPending(now engine.Time) []cluster.PodID {
	keep := a.pending[:0]
	out := a.scratch.pods[:0]
	for _, id := range a.pending {
		p := &a.cl.Pods[id]
		if p.Phase != cluster.Pending || !p.Unschedulable {
			a.inPending[id] = false
			continue
		}
		keep = append(keep, id)
		if p.Terminating || p.Spec.Priority < a.s.ExpendablePodsPriorityCutoff || p.Created+a.s.NewPodScaleUpDelay > now {
			continue
		}
		out = append(out, id)
	}
	a.pending = keep
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := a.cl.Pods[out[i]].Spec.Priority, a.cl.Pods[out[j]].Spec.Priority
		if pi != pj {
			return pi > pj
		}
		return out[i] < out[j]
	})
	a.scratch.pods = out
	return out
}

// groupPods splits pods into equivalence groups, in the pods' order.
func (a *orchestrator) groupPods(pods []cluster.PodID) []*podGroup {
	if a.scratch.byKey == nil {
		a.scratch.byKey = map[groupKey]*podGroup{}
	}
	clear(a.scratch.byKey)
	groups := a.scratch.groups[:0]
	gi, gpuOK := a.cl.Resources.Lookup(catalog.GPUResourceName)
	for _, id := range pods {
		p := &a.cl.Pods[id]
		k := groupKey{p.Spec, p.Namespace}
		pg := a.scratch.byKey[k]
		if pg == nil {
			pg = &podGroup{spec: p.Spec, ns: p.Namespace, oldest: p.Created}
			pg.podLevel, pg.hostOnly = podConstraints(p.Spec, a.symHostname)
			pg.domainSpread = !pg.hostOnly && hasDomainSpread(p.Spec, a.symHostname)
			pg.spreadOnly = pg.domainSpread && onlySpreadBeyondHost(p.Spec, a.symHostname)
			pg.gpu = gpuOK && p.Spec.Requests[gi] > 0
			a.scratch.byKey[k] = pg
			groups = append(groups, pg)
		}
		pg.pods = append(pg.pods, id)
		pg.oldest = min(pg.oldest, p.Created)
	}
	a.scratch.groups = groups
	return groups
}

// filterSchedulable drops the pods that would fit on existing Ready nodes
// or on the nodes the groups are waiting for (launching nodes and
// placeholders, simulated from their templates), as the
// filter-out-schedulable pod list processor does. It returns the groups
// with pods left.
func (a *orchestrator) filterSchedulable(groups []*podGroup) []*podGroup {
	// The existing nodes pods may go to, set up lazily.
	ex := a.startDests(&a.scratch.existing)

	var ups []upcomingSet
	for _, g := range a.groups {
		n := a.upcoming(g, false)
		if n == 0 {
			continue
		}
		set := upcomingSet{tpl: g.tpl, nodes: make([]simNode, n)}
		for i := range set.nodes {
			set.nodes[i].free = g.tpl.node.Allocatable
		}
		ups = append(ups, set)
	}

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
			if !pg.podLevel || pg.hostOnly || pg.spreadOnly {
				k = a.onExisting(pg, k, ex)
			}
			if pg.spreads == nil {
				break
			}
			k = a.spreadOnUpcoming(pg, k, ups)
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
			if m, _ := cluster.StaticFit(a.cl.Syms, pg.spec, &set.tpl.node, nil); m != cluster.Fits {
				continue
			}
			cursor := 0
			for k < len(pg.pods) && cursor < len(set.nodes) {
				sn := &set.nodes[cursor]
				if !pg.spec.Requests.Fits(sn.free) || (pg.podLevel && !podLevelOK(a.cl.Syms, a.symHostname, pg.spec, pg.ns, sn.placed)) {
					cursor++
					continue
				}
				pg.placeOne(&sn.free, &sn.placed)
				if pg.feeds != nil {
					a.countOn(pg, &set.tpl.node)
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
func (a *orchestrator) onExisting(pg *podGroup, k int, ex *destSet) int {
	t := ex.jumps.table(a.clusterState, pg.spec)
	cursor := 0
	for k < len(pg.pods) && cursor < len(ex.ids) {
		// Room only shrinks here: nodes that did not fit at the start are
		// passed over.
		if cursor = a.next(t, ex.ids, ex.base, pg.spec, cursor); cursor == len(ex.ids) {
			break
		}
		e := ex.at(cursor)
		nd := &a.cl.Nodes[ex.ids[cursor]]
		if !pg.spec.Requests.Fits(e.free) || !a.podLevelOnNode(pg, ex.ids[cursor], e.extra) ||
			(pg.spreads != nil && !spreadOK(pg, nd)) {
			cursor++
			continue
		}
		pg.placeOne(&e.free, &e.extra)
		if pg.feeds != nil {
			a.countOn(pg, nd)
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
func (a *orchestrator) spreadOnUpcoming(pg *podGroup, k int, ups []upcomingSet) int {
	for _, s := range pg.spreads {
		s.zoneOK = false
	}
	for k < len(pg.pods) {
		placed := false
		for s := range ups {
			set := &ups[s]
			if m, _ := cluster.StaticFit(a.cl.Syms, pg.spec, &set.tpl.node, nil); m != cluster.Fits || !spreadOK(pg, &set.tpl.node) {
				continue
			}
			for i := range set.nodes {
				sn := &set.nodes[i]
				if !pg.spec.Requests.Fits(sn.free) || !podLevelOK(a.cl.Syms, a.symHostname, pg.spec, pg.ns, sn.placed) {
					continue
				}
				pg.placeOne(&sn.free, &sn.placed)
				a.countOn(pg, &set.tpl.node)
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
func (a *orchestrator) podLevelOnNode(pg *podGroup, id cluster.NodeID, extra []placedPod) bool {
	if !pg.podLevel && len(extra) == 0 && !a.anyAntiAffinity(id) {
		return true
	}
	placed := a.scratch.placed[:0]
	for _, p := range a.state(id).pods {
		placed = append(placed, placedPod{p.spec, p.ns})
	}
	placed = append(placed, extra...)
	a.scratch.placed = placed
	return podLevelOK(a.cl.Syms, a.symHostname, pg.spec, pg.ns, placed)
}

func (a *clusterState) hasTaint(nd *cluster.Node, key cluster.Sym) bool {
	for _, t := range nd.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// options estimates, for every group that may grow, how many nodes the
// pending pods need (the scale-up orchestrator's computeExpansionOption).
func (a *orchestrator) options(groups []*podGroup, now engine.Time) []*option {
	var opts []*option
	for _, g := range a.groups {
		if !g.sel.Autoscaled || a.backedOff(g, now) || g.target >= g.sel.Max {
			continue
		}
		if g.target == 0 && !a.s.ScaleUpFromZero {
			continue
		}
		tpl := g.tpl
		fits := a.scratch.fits[:0]
		anyFit := false
		for _, pg := range groups {
			ok := a.templateTakes(pg.spec, pg, tpl)
			fits = append(fits, ok)
			anyFit = anyFit || ok
		}
		a.scratch.fits = fits
		if !anyFit {
			continue
		}
		maxNodes := min(a.s.MaxNodesPerScaleUp, g.sel.Max-g.target)
		o := &option{g: g, tpl: tpl}
		a.est.run(groups, fits, &tpl.node, maxNodes, &o.est)
		if o.est.nodes > 0 {
			opts = append(opts, o)
		}
	}
	return opts
}

// templateTakes is the predicate check of a pod (of group pg, nil when
// not at hand) on a group's template node (SchedulablePodGroups):
// cluster.StaticFit, then the group's domain spreads with the template in
// its zone.
func (a *orchestrator) templateTakes(spec *cluster.PodSpec, pg *podGroup, tpl *template) bool {
	if m, _ := cluster.StaticFit(a.cl.Syms, spec, &tpl.node, &tpl.node.Allocatable); m != cluster.Fits {
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
func (a *orchestrator) execute(best *option, groups []*podGroup, now engine.Time) bool {
	n := best.est.nodes
	if a.s.MaxNodesTotal > 0 {
		total := a.cl.LiveNodes()
		for _, g := range a.groups {
			total += len(g.placeholders)
		}
		n = min(n, a.s.MaxNodesTotal-total)
	}
	n = min(n, a.limitByResources(best.tpl))
	if n <= 0 {
		return false
	}
	plan := []struct {
		g *group
		n int
	}{{best.g, n}}
	if a.s.BalanceSimilarNodeGroups {
		plan = plan[:0]
		for _, s := range a.balance(best, groups, n, now) {
			plan = append(plan, struct {
				g *group
				n int
			}{s.g, s.n})
		}
	}
	// Pods per simulated node, so each launched node knows its pods.
	byNode := make([][]cluster.PodID, best.est.nodes)
	for i, p := range best.est.pods {
		byNode[best.est.nodeOf[i]] = append(byNode[best.est.nodeOf[i]], p)
	}
	k := 0
	for _, step := range plan {
		if step.n <= 0 {
			continue
		}
		g := step.g
		a.stats.scaleUps++
		g.stats.ScaleUps++
		g.target += step.n
		a.registerScaleUp(g, step.n, now)
		for j := 0; j < step.n; j++ {
			var pods []cluster.PodID
			if k < len(byNode) {
				pods = byNode[k]
			}
			k++
			a.launch(g, launchScaleUp, pods)
		}
	}
	a.lastScaleUp = now
	return true
}

// limitByResources caps a scale-up by --cores-total and --memory-total: at
// most the nodes of the template that keep the cluster's capacity under
// the maxima.
func (a *orchestrator) limitByResources(tpl *template) int {
	var cores, memGiB float64
	for _, i := range a.cache.live {
		nd := &a.cl.Nodes[i]
		if it, ok := a.cat.Lookup(nd.InstanceType); ok {
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
		limit = min(limit, int((float64(a.s.CoresTotal[1])-cores)/nodeCores))
	}
	if nodeMem > 0 {
		limit = min(limit, int((float64(a.s.MemoryTotalGiB[1])-memGiB)/nodeMem))
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
