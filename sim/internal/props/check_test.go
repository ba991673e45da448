package props

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/trace"
)

// Hand-made timelines: each property must report the violation it is
// about, and stay quiet on the legitimate sequence next to it.

const web = "Deployment/default/web"

// timeline builds a record's entries.
type timeline struct{ r *Record }

func newTimeline() *timeline {
	return &timeline{r: &Record{End: 600, Pods: map[string]Pod{}, PDBs: map[string]PDB{}, Pools: map[string]Pool{},
		Workloads: map[string]Workload{web: {Kind: "Deployment", Steps: []Step{{At: 0, Count: 2}}}}}}
}

func (tl *timeline) add(e trace.Entry) *timeline { tl.r.Entries = append(tl.r.Entries, e); return tl }

// node launches a node of owner (karpenter, cluster-autoscaler, static)
// and pool, Ready.
func (tl *timeline) node(t float64, name, owner, pool string) *timeline {
	return tl.add(trace.Entry{T: t, Kind: "nodeLaunched", Node: name, Owner: owner, OwnerName: pool}).
		add(trace.Entry{T: t, Kind: "nodeReady", Node: name, Owner: owner, OwnerName: pool})
}

// running creates pod on node and starts it at t.
func (tl *timeline) running(t float64, pod, node string) *timeline {
	if _, ok := tl.r.Pods[pod]; !ok {
		tl.r.Pods[pod] = Pod{Workload: web, Grace: 30}
	}
	return tl.add(trace.Entry{T: t, Kind: "podCreated", Pod: pod, Workload: web}).
		add(trace.Entry{T: t, Kind: "podBound", Pod: pod, Workload: web, Node: node}).
		add(trace.Entry{T: t, Kind: "podStarted", Pod: pod, Workload: web, Node: node})
}

func (tl *timeline) pending(t float64, pod string) *timeline {
	tl.r.Pods[pod] = Pod{Workload: web, Grace: 30}
	return tl.add(trace.Entry{T: t, Kind: "podCreated", Pod: pod, Workload: web})
}

func (tl *timeline) terminating(t float64, pod, node string) *timeline {
	return tl.add(trace.Entry{T: t, Kind: "podTerminating", Pod: pod, Workload: web, Node: node})
}

func (tl *timeline) deleted(t float64, pod, node, cause string) *timeline {
	return tl.add(trace.Entry{T: t, Kind: "podDeleted", Pod: pod, Workload: web, Node: node, Cause: cause})
}

// evicted is an eviction of pod: terminating at t, deleted 30s later.
func (tl *timeline) evicted(t float64, pod, node string) *timeline {
	return tl.terminating(t, pod, node).deleted(t+30, pod, node, "evicted")
}

func (tl *timeline) disrupted(t float64, node, pool string) *timeline {
	return tl.add(trace.Entry{T: t, Kind: "nodeUpdated", Node: node, Owner: "karpenter", OwnerName: pool, Message: "taint karpenter.sh/disrupted=:NoSchedule"})
}

func (tl *timeline) removed(t float64, node string) *timeline {
	return tl.add(trace.Entry{T: t, Kind: "nodeRemoved", Node: node})
}

// properties are the properties violated, in order, without repeats.
func properties(vs []Violation) string {
	var out []string
	for _, v := range vs {
		if len(out) == 0 || out[len(out)-1] != v.Property {
			out = append(out, v.Property)
		}
	}
	return strings.Join(out, ",")
}

func TestNoInternalError(t *testing.T) {
	tl := newTimeline()
	tl.r.Workloads = nil
	require.Empty(t, Check(tl.r))
	tl.r.Err = errors.New("invariant violated: node n1 overcommitted")
	vs := Check(tl.r)
	require.Equal(t, "a", properties(vs))
	require.Contains(t, vs[0].Msg, "overcommitted")
}

// The defect of issue 29: Karpenter removes an adopted node as empty with
// two running Deployment pods on it, which die with it.
func TestDrainedBeforeRemovalCatchesAnUndrainedNode(t *testing.T) {
	tl := newTimeline().node(0, "n1", "karpenter", "base").running(0, "default/web-1", "n1").running(0, "default/web-2", "n1").
		disrupted(75, "n1", "base").deleted(75, "default/web-1", "n1", "nodeGone").deleted(75, "default/web-2", "n1", "nodeGone").removed(75, "n1").
		pending(75, "default/web-3").pending(75, "default/web-4")
	vs := Check(tl.r)
	require.Equal(t, "b", properties(vs), "%v", vs)
	require.Len(t, vs, 2)
	require.Contains(t, vs[0].Msg, "pod default/web-1 of Deployment/default/web died with its node n1 (karpenter base)")
}

