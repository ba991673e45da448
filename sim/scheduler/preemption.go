package scheduler

import (
	"math"
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// preempt tries to make room for a pod that found no node by evicting
// lower-priority pods on one node, following k8s DefaultPreemption:
// candidates are nodes rejected for reasons preemption can resolve; on
// each, every lower-priority pod is a potential victim, and victims are
// reprieved from the most important down (those whose eviction would break
// a PodDisruptionBudget first) as long as the pod still fits; the node with
// the fewest budget violations, then the lowest top victim priority, the
// lowest sum of victim priorities, the fewest victims, wins. Victims are
// told to stop and keep their room for their termination grace period; the
// preemptor is nominated to the node and does not preempt again while its
// victims are terminating.
//
// Simplifications: only resource fit is re-evaluated with victims removed;
// a candidate must pass every other filter as the cluster is, so room made
// for topology spread or anti-affinity is not found by preemption; the
// nominated node is not reserved against other pods. The nomination is
// also on the pod (cluster.Pod.Preempting, for the autoscalers) and, as
// upstream, is cleared when the pod binds or a later attempt finds no
// candidate.
func (s *Scheduler) preempt(fw *framework, cs *CycleState) {
	spec := cs.Spec
	st := s.q.at(cs.Pod)
	if spec.PreemptNever || fw.profile.NoPreemption {
		return
	}
	if st.nominated != cluster.NoNode && s.victimsTerminating(st.nominated) {
		return // not eligible: the nomination stands
	}
	lower := false
	for pr := range s.boundPriorities {
		lower = lower || pr < spec.Priority
	}
	if !lower || len(s.candidates) == 0 {
		// No candidate: upstream's PostFilter clears the nomination.
		s.nominate(cs.Pod, cluster.NoNode)
		return
	}
	allowed := make([]int, len(s.cfg.PDBs))
	for i := range s.cfg.PDBs {
		allowed[i] = s.cfg.PDBs[i].DisruptionsAllowed(s.cl)
	}
	var (
		bestNode    = cluster.NoNode
		bestVictims []cluster.PodID
		bestKey     victimKey
	)
	for _, nid := range s.candidates {
		victims, key, ok := s.selectVictims(fw, cs, nid, allowed)
		if !ok {
			continue
		}
		if bestNode == cluster.NoNode || key.less(bestKey) {
			bestNode, bestVictims, bestKey = nid, victims, key
		}
	}
	if bestNode == cluster.NoNode {
		s.nominate(cs.Pod, cluster.NoNode)
		return
	}
	s.stats.Preemptions++
	s.nominate(cs.Pod, bestNode)
	for _, v := range bestVictims {
		s.stats.Victims++
		s.cl.MarkTerminating(v)
		s.eng.After(s.cl.Pods[v].Spec.TerminationGrace, engine.Event{Handler: s.id, Kind: evVictimGone, Obj: int32(v)})
	}
}

// nominate records the pod's nominated node in the scheduler's state and,
// as status.nominatedNodeName, on the pod (NoNode clears both).
func (s *Scheduler) nominate(id cluster.PodID, nid cluster.NodeID) {
	s.q.at(id).nominated = nid
	s.cl.SetPreempting(id, nid != cluster.NoNode)
}

func (s *Scheduler) victimsTerminating(nid cluster.NodeID) bool {
	for _, id := range s.cl.Nodes[nid].Pods {
		if s.cl.Pods[id].Terminating {
			return true
		}
	}
	return false
}

// victimKey orders candidate nodes; smaller is better.
type victimKey struct {
	violations  int
	maxPriority int32
	sumPriority int64
	victims     int
}

func (a victimKey) less(b victimKey) bool {
	if a.violations != b.violations {
		return a.violations < b.violations
	}
	if a.maxPriority != b.maxPriority {
		return a.maxPriority < b.maxPriority
	}
	if a.sumPriority != b.sumPriority {
		return a.sumPriority < b.sumPriority
	}
	return a.victims < b.victims
}

// selectVictims finds the fewest, least important pods on a node whose
// removal lets the pod fit.
func (s *Scheduler) selectVictims(fw *framework, cs *CycleState, nid cluster.NodeID, allowed []int) ([]cluster.PodID, victimKey, bool) {
	n := &s.cl.Nodes[nid]
	var extra []Reason
	for _, fi := range fw.activeFilters {
		f := fw.filters[fi]
		if f.Name() == NameNodeResourcesFit {
			continue
		}
		if f.Filter(cs, nid, n, &extra) != Pass {
			return nil, victimKey{}, false
		}
	}
	spec := cs.Spec
	free := n.Free()
	var lower []cluster.PodID
	for _, id := range n.Pods {
		p := &s.cl.Pods[id]
		if p.Spec.Priority < spec.Priority && !p.Terminating {
			lower = append(lower, id)
			free = free.Add(p.Spec.Requests)
		}
	}
	if len(lower) == 0 || !spec.Requests.Fits(free) {
		return nil, victimKey{}, false
	}
	// Most important first: higher priority, then started earlier, then ID.
	sort.Slice(lower, func(i, j int) bool {
		a, b := &s.cl.Pods[lower[i]], &s.cl.Pods[lower[j]]
		if a.Spec.Priority != b.Spec.Priority {
			return a.Spec.Priority > b.Spec.Priority
		}
		if a.Started != b.Started {
			return a.Started < b.Started
		}
		return lower[i] < lower[j]
	})
	left := append([]int(nil), allowed...)
	var violating, safe []cluster.PodID
	for _, id := range lower {
		p := &s.cl.Pods[id]
		breaks := false
		for i := range s.cfg.PDBs {
			if s.cfg.PDBs[i].Covers(s.cl, p) {
				left[i]--
				if left[i] < 0 {
					breaks = true
				}
			}
		}
		if breaks {
			violating = append(violating, id)
		} else {
			safe = append(safe, id)
		}
	}
	key := victimKey{maxPriority: math.MinInt32}
	var victims []cluster.PodID
	// reprieve keeps running what still leaves room for the pod, in order,
	// and returns how many of ids become victims.
	reprieve := func(ids []cluster.PodID) (evicted int) {
		for _, id := range ids {
			req := s.cl.Pods[id].Spec.Requests
			if spec.Requests.Fits(free.Sub(req)) {
				free = free.Sub(req) // keeps running
				continue
			}
			victims = append(victims, id)
			pr := s.cl.Pods[id].Spec.Priority
			key.maxPriority = max(key.maxPriority, pr)
			key.sumPriority += int64(pr) + math.MaxInt32 + 1
			evicted++
		}
		return evicted
	}
	key.violations = reprieve(violating)
	reprieve(safe)
	key.victims = len(victims)
	return victims, key, len(victims) > 0
}
