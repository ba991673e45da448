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
	// LastPodEvent is status.lastPodEventTime (engine time; negative for
	// an adopted node's before the run), when one was recorded.
	LastPodEvent    engine.Time
	HasLastPodEvent bool
}

// NodeClaim returns the NodeClaim behind node id, if Karpenter owns it.
func (k *Karpenter) NodeClaim(id cluster.NodeID) (NodeClaimView, bool) {
	if int(id) < 0 || int(id) >= len(k.nodes.byID) || k.nodes.byID[id] == nil {
		return NodeClaimView{}, false
	}
	kn := k.nodes.byID[id]
	return NodeClaimView{NodePool: kn.Pool.Spec.Name, NodeClassRef: kn.Pool.Spec.NodeClassRef,
		Capacity: kn.Capacity, Initialized: kn.Initialized, Deleting: kn.Deleting,
		LastPodEvent: kn.LastPodEvent, HasLastPodEvent: kn.podEventSet}, true
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
