package clusterautoscaler

import (
	"fmt"
	"math"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Replaying removal simulations. Unneeded nodes are simulated again loop
// after loop while they wait for their unneeded time and their turn to
// drain. A canRemove call reads its node's pods and their blockers, and
// the destinations in ID order up to the last one its pods went to (first
// fit), as the earlier calls of the pass left them. So when the calls of
// a pass start as the previous pass's did, a call that succeeded then
// succeeds again with the same moves if its node has not changed, no node
// with an ID up to its last destination has (a destination's membership,
// flags, pods and room change only with notifications, and new nodes get
// higher IDs) and its pods' blockers still let it go. Such calls are
// replayed without a search; their moves are applied to the destinations
// only when a later call of the pass cannot be replayed and runs for real
// (from then on, the pass runs for real).

// removal is a canRemove call of a pass.
type removal struct {
	id    cluster.NodeID
	ok    bool
	last  cluster.NodeID // the highest destination its pods went to (-1: none)
	moves int32          // end of its moves in the pass's moves
}

// replayMove is a pod a successful call moved.
type replayMove struct {
	dest cluster.NodeID
	spec *cluster.PodSpec
	ns   cluster.Sym
}

type removalPass struct {
	calls []removal
	moves []replayMove
}

type replayState struct {
	prev, cur removalPass
	pass      uint32   // passes started
	changedAt []uint32 // by NodeID: pass when the node last changed
	// minChanged is the lowest ID of a node changed since the current
	// pass started; minPrev, since the previous one did.
	minChanged, minPrev cluster.NodeID
	on                  bool // every call of this pass so far was replayed
	// pending counts the replayed calls whose moves are not applied to
	// the destinations yet: only a call that runs for real needs them.
	pending int
	// verify (tests) runs replayable calls for real and panics unless
	// they give the recorded answer and moves; verified counts them.
	verify   bool
	verified int
}

// clone is a deep copy of the replay state (PlanScaleDown's save).
func (r *replayState) clone() replayState {
	c := *r
	c.prev = removalPass{calls: slices.Clone(r.prev.calls), moves: slices.Clone(r.prev.moves)}
	c.cur = removalPass{calls: slices.Clone(r.cur.calls), moves: slices.Clone(r.cur.moves)}
	c.changedAt = slices.Clone(r.changedAt)
	return c
}

// touched records a change of a node's pods, room or flags.
func (r *replayState) touched(id cluster.NodeID) {
	for int(id) >= len(r.changedAt) {
		r.changedAt = append(r.changedAt, 0)
	}
	r.changedAt[id] = r.pass
	r.minChanged = min(r.minChanged, id)
}

// startPass starts a pass of canRemove calls (removable).
func (pl *planner) startPass() {
	r := &pl.replay
	r.pass++
	r.minPrev, r.minChanged = r.minChanged, math.MaxInt32
	r.prev, r.cur = r.cur, r.prev
	r.cur.calls, r.cur.moves = r.cur.calls[:0], r.cur.moves[:0]
	r.on, r.pending = true, 0
}

// removable is canRemove, replayed when its answer is known (see above).
func (pl *planner) removable(id cluster.NodeID, dests *destSet) string {
	r := &pl.replay
	k := len(r.cur.calls)
	if r.on && pl.canReplay(id, k) {
		if !r.verify {
			pl.replayCall(k)
			pl.useBudgets(id)
			return ""
		}
		why := pl.canRemove(id, dests)
		pl.checkReplay(k, why)
		r.verified++
		return why
	}
	r.on = false
	pl.applyPending(dests)
	return pl.canRemove(id, dests)
}

// canReplay reports whether call k of this pass, for node id, can repeat
// call k of the previous pass.
func (pl *planner) canReplay(id cluster.NodeID, k int) bool {
	r := &pl.replay
	if k >= len(r.prev.calls) {
		return false
	}
	c := &r.prev.calls[k]
	if c.id != id || !c.ok || c.last >= r.minPrev || pl.changedSincePrev(id) {
		return false
	}
	pods := pl.state(id).pods
	for i := range pods {
		if p := &pods[i]; !p.term && !p.daemon && pl.blockerRef(p) != "" {
			return false
		}
	}
	return true
}

// moveRange returns the moves of call k of a pass.
func (p *removalPass) moveRange(k int) []replayMove {
	start := int32(0)
	if k > 0 {
		start = p.calls[k-1].moves
	}
	return p.moves[start:p.calls[k].moves]
}

// replayCall repeats call k of the previous pass: its record is copied,
// its moves left pending.
func (pl *planner) replayCall(k int) {
	r := &pl.replay
	c := r.prev.calls[k]
	r.cur.moves = append(r.cur.moves, r.prev.moveRange(k)...)
	c.moves = int32(len(r.cur.moves))
	r.cur.calls = append(r.cur.calls, c)
	r.pending++
}

// applyPending applies the pending replayed calls to the destinations as
// canRemove would have: each node gone, its pods moved.
func (pl *planner) applyPending(dests *destSet) {
	r := &pl.replay
	for k := len(r.cur.calls) - r.pending; k < len(r.cur.calls); k++ {
		if self := dests.get(r.cur.calls[k].id); self != nil {
			self.gone = true
		}
		for _, m := range r.cur.moveRange(k) {
			d := dests.get(m.dest)
			if d == nil {
				panic(fmt.Sprintf("clusterautoscaler: replayed move to node %d, not a destination", m.dest))
			}
			d.free = d.free.Sub(m.spec.Requests)
			d.extra = append(d.extra, placedPod{m.spec, m.ns})
		}
	}
	r.pending = 0
}

// verdict is the outcome of a canRemove call: the node is removable (its
// pods have moves) or blocked.
type verdict bool

const (
	nodeBlocked   verdict = false
	nodeRemovable verdict = true
)

// recordCall records a canRemove call that ran for real.
func (pl *planner) recordCall(id cluster.NodeID, v verdict, moves []move, dests *destSet) {
	r := &pl.replay
	ok := v == nodeRemovable
	c := removal{id: id, ok: ok, last: -1}
	if ok {
		for _, m := range moves {
			dest := dests.ids[m.dest]
			c.last = max(c.last, dest)
			r.cur.moves = append(r.cur.moves, replayMove{dest: dest, spec: m.spec, ns: m.ns})
		}
	}
	c.moves = int32(len(r.cur.moves))
	r.cur.calls = append(r.cur.calls, c)
}

// changedSincePrev reports whether a node changed since the previous
// pass started.
func (pl *planner) changedSincePrev(id cluster.NodeID) bool {
	r := &pl.replay
	return int(id) >= len(r.changedAt) || r.changedAt[id]+1 >= r.pass
}

// checkReplay (tests) compares call k of this pass, run for real, with
// call k of the previous pass that would have been replayed.
func (pl *planner) checkReplay(k int, why string) {
	r := &pl.replay
	want, got := r.prev.calls[k], r.cur.calls[k]
	wm, gm := r.prev.moveRange(k), r.cur.moveRange(k)
	same := why == "" && got.ok && got.last == want.last && len(wm) == len(gm)
	for i := 0; same && i < len(wm); i++ {
		same = wm[i] == gm[i]
	}
	if !same {
		panic(fmt.Sprintf("clusterautoscaler: replay of node %d's removal would be wrong: %q, moves %v, want %v", want.id, why, gm, wm))
	}
}
