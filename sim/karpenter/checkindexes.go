package karpenter

import (
	"fmt"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// CheckIndexes recomputes, from the cluster and from Karpenter's own
// records, every structure that keeps a copy of a fact for speed, and
// returns an error naming the first that differs (the structure, the node
// or pod, and both values); nil when all agree. sim run --check calls it
// between events (sim/invariants). It changes nothing: no cache is
// filled, no symbol or spec class is numbered, no price is refreshed, so a
// checked run decides exactly as an unchecked one.
//
// Karpenter's own records (its NodeClaims: pools, instance types,
// launch times, commands) and the cluster are the truth; everything
// below is checked against them:
//
//   - node records (nodeTracker): byID, live and byInstance agree with one
//     another; every record's node is live, Karpenter's, runs its
//     instance, is Ready exactly when the record is initialized, and no
//     live node of Karpenter's lacks a record; the last pod event is
//     recorded no earlier than podEventDedupe before the bind of any pod on
//     the node that countsAsPodEvent, but the start state's; a node in a command is in a running
//     command among its candidates;
//   - antiBound: the bound pods with required pod anti-affinity, counted
//     (scheduling.Scheduler.CheckBoundAntiAffinity);
//   - pending pods (provisioner.pending): exactly the Pending pods marked
//     unschedulable that awaitsProvisioning admits;
//   - pod scans (knode.scan, when scanValid): a fresh scan of the node's
//     pods with the shared predicate reschedulable (pods, eviction cost,
//     do-not-disrupt), and its prepared set (below);
//   - prepared pod sets: one is used when its pods are the ones a solve
//     reschedules, so a node's set (knode.set) is checked when its pods
//     are the node's reschedulable pods now and the node may be a
//     candidate, and the provisionable set (disrupter.provSet) when its
//     pods are the provisionable pods now; either must equal a set built
//     afresh from those pods (queue keys, in queue order once sorted,
//     templates, counts, first pods, flags, classes per spec class:
//     scheduling.Scheduler.CheckPodSet). The
//     provisionable set's origins are refreshed on use and not compared;
//   - the solve's structures (scheduling.Scheduler.CheckIndexes, which
//     lists them): node order, dirty marks, the existing-node snapshot,
//     spec classes, jump tables, static-fit verdicts, pod statics,
//     placeholder hostnames, node pools (whose stats Karpenter keeps) and
//     available offerings;
//   - the disruption pass's shared state (disrupter.pass): empty between
//     events (a pass begins and ends within one).
//
// Not checked: the what-if shortcuts (earlyNo, doomed, and a provisioning
// batch skipped as the same as the last) answer inside one event, or from
// state a full solve would need to recompute; a solve at check time would
// refresh prices early, number spec classes and placeholder hostnames and
// bring the snapshot up to date, which could change a checked run. The
// tests check them instead by computing everything whole
// (whatIfHooks.full) and comparing decisions, and by verifying each
// doomed what-if (TestKarpenterIndexes, TestEarlyVerdictsChangeNothing,
// TestDoomedWhatIfsFail). Also not checked: the consolidation state
// (consolidation.marked, disrupter.version) and the drift verdicts
// (knode.drifted, driftChecked), worked out once per NodePool version:
// they model upstream's own caching rather than copy a fact; solve stamps (podMark, exSlot.stamp), which only ever
// match the solve in progress; the free lists of recycled solver parts.
func (k *Karpenter) CheckIndexes() error {
	_, err := k.checkIndexes(true)
	return err
}

// indexCounts says how much a check compared, per kind of entry (tests
// make sure their runs reach every structure).
type indexCounts struct {
	scans, nodeSets, provSets, entries, jumpPositions, verdicts, podStatics, claimStarts, masks int
}

// checkIndexes is CheckIndexes, saying what it compared; without pools it
// leaves out the NodePools' derived data, which only a NodePool update or
// a new price list changes (tests that check after every event check them
// after every change they make).
func (k *Karpenter) checkIndexes(pools bool) (indexCounts, error) {
	ck := &indexCheck{k: k, cl: k.cl}
	for _, c := range []struct {
		name  string
		check func() error
	}{
		{"node records", ck.nodeRecords},
		{"antiBound", k.sc.CheckBoundAntiAffinity},
		{"pending pods", ck.pending},
		{"pod scans", ck.scans},
		{"prepared pod sets", ck.podSets},
	} {
		if err := c.check(); err != nil {
			return ck.counts, fmt.Errorf("karpenter %s: %w", c.name, err)
		}
	}
	// The solve's structures, from the node order to the available
	// offerings (their errors name the structure).
	sc, err := k.sc.CheckIndexes(pools, func(pool string) bool { return k.poolStats[pool] != nil })
	ck.counts.entries, ck.counts.jumpPositions, ck.counts.verdicts = sc.Entries, sc.JumpPositions, sc.Verdicts
	ck.counts.podStatics, ck.counts.claimStarts, ck.counts.masks = sc.PodStatics, sc.ClaimStarts, sc.Masks
	if err != nil {
		return ck.counts, fmt.Errorf("karpenter %w", err)
	}
	if err := ck.passCache(); err != nil {
		return ck.counts, fmt.Errorf("karpenter disruption pass cache: %w", err)
	}
	return ck.counts, nil
}

// indexCheck is one CheckIndexes run of the controller's own structures.
type indexCheck struct {
	k      *Karpenter
	cl     *cluster.Cluster
	counts indexCounts
}

func (ck *indexCheck) node(id cluster.NodeID) string { return scheduling.DescribeNode(ck.cl, id) }

func (ck *indexCheck) pod(id cluster.PodID) string { return scheduling.DescribePod(ck.cl, id) }

func (ck *indexCheck) nodeRecords() error {
	nt := ck.k.nodes
	nonNil := 0
	for id, kn := range nt.byID {
		if kn == nil {
			continue
		}
		nonNil++
		if kn.ID != cluster.NodeID(id) {
			return fmt.Errorf("byID[%d] holds the record of %s", id, ck.node(kn.ID))
		}
	}
	if nt.idx.Len() != len(nt.live) {
		return fmt.Errorf("the solve's node index has %d records, live %d", nt.idx.Len(), len(nt.live))
	}
	if nonNil != len(nt.live) {
		return fmt.Errorf("byID has %d records, live %d", nonNil, len(nt.live))
	}
	if len(nt.byInstance) != len(nt.live) {
		return fmt.Errorf("byInstance has %d instances, live %d records", len(nt.byInstance), len(nt.live))
	}
	for i, kn := range nt.live {
		if i > 0 && nt.live[i-1].ID >= kn.ID {
			return fmt.Errorf("live is not in ID order at %s", ck.node(kn.ID))
		}
		if nt.get(kn.ID) != kn {
			return fmt.Errorf("%s: live record is not byID's", ck.node(kn.ID))
		}
		if nt.idx.Get(kn.ID) != &kn.Node {
			return fmt.Errorf("%s: the solve's node index does not hold the record", ck.node(kn.ID))
		}
		if kn.InCommand != (kn.cmd != nil) {
			return fmt.Errorf("%s: inCommand %v, command %v", ck.node(kn.ID), kn.InCommand, kn.cmd != nil)
		}
		if got, ok := nt.byInstance[kn.instance]; !ok || got != kn.ID {
			return fmt.Errorf("%s: byInstance[%d] = %d (present %v), want the node", ck.node(kn.ID), kn.instance, got, ok)
		}
		if int(kn.ID) >= len(ck.cl.Nodes) {
			return fmt.Errorf("record of %s beyond the cluster's nodes", ck.node(kn.ID))
		}
		n := &ck.cl.Nodes[kn.ID]
		switch {
		case n.State == cluster.NodeGone:
			return fmt.Errorf("%s: recorded as a NodeClaim's node, gone from the cluster", ck.node(kn.ID))
		case n.Owner != ownedByKarpenter:
			return fmt.Errorf("%s: recorded as a NodeClaim's node, owned by %v", ck.node(kn.ID), n.Owner)
		case n.Instance != int32(kn.instance):
			return fmt.Errorf("%s: record says instance %d, the node %d", ck.node(kn.ID), kn.instance, n.Instance)
		case kn.Initialized != (n.State == cluster.NodeReady):
			return fmt.Errorf("%s: record initialized=%v, node state %s", ck.node(kn.ID), kn.Initialized, n.State)
		case kn.LastPodEvent > ck.k.eng.Now():
			return fmt.Errorf("%s: lastPodEvent %v is in the future", ck.node(kn.ID), kn.LastPodEvent)
		}
		for _, pid := range n.Pods {
			// A bind is a pod event (notePodEvent) unless of a pod that does
			// not count or of the imported start state (counted in the
			// imported last pod event), or within podEventDedupe of the one
			// recorded.
			p := &ck.cl.Pods[pid]
			if countsAsPodEvent(p) && !ck.k.startStatePod(kn.ID, pid) && (!kn.podEventSet || p.BoundAt-kn.LastPodEvent >= podEventDedupe) {
				return fmt.Errorf("%s: last pod event %v (recorded %v), before the bind of %s at %v", ck.node(kn.ID), kn.LastPodEvent, kn.podEventSet, ck.pod(pid), p.BoundAt)
			}
		}
		if cmd := kn.cmd; cmd != nil {
			if kn.Deleting {
				return fmt.Errorf("%s: deleting and still in a command", ck.node(kn.ID))
			}
			if !slices.Contains(ck.k.dis.running, cmd) {
				return fmt.Errorf("%s: in a command that is not running", ck.node(kn.ID))
			}
			if !slices.ContainsFunc(cmd.cands, func(c *candidate) bool { return c.kn == kn }) {
				return fmt.Errorf("%s: in a command it is not a candidate of", ck.node(kn.ID))
			}
		}
	}
	for i := range ck.cl.Nodes {
		n := &ck.cl.Nodes[i]
		if n.Owner == ownedByKarpenter && n.State != cluster.NodeGone && nt.get(cluster.NodeID(i)) == nil {
			return fmt.Errorf("%s: live node of Karpenter's without a record", ck.node(cluster.NodeID(i)))
		}
	}
	return nil
}

func (ck *indexCheck) pending() error {
	pr := ck.k.prov
	want := func(p *cluster.Pod) bool {
		return p.Phase == cluster.Pending && p.Unschedulable && awaitsProvisioning(p)
	}
	ids := make([]cluster.PodID, 0, len(pr.pending))
	for id := range pr.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if p := &ck.cl.Pods[id]; !pr.pending[id] || !want(p) {
			return fmt.Errorf("%s recorded as pending: phase %s, unschedulable %v, nodeName %q", ck.pod(id), p.Phase, p.Unschedulable, p.Spec.NodeName)
		}
	}
	n := 0
	for i := range ck.cl.Pods {
		if want(&ck.cl.Pods[i]) {
			n++
			if !pr.pending[cluster.PodID(i)] {
				return fmt.Errorf("%s is pending and unschedulable, not recorded", ck.pod(cluster.PodID(i)))
			}
		}
	}
	if n != len(ids) {
		return fmt.Errorf("%d pods recorded, %d pending", len(ids), n)
	}
	return nil
}

