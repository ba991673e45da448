package scenario

import (
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	_ "github.com/clustersim/clustersim/sim/component/builtin"
	"github.com/clustersim/clustersim/sim/karpenter"
)

// kpConfig is Karpenter's configuration in the scenario (empty when
// Karpenter does not run).
func kpConfig(sc *Scenario) *karpenter.Config {
	if c := karpenter.ConfigIn(sc.Components); c != nil {
		return c
	}
	return &karpenter.Config{}
}

// caConfig is the Cluster Autoscaler's configuration in the scenario
// (empty when it does not run).
func caConfig(sc *Scenario) *clusterautoscaler.Config {
	if c := clusterautoscaler.ConfigIn(sc.Components); c != nil {
		return c
	}
	return &clusterautoscaler.Config{}
}
