package simulation

import (
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	_ "github.com/clustersim/clustersim/sim/component/builtin"
)

// clusterAutoscaler is the run's Cluster Autoscaler (nil when it does not
// run).
func (s *Sim) clusterAutoscaler() *clusterautoscaler.Autoscaler {
	ca, _ := s.models[clusterautoscaler.Owner].(*clusterautoscaler.Autoscaler)
	return ca
}
