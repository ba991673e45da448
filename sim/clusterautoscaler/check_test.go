package clusterautoscaler

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/choose"
)

// chooser is where a model-based run takes its choices from (a seeded
// generator in the sweep, the fuzzer's bytes in the fuzz target).
type chooser = choose.Source

// caModel drives the real Cluster Autoscaler, with a kubelet and the
// eviction API but no scheduler (the model binds pods and marks them
// unschedulable itself), through random changes of its cluster and
// cloud: pods of a dozen templates (plain, under PodDisruptionBudgets,
// kube-system, safe-to-evict, bare, with hostname anti-affinity, zone
// spread, a node selector, a toleration, expendable, DaemonSet) created,
// bound, marked unschedulable and terminating, finished and deleted;
// nodes of no group added, any node removed, tainted, cordoned and
// relabelled (scale-down-disabled, a label pods select); capacity
// running dry and coming back, launches failing and slow to get Ready;
// spot instances reclaimed, interrupted and told to rebalance; time
// running on in short and long steps.
type caModel struct {
	h       *harness
	ch      chooser
	specs   []*cluster.PodSpec
	ns      []cluster.Sym
	work    []int32
	keys    []cluster.Sym // scale-down-disabled, tier
	values  []cluster.Sym // true, false (scale-down-disabled); gold, silver (tier)
	taints  []cluster.Taint
	statics int
	// replays counts the calls CheckIndexes held against a fresh
	// simulation.
	replays int
}

var caModelArgs = []string{"--scale-down-unneeded-time=1m", "--scale-down-delay-after-add=30s", "--scale-down-delay-after-delete=0s",
	"--unremovable-node-recheck-timeout=1m", "--max-node-provision-time=4m", "--scale-down-utilization-threshold=0.6"}

func newCAModel(t *testing.T, ch chooser) *caModel {
	h := newManualHarness(t)
	m := &caModel{h: h, ch: ch}
	syms := h.cl.Syms
	for _, b := range []struct{ ns, app string }{{"default", "db"}, {"kube-system", "sys"}} {
		sel, err := cluster.CompileLabelSelector(syms, labelSelector("app", b.app))
		require.NoError(t, err)
		h.pdbs = append(h.pdbs, cluster.PDB{Namespace: syms.Intern(b.ns), Name: b.app, Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 2}})
	}
	h.cl.TrackPDBs(h.pdbs)
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 4000, 16<<30, 110
	h.cl.AddNode(cluster.Node{Name: "static-0", Allocatable: alloc, State: cluster.NodeReady})
	h.start(h.groups(clusterConfig(`managedNodeGroups:
  - {name: a, instanceType: m5.large, minSize: 1, maxSize: 12, desiredCapacity: 3}
  - {name: c, instanceTypes: [m5.large, m5a.large], spot: true, minSize: 0, maxSize: 6, desiredCapacity: 1}
  - {name: d, instanceType: m5.large, minSize: 0, maxSize: 4, desiredCapacity: 1, labels: {tier: gold}, taints: [{key: dedicated, value: ca, effect: NoSchedule}]}
nodeGroups:
  - name: b
    minSize: 0
    maxSize: 8
    desiredCapacity: 2
    instancesDistribution:
      instanceTypes: [m5.large, m5.xlarge]
      onDemandBaseCapacity: 1
      onDemandPercentageAboveBaseCapacity: 0
`)), caModelArgs, nil)
	m.keys = []cluster.Sym{syms.Intern(LabelScaleDownDisabled), syms.Intern("tier")}
	m.values = []cluster.Sym{syms.Intern("true"), syms.Intern("false"), syms.Intern("gold"), syms.Intern("silver")}
	m.taints = []cluster.Taint{{Key: syms.Intern("dedicated"), Value: syms.Intern("ca"), Effect: cluster.EffectNoSchedule},
		{Key: syms.Intern("maintenance"), Effect: cluster.EffectPreferNoSchedule},
		{Key: syms.Intern("drain"), Effect: cluster.EffectNoSchedule}}

	anti := func(s *corev1.PodSpec, pm *podMeta) {
		pm.labels = map[string]string{"app": "anti"}
		s.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{LabelSelector: labelSelector("app", "anti"), TopologyKey: "kubernetes.io/hostname"}}}}
	}
	gold := func(s *corev1.PodSpec, _ *podMeta) { s.NodeSelector = map[string]string{"tier": "gold"} }
	expendable := func(_ *corev1.PodSpec, pm *podMeta) { pm.priority = -100 }
	add := func(cpu, mem string, opts ...podOpt) *cluster.PodSpec {
		s, pm := h.spec(cpu, mem, opts...)
		m.specs = append(m.specs, s)
		m.ns = append(m.ns, syms.Intern(pm.ns))
		m.work = append(m.work, pm.workload)
		return s
	}
	plain := add("250m", "256Mi")
	add("900m", "2Gi")
	add("400m", "1Gi", withLabels(map[string]string{"app": "db"}))
	add("200m", "256Mi", inNamespace("kube-system"), withLabels(map[string]string{"app": "sys"}))
	add("100m", "128Mi", inNamespace("kube-system"))
	add("300m", "512Mi", withAnnotation("cluster-autoscaler.kubernetes.io/safe-to-evict", "true"), bare())
	add("300m", "512Mi", bare())
	add("500m", "512Mi", anti)
	add("300m", "512Mi", zoneSpread("z"))
	add("600m", "1Gi", gold, withToleration("dedicated"))
	add("400m", "512Mi", withToleration("dedicated"))
	add("700m", "1Gi", expendable)
	ds := *plain
	ds.DaemonSet = true
	m.specs = append(m.specs, &ds)
	m.ns = append(m.ns, syms.Intern("default"))
	m.work = append(m.work, 0)
	return m
}

