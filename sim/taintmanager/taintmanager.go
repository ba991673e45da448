// Package taintmanager evicts pods from nodes with NoExecute taints they do
// not tolerate, as the node lifecycle controller's taint-based eviction
// does: at once when some NoExecute taint is not tolerated, after the
// smallest tolerationSeconds of the matching tolerations otherwise, never
// when they tolerate it for ever. An evicted pod is told to stop, keeps its
// room for its termination grace period, and is then deleted; its
// controller replaces it.
//
// Pods that do not tolerate the node lifecycle controller's not-ready or
// unreachable NoExecute taints themselves get the DefaultTolerationSeconds
// admission plugin's: 300 s (cluster.DefaultNotReadyToleration).
//
// Simplification: the countdown starts when the manager sees the taint (or
// the pod bound to the tainted node), not at the taint's timeAdded.
package taintmanager

import (
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

const (
	evEvict uint16 = iota // Obj = pod: the toleration ran out
	evGone                // Obj = pod: termination grace is over
)

// Manager is an engine handler and cluster watcher.
type Manager struct {
	eng    *engine.Engine
	cl     *cluster.Cluster
	id     engine.HandlerID
	timers []engine.Timer // by PodID: a pending evEvict
	due    []engine.Time  // by PodID: when that evEvict fires
	// notReady and unreachable are the lifecycle controller's taint keys
	// (admissionDefault).
	notReady, unreachable cluster.Sym
	// Evictions counts pods evicted for NoExecute taints.
	Evictions uint64
}

// New registers the manager.
func New(eng *engine.Engine, cl *cluster.Cluster) *Manager {
	m := &Manager{eng: eng, cl: cl}
	m.id = eng.Register(m)
	cl.Watch(m)
	return m
}

func (m *Manager) timer(id cluster.PodID) *engine.Timer {
	for int(id) >= len(m.timers) {
		m.timers = append(m.timers, engine.Timer{})
		m.due = append(m.due, 0)
	}
	return &m.timers[id]
}

// OnChange implements cluster.Watcher.
func (m *Manager) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.NodeUpdated, cluster.NodeReadied:
		for _, id := range m.cl.Nodes[c.Node].Pods {
			m.reconsider(id)
		}
	case cluster.PodBound:
		m.reconsider(c.Pod)
	case cluster.PodDeleted, cluster.PodFinished:
		m.eng.Cancel(*m.timer(c.Pod))
	}
}

// reconsider (re)arms or disarms the eviction of one bound pod.
func (m *Manager) reconsider(id cluster.PodID) {
	p := &m.cl.Pods[id]
	t := m.timer(id)
	if p.Terminating || !p.Phase.OnNode() {
		return
	}
	wait, evict := m.evictionDelay(p.Spec.Tolerations, m.cl.Nodes[p.Node].Taints)
	if m.eng.Pending(*t) {
		// A countdown already runs; a taint change restarts it only if it
		// makes eviction sooner or cancels it.
		if !evict {
			m.eng.Cancel(*t)
			return
		}
		if m.eng.Now()+wait >= m.due[id] {
			return
		}
		m.eng.Cancel(*t)
	}
	if evict {
		*t = m.eng.After(wait, engine.Event{Handler: m.id, Kind: evEvict, Obj: int32(id)})
		m.due[id] = m.eng.Now() + wait
	}
}

// evictionDelay says whether a pod must leave a node with these taints, and
// after how long (k8s taint_eviction.go getMinTolerationTime).
func (m *Manager) evictionDelay(tols cluster.Tolerations, taints []cluster.Taint) (time.Duration, bool) {
	wait := cluster.Forever
	any := false
	for _, t := range taints {
		if t.Effect != cluster.EffectNoExecute {
			continue
		}
		any = true
		tolerated := false
		for i := range tols {
			if tols[i].Tolerates(t) {
				tolerated = true
				wait = min(wait, tols[i].Seconds)
			}
		}
		if !tolerated && m.admissionDefault(t.Key) {
			// DefaultTolerationSeconds added the pod this toleration.
			tolerated = true
			wait = min(wait, cluster.DefaultNotReadyToleration)
		}
		if !tolerated {
			return 0, true
		}
	}
	if !any || wait == cluster.Forever {
		return 0, false
	}
	return wait, true
}

// admissionDefault: the taint is one DefaultTolerationSeconds gives every
// pod a toleration for (not-ready, unreachable). Interned on first use: a
// run with no such taint never asks.
func (m *Manager) admissionDefault(key cluster.Sym) bool {
	if m.notReady == cluster.NoSym {
		m.notReady, m.unreachable = m.cl.Syms.Intern(cluster.TaintNotReady), m.cl.Syms.Intern(cluster.TaintUnreachable)
	}
	return key == m.notReady || key == m.unreachable
}

// HandleEvent implements engine.Handler.
func (m *Manager) HandleEvent(ev engine.Event) {
	id := cluster.PodID(ev.Obj)
	p := &m.cl.Pods[id]
	switch ev.Kind {
	case evEvict:
		if p.Terminating || !p.Phase.OnNode() {
			return
		}
		m.Evictions++
		grace := p.Spec.TerminationGrace
		m.cl.MarkTerminating(id)
		m.eng.After(grace, engine.Event{Handler: m.id, Kind: evGone, Obj: ev.Obj})
	case evGone:
		m.cl.DeletePod(id, cluster.CauseTaintEvicted)
	}
}
