package karpenter

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// staticPools keeps static NodePools (spec.replicas) at their size (KC
// pkg/controllers/static, v1.15.0; only with the StaticCapacity feature
// gate). Upstream's two controllers reconcile a pool on its creation, a
// replica change and the deletion of one of its NodeClaims, and requeue
// every minute; here one reconcile looks at every static pool, when one
// of those happens:
//
//   - provisioning: while the pool's active nodes and those a disruption
//     command is replacing fall short of replicas, it creates the missing
//     NodeClaims (replicas - active), no more than limits.nodes leaves
//     room for (active, deleting and pending-disruption nodes count). A
//     static NodeClaim carries only the pool's requirements: the launch
//     takes the cheapest allowed types, nothing needs to fit
//     (scheduling.StaticClaim);
//   - deprovisioning: active nodes beyond replicas are deleted, empty ones
//     first (no pod but DaemonSet pods without an active
//     do-not-disrupt), then those without a do-not-disrupt pod, each
//     group by rescheduling cost times the share of its lifetime left,
//     lowest first. Deletion drains as any (PDBs honoured) but takes no
//     disruption budget.
//
// Drift of a static pool's nodes is the disrupter's staticDrift method;
// emptiness, consolidation and (dynamic) drift leave them alone, and the
// provisioner never launches for pods from them (scheduling's Ordered).
type staticPools struct {
	env
	parts
	// next is the pending reconcile, at nextAt.
	next   engine.Timer
	nextAt engine.Time
}

// Upstream's requeues (KC static provisioning Reconcile): a minute after
// a reconcile that is done, 30 s after one that met limits.nodes.
const (
	staticRequeue      = time.Minute
	staticLimitRequeue = 30 * time.Second
)

// hasAny reports whether a static pool is in force and the gate is on.
func (sp *staticPools) hasAny() bool {
	if !sp.settings.StaticCapacity {
		return false
	}
	for _, p := range sp.pools.All {
		if p.Spec.Static {
			return true
		}
	}
	return false
}

// poke asks for a reconcile now (a NodeClaim of a static pool is deleted,
// a pool changed).
func (sp *staticPools) poke() { sp.at(sp.eng.Now()) }

// at schedules the reconcile at t unless one comes sooner.
func (sp *staticPools) at(t engine.Time) {
	if !sp.hasAny() {
		return
	}
	if sp.eng.Pending(sp.next) {
		if sp.nextAt <= t {
			return
		}
		sp.eng.Cancel(sp.next)
	}
	sp.next, sp.nextAt = sp.eng.Schedule(t, engine.Event{Handler: sp.id, Kind: evStatic}), t
}

// staticCounts are a static pool's NodeClaims as KC NodePoolState counts
// them: active (not marked for deletion), deleting, and pending
// disruption (candidates of a started command).
type staticCounts struct{ active, deleting, pending int64 }

func (sp *staticPools) counts(p *scheduling.Pool) staticCounts {
	var c staticCounts
	for _, kn := range sp.nodes.live {
		switch {
		case kn.Pool != p:
		case kn.Deleting:
			c.deleting++
		case kn.InCommand:
			c.pending++
		default:
			c.active++
		}
	}
	return c
}

// nodeLimit is the pool's limits.nodes, unbounded when not set.
func nodeLimit(p *scheduling.Pool) int64 {
	if l := p.Spec.Limits.Nodes; l >= 0 {
		return l
	}
	return math.MaxInt64
}

// reconcile brings every static pool to its replicas.
func (sp *staticPools) reconcile() {
	if !sp.hasAny() {
		return
	}
	retry := engine.Time(-1)
	for _, p := range sp.pools.All {
		if !p.Spec.Static {
			continue
		}
		if t, ok := sp.reconcilePool(p); ok && (retry < 0 || t < retry) {
			retry = t
		}
	}
	if retry >= 0 {
		sp.at(retry)
	}
}

