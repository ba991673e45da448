package clusterautoscaler

import "github.com/clustersim/clustersim/sim/cluster"

// ScaleUpOption is one group a scale-up could grow: the nodes the
// binpacking estimate gives it and the pending pods they are for.
type ScaleUpOption struct {
	Group string // the node group's name
	Nodes int
	Pods  []cluster.PodID
}

// ScaleUpDecision is what a scale-up would decide now: every option the
// estimator found (in group order) and those the --expander chain keeps
// (Best, indexes into Options), among which the chain's random fallback
// picks. Pending holds the pods the scale-up considered (after those that
// fit existing and upcoming nodes were dropped).
type ScaleUpDecision struct {
	Pending []cluster.PodID
	Options []ScaleUpOption
	Best    []int
}

// DecideScaleUp runs the decision half of a loop's scale-up on the
// cluster as it is now, without acting on it: templates, the pending pods
// (the new-pod buffer is not waited for), the estimate per group and the
// expander chain. The caps a scale-up applies when it is carried out
// (--max-nodes-total, --cores-total, --memory-total) and balancing are not
// applied. It is the entry point of the upstream comparison
// (fidelity/ca); the simulation itself never calls it.
func (a *Autoscaler) DecideScaleUp() ScaleUpDecision {
	var d ScaleUpDecision
	groups, opts, _ := a.orch.scaleUpOptions(a.eng.Now(), false)
	for _, pg := range groups {
		d.Pending = append(d.Pending, pg.pods...)
	}
	index := make(map[*option]int, len(opts))
	for i, o := range opts {
		index[o] = i
		d.Options = append(d.Options, ScaleUpOption{Group: o.g.cfg.Name, Nodes: o.est.nodes, Pods: append([]cluster.PodID(nil), o.est.pods...)})
	}
	if len(opts) > 0 {
		for _, o := range a.exp.bestOptions(opts) {
			d.Best = append(d.Best, index[o])
		}
	}
	return d
}
