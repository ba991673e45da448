package props

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Violation is one breach of a property.
type Violation struct {
	Property string  // a, b, c, d or e (see the package doc)
	T        float64 // seconds; the end of the run for end-state checks
	Msg      string
}

func (v Violation) String() string {
	return fmt.Sprintf("(%s) t=%.3fs: %s", v.Property, v.T, v.Msg)
}

// Check runs every property on the record.
func Check(r *Record) []Violation {
	if v := NoInternalError(r); v != nil {
		return v // a failed run's timeline stops anywhere
	}
	h := analyse(r)
	var out []Violation
	out = append(out, DrainedBeforeRemoval(r, h)...)
	out = append(out, BudgetsRespected(r, h)...)
	out = append(out, NothingLost(r, h)...)
	out = append(out, DoNotDisruptRespected(r, h)...)
	return out
}

// Analysis is the record's timeline cut into pod lives and node
// histories, which the checks share; analyse makes it.
type Analysis struct {
	lives []*life
	// lifeAt is, per entry, the life of the pod it names (nil for node,
	// cloud and autoscaler entries, and for a pod event naming no live
	// pod, which NothingLost reports).
	lifeAt []*life
	nodes  map[string]*nodeHistory
	// orphans are the indexes of pod events that name no live pod.
	orphans []int
	// twins are the indexes of podCreated entries for a name that was
	// still live.
	twins []int
}

// life is one pod from its creation to its end (a StatefulSet's ordinal
// lives again under the same name).
type life struct {
	name    string
	pod     Pod
	created int // entry index
	// terminating is when it was told to stop (-1: never), on which
	// node, and termIdx its entry (-1).
	terminating     float64
	terminatingNode string
	termIdx         int
	// startedIdx is the entry of its podStarted (-1: it never ran).
	startedIdx int
	// end is when it ended (-1: live at the end), with its entry's kind
	// (podDeleted, podFinished), cause and node.
	end      float64
	endKind  string
	cause    string
	endNode  string
	lastNode string // the node it was last bound to
}

// nodeHistory is what the timeline says of one node.
type nodeHistory struct {
	owner, pool string
	launched    bool
	// removed is when it left (-1: never).
	removed float64
	// deleting is when Karpenter tainted it karpenter.sh/disrupted (its
	// deletion began; -1: never).
	deleting float64
	// signal is the first spot signal for it (-1: none).
	signal float64
}

// spotSignals are the entries by which EC2 warns of or takes back an
// instance.
var spotSignals = map[string]bool{"interruptionNotice": true, "rebalanceRecommendation": true, "instanceReclaimed": true}

// disruptedTaint marks a node Karpenter is deleting.
const disruptedTaint = "taint karpenter.sh/disrupted="

func analyse(r *Record) *Analysis {
	h := &Analysis{lifeAt: make([]*life, len(r.Entries)), nodes: map[string]*nodeHistory{}}
	live := map[string]*life{}
	node := func(name string) *nodeHistory {
		n := h.nodes[name]
		if n == nil {
			n = &nodeHistory{removed: -1, deleting: -1, signal: -1}
			h.nodes[name] = n
		}
		return n
	}
	for i, e := range r.Entries {
		switch {
		case e.Kind == "podCreated":
			if _, dup := live[e.Pod]; dup {
				h.twins = append(h.twins, i)
			}
			l := &life{name: e.Pod, pod: r.Pods[e.Pod], created: i, terminating: -1, termIdx: -1, startedIdx: -1, end: -1}
			h.lives = append(h.lives, l)
			live[e.Pod] = l
			h.lifeAt[i] = l
			continue
		case strings.HasPrefix(e.Kind, "pod"):
			l := live[e.Pod]
			if l == nil {
				h.orphans = append(h.orphans, i)
				continue
			}
			h.lifeAt[i] = l
			switch e.Kind {
			case "podBound":
				l.lastNode = e.Node
			case "podStarted":
				l.startedIdx = i
			case "podTerminating":
				if l.termIdx < 0 {
					l.terminating, l.terminatingNode, l.termIdx = e.T, e.Node, i
				}
			case "podDeleted", "podFinished":
				l.end, l.endKind, l.cause, l.endNode = e.T, e.Kind, e.Cause, e.Node
				delete(live, e.Pod)
			}
		case e.Kind == "nodeLaunched":
			n := node(e.Node)
			n.launched, n.owner, n.pool = true, e.Owner, e.OwnerName
		case e.Kind == "nodeRemoved":
			node(e.Node).removed = e.T
		case e.Kind == "nodeUpdated" && strings.Contains(e.Message, disruptedTaint):
			if n := node(e.Node); n.deleting < 0 {
				n.deleting = e.T
			}
		case spotSignals[e.Kind] && e.Node != "":
			if n := node(e.Node); n.signal < 0 {
				n.signal = e.T
			}
		}
	}
	return h
}

