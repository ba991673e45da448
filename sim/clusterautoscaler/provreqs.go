package clusterautoscaler

import (
	"math"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/provreq"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
)

// This file is the Cluster Autoscaler's ProvisioningRequest support
// (--enable-provisioning-requests; cluster-autoscaler
// pkg/provisioningrequest and pkg/processors/provreq), wired as upstream's
// builder does (builder/clients.go buildProvisioningRequest):
//
//   - at the loop's start the requests' processor (processors/provreq/
//     processor.go refresh) marks BookingExpired the Provisioned requests
//     whose booking (10 min from Provisioned) is over, and Failed
//     (Expired) those not Provisioned 7 days after their creation;
//   - after the filter-out-schedulable processor, the pods that consume a
//     request are dropped (pods_filter.go); the injector (injector.go)
//     adds the pods of the first request that is due (no Provisioned
//     condition, or Provisioned=False and its retry back-off over: 1 min,
//     doubling to 10 min) and marks it Accepted; the processor books
//     capacity: the pods of every Provisioned request whose booking runs
//     and whose consumers are not all scheduled are placed on the
//     snapshot (all of them consumed: BookingExpired, reason
//     CapacityBookingConsumed);
//   - the wrapper orchestrator (orchestrator/wrapper_orchestrator.go)
//     alternates, loop by loop, between the request's pods and the other
//     pods when there are both; the request's class then runs:
//     check-capacity (checkcapacity/provisioningclass.go) places all its
//     pods on the snapshot or none (Provisioned=True CapacityIsFound, or
//     Provisioned=False CapacityIsNotFound, or with parameter noRetry
//     "true" Failed); best-effort-atomic (besteffortatomic/
//     provisioning_class.go) drops the pods that fit and scales up for the
//     rest all or nothing (Provisioned=True CapacityIsProvisioned as soon
//     as the ASGs' desired capacity is raised, else Provisioned=False).
//
// The request's pods are fake: they exist only in these what-ifs, with
// IDs below zero (fakePod). Booked capacity holds room from other
// requests' checks and keeps its nodes from scale-down; the scheduler
// does not see it, so any pod may take it.

// provReqs is the state of the scenario's ProvisioningRequests.
type provReqs struct {
	reqs []*prState
	// fake are this loop's fake pods: fakePod(i) is fake[i].
	fake []fakeSpec
	// booked marks, by NodeID, the existing nodes booked pods were
	// placed on in this loop (scale-down keeps them).
	booked []bool
	// mode is the wrapper orchestrator's ProvisioningRequestScaleUpMode.
	mode bool
	// observe, when set, hears each condition change (the timeline).
	observe func(component.ProvReqCondition)
}

// fakeSpec is a fake pod's spec and namespace.
type fakeSpec struct {
	spec *cluster.PodSpec
	ns   cluster.Sym
}

// fakePod is the ID of a ProvisioningRequest's fake pod i (buffers.go
// says how fake pods are numbered).
func fakePod(i int) cluster.PodID { return provReqPodBase - cluster.PodID(i) }

// Condition indexes.
const (
	condAccepted = iota
	condProvisioned
	condFailed
	condBookingExpired
	numConds
)

var condNames = [numConds]string{provreq.Accepted, provreq.Provisioned, provreq.Failed, provreq.BookingExpired}

type prCondition struct {
	set, status bool
	reason      string
	at          engine.Time
}

// prState is one request's status and the injector's back-off for it.
type prState struct {
	req  *provreq.Request
	ns   cluster.Sym
	cond [numConds]prCondition
	// retry is the back-off cache's value (0: none).
	retry time.Duration
	// provisionedAt is when it first became Provisioned (never: not).
	provisionedAt engine.Time
	attempts      int
}

func newProvReqs(cs *clusterState, reqs []provreq.Request) *provReqs {
	p := &provReqs{}
	for i := range reqs {
		p.reqs = append(p.reqs, &prState{req: &reqs[i], ns: cs.cl.Syms.Intern(reqs[i].Namespace), provisionedAt: never})
	}
	return p
}

func (r *prState) is(c int) bool { return r.cond[c].set && r.cond[c].status }

