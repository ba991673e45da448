package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// nodeView is what the models' per-node caches read of a node other than
// its pods and room: the scheduler's static filters and StaticFit (name,
// labels, taints, cordon), the Cluster Autoscaler's node flags (cordon,
// taints, labels, state).
type nodeView struct {
	name          string
	nameSym       Sym
	labels        Labels
	taints        []Taint
	unschedulable bool
	state         NodeState
}

func viewOf(n *Node) nodeView {
	return nodeView{n.Name, n.NameSym, slices.Clone(n.Labels), slices.Clone(n.Taints), n.Unschedulable, n.State}
}

func (v nodeView) equal(o nodeView) bool {
	return v.name == o.name && v.nameSym == o.nameSym && slices.Equal(v.labels, o.labels) &&
		slices.Equal(v.taints, o.taints) && v.unschedulable == o.unschedulable && v.state == o.state
}

// epochChecker watches a cluster and checks, at every notification and
// after every call, that each node's epoch moved exactly when it should.
type epochChecker struct {
	t      *testing.T
	c      *Cluster
	epochs []uint32   // by NodeID, as of the last check
	views  []nodeView // by NodeID, as of the last check
	kinds  map[ChangeKind]int
}

func (w *epochChecker) OnChange(ch Change) {
	w.kinds[ch.Kind]++
	w.check(&ch)
}

// check compares every node with the last check. ch is the notification
// being delivered (nil between calls).
func (w *epochChecker) check(ch *Change) {
	t, c := w.t, w.c
	for id := range c.Nodes {
		nid := NodeID(id)
		if id == len(w.epochs) {
			// Only NodeAdded may show a new node, at epoch 1.
			require.True(t, ch != nil && ch.Kind == NodeAdded && ch.Node == nid, "node %d appeared without NodeAdded", id)
			w.epochs, w.views = append(w.epochs, 0), append(w.views, nodeView{})
		}
		ep, view := c.NodeEpoch(nid), viewOf(&c.Nodes[id])
		switch {
		case ch != nil && ch.Kind >= NodeAdded && ch.Node == nid:
			require.Equal(t, w.epochs[id]+1, ep, "a node notification (kind %d) moves the node's epoch once, before watchers hear of it", ch.Kind)
		default:
			require.Equal(t, w.epochs[id], ep, "node %d's epoch moved without a notification about it (%+v)", id, ch)
			require.True(t, view.equal(w.views[id]), "node %d changed without its epoch moving (%+v)", id, ch)
		}
		w.epochs[id], w.views[id] = ep, view
	}
}

// Every kind of node change the caches rely on moves the node's epoch
// before any watcher hears of it; pod changes, no-op calls and other nodes'
// changes leave it alone; and nothing a cache reads of a node changes
// without its epoch moving.
func TestNodeEpochMovesOnEveryNodeChange(t *testing.T) {
	c := New(fixedClock{}, NewSymbols(), NewResourceNames())
	w := &epochChecker{t: t, c: c, kinds: map[ChangeKind]int{}}
	c.Watch(w)
	var alloc Resources
	alloc[CPU], alloc[Pods] = 1_000_000, 1000
	keys := []Sym{c.Syms.Intern("a"), c.Syms.Intern("b")}
	values := []Sym{c.Syms.Intern("x"), c.Syms.Intern("y")}
	taints := []Taint{{Key: keys[0], Effect: EffectNoSchedule}, {Key: keys[1], Value: values[0], Effect: EffectNoExecute}}
	spec := &PodSpec{Priority: 1}
	rng := rand.New(rand.NewPCG(5, 6))

	for i := range 3000 {
		nodes, pods := len(c.Nodes), len(c.Pods)
		nid := NodeID(rng.IntN(max(nodes, 1)))
		pid := PodID(rng.IntN(max(pods, 1)))
		live := nodes > 0 && c.Nodes[nid].State != NodeGone
		switch op := rng.IntN(16); {
		case op < 2 || nodes < 3:
			state := NodeLaunching
			if rng.IntN(2) == 0 {
				state = NodeReady
			}
			c.AddNode(Node{Name: fmt.Sprint("n", i), Allocatable: alloc, State: state})
		case op == 2 && live && c.Nodes[nid].State == NodeLaunching:
			c.MarkNodeReady(nid)
		case op == 3 && live:
			c.SetCordon(nid, rng.IntN(2) == 0) // half the time a no-op
		case op == 4 && live:
			c.SetTaints(nid, taints[:rng.IntN(len(taints)+1)])
		case op == 5 && live:
			c.AddTaint(nid, taints[rng.IntN(len(taints))]) // a no-op when there
		case op == 6 && live:
			c.RemoveTaint(nid, taints[0].Key, taints[0].Effect) // a no-op when absent
		case op == 7 && live:
			c.SetLabel(nid, keys[rng.IntN(2)], values[rng.IntN(2)])
		case op == 8 && nodes > 0 && rng.IntN(4) == 0:
			c.RemoveNode(nid) // a no-op on a gone node
		case op == 9 || pods == 0:
			c.CreatePod(Pod{Name: fmt.Sprint("p", i), Spec: spec})
		case op == 10 && live && c.Nodes[nid].State == NodeReady && c.Pods[pid].Phase == Pending:
			c.Bind(pid, nid)
		case op == 11 && c.Pods[pid].Phase == Bound:
			c.StartPod(pid)
		case op == 12:
			c.MarkTerminating(pid)
		case op == 13 && c.Pods[pid].Phase == Running:
			c.FinishPod(pid, Succeeded)
		case op == 14:
			c.DeletePod(pid, CauseEvicted)
		case op == 15:
			c.MarkUnschedulable(pid)
		}
		w.check(nil)
	}
	for k := PodCreated; k <= NodeRemoved; k++ {
		require.Positive(t, w.kinds[k], "change kind %d never happened: the test lost its coverage", k)
	}
}
