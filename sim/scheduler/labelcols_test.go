package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
)

// TestLabelColumnsMatchLabels checks the label columns against the nodes'
// labels through random node additions, label changes (including to the
// empty value) and removals, with columns created along the way.
func TestLabelColumnsMatchLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	h := newHarness(t, 1, Config{})
	keys := []cluster.Sym{h.cl.KeyZone, h.cl.KeyHostname, h.cl.Syms.Intern("rack"), h.cl.Syms.Intern("pool")}
	addNode := func() {
		labels := map[string]string{}
		if rng.IntN(3) > 0 {
			labels["topology.kubernetes.io/zone"] = fmt.Sprint("z", rng.IntN(3))
		}
		if rng.IntN(2) > 0 {
			labels["rack"] = fmt.Sprint("r", rng.IntN(5))
		}
		h.node(fmt.Sprint("n", len(h.cl.Nodes)), 64000, 1<<20, labels)
	}
	for range 10 {
		addNode()
	}
	var used []cluster.Sym
	for step := range 1000 {
		switch op := rng.IntN(10); {
		case op < 2:
			addNode()
		case op < 7:
			v := fmt.Sprint("v", rng.IntN(4))
			if rng.IntN(4) == 0 {
				v = ""
			}
			h.cl.SetLabel(cluster.NodeID(rng.IntN(len(h.cl.Nodes))), keys[rng.IntN(len(keys))], h.cl.Syms.Intern(v))
		case op == 7:
			h.cl.RemoveNode(cluster.NodeID(rng.IntN(len(h.cl.Nodes))))
		default:
			if len(used) < len(keys) {
				used = append(used, keys[len(used)])
			}
		}
		for _, key := range used {
			col := h.s.labelColumn(key)
			require.Len(t, col, len(h.cl.Nodes), "step %d", step)
			for id := range h.cl.Nodes {
				v, ok := h.cl.Nodes[id].Labels.Get(key)
				require.Equal(t, labelVal{v, ok}, col[id], "step %d key %d node %d", step, key, id)
			}
		}
	}
	require.Len(t, used, len(keys))
}
