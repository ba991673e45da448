package workload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// stsFixture is one StatefulSet "db" with a node to run its pods on by
// hand (there is no scheduler or kubelet here).
type stsFixture struct {
	t    *testing.T
	eng  *engine.Engine
	cl   *cluster.Cluster
	node cluster.NodeID
}

func newSTS(t *testing.T, s Spec) *stsFixture {
	t.Helper()
	s.Kind, s.Namespace, s.Name, s.TwinOf = StatefulSet, "data", "db", -1
	if s.Pod == nil {
		s.Pod = &cluster.PodSpec{}
	}
	eng, cl, _ := setup(t, s)
	var alloc cluster.Resources
	alloc[cluster.Pods] = 100
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	return &stsFixture{t: t, eng: eng, cl: cl, node: n}
}

// id is the live pod of that name.
func (f *stsFixture) id(name string) cluster.PodID {
	f.t.Helper()
	for i := range f.cl.Pods {
		if p := &f.cl.Pods[i]; p.Name == name && !p.Phase.Terminal() {
			return cluster.PodID(i)
		}
	}
	f.t.Fatalf("no live pod %s (live: %v)", name, livePods(f.cl))
	return cluster.NoPod
}

// start binds and starts the named pods, then lets the controller react.
func (f *stsFixture) start(names ...string) {
	f.t.Helper()
	for _, name := range names {
		id := f.id(name)
		f.cl.Bind(id, f.node)
		f.cl.StartPod(id)
	}
	f.eng.Run(f.eng.Now() + time.Millisecond)
}

func (f *stsFixture) runTo(t time.Duration) { f.eng.Run(t) }

func (f *stsFixture) live() []string { return livePods(f.cl) }

// TestOrderedReadyCreatesOneAtATime: with the default policy the
// controller creates db-1 only once db-0 is Running and Ready, db-2 only
// once db-1 is (stateful_set_control.go processReplica: "if the set does
// not allow bursting, return immediately" after a creation).
func TestOrderedReadyCreatesOneAtATime(t *testing.T) {
	f := newSTS(t, Spec{OrderedReady: true, Replicas: ReplicaPlan{Steps: []Step{{0, 3}}}})
	f.runTo(time.Second)
	require.Equal(t, []string{"db-0"}, f.live(), "db-1 waits for db-0")
	f.cl.Bind(f.id("db-0"), f.node)
	f.runTo(2 * time.Second)
	require.Equal(t, []string{"db-0"}, f.live(), "bound is not Running")
	f.cl.StartPod(f.id("db-0"))
	f.runTo(3 * time.Second)
	require.Equal(t, []string{"db-0", "db-1"}, f.live())
	f.start("db-1")
	require.Equal(t, []string{"db-0", "db-1", "db-2"}, f.live())
}

// TestParallelCreatesAtOnce: podManagementPolicy Parallel creates every
// replica at once, whatever state the others are in.
func TestParallelCreatesAtOnce(t *testing.T) {
	f := newSTS(t, Spec{Replicas: ReplicaPlan{Steps: []Step{{0, 3}}}})
	f.runTo(time.Second)
	require.Equal(t, []string{"db-0", "db-1", "db-2"}, f.live())
	f.cl.DeletePod(f.id("db-0"), cluster.CauseNodeGone)
	f.cl.DeletePod(f.id("db-1"), cluster.CauseNodeGone)
	f.runTo(2 * time.Second)
	require.ElementsMatch(t, []string{"db-0", "db-1", "db-2"}, f.live(), "both come back at once")
}

// TestOrderedReadyHaltsBehindPendingOrdinal: every replica is lost (their
// node went); db-0 comes back and stays Pending (say its volume's zone has
// no capacity), and while it does, db-1 and db-2 are not created: the
// monotonic halt.
func TestOrderedReadyHaltsBehindPendingOrdinal(t *testing.T) {
	f := newSTS(t, Spec{OrderedReady: true, Replicas: ReplicaPlan{Steps: []Step{{0, 3}}}})
	f.runTo(time.Second)
	f.start("db-0")
	f.start("db-1")
	f.start("db-2")
	for _, n := range []string{"db-0", "db-1", "db-2"} {
		f.cl.DeletePod(f.id(n), cluster.CauseNodeGone)
	}
	f.runTo(time.Hour)
	require.Equal(t, []string{"db-0"}, f.live(), "db-1 and db-2 wait for db-0")
	f.start("db-0")
	require.Equal(t, []string{"db-0", "db-1"}, f.live())
}

