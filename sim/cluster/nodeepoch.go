package cluster

// Node epochs: one change counter per node, shared by every model's
// per-node caches (the scheduler's static filter verdicts, Karpenter's and
// the Cluster Autoscaler's StaticFit verdicts, the Cluster Autoscaler's
// node flags). An answer computed from a node and stamped with its epoch
// holds while the epoch does.
//
// The epoch moves on every node notification, before the watchers hear of
// it: the node was added, became Ready, had its labels, taints or cordon
// changed, or was removed. That covers everything of a node that a cached
// answer reads other than its pods and room: name, labels, taints, cordon
// and state (name and allocatable never change after AddNode).
//
// Pods binding to or leaving a node do not move it: static verdicts do not
// depend on them, and binds are most of a run's changes, so moving the
// epoch on each would expire the verdicts for nothing. Caches of answers
// that read a node's pods or room (the scheduler's room epoch for its
// resource scores, the autoscalers' lists of nodes to look at again)
// follow the pod notifications themselves.

// NodeEpoch returns the node's change counter (see above). The node must
// exist (id < len(Nodes)).
func (c *Cluster) NodeEpoch(id NodeID) uint32 { return c.epochs[id] }

// nodeChanged moves the node's epoch and tells the watchers.
func (c *Cluster) nodeChanged(id NodeID, kind ChangeKind) {
	c.epochs[id]++
	c.notify(Change{Kind: kind, Pod: NoPod, Node: id})
}
