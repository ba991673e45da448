package karpenter

import "github.com/clustersim/clustersim/sim/karpenter/scheduling"

// multiNode consolidates several nodes at once: the most candidates
// (within budget, best savings first, at most MultiNodeCandidates) whose
// pods fit elsewhere or on one cheaper replacement, found by binary
// search (KC MultiNodeConsolidation).
type multiNode struct{ underutilization }

func (mn *multiNode) name() string { return "multi-node consolidation" }

// validate: the consolidation still holds, and a replacement is still
// cheaper than the candidates of its own type.
func (mn *multiNode) validate(cmd *command, fresh []*candidate) bool {
	return mn.d.stillConsolidates(cmd, fresh, true)
}

func (mn *multiNode) computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command {
	d := mn.d
	ok, constrained := withinBudget(budget, cs)
	hi := min(len(ok), d.settings.MultiNodeCandidates)
	var best *command
	if len(ok) >= 2 {
		lo := 1
		if len(ok) <= hi {
			hi = len(ok) - 1
		}
		work0 := d.work
		for lo <= hi {
			if d.timedOut(work0, d.settings.MultiNodeConsolidationTimeout) {
				// Upstream keeps the best command found so far and does
				// not mark the cluster consolidated.
				return best
			}
			mid := (lo + hi) / 2
			cmd := d.consolidate(mn, ok[:mid+1])
			if cmd != nil && len(cmd.replacements) == 1 && !d.filterOutSameType(cmd) {
				cmd = nil
			}
			if cmd != nil && !d.approve(cmd) { // Balanced pools score the move
				cmd = nil
			}
			if cmd != nil {
				best = cmd
				lo = mid + 1
			} else {
				hi = mid - 1
			}
		}
	}
	if best == nil && !constrained {
		mn.markConsolidated()
	}
	return best
}
