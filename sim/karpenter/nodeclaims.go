package karpenter

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// NodeClaimView is what a NodeClaim of one of Karpenter's nodes says, for
// readers outside the model (a state dump). It is a copy: changing it
// changes nothing.
type NodeClaimView struct {
	NodePool     string
	NodeClassRef apis.NodeClassRef
	// Capacity is the node's capacity (status.capacity); the node's
	// Allocatable is status.allocatable.
	Capacity    cluster.Resources
	Initialized bool
	// Deleting: the NodeClaim is being deleted (tainted, draining).
	Deleting bool
	// InstanceTerminating: drained, its instance terminated since
	// InstanceTerminatingAt (the NodeClaim's InstanceTerminating
	// condition); the node goes at the next termination poll.
	InstanceTerminating   bool
	InstanceTerminatingAt engine.Time
	// LastPodEvent is status.lastPodEventTime (engine time; negative for
	// an adopted node's before the run), when one was recorded.
	LastPodEvent    engine.Time
	HasLastPodEvent bool
	// Drifted since DriftedAt (engine time; negative for an export's).
	Drifted   bool
	DriftedAt engine.Time
	// Hashes are Karpenter's hash annotations of the NodeClaim
	// (karpenter.sh/nodepool-hash, the EC2NodeClass's, and their
	// versions): an adopted node's from its export, a launched one's its
	// pool's and class's as the export had them (none without).
	Hashes map[string]string
	// ExpiresAt is when it expires (engine time; its own expireAfter from
	// its creation), if Expires.
	ExpiresAt engine.Time
	Expires   bool
}

// NodeClaim returns the NodeClaim behind node id, if Karpenter owns it.
func (k *Karpenter) NodeClaim(id cluster.NodeID) (NodeClaimView, bool) {
	if int(id) < 0 || int(id) >= len(k.nodes.byID) || k.nodes.byID[id] == nil {
		return NodeClaimView{}, false
	}
	kn := k.nodes.byID[id]
	v := NodeClaimView{NodePool: kn.Pool.Spec.Name, NodeClassRef: kn.Pool.Spec.NodeClassRef,
		Capacity: kn.Capacity, Initialized: kn.Initialized, Deleting: kn.Deleting,
		InstanceTerminating: kn.instanceEnded, InstanceTerminatingAt: kn.instanceEndedAt,
		LastPodEvent: kn.LastPodEvent, HasLastPodEvent: kn.podEventSet,
		ExpiresAt: kn.expiresAt, Expires: kn.expires}
	v.Drifted, v.DriftedAt = k.driftView(kn)
	v.Hashes = map[string]string{}
	if n := &k.cl.Nodes[id]; n.Adopted {
		for _, key := range []string{apis.NodePoolHashAnnotation, apis.NodePoolHashVersionAnnotation, apis.NodeClassHashAnnotation, apis.NodeClassHashVersionAnnotation} {
			if val, ok := n.Annotations[key]; ok {
				v.Hashes[key] = val
			}
		}
	} else {
		spec := kn.Pool.Spec
		for key, val := range map[string]string{apis.NodePoolHashAnnotation: spec.Exported.Hash, apis.NodePoolHashVersionAnnotation: spec.Exported.Version,
			apis.NodeClassHashAnnotation: spec.NodeClass.Exported.Hash, apis.NodeClassHashVersionAnnotation: spec.NodeClass.Exported.Version} {
			if val != "" {
				v.Hashes[key] = val
			}
		}
	}
	if len(v.Hashes) == 0 {
		v.Hashes = nil
	}
	return v, true
}

// NodePools returns the NodePools in force (after any scripted update),
// in name order. The specs are shared: read them, do not change them.
func (k *Karpenter) NodePools() []*apis.NodePool {
	out := make([]*apis.NodePool, len(k.pools.All))
	for i, p := range k.pools.All {
		out[i] = p.Spec
	}
	return out
}

// driftView is a node's Drifted condition as upstream's nodeclaim
// disruption controller keeps it, reconciling all the time: ours is
// checked when the drift method looks, so a view asks without recording.
func (k *Karpenter) driftView(kn *knode) (bool, engine.Time) {
	for _, m := range k.dis.methods {
		if dr, ok := m.(*drift); ok {
			return dr.driftNow(kn)
		}
	}
	return kn.drifted, kn.driftedAt
}
