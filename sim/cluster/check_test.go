package cluster

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/internal/choose"
)

// chooser is where a model-based run takes its choices from (a seeded
// generator in the sweep, the fuzzer's bytes in the fuzz target).
type chooser = choose.Source

// manualClock is a clock the run moves by hand.
type manualClock struct{ t engine.Time }

func (c *manualClock) Now() engine.Time { return c.t }

// clusterModel drives a cluster through random changes: pods of several
// templates (some under a PodDisruptionBudget, some tolerating a taint,
// some pinned to a zone, some with StatefulSet, shared and ephemeral
// claims of an attaching zonal class and a claim of an Immediate class)
// created, bound (volumes first, as the scheduler does), started when
// their volumes are attached (as the kubelet does), marked unschedulable
// and terminating, finished and deleted; nodes of two zones and three
// sizes added Launching or Ready, readied, tainted, cordoned, relabelled
// and removed with their pods; held volumes force-detached.
type clusterModel struct {
	c       *Cluster
	clock   *manualClock
	ch      chooser
	specs   []*PodSpec
	names   []string // pod name stems, by spec
	zones   []Sym
	keys    []Sym
	values  []Sym
	taints  []Taint
	ns      Sym
	counter int
}

func newClusterModel(ch chooser) *clusterModel {
	clock := &manualClock{}
	c := New(clock, NewSymbols(), NewResourceNames())
	m := &clusterModel{c: c, clock: clock, ch: ch, ns: c.Syms.Intern("default")}
	syms := c.Syms
	m.zones = []Sym{syms.Intern("us-east-1a"), syms.Intern("us-east-1b")}
	m.keys = []Sym{syms.Intern("tier"), syms.Intern("team")}
	m.values = []Sym{syms.Intern("gold"), syms.Intern("silver")}
	m.taints = []Taint{{Key: syms.Intern("dedicated"), Value: m.values[0], Effect: EffectNoSchedule},
		{Key: syms.Intern("soft"), Effect: EffectPreferNoSchedule}}
	c.SetStorage(&Storage{Default: 0, Zones: m.zones,
		Classes: []StorageClass{{Name: "gp3", Zonal: true, Attach: true, Mode: WaitForFirstConsumer},
			{Name: "imm", Zonal: true, Attach: true, Mode: Immediate}},
		Claims: []ClaimInput{{Namespace: m.ns, Name: "shared"}, {Namespace: m.ns, Name: "shared-imm", Class: "imm"}}})
	sel, err := CompileLabelSelector(syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}})
	if err != nil {
		panic(err)
	}
	c.TrackPDBs([]PDB{{Namespace: m.ns, Name: "db", Selector: sel, MinAvailable: &IntOrPercent{Value: 2}}})

	req := func(cpu int64) Resources {
		var r Resources
		r[CPU], r[Memory], r[Pods] = cpu, cpu<<20, 1
		return r
	}
	db := CompileLabels(syms, map[string]string{"app": "db"})
	tol := Tolerations{{Key: m.taints[0].Key, Op: TolerateExists, Effect: EffectAny}}
	zoneA := []Requirement{{Key: c.KeyZone, Op: OpIn, Values: []Sym{m.zones[0]}}}
	add := func(name string, s *PodSpec) {
		s.ScoreCPU, s.ScoreMemory = s.Requests[CPU], s.Requests[Memory]
		m.specs = append(m.specs, s)
		m.names = append(m.names, name)
	}
	add("web", &PodSpec{Requests: req(250)})
	add("big", &PodSpec{Requests: req(1500)})
	add("db", &PodSpec{Requests: req(500), Labels: db})
	add("ded", &PodSpec{Requests: req(250), Tolerations: tol})
	add("pin", &PodSpec{Requests: req(100), NodeSelector: zoneA})
	add("sts", &PodSpec{Requests: req(300), Claims: []ClaimRef{{Name: "data", Template: true}}})
	add("shr", &PodSpec{Requests: req(200), Claims: []ClaimRef{{Name: "shared"}}})
	add("eph", &PodSpec{Requests: req(200), Claims: []ClaimRef{{Name: "scratch", Ephemeral: true}}})
	add("imm", &PodSpec{Requests: req(200), Claims: []ClaimRef{{Name: "shared-imm"}}})
	for range 3 {
		m.addNode()
	}
	return m
}

