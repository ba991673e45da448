package scheduler

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// TestQueueMatchesReference pushes, removes and pops pods of random
// priorities at random times, over pod IDs spanning several pages of pod
// states, and checks the active heap against a reference: a list sorted
// by priority, then queue time, then push order. Slots and where must
// stay true for every pod.
func TestQueueMatchesReference(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { queueAgainstReference(t, seed) })
	}
}

func queueAgainstReference(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	h := newHarness(t, 1, Config{})
	var specs []*cluster.PodSpec
	for pr := range int32(4) {
		spec := podSpec("100m", "100Mi")
		cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Spec: &spec,
			Priority: func(string) (int32, bool, bool) { return pr * 10, false, true }})
		require.NoError(t, err)
		specs = append(specs, cs)
	}
	// Pods exist in the cluster for their priorities; the queue under test
	// is a fresh one, not the scheduler's.
	const pods = 3*(1<<podStatePageBits) + 100
	for range pods {
		h.cl.CreatePod(cluster.Pod{Name: "p", Spec: specs[rng.IntN(len(specs))], Workload: -1})
	}
	q := queue{cl: h.cl}
	type ref struct {
		id       cluster.PodID
		priority int32
		at       engine.Time
		seq      int
	}
	var want []ref // sorted: the order pops must follow
	seq := 0
	in := map[cluster.PodID]bool{}
	now := engine.Time(0)
	sortRef := func() {
		sort.Slice(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if a.priority != b.priority {
				return a.priority > b.priority
			}
			if a.at != b.at {
				return a.at < b.at
			}
			return a.seq < b.seq
		})
	}
	for step := range 20000 {
		if rng.IntN(4) == 0 {
			now += time.Duration(rng.IntN(3)) * time.Second
		}
		switch op := rng.IntN(10); {
		case op < 5:
			id := cluster.PodID(rng.IntN(pods))
			if in[id] {
				continue
			}
			q.pushActive(id, now)
			seq++
			want = append(want, ref{id, h.cl.Pods[id].Spec.Priority, now, seq})
			in[id] = true
			sortRef()
		case op < 7:
			if len(want) == 0 {
				continue
			}
			i := rng.IntN(len(want))
			id := want[i].id
			q.removeActiveAt(int(q.at(id).slot))
			want = append(want[:i], want[i+1:]...)
			delete(in, id)
		default:
			id, _, ok := q.popActive()
			require.Equal(t, len(want) > 0, ok, "step %d", step)
			if !ok {
				continue
			}
			require.Equal(t, want[0].id, id, "step %d", step)
			want = want[1:]
			delete(in, id)
			require.Equal(t, notQueued, q.at(id).where)
			require.Equal(t, int32(-1), q.at(id).slot)
		}
		require.Len(t, q.active, len(want), "step %d", step)
		for i, e := range q.active {
			require.Equal(t, int32(i), q.at(e.id).slot, "step %d", step)
			require.Equal(t, inActive, q.at(e.id).where, "step %d", step)
		}
	}
	require.Greater(t, len(q.pages), 2)
	for id := range cluster.PodID(q.n) {
		if st := q.at(id); st.where == notQueued {
			require.Equal(t, int32(-1), st.slot)
			require.Equal(t, int32(-1), st.failure)
			require.Equal(t, cluster.NoNode, st.nominated)
		}
	}
}

// TestBackoffHeapOrder: the backoff heap pops by backoff expiry, then
// priority, then queue time; removals keep the slots true.
func TestBackoffHeapOrder(t *testing.T) {
	h := newHarness(t, 1, Config{})
	var ids []cluster.PodID
	for i, pr := range []int32{0, 5, 5, 0, 9} {
		ids = append(ids, h.podWithPriority(fmt.Sprint("p", i), podSpec("100m", "100Mi"), pr))
	}
	q := queue{cl: h.cl}
	s := engine.Time(time.Second)
	q.pushBackoff(ids[0], 2*s, 0)
	q.pushBackoff(ids[1], 2*s, s)
	q.pushBackoff(ids[2], 2*s, 0)
	q.pushBackoff(ids[3], s, s)
	q.pushBackoff(ids[4], 3*s, 0)
	q.removeBackoff(ids[0])
	require.Equal(t, notQueued, q.at(ids[0]).where)
	for i, e := range q.backoff.items {
		require.Equal(t, int32(i), q.at(e.id).slot)
		require.Equal(t, inBackoff, q.at(e.id).where)
	}
	var got []cluster.PodID
	for {
		id, ok := q.popBackoff()
		if !ok {
			break
		}
		got = append(got, id)
	}
	require.Equal(t, []cluster.PodID{ids[3], ids[2], ids[1], ids[4]}, got)
}