func (m *caModel) pick(n int) (int, bool) { return m.ch.IntN(max(n, 1)) }

// step makes one random change and lets time run; false when the
// chooser is exhausted.
func (m *caModel) step() bool {
	h := m.h
	cl := h.cl
	op, ok := m.pick(24)
	if !ok {
		return false
	}
	x, ok := m.pick(256)
	if !ok {
		return false
	}
	y, _ := m.pick(256)
	nodes, pods := len(cl.Nodes), len(cl.Pods)
	nid := cluster.NodeID(x % nodes)
	pid := cluster.PodID((x*256 + y) % max(pods, 1))
	live := cl.Nodes[nid].State != cluster.NodeGone
	switch {
	case op < 4 || pods == 0:
		s := y % len(m.specs)
		for range 1 + x%5 {
			p := cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("p-%d", len(cl.Pods)), Namespace: m.ns[s], Spec: m.specs[s], Workload: m.work[s]})
			if x%3 == 0 {
				cl.MarkUnschedulable(p)
			}
		}
	case op < 7:
		m.bind(pid, y)
	case op == 7:
		// The scheduler's verdict on the pending pods it could not place.
		for i := range cl.Pods {
			if (i+y)%3 == 0 {
				cl.MarkUnschedulable(cluster.PodID(i))
			}
		}
	case op == 8:
		cl.DeletePod(pid, cluster.CauseScaleDown)
	case op == 9:
		if cl.Pods[pid].Phase == cluster.Running {
			cl.FinishPod(pid, cluster.Succeeded)
		}
	case op == 10:
		cl.MarkTerminating(pid)
	case op == 11 && m.statics < 4:
		var alloc cluster.Resources
		alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = int64(2000+1000*(y%3)), 8<<30, 30
		m.statics++
		cl.AddNode(cluster.Node{Name: fmt.Sprintf("static-%d", m.statics), Allocatable: alloc, State: cluster.NodeReady,
			Labels: cluster.CompileLabels(cl.Syms, map[string]string{"tier": "gold"})})
	case op == 12 && live && y%4 == 0:
		cl.RemoveNode(nid) // someone else removes it
	case op == 13 && live:
		t := m.taints[y%len(m.taints)]
		if y%2 == 0 {
			cl.AddTaint(nid, t)
		} else {
			cl.RemoveTaint(nid, t.Key, t.Effect)
		}
	case op == 14 && live:
		cl.SetCordon(nid, y%2 == 0)
	case op == 15 && live:
		k := y % 2
		cl.SetLabel(nid, m.keys[k], m.values[k*2+(y/2)%2])
	case op == 16:
		// Capacity running dry and coming back.
		p := cloud.Offering{CapacityType: cluster.CapacityType(y % 2)}
		if y%3 == 0 {
			p.InstanceType = "m5.large"
		}
		if x%2 == 0 {
			h.cloud.Exhaust(p)
		} else {
			h.cloud.Restore(p)
		}
	case op == 17:
		h.cloud.ReadyAfter = 90 * time.Second
		if y%3 == 0 {
			h.cloud.ReadyAfter = 10 * time.Minute
		}
		if y%5 == 0 {
			h.cloud.FailNext(1+y%3, errors.New("launch failed"))
		}
	case op == 18:
		if lv := h.cloud.Live(); len(lv) > 0 {
			inst := lv[y%len(lv)]
			switch x % 3 {
			case 0:
				h.cloud.Reclaim(inst)
			case 1:
				h.cloud.Signal(cloud.RebalanceRecommendation, inst)
			default:
				h.cloud.Signal(cloud.InterruptionNotice, inst)
			}
		}
	case op == 19:
		h.at(h.eng.Now() + time.Duration(60+x%180)*time.Second)
	}
	h.at(h.eng.Now() + time.Duration(1+y%15)*time.Second)
	return true
}

