package karpenter

import (
	"sort"

	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// singleNode consolidates one node: the first candidate, pools taken in
// turn, whose pods fit elsewhere or on one cheaper replacement (KC
// SingleNodeConsolidation).
type singleNode struct {
	underutilization
	// unseenPools: the pools a timed-out pass did not reach; the next
	// passes take them first (KC PreviouslyUnseenNodePools, kept until the
	// next timeout).
	unseenPools map[*scheduling.Pool]bool
}

func (sn *singleNode) name() string { return "single-node consolidation" }

// validate: the consolidation still holds.
func (sn *singleNode) validate(cmd *command, fresh []*candidate) bool {
	return sn.d.stillConsolidates(cmd, fresh, false)
}

func (sn *singleNode) computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command {
	d := sn.d
	mixed := sn.interleave(cs)
	// The pools this pass has not reached yet (KC unseenNodePools).
	unseen := map[*scheduling.Pool]bool{}
	for _, c := range mixed {
		unseen[c.kn.Pool] = true
	}
	constrained := false
	work0 := d.work
	for _, c := range mixed {
		if d.timedOut(work0, d.settings.SingleNodeConsolidationTimeout) {
			// Not marked consolidated; the pools not reached go first
			// next time (KC PreviouslyUnseenNodePools).
			sn.unseenPools = unseen
			return nil
		}
		delete(unseen, c.kn.Pool)
		if budget[c.kn.Pool] == 0 {
			constrained = true
			continue
		}
		// A Balanced pool's candidate whose outright deletion would not
		// score enough is not tried (KC CanPassThreshold).
		if !d.canPassThreshold(c) {
			continue
		}
		if cmd := d.consolidate(sn, []*candidate{c}); cmd != nil && d.approve(cmd) {
			return cmd
		}
	}
	if !constrained {
		sn.markConsolidated()
	}
	return nil
}

// interleave orders single-node candidates (KC SortCandidates): by
// savings ratio within each pool, then one from each pool in turn. Pools
// that a timed-out pass never reached come first; pools are otherwise in
// name order (upstream takes them in map order).
func (sn *singleNode) interleave(cs []*candidate) []*candidate {
	sortByRatio(cs)
	byPool := map[*scheduling.Pool][]*candidate{}
	var order []*scheduling.Pool
	for _, c := range cs {
		if _, ok := byPool[c.kn.Pool]; !ok {
			order = append(order, c.kn.Pool)
		}
		byPool[c.kn.Pool] = append(byPool[c.kn.Pool], c)
	}
	unseen := sn.unseenPools
	sort.SliceStable(order, func(i, j int) bool {
		if ui, uj := unseen[order[i]], unseen[order[j]]; ui != uj {
			return ui
		}
		return order[i].Spec.Name < order[j].Spec.Name
	})
	mixed := make([]*candidate, 0, len(cs))
	for i := 0; len(mixed) < len(cs); i++ {
		for _, p := range order {
			if i < len(byPool[p]) {
				mixed = append(mixed, byPool[p][i])
			}
		}
	}
	return mixed
}