// eps absorbs the rounding of times to float seconds.
const eps = 1e-6

// forcedOff reports whether a pod on node at t is inside the window in
// which Karpenter deletes pods for its terminationGracePeriod deadline:
// from the deadline minus the pod's grace period on.
func (r *Record) forcedOff(h *Analysis, node string, pod Pod, t float64) bool {
	n := h.nodes[node]
	if n == nil || n.owner != "karpenter" || n.deleting < 0 {
		return false
	}
	tgp := r.Pools[n.pool].TerminationGracePeriod
	return tgp > 0 && t >= n.deleting+tgp-pod.Grace-eps
}

// evicted reports whether a life's termination was an eviction through
// the eviction API (see the package doc).
func (r *Record) evicted(h *Analysis, l *life) bool {
	return l.terminating >= 0 && l.endKind == "podDeleted" && l.cause == "evicted" &&
		!r.forcedOff(h, l.terminatingNode, l.pod, l.terminating)
}

// excusedLoss says why a pod may die with its node, or "" if nothing
// excuses it: the node's spot signal, its drain's deadline, or the pod
// already terminating.
func (r *Record) excusedLoss(h *Analysis, l *life) string {
	n := h.nodes[l.endNode]
	switch {
	case l.terminating >= 0 && l.terminating <= l.end:
		return "terminating"
	case n != nil && n.signal >= 0 && n.signal <= l.end+eps:
		return "spot"
	case n != nil && n.owner == "karpenter" && n.deleting >= 0 && r.Pools[n.pool].TerminationGracePeriod > 0 &&
		l.end >= n.deleting+r.Pools[n.pool].TerminationGracePeriod-eps:
		return "deadline"
	}
	return ""
}

// nodeDesc names a node and who owns it, for messages.
func (h *Analysis) nodeDesc(name string) string {
	n := h.nodes[name]
	switch {
	case n == nil || n.owner == "":
		return name
	case n.pool != "":
		return fmt.Sprintf("%s (%s %s)", name, n.owner, n.pool)
	}
	return fmt.Sprintf("%s (%s)", name, n.owner)
}

// NoInternalError is property (a).
func NoInternalError(r *Record) []Violation {
	if r.Err == nil {
		return nil
	}
	return []Violation{{Property: "a", T: r.End, Msg: "the run failed: " + r.Err.Error()}}
}

// DrainedBeforeRemoval is property (b).
func DrainedBeforeRemoval(r *Record, h *Analysis) []Violation {
	var out []Violation
	for _, l := range h.lives {
		if l.cause != "nodeGone" || l.pod.DaemonSet || !controllerKinds[kindOf(l.pod.Workload)] {
			continue
		}
		if r.excusedLoss(h, l) != "" {
			continue
		}
		out = append(out, Violation{Property: "b", T: l.end, Msg: fmt.Sprintf(
			"pod %s of %s died with its node %s (cause nodeGone) without being evicted first: the node had no spot signal and no drain deadline",
			l.name, l.pod.Workload, h.nodeDesc(l.endNode))})
	}
	return out
}

