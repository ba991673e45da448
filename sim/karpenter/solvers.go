package karpenter

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// solvers makes the solvers of provisioning batches and disruption
// what-ifs (KC provisioner.NewScheduler), and keeps what solves share:
// pod templates, the pod-independent filters' answers, free lists.
type solvers struct {
	env
	offerings *offerings
	nodes     *nodeTracker
	pools     *nodePools
	base      *existingBase
	dis       *disrupter

	nsLabels map[cluster.Sym]cluster.Labels
	solveSeq uint32
	podMark  []uint32 // per PodID: stamp of the last solve that moved it
	// Free lists of what-ifs' pod data, node copies and solvers (recycle).
	pdFree     []*podData
	pdsFree    []*podData
	exFree     []*exNode
	solverFree []*solver
	podStatics map[pdKey]*podStatic
	// placeholders are the interned placeholder hostnames by number.
	placeholders []cluster.Sym
	staticsAt    engine.Time
	specs        cluster.SpecClasses
	statics      map[staticKey]*cluster.NodeVerdicts
}
