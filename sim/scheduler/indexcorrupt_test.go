package scheduler

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// corruption is a test hook: it breaks one structure of a scheduler as a
// drift would, and returns how to put it back (ok false: the scheduler
// holds nothing of the kind to break).
type corruption struct {
	name string
	want string // what CheckIndexes' error must say
	do   func(w *world) (undo func(), ok bool)
}

// zoneWithTwo returns a zone of the tree with two nodes or more.
func zoneWithTwo(s *Scheduler) *treeZone {
	for i := range s.zones {
		if len(s.zones[i].nodes) >= 2 {
			return &s.zones[i]
		}
	}
	return nil
}

// fitWith returns a fit index and a scanned node whose verdict passes ok.
func fitWith(s *Scheduler, ok func(x *fitIndex, v uint16) bool) (*fitIndex, cluster.NodeID) {
	for _, x := range s.fitList {
		for _, nid := range s.nodes {
			if int(nid) < len(x.verdict) && ok(x, x.verdict[nid]) {
				return x, nid
			}
		}
	}
	return nil, cluster.NoNode
}

// currentFit returns a fit index with a feasible node, its bitset laid
// out in the current order (as a cycle's use would).
func currentFit(s *Scheduler) *fitIndex {
	for _, x := range s.fitList {
		if x.nFeas > 0 {
			if x.epoch != s.orderEpoch {
				x.rebuild(s)
			}
			return x
		}
	}
	return nil
}

func swap[T any](a, b *T) func() {
	*a, *b = *b, *a
	return func() { *a, *b = *b, *a }
}

func bump[T ~int32 | ~int64 | ~int | ~uint8](p *T) func() {
	*p++
	return func() { *p-- }
}

