package karpenter

import (
	"math"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// consolidation is what the consolidation methods (emptiness, multi-node,
// single-node) share: the disrupter, and the cluster state (its version)
// and time of the last pass in which the method found nothing to do (KC
// consolidation.markConsolidated).
type consolidation struct {
	d       *disrupter
	marked  bool
	version uint64
	at      engine.Time
}

func (c *consolidation) consolidationState() *consolidation { return c }
func (c *consolidation) class() disruptionClass             { return graceful }

// isConsolidated: nothing changed since the method last found nothing to
// do, and ConsolidationStateTTL has not passed.
func (c *consolidation) isConsolidated() bool {
	d := c.d
	return c.marked && c.version == d.version && d.eng.Now()-c.at < d.settings.ConsolidationStateTTL
}

func (c *consolidation) markConsolidated() {
	c.marked, c.version, c.at = true, c.d.version, c.d.eng.Now()
}

// underutilization is what single- and multi-node consolidation share:
// they disrupt consolidatable nodes with pods whose pool consolidates
// underutilized nodes, for the reason Underutilized.
type underutilization struct{ consolidation }

func (u *underutilization) shouldDisrupt(kn *knode, empty bool) bool {
	return !empty && kn.Pool.Spec.Disruption.Policy.ConsolidatesUnderutilized() && u.d.consolidatable(kn)
}
func (u *underutilization) reason() apis.Reason { return apis.ReasonUnderutilized }
func (u *underutilization) stat() string        { return reasonUnderutilized }

// consolidatable: consolidateAfter has passed since the node's last pod
// event (KC Consolidatable condition). A node that just became so does
// not change the consolidation state: upstream's cluster state marks
// itself unconsolidated on node, pod and NodePool changes, not on the
// condition (KC Cluster.triggerConsolidationOnChange), so a pass that
// found nothing is not repeated for it before the state's 5-minute
// expiry or another change.
func (d *disrupter) consolidatable(kn *knode) bool {
	if kn.Pool.Spec.Static {
		// Never consolidated (KC: static NodeClaims are not marked
		// Consolidatable, and every consolidation method skips them).
		kn.consolidatable = false
		return false
	}
	pa := kn.Pool.Spec.Disruption
	ok := !pa.ConsolidateNever && d.eng.Now()-kn.LastPodEvent >= pa.ConsolidateAfter
	kn.consolidatable = ok
	return ok
}

// earlyNo tells a consolidation what-if when it may stop because
// consolidate will answer no whatever the remaining pods do (at scale
// most what-ifs of a pass fail, and most fail early):
//   - with two NodeClaims (consolidation replaces with at most one);
//   - when every candidate is spot, spot-to-spot consolidation is off and
//     the first NodeClaim may launch spot: it keeps that spot offering
//     unless a pod requires a capacity type, or a topology group spreads
//     over capacity types, which rules this case out.
//
// The work counted (passTime) is that of the whole what-if, as upstream
// computes it whole.
func (d *disrupter) earlyNo(s *scheduling.Solver, cs []*candidate, sets []*scheduling.PodSet) {
	if whatIfHooks.full {
		return
	}
	s.StopAtTwo = true
	if d.settings.SpotToSpotConsolidation {
		return
	}
	for _, c := range cs {
		if c.kn.Offering.CapacityType != cluster.Spot {
			return
		}
	}
	for _, ps := range sets {
		if ps.NamesCapacityType {
			return
		}
	}
	for _, g := range s.Topology.Inverse {
		if g.Key == d.cl.KeyCapacityType {
			return
		}
	}
	s.StopAtSpot, s.SpotBits = true, d.offerings.CapacityTypeBits(scheduling.SpotIndex)
}

// whatIfHooks are test hooks on the early verdicts of consolidation
// what-ifs (earlyNo, doomed.go), zero in a run. They are package state
// rather than fields so the controller carries no test state; only tests
// that do not run in parallel set them, through export_test.go, and
// reset them when done.
var whatIfHooks struct {
	// full turns the early verdicts off: every what-if is computed whole,
	// and every provisioning batch is solved, even one the same as the last
	// (sameAsLastBatch). Tests check this changes nothing.
	full bool
	// verifyDoomed is told, for each what-if doomed skips, whether
	// computing it whole fails.
	verifyDoomed func(failed bool)
}

// consolidate computes a consolidation of the candidates (KC
// computeConsolidation): delete them if their pods fit elsewhere, or
// replace them with one cheaper node.
func (d *disrupter) consolidate(m method, cs []*candidate) *command {
	if d.doomed(cs) {
		if verify := whatIfHooks.verifyDoomed; verify != nil {
			// Tests: the what-if computed whole must agree. Its work is
			// not counted twice: the pass takes the time it would take.
			work := d.work
			whatIfHooks.full = true
			verify(d.consolidate(m, cs) == nil)
			whatIfHooks.full = false
			d.work = work
		}
		// Counted as computed, as simulate counts it.
		for _, c := range cs {
			d.work += int64(len(c.pods))
		}
		d.work += int64(len(d.provisionableSet().Pods))
		d.earlyStops++
		return nil
	}
	s := d.simulate(cs, forConsolidation)
	defer d.solvers.Recycle(s)
	if s.Decided {
		d.earlyStops++
		return nil
	}
	if !d.allMovedScheduled(s) {
		return nil
	}
	switch len(s.Claims) {
	case 0:
		return &command{method: m, cands: cs}
	case 1:
	default:
		return nil
	}
	c := s.Claims[0]
	d.solvers.SortedOptions(c)
	price := 0.0
	allSpot := true
	for _, cd := range cs {
		price += cd.price
		allSpot = allSpot && cd.kn.Offering.CapacityType == cluster.Spot
	}
	spotBits := d.offerings.CapacityTypeBits(scheduling.SpotIndex)
	if allSpot && c.OfferingMask&spotBits != 0 {
		return d.spotToSpot(m, cs, c, price)
	}
	d.filterByPrice(c, price)
	if len(c.Options) == 0 {
		return nil
	}
	if c.OfferingMask&spotBits != 0 && c.OfferingMask&d.offerings.CapacityTypeBits(scheduling.OnDemandIndex) != 0 {
		// On-demand replaced by a pool that allows spot: replace with spot
		// only, so a spot shortage fails the launch instead of buying a
		// dearer on-demand node.
		d.restrictToSpot(c)
		if len(c.Options) == 0 {
			return nil
		}
	}
	return d.replaceCommand(m, cs, c)
}

func (d *disrupter) replaceCommand(m method, cs []*candidate, c *scheduling.Claim) *command {
	return &command{method: m, cands: cs, replacements: []*scheduling.Claim{c}, optTypes: d.optTypes(c)}
}

func (d *disrupter) optTypes(c *scheduling.Claim) []int32 {
	out := make([]int32, len(c.Options))
	for i, pos := range c.Options {
		out[i] = c.Pool.Types[pos].Type.Index
	}
	return out
}

// filterByPrice keeps the instance types whose worst launch price is below
// the price of what they replace (KC RemoveInstanceTypeOptionsByPriceAndMinValues).
func (d *disrupter) filterByPrice(c *scheduling.Claim, price float64) {
	kept := c.Options[:0]
	for _, pos := range c.Options {
		if d.offerings.WorstLaunchPrice(c.Pool, c.Pool.Types[pos].Type, c.OfferingMask) < price {
			kept = append(kept, pos)
		}
	}
	c.Options = kept
}

func (d *disrupter) restrictToSpot(c *scheduling.Claim) {
	c.Requirements = c.Requirements.With(d.cl.Syms, scheduling.RequirementIn(d.cl.KeyCapacityType, d.offerings.CapacityTypeSyms[scheduling.SpotIndex]))
	c.OfferingMask &= d.offerings.CapacityTypeBits(scheduling.SpotIndex)
	kept := c.Options[:0]
	for _, pos := range c.Options {
		if d.offerings.Cheapest(c.Pool, c.Pool.Types[pos].Type, c.OfferingMask) < math.Inf(1) {
			kept = append(kept, pos)
		}
	}
	c.Options = kept
}

// spotToSpot applies the spot-to-spot rules: the feature gate, and for a
// single node at least SpotToSpotMinTypes cheaper types, of which the
// cheapest SpotToSpotMinTypes are kept.
func (d *disrupter) spotToSpot(m method, cs []*candidate, c *scheduling.Claim, price float64) *command {
	if !d.settings.SpotToSpotConsolidation {
		return nil
	}
	d.restrictToSpot(c)
	d.filterByPrice(c, price)
	if len(c.Options) == 0 {
		return nil
	}
	if len(cs) > 1 {
		return d.replaceCommand(m, cs, c)
	}
	if len(c.Options) < d.settings.SpotToSpotMinTypes {
		return nil
	}
	c.Options = c.Options[:d.settings.SpotToSpotMinTypes]
	return d.replaceCommand(m, cs, c)
}

// filterOutSameType drops replacement types no cheaper than the cheapest
// candidate of the same type (KC filterOutSameInstanceType); false when
// nothing is left.
func (d *disrupter) filterOutSameType(cmd *command) bool {
	c := cmd.replacements[0]
	maxPrice := math.Inf(1)
	for _, pos := range c.Options {
		t := c.Pool.Types[pos].Type
		for _, cd := range cmd.cands {
			if cd.kn.InstanceType == t {
				maxPrice = min(maxPrice, cd.price)
			}
		}
	}
	d.filterByPrice(c, maxPrice)
	cmd.optTypes = d.optTypes(c)
	return len(c.Options) > 0
}
