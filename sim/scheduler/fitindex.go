package scheduler

import (
	"math/bits"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Fit indexes: incremental filter verdicts for a class of pods.
//
// When a cycle runs only the static filters and NodeResourcesFit (no
// hard topology spread, no inter-pod affinity to check), a node's verdict
// for a pod depends on the pod's spec class (staticcache.go) and requests
// only, and changes only when the node changes or a pod binds to or
// leaves it. A fitIndex keeps, for one (profile, spec class, requests),
// every scanned node's verdict up to date on those changes, with:
//
//   - a bitset over scan positions of the nodes that pass, so a cycle
//     finds the first feasible nodes in scan order by skipping the others
//     64 at a time, and knows at once when there are none;
//   - the count of nodes per rejection reason and per filter, which is
//     what a cycle that finds no node reports (its fit error message and
//     queueing hints), so failed cycles scan nothing.
//
// A cycle through the index returns exactly what the node-by-node scan
// returns: the same feasible nodes in the same order, the same number of
// nodes processed (hence the same next start), and on failure the same
// reason counts and rejecting filters. The scan's list of nodes for
// preemption is not kept: the index serves only pods that cannot
// preempt.
type fitIndex struct {
	fw    *framework
	table *staticTable
	cs    CycleState // a representative spec: the static filters read only its class content
	req   cluster.Resources
	res   *nodeResourcesFit
	resFi int

	// verdict per NodeID: 0 not scanned; 1 feasible; 2+fi static
	// rejection by filter fi (reason in sreason); 0x100|mask insufficient
	// resources (bit i: resource slot i).
	verdict []uint16
	sreason []Reason
	// feasible holds one bit per scan position.
	feasible []uint64
	nFeas    int
	counts   []int32 // per Reason: nodes that gave it
	rejects  [32]int32
	// epoch is the scheduler's orderEpoch the bitset follows; when the
	// scan order changed since, the bitset is rebuilt before use.
	epoch uint64
}

type fitKey struct {
	fw    *framework
	class int32
	req   cluster.Resources
}

// fitIndexFor returns the index that serves this cycle, or nil when the
// cycle runs other filters or the pod may preempt.
func (s *Scheduler) fitIndexFor(fw *framework, cs *CycleState) *fitIndex {
	// A pod with volumes is scanned node by node, as it always was (its
	// volume filters come after NodeResourcesFit in the default profile).
	if fw.resFi < 0 || len(fw.dynamic) != 1 || fw.dynamic[0] != fw.resFi || !fw.staticActive() || s.canPreempt(cs.Spec) || cs.Spec.Volume != nil {
		return nil
	}
	key := fitKey{fw, s.specClassOf(cs.Spec), cs.Spec.Requests}
	if x := s.fitIdx[key]; x != nil {
		if x.epoch != s.orderEpoch {
			x.rebuild(s)
		}
		return x
	}
	x := &fitIndex{fw: fw, table: s.staticTableFor(fw, cs.Spec), cs: CycleState{Spec: cs.Spec}, req: cs.Spec.Requests,
		res: fw.filters[fw.resFi].(*nodeResourcesFit), resFi: fw.resFi}
	x.feasible = make([]uint64, (len(s.nodes)+63)/64)
	x.epoch = s.orderEpoch // the layout set fills
	for pos, nid := range s.nodes {
		x.set(s, nid, pos)
	}
	s.fitIdx[key] = x
	s.fitList = append(s.fitList, x)
	return x
}

// eval computes a scanned node's verdict and, for a static rejection,
// its reason: that of the first filter in filter order that rejects the
// node, as the scan finds it. A static filter listed after
// NodeResourcesFit (a profile may list them so) loses to insufficient
// resources; ranking every static verdict first gave such a profile's
// failed cycles other reasons than the scan's.
func (x *fitIndex) eval(s *Scheduler, nid cluster.NodeID) (uint16, Reason) {
	n := &s.cl.Nodes[nid]
	e := s.static(x.fw, x.table, &x.cs, nid, n)
	if e.fail >= 0 && int(e.fail) < x.resFi {
		return 2 + uint16(e.fail), e.reason
	}
	var mask uint16
	for i := 0; i < cluster.MaxResources; i++ {
		if x.req[i] != 0 && x.req[i] > n.Allocatable[i]-n.Requested[i] {
			mask |= 1 << i
		}
	}
	switch {
	case mask != 0:
		return 0x100 | mask, Pass
	case e.fail >= 0:
		return 2 + uint16(e.fail), e.reason
	}
	return 1, Pass
}

// account adds (d = 1) or removes (d = -1) a verdict's reasons.
func (x *fitIndex) account(v uint16, sr Reason, d int32) {
	switch {
	case v == 0:
	case v == 1:
		x.nFeas += int(d)
	case v&0x100 == 0:
		x.count(sr, d)
		x.rejects[v-2] += d
	default:
		for m := v & 0xff; m != 0; m &= m - 1 {
			x.count(x.res.reasons[bits.TrailingZeros16(m)], d)
		}
		x.rejects[x.resFi] += d
	}
}

func (x *fitIndex) count(r Reason, d int32) {
	for int(r) >= len(x.counts) {
		x.counts = append(x.counts, 0)
	}
	x.counts[r] += d
}

// set (re)evaluates a node at a scan position. The bitset follows the
// scan order of x.epoch: when the order has changed since (a node added,
// removed or moved zone, and no cycle used the index yet), only the
// verdict is kept, and the next use lays the bitset out anew (rebuild).
// Writing bits of the new order into the old layout would both corrupt it
// and reach past its end.
func (x *fitIndex) set(s *Scheduler, nid cluster.NodeID, pos int) {
	if x.epoch != s.orderEpoch {
		pos = -1
	}
	x.unset(nid, pos)
	v, sr := x.eval(s, nid)
	for int(nid) >= len(x.verdict) {
		x.verdict = append(x.verdict, 0)
		x.sreason = append(x.sreason, Pass)
	}
	x.verdict[nid], x.sreason[nid] = v, sr
	x.account(v, sr, 1)
	if pos < 0 {
		return
	}
	for pos/64 >= len(x.feasible) {
		x.feasible = append(x.feasible, 0)
	}
	if v == 1 {
		x.feasible[pos/64] |= 1 << (pos % 64)
	}
}

// unset forgets a node's verdict and clears its bit at pos (pos < 0:
// none). pos is a position of the current layout (see set).
func (x *fitIndex) unset(nid cluster.NodeID, pos int) {
	if int(nid) >= len(x.verdict) || x.verdict[nid] == 0 {
		return
	}
	old := x.verdict[nid]
	x.account(old, x.sreason[nid], -1)
	x.verdict[nid] = 0
	if pos >= 0 && old == 1 {
		x.feasible[pos/64] &^= 1 << (pos % 64)
	}
}

// rebuild lays the bitset out anew over the current scan order from the
// verdicts, which follow NodeIDs and stay valid.
func (x *fitIndex) rebuild(s *Scheduler) {
	words := (len(s.nodes) + 63) / 64
	if cap(x.feasible) < words {
		x.feasible = make([]uint64, words)
	}
	x.feasible = x.feasible[:words]
	clear(x.feasible)
	for pos, nid := range s.nodes {
		if int(nid) < len(x.verdict) && x.verdict[nid] == 1 {
			x.feasible[pos/64] |= 1 << (pos % 64)
		}
	}
	x.epoch = s.orderEpoch
}

// fitNodeChanged re-evaluates a node in every index (its room, labels,
// taints or cordon changed).
func (s *Scheduler) fitNodeChanged(nid cluster.NodeID) {
	s.roomChanged(nid)
	if len(s.fitList) == 0 {
		return
	}
	pos := -1
	if s.scanned(nid) {
		pos = int(s.nodeSlot[nid])
	}
	for _, x := range s.fitList {
		if pos >= 0 {
			x.set(s, nid, pos)
		} else {
			x.unset(nid, -1)
		}
	}
}

// findIndexed is findFeasible through an index.
func (s *Scheduler) findIndexed(x *fitIndex, want int) (rejectors uint32) {
	all := len(s.nodes)
	start := s.nextStart % all // the list may have shrunk since
	processed := all
	if x.nFeas > 0 {
		// Feasible nodes in scan order from start, wrapping once; the
		// first past the quota ends the scan (see findFeasible).
	scan:
		for _, seg := range [2][2]int{{start, all}, {0, start}} {
			for p := seg[0]; p < seg[1]; {
				w := x.feasible[p/64] >> (p % 64)
				if w == 0 {
					p = (p/64 + 1) * 64
					continue
				}
				p += bits.TrailingZeros64(w)
				if p >= seg[1] {
					break
				}
				if len(s.feasible) == want {
					processed = (p - start + all) % all
					break scan
				}
				s.feasible = append(s.feasible, s.nodes[p])
				p++
			}
		}
	} else {
		// No node fits: the scan would see every node; its reasons are
		// the index's counts.
		for r, c := range x.counts {
			if c > 0 {
				s.reasonCount[r] = c
				s.touched = append(s.touched, Reason(r))
			}
		}
		for fi, c := range x.rejects {
			if c > 0 {
				rejectors |= 1 << fi
			}
		}
	}
	s.stats.NodesTested += uint64(processed)
	s.nextStart = (s.nextStart + processed) % all
	return rejectors
}
