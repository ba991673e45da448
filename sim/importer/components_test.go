package importer

import (
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	_ "github.com/clustersim/clustersim/sim/component/builtin"
	"github.com/clustersim/clustersim/sim/scenario"
)

// caConfig is the Cluster Autoscaler's configuration in the scenario
// (empty when it does not run).
func caConfig(sc *scenario.Scenario) *clusterautoscaler.Config {
	if c := clusterautoscaler.ConfigIn(sc.Components); c != nil {
		return c
	}
	return &clusterautoscaler.Config{}
}