// Dying with the node is legitimate after a spot signal, at the drain's
// terminationGracePeriod deadline, or once the pod is terminating; a
// DaemonSet's pods and bare pods are not drained.
func TestDrainedBeforeRemovalExcuses(t *testing.T) {
	cases := map[string]func(tl *timeline){
		"reclaimed": func(tl *timeline) {
			tl.add(trace.Entry{T: 100, Kind: "instanceReclaimed", Node: "n1"}).deleted(100, "default/web-1", "n1", "nodeGone").removed(100, "n1")
		},
		"reclaim entry after the removal at the same instant": func(tl *timeline) {
			tl.deleted(100, "default/web-1", "n1", "nodeGone").removed(100, "n1").add(trace.Entry{T: 100, Kind: "instanceReclaimed", Node: "n1"})
		},
		"interruption notice, not drained in time": func(tl *timeline) {
			tl.add(trace.Entry{T: 100, Kind: "interruptionNotice", Node: "n1"}).deleted(220, "default/web-1", "n1", "nodeGone").removed(220, "n1")
		},
		"terminationGracePeriod deadline": func(tl *timeline) {
			tl.r.Pools["base"] = Pool{TerminationGracePeriod: 120}
			tl.disrupted(100, "n1", "base").deleted(220, "default/web-1", "n1", "nodeGone").removed(220, "n1")
		},
		"already terminating": func(tl *timeline) {
			tl.disrupted(100, "n1", "base").terminating(100, "default/web-1", "n1").deleted(110, "default/web-1", "n1", "nodeGone").removed(110, "n1")
		},
		"a DaemonSet's pod": func(tl *timeline) {
			tl.r.Pods["default/web-1"] = Pod{Workload: "DaemonSet/default/agent", DaemonSet: true}
			tl.disrupted(100, "n1", "base").deleted(100, "default/web-1", "n1", "nodeGone").removed(100, "n1")
		},
	}
	for name, end := range cases {
		t.Run(name, func(t *testing.T) {
			tl := newTimeline().node(0, "n1", "karpenter", "base").running(0, "default/web-1", "n1")
			tl.r.Workloads[web] = Workload{Kind: "Deployment", Steps: []Step{{At: 0, Count: 1}}}
			end(tl)
			tl.pending(tl.r.Entries[len(tl.r.Entries)-1].T, "default/web-2")
			require.Empty(t, DrainedBeforeRemoval(tl.r, analyse(tl.r)))
		})
	}
	// Before the deadline it is no excuse.
	tl := newTimeline().node(0, "n1", "karpenter", "base").running(0, "default/web-1", "n1")
	tl.r.Pools["base"] = Pool{TerminationGracePeriod: 120}
	tl.disrupted(100, "n1", "base").deleted(200, "default/web-1", "n1", "nodeGone").removed(200, "n1")
	require.Equal(t, "b", properties(DrainedBeforeRemoval(tl.r, analyse(tl.r))))
}

// budget is a maxUnavailable: 1 PDB over web's 3 replicas.
func budget(tl *timeline) {
	tl.r.Workloads[web] = Workload{Kind: "Deployment", Steps: []Step{{At: 0, Count: 3}}}
	tl.r.PDBs["default/web"] = PDB{MaxUnavailable: &Amount{Value: 1}}
	for _, p := range []string{"default/web-1", "default/web-2", "default/web-3", "default/web-4", "default/web-5", "default/web-6"} {
		tl.r.Pods[p] = Pod{Workload: web, Grace: 30, PDBs: []string{"default/web"}}
	}
	tl.node(0, "n1", "karpenter", "base").running(0, "default/web-1", "n1").running(0, "default/web-2", "n1").running(0, "default/web-3", "n1").
		disrupted(100, "n1", "base")
}

