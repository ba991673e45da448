package scheduler

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Scoring strategies of NodeResourcesFit.
const (
	LeastAllocated           = "LeastAllocated"
	MostAllocated            = "MostAllocated"
	RequestedToCapacityRatio = "RequestedToCapacityRatio"
)

// maxCustomPriorityScore is the top of RequestedToCapacityRatio's shape
// scale (k8s config.MaxCustomPriorityScore); shape scores are multiplied by
// MaxNodeScore / maxCustomPriorityScore.
const maxCustomPriorityScore = 10

// scoredResource is a resource slot with its weight.
type scoredResource struct {
	slot   int
	weight int64
}

func resolveResources(h Handle, rw []ResourceWeight) ([]scoredResource, error) {
	if len(rw) == 0 {
		return []scoredResource{{cluster.CPU, 1}, {cluster.Memory, 1}}, nil
	}
	var out []scoredResource
	for _, r := range rw {
		slot, ok := h.Cluster().Resources.Lookup(corev1.ResourceName(r.Name))
		if !ok {
			// A resource no pod or node mentions scores 0 everywhere;
			// upstream skips resources a node lacks.
			continue
		}
		w := r.Weight
		if w == 0 {
			w = 1
		}
		if w < 0 || w > 100 {
			return nil, fmt.Errorf("resource %s: weight %d is not in 1..100", r.Name, r.Weight)
		}
		out = append(out, scoredResource{slot, w})
	}
	return out, nil
}

// nodeResourcesFit filters nodes without room for the pod's requests and
// scores by the chosen strategy.
type nodeResourcesFit struct {
	h         Handle
	reasons   [cluster.MaxResources]Reason
	strategy  string
	resources []scoredResource
	shape     []ShapePoint
	cache     scoreCache // LeastAllocated on cpu and memory
}

var (
	_ FilterPlugin = (*nodeResourcesFit)(nil)
	_ ScorePlugin  = (*nodeResourcesFit)(nil)
	_ batchScorer  = (*nodeResourcesFit)(nil)
)

func newNodeResourcesFit(h Handle, args PluginArgs) (Plugin, error) {
	p := &nodeResourcesFit{h: h, strategy: args.ScoringStrategy}
	switch args.ScoringStrategy {
	case "":
		p.strategy = LeastAllocated
	case LeastAllocated, MostAllocated:
	case RequestedToCapacityRatio:
		if len(args.Shape) == 0 {
			return nil, fmt.Errorf("RequestedToCapacityRatio needs a shape")
		}
		for i, pt := range args.Shape {
			if pt.Utilization < 0 || pt.Utilization > 100 || pt.Score < 0 || pt.Score > maxCustomPriorityScore {
				return nil, fmt.Errorf("shape[%d]: utilization must be 0..100 and score 0..10", i)
			}
			if i > 0 && pt.Utilization <= args.Shape[i-1].Utilization {
				return nil, fmt.Errorf("shape[%d]: utilization must increase", i)
			}
		}
		p.shape = args.Shape
	default:
		return nil, fmt.Errorf("scoring strategy %q is not one of %s, %s, %s", args.ScoringStrategy, LeastAllocated, MostAllocated, RequestedToCapacityRatio)
	}
	var err error
	if p.resources, err = resolveResources(h, args.Resources); err != nil {
		return nil, err
	}
	res := h.Cluster().Resources
	for i := 0; i < res.Len(); i++ {
		if i == cluster.Pods {
			p.reasons[i] = h.Reason("Too many pods", Resolvable)
			continue
		}
		p.reasons[i] = h.Reason("Insufficient "+string(res.Name(i)), Resolvable)
	}
	return p, nil
}

func (p *nodeResourcesFit) Name() string  { return NameNodeResourcesFit }
func (p *nodeResourcesFit) Events() Event { return EvNodeAdd | EvNodeUpdate | EvPodUnassigned }

