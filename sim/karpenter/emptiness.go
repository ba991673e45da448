package karpenter

import (
	"github.com/clustersim/clustersim/sim/karpenter/apis"

	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// emptiness deletes consolidatable nodes without reschedulable pods, as
// many as the budgets allow, best savings first (KC Emptiness).
type emptiness struct{ consolidation }

func (e *emptiness) shouldDisrupt(kn *knode, empty bool) bool {
	// A node the last provisioning solve put virtual buffer pods on is
	// not empty (KC Emptiness.ShouldDisrupt: HasBufferPods).
	return empty && kn.bufferPods == 0 && e.d.consolidatable(kn)
}

func (e *emptiness) computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command {
	take, constrained := withinBudget(budget, cs)
	if len(take) == 0 {
		if !constrained {
			e.markConsolidated()
		}
		return nil
	}
	return &command{method: e, cands: take}
}

// validate: the candidates are still empty candidates within budget.
func (e *emptiness) validate(*command, []*candidate) bool { return true }

func (e *emptiness) reason() apis.Reason { return apis.ReasonEmpty }
func (e *emptiness) stat() string        { return reasonEmpty }
func (e *emptiness) name() string        { return "emptiness" }