// TestOrderedReadyHaltKeepsHigherPods: db-1 is lost and comes back
// Pending; db-2, which still runs, stays, but once db-2 is lost too it is
// not recreated while db-1 is not Running and Ready.
func TestOrderedReadyHaltKeepsHigherPods(t *testing.T) {
	f := newSTS(t, Spec{OrderedReady: true, Replicas: ReplicaPlan{Steps: []Step{{0, 3}}}})
	f.runTo(time.Second)
	f.start("db-0")
	f.start("db-1")
	f.start("db-2")
	f.cl.DeletePod(f.id("db-1"), cluster.CauseNodeGone)
	f.runTo(time.Minute)
	require.Equal(t, []string{"db-0", "db-2", "db-1"}, f.live())
	f.cl.DeletePod(f.id("db-2"), cluster.CauseNodeGone)
	f.runTo(time.Hour)
	require.Equal(t, []string{"db-0", "db-1"}, f.live(), "db-2 waits for db-1")
}

// TestOrderedReadyMinReadySeconds: db-1 is created minReadySeconds after
// db-0 started (isRunningAndAvailable).
func TestOrderedReadyMinReadySeconds(t *testing.T) {
	f := newSTS(t, Spec{OrderedReady: true, MinReady: 30 * time.Second, Replicas: ReplicaPlan{Steps: []Step{{0, 2}}}})
	f.runTo(time.Second)
	f.start("db-0") // at 1s
	f.runTo(30 * time.Second)
	require.Equal(t, []string{"db-0"}, f.live(), "db-0 is not available yet")
	f.runTo(31 * time.Second)
	require.Equal(t, []string{"db-0", "db-1"}, f.live())
	require.Equal(t, 31*time.Second, f.cl.Pods[f.id("db-1")].Created)
}

// TestOrderedReadyWaitsForReadiness: db-1 is created only once db-0 is
// Ready, ReadyAfter after it started (its readiness probe's first success,
// kubelet.ReadyAfter), and minReadySeconds count from Ready
// (podutil.IsPodAvailable: Ready for minReadySeconds).
func TestOrderedReadyWaitsForReadiness(t *testing.T) {
	for _, tc := range []struct {
		minReady, want time.Duration
	}{
		{0, 11 * time.Second},
		{5 * time.Second, 16 * time.Second},
	} {
		f := newSTS(t, Spec{OrderedReady: true, ReadyAfter: 10 * time.Second, MinReady: tc.minReady,
			Replicas: ReplicaPlan{Steps: []Step{{0, 2}}}})
		f.runTo(time.Second)
		f.start("db-0") // at 1s
		f.runTo(tc.want - time.Millisecond)
		require.Equal(t, []string{"db-0"}, f.live(), "db-0 is Running but not Ready yet (minReady %v)", tc.minReady)
		f.runTo(tc.want)
		require.Equal(t, []string{"db-0", "db-1"}, f.live(), "minReady %v", tc.minReady)
		require.Equal(t, tc.want, f.cl.Pods[f.id("db-1")].Created)
	}
}

// deletions records the order and the instants of pod deletions.
type deletions struct {
	cl    *cluster.Cluster
	names []string
}

func (d *deletions) OnChange(ch cluster.Change) {
	if ch.Kind == cluster.PodDeleted {
		d.names = append(d.names, d.cl.Pods[ch.Pod].Name)
	}
}

// TestOrderedReadyScaleDown: scale-down deletes the highest ordinal first,
// one at a time: it waits while the condemned pod is terminating, and it
// does not start while a lower ordinal is not Running and Ready.
func TestOrderedReadyScaleDown(t *testing.T) {
	f := newSTS(t, Spec{OrderedReady: true, Replicas: ReplicaPlan{Steps: []Step{{0, 4}, {time.Minute, 1}}}})
	d := &deletions{cl: f.cl}
	f.cl.Watch(d)
	f.runTo(time.Second)
	for _, n := range []string{"db-0", "db-1", "db-2", "db-3"} {
		f.start(n)
	}
	// db-3 is being evicted: it terminates until 2m.
	f.cl.MarkTerminating(f.id("db-3"))
	f.runTo(90 * time.Second)
	require.Equal(t, []string{"db-0", "db-1", "db-2", "db-3"}, f.live(), "nothing goes while db-3 terminates")
	require.Empty(t, d.names)
	f.eng.Run(2 * time.Minute)
	f.cl.DeletePod(f.id("db-3"), cluster.CauseEvicted)
	f.runTo(2*time.Minute + time.Second)
	require.Equal(t, []string{"db-3", "db-2", "db-1"}, d.names, "then the rest, highest first")
	require.Equal(t, []string{"db-0"}, f.live())
}