func (m *clusterModel) pick(n int) (int, bool) { return m.ch.IntN(max(n, 1)) }

func (m *clusterModel) addNode() {
	var alloc Resources
	size := []int64{2000, 4000, 8000}[m.counter%3]
	alloc[CPU], alloc[Memory], alloc[Pods] = size, size<<20, 20
	state := NodeReady
	if m.counter%4 == 3 {
		state = NodeLaunching
	}
	m.c.AddNode(Node{Name: fmt.Sprint("n", m.counter), Allocatable: alloc, State: state, Zone: m.zones[m.counter%2],
		InstanceType: "m5.large", Labels: CompileLabels(m.c.Syms, map[string]string{"topology.kubernetes.io/zone": m.c.Syms.Name(m.zones[m.counter%2])})})
	m.counter++
}

// step makes one random change; false when the chooser is exhausted.
func (m *clusterModel) step() bool {
	c := m.c
	op, ok := m.pick(20)
	if !ok {
		return false
	}
	x, ok := m.pick(256)
	if !ok {
		return false
	}
	y, _ := m.pick(256)
	m.clock.t += engine.Time(1+x%30) * engine.Time(time.Second)
	nodes, pods := len(c.Nodes), len(c.Pods)
	nid := NodeID(x % max(nodes, 1))
	pid := PodID((x*256 + y) % max(pods, 1))
	live := nodes > 0 && c.Nodes[nid].State != NodeGone
	switch {
	case op < 4 || pods == 0:
		s := y % len(m.specs)
		// Few names per template: a recreated StatefulSet pod finds its
		// claim again.
		c.CreatePod(Pod{Name: fmt.Sprintf("%s-%d", m.names[s], x%4), Namespace: m.ns, Spec: m.specs[s], Workload: 0})
	case op < 8:
		m.bind(pid, y)
	case op == 8:
		if p := &c.Pods[pid]; p.Phase == Bound && c.VolumesAttached(pid) {
			c.StartPod(pid)
		}
	case op == 9:
		c.MarkUnschedulable(pid)
	case op == 10:
		c.MarkTerminating(pid)
	case op == 11:
		if c.Pods[pid].Phase == Running {
			c.FinishPod(pid, Succeeded)
		}
	case op == 12:
		c.DeletePod(pid, CauseEvicted)
	case op == 13 && (nodes < 12 || y%4 == 0):
		m.addNode()
	case op == 14 && live && c.Nodes[nid].State == NodeLaunching:
		c.MarkNodeReady(nid)
	case op == 15 && live:
		switch t := m.taints[y%len(m.taints)]; y % 3 {
		case 0:
			c.AddTaint(nid, t)
		case 1:
			c.RemoveTaint(nid, t.Key, t.Effect)
		default:
			c.SetTaints(nid, m.taints[:y%(len(m.taints)+1)])
		}
	case op == 16 && live:
		c.SetCordon(nid, y%2 == 0)
	case op == 17 && live:
		c.SetLabel(nid, m.keys[y%2], m.values[(y/2)%2])
	case op == 18 && live && y%3 == 0:
		c.RemoveNode(nid)
	case op == 19:
		if claims := c.Claims(); len(claims) > 0 {
			c.ForceDetach(ClaimID(y % len(claims)))
		}
	}
	return true
}

// bind binds a pending pod to the first Ready node, from a random one on,
// where it fits, its volumes bound first.
func (m *clusterModel) bind(pid PodID, from int) {
	c := m.c
	p := &c.Pods[pid]
	if p.Phase != Pending || len(c.Nodes) == 0 {
		return
	}
	for k := range len(c.Nodes) {
		id := NodeID((from + k) % len(c.Nodes))
		n := &c.Nodes[id]
		free := n.Free()
		if n.State != NodeReady {
			continue
		}
		if mm, _ := StaticFit(c.Syms, p.Spec, n, &free); mm != Fits {
			continue
		}
		c.BindVolumes(pid, id)
		if mm, _ := StaticFit(c.Syms, c.Pods[pid].Spec, n, &free); mm != Fits {
			panic("the pin BindVolumes gave refuses the node it bound for")
		}
		c.Bind(pid, id)
		return
	}
}

