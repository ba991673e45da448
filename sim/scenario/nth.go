package scenario

import (
	"fmt"

	caconfig "github.com/clustersim/clustersim/sim/clusterautoscaler/config"
)

// terminationHandler finds aws-node-termination-handler among the
// manifests (a DaemonSet or Deployment running its image) unless
// spec.clusterAutoscaler.nodeTerminationHandler sets it; an info line says
// what was found. It stays a workload: its pods are real pods.
func (l *loader) terminationHandler(settings *caconfig.Settings) {
	if settings.TerminationHandlerSet {
		return
	}
	for _, d := range l.order {
		h, ok := caconfig.FindTerminationHandler(d)
		if !ok {
			continue
		}
		if settings.TerminationHandler.Mode != caconfig.NTHNone {
			l.warn(d, "", "a second aws-node-termination-handler (the first is %s): ignored", settings.TerminationHandler.Source)
			continue
		}
		settings.TerminationHandler = h
		what := "drains a self-managed node group's spot nodes on their interruption notice"
		if h.Mode == caconfig.NTHQueue {
			what = "drains a self-managed node group's spot nodes on interruption notices, rebalance recommendations and the ASG's terminations (queue processor)"
		}
		l.warns = append(l.warns, Warning{File: d.File, Line: d.Line, Info: true,
			Msg: fmt.Sprintf("%s runs aws-node-termination-handler (%s mode): it %s; set spec.clusterAutoscaler.nodeTerminationHandler to override", d.Ref(), h.Mode, what)})
	}
}
