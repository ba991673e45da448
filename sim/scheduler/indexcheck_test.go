package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// The model-based differential test of the scheduler's incremental
// structures: seeded (or fuzzed) sequences of cluster changes drive the
// real Scheduler through the cluster; after every change and every engine
// event CheckIndexes must find each structure equal to its recomputation,
// and every scheduling outcome is compared with a reference that
// evaluates the filters by walking the nodes and their pods: a bound pod's
// node passes every filter for it, and a pod found unschedulable fits no
// Ready node and gets the fit error the reference counts.

// choices is where a sequence's decisions come from: a seeded stream for
// the sweep, the fuzzer's bytes for FuzzSchedulerIndexes.
type choices interface {
	intn(n int) int // in [0, n)
	done() bool
}

type rngChoices struct{ r *rand.Rand }

func (c rngChoices) intn(n int) int { return c.r.IntN(n) }
func (rngChoices) done() bool       { return false }

// byteChoices reads one byte per decision (two when n > 256); past the end
// every decision is 0 and done reports true.
type byteChoices struct {
	b []byte
	i int
}

func (c *byteChoices) next() int {
	if c.i >= len(c.b) {
		c.i++
		return 0
	}
	v := int(c.b[c.i])
	c.i++
	return v
}

func (c *byteChoices) intn(n int) int {
	v := c.next()
	if n > 256 {
		v = v<<8 | c.next()
	}
	return v % n
}

func (c *byteChoices) done() bool { return c.i >= len(c.b) }

// template is a pod template of the sequences.
type template struct {
	name string
	spec *cluster.PodSpec
	ns   cluster.Sym
}

// world is one sequence's cluster, scheduler and reference.
type world struct {
	t                  testing.TB
	h                  *harness
	ch                 choices
	tmpls              []template
	ballast            []template // bound by the test on nodes where they fit: room taken and given back
	pods               []cluster.PodID
	err                error
	direct             bool // the test binds: not a scheduling outcome
	maxNodes           int
	checks             int
	outcomes           int
	unschedulableTaint cluster.Taint
}

// Profiles of the sequences: the default; one that packs; one that lists
// NodeResourcesFit before the static filters and never preempts.
func worldProfiles() []Profile {
	packer := DefaultProfile()
	packer.SchedulerName = "packer"
	packer.Args.ScoringStrategy = MostAllocated
	packer.PercentageOfNodesToScore = 30
	reordered := DefaultProfile()
	reordered.SchedulerName = "reordered"
	reordered.NoPreemption = true
	reordered.Plugins = []PluginWeight{
		{Name: NameNodeResourcesFit, Weight: 1},
		{Name: NameNodeUnschedulable},
		{Name: NameNodeName},
		{Name: NameTaintToleration, Weight: 3},
		{Name: NameNodeAffinity, Weight: 2},
		{Name: NamePodTopologySpread, Weight: 2},
		{Name: NameInterPodAffinity, Weight: 2},
		{Name: NameBalancedAllocation, Weight: 1},
	}
	return []Profile{DefaultProfile(), packer, reordered}
}

// newWorld builds a sequence's world; computeTime makes cycles take
// virtual time (one at a time) instead of none.
func newWorld(t *testing.T, ch choices, maxNodes int, computeTime bool) *world {
	h := newHarness(t, 1, Config{Profiles: worldProfiles(), ComputeTime: computeTime})
	w := &world{t: t, h: h, ch: ch, maxNodes: maxNodes}
	w.unschedulableTaint = cluster.Taint{Key: h.cl.Syms.Intern("node.kubernetes.io/unschedulable"), Effect: cluster.EffectNoSchedule}
	h.cl.Watch(w) // after the scheduler: it sees each change once the scheduler has
	// After every event that runs cycles or deletes a pod; a backoff or
	// unschedulable timer only moves a pod in the queue and wakes a drain,
	// checked after it.
	h.eng.EnableChecks(func(ev engine.Event) {
		if ev.Kind != evBackoffDone && ev.Kind != evUnschedulableTimeout {
			w.check(fmt.Sprintf("after event kind %d of handler %d", ev.Kind, ev.Handler))
		}
	})
	w.templates()
	return w
}

