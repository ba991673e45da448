package karpenter

import (
	"github.com/clustersim/clustersim/sim/karpenter/apis"

	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// method is one disruption method (KC disruption.Method). The disrupter
// tries its methods in order (disrupter.methods): repair (repair.go, with
// the NodeRepair gate), emptiness (emptiness.go),
// static drift (staticdrift.go), drift (drift.go), multi-node and single-node consolidation
// (multinode.go, singlenode.go). Expiration and interruption are not
// methods: they delete nodes forcefully, outside the disruption loop and
// its budgets (terminator.go).
type method interface {
	// shouldDisrupt reports whether a scanned node is a candidate of the
	// method; empty: no reschedulable pod of it adds to its disruption
	// cost (KC Candidate.IsEmpty: a pod whose eviction cost clamps to 0,
	// a very negative priority or deletion cost, leaves a node empty).
	shouldDisrupt(kn *knode, empty bool) bool
	// computeCommand picks the method's command among its candidates
	// within the budgets (per pool, consumed as it goes); nil: none.
	computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command
	// reason selects the NodePools' budgets that apply; stat is the
	// reason the report counts the disrupted nodes under.
	reason() apis.Reason
	stat() string
	// name is the method as the disruptionCommand entries name it.
	name() string
	// class: eventual methods may take nodes that do-not-disrupt pods or
	// PodDisruptionBudgets block when their pool has a
	// terminationGracePeriod (KC EventualDisruptionClass).
	class() disruptionClass
	// consolidationState is the method's consolidation state, nil for a
	// method that is not consolidation (drift): it runs whether or not
	// the cluster changed, and its commands start without validation.
	consolidationState() *consolidation
	// validate re-checks a command after CommandValidationDelay, given
	// its candidates as they are now (fresh), all still candidates
	// within budget (validation.go).
	validate(cmd *command, fresh []*candidate) bool
}

// disruptionClass says whether a method waits for blocked nodes
// (graceful) or takes them when a grace period bounds the wait
// (eventual).
type disruptionClass uint8

const (
	graceful disruptionClass = iota
	eventual
	// repairClass: repair takes blocked nodes when a grace period bounds
	// the wait, as eventual, and ignores the node's and its pool's
	// do-not-disrupt (KC RepairDisruptionClass).
	repairClass
)

// newMethods returns the methods in the order a pass tries them.
func newMethods(d *disrupter) []method {
	var ms []method
	if d.settings.NodeRepair {
		// Repair runs first (KC NewMethods), only with its gate.
		ms = append(ms, &repair{d: d})
	}
	return append(ms,
		&emptiness{consolidation{d: d}},
		&staticDrift{d: d},
		&drift{d: d},
		&multiNode{underutilization{consolidation{d: d}}},
		&singleNode{underutilization: underutilization{consolidation{d: d}}},
	)
}
