package karpenter

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// provisioner launches nodes for pods that do not fit (KC provisioning
// controller): it batches pending pods, solves, and launches the
// NodeClaims of the solve; it also follows a launch until the node is
// Ready or its registration times out.
type provisioner struct {
	env
	parts

	betaKeys [5]cluster.Sym
	// pending are the pods the scheduler marked unschedulable.
	pending      map[cluster.PodID]bool
	batchOpen    bool
	batchStart   engine.Time
	idleTimer    engine.Timer
	maxTimer     engine.Timer
	requeueTimer engine.Timer
	lastBatch    struct {
		version, hash uint64
		allFailed     bool
	}
	// noLaunch, when set, hears why pods got no node (explain.go).
	noLaunch NoLaunchFunc

	// Settings.ComputeTime (solvetime.go): the solve in progress ends at
	// busyUntil with the batch's pods; a trigger meanwhile, the first at
	// busyTrigger, opens the next batch when it ends.
	busyUntil   engine.Time
	solving     bool
	solvePods   []cluster.PodID
	solveWait   engine.Time // the batch's wait before its window opened
	busyTrigger engine.Time
	triggered   bool
	busy        time.Duration
	maxWait     time.Duration
	// solveBudget is the solve in progress's, when it runs into
	// SolveTimeout.
	solveBudget solveBudget
}

// trigger starts a batching window or extends it (KC Batcher): the batch
// closes BatchIdleDuration after the last trigger, or BatchMaxDuration
// after the first.
func (pr *provisioner) trigger() {
	now := pr.eng.Now()
	if pr.solving {
		// The controller is solving: the batcher keeps the trigger and
		// its next Wait, after the solve, opens the window.
		if !pr.triggered {
			pr.triggered, pr.busyTrigger = true, now
		}
		return
	}
	if !pr.batchOpen {
		pr.batchOpen = true
		pr.batchStart = now
		pr.maxTimer = pr.eng.After(pr.settings.BatchMaxDuration, engine.Event{Handler: pr.id, Kind: evBatchMax})
		pr.idleTimer = pr.eng.After(pr.settings.BatchIdleDuration, engine.Event{Handler: pr.id, Kind: evBatchIdle})
		return
	}
	if now+pr.settings.BatchIdleDuration >= pr.batchStart+pr.settings.BatchMaxDuration {
		return // the max timer closes it first
	}
	pr.eng.Cancel(pr.idleTimer)
	pr.idleTimer = pr.eng.After(pr.settings.BatchIdleDuration, engine.Event{Handler: pr.id, Kind: evBatchIdle})
}

func (pr *provisioner) closeBatch() {
	if !pr.batchOpen {
		return
	}
	pr.batchOpen = false
	pr.eng.Cancel(pr.idleTimer)
	pr.eng.Cancel(pr.maxTimer)
	if !pr.settings.ComputeTime {
		pr.provision(nil, solveBudget{})
		return
	}
	// The solve takes its time; the batch's pods are those pending now
	// (upstream's Schedule lists them when it starts).
	pods := pr.provisionable()
	if len(pods) == 0 {
		pr.provision(pods, solveBudget{})
		return
	}
	cost, perPod := pr.solveCosts(pods)
	pr.solveBudget = solveBudget{}
	if cost > SolveTimeout {
		// The solve stops at the timeout with what it placed.
		cost, pr.solveBudget = SolveTimeout, solveBudget{over: true, perPod: perPod}
	}
	now := pr.eng.Now()
	pr.solving, pr.solvePods, pr.busyUntil = true, pods, now+cost
	pr.busy += cost
	pr.maxWait = max(pr.maxWait, pr.solveWait+cost)
	pr.stats.BusySeconds = math.Round(pr.busy.Seconds()*1e3) / 1e3
	pr.stats.MaxWaitSeconds = math.Round(pr.maxWait.Seconds()*1e3) / 1e3
	pr.solveWait = 0
	pr.eng.Schedule(pr.busyUntil, engine.Event{Handler: pr.id, Kind: evSolveDone})
}