func (w *world) compile(name, ns string, labels map[string]string, spec corev1.PodSpec, priority int32) template {
	cs, _, err := cluster.CompilePodSpec(w.h.cl.Syms, w.h.cl.Resources, cluster.PodSpecInput{Namespace: ns, Labels: labels, Spec: &spec,
		Priority: func(string) (int32, bool, bool) { return priority, false, true }})
	if err != nil {
		w.t.Fatal(err)
	}
	return template{name: name, spec: cs, ns: w.h.cl.Syms.Intern(ns)}
}

func (w *world) templates() {
	app := func(a string) map[string]string { return map[string]string{"app": a} }
	sel := func(a string) *metav1.LabelSelector { return &metav1.LabelSelector{MatchLabels: app(a)} }
	owner := func(t template, a string) template {
		s, err := cluster.CompileLabelSelector(w.h.cl.Syms, sel(a))
		if err != nil {
			w.t.Fatal(err)
		}
		t.spec.OwnerSelector = &s
		return t
	}
	spread := func(key string, skew int32, hard bool, a string) corev1.TopologySpreadConstraint {
		c := corev1.TopologySpreadConstraint{MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel(a)}
		if hard {
			c.WhenUnsatisfiable = corev1.DoNotSchedule
		}
		return c
	}
	honor := corev1.NodeInclusionPolicyHonor
	dedicated := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule}

	web := podSpec("100m", "128Mi")
	batch := podSpec("2500m", "4Gi")
	pinned := podSpec("500m", "512Mi")
	pinned.NodeSelector = map[string]string{"pool": "p1"}
	pinned.Tolerations = []corev1.Toleration{dedicated}
	zonal := podSpec("200m", "256Mi")
	zonal.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{spread("topology.kubernetes.io/zone", 1, true, "zonal"), spread("kubernetes.io/hostname", 1, false, "zonal")}
	minDomains := int32(3)
	zm := podSpec("150m", "128Mi")
	zm.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{spread("topology.kubernetes.io/zone", 1, true, "zm")}
	zm.TopologySpreadConstraints[0].MinDomains = &minDomains
	anti := podSpec("300m", "256Mi")
	anti.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
		{LabelSelector: sel("anti"), TopologyKey: "kubernetes.io/hostname"}}}}
	soft := podSpec("100m", "64Mi")
	soft.Containers[0].Resources.Requests[corev1.ResourcePods] = resource.MustParse("1")
	softZone := spread("topology.kubernetes.io/zone", 2, false, "soft")
	softZone.NodeTaintsPolicy = &honor
	soft.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{softZone, spread("pool", 1, false, "soft")}
	soft.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
		{Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: sel("web"), TopologyKey: "topology.kubernetes.io/zone"}}}}}
	hi := podSpec("1500m", "1Gi")
	ro := podSpec("700m", "1Gi")
	ro.SchedulerName = "reordered"
	ro.NodeSelector = map[string]string{"pool": "p0"}
	pk := podSpec("250m", "256Mi")
	pk.SchedulerName = "packer"
	pk.Tolerations = []corev1.Toleration{dedicated}
	named := podSpec("100m", "64Mi")
	named.NodeName = "n3"
	aff := podSpec("100m", "64Mi")
	aff.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
		{LabelSelector: sel("web"), TopologyKey: "topology.kubernetes.io/zone"}}}}
	racky := podSpec("50m", "32Mi")
	racky.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{spread("rack", 1, false, "racky")}

	w.tmpls = []template{
		owner(w.compile("web", "default", app("web"), web, 0), "web"),
		owner(w.compile("web-other", "other", app("web"), web, 0), "web"),
		w.compile("batch", "default", app("batch"), batch, 0),
		w.compile("pinned", "default", app("pinned"), pinned, 0),
		w.compile("zonal", "default", app("zonal"), zonal, 0),
		w.compile("zm", "default", app("zm"), zm, 0),
		w.compile("anti", "default", app("anti"), anti, 0),
		w.compile("soft", "default", app("soft"), soft, 0),
		w.compile("hi", "default", app("hi"), hi, 1000),
		w.compile("ro", "default", app("ro"), ro, 0),
		w.compile("pk", "default", app("pk"), pk, 0),
		w.compile("named", "default", app("named"), named, 0),
		w.compile("aff", "default", app("aff"), aff, 0),
		w.compile("racky", "default", app("racky"), racky, 0),
	}
	for i, r := range [][2]string{{"1000m", "2Gi"}, {"3000m", "1Gi"}, {"10m", "16Mi"}} {
		spec := podSpec(r[0], r[1])
		spec.SchedulerName = "other" // no profile: bound by the test, as by another binder
		if i == 2 {
			spec.Containers[0].Resources.Requests[corev1.ResourcePods] = resource.MustParse("2")
		}
		w.ballast = append(w.ballast, w.compile(fmt.Sprint("ballast", i), "default", app("ballast"), spec, -5))
	}
}