// BudgetsRespected is property (c).
func BudgetsRespected(r *Record, h *Analysis) []Violation {
	if len(r.PDBs) == 0 {
		return nil
	}
	// The pods each budget selects, by workload, for its expected count.
	workloads := map[string][]string{}
	for _, p := range r.Pods {
		for _, b := range p.PDBs {
			if hasPlan(r, p.Workload) && !slices.Contains(workloads[b], p.Workload) {
				workloads[b] = append(workloads[b], p.Workload)
			}
		}
	}
	live := map[*life]bool{}
	var out []Violation
	for i, e := range r.Entries {
		l := h.lifeAt[i]
		if l == nil {
			continue
		}
		switch e.Kind {
		case "podCreated":
			live[l] = true
		case "podDeleted", "podFinished":
			delete(live, l)
		case "podTerminating":
			if l.termIdx != i || !r.evicted(h, l) {
				break
			}
			for _, b := range l.pod.PDBs {
				healthy, expected := 0, 0
				for other := range live {
					if !slices.Contains(other.pod.PDBs, b) {
						continue
					}
					if other.healthyBefore(i) {
						healthy++
					}
					if !hasPlan(r, other.pod.Workload) && (other.termIdx < 0 || other.termIdx >= i) {
						expected++ // a bare pod, or a Job's: no scale to read
					}
				}
				for _, w := range workloads[b] {
					if n, ok := r.Workloads[w].Desired(e.T); ok {
						expected += n
					}
				}
				desired := r.PDBs[b].desiredHealthy(expected)
				left := healthy
				if l.healthyBefore(i) {
					left--
				}
				if left < desired || (!l.healthyBefore(i) && healthy < desired) {
					out = append(out, Violation{Property: "c", T: e.T, Msg: fmt.Sprintf(
						"evicting %s from %s left PodDisruptionBudget %s with %d healthy pod(s) of %d expected; it wants %d",
						l.name, h.nodeDesc(e.Node), b, left, expected, desired)})
				}
			}
		}
	}
	return out
}

func hasPlan(r *Record, ref string) bool {
	_, ok := r.Workloads[ref].Desired(0)
	return ok
}

// healthyBefore reports whether the pod counted as healthy (Running, not
// terminating) just before entry i.
func (l *life) healthyBefore(i int) bool {
	return l.startedIdx >= 0 && l.startedIdx < i && (l.termIdx < 0 || l.termIdx >= i)
}

// desiredHealthy is the budget's desiredHealthy for the expected count.
func (b PDB) desiredHealthy(expected int) int {
	switch {
	case b.MinAvailable != nil:
		return b.MinAvailable.Of(expected)
	case b.MaxUnavailable != nil:
		return expected - b.MaxUnavailable.Of(expected)
	}
	return 0
}

// deleteCauses are the causes a deleted pod may carry.
var deleteCauses = map[string]bool{"scaleDown": true, "evicted": true, "preempted": true, "nodeGone": true,
	"taintEvicted": true, "resubmitted": true, "jobFailed": true}

// NothingLost is property (d).
func NothingLost(r *Record, h *Analysis) []Violation {
	var out []Violation
	add := func(t float64, format string, args ...any) {
		out = append(out, Violation{Property: "d", T: t, Msg: fmt.Sprintf(format, args...)})
	}
	for _, i := range h.orphans {
		e := r.Entries[i]
		add(e.T, "%s of pod %s, which does not exist (never created, or ended before)", e.Kind, e.Pod)
	}
	for _, i := range h.twins {
		e := r.Entries[i]
		add(e.T, "pod %s created while a pod of that name is still live", e.Pod)
	}
	// Pods on nodes: a removed node keeps none, a pod binds only to a
	// node that is there.
	onNode := map[string]map[*life]bool{}
	removed := map[string]bool{}
	for i, e := range r.Entries {
		l := h.lifeAt[i]
		switch e.Kind {
		case "podBound":
			if l == nil {
				break
			}
			if n := h.nodes[e.Node]; n == nil || !n.launched || removed[e.Node] {
				add(e.T, "pod %s bound to node %s, which is not in the cluster", l.name, e.Node)
			}
			if onNode[e.Node] == nil {
				onNode[e.Node] = map[*life]bool{}
			}
			onNode[e.Node][l] = true
		case "podDeleted", "podFinished":
			if l != nil {
				delete(onNode[l.lastNode], l)
			}
		case "nodeRemoved":
			removed[e.Node] = true
			left := slices.SortedFunc(maps.Keys(onNode[e.Node]), func(a, b *life) int { return a.created - b.created })
			for _, l := range left {
				add(e.T, "node %s removed with pod %s still on it, never deleted", e.Node, l.name)
			}
		}
	}
	for _, l := range h.lives {
		if l.endKind == "podDeleted" && !deleteCauses[l.cause] {
			add(l.end, "pod %s deleted with cause %q: every deletion has a cause", l.name, l.cause)
		}
	}
	out = append(out, r.finalAgrees(h)...)
	out = append(out, r.replicasAtEnd(h)...)
	return out
}