// solveDone ends a solve that took time: the batch's pods still waiting
// for a node are solved and launched for, and a trigger that came
// meanwhile opens the next batch.
func (pr *provisioner) solveDone() {
	pods := pr.solvePods
	pr.solving, pr.solvePods = false, nil
	pr.provision(pr.stillProvisionable(pods), pr.solveBudget)
	if pr.triggered {
		pr.triggered = false
		pr.solveWait = pr.eng.Now() - pr.busyTrigger
		pr.trigger()
	}
}

// provisionable returns the pods a batch schedules: pending pods the
// scheduler marked unschedulable and did not nominate to a node it
// preempted pods on (KC IsProvisionable: !IsPreempting), and the pods of nodes being deleted
// (their replacements are provisioned while they drain).
func (pr *provisioner) provisionable() []cluster.PodID {
	pods := make([]cluster.PodID, 0, len(pr.pending))
	for id := range pr.pending {
		p := &pr.cl.Pods[id]
		if p.Phase == cluster.Pending && p.Unschedulable && p.Spec.NodeName == "" && !p.Preempting && !unbindable(p) {
			pods = append(pods, id)
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i] < pods[j] })
	pods = append(pods, pr.deletingNodePods()...)
	if pr.settings.CapacityBuffer {
		// KC GetPendingPods appends the buffers' virtual pods.
		pods = append(pods, pr.solvers.VirtualIDs()...)
	}
	return pods
}

// podRec is a pod of a batch's record, real or virtual.
func (pr *provisioner) podRec(id cluster.PodID) *cluster.Pod {
	if scheduling.IsVirtual(id) {
		return pr.solvers.Virtual(id)
	}
	return &pr.cl.Pods[id]
}

// realPods drops the virtual pods (a copy when there are some).
func realPods(ids []cluster.PodID) []cluster.PodID {
	n := 0
	for _, id := range ids {
		if !scheduling.IsVirtual(id) {
			n++
		}
	}
	if n == len(ids) {
		return ids
	}
	out := make([]cluster.PodID, 0, n)
	for _, id := range ids {
		if !scheduling.IsVirtual(id) {
			out = append(out, id)
		}
	}
	return out
}

// unbindable reports a pod with a claim nothing can bind (an Immediate
// claim without a volume, a claim without class or volume): Karpenter
// ignores it (KC ValidatePersistentVolumeClaims), as no node helps.
func unbindable(p *cluster.Pod) bool {
	return p.Spec.Volume != nil && p.Spec.Volume.Unbindable
}