// check runs CheckIndexes and keeps the first error; the engine stops on it.
func (w *world) check(where string) {
	if w.err != nil {
		return
	}
	w.checks++
	if err := w.h.s.CheckIndexes(); err != nil {
		w.fail("%s: %v", where, err)
	}
}

func (w *world) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf(format, args...)
		w.h.eng.Stop()
	}
}

// OnChange compares the scheduler's outcomes with the reference.
func (w *world) OnChange(c cluster.Change) {
	if w.err != nil {
		return
	}
	switch c.Kind {
	case cluster.PodBound:
		if w.direct {
			return
		}
		w.outcomes++
		if rs := w.refReasons(c.Pod, c.Node, true); len(rs) > 0 {
			w.fail("%s bound to %s, which the reference rejects: %v", w.h.cl.Pods[c.Pod].Name, w.h.cl.Nodes[c.Node].Name, rs)
		}
	case cluster.PodUnschedulable:
		p := &w.h.cl.Pods[c.Pod]
		if !w.h.s.Handles(p.Spec.SchedulerName) {
			return
		}
		w.outcomes++
		counts := map[string]int{}
		ready := 0
		for i := range w.h.cl.Nodes {
			nid := cluster.NodeID(i)
			if w.h.cl.Nodes[i].State != cluster.NodeReady {
				continue
			}
			ready++
			rs := w.refReasons(c.Pod, nid, false)
			if len(rs) == 0 {
				w.fail("%s found unschedulable, but the reference fits it on %s", p.Name, w.h.cl.Nodes[i].Name)
				return
			}
			for _, r := range rs {
				counts[r]++
			}
		}
		var parts []string
		for r, n := range counts {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(parts)
		want := fmt.Sprintf("0/%d nodes are available", ready)
		if len(parts) > 0 {
			want += ": " + strings.Join(parts, ", ")
		}
		want += "."
		if got := w.h.s.LastFailure(c.Pod); got != want {
			w.fail("%s: fit error %q, the reference's %q", p.Name, got, want)
		}
	}
}

// refReasons evaluates a pod's filters on a Ready node by walking the
// nodes and their pods, in its profile's filter order, and returns the
// reasons of the first that rejects it (nil: it fits). without: the pod is
// on the node already and counts as not there.
func (w *world) refReasons(id cluster.PodID, nid cluster.NodeID, without bool) []string {
	cl := w.h.cl
	p := &cl.Pods[id]
	spec := p.Spec
	n := &cl.Nodes[nid]
	fw := w.h.s.fws[spec.SchedulerName]
	if spec.NodeName != "" && spec.NodeName != n.Name {
		return []string{"node(s) didn't match the requested node name"}
	}
	others := func(yield func(q *cluster.Pod, on *cluster.Node) bool) {
		for i := range cl.Nodes {
			m := &cl.Nodes[i]
			for _, qid := range m.Pods {
				if without && qid == id {
					continue
				}
				if !yield(&cl.Pods[qid], m) {
					return
				}
			}
		}
	}
	for _, pw := range fw.profile.Plugins {
		if pw.NoFilter {
			continue
		}
		if spec.NodeName != "" && !kubeletAdmits(pw.Name) {
			continue // the kubelet admits a pod naming its node (findNamed)
		}
		var rs []string
		switch pw.Name {
		case NameNodeUnschedulable:
			if n.Unschedulable && !spec.Tolerations.Tolerate(w.unschedulableTaint) {
				rs = append(rs, "node(s) were unschedulable")
			}
		case NameTaintToleration:
			if _, bad := spec.Tolerations.FirstUntolerated(n.Taints); bad {
				rs = append(rs, "node(s) had untolerated taint(s)")
			}
		case NameNodeAffinity:
			if !cluster.MatchesNodeSelectors(cl.Syms, spec, n) {
				rs = append(rs, "node(s) didn't match Pod's node affinity/selector")
			}
		case NameNodeResourcesFit:
			free := n.Free()
			if without {
				free = free.Add(spec.Requests)
			}
			for i := 0; i < cl.Resources.Len(); i++ {
				if spec.Requests[i] == 0 || spec.Requests[i] <= free[i] {
					continue
				}
				if i == cluster.Pods {
					rs = append(rs, "Too many pods")
				} else {
					rs = append(rs, "Insufficient "+string(cl.Resources.Name(i)))
				}
			}
		case NamePodTopologySpread:
			rs = w.refSpread(p, n, others)
		case NameInterPodAffinity:
			if rs = w.refAffinity(p, n, others); rs != nil {
				break
			}
			for i := range spec.PodAntiAffinity {
				t := &spec.PodAntiAffinity[i]
				v, ok := n.Labels.Get(t.TopologyKey)
				if !ok {
					continue
				}
				for q, on := range others {
					if qv, ok := on.Labels.Get(t.TopologyKey); ok && qv == v && w.h.s.topo.TermSelects(t, p.Namespace, q) {
						rs = []string{"node(s) didn't match pod anti-affinity rules"}
						break
					}
				}
				if rs != nil {
					break
				}
			}
			if rs != nil {
				break
			}
			for q, on := range others {
				for i := range q.Spec.PodAntiAffinity {
					t := &q.Spec.PodAntiAffinity[i]
					qv, ok := on.Labels.Get(t.TopologyKey)
					if v, has := n.Labels.Get(t.TopologyKey); ok && has && v == qv && w.h.s.topo.TermSelects(t, q.Namespace, p) {
						rs = []string{"node(s) didn't satisfy existing pods anti-affinity rules"}
					}
				}
				if rs != nil {
					break
				}
			}
		}
		if len(rs) > 0 {
			return rs
		}
	}
	return nil
}

// refAffinity is the pod's required pod affinity: the node must carry
// every term's key, and its domain of each must hold a pod that every
// term selects; a pod whose terms select itself may go anywhere while no
// such pod is bound.
func (w *world) refAffinity(p *cluster.Pod, n *cluster.Node, others func(func(*cluster.Pod, *cluster.Node) bool)) []string {
	terms := p.Spec.PodAffinity
	if len(terms) == 0 {
		return nil
	}
	selects := func(q *cluster.Pod) bool {
		for i := range terms {
			if !w.h.s.topo.TermSelects(&terms[i], p.Namespace, q) {
				return false
			}
		}
		return true
	}
	hits := map[pair]int{}
	for q, on := range others {
		if !selects(q) {
			continue
		}
		for i := range terms {
			if v, ok := on.Labels.Get(terms[i].TopologyKey); ok {
				hits[pair{terms[i].TopologyKey, v}]++
			}
		}
	}
	all := true
	for i := range terms {
		v, ok := n.Labels.Get(terms[i].TopologyKey)
		if !ok {
			return []string{"node(s) didn't match pod affinity rules"}
		}
		all = all && hits[pair{terms[i].TopologyKey, v}] > 0
	}
	if !all && (len(hits) > 0 || !selects(p)) {
		return []string{"node(s) didn't match pod affinity rules"}
	}
	return nil
}

// refSpread is PodTopologySpread's filter by walking the Ready nodes:
// per hard constraint in order, the node must carry the key, and its
// domain's count of matching pods plus the pod itself, minus the least
// count of a domain, must not exceed maxSkew; domains are those of the
// nodes carrying every hard key that pass the node inclusion policies.
func (w *world) refSpread(p *cluster.Pod, n *cluster.Node, others func(func(*cluster.Pod, *cluster.Node) bool)) []string {
	cl := w.h.cl
	spec := p.Spec
	var hard []*cluster.SpreadConstraint
	for i := range spec.Spread {
		if spec.Spread[i].Hard {
			hard = append(hard, &spec.Spread[i])
		}
	}
	for _, c := range hard {
		v, ok := n.Labels.Get(c.TopologyKey)
		if !ok {
			return []string{"node(s) didn't match pod topology spread constraints (missing required label)"}
		}
		eligible := func(m *cluster.Node) bool {
			if m.State != cluster.NodeReady {
				return false
			}
			for _, h := range hard {
				if !m.Labels.Has(h.TopologyKey) {
					return false
				}
			}
			if c.HonorNodeAffinity && !cluster.MatchesNodeSelectors(cl.Syms, spec, m) {
				return false
			}
			if _, bad := spec.Tolerations.FirstUntolerated(m.Taints); c.HonorTaints && bad {
				return false
			}
			return true
		}
		domains := map[cluster.Sym]int32{}
		for i := range cl.Nodes {
			if m := &cl.Nodes[i]; eligible(m) {
				d, _ := m.Labels.Get(c.TopologyKey)
				domains[d] += 0
			}
		}
		for q, on := range others {
			if eligible(on) && q.Namespace == p.Namespace && c.Selector.Matches(cl.Syms, q.Spec.Labels) {
				d, _ := on.Labels.Get(c.TopologyKey)
				domains[d]++
			}
		}
		minCount := int32(0)
		if len(domains) > 0 && int32(len(domains)) >= c.MinDomains {
			minCount = int32(1 << 30)
			for _, cnt := range domains {
				minCount = min(minCount, cnt)
			}
		}
		self := int32(0)
		if c.Selector.Matches(cl.Syms, spec.Labels) {
			self = 1
		}
		if domains[v]+self-minCount > c.MaxSkew {
			return []string{"node(s) didn't match pod topology spread constraints"}
		}
	}
	return nil
}

// Sequence steps.

func (w *world) pick(ids []cluster.PodID) (cluster.PodID, bool) {
	if len(ids) == 0 {
		return cluster.NoPod, false
	}
	return ids[w.ch.intn(len(ids))], true
}

func (w *world) podsWhere(ok func(p *cluster.Pod) bool) []cluster.PodID {
	var out []cluster.PodID
	for _, id := range w.pods {
		if ok(&w.h.cl.Pods[id]) {
			out = append(out, id)
		}
	}
	return out
}

func (w *world) nodesWhere(ok func(n *cluster.Node) bool) []cluster.NodeID {
	var out []cluster.NodeID
	for i := range w.h.cl.Nodes {
		if ok(&w.h.cl.Nodes[i]) {
			out = append(out, cluster.NodeID(i))
		}
	}
	return out
}

func (w *world) pickNode(ok func(n *cluster.Node) bool) (cluster.NodeID, bool) {
	ids := w.nodesWhere(ok)
	if len(ids) == 0 {
		return cluster.NoNode, false
	}
	return ids[w.ch.intn(len(ids))], true
}

func live(n *cluster.Node) bool  { return n.State != cluster.NodeGone }
func ready(n *cluster.Node) bool { return n.State == cluster.NodeReady }

func (w *world) create(t template) cluster.PodID {
	id := w.h.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("%s-%d", t.name, len(w.h.cl.Pods)), Namespace: t.ns, Spec: t.spec, Workload: -1})
	w.pods = append(w.pods, id)
	return id
}

