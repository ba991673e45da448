package scheduler

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Evaluation is what one scheduling cycle finds for a pod.
type Evaluation struct {
	// Feasible lists the nodes that passed every filter, in scan order
	// (with percentageOfNodesToScore below 100, the sample the cycle
	// stopped at).
	Feasible []cluster.NodeID
	// Scores holds each feasible node's total weighted score, in the
	// order of Feasible; nil when fewer than two nodes are feasible, as a
	// cycle then does not score.
	Scores []int64
	// PluginScores holds, when asked for, per score plugin that ran, its
	// weighted (normalized) scores in the order of Feasible.
	PluginScores map[string][]int64
	// Chosen is the node the cycle picks (cluster.NoNode if none).
	Chosen cluster.NodeID
	// Message is the fit error when no node is feasible, as kubectl
	// describe shows it ("0/3 nodes are available: ...").
	Message string
}

// Evaluate runs one scheduling cycle for a pending pod as the scheduler's
// own cycles do (filters from where the last cycle stopped, scores, the
// seeded tie-break) and returns what it found, without binding the pod,
// queueing it, recording its failure or preempting. Like a cycle, it
// advances the scan start and draws from the tie-break stream. It serves
// the fidelity harness, which compares it with upstream's framework;
// detail asks for every plugin's scores too.
func (s *Scheduler) Evaluate(id cluster.PodID, detail bool) (Evaluation, error) {
	if int(id) < 0 || int(id) >= len(s.cl.Pods) {
		return Evaluation{}, fmt.Errorf("scheduler: no pod %d", id)
	}
	p := &s.cl.Pods[id]
	if p.Phase != cluster.Pending {
		return Evaluation{}, fmt.Errorf("scheduler: pod %s is %s, not Pending", p.Name, p.Phase)
	}
	fw, ok := s.fws[p.Spec.SchedulerName]
	if !ok {
		return Evaluation{}, fmt.Errorf("scheduler: no profile serves schedulerName %q of pod %s", p.Spec.SchedulerName, p.Name)
	}
	cs := CycleState{Pod: id, Spec: p.Spec, Namespace: p.Namespace}
	fw.preFilter(&cs)
	s.findFeasible(fw, &cs)
	ev := Evaluation{Feasible: append([]cluster.NodeID(nil), s.feasible...), Chosen: cluster.NoNode}
	switch len(s.feasible) {
	case 0:
		ev.Message = s.failureMessage(len(s.nodes))
	case 1:
		ev.Chosen = s.feasible[0]
	default:
		ev.Chosen = s.selectHost(fw, &cs)
		ev.Scores = append([]int64(nil), s.total...)
		if !detail {
			break
		}
		ev.PluginScores = map[string][]int64{}
		for _, k := range fw.activeScorers {
			w := fw.weights[k]
			for _, v := range fw.scoreBuf[k][:len(s.feasible)] {
				ev.PluginScores[fw.scorers[k].Name()] = append(ev.PluginScores[fw.scorers[k].Name()], v*w)
			}
		}
	}
	return ev, nil
}