func TestBudgetsRespected(t *testing.T) {
	// One eviction at a time, each after the replacement runs: fine.
	tl := newTimeline()
	budget(tl)
	tl.evicted(100, "default/web-1", "n1").running(130, "default/web-4", "n2").
		evicted(140, "default/web-2", "n1").running(170, "default/web-5", "n2")
	require.Empty(t, BudgetsRespected(tl.r, analyse(tl.r)))

	// Two at once: the second takes the budget to 1 healthy of 3 expected.
	tl = newTimeline()
	budget(tl)
	tl.terminating(100, "default/web-1", "n1").terminating(100, "default/web-2", "n1").
		deleted(130, "default/web-1", "n1", "evicted").deleted(130, "default/web-2", "n1", "evicted")
	vs := BudgetsRespected(tl.r, analyse(tl.r))
	require.Equal(t, "c", properties(vs))
	require.Len(t, vs, 1)
	require.Contains(t, vs[0].Msg, "evicting default/web-2 from n1 (karpenter base) left PodDisruptionBudget default/web with 1 healthy pod(s) of 3 expected; it wants 2")

	// The window between a deletion and its replacement's creation: the
	// scale, not the pods that exist, is what is expected.
	tl = newTimeline()
	budget(tl)
	tl.evicted(100, "default/web-1", "n1").evicted(130, "default/web-2", "n1").pending(130, "default/web-4")
	require.Equal(t, "c", properties(BudgetsRespected(tl.r, analyse(tl.r))))

	// A reclaim takes a pod, a spot notice a second: not evictions.
	tl = newTimeline()
	budget(tl)
	tl.add(trace.Entry{T: 100, Kind: "instanceReclaimed", Node: "n1"}).deleted(100, "default/web-1", "n1", "nodeGone").
		terminating(100, "default/web-2", "n1").deleted(100, "default/web-2", "n1", "preempted")
	require.Empty(t, BudgetsRespected(tl.r, analyse(tl.r)))

	// Deleted at the drain's deadline (terminationGracePeriod 120s, the
	// pod's grace 30s: from 190s on) is not an eviction either.
	tl = newTimeline()
	budget(tl)
	tl.r.Pools["base"] = Pool{TerminationGracePeriod: 120}
	tl.terminating(190, "default/web-1", "n1").terminating(190, "default/web-2", "n1").
		deleted(220, "default/web-1", "n1", "evicted").deleted(220, "default/web-2", "n1", "evicted")
	require.Empty(t, BudgetsRespected(tl.r, analyse(tl.r)))
}

func TestNothingLost(t *testing.T) {
	ok := func() *timeline {
		return newTimeline().node(0, "n1", "static", "").running(0, "default/web-1", "n1").running(0, "default/web-2", "n1")
	}
	require.Empty(t, NothingLost(ok().r, analyse(ok().r)))
	final := ok()
	final.r.Final = []FinalPod{{Name: "default/web-1", Phase: "Running", Node: "n1"}, {Name: "default/web-2", Phase: "Running", Node: "n1"}}
	require.Empty(t, NothingLost(final.r, analyse(final.r)))

	cases := map[string]struct {
		edit func(tl *timeline)
		msg  string
	}{
		"a pod deleted without a cause, not replaced": {func(tl *timeline) { tl.deleted(10, "default/web-2", "n1", "") },
			`pod default/web-2 deleted with cause ""`},
		"an event of a pod never created": {func(tl *timeline) {
			tl.add(trace.Entry{T: 10, Kind: "podBound", Pod: "default/ghost", Node: "n1"})
		}, "podBound of pod default/ghost, which does not exist"},
		"a pod bound to a node that is gone": {func(tl *timeline) {
			tl.deleted(10, "default/web-1", "n1", "scaleDown").deleted(10, "default/web-2", "n1", "scaleDown").removed(10, "n1").pending(10, "default/web-3").
				add(trace.Entry{T: 11, Kind: "podBound", Pod: "default/web-3", Node: "n1"})
		}, "pod default/web-3 bound to node n1, which is not in the cluster"},
		"a node removed with its pod never deleted": {func(tl *timeline) { tl.removed(10, "n1") },
			"node n1 removed with pod default/web-1 still on it"},
		"two live pods of one name": {func(tl *timeline) { tl.pending(10, "default/web-1") },
			"pod default/web-1 created while a pod of that name is still live"},
		"fewer replicas than desired at the end": {func(tl *timeline) { tl.deleted(10, "default/web-2", "n1", "evicted") },
			"Deployment/default/web wants 2 replicas and ends with 1 live pod(s)"},
		"more replicas than desired at the end": {func(tl *timeline) { tl.pending(10, "default/web-3") },
			"Deployment/default/web wants 2 replicas and ends with 3 live pod(s)"},
		"the cluster disagrees with the timeline": {func(tl *timeline) {
			tl.r.Final = []FinalPod{{Name: "default/web-1", Phase: "Running", Node: "n1"}, {Name: "default/web-2", Phase: "Deleted", Cause: "nodeGone"}}
		}, "pod #1: the timeline has default/web-2 live on n1, the cluster default/web-2 Deleted (nodeGone)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tl := ok()
			c.edit(tl)
			vs := NothingLost(tl.r, analyse(tl.r))
			require.Equal(t, "d", properties(vs), "%v", vs)
			require.Contains(t, vs[0].Msg, c.msg)
		})
	}
}