// deletingNodePods are the pods on nodes marked for deletion (being
// deleted, or candidates of a started command waiting for its
// replacements: KC Cluster.DeletingNodes, MarkedForDeletion, which the
// orchestration queue sets when it starts a command) that are currently
// reschedulable (currentlyReschedulable).
func (pr *provisioner) deletingNodePods() []cluster.PodID {
	var out []cluster.PodID
	for _, kn := range pr.nodes.live {
		if !kn.Deleting && !kn.InCommand {
			continue
		}
		for _, pid := range pr.cl.Nodes[kn.ID].Pods {
			if pr.currentlyReschedulable(pid) {
				out = append(out, pid)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// currentlyReschedulable: a pod of a deleting node that provisioning and
// every disruption what-if plan room for (KC
// GetCurrentlyReschedulablePods, pdb.IsCurrentlyReschedulable):
// reschedulable, no active karpenter.sh/do-not-disrupt (its drain waits
// for it), and not fully blocked by a budget (it may never leave) unless
// it tolerates the disruption taint (never evicted, so no budget
// applies: KC isEvictable).
func (pr *provisioner) currentlyReschedulable(pid cluster.PodID) bool {
	p := &pr.cl.Pods[pid]
	if !reschedulable(p) {
		return false
	}
	if p.Spec.DoNotDisrupt || p.Spec.DoNotDisruptFor > 0 {
		if active, _ := p.DoNotDisruptActive(pr.eng.Now()); active {
			return false
		}
	}
	if pr.evictor.HasBudgets() && pr.evictor.FullyBlocked(pid) &&
		!p.Spec.Tolerations.Tolerate(cluster.Taint{Key: pr.keyDisrupted, Effect: cluster.EffectNoSchedule}) {
		return false
	}
	return true
}

func (pr *provisioner) hasProvisionable() bool {
	for id := range pr.pending {
		if p := &pr.cl.Pods[id]; p.Phase == cluster.Pending && p.Unschedulable && !p.Preempting && !unbindable(p) {
			return true
		}
	}
	for _, kn := range pr.nodes.live {
		if !kn.Deleting {
			continue
		}
		for _, pid := range pr.cl.Nodes[kn.ID].Pods {
			if pr.currentlyReschedulable(pid) {
				return true
			}
		}
	}
	return false
}

// provision runs one batch: solve, nominate, launch. pods are the batch's
// pods; nil: those provisionable now.
func (pr *provisioner) provision(pods []cluster.PodID, b solveBudget) {
	if pods == nil {
		pods = pr.provisionable()
	}
	if len(realPods(pods)) > 0 {
		pr.stats.Batches++
	}
	if len(pods) > 0 && !pr.sameAsLastBatch(pods) {
		s := pr.solvers.NewSolver(pods, pr.budgetOpts(b))
		s.Solve(pods)
		if s.TimedOut {
			pr.stats.SolveTimeouts++
		}
		pr.lastBatch.allFailed = len(s.Failed) == len(pods)
		if pr.noLaunch != nil && len(s.Failed) > 0 {
			pr.explainFailed(s)
		}
		if unsolved := realPods(s.Unsolved); pr.noLaunch != nil && len(unsolved) > 0 {
			pr.noLaunch(append([]cluster.PodID(nil), unsolved...), "solve-timeout",
				fmt.Sprintf("Karpenter's solve of this batch of %d pods ran into its one-minute timeout before it tried these: they wait for the next batch", len(pods)))
		}
		if pr.settings.CapacityBuffer {
			pr.noteBufferPods(s)
		}
		now := pr.eng.Now()
		nominate := pr.nomination()
		for _, ex := range s.Existing {
			if ex.PlacedPending {
				if kn := pr.nodes.get(ex.ID); kn != nil {
					kn.nominatedUntil = now + nominate
					if pr.noLaunch != nil && pr.cl.Nodes[ex.ID].RegisteredNotReady() {
						pr.explainNotReady(ex)
					}
				}
			}
		}
		// The batch's NodeClaims launch in parallel upstream: each sees
		// the offerings as they were before any of them failed, and the
		// pool's usage as it was before the batch (limits.go).
		pr.offerings.DeferCapacityErrors = true
		usage := pr.pools.Usages()
		for _, c := range s.Claims {
			if scheduling.LaunchAllowed(c.Pool, usage) {
				pr.launchClaim(c, nil)
			} else if pr.noLaunch != nil {
				pr.explainLimit(c)
			}
		}
		pr.offerings.FlushCapacityErrors()
	}
	// Pods still provisionable requeue a batch (KC's pod and node
	// triggers requeue every 10s while pods are provisionable).
	if !pr.eng.Pending(pr.requeueTimer) && pr.hasProvisionable() {
		pr.requeueTimer = pr.eng.After(pr.settings.PodRequeueInterval, engine.Event{Handler: pr.id, Kind: evRequeue})
	}
}

// sameAsLastBatch reports whether this batch would repeat the last one
// exactly: the last placed nothing and neither the cluster, the pods nor
// the available offerings changed since. The solve is deterministic, so
// skipping it changes nothing but the time spent (pods that cannot be
// placed, e.g. while their offerings are exhausted, are retried every
// 10s).
func (pr *provisioner) sameAsLastBatch(pods []cluster.PodID) bool {
	masks := pr.offerings.AvailableMasks()
	h := uint64(len(pods))
	for _, id := range pods {
		h = h*1099511628211 ^ uint64(id)
	}
	for _, m := range masks {
		h = h*1099511628211 ^ m
	}
	lb := &pr.lastBatch
	same := lb.allFailed && lb.version == pr.dis.version && lb.hash == h
	lb.version, lb.hash, lb.allFailed = pr.dis.version, h, false
	if same {
		lb.allFailed = true
	}
	return same && !whatIfHooks.full
}

// launchClaim launches a NodeClaim (KA instance provider Create): filter
// and order the instance types, pick the capacity type (spot when allowed
// and offered, else on-demand), one fleet request of every offering of the
// cheapest 60 types. It returns the node, or NoNode when every offering
// failed (the NodeClaim is deleted; its pods wait for the next batch).
func (pr *provisioner) launchClaim(c *scheduling.Claim, replacementOf *command) cluster.NodeID {
	p := c.Pool
	st := pr.poolStat(p)
	// failed counts a launch that got no instance, and explains it when
	// explanations are on and the NodeClaim is not a replacement.
	failed := func(res cloud.LaunchResult, err error) {
		pr.stats.LaunchFailures++
		st.LaunchFailures++
		if pr.noLaunch != nil && replacementOf == nil {
			pr.explainLaunch(c, res, err)
		}
	}
	offerings, ct := pr.launchChoice(c)
	if len(offerings) == 0 {
		failed(cloud.LaunchResult{}, nil)
		return cluster.NoNode
	}
	strategy := cloud.LowestPrice
	if ct == scheduling.SpotIndex {
		strategy = cloud.PriceCapacityOptimized
	}
	if pr.priceOverlaid(c) {
		// A NodeClaim with an overlaid price asks EC2 to follow the
		// overlaid prices as priorities (KA CreateFleetInputBuilder
		// WithOverlay, getOverrides Priority = offering price):
		// on-demand prioritized, spot capacity-optimized-prioritized,
		// which is capacity-optimized with the priorities breaking ties.
		strategy = cloud.Prioritized
		if ct == scheduling.SpotIndex {
			strategy = cloud.CapacityOptimized
		}
		pr.byOverlaidPrice(p, offerings)
	}
	pr.stats.LaunchRequests++
	res, err := pr.cloud.Launch(cloud.LaunchRequest{Owner: OwnerName, Group: p.Spec.Name, Offerings: offerings, Strategy: strategy, Latency: cloud.FleetLaunch})
	if ct == scheduling.ReservedIndex {
		// KA's availability cache counts the launch (MarkLaunched).
		pr.offerings.SyncReservations()
	}
	for _, e := range res.Errors {
		if e.IsCapacityError() {
			pr.offerings.MarkUnavailable(e.Offering)
		}
	}
	if err != nil || res.Instance == cloud.NoInstance {
		failed(res, err)
		pr.dis.stateChanged()
		return cluster.NoNode
	}
	return pr.createNode(c, res, replacementOf)
}

// launchChoice is what a launch of c asks EC2 for (KA instance provider
// Create): its instance types ordered by price and cut to 600, filtered
// (launchFilter), and the offerings of the capacity type it picks, spot
// when an allowed spot offering no dearer than the cheapest on-demand
// one is left (KA SpotOfferingFilter, getCapacityType: reserved, spot,
// on-demand), else on-demand. No offering: nothing to launch.
func (pr *provisioner) launchChoice(c *scheduling.Claim) ([]cloud.Offering, int) {
	p := c.Pool
	pr.solvers.SortedOptions(c)
	if len(c.Options) > pr.settings.MaxInstanceTypes {
		c.Options = c.Options[:pr.settings.MaxInstanceTypes]
	}
	opts := pr.launchFilter(c)
	if len(opts) == 0 {
		return nil, scheduling.OnDemandIndex
	}
	// Spot offerings dearer than the cheapest on-demand one are dropped
	// when both are allowed (KA SpotOfferingFilter); then the capacity
	// type is spot if any spot offering is left, else on-demand (KA
	// getCapacityType: reserved, spot, on-demand).
	now := pr.eng.Now()
	odMask, spotMask := c.OfferingMask&pr.offerings.CapacityTypeBits(scheduling.OnDemandIndex), c.OfferingMask&pr.offerings.CapacityTypeBits(scheduling.SpotIndex)
	spotCap := math.Inf(1)
	if odMask != 0 && spotMask != 0 {
		for _, pos := range opts {
			spotCap = min(spotCap, pr.offerings.Cheapest(p, p.Types[pos].Type, odMask))
		}
	}
	usable := func(t *scheduling.InstanceType, z, ct int) bool {
		i := pr.offerings.Offers.Index(t.Index, z, ct)
		return c.OfferingMask&(1<<uint(z*scheduling.NumCapacityTypes+ct)) != 0 && pr.offerings.Offers.Available(i, now) && (ct != scheduling.SpotIndex || p.Price(pr.offerings, i) <= spotCap)
	}
	// A NodeClaim that can launch into a reservation does, into nothing
	// else (KA getCapacityType and filterReservedInstanceTypes): its
	// types' reservations with room, the types in price order.
	var offerings []cloud.Offering
	if held := c.Reserved(); len(held) > 0 {
		// A claim that holds reservation slots launches into one of
		// those reservations or not at all (KC FinalizeScheduling's
		// requirements: reserved, their ids).
		for _, ri := range held {
			r := &pr.offerings.Reservations[ri]
			if r.Free > 0 && slices.Contains(opts, p.TypePositions[r.Type.Index]) {
				offerings = append(offerings, cloud.Offering{InstanceType: r.Type.Name, Zone: pr.offerings.Zones[r.Zone], CapacityType: cluster.Reserved, Reservation: r.Reservation.ID})
			}
		}
		pr.byOverlaidPrice(p, offerings) // lowest price first: the on-demand order
		return offerings, scheduling.ReservedIndex
	}
	for _, pos := range opts {
		pt := &p.Types[pos]
		for z := range pr.offerings.Zones {
			if pt.Offer&c.OfferingMask&(1<<uint(z*scheduling.NumCapacityTypes+scheduling.ReservedIndex)) != 0 &&
				pr.offerings.Offers.Available(pr.offerings.Offers.Index(pt.Type.Index, z, scheduling.ReservedIndex), now) {
				offerings = pr.offerings.ReservedOfferings(p, pt.Type, z, offerings)
			}
		}
	}
	if len(offerings) > 0 {
		return offerings, scheduling.ReservedIndex
	}
	ct := scheduling.OnDemandIndex
	for _, pos := range opts {
		for z := range pr.offerings.Zones {
			if usable(p.Types[pos].Type, z, scheduling.SpotIndex) {
				ct = scheduling.SpotIndex
			}
		}
	}
	for _, pos := range opts {
		t := p.Types[pos].Type
		for z := range pr.offerings.Zones {
			if usable(t, z, ct) {
				offerings = append(offerings, cloud.Offering{InstanceType: t.Name, Zone: pr.offerings.Zones[z], CapacityType: scheduling.CapacityTypeOf(ct)})
			}
		}
	}
	return offerings, ct
}

// priceOverlaid reports whether a NodeOverlay changes the price of one
// of c's instance types (KC NodeClaimTemplate.ToNodeClaim annotates the
// NodeClaim karpenter.sh/price-overlay-applied).
func (pr *provisioner) priceOverlaid(c *scheduling.Claim) bool {
	for _, pos := range c.Options {
		if c.Pool.PriceOverlaid(c.Pool.Types[pos].Type) {
			return true
		}
	}
	return false
}

// byOverlaidPrice orders a launch's offerings by their price as pool p
// sees it, cheapest first (the priorities KA gives EC2), keeping the
// order of equal ones.
func (pr *provisioner) byOverlaidPrice(p *scheduling.Pool, offerings []cloud.Offering) {
	price := func(of cloud.Offering) float64 {
		v, _ := pr.offerings.PoolOfferingPrice(p, of)
		return v
	}
	slices.SortStableFunc(offerings, func(a, b cloud.Offering) int { return cmp.Compare(price(a), price(b)) })
}

// launchFilter keeps the instance types a launch would send (KA
// filterInstanceTypes): compatible with an available offering, exotic
// types (GPUs, metal) only if nothing else is left, and the cheapest 60.
func (pr *provisioner) launchFilter(c *scheduling.Claim) []int32 {
	now := pr.eng.Now()
	p := c.Pool
	var out, generic []int32
	for _, pos := range c.Options {
		t := p.Types[pos].Type
		has := false
		base := pr.offerings.Offers.Index(t.Index, 0, 0)
		for b := 0; b < pr.offerings.Offers.NumZones*scheduling.NumCapacityTypes; b++ {
			if c.OfferingMask&(1<<uint(b)) != 0 && pr.offerings.Offers.Available(base+b, now) {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		out = append(out, pos)
		if !t.Exotic {
			generic = append(generic, pos)
		}
	}
	hasMin := false
	for i := range c.Requirements {
		hasMin = hasMin || c.Requirements[i].MinValues > 0
	}
	if len(generic) > 0 && !hasMin {
		out = generic
	}
	if len(out) > pr.settings.MaxLaunchInstanceTypes {
		out = out[:pr.settings.MaxLaunchInstanceTypes]
	}
	return out
}

// createNode adds the launched node to the cluster.
func (pr *provisioner) createNode(c *scheduling.Claim, res cloud.LaunchResult, replacementOf *command) cluster.NodeID {
	cl := pr.cl
	syms := cl.Syms
	p := c.Pool
	spec := p.Spec
	t, ok := pr.offerings.TypeByName[res.Offering.InstanceType]
	if !ok || p.TypePositions[t.Index] < 0 {
		// The cloud answered with an offering Karpenter did not ask for:
		// a bug in the cloud model.
		panic("karpenter: launch answered with offering " + res.Offering.String() + " that was not requested")
	}
	pt := &p.Types[p.TypePositions[t.Index]]
	name := pr.nodes.newName(spec.Name)

	labels := append(cluster.Labels(nil), spec.Labels...)
	auto := spec.NodeClass.AutoMode
	set := func(key, v cluster.Sym) {
		if auto {
			// Auto Mode nodes carry eks.amazonaws.com instance labels.
			var ok bool
			if key, ok = pr.offerings.AutoModeKey(key); !ok {
				return
			}
		}
		labels = labels.With(key, v)
	}
	// Single-valued requirements become labels (KC Requirements.Labels),
	// then the instance's own labels.
	for i := range c.Requirements {
		r := &c.Requirements[i]
		if r.Key == cl.KeyHostname || r.Complement || len(r.Values) != 1 {
			continue
		}
		set(r.Key, r.Values[0])
	}
	for tk, v := range t.LabelValues {
		if v != cluster.NoSym {
			set(pr.offerings.TypeKeys[tk], v)
		}
	}
	zone := syms.Intern(res.Offering.Zone)
	set(cl.KeyZone, zone)
	set(cl.KeyCapacityType, syms.Intern(res.Offering.CapacityType.String()))
	set(pr.keyNodePool, syms.Intern(spec.Name))
	if ro, ok := pr.offerings.Reservation(res.Offering.Reservation); ok {
		// KA's reserved offering requirements become the node's labels.
		r := &ro.Reservation
		set(syms.Intern(apis.LabelCapacityReservationID), syms.Intern(r.ID))
		set(syms.Intern(apis.LabelCapacityReservationType), syms.Intern(r.Kind.String()))
		set(syms.Intern(apis.LabelCapacityReservationInterruptible), syms.Intern(strconv.FormatBool(r.Interruptible)))
	}
	// The deprecated beta labels the kubelet and cloud controller still set.
	set(pr.betaKeys[0], t.LabelValues[scheduling.TypeKeyInstanceType])
	set(pr.betaKeys[1], t.LabelValues[scheduling.TypeKeyArch])
	set(pr.betaKeys[2], t.LabelValues[scheduling.TypeKeyOS])
	set(pr.betaKeys[3], zone)
	set(pr.betaKeys[4], t.LabelValues[scheduling.TypeKeyRegion])
	taints := append(append([]cluster.Taint(nil), spec.Taints...), spec.StartupTaints...)
	node := cluster.Node{
		Name: name, Labels: labels, Taints: taints, Allocatable: pt.Allocatable, State: cluster.NodeLaunching,
		InstanceType: t.Name, Zone: zone, CapacityType: res.Offering.CapacityType, PriceUSDPerHour: res.PriceUSDPerHour,
		Owner: ownedByKarpenter, OwnerName: spec.Name, Instance: int32(res.Instance),
	}
	if p.PriceOverlaid(t) {
		node.OverlaidUSDPerHour, node.PriceOverlaid = pr.offerings.PoolOfferingPrice(p, res.Offering)
	}
	id := cl.AddNode(node)
	now := pr.eng.Now()
	kn := &knode{Node: scheduling.Node{ID: id, Pool: p, InstanceType: t, Offering: res.Offering, Capacity: pt.Capacity,
		LastPodEvent: now}, instance: res.Instance, poolHash: spec.TemplateHash, classHash: spec.NodeClass.Hash,
		replacementOf: replacementOf}
	kn.nominatedUntil = now + pr.nomination()
	pr.nodes.add(kn)
	if replacementOf == nil {
		for _, pid := range c.Pods {
			if !scheduling.IsVirtual(pid) && pr.cl.Pods[pid].Phase == cluster.Pending {
				cl.NoteLaunchFor(pid, id)
			}
		}
	}
	switch {
	case res.NeverReady:
		// It registers then and never initializes (registerNotReady).
		pr.eng.After(res.ReadyAfter, engine.Event{Handler: pr.id, Kind: evRegister, Obj: int32(id)})
	case !res.NeverJoins:
		// A node that never joins is left to the registration timeout.
		pr.eng.After(res.ReadyAfter, engine.Event{Handler: pr.id, Kind: evReady, Obj: int32(id)})
	}
	kn.regTimer = pr.eng.After(pr.settings.RegistrationTimeout, engine.Event{Handler: pr.id, Kind: evRegistration, Obj: int32(id)})
	if spec.ExpireAfter > 0 {
		kn.expiresAt, kn.expires = pr.eng.Now()+spec.ExpireAfter, true
		kn.expireTimer = pr.eng.After(spec.ExpireAfter, engine.Event{Handler: pr.id, Kind: evExpire, Obj: int32(id)})
	}
	pr.stats.NodeClaimsLaunched++
	if res.Offering.Reservation != "" {
		pr.stats.ReservedLaunches++
	}
	pr.poolStat(p).NodeClaimsLaunched++
	pr.poolStat(p).addCapacityType(res.Offering.CapacityType.String())
	pr.poolStat(p).addInstanceType(t.Name)
	return id
}

// minNomination is the floor of how long a nomination protects a node
// from disruption (KC state.Cluster nomination: max(2 x batchMaxDuration,
// 10s)).
const minNomination = 10 * time.Second

func (pr *provisioner) nomination() time.Duration {
	return max(2*pr.settings.BatchMaxDuration, minNomination)
}

// nodeReady makes a launched node Ready and removes its startup taints
// (the daemonsets that would remove them are not modelled).
func (pr *provisioner) nodeReady(id cluster.NodeID) {
	kn := pr.nodes.get(id)
	n := &pr.cl.Nodes[id]
	if kn == nil || n.State != cluster.NodeLaunching {
		return
	}
	pr.eng.Cancel(kn.regTimer)
	pr.cl.MarkNodeReady(id)
	for _, t := range kn.Pool.Spec.StartupTaints {
		pr.cl.RemoveTaint(id, t.Key, t.Effect)
	}
	kn.Initialized = true
	if !kn.podEventSet {
		kn.LastPodEvent = pr.eng.Now() // consolidateAfter counts from initialization
	}
	pr.base.NodeDirty(id)
}

// registerNotReady registers a launched node whose Ready condition never
// turns True (cloud.LaunchResult.NeverReady): its NodeClaim is Registered,
// so liveness's registration timeout no longer applies (KC nodeclaim
// lifecycle liveness returns once Registered is True), and never
// Initialized (initialization waits for Ready). The node stays, its
// NodeClaim counted as in-flight capacity by the solves (pods wait for
// it), until it expires, or until repair replaces it with the NodeRepair
// gate (KC disruption: a node that never initializes is a repair
// candidate, outside the budgets).
func (pr *provisioner) registerNotReady(id cluster.NodeID) {
	kn := pr.nodes.get(id)
	if kn == nil || pr.cl.Nodes[id].State != cluster.NodeLaunching {
		return
	}
	pr.eng.Cancel(kn.regTimer)
	pr.cl.RegisterNotReady(id)
	pr.stats.NeverReadyNodes++
	pr.poolStat(kn.Pool).NeverReadyNodes++
	pr.base.NodeDirty(id)
}

// registrationTimeout deletes a NodeClaim whose node did not become Ready
// in time (KC nodeclaim lifecycle liveness).
func (pr *provisioner) registrationTimeout(id cluster.NodeID) {
	kn := pr.nodes.get(id)
	if kn == nil || pr.cl.Nodes[id].State != cluster.NodeLaunching {
		return
	}
	pr.stats.LaunchFailures++
	pr.poolStat(kn.Pool).LaunchFailures++
	pr.stats.RegistrationTimeouts++
	pr.poolStat(kn.Pool).RegistrationTimeouts++
	pr.term.removeNode(kn, terminateInstance)
	pr.trigger()
}