// setCond is conditions.AddOrUpdateCondition: the condition's time is
// renewed on every update; the observer hears changes of status or
// reason.
func (p *provReqs) setCond(r *prState, c int, status bool, reason, msg string, now engine.Time) {
	old := r.cond[c]
	r.cond[c] = prCondition{set: true, status: status, reason: reason, at: now}
	if c == condProvisioned && status && r.provisionedAt == never {
		r.provisionedAt = now
	}
	if p.observe != nil && (!old.set || old.status != status || old.reason != reason) {
		st := "False"
		if status {
			st = "True"
		}
		p.observe(component.ProvReqCondition{Request: r.req.String(), Class: r.req.Class, Type: condNames[c], Status: st, Reason: reason, Message: msg})
	}
}

// refresh is the processor's loop-start pass (processor.go refresh).
func (p *provReqs) refresh(now engine.Time, instance string) {
	for _, r := range p.reqs {
		if !r.req.Supported(instance) || r.is(condBookingExpired) || r.is(condFailed) {
			continue
		}
		if pr := r.cond[condProvisioned]; pr.set && pr.status {
			if pr.at+engine.Time(provreq.ReservationTime) < now {
				p.setCond(r, condBookingExpired, true, provreq.ReasonReservationTimeExpired, "Capacity reservation time is expired", now)
			}
		} else if engine.Time(provreq.ExpirationTime) < now { // created at time 0
			p.setCond(r, condFailed, true, provreq.ReasonExpired, "ProvisioningRequest is expired", now)
		}
	}
}

// available is the injector's IsAvailableForProvisioning, back-off
// update included.
func (p *provReqs) available(r *prState, now engine.Time, initial, maxBackoff time.Duration) bool {
	if r.is(condFailed) || r.is(condProvisioned) {
		r.retry = 0
		return false
	}
	pr := r.cond[condProvisioned]
	if !pr.set {
		return true
	}
	retry := r.retry
	if retry == 0 {
		retry = initial
	}
	if pr.at+engine.Time(retry) < now {
		r.retry = min(2*retry, maxBackoff)
		return true
	}
	return false
}

// specs resolves the request's PodTemplates; ok false when one is
// missing (wrapper.go PodSets: errMissingPodTemplates).
func (o *orchestrator) prSpecs(r *prState) ([]*cluster.PodSpec, bool) {
	out := make([]*cluster.PodSpec, 0, len(r.req.PodSets))
	for _, ps := range r.req.PodSets {
		spec, _, ok := o.cl.ScaleOf(r.req.Namespace, "PodTemplate", ps.Template)
		if !ok || spec == nil {
			return nil, false
		}
		out = append(out, spec)
	}
	return out, true
}

// fakeGroups makes the request's pod groups (one per pod set), their
// pods fake pods added to prq.fake.
func (o *orchestrator) fakeGroups(r *prState, specs []*cluster.PodSpec) []*podGroup {
	var out []*podGroup
	for i, spec := range specs {
		pg := &podGroup{spec: spec, ns: r.ns, oldest: 0}
		pg.podLevel, pg.hostOnly = podConstraints(spec, o.symHostname)
		pg.domainSpread = !pg.hostOnly && hasDomainSpread(spec, o.symHostname)
		pg.spreadOnly = pg.domainSpread && onlySpreadBeyondHost(spec, o.symHostname)
		for j := int32(0); j < r.req.PodSets[i].Count; j++ {
			pg.pods = append(pg.pods, fakePod(len(o.prq.fake)))
			o.prq.fake = append(o.prq.fake, fakeSpec{spec, r.ns})
		}
		out = append(out, pg)
	}
	return out
}

// injected is a request whose pods the injector added this loop.
type injected struct {
	r      *prState
	groups []*podGroup
}