// TestOrderedReadyScaleDownHalts: while db-0 is not Running and Ready, a
// scale-down deletes nothing (the replicas are walked first, and the walk
// stops at db-0); Parallel deletes the condemned pods at once.
func TestOrderedReadyScaleDownHalts(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		f := newSTS(t, Spec{OrderedReady: ordered, Replicas: ReplicaPlan{Steps: []Step{{0, 3}, {time.Minute, 1}}}})
		f.runTo(time.Second)
		f.start("db-0")
		f.start("db-1")
		f.start("db-2")
		f.cl.DeletePod(f.id("db-0"), cluster.CauseNodeGone)
		f.runTo(2 * time.Minute)
		if ordered {
			require.Equal(t, []string{"db-1", "db-2", "db-0"}, f.live(), "db-0 is Pending: no scale-down")
			f.start("db-0")
			f.runTo(3 * time.Minute)
		}
		require.Equal(t, []string{"db-0"}, f.live(), "ordered=%v", ordered)
	}
}

// TestStatefulSetScaleDownByOrdinal: scale-down removes the pods beyond
// the new replica count (the condemned ordinals), not the newest pods: a
// replaced db-1 is newer than db-2, yet db-2 goes.
func TestStatefulSetScaleDownByOrdinal(t *testing.T) {
	for _, ordered := range []bool{true, false} {
		f := newSTS(t, Spec{OrderedReady: ordered, Replicas: ReplicaPlan{Steps: []Step{{0, 3}, {time.Minute, 2}}}})
		f.runTo(time.Second)
		f.start("db-0")
		f.start("db-1")
		f.start("db-2")
		f.cl.DeletePod(f.id("db-1"), cluster.CauseNodeGone)
		f.runTo(2 * time.Second)
		f.start("db-1") // the replacement: the newest pod
		f.runTo(2 * time.Minute)
		require.Equal(t, []string{"db-0", "db-1"}, f.live(), "ordered=%v", ordered)
	}
}

// TestOrderedReadyScaleDownFirstUnavailable: a condemned pod that is not
// Running and Ready is deleted when it is the lowest such condemned pod
// (upstream's firstUnavailablePod), and blocks the scale-down otherwise.
func TestOrderedReadyScaleDownFirstUnavailable(t *testing.T) {
	f := newSTS(t, Spec{OrderedReady: true, Replicas: ReplicaPlan{Steps: []Step{{0, 3}, {time.Minute, 1}}}})
	f.runTo(time.Second)
	f.start("db-0")
	f.start("db-1")
	f.start("db-2")
	f.cl.DeletePod(f.id("db-2"), cluster.CauseNodeGone) // comes back Pending
	f.runTo(2 * time.Minute)
	require.Equal(t, []string{"db-0"}, f.live(), "the Pending db-2 is the first unavailable: it goes, then db-1")

	f = newSTS(t, Spec{OrderedReady: true, Replicas: ReplicaPlan{Steps: []Step{{0, 3}, {time.Minute, 1}}}})
	f.runTo(time.Second)
	f.start("db-0")
	f.start("db-1")
	f.start("db-2")
	f.cl.DeletePod(f.id("db-2"), cluster.CauseNodeGone)
	f.runTo(2 * time.Second)
	f.cl.DeletePod(f.id("db-1"), cluster.CauseNodeGone) // both Pending now
	f.runTo(2 * time.Minute)
	require.Equal(t, []string{"db-0", "db-2", "db-1"}, f.live(), "db-2 is not the first unavailable (db-1 is): it waits")
	f.start("db-2")
	require.Equal(t, []string{"db-0"}, f.live(), "db-2 runs: it goes, then db-1, now the first unavailable")
}