// finalAgrees compares the lives with the final cluster state, pod by
// pod in creation order.
func (r *Record) finalAgrees(h *Analysis) []Violation {
	if r.Final == nil {
		return nil
	}
	var out []Violation
	add := func(format string, args ...any) {
		out = append(out, Violation{Property: "d", T: r.End, Msg: fmt.Sprintf(format, args...)})
	}
	if len(h.lives) != len(r.Final) {
		add("the timeline creates %d pods, the cluster holds %d", len(h.lives), len(r.Final))
	}
	for i := range min(len(h.lives), len(r.Final)) {
		l, f := h.lives[i], r.Final[i]
		var want string
		switch l.endKind {
		case "podDeleted":
			want = "Deleted (" + l.cause + ")"
		case "podFinished":
			want = l.cause // a finished pod's cause is its phase
		default:
			want = "live"
			if l.lastNode != "" {
				want = "live on " + l.lastNode
			}
		}
		got := f.Phase
		switch f.Phase {
		case "Deleted":
			got += " (" + f.Cause + ")"
		case "Bound", "Running":
			got = "live on " + f.Node
		case "Pending":
			got = "live"
		}
		if f.Name != l.name || got != want {
			add("pod #%d: the timeline has %s %s, the cluster %s %s", i, l.name, want, f.Name, got)
		}
	}
	return out
}

// replicasAtEnd checks that every Deployment and StatefulSet has its
// desired replicas at the end: live pods not terminating at most the
// desired count, and with those being replaced at least it. An
// OrderedReady StatefulSet may have fewer while one of its pods is not
// running yet (it creates the next once the one before runs).
func (r *Record) replicasAtEnd(h *Analysis) []Violation {
	type count struct{ live, terminating, waiting int }
	counts := map[string]*count{}
	for _, l := range h.lives {
		if l.end >= 0 {
			continue
		}
		c := counts[l.pod.Workload]
		if c == nil {
			c = &count{}
			counts[l.pod.Workload] = c
		}
		c.live++
		if l.termIdx >= 0 {
			c.terminating++
		}
		if l.startedIdx < 0 || l.termIdx >= 0 {
			c.waiting++
		}
	}
	var out []Violation
	for _, ref := range sortedKeys(r.Workloads) {
		w := r.Workloads[ref]
		want, ok := w.Desired(r.End)
		if !ok {
			continue
		}
		c := counts[ref]
		if c == nil {
			c = &count{}
		}
		running := c.live - c.terminating
		short := c.live < want && !(w.OrderedReady && c.waiting > 0)
		if running > want || short {
			out = append(out, Violation{Property: "d", T: r.End, Msg: fmt.Sprintf(
				"%s wants %d replicas and ends with %d live pod(s), %d of them terminating", ref, want, c.live, c.terminating)})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// DoNotDisruptRespected is property (e).
func DoNotDisruptRespected(r *Record, h *Analysis) []Violation {
	var out []Violation
	for _, l := range h.lives {
		if !l.pod.DoNotDisrupt {
			continue
		}
		if n := h.nodes[l.terminatingNode]; r.evicted(h, l) && n != nil && n.owner == "karpenter" {
			out = append(out, Violation{Property: "e", T: l.terminating, Msg: fmt.Sprintf(
				"Karpenter evicted do-not-disrupt pod %s from %s", l.name, h.nodeDesc(l.terminatingNode))})
		}
		if n := h.nodes[l.endNode]; l.cause == "nodeGone" && n != nil && n.owner == "karpenter" && r.excusedLoss(h, l) == "" {
			out = append(out, Violation{Property: "e", T: l.end, Msg: fmt.Sprintf(
				"Karpenter removed %s under do-not-disrupt pod %s, with no spot signal and no drain deadline", h.nodeDesc(l.endNode), l.name)})
		}
	}
	return out
}