var (
	zoneValues = []string{"z0", "z1", "z2", "z3", ""}
	nodeSizes  = [][3]int64{{2000, 4096, 110}, {4000, 8192, 110}, {8000, 16384, 8}, {1000, 2048, 4}}
)

func (w *world) addNode() {
	if w.h.cl.LiveNodes() >= w.maxNodes {
		return
	}
	cl := w.h.cl
	labels := map[string]string{"pool": fmt.Sprint("p", w.ch.intn(2)), "rack": fmt.Sprint("r", w.ch.intn(300))}
	if z := w.ch.intn(10); z < 9 {
		labels["topology.kubernetes.io/zone"] = fmt.Sprint("z", z%4)
	}
	if w.ch.intn(8) == 0 {
		labels["failure-domain.beta.kubernetes.io/zone"] = fmt.Sprint("z", w.ch.intn(4))
	}
	if w.ch.intn(8) == 0 {
		labels["topology.kubernetes.io/region"] = fmt.Sprint("r", w.ch.intn(2))
	}
	size := nodeSizes[w.ch.intn(len(nodeSizes))]
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = size[0], size[1]<<20, size[2]
	n := cluster.Node{Name: fmt.Sprint("n", len(cl.Nodes)), Labels: cluster.CompileLabels(cl.Syms, labels), Allocatable: alloc, State: cluster.NodeReady}
	if w.ch.intn(5) == 0 {
		n.State = cluster.NodeLaunching
	}
	if t := w.taint(); t != nil {
		n.Taints = []cluster.Taint{*t}
	}
	cl.AddNode(n)
}

