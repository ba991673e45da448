package karpenter

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// provisioner launches nodes for pods that do not fit (KC provisioning
// controller): it batches pending pods, solves, and launches the
// NodeClaims of the solve; it also follows a launch until the node is
// Ready or its registration times out.
type provisioner struct {
	env
	offerings *offerings
	nodes     *nodeTracker
	pools     *nodePools
	base      *existingBase
	solvers   *solvers
	dis       *disrupter
	term      *terminator

	betaKeys [5]cluster.Sym
	// pending are the pods the scheduler marked unschedulable.
	pending      map[cluster.PodID]bool
	batchOpen    bool
	batchStart   engine.Time
	idleTimer    engine.Timer
	maxTimer     engine.Timer
	requeueTimer engine.Timer
	lastBatch    struct {
		version, hash uint64
		allFailed     bool
	}
}
