package props

import (
	// The in-tree components, registered as cmd/sim registers them.
	_ "github.com/clustersim/clustersim/sim/component/builtin"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/scenario"
)

// kpConfig is Karpenter's configuration in the scenario (empty when
// Karpenter does not run).
func kpConfig(sc *scenario.Scenario) *karpenter.Config {
	if c := karpenter.ConfigIn(sc.Components); c != nil {
		return c
	}
	return &karpenter.Config{}
}
