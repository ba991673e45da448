package scheduling

import "github.com/clustersim/clustersim/sim/cluster"

// NodePool limits are enforced twice, as in KC:
//
//   - by the solve (scheduler.go addToNewNodeClaim): a pool whose node
//     limit its existing nodes already reach gets no new NodeClaim, and
//     instance types whose capacity exceeds what is left of a resource
//     limit are filtered out; every new NodeClaim then subtracts the
//     largest capacity among its options (subtractMax). Instance types
//     have no "nodes" capacity, so new NodeClaims never lower what is
//     left of a node limit: a batch may create more NodeClaims than the
//     limit allows;
//   - when a NodeClaim is created (provisioner.go Create): refused if the
//     pool's usage already exceeds a limit (usage > limit, strictly). The
//     NodeClaims of one batch (or of one disruption command) are created
//     in parallel and the cluster state learns of them through its
//     informer, so each sees the usage from before the batch.
//
// Usage counts the pool's nodes that are not being deleted: their
// capacity and one node each (KC state.Cluster nodePoolResources; a node
// marked for deletion counts 0).

// PoolUsage is what a pool's nodes use against its limits.
type PoolUsage struct {
	// Capacity is the pool's nodes' capacity summed, per resource.
	Capacity cluster.Resources
	// Nodes counts the pool's nodes.
	Nodes int64
}

// Usages returns the usage of every pool with limits.
func (np *NodePools) Usages() map[*Pool]PoolUsage {
	out := map[*Pool]PoolUsage{}
	for _, p := range np.All {
		if p.Spec.Limits.Any() {
			out[p] = PoolUsage{}
		}
	}
	if len(out) == 0 {
		return out
	}
	for _, kn := range np.nodes.live {
		if kn.Deleting || kn.InCommand || np.cl.Nodes[kn.ID].State == cluster.NodeGone {
			continue
		}
		u, ok := out[kn.Pool]
		if !ok {
			continue
		}
		u.Capacity = u.Capacity.Add(kn.Capacity)
		u.Nodes++
		out[kn.Pool] = u
	}
	return out
}

// LaunchAllowed reports whether a NodeClaim of p may be created given
// the usage before its batch (KC Limits.ExceededBy).
func LaunchAllowed(p *Pool, usage map[*Pool]PoolUsage) bool {
	u, ok := usage[p]
	if !ok {
		return true
	}
	l := &p.Spec.Limits
	if l.Nodes >= 0 && u.Nodes > l.Nodes {
		return false
	}
	for r, has := range l.Has {
		if has && u.Capacity[r] > l.Max[r] {
			return false
		}
	}
	return true
}