// reconcilePool provisions or deprovisions one pool; it returns when to
// try again if it fell short.
func (sp *staticPools) reconcilePool(p *scheduling.Pool) (engine.Time, bool) {
	now := sp.eng.Now()
	c := sp.counts(p)
	want := p.Spec.Replicas
	if c.active > want {
		sp.deprovision(p, int(c.active-want))
		return 0, false
	}
	if c.active+c.pending >= want {
		return 0, false
	}
	n := min(want-c.active, nodeLimit(p)-(c.active+c.deleting+c.pending))
	if n <= 0 {
		// "nodepool node limit reached"; a deletion pokes it sooner.
		return now + staticLimitRequeue, true
	}
	version := sp.offerings.Offers.Version()
	usage := sp.pools.Usages()
	failed := false
	sp.offerings.DeferCapacityErrors = true
	for range n {
		if !scheduling.LaunchAllowed(p, usage) || sp.prov.launchClaim(sp.pools.StaticClaim(p), nil) == cluster.NoNode {
			failed = true
		}
	}
	sp.offerings.FlushCapacityErrors()
	if !failed {
		return 0, false
	}
	return sp.retryAt(p, sp.offerings.Offers.Version() != version), true
}

// retryAt is when a pool whose launches failed tries again. Upstream's
// reconcile runs again as soon as the failed NodeClaim is deleted, and
// each attempt skips the offerings in the insufficient-capacity cache: it
// launches once an offering is left or comes back. So: at once when the
// failures marked offerings and others are left (bounded: each failure
// marks its own), else when the pool's first cached offering expires,
// else at the minute's requeue.
func (sp *staticPools) retryAt(p *scheduling.Pool, marked bool) engine.Time {
	now := sp.eng.Now()
	o := sp.offerings
	mask := o.OfferingMask(p.Requirements)
	next := engine.Time(-1)
	for i := range p.Types {
		base := o.Offers.Index(p.Types[i].Type.Index, 0, 0)
		for b := 0; b < o.Offers.NumZones*scheduling.NumCapacityTypes; b++ {
			if mask&(1<<uint(b)) == 0 || o.Offers.Price[base+b] < 0 {
				continue
			}
			until := o.Offers.UnavailableUntil[base+b]
			if until <= now {
				if marked {
					return now
				}
				continue
			}
			if next < 0 || until < next {
				next = until
			}
		}
	}
	if next >= 0 {
		return next
	}
	return now + staticRequeue
}

// staticVictim is an active node of a pool being scaled down, with what
// orders it.
type staticVictim struct {
	kn           *knode
	empty, dnd   bool
	weightedCost float64
}

// deprovision deletes n active nodes of an oversized pool (KC
// getDeprovisioningCandidates). NodeClaims whose launch has not answered
// come first upstream; launches answer at once here, so there are none.
func (sp *staticPools) deprovision(p *scheduling.Pool, n int) {
	now := sp.eng.Now()
	var vs []staticVictim
	for _, kn := range sp.nodes.live {
		if kn.Pool != p || kn.Deleting || kn.InCommand {
			continue
		}
		v := staticVictim{kn: kn, empty: true}
		cost := 0.0
		n := &sp.cl.Nodes[kn.ID]
		for i, pid := range n.Pods {
			r := &n.PodRefs[i]
			if r.Spec.DoNotDisrupt || r.Spec.DoNotDisruptFor > 0 {
				active, _ := sp.cl.Pods[pid].DoNotDisruptActive(now)
				v.dnd = v.dnd || active
			}
			v.empty = v.empty && r.Spec.DaemonSet
			cost += evictionCost(r.Spec)
		}
		v.empty = v.empty && !v.dnd
		v.weightedCost = cost * sp.lifetimeRemaining(kn)
		vs = append(vs, v)
	}
	// Empty nodes first, in state order; then the rest, do-not-disrupt
	// last, cheapest to disrupt first (KC resolvedDeprovisioningCandidates).
	slices.SortStableFunc(vs, func(a, b staticVictim) int {
		if a.empty != b.empty {
			return boolFirst(a.empty)
		}
		if a.empty {
			return 0
		}
		if a.dnd != b.dnd {
			return boolFirst(!a.dnd)
		}
		return cmp.Compare(a.weightedCost, b.weightedCost)
	})
	for _, v := range vs[:min(n, len(vs))] {
		sp.term.startDeletion(v.kn, reasonOverprovisioned)
	}
}

// boolFirst orders true before false.
func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

// lifetimeRemaining is the share of the node's expireAfter left, 1 when it
// never expires (KC disruptionutils.LifetimeRemaining).
func (sp *staticPools) lifetimeRemaining(kn *knode) float64 {
	if !kn.expires {
		return 1
	}
	life := kn.Pool.Spec.ExpireAfter
	if life <= 0 {
		return 1
	}
	left := float64(kn.expiresAt-sp.eng.Now()) / float64(life)
	return max(0, min(1, left))
}