// bind binds a pending pod to the first Ready node, from a random one on,
// where it fits (static filters, room and hostname anti-affinity).
func (m *caModel) bind(pid cluster.PodID, from int) {
	cl := m.h.cl
	p := &cl.Pods[pid]
	if p.Phase != cluster.Pending {
		return
	}
	for k := range len(cl.Nodes) {
		id := cluster.NodeID((from + k) % len(cl.Nodes))
		n := &cl.Nodes[id]
		free := n.Free()
		if n.State != cluster.NodeReady {
			continue
		}
		if mm, _ := cluster.StaticFit(cl.Syms, p.Spec, n, &free); mm != cluster.Fits {
			continue
		}
		var there []placedPod
		for _, q := range n.Pods {
			there = append(there, placedPod{cl.Pods[q].Spec, cl.Pods[q].Namespace})
		}
		if !podLevelOK(cl.Syms, m.h.ca.symHostname, p.Spec, p.Namespace, there) {
			continue
		}
		cl.Bind(pid, id)
		return
	}
}

// check runs both checks, the cluster's first (the Cluster Autoscaler's
// copies are of its facts).
func (m *caModel) check(t testing.TB, at string) {
	t.Helper()
	require.NoError(t, m.h.cl.CheckIndexes(), at)
	n, err := m.h.ca.verifyReplays()
	require.NoError(t, err, at)
	require.NoError(t, m.h.ca.CheckIndexes(), at)
	m.replays += n
}

// runCAModel runs the model until the chooser is exhausted or steps are
// done, checking the indexes after every step.
func runCAModel(t *testing.T, ch chooser, steps int) *caModel {
	m := newCAModel(t, ch)
	m.check(t, "at the start")
	for step := range steps {
		if !m.step() {
			break
		}
		m.check(t, fmt.Sprintf("step %d at %s", step, m.h.eng.Now()))
	}
	return m
}

// caSweep runs a longer sweep: that many seeds of 1,000 steps.
var caSweep = flag.Int("ca-sweep", 0, "seeds of a long TestCAIndexesModel sweep (0: the short one)")

// TestCAIndexesModel is the deterministic sweep: seeded random runs of
// the model, the indexes checked after every step.
func TestCAIndexesModel(t *testing.T) {
	var added, removed, reclaimed, replays int
	seeds, steps := uint64(16), 400
	if *caSweep > 0 {
		seeds, steps = uint64(*caSweep), 1000
	}
	for seed := range seeds {
		m := runCAModel(t, choose.Seeded(rand.New(rand.NewPCG(seed, 41))), steps)
		st := m.h.ca.Stats()
		added += st.NodesAdded
		removed += st.NodesRemoved
		reclaimed += st.NodesReclaimed
		replays += m.replays
	}
	t.Logf("nodes added %d removed %d reclaimed %d; replayed calls checked %d", added, removed, reclaimed, replays)
	require.Positive(t, added, "scale-ups happened")
	require.Positive(t, removed, "scale-downs happened")
	require.Positive(t, reclaimed, "spot reclaims happened")
	require.Positive(t, replays, "replayable removals were checked")
}

