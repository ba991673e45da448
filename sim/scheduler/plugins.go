package scheduler

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Plugin names, as in the upstream scheduler configuration.
const (
	NameNodeUnschedulable = "NodeUnschedulable"
	NameNodeName          = "NodeName"
	NameTaintToleration   = "TaintToleration"
	NameNodeAffinity      = "NodeAffinity"
	NameNodeResourcesFit  = "NodeResourcesFit"
)

// Scoring strategies of NodeResourcesFit.
const (
	LeastAllocated = "LeastAllocated"
	MostAllocated  = "MostAllocated"
)

// nodeUnschedulable filters cordoned nodes unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint.
type nodeUnschedulable struct {
	reason Reason
	taint  cluster.Taint
}

var _ FilterPlugin = (*nodeUnschedulable)(nil)

func newNodeUnschedulable(h Handle, _ PluginArgs) (Plugin, error) {
	syms := h.Cluster().Syms
	return &nodeUnschedulable{
		reason: h.Reason("node(s) were unschedulable"),
		taint:  cluster.Taint{Key: syms.Intern("node.kubernetes.io/unschedulable"), Effect: cluster.EffectNoSchedule},
	}, nil
}

func (p *nodeUnschedulable) Name() string { return NameNodeUnschedulable }

func (p *nodeUnschedulable) Filter(cs *CycleState, n *cluster.Node, _ *[]Reason) Reason {
	if n.Unschedulable && !cs.Spec.Tolerations.Tolerate(p.taint) {
		return p.reason
	}
	return Pass
}

// nodeName filters every node but the one spec.nodeName names.
type nodeName struct{ reason Reason }

var _ FilterPlugin = (*nodeName)(nil)

func newNodeName(h Handle, _ PluginArgs) (Plugin, error) {
	return &nodeName{reason: h.Reason("node(s) didn't match the requested node name")}, nil
}

func (p *nodeName) Name() string { return NameNodeName }

func (p *nodeName) Filter(cs *CycleState, n *cluster.Node, _ *[]Reason) Reason {
	if cs.Spec.NodeName != "" && cs.Spec.NodeName != n.Name {
		return p.reason
	}
	return Pass
}

// taintToleration filters nodes with NoSchedule or NoExecute taints the pod
// does not tolerate, and scores by the number of intolerable
// PreferNoSchedule taints (fewer is better).
type taintToleration struct {
	h       Handle
	reasons map[cluster.Taint]Reason
}

var (
	_ FilterPlugin    = (*taintToleration)(nil)
	_ ScorePlugin     = (*taintToleration)(nil)
	_ ScoreNormalizer = (*taintToleration)(nil)
)

func newTaintToleration(h Handle, _ PluginArgs) (Plugin, error) {
	return &taintToleration{h: h, reasons: map[cluster.Taint]Reason{}}, nil
}

func (p *taintToleration) Name() string { return NameTaintToleration }

func (p *taintToleration) Filter(cs *CycleState, n *cluster.Node, _ *[]Reason) Reason {
	t, bad := cs.Spec.Tolerations.FirstUntolerated(n.Taints)
	if !bad {
		return Pass
	}
	r, ok := p.reasons[t]
	if !ok {
		r = p.h.Reason(fmt.Sprintf("node(s) had untolerated taint %s", t.String(p.h.Cluster().Syms)))
		p.reasons[t] = r
	}
	return r
}

func (p *taintToleration) Score(cs *CycleState, n *cluster.Node) int64 {
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
	_ FilterPlugin    = (*nodeAffinity)(nil)
	_ ScorePlugin     = (*nodeAffinity)(nil)
	_ ScoreNormalizer = (*nodeAffinity)(nil)
)

func newNodeAffinity(h Handle, _ PluginArgs) (Plugin, error) {
	return &nodeAffinity{syms: h.Cluster().Syms, reason: h.Reason("node(s) didn't match Pod's node affinity/selector")}, nil
}

func (p *nodeAffinity) Name() string { return NameNodeAffinity }

