package karpenter

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// Adopt adds node n, which exists when the scenario starts (a node of an
// imported cluster labelled karpenter.sh/nodepool), to the cluster as a
// NodeClaim of NodePool n.OwnerName, as Karpenter rebuilds its state from
// the NodeClaims and Nodes it finds after a restart. inst is the running
// instance behind it (the market's Adopt). The node is Ready and
// initialized, and from now on consolidation, emptiness, drift (against
// its labels, as for any node), expiration and the pool's limits see it.
// It expires when its NodeClaim does (n.ExpiresIn: the NodeClaim's own
// expireAfter from its creation), else by the pool's expireAfter counted
// from its real launch, n.AgeAtStart before now: a node already past it
// expires right away, as Karpenter expires it after a restart. Its capacity is its instance type's in the pool, else its
// allocatable. It returns the node, or an error (and adds nothing) when
// the pool or the instance type is unknown.
func (k *Karpenter) Adopt(n cluster.Node, inst cloud.LaunchResult) (cluster.NodeID, error) {
	p, ok := k.pools.ByName[n.OwnerName]
	if !ok {
		return cluster.NoNode, fmt.Errorf("karpenter: cannot adopt node %s: no NodePool %q", n.Name, n.OwnerName)
	}
	t, ok := k.offerings.TypeByName[inst.Offering.InstanceType]
	if !ok {
		return cluster.NoNode, fmt.Errorf("karpenter: cannot adopt node %s: unknown instance type %q", n.Name, inst.Offering.InstanceType)
	}
	capacity := n.Allocatable
	if i := p.TypePositions[t.Index]; i >= 0 {
		capacity = p.Types[i].Capacity
	}
	spec := p.Spec
	n.State = cluster.NodeReady
	n.Owner = ownedByKarpenter
	n.Adopted = true
	n.Instance = int32(inst.Instance)
	n.PriceUSDPerHour = inst.PriceUSDPerHour
	if k.nodes.adopted == nil {
		k.nodes.adopted = map[string]bool{}
		// A cluster imported from a live one: Karpenter restarts on it,
		// and its disruption loop runs as soon as the start state's pods
		// are bound (made at time 0, bound just after: the first look is
		// a second in), not one poll interval later.
		k.dis.awaitingStart = true
		k.dis.schedulePass(startSyncRequeue)
	}
	k.nodes.adopted[n.Name] = true
	id := k.cl.AddNode(n)
	now := k.eng.Now()
	kn := &knode{Node: scheduling.Node{ID: id, Pool: p, InstanceType: t, Offering: inst.Offering, Capacity: capacity,
		Initialized: true, LastPodEvent: now}, instance: inst.Instance, poolHash: spec.TemplateHash, classHash: spec.NodeClass.Hash}
	if n.HasLastPodEvent {
		// The NodeClaim's status.lastPodEventTime, kept across a restart
		// upstream: consolidateAfter goes on from it. Without it (the
		// export had no NodeClaims), it counts from the run's start.
		kn.LastPodEvent, kn.podEventSet = now-n.LastPodEventAgo, true
	}
	// Drift by the hash annotations of an export: the NodeClaim was made
	// from another version of its NodePool or EC2NodeClass than the one
	// the export holds (KC areStaticFieldsDrifted; KA's node class hash).
	if spec.Exported.DriftedFrom(apis.ExportedHash{Hash: n.Annotations[apis.NodePoolHashAnnotation], Version: n.Annotations[apis.NodePoolHashVersionAnnotation]}) ||
		spec.NodeClass.Exported.DriftedFrom(apis.ExportedHash{Hash: n.Annotations[apis.NodeClassHashAnnotation], Version: n.Annotations[apis.NodeClassHashVersionAnnotation]}) {
		kn.drifted, kn.driftedAt = true, now
	}
	kn.doNotDisrupt = n.Annotations["karpenter.sh/do-not-disrupt"] == "true"
	if n.HasDriftedAt {
		// The NodeClaim's Drifted condition of the export: upstream
		// replaces drifted nodes oldest drift first.
		kn.exportDrift, kn.exportDriftAt = true, now-n.DriftedAgo
		if kn.drifted {
			kn.driftedAt = kn.exportDriftAt
		}
	}
	k.nodes.add(kn)
	switch {
	case n.HasExpiry:
		// The NodeClaim's own expireAfter (KC expiration controller reads
		// nodeClaim.Spec.ExpireAfter, set when it was made).
		if !n.NeverExpires {
			kn.expiresAt, kn.expires = now+n.ExpiresIn, true
		}
	case spec.ExpireAfter > 0:
		kn.expiresAt, kn.expires = now+spec.ExpireAfter-n.AgeAtStart, true
	}
	if kn.expires {
		kn.expireTimer = k.eng.After(max(kn.expiresAt-now, 0), engine.Event{Handler: k.id, Kind: evExpire, Obj: int32(id)})
	}
	k.base.NodeDirty(id)
	k.poolStat(p).NodeClaimsAdopted++
	k.stats.NodeClaimsAdopted++
	return id, nil
}
