package karpenter

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

// poolUsage is what a pool's nodes use against its limits.
type poolUsage struct {
	capacity cluster.Resources
	nodes    int64
}

// usages returns the usage of every pool with limits.
func (np *nodePools) usages() map[*pool]poolUsage {
	out := map[*pool]poolUsage{}
	for _, p := range np.all {
		if p.spec.Limits.Any() {
			out[p] = poolUsage{}
		}
	}
	if len(out) == 0 {
		return out
	}
	for _, kn := range np.nodes.live {
		if kn.deleting || kn.inCommand || np.cl.Nodes[kn.id].State == cluster.NodeGone {
			continue
		}
		u, ok := out[kn.pool]
		if !ok {
			continue
		}
		u.capacity = u.capacity.Add(kn.capacity)
		u.nodes++
		out[kn.pool] = u
	}
	return out
}

// launchAllowed reports whether a NodeClaim of p may be created given
// the usage before its batch (KC Limits.ExceededBy).
func launchAllowed(p *pool, usage map[*pool]poolUsage) bool {
	u, ok := usage[p]
	if !ok {
		return true
	}
	l := &p.spec.Limits
	if l.Nodes >= 0 && u.nodes > l.Nodes {
		return false
	}
	for r, has := range l.Has {
		if has && u.capacity[r] > l.Max[r] {
			return false
		}
	}
	return true
}