// runClusterModel runs the model until the chooser is exhausted or steps
// are done, checking the indexes after every step.
func runClusterModel(t testing.TB, ch chooser, steps int) *clusterModel {
	m := newClusterModel(ch)
	require.NoError(t, m.c.CheckIndexes(), "at the start")
	for step := range steps {
		if !m.step() {
			break
		}
		require.NoError(t, m.c.CheckIndexes(), "step %d", step)
	}
	return m
}

// clusterSweep runs a longer sweep: that many seeds of 5,000 steps.
var clusterSweep = flag.Int("cluster-sweep", 0, "seeds of a long TestClusterIndexesModel sweep (0: the short one)")

// TestClusterIndexesModel is the deterministic sweep: seeded random runs
// of the model, the indexes checked after every step.
func TestClusterIndexesModel(t *testing.T) {
	kinds := map[string]int{}
	seeds, steps := uint64(12), 1500
	if *clusterSweep > 0 {
		seeds, steps = uint64(*clusterSweep), 5000
	}
	for seed := range seeds {
		m := runClusterModel(t, choose.Seeded(rand.New(rand.NewPCG(seed, 29))), steps)
		c := m.c
		for i := range c.Pods {
			kinds[c.Pods[i].Phase.String()]++
		}
		for _, v := range c.Volumes() {
			if v.held {
				kinds["held"]++
			}
			if len(v.waiting) > 0 {
				kinds["waiting"]++
			}
		}
		kinds["forceDetaches"] += c.VolumeStats().ForceDetaches
		kinds["volumes"] += len(c.Volumes())
	}
	t.Logf("%v", kinds)
	for _, k := range []string{"Running", "Succeeded", "Deleted", "Pending", "volumes", "forceDetaches", "waiting"} {
		require.Positive(t, kinds[k], "no %s: the sweep lost its coverage", k)
	}
}

// CheckIndexes has no effect on the cluster: the same changes give the
// same nodes, pods and volumes with and without a check after each step.
func TestClusterCheckHasNoSideEffects(t *testing.T) {
	run := func(checked bool) string {
		m := newClusterModel(choose.Seeded(rand.New(rand.NewPCG(3, 59))))
		for range 1500 {
			m.step()
			if checked {
				require.NoError(t, m.c.CheckIndexes())
			}
		}
		c := m.c
		// Specs by what they hold (their addresses differ between runs).
		spec := func(s *PodSpec) string {
			if s.Volume != nil {
				return fmt.Sprint(s.Requests, s.Volume.key())
			}
			return fmt.Sprint(s.Requests)
		}
		var b strings.Builder
		for i := range c.Nodes {
			n := &c.Nodes[i]
			fmt.Fprintf(&b, "%s %s %v %v %v %v %d\n", n.Name, n.State, n.Labels, n.Taints, n.Pods, n.Requested, c.NodeEpoch(NodeID(i)))
			for _, r := range n.PodRefs {
				fmt.Fprintf(&b, " %s %d %v\n", spec(r.Spec), r.Created, r.Terminating)
			}
		}
		for i := range c.Pods {
			p := &c.Pods[i]
			fmt.Fprintf(&b, "%s %s %d %s %v\n", p.Name, p.Phase, p.Node, spec(p.Spec), p.Terminating)
		}
		fmt.Fprintf(&b, "%+v %+v %v\n", c.Claims(), c.Volumes(), c.VolumeStats())
		return b.String()
	}
	require.Equal(t, run(false), run(true))
}

// FuzzClusterIndexes: the model's changes from the fuzzer's bytes.
func FuzzClusterIndexes(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(choose.RandomBytes(seed, 31, 600))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runClusterModel(t, choose.Bytes(data), 2000)
	})
}