// Filter reports every insufficient resource, as upstream does (one node
// can be both "Insufficient cpu" and "Insufficient memory").
func (p *nodeResourcesFit) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, extra *[]Reason) Reason {
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

// requested is what scoring sees as used on n with the pod added: the
// non-zero stand-ins for cpu and memory (schedutil.NonZeroRequested), the
// plain requests for the rest.
func requested(cs *CycleState, n *cluster.Node, slot int) int64 {
	switch slot {
	case cluster.CPU:
		return n.ScoreRequested[cluster.CPU] + cs.Spec.ScoreCPU
	case cluster.Memory:
		return n.ScoreRequested[cluster.Memory] + cs.Spec.ScoreMemory
	}
	return n.Requested[slot] + cs.Spec.Requests[slot]
}

// Score follows k8s noderesources least_allocated.go, most_allocated.go and
// requested_to_capacity_ratio.go: a weighted mean of per-resource scores.
func (p *nodeResourcesFit) Score(cs *CycleState, _ cluster.NodeID, n *cluster.Node) int64 {
	var sum, weights int64
	for _, r := range p.resources {
		capacity := n.Allocatable[r.slot]
		if capacity == 0 {
			continue
		}
		req := requested(cs, n, r.slot)
		var s int64
		switch p.strategy {
		case LeastAllocated:
			if req <= capacity {
				s = (capacity - req) * MaxNodeScore / capacity
			}
		case MostAllocated:
			s = MaxNodeScore
			if req <= capacity {
				s = req * MaxNodeScore / capacity
			}
		case RequestedToCapacityRatio:
			util := int64(100)
			if req <= capacity {
				util = req * 100 / capacity
			}
			s = p.shapeScore(util)
		}
		sum += s * r.weight
		weights += r.weight
	}
	if weights == 0 {
		return 0
	}
	if p.strategy == RequestedToCapacityRatio {
		return int64(math.Round(float64(sum) / float64(weights)))
	}
	return sum / weights
}

// scoreAll is Score over the feasible nodes, with LeastAllocated on cpu
// and memory (the default) spelled out.
func (p *nodeResourcesFit) scoreAll(cs *CycleState, nodes []cluster.Node, feasible []cluster.NodeID, out []int64) {
	if p.strategy != LeastAllocated || len(p.resources) != 2 || p.resources[0].slot != cluster.CPU || p.resources[1].slot != cluster.Memory {
		for i, nid := range feasible {
			out[i] = p.Score(cs, nid, &nodes[nid])
		}
		return
	}
	podCPU, podMem := cs.Spec.ScoreCPU, cs.Spec.ScoreMemory
	wCPU, wMem := p.resources[0].weight, p.resources[1].weight
	epochs := p.cache.prepare(p.h, [2]int64{podCPU, podMem})
	for i, nid := range feasible {
		if v, ok := p.cache.get(epochs, nid); ok {
			out[i] = v
			continue
		}
		n := &nodes[nid]
		var sum, weights int64
		if capacity := n.Allocatable[cluster.CPU]; capacity != 0 {
			var s int64
			if req := n.ScoreRequested[cluster.CPU] + podCPU; req <= capacity {
				s = (capacity - req) * MaxNodeScore / capacity
			}
			sum += s * wCPU
			weights += wCPU
		}
		if capacity := n.Allocatable[cluster.Memory]; capacity != 0 {
			var s int64
			if req := n.ScoreRequested[cluster.Memory] + podMem; req <= capacity {
				s = (capacity - req) * MaxNodeScore / capacity
			}
			sum += s * wMem
			weights += wMem
		}
		if weights > 0 {
			sum /= weights
		}
		out[i] = sum
		p.cache.put(epochs, nid, sum)
	}
}

// shapeScore is the broken-line function through the shape points, scaled
// to 0..MaxNodeScore (k8s helper.BuildBrokenLinearFunction).
func (p *nodeResourcesFit) shapeScore(util int64) int64 {
	const scale = MaxNodeScore / maxCustomPriorityScore
	sh := p.shape
	for i, pt := range sh {
		if util <= pt.Utilization {
			if i == 0 {
				return pt.Score * scale
			}
			prev := sh[i-1]
			return (prev.Score + (pt.Score-prev.Score)*(util-prev.Utilization)/(pt.Utilization-prev.Utilization)) * scale
		}
	}
	return sh[len(sh)-1].Score * scale
}

// balancedAllocation favours nodes whose cpu and memory use the pod makes
// more even (k8s noderesources/balanced_allocation.go, since 1.36,
// kubernetes#135573): a node's balance is 100 x (1 - standard deviation of
// the requested fractions), on actual requests, and the score is 50 + (50
// + balance with the pod - balance without it) / 2: 75 for no change, 100
// from fully uneven to even, 50 the other way. Pods that request neither
// are not scored by it (upstream skips best-effort pods so they do not
// pile onto one node).
type balancedAllocation struct {
	h         Handle
	resources []scoredResource
	fractions []float64
	cache     scoreCache // two resources
}

var (
	_ PreScorePlugin = (*balancedAllocation)(nil)
	_ ScorePlugin    = (*balancedAllocation)(nil)
	_ batchScorer    = (*balancedAllocation)(nil)
)

func newBalancedAllocation(h Handle, args PluginArgs) (Plugin, error) {
	res, err := resolveResources(h, args.Resources)
	if err != nil {
		return nil, err
	}
	return &balancedAllocation{h: h, resources: res}, nil
}

func (p *balancedAllocation) Name() string { return NameBalancedAllocation }

func (p *balancedAllocation) PreScore(cs *CycleState, _ []cluster.NodeID) bool {
	for _, r := range p.resources {
		if cs.Spec.Requests[r.slot] > 0 {
			return false
		}
	}
	return true
}

func (p *balancedAllocation) Score(cs *CycleState, _ cluster.NodeID, n *cluster.Node) int64 {
	return balancedScore(p.balance(n, &cs.Spec.Requests), p.balance(n, nil))
}

// balancedScore turns the balances with and without the pod into the
// score.
func balancedScore(with, without int64) int64 {
	return MaxNodeScore/2 + (MaxNodeScore/2+with-without)/2
}

// balance is the node's balance with add's requests on it (nil: none).
func (p *balancedAllocation) balance(n *cluster.Node, add *cluster.Resources) int64 {
	fr := p.fractions[:0]
	var total float64
	for _, r := range p.resources {
		capacity := n.Allocatable[r.slot]
		if capacity == 0 {
			continue
		}
		used := n.Requested[r.slot]
		if add != nil {
			used += add[r.slot]
		}
		f := min(float64(used)/float64(capacity), 1)
		total += f
		fr = append(fr, f)
	}
	p.fractions = fr
	var std float64
	switch {
	case len(fr) == 2:
		std = math.Abs((fr[0] - fr[1]) / 2)
	case len(fr) > 2:
		mean := total / float64(len(fr))
		var sum float64
		for _, f := range fr {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(len(fr)))
	}
	return int64((1 - std) * MaxNodeScore)
}

// balance2 is balance for two resources: used u0, u1 of capacities c0,
// c1. With one capacity 0, one fraction: deviation 0.
func balance2(u0, u1, c0, c1 int64) int64 {
	if c0 == 0 || c1 == 0 {
		return MaxNodeScore
	}
	f0 := min(float64(u0)/float64(c0), 1)
	f1 := min(float64(u1)/float64(c1), 1)
	return int64((1 - math.Abs((f0-f1)/2)) * MaxNodeScore)
}

// scoreAll is Score over the feasible nodes, with two resources (the
// default cpu and memory) spelled out.
func (p *balancedAllocation) scoreAll(cs *CycleState, nodes []cluster.Node, feasible []cluster.NodeID, out []int64) {
	if len(p.resources) != 2 {
		for i, nid := range feasible {
			out[i] = p.Score(cs, nid, &nodes[nid])
		}
		return
	}
	s0, s1 := p.resources[0].slot, p.resources[1].slot
	r0, r1 := cs.Spec.Requests[s0], cs.Spec.Requests[s1]
	epochs := p.cache.prepare(p.h, [2]int64{r0, r1})
	for i, nid := range feasible {
		if v, ok := p.cache.get(epochs, nid); ok {
			out[i] = v
			continue
		}
		n := &nodes[nid]
		c0, c1, u0, u1 := n.Allocatable[s0], n.Allocatable[s1], n.Requested[s0], n.Requested[s1]
		out[i] = balancedScore(balance2(u0+r0, u1+r1, c0, c1), balance2(u0, u1, c0, c1))
		p.cache.put(epochs, nid, out[i])
	}
}
