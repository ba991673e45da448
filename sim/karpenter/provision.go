package karpenter

import (
	"math"
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// trigger starts a batching window or extends it (KC Batcher): the batch
// closes BatchIdleDuration after the last trigger, or BatchMaxDuration
// after the first.
func (k *Karpenter) trigger() {
	now := k.eng.Now()
	if !k.batchOpen {
		k.batchOpen = true
		k.batchStart = now
		k.maxTimer = k.eng.After(k.settings.BatchMaxDuration, engine.Event{Handler: k.id, Kind: evBatchMax})
		k.idleTimer = k.eng.After(k.settings.BatchIdleDuration, engine.Event{Handler: k.id, Kind: evBatchIdle})
		return
	}
	if now+k.settings.BatchIdleDuration >= k.batchStart+k.settings.BatchMaxDuration {
		return // the max timer closes it first
	}
	k.eng.Cancel(k.idleTimer)
	k.idleTimer = k.eng.After(k.settings.BatchIdleDuration, engine.Event{Handler: k.id, Kind: evBatchIdle})
}

func (k *Karpenter) closeBatch() {
	if !k.batchOpen {
		return
	}
	k.batchOpen = false
	k.eng.Cancel(k.idleTimer)
	k.eng.Cancel(k.maxTimer)
	k.provision()
}

// provisionable returns the pods a batch schedules: pending pods the
// scheduler marked unschedulable, and the pods of nodes being deleted
// (their replacements are provisioned while they drain).
func (k *Karpenter) provisionable() []cluster.PodID {
	pods := make([]cluster.PodID, 0, len(k.pending))
	for id := range k.pending {
		p := &k.cl.Pods[id]
		if p.Phase == cluster.Pending && p.Unschedulable && p.Spec.NodeName == "" {
			pods = append(pods, id)
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i] < pods[j] })
	return append(pods, k.deletingNodePods()...)
}

