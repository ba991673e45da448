package scheduler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Plugin names, as in the upstream scheduler configuration.
const (
	NameNodeUnschedulable  = "NodeUnschedulable"
	NameNodeName           = "NodeName"
	NameTaintToleration    = "TaintToleration"
	NameNodeAffinity       = "NodeAffinity"
	NameNodeResourcesFit   = "NodeResourcesFit"
	NameBalancedAllocation = "NodeResourcesBalancedAllocation"
	NamePodTopologySpread  = "PodTopologySpread"
	NameInterPodAffinity   = "InterPodAffinity"
)

// nodeUnschedulable filters cordoned nodes unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint.
type nodeUnschedulable struct {
	reason Reason
	taint  cluster.Taint
}

var _ FilterPlugin = (*nodeUnschedulable)(nil)

func newNodeUnschedulable(h Handle, _ PluginArgs) (Plugin, error) {
	return &nodeUnschedulable{
		reason: h.Reason("node(s) were unschedulable", Unresolvable),
		taint:  cluster.Taint{Key: h.Cluster().Syms.Intern("node.kubernetes.io/unschedulable"), Effect: cluster.EffectNoSchedule},
	}, nil
}

func (p *nodeUnschedulable) Name() string  { return NameNodeUnschedulable }
func (p *nodeUnschedulable) Events() Event { return EvNodeAdd | EvNodeUpdate }

func (p *nodeUnschedulable) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if n.Unschedulable && !cs.Spec.Tolerations.Tolerate(p.taint) {
		return p.reason
	}
	return Pass
}

// nodeName filters every node but the one spec.nodeName names.
type nodeName struct{ reason Reason }

var _ FilterPlugin = (*nodeName)(nil)

func newNodeName(h Handle, _ PluginArgs) (Plugin, error) {
	return &nodeName{reason: h.Reason("node(s) didn't match the requested node name", Unresolvable)}, nil
}

func (p *nodeName) Name() string  { return NameNodeName }
func (p *nodeName) Events() Event { return EvNodeAdd }

func (p *nodeName) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if cs.Spec.NodeName != "" && cs.Spec.NodeName != n.Name {
		return p.reason
	}
	return Pass
}

// taintToleration filters nodes with NoSchedule or NoExecute taints the pod
// does not tolerate, and scores by the number of intolerable
// PreferNoSchedule taints (fewer is better).
type taintToleration struct {
	h Handle
	// reason names no taint: upstream's has not since 1.35
	// (kubernetes#134740: taints may be sensitive).
	reason Reason
}

var (
	_ FilterPlugin     = (*taintToleration)(nil)
	_ normalizedScorer = (*taintToleration)(nil)
)

func newTaintToleration(h Handle, _ PluginArgs) (Plugin, error) {
	return &taintToleration{h: h, reason: h.Reason("node(s) had untolerated taint(s)", Unresolvable)}, nil
}

func (p *taintToleration) Name() string  { return NameTaintToleration }
func (p *taintToleration) Events() Event { return EvNodeAdd | EvNodeUpdate }

func (p *taintToleration) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if _, bad := cs.Spec.Tolerations.FirstUntolerated(n.Taints); bad {
		return p.reason
	}
	return Pass
}

func (p *taintToleration) Score(cs *CycleState, _ cluster.NodeID, n *cluster.Node) int64 {
	var count int64
	for _, t := range n.Taints {
		if t.Effect != cluster.EffectPreferNoSchedule {
			continue
		}
		// Only tolerations with an empty or PreferNoSchedule effect count
		// (k8s tainttoleration.getAllTolerationPreferNoSchedule).
		tolerated := false
		for i := range cs.Spec.Tolerations {
			tol := &cs.Spec.Tolerations[i]
			if (tol.Effect == cluster.EffectAny || tol.Effect == cluster.EffectPreferNoSchedule) && tol.Tolerates(t) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			count++
		}
	}
	return count
}

func (p *taintToleration) scoreAll(cs *CycleState, nodes []cluster.Node, feasible []cluster.NodeID, out []int64) {
	for i, nid := range feasible {
		n := &nodes[nid]
		if len(n.Taints) == 0 {
			out[i] = 0
			continue
		}
		out[i] = p.Score(cs, nid, n)
	}
}

// NormalizeScore reverses: the node with the most intolerable taints gets 0.
func (p *taintToleration) NormalizeScore(_ *CycleState, scores []int64) {
	normalize(scores, true)
}

// nodeAffinity filters by nodeSelector and required node affinity, and
// scores by the summed weights of matching preferred terms.
type nodeAffinity struct {
	syms   *cluster.Symbols
	reason Reason
}

var (
	_ FilterPlugin     = (*nodeAffinity)(nil)
	_ PreScorePlugin   = (*nodeAffinity)(nil)
	_ normalizedScorer = (*nodeAffinity)(nil)
)

func newNodeAffinity(h Handle, _ PluginArgs) (Plugin, error) {
	return &nodeAffinity{syms: h.Cluster().Syms, reason: h.Reason("node(s) didn't match Pod's node affinity/selector", Unresolvable)}, nil
}

func (p *nodeAffinity) Name() string  { return NameNodeAffinity }
func (p *nodeAffinity) Events() Event { return EvNodeAdd | EvNodeUpdate }

func (p *nodeAffinity) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if !cluster.MatchesNodeSelectors(p.syms, cs.Spec, n) {
		return p.reason
	}
	return Pass
}

func (p *nodeAffinity) PreScore(cs *CycleState, _ []cluster.NodeID) bool {
	return len(cs.Spec.Preferred) == 0
}

func (p *nodeAffinity) Score(cs *CycleState, _ cluster.NodeID, n *cluster.Node) int64 {
	var s int64
	for i := range cs.Spec.Preferred {
		if cs.Spec.Preferred[i].Term.Matches(p.syms, n.Labels, n.NameSym) {
			s += int64(cs.Spec.Preferred[i].Weight)
		}
	}
	return s
}

func (p *nodeAffinity) scoreAll(cs *CycleState, nodes []cluster.Node, feasible []cluster.NodeID, out []int64) {
	for i, nid := range feasible {
		out[i] = p.Score(cs, nid, &nodes[nid])
	}
}

func (p *nodeAffinity) NormalizeScore(_ *CycleState, scores []int64) {
	normalize(scores, false)
}

// normalize scales scores to 0..MaxNodeScore by the maximum, reversing if
// asked (k8s framework/plugins/helper.DefaultNormalizeScore).
func normalize(scores []int64, reverse bool) {
	var max int64
	for _, s := range scores {
		if s > max {
			max = s
		}
	}
	if max == 0 {
		if reverse {
			for i := range scores {
				scores[i] = MaxNodeScore
			}
		}
		return
	}
	for i, s := range scores {
		s = MaxNodeScore * s / max
		if reverse {
			s = MaxNodeScore - s
		}
		scores[i] = s
	}
}