// nextRequest is the injector's GetPodsFromNextRequest: the first
// request that is due, its pods built (a missing PodTemplate fails it:
// FailedToCreatePods), marked Accepted, but for a check-capacity request
// with --check-capacity-batch-processing, which the check-capacity class
// marks as it takes its batch (GetCheckCapacityBatch). ok false: none.
func (o *orchestrator) nextRequest(now engine.Time) (injected, bool) {
	p, opt := o.prq, &o.s.ProvReq
	for _, r := range p.reqs {
		if !r.req.Supported(opt.ProcessorInstance) || !p.available(r, now, opt.InitialBackoff, opt.MaxBackoff) {
			continue
		}
		specs, ok := o.prSpecs(r)
		if !ok {
			p.setCond(r, condFailed, true, provreq.ReasonFailedToCreatePods, "missing pod templates", now)
			continue
		}
		if !opt.BatchProcessing || !r.req.CheckCapacity(opt.ProcessorInstance) {
			p.setCond(r, condAccepted, true, provreq.ReasonAccepted, "ProvisioningRequest is accepted by ClusterAutoscaler", now)
		}
		return injected{r, o.fakeGroups(r, specs)}, true
	}
	return injected{}, false
}

// checkCapacityBatch is GetCheckCapacityBatch: up to
// --check-capacity-provisioning-request-max-batch-size due check-capacity
// requests (asking the injected one whether it is due a second time, as
// upstream does: a retry whose doubled back-off is not over yet is left
// out of the batch).
func (o *orchestrator) checkCapacityBatch(now engine.Time) []injected {
	p, opt := o.prq, &o.s.ProvReq
	var out []injected
	for _, r := range p.reqs {
		if len(out) >= opt.MaxBatchSize {
			break
		}
		if !r.req.CheckCapacity(opt.ProcessorInstance) || !p.available(r, now, opt.InitialBackoff, opt.MaxBackoff) {
			continue
		}
		specs, ok := o.prSpecs(r)
		if !ok {
			p.setCond(r, condFailed, true, provreq.ReasonFailedToCreatePods, "missing pod templates", now)
			continue
		}
		out = append(out, injected{r, o.fakeGroups(r, specs)})
	}
	return out
}

// book is the processor's bookCapacity: the pods of each request whose
// booking runs go on the snapshot where they fit.
func (o *orchestrator) book(ex *destSet, ups []upcomingSet, now engine.Time) {
	p := o.prq
	clear(p.booked)
	for _, r := range p.reqs {
		if !r.req.Supported(o.s.ProvReq.ProcessorInstance) || r.is(condFailed) || r.is(condBookingExpired) || !r.is(condProvisioned) {
			continue
		}
		if o.consumersScheduled(r) >= r.req.Pods() {
			p.setCond(r, condBookingExpired, true, provreq.ReasonCapacityBookingConsumed, "Capacity booking consumed: all pods scheduled", now)
			continue
		}
		specs, ok := o.prSpecs(r)
		if !ok {
			p.setCond(r, condFailed, true, "FailedToBookCapacity", "Couldn't create pods", now)
			continue
		}
		var u undoLog
		for _, pg := range o.fakeGroups(r, specs) {
			o.placeFake(pg, ex, ups, &u, true)
		}
	}
}

// consumersScheduled counts the bound pods that consume r.
func (o *orchestrator) consumersScheduled(r *prState) int {
	n := 0
	for i := range o.cl.Pods {
		pod := &o.cl.Pods[i]
		if pod.Node != cluster.NoNode && pod.Namespace == r.ns && pod.Spec.ConsumesProvReq == r.req.Name {
			n++
		}
	}
	return n
}

// undoLog records placements on the snapshot so that an all-or-nothing
// check can take them back (the snapshot's Fork and Revert).
type undoLog struct {
	dests []destUndo
	sims  []simUndo
}

type destUndo struct {
	e     *destination
	free  cluster.Resources
	extra int
}

type simUndo struct {
	n      *simNode
	free   cluster.Resources
	placed int
}

func (u *undoLog) revert() {
	for i := len(u.dests) - 1; i >= 0; i-- {
		d := u.dests[i]
		d.e.free, d.e.extra = d.free, d.e.extra[:d.extra]
	}
	for i := len(u.sims) - 1; i >= 0; i-- {
		s := u.sims[i]
		s.n.free, s.n.placed = s.free, s.n.placed[:s.placed]
	}
	u.dests, u.sims = u.dests[:0], u.sims[:0]
}