// taint returns one of the sequences' taints, or nil.
func (w *world) taint() *cluster.Taint {
	var t corev1.Taint
	switch w.ch.intn(6) {
	case 0:
		t = corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}
	case 1:
		t = corev1.Taint{Key: "soft", Value: "y", Effect: corev1.TaintEffectPreferNoSchedule}
	default:
		return nil
	}
	ct, err := cluster.CompileTaint(w.h.cl.Syms, t)
	if err != nil {
		w.t.Fatal(err)
	}
	return &ct
}

// step applies one change and runs the engine a little; it returns a
// description of the change.
func (w *world) step() string {
	cl := w.h.cl
	var did string
	switch op := w.ch.intn(80); {
	case op < 24:
		t := w.tmpls[w.ch.intn(len(w.tmpls))]
		k := 1 + w.ch.intn(3)
		for range k {
			w.create(t)
		}
		did = fmt.Sprintf("create %d %s", k, t.name)
	case op < 32:
		did = "wait"
	case op < 38:
		if id, ok := w.pick(w.podsWhere(func(p *cluster.Pod) bool { return !p.Phase.Terminal() })); ok {
			cl.DeletePod(id, cluster.CauseEvicted)
			did = "delete " + cl.Pods[id].Name
		}
	case op < 42:
		if id, ok := w.pick(w.podsWhere(func(p *cluster.Pod) bool { return p.Phase.OnNode() })); ok {
			if cl.Pods[id].Phase == cluster.Bound {
				cl.StartPod(id)
			}
			did = "start " + cl.Pods[id].Name
			if w.ch.intn(2) == 0 {
				cl.FinishPod(id, cluster.Succeeded)
				did = "finish " + cl.Pods[id].Name
			}
		}
	case op < 48:
		k := 1
		if w.ch.intn(6) == 0 {
			k = 1 + w.ch.intn(40)
		}
		for range k {
			w.addNode()
		}
		did = fmt.Sprintf("add %d nodes", k)
	case op < 51:
		if nid, ok := w.pickNode(func(n *cluster.Node) bool { return n.State == cluster.NodeLaunching }); ok {
			cl.MarkNodeReady(nid)
			did = "ready " + cl.Nodes[nid].Name
		}
	case op < 54:
		if nid, ok := w.pickNode(live); ok {
			cl.RemoveNode(nid)
			did = "remove " + cl.Nodes[nid].Name
		}
	case op < 58:
		if nid, ok := w.pickNode(live); ok {
			var ts []cluster.Taint
			if t := w.taint(); t != nil {
				ts = append(ts, *t)
			}
			cl.SetTaints(nid, ts)
			did = fmt.Sprintf("taint %s %v", cl.Nodes[nid].Name, ts)
		}
	case op < 61:
		if nid, ok := w.pickNode(live); ok {
			cl.SetCordon(nid, !cl.Nodes[nid].Unschedulable)
			did = fmt.Sprintf("cordon %s %v", cl.Nodes[nid].Name, cl.Nodes[nid].Unschedulable)
		}
	case op < 67:
		if nid, ok := w.pickNode(live); ok {
			key := []string{"topology.kubernetes.io/zone", "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/region", "pool", "rack"}[w.ch.intn(6)]
			v := zoneValues[w.ch.intn(len(zoneValues))]
			switch key {
			case "pool":
				v = fmt.Sprint("p", w.ch.intn(2))
			case "rack":
				v = fmt.Sprint("r", w.ch.intn(300))
			}
			cl.SetLabel(nid, cl.Syms.Intern(key), cl.Syms.Intern(v))
			did = fmt.Sprintf("label %s %s=%s", cl.Nodes[nid].Name, key, v)
		}
	case op < 72:
		// Capacity: a node's room taken (ballast bound) or given back.
		if w.ch.intn(2) == 0 {
			if id, ok := w.pick(w.podsWhere(func(p *cluster.Pod) bool { return p.Phase.OnNode() && p.Spec.SchedulerName == "other" })); ok {
				cl.DeletePod(id, cluster.CauseEvicted)
				did = "unballast " + cl.Pods[id].Name
			}
			break
		}
		t := w.ballast[w.ch.intn(len(w.ballast))]
		if nid, ok := w.pickNode(func(n *cluster.Node) bool { return ready(n) && t.spec.Requests.Fits(n.Free()) }); ok {
			id := w.create(t)
			w.bindDirect(id, nid)
			did = "ballast " + cl.Nodes[nid].Name
		}
	case op < 76:
		// Another binder places a queued pod (the scheduler's entry goes stale).
		if id, ok := w.pick(w.podsWhere(func(p *cluster.Pod) bool { return p.Phase == cluster.Pending && p.Spec.SchedulerName != "other" })); ok {
			req := cl.Pods[id].Spec.Requests
			if nid, ok := w.pickNode(func(n *cluster.Node) bool { return ready(n) && req.Fits(n.Free()) }); ok {
				w.bindDirect(id, nid)
				did = fmt.Sprintf("bind %s to %s", cl.Pods[id].Name, cl.Nodes[nid].Name)
			}
		}
	default:
		if id, ok := w.pick(w.podsWhere(func(p *cluster.Pod) bool { return p.Phase.OnNode() && !p.Terminating })); ok {
			cl.MarkTerminating(id)
			did = "terminate " + cl.Pods[id].Name
		}
	}
	w.check("after " + did)
	if w.err == nil {
		d := []time.Duration{0, 0, time.Second, 3 * time.Second, 11 * time.Second, 301 * time.Second}[w.ch.intn(6)]
		w.h.eng.Run(w.h.eng.Now() + d)
		did += fmt.Sprintf(", run %s", d)
	}
	return did
}