// Each structure, corrupted on purpose, is reported by name.
func TestClusterCheckCatchesCorruption(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(c *Cluster) bool // false: nothing to corrupt
		want    string
	}{
		{"live", func(c *Cluster) bool { c.live++; return true }, "live node count"},
		{"pod list", func(c *Cluster) bool {
			n := nodeWithPods(c, 1)
			if n == nil {
				return false
			}
			n.Pods = n.Pods[:len(n.Pods)-1]
			return true
		}, "Node."},
		{"node slot", func(c *Cluster) bool {
			n := nodeWithPods(c, 2)
			if n == nil {
				return false
			}
			c.Pods[n.Pods[0]].nodeSlot = 1
			return true
		}, "Pod.nodeSlot"},
		{"pod refs", func(c *Cluster) bool {
			n := nodeWithPods(c, 1)
			if n == nil {
				return false
			}
			n.PodRefs[0].Terminating = !n.PodRefs[0].Terminating
			return true
		}, "Node.PodRefs"},
		{"requested", func(c *Cluster) bool { c.Nodes[0].Requested[CPU]++; return true }, "Node.Requested"},
		{"score requested", func(c *Cluster) bool { c.Nodes[0].ScoreRequested[Memory]--; return true }, "Node.ScoreRequested"},
		{"epoch kept", func(c *Cluster) bool {
			n := &c.Nodes[0]
			n.Labels = n.Labels.With(c.Syms.Intern("sneaky"), c.Syms.Intern("x"))
			return true
		}, "node epochs"},
		{"epoch back", func(c *Cluster) bool { c.epochs[0]--; return true }, "went back"},
		{"PDB count", func(c *Cluster) bool { c.budgets.list[0].healthy++; return true }, "PDB counts"},
		{"PDB share", func(c *Cluster) bool { c.budgets.share[0] ^= 2; return true }, "PDB shares"},
		{"claim index", func(c *Cluster) bool {
			for k := range c.vol.claimIdx {
				delete(c.vol.claimIdx, k)
				return true
			}
			return false
		}, "claim index"},
		{"claim users", func(c *Cluster) bool {
			for i := range c.vol.claims {
				if cl := &c.vol.claims[i]; len(cl.users) > 0 {
					cl.users = cl.users[1:]
					return true
				}
			}
			return false
		}, "claim users"},
		{"attached", func(c *Cluster) bool { c.vol.attached = append(c.vol.attached, 1); return true }, "attached volumes"},
		{"volume pods", func(c *Cluster) bool {
			for i := range c.vol.vols {
				if v := &c.vol.vols[i]; v.Node != NoNode && !v.held {
					v.pods++
					return true
				}
			}
			return false
		}, "volume pod count"},
		{"claim binding", func(c *Cluster) bool {
			for i := range c.vol.claims {
				if cl := &c.vol.claims[i]; cl.Volume != NoVolume {
					c.vol.vols[cl.Volume].Claim = NoClaim
					return true
				}
			}
			return false
		}, "claim binding"},
		{"waiting", func(c *Cluster) bool {
			for i := range c.vol.vols {
				if v := &c.vol.vols[i]; len(v.waiting) > 0 {
					v.waiting = v.waiting[1:]
					return true
				}
			}
			return false
		}, "volume waiting pods"},
		{"pin", func(c *Cluster) bool {
			for i := range c.Pods {
				if p := &c.Pods[i]; p.Phase == Pending && p.Spec.Volume != nil {
					p.Spec = c.TemplateSpec(p.Spec)
					return true
				}
			}
			return false
		}, "volume pins"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A populated cluster: the first seed whose run leaves
			// something to corrupt.
			for seed := range uint64(20) {
				m := runClusterModel(t, choose.Seeded(rand.New(rand.NewPCG(seed, 37))), 400)
				if !tc.corrupt(m.c) {
					continue
				}
				err := m.c.CheckIndexes()
				require.Error(t, err)
				require.True(t, strings.Contains(err.Error(), tc.want), "got %v, want it to name %q", err, tc.want)
				return
			}
			t.Fatal("no run left anything to corrupt")
		})
	}
}

// nodeWithPods returns a node with at least n pods, or nil.
func nodeWithPods(c *Cluster, n int) *Node {
	for i := range c.Nodes {
		if len(c.Nodes[i].Pods) >= n {
			return &c.Nodes[i]
		}
	}
	return nil
}

// A spec class whose content is another class's is reported.
func TestSpecClassesCheckCatchesCorruption(t *testing.T) {
	var c SpecClasses
	a := &PodSpec{NodeName: "a"}
	b := &PodSpec{NodeName: "b"}
	c.Of(a)
	c.Of(b)
	c.Of(&PodSpec{NodeName: "a"})
	require.NoError(t, c.Check())
	require.Equal(t, 2, c.Len())
	c.byPtr[b] = c.byPtr[a]
	require.ErrorContains(t, c.Check(), "spec classes")
}
