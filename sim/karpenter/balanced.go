package karpenter

import (
	"math"

	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// Balanced consolidation (KC disruption/balanced.go, v1.14+): a move of a
// Balanced pool's underutilized nodes is approved only when
//
//	(savings / pool cost) / (disruption cost / pool disruption cost) >= 1/k, k = 2
//
// Savings are $/h: the candidates' prices less the replacement's cheapest
// offering of its cheapest type (KC Command.EstimatedSavings). A node's
// disruption cost is 1 plus its pods' positive eviction costs (priority
// and deletion cost, evictionCost); the pool's sums are over all its
// nodes, candidates or not. Emptiness does not score: empty nodes go
// under every policy. Other policies approve every move.
//
// Simplified: upstream v1.15.0's cluster state leaves a node's pods out
// of its disruption cost for up to a minute after its NodeClaim changes
// (newStateFromNodeClaim drops podDisruptionCosts until each pod's next
// reconcile); ours always counts every pod, the settled state.

// poolTotals are a pool's denominators: the price of all its nodes ($/h)
// and the sum of their disruption costs.
type poolTotals struct{ cost, disruption float64 }

// poolScore is one Balanced pool's score of a move.
type poolScore struct {
	pool                *scheduling.Pool
	savings, disruption float64 // fractions of the pool's totals
	approved            bool
}

// score is savings over disruption, 0 without savings, +Inf without
// disruption (KC ScoreResult.Score).
func (s poolScore) score() float64 {
	switch {
	case s.savings <= 0:
		return 0
	case s.disruption == 0:
		return math.Inf(1)
	}
	return s.savings / s.disruption
}

// scoreMove scores savings ($/h) and disruption against a pool's totals;
// with a zero total nothing normalizes it and the move is not approved
// (KC ScoreMove returns a zero result).
func scoreMove(pool *scheduling.Pool, savings, disruption float64, t poolTotals) poolScore {
	s := poolScore{pool: pool}
	if t.cost <= 0 || t.disruption <= 0 {
		return s
	}
	s.savings, s.disruption = savings/t.cost, disruption/t.disruption
	s.approved = s.score() >= 1.0/apis.BalancedK
	return s
}

// hasBalanced reports whether any pool is Balanced (nothing is scored
// otherwise).
func (d *disrupter) hasBalanced() bool {
	for _, p := range d.pools.All {
		if p.Spec.Disruption.Policy == apis.Balanced {
			return true
		}
	}
	return false
}

// balancedTotals returns the Balanced pools' totals, computed once per
// pass: every live node of the pool counts, a scanned one with its scan's
// cost (reschedulable pods), any other with all its pods but DaemonSets'
// (KC computeNodePoolTotals: candidates' RescheduleDisruptionCost, other
// nodes' StateNode.DisruptionCost; the pool cost is ClusterCost's, every
// NodeClaim with its offering's price).
func (d *disrupter) balancedTotals() map[*scheduling.Pool]poolTotals {
	if d.pass.on && d.pass.totals != nil {
		return d.pass.totals
	}
	scanned := map[*knode]float64{}
	for _, ns := range d.nodeScans() {
		scanned[ns.kn] = ns.cost
	}
	out := map[*scheduling.Pool]poolTotals{}
	for _, kn := range d.nodes.live {
		if kn.Pool.Spec.Disruption.Policy != apis.Balanced {
			continue
		}
		t := out[kn.Pool]
		t.cost += d.offerings.NodePrice(&kn.Node)
		if c, ok := scanned[kn]; ok {
			t.disruption += c
		} else {
			t.disruption += d.nodeDisruptionCost(kn)
		}
		out[kn.Pool] = t
	}
	if d.pass.on {
		d.pass.totals = out
	}
	return out
}

// nodeDisruptionCost is a node's disruption cost from all its pods but
// DaemonSets' (KC StateNode.DisruptionCost).
func (d *disrupter) nodeDisruptionCost(kn *knode) float64 {
	c := baseDisruptionCost
	if kn.ID < 0 || int(kn.ID) >= len(d.cl.Nodes) {
		return c
	}
	n := &d.cl.Nodes[kn.ID]
	for i := range n.Pods {
		if r := &n.PodRefs[i]; !r.Spec.DaemonSet {
			c += max(0, evictionCost(r.Spec))
		}
	}
	return c
}

// canPassThreshold reports whether deleting the candidate outright, the
// best any move of it can do, would be approved (KC CanPassThreshold);
// true outside Balanced pools.
func (d *disrupter) canPassThreshold(c *candidate) bool {
	if c.kn.Pool.Spec.Disruption.Policy != apis.Balanced {
		return true
	}
	t, ok := d.balancedTotals()[c.kn.Pool]
	if !ok || t.cost <= 0 {
		return true
	}
	return scoreMove(c.kn.Pool, c.price, c.cost, t).approved
}

// approve scores a consolidation command in each Balanced pool of its
// candidates and approves it when every one does (KC
// EvaluateBalancedMove); the scores are kept on the command for its
// events. A move across pools splits its savings by the pools' share of
// the candidates' price.
func (d *disrupter) approve(cmd *command) bool {
	if !d.hasBalanced() {
		return true
	}
	var source float64
	byPool := map[*scheduling.Pool][]*candidate{}
	var order []*scheduling.Pool
	for _, c := range cmd.cands {
		source += c.price
		if _, ok := byPool[c.kn.Pool]; !ok {
			order = append(order, c.kn.Pool)
		}
		byPool[c.kn.Pool] = append(byPool[c.kn.Pool], c)
	}
	savings := source - d.replacementPrice(cmd)
	totals := d.balancedTotals()
	ok := true
	cmd.scores = cmd.scores[:0]
	for _, p := range order {
		if p.Spec.Disruption.Policy != apis.Balanced {
			continue
		}
		var price, disruption float64
		for _, c := range byPool[p] {
			price += c.price
			disruption += c.cost
		}
		poolSavings := savings
		if len(byPool) > 1 && source > 0 {
			poolSavings = savings * price / source
		}
		s := scoreMove(p, poolSavings, disruption, totals[p])
		cmd.scores = append(cmd.scores, s)
		ok = ok && s.approved
	}
	if len(cmd.scores) > 0 {
		if ok {
			d.stats.BalancedApproved++
		} else {
			d.stats.BalancedRejected++
		}
	}
	return ok
}

// replacementPrice is what the command's replacements cost ($/h): each
// one's cheapest offering of its first (cheapest) instance type (KC
// EstimatedSavings: InstanceTypeOptions[0], its cheapest launchable
// compatible offering).
func (d *disrupter) replacementPrice(cmd *command) float64 {
	var p float64
	for _, c := range cmd.replacements {
		if len(c.Options) == 0 {
			continue
		}
		if v := d.offerings.Cheapest(c.Pool, c.Pool.Types[c.Options[0]].Type, c.OfferingMask); !math.IsInf(v, 1) {
			p += v
		}
	}
	return p
}