func (w *world) bindDirect(id cluster.PodID, nid cluster.NodeID) {
	w.direct = true
	w.h.cl.Bind(id, nid)
	w.direct = false
}

// run plays up to steps steps (fewer when the choices run out) and
// returns the steps played, failing t with the last steps on an error.
func (w *world) run(steps int) int {
	var log []string
	for i := range steps {
		if w.ch.done() {
			return i
		}
		log = append(log, w.step())
		if w.err != nil {
			w.t.Fatalf("step %d: %v\nlast steps:\n  %s", i, w.err, strings.Join(log[max(0, len(log)-12):], "\n  "))
		}
	}
	return steps
}

// TestIndexesFollowTheCluster is the deterministic sweep: seeded
// sequences of changes, every structure checked after each change and
// each event, every outcome against the reference.
func TestIndexesFollowTheCluster(t *testing.T) {
	seeds, steps := 6, 500
	if testing.Short() {
		seeds = 2
	}
	used := map[string]bool{}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			w := newWorld(t, rngChoices{rand.New(rand.NewPCG(seed, 29))}, 160, seed%2 == 1)
			w.run(steps)
			if w.h.cl.LiveNodes() > 0 {
				w.h.eng.Run(w.h.eng.Now() + time.Hour)
			}
			w.check("at the end")
			if w.err != nil {
				t.Fatal(w.err)
			}
			s := w.h.s
			used["fit index"] = used["fit index"] || len(s.fitList) > 0
			used["domain sums"] = used["domain sums"] || len(s.topo.domGroups) > 0
			used["term groups"] = used["term groups"] || len(s.topo.groups) > 0
			used["class failures"] = used["class failures"] || s.stats.Reused > 0
			used["preemption"] = used["preemption"] || s.stats.Preemptions > 0
			used["sampling"] = used["sampling"] || len(s.nodes) >= minFeasibleNodesToFind
			t.Logf("%d checks, %d outcomes compared, %d nodes, %d pods, stats %+v", w.checks, w.outcomes, len(s.nodes), len(w.h.cl.Pods), s.stats)
		})
	}
	for _, k := range []string{"fit index", "domain sums", "term groups", "class failures", "preemption", "sampling"} {
		if !used[k] {
			t.Errorf("no sequence exercised %s", k)
		}
	}
}

