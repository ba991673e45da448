// Package eviction models the eviction API that drains use (Karpenter's
// termination controller, the Cluster Autoscaler's scale-down): an eviction
// is refused while a PodDisruptionBudget covering the pod allows no
// disruption (HTTP 429 upstream); an accepted one tells the pod to stop,
// the pod keeps its room for its termination grace period, and is then
// deleted, and its controller replaces it.
package eviction

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Evictor is an engine handler that finishes accepted evictions.
type Evictor struct {
	eng   *engine.Engine
	cl    *cluster.Cluster
	id    engine.HandlerID
	pdbs  []cluster.PDB
	stats Stats
}

// Stats count eviction requests.
type Stats struct {
	Evicted uint64 // accepted
	Refused uint64 // blocked by a PodDisruptionBudget
}

// New registers an evictor for the cluster's budgets.
func New(eng *engine.Engine, cl *cluster.Cluster, pdbs []cluster.PDB) *Evictor {
	e := &Evictor{eng: eng, cl: cl, pdbs: pdbs}
	cl.TrackPDBs(pdbs)
	e.id = eng.Register(e)
	return e
}

// Stats returns the counters so far.
func (e *Evictor) Stats() Stats { return e.stats }

// HasBudgets reports whether any PodDisruptionBudget exists: without one
// Blocked is always false.
func (e *Evictor) HasBudgets() bool { return len(e.pdbs) > 0 }

// Blocked reports whether a budget forbids evicting the pod now.
func (e *Evictor) Blocked(id cluster.PodID) bool {
	p := &e.cl.Pods[id]
	for i := range e.pdbs {
		if e.pdbs[i].Covers(e.cl, p) && e.pdbs[i].DisruptionsAllowed(e.cl) <= 0 {
			return true
		}
	}
	return false
}

// Evict asks to remove a pod. Pending pods are deleted at once (nothing to
// drain); a bound pod is refused if a budget forbids it, else it starts
// terminating and is deleted with cause after its grace period. It returns
// whether the eviction was accepted (a pod already terminating counts as
// accepted).
func (e *Evictor) Evict(id cluster.PodID, cause cluster.DeleteCause) bool {
	p := &e.cl.Pods[id]
	switch {
	case p.Phase.Terminal():
		return true
	case p.Terminating:
		return true
	case p.Phase == cluster.Pending:
		e.cl.DeletePod(id, cause)
		e.stats.Evicted++
		return true
	}
	if e.Blocked(id) {
		e.stats.Refused++
		return false
	}
	e.stats.Evicted++
	grace := p.Spec.TerminationGrace
	e.cl.MarkTerminating(id)
	e.eng.After(grace, engine.Event{Handler: e.id, Kind: uint16(cause), Obj: int32(id)})
	return true
}

// HandleEvent implements engine.Handler: the grace period is over.
func (e *Evictor) HandleEvent(ev engine.Event) {
	e.cl.DeletePod(cluster.PodID(ev.Obj), cluster.DeleteCause(ev.Kind))
}

// FullyBlocked reports whether no eviction of the pod can ever pass: a
// budget that allows none by its spec selects it (maxUnavailable 0 or
// 0%, minAvailable 100%: KC pdb isFullyBlocking), or more than one does
// (the eviction API refuses a pod under two budgets).
func (e *Evictor) FullyBlocked(id cluster.PodID) bool {
	p := &e.cl.Pods[id]
	covering := 0
	for i := range e.pdbs {
		b := &e.pdbs[i]
		if !b.Covers(e.cl, p) {
			continue
		}
		covering++
		if b.FullyBlocking() || covering > 1 {
			return true
		}
	}
	return false
}

// CoveringBudgets appends to dst the indexes of the budgets that select
// the pod.
func (e *Evictor) CoveringBudgets(id cluster.PodID, dst []int) []int {
	p := &e.cl.Pods[id]
	for i := range e.pdbs {
		if e.pdbs[i].Covers(e.cl, p) {
			dst = append(dst, i)
		}
	}
	return dst
}

// BudgetAllowed is the disruptions budget i (an index CoveringBudgets
// gave) allows now.
func (e *Evictor) BudgetAllowed(i int) int { return e.pdbs[i].DisruptionsAllowed(e.cl) }

// Covered reports whether some PodDisruptionBudget selects the pod (the
// Cluster Autoscaler lets kube-system pods with a budget be drained).
func (e *Evictor) Covered(id cluster.PodID) bool {
	p := &e.cl.Pods[id]
	for i := range e.pdbs {
		if e.pdbs[i].Covers(e.cl, p) {
			return true
		}
	}
	return false
}