func corruptions() []corruption {
	return []corruption{
		{"node order in a zone", "node tree: zone", func(w *world) (func(), bool) {
			z := zoneWithTwo(w.h.s)
			if z == nil {
				return nil, false
			}
			return swap(&z.nodes[0], &z.nodes[1]), true
		}},
		{"arrival stamps", "node tree: zone", func(w *world) (func(), bool) {
			s := w.h.s
			z := zoneWithTwo(s)
			if z == nil {
				return nil, false
			}
			return swap(&s.arrived[z.nodes[0]], &s.arrived[z.nodes[1]]), true
		}},
		{"zone order", "creation order", func(w *world) (func(), bool) {
			s := w.h.s
			if len(s.zones) < 2 {
				return nil, false
			}
			return swap(&s.zones[0], &s.zones[1]), true
		}},
		{"an emptied zone left in the tree", "is empty", func(w *world) (func(), bool) {
			s := w.h.s
			s.zones = append(s.zones, treeZone{key: zoneKey{zone: w.h.cl.Syms.Intern("nowhere")}, since: s.arrivals + 1})
			return func() { s.zones = s.zones[:len(s.zones)-1] }, true
		}},
		{"a node's zone", "kept zone", func(w *world) (func(), bool) {
			s := w.h.s
			if len(s.nodes) == 0 {
				return nil, false
			}
			id := s.nodes[0]
			old := s.nodeZone[id]
			s.nodeZone[id] = zoneKey{zone: w.h.cl.Syms.Intern("elsewhere")}
			return func() { s.nodeZone[id] = old }, true
		}},
		{"scan list", "scan list", func(w *world) (func(), bool) {
			s := w.h.s
			if len(s.nodes) < 2 {
				return nil, false
			}
			return swap(&s.nodes[0], &s.nodes[len(s.nodes)-1]), true
		}},
		{"scan slot", "scan slots", func(w *world) (func(), bool) {
			s := w.h.s
			if len(s.nodes) == 0 {
				return nil, false
			}
			return bump(&s.nodeSlot[s.nodes[0]]), true
		}},
		{"node name", "node names", func(w *world) (func(), bool) {
			s := w.h.s
			if len(s.nodes) == 0 {
				return nil, false
			}
			sym := w.h.cl.Nodes[s.nodes[0]].NameSym
			id := s.byName[sym]
			delete(s.byName, sym)
			return func() { s.byName[sym] = id }, true
		}},
		{"reason table", "reasons", func(w *world) (func(), bool) {
			s := w.h.s
			msg := s.reasons[1]
			s.reasonIDs[msg] = 2
			return func() { s.reasonIDs[msg] = 1 }, true
		}},
		{"label column", "label column", func(w *world) (func(), bool) {
			s := w.h.s
			for _, col := range s.labelCols {
				for i := range col.vals {
					if col.vals[i].ok {
						old := col.vals[i]
						col.vals[i].v = w.h.cl.Syms.Intern("bogus")
						return func() { col.vals[i] = old }, true
					}
				}
			}
			return nil, false
		}},
		{"static verdict", "static verdicts", func(w *world) (func(), bool) {
			s := w.h.s
			for _, x := range s.fitList {
				for i := range x.table.entries {
					if e := &x.table.entries[i]; e.ep == s.cl.NodeEpoch(cluster.NodeID(i))+1 {
						e.sel = !e.sel
						return func() { e.sel = !e.sel }, true
					}
				}
			}
			return nil, false
		}},
		{"fit verdict", "verdict rejected by NodeResourcesFit (Insufficient cpu), recomputed feasible", func(w *world) (func(), bool) {
			x, nid := fitWith(w.h.s, func(_ *fitIndex, v uint16) bool { return v == 1 })
			if x == nil {
				return nil, false
			}
			x.verdict[nid] = 0x101
			return func() { x.verdict[nid] = 1 }, true
		}},
		{"fit static reason", "verdict rejected by", func(w *world) (func(), bool) {
			x, nid := fitWith(w.h.s, func(_ *fitIndex, v uint16) bool { return v > 1 && v&0x100 == 0 })
			if x == nil {
				return nil, false
			}
			return bump(&x.sreason[nid]), true
		}},
		{"fit reason counts", "counted on", func(w *world) (func(), bool) {
			x, _ := fitWith(w.h.s, func(x *fitIndex, v uint16) bool { return v > 1 })
			if x == nil {
				return nil, false
			}
			for r := range x.counts {
				if x.counts[r] > 0 {
					return bump(&x.counts[r]), true
				}
			}
			return nil, false
		}},
		{"fit rejects", "rejects", func(w *world) (func(), bool) {
			if len(w.h.s.fitList) == 0 {
				return nil, false
			}
			x := w.h.s.fitList[0]
			return bump(&x.rejects[x.resFi]), true
		}},
		{"fit feasible count", "feasible nodes, recounted", func(w *world) (func(), bool) {
			if len(w.h.s.fitList) == 0 {
				return nil, false
			}
			return bump(&w.h.s.fitList[0].nFeas), true
		}},
		{"fit bitset bit", "feasible bit", func(w *world) (func(), bool) {
			x := currentFit(w.h.s)
			if x == nil {
				return nil, false
			}
			x.feasible[0] ^= 1
			return func() { x.feasible[0] ^= 1 }, true
		}},
		{"fit bitset left empty (01abd8d)", "feasible bit false, recomputed true", func(w *world) (func(), bool) {
			x := currentFit(w.h.s)
			if x == nil {
				return nil, false
			}
			old := append([]uint64(nil), x.feasible...)
			clear(x.feasible)
			return func() { copy(x.feasible, old) }, true
		}},
		{"fit bitset bit past the end (1967e58)", "past the last", func(w *world) (func(), bool) {
			s := w.h.s
			x := currentFit(s)
			pos := len(s.nodes)
			if x == nil || pos%64 == 0 {
				return nil, false
			}
			x.feasible[pos/64] |= 1 << (pos % 64)
			return func() { x.feasible[pos/64] &^= 1 << (pos % 64) }, true
		}},
		{"resource score cache", "score cache", func(w *world) (func(), bool) {
			s := w.h.s
			c := &checker{s: s}
			for _, fw := range c.profiles() {
				for _, sp := range fw.scorers {
					var cache *scoreCache
					switch p := sp.(type) {
					case *nodeResourcesFit:
						cache = &p.cache
					case *balancedAllocation:
						cache = &p.cache
					default:
						continue
					}
					for i := range cache.ents {
						if e := &cache.ents[i]; cache.gen > 0 && e.gen == cache.gen && i < len(s.roomEpoch) && e.ep == s.roomEpoch[i]+1 {
							return bump(&e.score), true
						}
					}
				}
			}
			return nil, false
		}},
		{"counter on a node", "topology: counter", func(w *world) (func(), bool) {
			t := w.h.s.topo
			if len(t.counters) == 0 || len(t.counters[0].perNode) == 0 {
				return nil, false
			}
			return bump(&t.counters[0].perNode[0]), true
		}},
		{"counter total", "in total", func(w *world) (func(), bool) {
			t := w.h.s.topo
			if len(t.counters) == 0 {
				return nil, false
			}
			return bump(&t.counters[0].total), true
		}},
		{"term group", "term group", func(w *world) (func(), bool) {
			t := w.h.s.topo
			for _, g := range t.groups {
				if len(g.perNode) > 0 {
					return bump(&g.perNode[len(g.perNode)-1]), true
				}
			}
			return nil, false
		}},
		{"domain sum", "sums", func(w *world) (func(), bool) {
			for _, g := range w.h.s.topo.domGroups {
				for _, ds := range g.members {
					if !g.overflow && len(ds.sums) > 0 {
						return bump(&ds.sums[0]), true
					}
				}
			}
			return nil, false
		}},
		{"domain of a node", "counts in domain", func(w *world) (func(), bool) {
			for _, g := range w.h.s.topo.domGroups {
				for i := range g.contrib {
					if !g.overflow && g.contrib[i] > 0 {
						old := g.contrib[i]
						g.contrib[i] = 0
						return func() { g.contrib[i] = old }, true
					}
				}
			}
			return nil, false
		}},
		{"table of bound pods", "table entry holds", func(w *world) (func(), bool) {
			t := w.h.s.topo
			if len(t.bound) == 0 {
				return nil, false
			}
			return bump(&t.bound[0].node), true
		}},
		{"match memo", "match memo", func(w *world) (func(), bool) {
			for _, m := range w.h.s.topo.memos {
				if n := len(m.counters); n > 0 {
					m.counters = m.counters[:n-1]
					return func() { m.counters = m.counters[:n] }, true
				}
			}
			return nil, false
		}},
		{"spread self-match", "self-match", func(w *world) (func(), bool) {
			c := &checker{s: w.h.s}
			for _, p := range c.spreadPlugins() {
				for _, pr := range p.preps {
					if len(pr.hardSelf) > 0 {
						pr.hardSelf[0] ^= 1
						return func() { pr.hardSelf[0] ^= 1 }, true
					}
				}
			}
			return nil, false
		}},
		{"bound priorities", "bound priorities", func(w *world) (func(), bool) {
			s := w.h.s
			s.boundPriorities[0]++
			return func() {
				if s.boundPriorities[0]--; s.boundPriorities[0] == 0 {
					delete(s.boundPriorities, 0)
				}
			}, true
		}},
		{"a pod lost from the queue", "Pending and in no queue", func(w *world) (func(), bool) {
			s := w.h.s
			for _, id := range s.q.unsch {
				if s.cl.Pods[id].Phase == cluster.Pending {
					s.q.removeUnschedulable(id)
					return func() { s.q.pushUnschedulable(id) }, true
				}
			}
			return nil, false
		}},
		{"a waiting pod's timer", "no timer", func(w *world) (func(), bool) {
			s := w.h.s
			for _, id := range s.q.unsch {
				if s.cl.Pods[id].Phase == cluster.Pending {
					st := s.q.at(id)
					old := st.timer
					st.timer = s.eng.After(time.Hour, engine.Event{Handler: s.id, Kind: 99})
					s.eng.Cancel(st.timer)
					return func() { st.timer = old }, true
				}
			}
			return nil, false
		}},
		{"a queue slot", "does not point back", func(w *world) (func(), bool) {
			s := w.h.s
			if len(s.q.unsch) < 2 {
				return nil, false
			}
			return bump(&s.q.at(s.q.unsch[0]).slot), true
		}},
		{"a queued priority", "priority", func(w *world) (func(), bool) {
			// Drained, the queue holds no pod in a heap: one goes to
			// backoff, as a pod an event moves before its backoff ends.
			s := w.h.s
			if len(s.q.unsch) == 0 {
				return nil, false
			}
			id := s.q.unsch[0]
			s.q.removeUnschedulable(id)
			s.q.pushBackoff(id, s.eng.Now()+time.Second, s.eng.Now())
			s.q.backoff.items[s.q.at(id).slot].priority++
			return func() {
				s.q.backoff.items[s.q.at(id).slot].priority--
				s.q.removeBackoff(id)
				s.q.pushUnschedulable(id)
			}, true
		}},
		{"class failure", "class failure", func(w *world) (func(), bool) {
			s := w.h.s
			for _, id := range s.q.unsch {
				f, ok := s.failedAt[s.cl.Pods[id].Spec]
				if ok && f.version == s.version && !s.canPreempt(s.cl.Pods[id].Spec) && !hasPodTerms(s.cl.Pods[id].Spec) && len(s.cl.Pods[id].Spec.Spread) == 0 {
					spec := s.cl.Pods[id].Spec
					f.hints ^= EvPodUnassigned
					s.failedAt[spec] = f
					return func() { f.hints ^= EvPodUnassigned; s.failedAt[spec] = f }, true
				}
			}
			return nil, false
		}},
	}
}