// TestIndexesWithOverflowedDomains: a soft spread over a key with more
// domains than a domain group keeps (maxDomainSumDomains) is counted by
// walking the nodes; the sequences go on over it.
func TestIndexesWithOverflowedDomains(t *testing.T) {
	w := newWorld(t, rngChoices{rand.New(rand.NewPCG(3, 29))}, 320, false)
	for w.h.cl.LiveNodes() < maxDomainSumDomains+10 {
		w.addNode()
	}
	rack := w.h.cl.Syms.Intern("rack")
	for i := range w.h.cl.Nodes {
		w.h.cl.SetLabel(cluster.NodeID(i), rack, w.h.cl.Syms.Intern(fmt.Sprint("unique", i)))
	}
	for i := range w.h.cl.Nodes {
		if w.h.cl.Nodes[i].State == cluster.NodeLaunching {
			w.h.cl.MarkNodeReady(cluster.NodeID(i))
		}
	}
	racky := w.tmpls[slices.IndexFunc(w.tmpls, func(t template) bool { return t.name == "racky" })]
	for range 3 {
		w.create(racky)
	}
	w.h.eng.Run(w.h.eng.Now() + time.Second)
	overflowed := false
	for _, g := range w.h.s.topo.domGroupByKey {
		overflowed = overflowed || g.overflow
	}
	if !overflowed {
		t.Fatal("no domain group overflowed")
	}
	w.run(150)
	w.check("at the end")
	if w.err != nil {
		t.Fatal(w.err)
	}
}

// FuzzSchedulerIndexes drives the same sequences from the fuzzer's bytes.
func FuzzSchedulerIndexes(f *testing.F) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 7))
		b := make([]byte, 200+100*seed)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 2000 {
			data = data[:2000]
		}
		ch := &byteChoices{b: data}
		w := newWorld(t, ch, 130, ch.intn(2) == 1)
		w.run(200)
	})
}