// freshScan scans a node's pods afresh, from the pod records.
func (ck *indexCheck) freshScan(kn *knode) podScan {
	n := &ck.cl.Nodes[kn.ID]
	sc := podScan{cost: 1, pods: []cluster.PodID{}}
	for _, pid := range n.Pods {
		p := &ck.cl.Pods[pid]
		if active, _ := p.DoNotDisruptActive(ck.k.eng.Now()); active && !p.Terminating {
			sc.doNotDisrupt = true
		}
		if !reschedulable(p) {
			continue
		}
		sc.pods = append(sc.pods, pid)
		sc.cost += max(0, evictionCost(p.Spec))
	}
	return sc
}

func (ck *indexCheck) scans() error {
	for _, kn := range ck.k.nodes.live {
		if !kn.scanValid || (kn.scan.expires != 0 && ck.k.eng.Now() >= kn.scan.expires) {
			continue // read again at its next use
		}
		fresh := ck.freshScan(kn)
		sc := &kn.scan
		ck.counts.scans++
		switch {
		case !slices.Equal(sc.pods, fresh.pods):
			return fmt.Errorf("%s: scanned pods %v, rescheduled pods now %v", ck.node(kn.ID), sc.pods, fresh.pods)
		case sc.cost != fresh.cost:
			return fmt.Errorf("%s: scanned eviction cost %v, now %v", ck.node(kn.ID), sc.cost, fresh.cost)
		case sc.doNotDisrupt != fresh.doNotDisrupt:
			return fmt.Errorf("%s: scanned do-not-disrupt %v, now %v", ck.node(kn.ID), sc.doNotDisrupt, fresh.doNotDisrupt)
		case sc.set == nil:
			return fmt.Errorf("%s: scan without its prepared set", ck.node(kn.ID))
		}
		if err := ck.k.sc.CheckPodSet(sc.set, fresh.pods, !kn.Deleting); err != nil {
			return fmt.Errorf("%s: scan's set: %w", ck.node(kn.ID), err)
		}
	}
	return nil
}

func (ck *indexCheck) podSets() error {
	for _, kn := range ck.k.nodes.live {
		if kn.set == nil || kn.Deleting || kn.cmd != nil {
			continue
		}
		if fresh := ck.freshScan(kn); slices.Equal(kn.set.Pods, fresh.pods) {
			ck.counts.nodeSets++
			if err := ck.k.sc.CheckPodSet(kn.set, fresh.pods, true); err != nil {
				return fmt.Errorf("%s: %w", ck.node(kn.ID), err)
			}
		}
	}
	d := ck.k.dis
	if d.provSet != nil {
		if pods := d.prov.provisionable(); slices.Equal(d.provSet.Pods, pods) {
			ck.counts.provSets++
			if err := ck.k.sc.CheckPodSet(d.provSet, pods, false); err != nil {
				return fmt.Errorf("provisionable pods: %w", err)
			}
		}
	}
	return nil
}

func (ck *indexCheck) passCache() error {
	p := &ck.k.dis.pass
	if p.on || p.scanned || p.scan != nil || p.prov != nil || p.universe != nil || p.doom != nil {
		return fmt.Errorf("a pass's shared state outlived the pass (on=%v scanned=%v)", p.on, p.scanned)
	}
	return nil
}