// TestCheckIndexesCatchesDrift breaks each structure in turn, as a drift
// would, and requires CheckIndexes to name it, then to pass again once
// it is put back: a check that cannot fail is worthless.
func TestCheckIndexesCatchesDrift(t *testing.T) {
	w := newWorld(t, rngChoices{rand.New(rand.NewPCG(0, 29))}, 160, false)
	w.run(400)
	// Settle on a state where every kind of entry is in use: pods of the
	// templates cycle now (caches fresh, a fit index's layout current, a
	// failure to reuse at the current version, pods in backoff).
	spec := podSpec("1000", "1Gi")
	spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	hopeless := w.compile("hopeless", "default", map[string]string{"app": "hopeless"}, spec, -100)
	for _, name := range []string{"web", "zonal", "pinned"} {
		for _, tm := range w.tmpls {
			if tm.name == name {
				w.create(tm)
			}
		}
	}
	w.h.eng.Run(w.h.eng.Now() + time.Second)
	w.create(hopeless)
	w.create(w.tmpls[0])
	w.h.eng.Run(w.h.eng.Now())
	if err := w.h.s.CheckIndexes(); err != nil {
		t.Fatalf("before any corruption: %v", err)
	}
	for _, c := range corruptions() {
		undo, ok := c.do(w)
		if !ok {
			t.Errorf("%s: the scheduler holds nothing of the kind to corrupt", c.name)
			continue
		}
		err := w.h.s.CheckIndexes()
		undo()
		switch {
		case err == nil:
			t.Errorf("%s: CheckIndexes did not notice", c.name)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: CheckIndexes said %q, want it to say %q", c.name, err, c.want)
		default:
			t.Logf("%s: %v", c.name, err)
		}
		if err := w.h.s.CheckIndexes(); err != nil {
			t.Fatalf("%s put back: %v", c.name, err)
		}
	}
}
