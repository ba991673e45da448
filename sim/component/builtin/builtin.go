// Package builtin registers the simulator's own components with
// sim/component: cmd/sim imports it for its side effect, and so does
// every test that loads a scenario. The order here numbers node owners
// and is the order the loader asks components in (a start node labelled
// for both a NodePool and a node group goes to the first); the order
// they are built in is the one list in package simulation.
package builtin

import (
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter"
)

func init() {
	component.Register(karpenter.Component)
	component.Register(clusterautoscaler.Component)
}