func (p *nodeAffinity) Filter(cs *CycleState, n *cluster.Node, _ *[]Reason) Reason {
	if !MatchesNodeSelectors(p.syms, cs.Spec, n) {
		return p.reason
	}
	return Pass
}

// MatchesNodeSelectors is the NodeAffinity filter on its own: nodeSelector
// and required node affinity. The autoscalers use it to ask the same
// question of nodes that do not exist yet.
func MatchesNodeSelectors(syms *cluster.Symbols, spec *cluster.PodSpec, n *cluster.Node) bool {
	for i := range spec.NodeSelector {
		if !spec.NodeSelector[i].Matches(syms, n.Labels) {
			return false
		}
	}
	if spec.Affinity != nil && !spec.Affinity.Matches(syms, n.Labels, n.NameSym) {
		return false
	}
	return true
}

func (p *nodeAffinity) Score(cs *CycleState, n *cluster.Node) int64 {
	var s int64
	for i := range cs.Spec.Preferred {
		if cs.Spec.Preferred[i].Term.Matches(p.syms, n.Labels, n.NameSym) {
			s += int64(cs.Spec.Preferred[i].Weight)
		}
	}
	return s
}

func (p *nodeAffinity) NormalizeScore(_ *CycleState, scores []int64) {
	normalize(scores, false)
}

// nodeResourcesFit filters nodes without room for the pod's requests and
// scores by the chosen strategy over cpu and memory (weights 1 and 1).
type nodeResourcesFit struct {
	res     *cluster.ResourceNames
	reasons [cluster.MaxResources]Reason
	most    bool
}

var (
	_ FilterPlugin = (*nodeResourcesFit)(nil)
	_ ScorePlugin  = (*nodeResourcesFit)(nil)
)

func newNodeResourcesFit(h Handle, args PluginArgs) (Plugin, error) {
	p := &nodeResourcesFit{res: h.Cluster().Resources}
	switch args.ScoringStrategy {
	case "", LeastAllocated:
	case MostAllocated:
		p.most = true
	default:
		return nil, fmt.Errorf("scoring strategy %q is not one of %s, %s", args.ScoringStrategy, LeastAllocated, MostAllocated)
	}
	for i := 0; i < p.res.Len(); i++ {
		if i == cluster.Pods {
			p.reasons[i] = h.Reason("Too many pods")
			continue
		}
		p.reasons[i] = h.Reason("Insufficient " + string(p.res.Name(i)))
	}
	return p, nil
}

func (p *nodeResourcesFit) Name() string { return NameNodeResourcesFit }

// Filter reports every insufficient resource, as upstream does (one node
// can be both "Insufficient cpu" and "Insufficient memory").
func (p *nodeResourcesFit) Filter(cs *CycleState, n *cluster.Node, extra *[]Reason) Reason {
	req := &cs.Spec.Requests
	first := Pass
	for i := 0; i < cluster.MaxResources; i++ {
		if req[i] == 0 || req[i] <= n.Allocatable[i]-n.Requested[i] {
			continue
		}
		if first == Pass {
			first = p.reasons[i]
		} else {
			*extra = append(*extra, p.reasons[i])
		}
	}
	return first
}

// Score follows k8s noderesources least_allocated.go / most_allocated.go
// with the default resources cpu and memory, weight 1 each, on
// non-zero requests.
func (p *nodeResourcesFit) Score(cs *CycleState, n *cluster.Node) int64 {
	var sum int64
	for i := 0; i < 2; i++ {
		capacity := n.Allocatable[i]
		requested := n.ScoreRequested[i]
		if i == cluster.CPU {
			requested += cs.Spec.ScoreCPU
		} else {
			requested += cs.Spec.ScoreMemory
		}
		sum += resourceScore(requested, capacity, p.most)
	}
	return sum / 2
}

func resourceScore(requested, capacity int64, most bool) int64 {
	if capacity == 0 {
		return 0
	}
	if most {
		if requested > capacity {
			return MaxNodeScore
		}
		return requested * MaxNodeScore / capacity
	}
	if requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
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
