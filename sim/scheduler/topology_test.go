package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
)

// TestCountersMatchRecount drives a cluster through random binds, finishes,
// deletions and node removals, creating counters along the way (filled
// from the bound pods when created, then kept up to date on every change),
// and checks after each step that every counter equals a recount over
// every pod ever created.
func TestCountersMatchRecount(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { countersAgainstRecount(t, seed) })
	}
}

func countersAgainstRecount(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	h := newHarness(t, 1, Config{})
	for i := range 30 {
		h.node(fmt.Sprint("n", i), 64000, 1<<20, nil)
	}
	var specs []*cluster.PodSpec
	for i := range 5 {
		spec := podSpec("100m", "100Mi")
		cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default",
			Labels: map[string]string{"app": fmt.Sprint("a", i)}, Spec: &spec,
			Priority: func(string) (int32, bool, bool) { return 0, false, true }})
		require.NoError(t, err)
		specs = append(specs, cs)
	}
	namespaces := []cluster.Sym{h.cl.Syms.Intern("default"), h.cl.Syms.Intern("other")}
	type made struct {
		c     *Counter
		match func(p *cluster.Pod) bool
	}
	var counters []made
	newCounter := func() {
		// A predicate on spec and namespace, as Counter requires.
		a, b := specs[rng.IntN(len(specs))], specs[rng.IntN(len(specs))]
		ns := namespaces[rng.IntN(len(namespaces))]
		match := func(p *cluster.Pod) bool { return (p.Spec == a || p.Spec == b) && p.Namespace == ns }
		counters = append(counters, made{h.s.topo.Counter(len(counters), match), match})
	}
	check := func(step int) {
		for ci, m := range counters {
			want := make([]int32, len(h.cl.Nodes))
			total := 0
			for i := range h.cl.Pods {
				if p := &h.cl.Pods[i]; p.Phase.OnNode() && m.match(p) {
					want[p.Node]++
					total++
				}
			}
			for nid := range h.cl.Nodes {
				require.Equal(t, want[nid], m.c.On(cluster.NodeID(nid)), "step %d counter %d node %d", step, ci, nid)
			}
			require.Equal(t, total, m.c.Total(), "step %d counter %d", step, ci)
		}
	}
	var bound []cluster.PodID
	for step := range 600 {
		switch op := rng.IntN(20); {
		case op < 9:
			nodes := h.s.Nodes()
			if len(nodes) == 0 {
				continue
			}
			id := h.cl.CreatePod(cluster.Pod{Name: "p", Namespace: namespaces[rng.IntN(2)], Spec: specs[rng.IntN(len(specs))], Workload: -1})
			h.s.dequeue(id)
			h.cl.Bind(id, nodes[rng.IntN(len(nodes))])
			if rng.IntN(2) == 0 {
				h.cl.StartPod(id)
			}
			bound = append(bound, id)
		case op < 14:
			if len(bound) == 0 {
				continue
			}
			i := rng.IntN(len(bound))
			if id := bound[i]; h.cl.Pods[id].Phase == cluster.Running && rng.IntN(2) == 0 {
				h.cl.FinishPod(id, cluster.Succeeded)
			} else {
				h.cl.DeletePod(id, cluster.CauseEvicted)
			}
			bound = append(bound[:i], bound[i+1:]...)
		case op < 16:
			newCounter()
		case op == 16:
			h.cl.RemoveNode(cluster.NodeID(rng.IntN(len(h.cl.Nodes))))
			bound = slices.DeleteFunc(bound, func(id cluster.PodID) bool { return !h.cl.Pods[id].Phase.OnNode() })
		default:
			h.node(fmt.Sprint("n", len(h.cl.Nodes)), 64000, 1<<20, nil)
		}
		check(step)
	}
	require.NotEmpty(t, counters)
}
