package scheduler

import "github.com/clustersim/clustersim/sim/cluster"

// Per-node score caches for the resource scores. A node's
// NodeResourcesFit and BalancedAllocation scores depend only on its
// allocatable and requested resources and on the pod's requests; the
// node's room epoch moves on every change of those (a pod bound or gone,
// a node change), so an entry computed at the current epoch for the same
// requests is the score. Consecutive pods of a template score mostly the
// same nodes unchanged. The room epoch is the scheduler's own and moves
// more often than cluster.NodeEpoch (on binds and unbinds too), which
// must not expire the static verdicts stamped with the cluster's.

// roomNotes is implemented by the Scheduler.
type roomNotes interface {
	roomEpochs() []uint32
}

// roomEpochs returns the room epoch per NodeID.
func (s *Scheduler) roomEpochs() []uint32 { return s.roomEpoch }

// roomChanged moves a node's room epoch.
func (s *Scheduler) roomChanged(id cluster.NodeID) {
	for int(id) >= len(s.roomEpoch) {
		s.roomEpoch = append(s.roomEpoch, 0)
	}
	s.roomEpoch[id]++
}

// scoreCache holds one plugin's scores per NodeID for the requests in key.
type scoreCache struct {
	key  [2]int64
	gen  uint32 // moves when key changes, expiring every entry
	ents []scoreEntry
}

type scoreEntry struct {
	ep    uint32 // room epoch + 1 when set
	gen   uint32
	score int64
}

// prepare sets the requests of this cycle and returns the room epochs
// (nil: no cache, the handle keeps no epochs).
func (c *scoreCache) prepare(h Handle, key [2]int64) []uint32 {
	rn, ok := h.(roomNotes)
	if !ok {
		return nil
	}
	if key != c.key || c.gen == 0 {
		c.key = key
		c.gen++
	}
	return rn.roomEpochs()
}

// get returns the cached score of a node, if valid.
func (c *scoreCache) get(epochs []uint32, nid cluster.NodeID) (int64, bool) {
	if int(nid) < len(c.ents) && int(nid) < len(epochs) {
		if e := &c.ents[nid]; e.ep == epochs[nid]+1 && e.gen == c.gen {
			return e.score, true
		}
	}
	return 0, false
}

// put stores a node's score (nodes the epochs do not cover yet are not
// cached).
func (c *scoreCache) put(epochs []uint32, nid cluster.NodeID, score int64) {
	if int(nid) >= len(epochs) {
		return
	}
	if int(nid) >= len(c.ents) {
		c.ents = append(c.ents, make([]scoreEntry, len(epochs)-len(c.ents))...)
	}
	c.ents[nid] = scoreEntry{ep: epochs[nid] + 1, gen: c.gen, score: score}
}
