package scheduler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Mismatch says why a pod cannot run on a node for reasons that do not
// depend on other pods.
type Mismatch uint8

// Static mismatches, in the scheduler's filter order.
const (
	Fits                 Mismatch = iota
	Cordoned                      // NodeUnschedulable
	WrongNodeName                 // NodeName
	UntoleratedTaint              // TaintToleration
	NodeSelectorMismatch          // NodeAffinity
	Insufficient                  // NodeResourcesFit
)

var mismatchNames = [...]string{"fits", "node is cordoned", "spec.nodeName names another node",
	"untolerated taint", "node affinity/selector does not match", "insufficient resources"}

func (m Mismatch) String() string { return mismatchNames[m] }

// StaticFit runs the filters that do not depend on other pods (cordon,
// node name, taints, node affinity, resources against free) for a node
// that may not exist yet: the autoscalers' question "would this pod fit on
// a node like this?". It is the same logic as the scheduler's plugins, so
// the two can never disagree. With free nil the resource check is skipped.
func StaticFit(syms *cluster.Symbols, spec *cluster.PodSpec, n *cluster.Node, free *cluster.Resources) (Mismatch, cluster.Taint) {
	if n.Unschedulable {
		t := cluster.Taint{Key: syms.Intern("node.kubernetes.io/unschedulable"), Effect: cluster.EffectNoSchedule}
		if !spec.Tolerations.Tolerate(t) {
			return Cordoned, cluster.Taint{}
		}
	}
	if spec.NodeName != "" && spec.NodeName != n.Name {
		return WrongNodeName, cluster.Taint{}
	}
	if t, bad := spec.Tolerations.FirstUntolerated(n.Taints); bad {
		return UntoleratedTaint, t
	}
	if !MatchesNodeSelectors(syms, spec, n) {
		return NodeSelectorMismatch, cluster.Taint{}
	}
	if free != nil && !spec.Requests.Fits(*free) {
		return Insufficient, cluster.Taint{}
	}
	return Fits, cluster.Taint{}
}