// placeFake places a group's fake pods one by one on the snapshot,
// first fit: the existing nodes in NodeID order, then the upcoming ones
// (the scheduling simulation's TrySchedulePods). It returns how many it
// placed; book marks the existing nodes it used as booked. Domain
// spreads are not checked on the snapshot (hostname-keyed constraints
// are).
func (o *orchestrator) placeFake(pg *podGroup, ex *destSet, ups []upcomingSet, u *undoLog, book bool) int {
	placed := 0
	cursor := 0
	spec := pg.spec
	for placed < len(pg.pods) && cursor < len(ex.ids) {
		id := ex.ids[cursor]
		e := ex.at(cursor)
		nd := &o.cl.Nodes[id]
		if m, _ := cluster.StaticFit(o.cl.Syms, spec, nd, &e.free); m != cluster.Fits || !o.podLevelOnNode(pg, id, e.extra) {
			cursor++
			continue
		}
		u.dests = append(u.dests, destUndo{e, e.free, len(e.extra)})
		e.free = e.free.Sub(spec.Requests)
		e.extra = append(e.extra, placedPod{spec, pg.ns})
		if book {
			for int(id) >= len(o.prq.booked) {
				o.prq.booked = append(o.prq.booked, false)
			}
			o.prq.booked[id] = true
		}
		placed++
	}
	for s := range ups {
		set := &ups[s]
		if placed == len(pg.pods) {
			break
		}
		if m, _ := cluster.StaticFit(o.cl.Syms, spec, &set.tpl.node, nil); m != cluster.Fits {
			continue
		}
		for i := 0; placed < len(pg.pods) && i < len(set.nodes); {
			sn := &set.nodes[i]
			if !spec.Requests.Fits(sn.free) || (pg.podLevel && !podLevelOK(o.cl.Syms, o.symHostname, spec, pg.ns, sn.placed)) {
				i++
				continue
			}
			u.sims = append(u.sims, simUndo{sn, sn.free, len(sn.placed)})
			sn.free = sn.free.Sub(spec.Requests)
			sn.placed = append(sn.placed, placedPod{spec, pg.ns})
			placed++
		}
	}
	return placed
}

// isBooked reports whether booked pods were placed on the node this loop.
func (p *provReqs) isBooked(id cluster.NodeID) bool {
	return p != nil && int(id) < len(p.booked) && p.booked[id]
}

// scaleUpWithProvReqs is the scale-up half of a loop with
// ProvisioningRequests (the pod list processors and the wrapper
// orchestrator, above). It returns whether it launched anything and
// whether scale-down must wait.
func (o *orchestrator) scaleUpWithProvReqs(now engine.Time) (scaled, holdScaleDown bool) {
	p := o.prq
	p.fake = p.fake[:0]
	o.refreshTemplates()
	var groups []*podGroup
	if pods := o.collectPending(now); len(pods) > 0 {
		groups = o.groupPods(pods)
		o.prepareSpreads(groups)
		o.prepareHostSpreads(groups)
	}
	ex := o.startDests(&o.scratch.existing)
	ups := o.upcomingSets()
	groups = o.filterOn(groups, ex, ups)
	// pods_filter.go: consumers do not trigger a scale-up, and their
	// event says so (LogIgnoredInScaleUpEvent).
	keep := groups[:0]
	for _, pg := range groups {
		if pg.spec.ConsumesProvReq == "" {
			keep = append(keep, pg)
		} else if o.noScaleUp != nil {
			o.noScaleUp(pg.pods, "consumes-provisioning-request",
				"Unschedulable pod didn't trigger scale-up, because it's consuming ProvisioningRequest "+o.cl.Syms.Name(pg.ns)+"/"+pg.spec.ConsumesProvReq)
		}
	}
	groups = keep
	var inj []injected
	if in, ok := o.nextRequest(now); ok {
		inj = append(inj, in)
	}
	o.book(ex, ups, now)

	// shouldScaleUp: nothing to help, or all of it too new (the
	// ProvisioningRequest enforcer scales up for injected pods anyway).
	hold := len(inj) == 0 && o.allNew(groups, now)
	if len(groups) == 0 && len(inj) == 0 || hold {
		return false, hold
	}
	if len(inj) == 0 {
		p.mode = false
	} else if len(groups) == 0 {
		p.mode = true
	}
	defer func() { p.mode = !p.mode }()
	if p.mode {
		return o.provision(inj, ex, ups, now), false
	}
	if o.noScaleUp != nil {
		o.explainNoScaleUp(groups, now)
	}
	opts := o.options(groups, now)
	if len(opts) == 0 {
		return false, false
	}
	best := o.exp.expand(opts)
	if best == nil {
		return false, false
	}
	return o.execute(best, groups, now, false), false
}