// An OrderedReady StatefulSet may end short while a pod of it waits; a
// pod being replaced counts for its workload.
func TestNothingLostReplicas(t *testing.T) {
	sts := "StatefulSet/default/db"
	tl := newTimeline().node(0, "n1", "static", "")
	tl.r.Workloads = map[string]Workload{sts: {Kind: "StatefulSet", OrderedReady: true, Steps: []Step{{At: 0, Count: 3}}}}
	tl.r.Pods["default/db-0"] = Pod{Workload: sts}
	tl.add(trace.Entry{T: 0, Kind: "podCreated", Pod: "default/db-0", Workload: sts})
	require.Empty(t, NothingLost(tl.r, analyse(tl.r)), "db-0 pending holds db-1 and db-2 back")
	tl.add(trace.Entry{T: 1, Kind: "podBound", Pod: "default/db-0", Node: "n1"}).add(trace.Entry{T: 3, Kind: "podStarted", Pod: "default/db-0", Node: "n1"})
	require.Equal(t, "d", properties(NothingLost(tl.r, analyse(tl.r))), "db-0 runs: db-1 should exist")

	tl = newTimeline().node(0, "n1", "static", "").running(0, "default/web-1", "n1").running(0, "default/web-2", "n1").terminating(590, "default/web-2", "n1")
	require.Empty(t, NothingLost(tl.r, analyse(tl.r)), "web-2 terminating, its replacement not created yet")
}

func TestDoNotDisruptRespected(t *testing.T) {
	dnd := func() *timeline {
		tl := newTimeline().node(0, "n1", "karpenter", "base").running(0, "default/web-1", "n1")
		tl.r.Pods["default/web-1"] = Pod{Workload: web, Grace: 30, DoNotDisrupt: true}
		return tl.disrupted(100, "n1", "base")
	}
	tl := dnd().evicted(100, "default/web-1", "n1")
	vs := DoNotDisruptRespected(tl.r, analyse(tl.r))
	require.Equal(t, "e", properties(vs))
	require.Contains(t, vs[0].Msg, "Karpenter evicted do-not-disrupt pod default/web-1 from n1 (karpenter base)")

	tl = dnd().deleted(100, "default/web-1", "n1", "nodeGone").removed(100, "n1")
	require.Equal(t, "e", properties(DoNotDisruptRespected(tl.r, analyse(tl.r))))

	// At the drain's deadline, or after a spot signal, Karpenter may.
	tl = dnd()
	tl.r.Pools["base"] = Pool{TerminationGracePeriod: 60}
	tl.evicted(130, "default/web-1", "n1")
	require.Empty(t, DoNotDisruptRespected(tl.r, analyse(tl.r)))
	tl = dnd().add(trace.Entry{T: 100, Kind: "instanceReclaimed", Node: "n1"}).deleted(100, "default/web-1", "n1", "nodeGone").removed(100, "n1")
	require.Empty(t, DoNotDisruptRespected(tl.r, analyse(tl.r)))
	// The Cluster Autoscaler does not read the annotation.
	tl = newTimeline().node(0, "n1", "cluster-autoscaler", "ng").running(0, "default/web-1", "n1")
	tl.r.Pods["default/web-1"] = Pod{Workload: web, Grace: 30, DoNotDisrupt: true}
	tl.evicted(100, "default/web-1", "n1")
	require.Empty(t, DoNotDisruptRespected(tl.r, analyse(tl.r)))
}
