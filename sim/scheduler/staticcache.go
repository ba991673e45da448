package scheduler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Static filter answers, cached. NodeUnschedulable, NodeName,
// TaintToleration and NodeAffinity read only the pod spec's tolerations,
// node name and node selector/affinity, and the node's name, labels,
// taints and cordon. Their verdict for a (spec, node) pair therefore holds
// until the node changes, and is the same for every spec with the same
// content (replicas of different Deployments that differ only in labels).
// The cache keeps, per spec class and node, the first of them that
// rejects the node (in filter order) and its reason, plus whether the node
// matches the spec's node selectors and tolerates its taints (for the
// spread plugin's node inclusion policies); a node's entries expire when
// its epoch moves (cluster.NodeEpoch: any node change). Answers are
// exactly those of running the filters: only the time spent changes.

// staticFilter marks filter plugins whose Filter depends only on the pod
// spec's tolerations, node name, node selector/affinity and volume pin
// and on the node's name, zone, labels, taints and cordon, and never adds
// extra reasons (VolumeBinding and VolumeZone read only the pin and the
// zone).
type staticFilter interface {
	FilterPlugin
	isStatic()
}

func (*nodeUnschedulable) isStatic() {}
func (*nodeName) isStatic()          {}
func (*taintToleration) isStatic()   {}
func (*nodeAffinity) isStatic()      {}

// staticEntry is one (spec class, node) answer.
type staticEntry struct {
	ep     uint32 // cluster.NodeEpoch + 1 when set; 0: unknown
	fail   int8   // index in the framework's filters of the first static rejection, -1: none
	sel    bool   // MatchesNodeSelectors
	tol    bool   // no untolerated NoSchedule/NoExecute taint
	reason Reason
}

// staticTable holds one spec class's entries by NodeID.
type staticTable struct {
	entries []staticEntry
	// spec is the first spec of the class seen: what CheckIndexes
	// recomputes the entries with (the filters read only class content).
	spec *cluster.PodSpec
}

type staticTableKey struct {
	fw    *framework
	class int32
}

// specClassOf numbers a spec by the content the static filters read.
func (s *Scheduler) specClassOf(spec *cluster.PodSpec) int32 {
	id, _ := s.specs.Of(spec)
	return id
}

// nodeChanged refreshes what the scheduler keeps of a node other than
// the static answers (the cluster moved the node's epoch already): its
// room epoch and its label columns.
func (s *Scheduler) nodeChanged(id cluster.NodeID) {
	s.roomChanged(id)
	s.labelsChanged(id)
}

func (s *Scheduler) staticTableFor(fw *framework, spec *cluster.PodSpec) *staticTable {
	if s.lastTable.t != nil && s.lastTable.fw == fw && s.lastTable.spec == spec {
		return s.lastTable.t
	}
	key := staticTableKey{fw, s.specClassOf(spec)}
	t := s.statics[key]
	if t == nil {
		t = &staticTable{spec: spec}
		s.statics[key] = t
	}
	s.lastTable.fw, s.lastTable.spec, s.lastTable.t = fw, spec, t
	return t
}

// static returns the cached answer for a node, computing it if needed.
func (s *Scheduler) static(fw *framework, t *staticTable, cs *CycleState, nid cluster.NodeID, n *cluster.Node) *staticEntry {
	if int(nid) >= len(t.entries) {
		t.entries = append(t.entries, make([]staticEntry, max(int(nid)+1, len(s.cl.Nodes))-len(t.entries))...)
	}
	e := &t.entries[nid]
	ep := s.cl.NodeEpoch(nid) + 1
	if e.ep == ep {
		return e
	}
	*e = staticEntry{ep: ep, fail: -1}
	for _, fi := range fw.static {
		s.staticExtra = s.staticExtra[:0]
		if r := fw.filters[fi].Filter(cs, nid, n, &s.staticExtra); r != Pass {
			e.fail, e.reason = int8(fi), r
			break
		}
	}
	e.sel = cluster.MatchesNodeSelectors(s.cl.Syms, cs.Spec, n)
	_, bad := cs.Spec.Tolerations.FirstUntolerated(n.Taints)
	e.tol = !bad
	return e
}

// specStatic is the cache seen for one spec: what the spread plugin's
// node inclusion policies read.
type specStatic struct {
	s  *Scheduler
	fw *framework
	t  *staticTable
	cs CycleState
}

// at returns the answer for a node.
func (v *specStatic) at(nid cluster.NodeID) *staticEntry {
	return v.s.static(v.fw, v.t, &v.cs, nid, &v.s.cl.Nodes[nid])
}

// staticView returns the cache for a spec.
func (s *Scheduler) staticView(spec *cluster.PodSpec) *specStatic {
	v := &s.view
	if v.s != nil && v.cs.Spec == spec {
		return v
	}
	fw := s.fws[spec.SchedulerName]
	*v = specStatic{s: s, fw: fw, t: s.staticTableFor(fw, spec), cs: CycleState{Spec: spec}}
	return v
}