// allNew is allPodsAreNew on the pods left to help.
func (o *orchestrator) allNew(groups []*podGroup, now engine.Time) bool {
	if len(groups) == 0 {
		return false
	}
	oldest, oldestGPU, anyGPU := engine.Time(math.MaxInt64), engine.Time(math.MaxInt64), false
	for _, pg := range groups {
		oldest = min(oldest, pg.oldest)
		if pg.gpu {
			anyGPU = true
			oldestGPU = min(oldestGPU, pg.oldest)
		}
	}
	return oldest+o.s.PodTimeBuffer > now || (anyGPU && oldestGPU+o.s.GPUPodTimeBuffer > now)
}

// provision runs the injected requests' class (the provisioning request
// orchestrator: check-capacity first, then best-effort-atomic; one
// request but for a check-capacity batch).
func (o *orchestrator) provision(inj []injected, ex *destSet, ups []upcomingSet, now engine.Time) bool {
	p := o.prq
	if inj[0].r.req.CheckCapacity(o.s.ProvReq.ProcessorInstance) {
		if o.s.ProvReq.BatchProcessing {
			inj = o.checkCapacityBatch(now)
		}
		for _, in := range inj {
			r := in.r
			r.attempts++
			p.setCond(r, condAccepted, true, provreq.ReasonAccepted, "ProvisioningRequest is accepted by ClusterAutoscaler", now)
			var u undoLog
			fits := true
			for _, pg := range in.groups {
				if o.placeFake(pg, ex, ups, &u, false) < len(pg.pods) {
					fits = false
					break
				}
			}
			switch {
			case fits:
				// Committed: later requests of the batch see it taken.
				p.setCond(r, condProvisioned, true, provreq.ReasonCapacityIsFound, "Capacity is found in the cluster", now)
			case r.req.NoRetry():
				u.revert()
				p.setCond(r, condFailed, true, provreq.ReasonCapacityIsNotFound, "CA could not find requested capacity", now)
			default:
				u.revert()
				p.setCond(r, condProvisioned, false, provreq.ReasonCapacityIsNotFound, "Capacity is not found, CA will try to find it later.", now)
			}
		}
		return false
	}
	in := inj[0]
	r := in.r
	r.attempts++
	// filterOutSchedulable: the pods that fit the snapshot need nothing.
	var u undoLog
	var rest []*podGroup
	left := 0
	for _, pg := range in.groups {
		if k := o.placeFake(pg, ex, ups, &u, false); k < len(pg.pods) {
			pg.pods = pg.pods[k:]
			rest = append(rest, pg)
			left += len(pg.pods)
		}
	}
	u.revert()
	if left == 0 {
		p.setCond(r, condProvisioned, true, provreq.ReasonCapacityIsFound, "Capacity is found in the cluster", now)
		return false
	}
	o.prepareSpreads(rest)
	o.prepareHostSpreads(rest)
	// All or nothing: an option must take every pod left.
	opts := o.options(rest, now)
	keep := opts[:0]
	for _, opt := range opts {
		if len(opt.est.pods) == left {
			keep = append(keep, opt)
		}
	}
	if len(keep) > 0 {
		if best := o.exp.expand(keep); best != nil && o.execute(best, rest, now, true) {
			p.setCond(r, condProvisioned, true, provreq.ReasonCapacityIsProvisioned, "Capacity is found in the cluster", now)
			return true
		}
	}
	p.setCond(r, condProvisioned, false, provreq.ReasonCapacityIsNotFound, "Capacity is not found, CA will try to find it later.", now)
	return false
}
