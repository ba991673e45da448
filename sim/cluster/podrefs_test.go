package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each node's PodRefs mirror its Pods and the pod records, through any
// sequence of binds, starts, terminations, finishes and deletions over
// several nodes (unbinding moves the last pod into the freed slot).
func TestPodRefsMirrorPods(t *testing.T) {
	c := New(fixedClock{}, NewSymbols(), NewResourceNames())
	var alloc Resources
	alloc[CPU], alloc[Pods] = 1_000_000, 1000
	var nodes []NodeID
	for i := range 3 {
		nodes = append(nodes, c.AddNode(Node{Name: fmt.Sprint("n", i), Allocatable: alloc, State: NodeReady}))
	}
	specs := []*PodSpec{{Priority: 1}, {Priority: 2}, {NodeName: "n0"}}
	namespaces := []Sym{c.Syms.Intern("a"), c.Syms.Intern("b")}
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for range 4000 {
		n := len(c.Pods)
		id := PodID(rng.IntN(max(n, 1)))
		switch op := rng.IntN(12); {
		case op < 3 || n < 5:
			c.CreatePod(Pod{Name: fmt.Sprint("p", n), Namespace: namespaces[rng.IntN(2)], Spec: specs[rng.IntN(3)]})
			continue
		case op < 6 && c.Pods[id].Phase == Pending:
			c.Bind(id, nodes[rng.IntN(len(nodes))])
		case op < 8 && c.Pods[id].Phase == Bound:
			c.StartPod(id)
		case op == 8:
			c.MarkTerminating(id)
		case op == 9 && c.Pods[id].Phase == Running:
			c.FinishPod(id, Succeeded)
		case op >= 10:
			c.DeletePod(id, CauseEvicted)
		}
		for _, nid := range nodes {
			node := &c.Nodes[nid]
			require.Len(t, node.PodRefs, len(node.Pods))
			for i, pid := range node.Pods {
				p := &c.Pods[pid]
				require.Equal(t, PodRef{Spec: p.Spec, Created: p.Created, UIDRank: p.UIDRank, Namespace: p.Namespace, Terminating: p.Terminating}, node.PodRefs[i])
				checked++
			}
		}
	}
	require.Greater(t, checked, 10000)
}
