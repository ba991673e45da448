package karpenter

import (
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// What the what-ifs of one disruption pass share. Nothing changes the
// cluster while a pass computes (a command starts after its method
// returns), so the candidates' pod scan, the provisionable pods (in solve
// order, with their templates) and the domain universe are worked out
// once per pass rather than once per method or per simulated candidate
// (outside a pass, as in re-validation, they are worked out afresh). The
// prepared pod sets (sorted, with their templates) of each node and of
// the provisionable pods are kept across passes while the pods stay the
// same.
type passCache struct {
	on       bool
	scan     []nodeScan
	scanned  bool
	prov     *scheduling.PodSet
	universe map[cluster.Sym][]cluster.Sym
	doom     *doomState
	// totals are the Balanced pools' (balancedTotals).
	totals map[*scheduling.Pool]poolTotals
}

// nodeScan is the method-independent part of a disruption candidate.
type nodeScan struct {
	kn      *knode
	pods    []cluster.PodID // reschedulable pods
	cost    float64         // 1 + the pods' eviction costs
	blocked bool            // a do-not-disrupt pod or a budget blocks it
}

// podSet returns the candidate's pods prepared for solves. A pod's spec,
// namespace and creation never change and IDs are not reused, so the set
// depends only on the IDs: the node keeps it while they stay the same.
func (c *candidate) podSet(sv *scheduling.Solvers) *scheduling.PodSet {
	kn := c.kn
	if kn.set == nil || !slices.Equal(kn.set.Pods, c.pods) {
		if kn.scanValid && kn.scan.set != nil && slices.Equal(kn.scan.set.Pods, c.pods) {
			kn.set = kn.scan.set
		} else {
			kn.set = sv.NewPodSet(c.pods)
		}
	}
	return kn.set
}

// beginPass turns sharing on; endPass drops what was shared.
func (d *disrupter) beginPass() { d.pass = passCache{on: true} }
func (d *disrupter) endPass() {
	if ds := d.pass.doom; ds != nil && ds.probe != nil {
		d.solvers.Recycle(ds.probe)
	}
	d.pass = passCache{}
}

// podScan is what a disruption pass reads of a node's pods, kept on the
// node while its pods stay the same (they change only through the
// cluster's pod changes, which clear knode.scanValid).
type podScan struct {
	pods []cluster.PodID // reschedulable pods, in the node's order
	// set is the same pods prepared for solves (podSet), gathered in the
	// same read of the pods.
	set  *scheduling.PodSet
	cost float64 // 1 + the pods' eviction costs
	// doNotDisrupt: an active pod carries karpenter.sh/do-not-disrupt.
	doNotDisrupt bool
	// expires is when a do-not-disrupt duration that protects a pod runs
	// out, or a pod it protects starts (the scan is read again then); 0:
	// never.
	expires engine.Time
}

// podScan returns the node's pod scan, rescanning after a pod change.
func (d *disrupter) podScan(kn *knode) *podScan {
	now := d.eng.Now()
	if kn.scanValid && (kn.scan.expires == 0 || now < kn.scan.expires) {
		return &kn.scan
	}
	// The node's pods are bound (never terminal: finished and deleted pods
	// leave it); PodRefs has what is read of them. The node is not being
	// deleted (nodeScans), so its pods would be moved (fromCandidate). The
	// pods list is new each time: candidates and prepared sets keep the
	// old one.
	n := &d.cl.Nodes[kn.ID]
	sc := podScan{cost: 1, pods: make([]cluster.PodID, 0, len(n.Pods))}
	b := scheduling.SetBuilder{Set: &scheduling.PodSet{QueueKeys: make([]scheduling.QueueKey, 0, len(n.Pods))}}
	for i, pid := range n.Pods {
		r := &n.PodRefs[i]
		if r.Spec.DoNotDisrupt && !r.Terminating {
			sc.doNotDisrupt = true // KC: do-not-disrupt counts for every active pod
		} else if r.Spec.DoNotDisruptFor > 0 && !r.Terminating {
			// A duration: until the pod has run that long.
			p := &d.cl.Pods[pid]
			if active, until := p.DoNotDisruptActive(now); active {
				sc.doNotDisrupt = true
				if !p.Ran {
					until = now + 1 // read again once it may have started
				}
				if sc.expires == 0 || until < sc.expires {
					sc.expires = until
				}
			}
		}
		if r.Terminating || !movableSpec(r.Spec) { // not reschedulable (reschedulable)
			continue
		}
		sc.pods = append(sc.pods, pid)
		b.Add(d.solvers, scheduling.QueueKey{CPU: r.Spec.Requests[cluster.CPU], Memory: r.Spec.Requests[cluster.Memory], Created: r.Created, UIDRank: r.UIDRank, ID: pid,
			Namespace: r.Namespace, Origin: scheduling.FromCandidate, Spec: r.Spec})
		sc.cost += max(0, evictionCost(r.Spec))
	}
	// Share the node's prepared list while its pods stay the same.
	if kn.set != nil && slices.Equal(kn.set.Pods, sc.pods) {
		sc.pods, sc.set = kn.set.Pods, kn.set
	} else {
		b.Set.Pods = sc.pods
		sc.set = b.Set
	}
	kn.scan, kn.scanValid = sc, true
	return &kn.scan
}

// nodeScans scans the nodes that may be candidates: Karpenter's
// initialized nodes not being deleted, in no command, not nominated, whose
// pool allows disruption.
func (d *disrupter) nodeScans() []nodeScan {
	if d.pass.on && d.pass.scanned {
		return d.pass.scan
	}
	out := d.scanNodes(false)
	if d.pass.on {
		d.pass.scan, d.pass.scanned = out, true
	}
	return out
}

// scanNodes scans the nodes nodeScans takes or, for repair, the unhealthy
// ones among them, whatever do-not-disrupt their pool or the node carry
// (KC NewCandidate ignores the node's do-not-disrupt for the repair
// class: it was never meant to strand a broken node).
func (d *disrupter) scanNodes(repair bool) []nodeScan {
	now := d.eng.Now()
	// Whether a budget blocks a pod depends only on its namespace, labels
	// and tolerations: ask once per pod template (its first pod), and not
	// at all without budgets. A pod that tolerates the disruption taint is
	// never evicted (the drain leaves it to end with its node), so no
	// budget of its blocks (KC pdb.isEvictable: pod.IsEvictable).
	type memo struct {
		ns      cluster.Sym
		blocked bool
	}
	blockedMemo := map[*cluster.PodSpec]memo{}
	disrupted := cluster.Taint{Key: d.keyDisrupted, Effect: cluster.EffectNoSchedule}
	isBlocked := func(key scheduling.PodKey, pod cluster.PodID) bool {
		m, ok := blockedMemo[key.Spec]
		if ok && m.ns == key.Namespace {
			return m.blocked
		}
		b := !key.Spec.Tolerations.Tolerate(disrupted) && d.evictor.Blocked(pod)
		if !ok {
			blockedMemo[key.Spec] = memo{key.Namespace, b}
		}
		return b
	}
	budgets := d.evictor.HasBudgets()
	out := make([]nodeScan, 0, len(d.nodes.live))
	for _, kn := range d.nodes.live {
		if kn.Deleting || kn.cmd != nil {
			continue
		}
		// A registered node that never initializes is repair's all the
		// same, nominated or not (KC NewCandidate ignores
		// NodeUninitializedError for repair, and checks it ahead of
		// nomination); an unregistered one is liveness's.
		if !kn.Initialized && !(repair && d.cl.Nodes[kn.ID].RegisteredNotReady()) ||
			kn.Initialized && now < kn.nominatedUntil {
			continue
		}
		if repair {
			if d.cl.Nodes[kn.ID].Condition == cluster.Healthy {
				continue
			}
		} else if kn.Pool.Spec.DoNotDisrupt || kn.doNotDisrupt {
			continue
		}
		sc := d.podScan(kn)
		ns := nodeScan{kn: kn, cost: sc.cost, blocked: sc.doNotDisrupt}
		if len(sc.pods) > 0 {
			ns.pods = sc.pods
		}
		for i, key := range sc.set.Templates {
			if ns.blocked || !budgets {
				break
			}
			ns.blocked = isBlocked(key, sc.set.TemplateFirstPods[i])
		}
		out = append(out, ns)
	}
	return out
}

// provisionableSet returns the provisionable pods as a podSet, shared
// within a pass.
func (d *disrupter) provisionableSet() *scheduling.PodSet {
	if d.pass.on && d.pass.prov != nil {
		return d.pass.prov
	}
	pods := d.prov.provisionable()
	ps := d.provSet
	if ps == nil || !slices.Equal(ps.Pods, pods) {
		ps = d.solvers.NewPodSet(pods)
		d.provSet = ps
	} else {
		// The same pods may have moved (a pending pod bound to a node
		// now being deleted).
		for i := range ps.QueueKeys {
			ps.QueueKeys[i].Origin = d.solvers.OriginOf(ps.QueueKeys[i].ID)
		}
	}
	if d.pass.on {
		d.pass.prov = ps
	}
	return ps
}

// universe is the solves' domainUniverse, shared within a pass (nil
// outside one: each solve works it out).
func (d *disrupter) universe() map[cluster.Sym][]cluster.Sym {
	if !d.pass.on {
		return nil
	}
	if d.pass.universe == nil {
		d.pass.universe = d.solvers.DomainUniverse(d.pools.Ordered())
	}
	return d.pass.universe
}