// CheckIndexes has no effect on the run: the same changes give the same
// decisions, stats and cluster with and without a check after each step.
func TestCACheckHasNoSideEffects(t *testing.T) {
	run := func(checked bool) (Stats, []string) {
		m := newCAModel(t, choose.Seeded(rand.New(rand.NewPCG(5, 53))))
		for range 300 {
			m.step()
			if checked {
				require.NoError(t, m.h.cl.CheckIndexes())
				require.NoError(t, m.h.ca.CheckIndexes())
			}
		}
		var state []string
		for i := range m.h.cl.Nodes {
			n := &m.h.cl.Nodes[i]
			state = append(state, fmt.Sprintf("%s %s %s %v %v %v %d", n.Name, n.State, n.CapacityType, n.Labels.Map(m.h.cl.Syms), n.Taints, n.Pods, n.Deleted))
		}
		for i := range m.h.cl.Pods {
			p := &m.h.cl.Pods[i]
			state = append(state, fmt.Sprintf("%s %s %d %d", p.Name, p.Phase, p.Node, p.Ended))
		}
		return m.h.ca.Stats(), state
	}
	plainStats, plainState := run(false)
	checkedStats, checkedState := run(true)
	require.Equal(t, plainStats, checkedStats)
	require.Equal(t, plainState, checkedState)
}

// FuzzCAIndexes: the model's changes from the fuzzer's bytes.
func FuzzCAIndexes(f *testing.F) {
	for seed := range uint64(3) {
		f.Add(choose.RandomBytes(seed, 43, 300))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runCAModel(t, choose.Bytes(data), 400)
	})
}

