package cluster

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
	VolumeMismatch                // VolumeBinding, VolumeZone: the pod's volumes cannot be used in the node's zone
)

var mismatchNames = [...]string{"fits", "node is cordoned", "spec.nodeName names another node",
	"untolerated taint", "node affinity/selector does not match", "insufficient resources",
	"its volumes cannot be used in the node's zone"}

func (m Mismatch) String() string { return mismatchNames[m] }

// StaticFit runs the filters that do not depend on other pods (cordon,
// node name, taints, node affinity, resources against free, the zone of
// the pod's volumes) for a node
// that may not exist yet: the autoscalers' and lint's question "would this
// pod fit on a node like this?". The scheduler's NodeUnschedulable,
// NodeName, TaintToleration and NodeAffinity plugins ask the same
// questions through the same matchers (Tolerations, MatchesNodeSelectors),
// so the models can never disagree. With free nil the resource check is
// skipped.
func StaticFit(syms *Symbols, spec *PodSpec, n *Node, free *Resources) (Mismatch, Taint) {
	return staticFit(syms, spec, n, free, true)
}

// StaticFitAnyNode is StaticFit without spec.nodeName: the autoscalers'
// question for a bound pod they would move. spec.nodeName places a pod on
// its first node only; once the pod is bound it is a bound pod like any
// other, and neither Karpenter's scheduling simulation (its requirements
// ignore nodeName) nor the Cluster Autoscaler's (it clears nodeName before
// findPlaceFor) keeps it there. Pending pods with spec.nodeName are not
// the autoscalers' to place (KC IsProvisionable: not IsScheduled).
func StaticFitAnyNode(syms *Symbols, spec *PodSpec, n *Node, free *Resources) (Mismatch, Taint) {
	return staticFit(syms, spec, n, free, false)
}

func staticFit(syms *Symbols, spec *PodSpec, n *Node, free *Resources, byName bool) (Mismatch, Taint) {
	if n.Unschedulable {
		t := Taint{Key: syms.Intern("node.kubernetes.io/unschedulable"), Effect: EffectNoSchedule}
		if !spec.Tolerations.Tolerate(t) {
			return Cordoned, Taint{}
		}
	}
	if byName && spec.NodeName != "" && spec.NodeName != n.Name {
		return WrongNodeName, Taint{}
	}
	if t, bad := spec.Tolerations.FirstUntolerated(n.Taints); bad {
		return UntoleratedTaint, t
	}
	if !MatchesNodeSelectors(syms, spec, n) {
		return NodeSelectorMismatch, Taint{}
	}
	if free != nil && !spec.Requests.Fits(*free) {
		return Insufficient, Taint{}
	}
	if spec.Volume != nil && spec.Volume.Check(n.Zone) != VolumesFit {
		return VolumeMismatch, Taint{}
	}
	return Fits, Taint{}
}
