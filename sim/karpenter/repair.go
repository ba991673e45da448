package karpenter

import (
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// repair replaces unhealthy nodes (KC disruption.Repair, v1.15.0, with
// the NodeRepair gate): a node whose unhealthy condition has lasted past
// the cloud provider's toleration for it (repairToleration) is a
// candidate, whatever do-not-disrupt its pool or the node carry; pods that
// do-not-disrupt or a PodDisruptionBudget keep block it unless its pool
// has a terminationGracePeriod (the AWS provider's policies set no drain
// bound of their own, so the NodeClaim's applies). Candidates go oldest
// eligibility first (KC's score rank + age/30 min, every AWS policy of
// rank 0), then lower disruption cost, then name. A pool with more than
// 20% of its nodes unhealthy (rounded up; KC repairUnhealthyThreshold,
// counting every node of the pool, whatever its toleration) is not
// repaired at all. The Unhealthy budget paces it, NotReady nodes not
// counting against that budget. One command a pass: the replacement the
// candidate's pods need (all of them, blocked ones too: KC
// IncludeBlockedCandidatePods) launched first, or a deletion when they
// fit elsewhere; a static pool's node by one NodeClaim of the pool, as
// static drift, deleted first at the pool's node limit only with the
// TerminateFirstRepair gate. Its commands start at once, without
// validation.
type repair struct{ d *disrupter }

// repairUnhealthyPercent is KC repairUnhealthyThreshold (20%).
const repairUnhealthyPercent = 20

// repairToleration is how long a condition must last before repair acts
// (KA CloudProvider.RepairPolicies): Ready False or Unknown 30 min,
// AcceleratedHardwareReady 10 min, the node monitoring agent's other
// conditions 30 min.
func repairToleration(c cluster.NodeCondition) time.Duration {
	if c == cluster.AcceleratedHardwareNotReady {
		return 10 * time.Minute
	}
	return 30 * time.Minute
}

// eligibleAt is when the node's condition passes its toleration, counted
// from its transition, no earlier than the node's creation (KC Match): a
// start node was created AgeAtStart before the start, and its condition
// may predate the start (an imported state).
func (r *repair) eligibleAt(n *cluster.Node) engine.Time {
	return max(n.ConditionSince, n.Launched-n.AgeAtStart) + repairToleration(n.Condition)
}

func (r *repair) shouldDisrupt(kn *knode, _ bool) bool {
	n := &r.d.cl.Nodes[kn.ID]
	return n.Condition != cluster.Healthy && r.d.eng.Now() >= r.eligibleAt(n)
}

func (r *repair) computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command {
	d := r.d
	nodes := d.cl.Nodes
	sort.SliceStable(cs, func(i, j int) bool {
		ei, ej := r.eligibleAt(&nodes[cs[i].kn.ID]), r.eligibleAt(&nodes[cs[j].kn.ID])
		if ei != ej {
			return ei < ej // the longest eligible repairs first
		}
		if cs[i].cost != cs[j].cost {
			return cs[i].cost < cs[j].cost
		}
		return nodes[cs[i].kn.ID].Name < nodes[cs[j].kn.ID].Name
	})
	tripped := r.trippedPools()
	for _, c := range cs {
		p := c.kn.Pool
		if tripped[p] {
			if !c.kn.repairBlocked {
				c.kn.repairBlocked = true
				d.stats.RepairsBlocked++
				d.poolStat(p).RepairsBlocked++
			}
			continue
		}
		// Budgets count initialized nodes only: repairing one that never
		// initialized neither needs nor takes budget (KC Repair).
		if budget[p] == 0 && c.kn.Initialized {
			continue
		}
		if p.Spec.Static {
			if cmd := r.staticCommand(c); cmd != nil {
				return cmd
			}
			continue
		}
		s := d.simulate([]*candidate{c}, forDrift)
		ok, claims := d.allMovedScheduled(s), s.Claims
		d.solvers.Recycle(s)
		if !ok {
			continue
		}
		return &command{method: r, cands: []*candidate{c}, replacements: claims}
	}
	return nil
}

// staticCommand is static drift's answer for an unhealthy node of a static
// pool: nil while a scale-down is under way or, without
// TerminateFirstRepair, when the pool is at its node limit.
func (r *repair) staticCommand(c *candidate) *command {
	d, p := r.d, c.kn.Pool
	n := d.static.counts(p)
	if n.active+n.pending > p.Spec.Replicas {
		return nil
	}
	if nodeLimit(p)-(n.active+n.deleting+n.pending) > 0 {
		return &command{method: r, cands: []*candidate{c}, replacements: []*scheduling.Claim{d.pools.StaticClaim(p)}}
	}
	if !d.settings.TerminateFirstRepair {
		return nil
	}
	return &command{method: r, cands: []*candidate{c}}
}

// trippedPools are the pools with more than 20% of their nodes unhealthy
// (KC breakerTrippedPools: every node labelled for the pool counts).
func (r *repair) trippedPools() map[*scheduling.Pool]bool {
	total := map[*scheduling.Pool]int{}
	unhealthy := map[*scheduling.Pool]int{}
	for _, kn := range r.d.nodes.live {
		total[kn.Pool]++
		if r.d.cl.Nodes[kn.ID].Condition != cluster.Healthy {
			unhealthy[kn.Pool]++
		}
	}
	var out map[*scheduling.Pool]bool
	for p, u := range unhealthy {
		if u > repairThreshold(total[p]) {
			if out == nil {
				out = map[*scheduling.Pool]bool{}
			}
			out[p] = true
		}
	}
	return out
}

// repairThreshold is 20% of n nodes, rounded up (intstr's
// GetScaledValueFromIntOrPercent with roundUp), in integers.
func repairThreshold(n int) int { return (n*repairUnhealthyPercent + 99) / 100 }

func (r *repair) reason() apis.Reason                { return apis.ReasonUnhealthy }
func (r *repair) stat() string                       { return reasonUnhealthy }
func (r *repair) name() string                       { return "repair" }
func (r *repair) class() disruptionClass             { return repairClass }
func (r *repair) consolidationState() *consolidation { return nil }

// validate is never asked: repair commands start at once.
func (r *repair) validate(*command, []*candidate) bool { return true }