// Each structure, corrupted on purpose, is reported by name: the model
// runs until the corruption finds something to corrupt.
func TestCACheckCatchesCorruption(t *testing.T) {
	groupNode := func(a *Autoscaler, ok func(id cluster.NodeID, n *caNode) bool) cluster.NodeID {
		for _, g := range a.groups {
			for _, id := range g.nodes {
				if n := a.nodes.get(id); ok(id, n) {
					return id
				}
			}
		}
		return cluster.NoNode
	}
	anyNode := func(cluster.NodeID, *caNode) bool { return true }
	withPods := func(a *Autoscaler) cluster.NodeID {
		for i := range a.cl.Nodes {
			if len(a.cl.Nodes[i].Pods) > 0 {
				return cluster.NodeID(i)
			}
		}
		return cluster.NoNode
	}
	cases := []struct {
		name    string
		corrupt func(a *Autoscaler) bool // false: nothing to corrupt yet
		want    string
	}{
		{"live", func(a *Autoscaler) bool { a.cache.live = a.cache.live[1:]; return true }, "live nodes"},
		{"group order", func(a *Autoscaler) bool {
			g := a.groups[0]
			if len(g.nodes) < 2 {
				return false
			}
			g.nodes[0], g.nodes[1] = g.nodes[1], g.nodes[0]
			return true
		}, "group nodes"},
		{"node table", func(a *Autoscaler) bool { a.nodes.del(groupNode(a, anyNode)); return true }, "node table"},
		{"instance index", func(a *Autoscaler) bool {
			delete(a.byInstance, a.nodes.get(groupNode(a, anyNode)).instance)
			return true
		}, "instance index"},
		{"capacity-type counts", func(a *Autoscaler) bool { a.groups[0].onDemand++; return true }, "capacity-type counts"},
		{"zone counts", func(a *Autoscaler) bool { a.groups[0].zoneCount["us-east-1z"]++; return true }, "zone counts"},
		{"deletion count", func(a *Autoscaler) bool { a.groups[1].deleting++; return true }, "deletion count"},
		{"in flight", func(a *Autoscaler) bool { a.act.scaleDownsInFlight++; return true }, "scale-downs in flight"},
		{"drains", func(a *Autoscaler) bool { a.act.drains--; return true }, "scale-down drains"},
		{"mirror pod", func(a *Autoscaler) bool {
			id := withPods(a)
			if id == cluster.NoNode {
				return false
			}
			a.cache.nodes[id].pods[0].has = !a.cache.nodes[id].pods[0].has
			return true
		}, "node mirror"},
		{"mirror counts", func(a *Autoscaler) bool { a.cache.nodes[0].daemons++; return true }, "node mirror"},
		{"room", func(a *Autoscaler) bool { a.cache.free[1][cluster.CPU] -= 10; return true }, "node room"},
		{"flags", func(a *Autoscaler) bool {
			st := &a.cache.nodes[0]
			st.destEp = a.cl.NodeEpoch(0) + 1
			st.ready = !(a.cl.Nodes[0].State == cluster.NodeReady)
			return true
		}, "node flags"},
		{"anti-affinity", func(a *Autoscaler) bool {
			for int(len(a.cache.antiPods)) < len(a.cl.Nodes) {
				a.cache.antiPods = append(a.cache.antiPods, 0)
			}
			a.cache.antiPods[0]++
			return true
		}, "anti-affinity counts"},
		{"bound", func(a *Autoscaler) bool { a.boundPods++; return true }, "bound pod count"},
		{"verdicts", func(a *Autoscaler) bool {
			for _, cs := range a.cache.specs.Specs() {
				for i := range a.cl.Nodes {
					id := cluster.NodeID(i)
					if yes, known := a.cache.fits[cs.Class].Get(id, a.cl.NodeEpoch(id)); known {
						a.cache.fits[cs.Class].Set(id, a.cl.NodeEpoch(id), !yes, len(a.cl.Nodes))
						return true
					}
				}
			}
			return false
		}, "StaticFit verdicts"},
		{"fit IDs", func(a *Autoscaler) bool {
			for s := range a.cache.fitOf {
				a.cache.fitOf[s] += 1000
				return true
			}
			return false
		}, "fit IDs"},
		{"destination list", func(a *Autoscaler) bool {
			c := &a.cache
			if len(c.destDirty) > 0 || len(c.destList) == 0 {
				return false
			}
			c.isDest[c.destList[0]] = false
			return true
		}, "destination flags"},
		{"destination positions", func(a *Autoscaler) bool {
			if len(a.cache.destList) < 2 {
				return false
			}
			a.cache.destPos[a.cache.destList[0]] = 1
			return true
		}, "destination positions"},
		{"scan", func(a *Autoscaler) bool {
			c := &a.cache
			if a.gpuIndex() != c.scanGI {
				return false
			}
			for i, id := range c.scan {
				if !a.quietFresh(id, c.scanGI) {
					c.scan = append(c.scan[:i], c.scan[i+1:]...)
					c.inScan[id] = false
					return true
				}
			}
			return false
		}, "scan list"},
		{"soft taint flag", func(a *Autoscaler) bool {
			id := groupNode(a, func(id cluster.NodeID, n *caNode) bool {
				return !n.softTainted && a.cl.Nodes[id].State != cluster.NodeGone
			})
			if id == cluster.NoNode {
				return false
			}
			a.nodes.get(id).softTainted = true
			a.cache.soft = append(a.cache.soft, id)
			return true
		}, "soft taint flag"},
		{"launching list", func(a *Autoscaler) bool {
			if groupNode(a, func(id cluster.NodeID, _ *caNode) bool { return a.cl.Nodes[id].State == cluster.NodeLaunching }) == cluster.NoNode {
				return false
			}
			a.cache.launching = nil
			return true
		}, "launching list"},
		{"pending", func(a *Autoscaler) bool {
			if len(a.pending) == 0 || a.cl.Pods[a.pending[0]].Phase != cluster.Pending {
				return false
			}
			a.inPending[a.pending[0]] = false
			a.pending = a.pending[1:]
			return true
		}, "pending list"},
		{"template", func(a *Autoscaler) bool {
			for _, g := range a.groups {
				if g.cached == nil {
					continue
				}
				for _, id := range g.nodes {
					nd := &a.cl.Nodes[id]
					if nd.State == cluster.NodeReady && !nd.Unschedulable && !a.nodes.get(id).deleting && a.keepsTemplate(g, id) {
						g.cached.capCPU++
						return true
					}
				}
			}
			return false
		}, "template"},
		{"replay", func(a *Autoscaler) bool {
			n, err := a.verifyReplays()
			if err != nil || n == 0 || len(a.replay.cur.moveRange(0)) == 0 {
				return false
			}
			mv := &a.replay.cur.moves[0]
			for _, id := range a.freshDests() {
				if id != mv.dest {
					mv.dest = id
					return true
				}
			}
			return false
		}, "replayed removal"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(8) {
				m := newCAModel(t, choose.Seeded(rand.New(rand.NewPCG(seed, 47))))
				for step := range 400 {
					if !m.step() {
						break
					}
					if step < 5 || !tc.corrupt(m.h.ca) {
						continue
					}
					err := m.h.ca.CheckIndexes()
					require.Error(t, err)
					require.True(t, strings.Contains(err.Error(), tc.want), "got %v, want it to name %q", err, tc.want)
					return
				}
			}
			t.Fatal("no run left anything to corrupt")
		})
	}
}