// deletingNodePods are the reschedulable pods on nodes being deleted.
func (k *Karpenter) deletingNodePods() []cluster.PodID {
	var out []cluster.PodID
	for _, kn := range k.live {
		if !kn.deleting {
			continue
		}
		for _, pid := range k.cl.Nodes[kn.id].Pods {
			if reschedulable(&k.cl.Pods[pid]) {
				out = append(out, pid)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (k *Karpenter) podOnDeletingNode(id cluster.PodID) bool {
	p := &k.cl.Pods[id]
	if p.Node == cluster.NoNode {
		return false
	}
	kn := k.knodeOf(p.Node)
	return kn != nil && kn.deleting
}

func (k *Karpenter) hasProvisionable() bool {
	for id := range k.pending {
		if p := &k.cl.Pods[id]; p.Phase == cluster.Pending && p.Unschedulable {
			return true
		}
	}
	for _, kn := range k.live {
		if !kn.deleting {
			continue
		}
		for _, pid := range k.cl.Nodes[kn.id].Pods {
			if reschedulable(&k.cl.Pods[pid]) {
				return true
			}
		}
	}
	return false
}

// provision runs one batch: solve, nominate, launch.
func (k *Karpenter) provision() {
	pods := k.provisionable()
	if len(pods) > 0 {
		k.stats.Batches++
	}
	if len(pods) > 0 && !k.sameAsLastBatch(pods) {
		s := k.newSolver(pods, solveOpts{})
		s.solve(pods)
		k.lastBatch.allFailed = len(s.failed) == len(pods)
		now := k.eng.Now()
		nominate := k.nomination()
		for _, ex := range s.exists {
			if ex.gotPending {
				if kn := k.knodeOf(ex.id); kn != nil {
					kn.nominatedUntil = now + nominate
				}
			}
		}
		// The batch's NodeClaims launch in parallel upstream: each sees
		// the offerings as they were before any of them failed, and the
		// pool's usage as it was before the batch (limits.go).
		k.deferICE = true
		usage := k.poolUsages()
		for _, c := range s.claims {
			if launchAllowed(c.pool, usage) {
				k.launchClaim(c, nil)
			}
		}
		k.flushICE()
	}
	// Pods still provisionable requeue a batch (KC's pod and node
	// triggers requeue every 10s while pods are provisionable).
	if !k.eng.Pending(k.requeueTimer) && k.hasProvisionable() {
		k.requeueTimer = k.eng.After(k.settings.PodRequeueInterval, engine.Event{Handler: k.id, Kind: evRequeue})
	}
}

// sameAsLastBatch reports whether this batch would repeat the last one
// exactly: the last placed nothing and neither the cluster, the pods nor
// the available offerings changed since. The solve is deterministic, so
// skipping it changes nothing but the time spent (pods that cannot be
// placed, e.g. while their offerings are exhausted, are retried every
// 10s).
func (k *Karpenter) sameAsLastBatch(pods []cluster.PodID) bool {
	masks := k.availMasks()
	h := uint64(len(pods))
	for _, id := range pods {
		h = h*1099511628211 ^ uint64(id)
	}
	for _, m := range masks {
		h = h*1099511628211 ^ m
	}
	lb := &k.lastBatch
	same := lb.allFailed && lb.version == k.dis.version && lb.hash == h
	lb.version, lb.hash, lb.allFailed = k.dis.version, h, false
	if same {
		lb.allFailed = true
	}
	return same
}

// launchClaim launches a NodeClaim (KA instance provider Create): filter
// and order the instance types, pick the capacity type (spot when allowed
// and offered, else on-demand), one fleet request of every offering of the
// cheapest 60 types. It returns the node, or NoNode when every offering
// failed (the NodeClaim is deleted; its pods wait for the next batch).
func (k *Karpenter) launchClaim(c *claim, replacementOf *command) cluster.NodeID {
	p := c.pool
	st := p.stats
	k.sortedOptions(c)
	if len(c.opts) > k.settings.MaxInstanceTypes {
		c.opts = c.opts[:k.settings.MaxInstanceTypes]
	}
	opts := k.launchFilter(c)
	if len(opts) == 0 {
		k.stats.LaunchFailures++
		st.LaunchFailures++
		return cluster.NoNode
	}
	// Spot offerings dearer than the cheapest on-demand one are dropped
	// when both are allowed (KA SpotOfferingFilter); then the capacity
	// type is spot if any spot offering is left, else on-demand (KA
	// getCapacityType: reserved, spot, on-demand).
	now := k.eng.Now()
	odMask, spotMask := c.mask&k.ctBits(ctOnDemand), c.mask&k.ctBits(ctSpot)
	spotCap := math.Inf(1)
	if odMask != 0 && spotMask != 0 {
		for _, pos := range opts {
			spotCap = min(spotCap, k.cheapest(p.types[pos].t, odMask))
		}
	}
	usable := func(t *itype, z, ct int) bool {
		i := k.off.index(t.idx, z, ct)
		return c.mask&(1<<uint(z*numCT+ct)) != 0 && k.off.available(i, now) && (ct != ctSpot || k.off.price[i] <= spotCap)
	}
	ct := ctOnDemand
	for _, pos := range opts {
		for z := range k.zones {
			if usable(p.types[pos].t, z, ctSpot) {
				ct = ctSpot
			}
		}
	}
	var offerings []cloud.Offering
	for _, pos := range opts {
		t := p.types[pos].t
		for z := range k.zones {
			if usable(t, z, ct) {
				offerings = append(offerings, cloud.Offering{InstanceType: t.name, Zone: k.zones[z], CapacityType: ctOf(ct)})
			}
		}
	}
	if len(offerings) == 0 {
		k.stats.LaunchFailures++
		st.LaunchFailures++
		return cluster.NoNode
	}
	strategy := cloud.LowestPrice
	if ct == ctSpot {
		strategy = cloud.PriceCapacityOptimized
	}
	k.stats.LaunchRequests++
	res, err := k.cloud.Launch(cloud.LaunchRequest{Owner: OwnerName, Offerings: offerings, Strategy: strategy, Latency: cloud.FleetLaunch})
	for _, e := range res.Errors {
		if e.IsCapacityError() {
			k.markUnavailable(e.Offering)
		}
	}
	if err != nil || res.Instance == cloud.NoInstance {
		k.stats.LaunchFailures++
		st.LaunchFailures++
		k.dis.stateChanged()
		return cluster.NoNode
	}
	return k.createNode(c, res, replacementOf)
}

// launchFilter keeps the instance types a launch would send (KA
// filterInstanceTypes): compatible with an available offering, exotic
// types (GPUs, metal) only if nothing else is left, and the cheapest 60.
func (k *Karpenter) launchFilter(c *claim) []int32 {
	now := k.eng.Now()
	p := c.pool
	var out, generic []int32
	for _, pos := range c.opts {
		t := p.types[pos].t
		has := false
		base := k.off.index(t.idx, 0, 0)
		for b := 0; b < k.off.nZones*numCT; b++ {
			if c.mask&(1<<uint(b)) != 0 && k.off.available(base+b, now) {
				has = true
				break
			}
		}
		if !has {
			continue
		}
		out = append(out, pos)
		if !t.exotic {
			generic = append(generic, pos)
		}
	}
	hasMin := false
	for i := range c.reqs {
		hasMin = hasMin || c.reqs[i].minValues > 0
	}
	if len(generic) > 0 && !hasMin {
		out = generic
	}
	if len(out) > k.settings.MaxLaunchInstanceTypes {
		out = out[:k.settings.MaxLaunchInstanceTypes]
	}
	return out
}

// createNode adds the launched node to the cluster.
func (k *Karpenter) createNode(c *claim, res cloud.LaunchResult, replacementOf *command) cluster.NodeID {
	cl := k.cl
	syms := cl.Syms
	p := c.pool
	spec := p.spec
	t, ok := k.typeByName[res.Offering.InstanceType]
	if !ok || p.typeByIdx[t.idx] < 0 {
		// The cloud answered with an offering Karpenter did not ask for:
		// a bug in the cloud model.
		panic("karpenter: launch answered with offering " + res.Offering.String() + " that was not requested")
	}
	pt := &p.types[p.typeByIdx[t.idx]]
	k.nodeSeq++
	name := spec.Name + "-" + nodeSuffix(k.nodeSeq)

	labels := append(cluster.Labels(nil), spec.Labels...)
	set := func(key, v cluster.Sym) { labels = labels.With(key, v) }
	// Single-valued requirements become labels (KC Requirements.Labels),
	// then the instance's own labels.
	for i := range c.reqs {
		r := &c.reqs[i]
		if r.key == cl.KeyHostname || r.comp || len(r.vals) != 1 {
			continue
		}
		set(r.key, r.vals[0])
	}
	for tk := 0; tk < numTypeKeys; tk++ {
		if v := t.lab[tk]; v != cluster.NoSym {
			set(k.typeKey[tk], v)
		}
	}
	zone := syms.Intern(res.Offering.Zone)
	set(cl.KeyZone, zone)
	set(cl.KeyCapacityType, syms.Intern(res.Offering.CapacityType.String()))
	set(k.keyNodePool, syms.Intern(spec.Name))
	// The deprecated beta labels the kubelet and cloud controller still set.
	set(k.betaKeys[0], t.lab[tkInstanceType])
	set(k.betaKeys[1], t.lab[tkArch])
	set(k.betaKeys[2], t.lab[tkOS])
	set(k.betaKeys[3], zone)
	set(k.betaKeys[4], t.lab[tkRegion])
	taints := append(append([]cluster.Taint(nil), spec.Taints...), spec.StartupTaints...)
	id := cl.AddNode(cluster.Node{
		Name: name, Labels: labels, Taints: taints, Allocatable: pt.alloc, State: cluster.NodeLaunching,
		InstanceType: t.name, Zone: zone, CapacityType: res.Offering.CapacityType, PriceUSDPerHour: res.PriceUSDPerHour,
		Owner: cluster.OwnedByKarpenter, OwnerName: spec.Name, Instance: int32(res.Instance),
	})
	now := k.eng.Now()
	kn := &knode{id: id, pool: p, it: t, offering: res.Offering, instance: res.Instance, capacity: pt.capacity,
		lastPodEvent: now, poolHash: spec.TemplateHash, classHash: spec.NodeClass.Hash,
		replacementOf: replacementOf}
	kn.nominatedUntil = now + k.nomination()
	for int(id) >= len(k.nodes) {
		k.nodes = append(k.nodes, nil)
	}
	k.nodes[id] = kn
	k.live = append(k.live, kn) // IDs only grow: live stays sorted
	k.byInstance[res.Instance] = id
	if replacementOf == nil {
		for _, pid := range c.pods {
			if k.cl.Pods[pid].Phase == cluster.Pending {
				cl.NoteLaunchFor(pid, id)
			}
		}
	}
	k.eng.After(res.ReadyAfter, engine.Event{Handler: k.id, Kind: evReady, Obj: int32(id)})
	kn.regTimer = k.eng.After(k.settings.RegistrationTimeout, engine.Event{Handler: k.id, Kind: evRegistration, Obj: int32(id)})
	if spec.ExpireAfter > 0 {
		kn.expireTimer = k.eng.After(spec.ExpireAfter, engine.Event{Handler: k.id, Kind: evExpire, Obj: int32(id)})
	}
	k.stats.NodeClaimsLaunched++
	p.stats.NodeClaimsLaunched++
	p.stats.addCapacityType(res.Offering.CapacityType.String())
	p.stats.addInstanceType(t.name)
	return id
}

// minNomination is the floor of how long a nomination protects a node
// from disruption (KC state.Cluster nomination: max(2 x batchMaxDuration,
// 10s)).
const minNomination = 10 * time.Second

func (k *Karpenter) nomination() time.Duration {
	return max(2*k.settings.BatchMaxDuration, minNomination)
}

func nodeSuffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := 4; i >= 0; i-- {
		b[i] = alphabet[n%len(alphabet)]
		n /= len(alphabet)
	}
	return string(b)
}

// nodeReady makes a launched node Ready and removes its startup taints
// (the daemonsets that would remove them are not modelled).
func (k *Karpenter) nodeReady(id cluster.NodeID) {
	kn := k.knodeOf(id)
	n := &k.cl.Nodes[id]
	if kn == nil || n.State != cluster.NodeLaunching {
		return
	}
	k.eng.Cancel(kn.regTimer)
	k.cl.MarkNodeReady(id)
	for _, t := range kn.pool.spec.StartupTaints {
		k.cl.RemoveTaint(id, t.Key, t.Effect)
	}
	kn.initialized = true
	kn.lastPodEvent = k.eng.Now()
	k.baseNodeChanged(id)
}

// registrationTimeout deletes a NodeClaim whose node did not become Ready
// in time (KC nodeclaim lifecycle liveness).
func (k *Karpenter) registrationTimeout(id cluster.NodeID) {
	kn := k.knodeOf(id)
	if kn == nil || k.cl.Nodes[id].State != cluster.NodeLaunching {
		return
	}
	k.stats.LaunchFailures++
	kn.pool.stats.LaunchFailures++
	k.stats.RegistrationTimeouts++
	k.removeNode(kn, true)
	k.trigger()
}

// expire starts the forceful deletion of an expired node: no budget, no
// do-not-disrupt check (KC nodeclaim expiration).
func (k *Karpenter) expire(id cluster.NodeID) {
	kn := k.knodeOf(id)
	if kn == nil || kn.deleting || k.cl.Nodes[id].State == cluster.NodeGone {
		return
	}
	if kn.cmd != nil {
		k.abortCommand(kn.cmd)
	}
	k.startDeletion(kn, reasonExpired)
}

// removeNode terminates the instance (unless it is gone already) and
// deletes the node; its pods die with it.
func (k *Karpenter) removeNode(kn *knode, terminate bool) {
	k.eng.Cancel(kn.regTimer)
	k.eng.Cancel(kn.expireTimer)
	k.eng.Cancel(kn.drainTimer)
	if terminate {
		k.cloud.Terminate(kn.instance)
	}
	delete(k.byInstance, kn.instance)
	k.nodes[kn.id] = nil
	for i, o := range k.live {
		if o == kn {
			k.live = append(k.live[:i], k.live[i+1:]...)
			break
		}
	}
	if kn.replacementOf != nil {
		k.eng.After(0, engine.Event{Handler: k.id, Kind: evCommandCheck})
	}
	k.cl.RemoveNode(kn.id)
}
