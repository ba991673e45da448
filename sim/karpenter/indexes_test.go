package karpenter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"

	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// A model-based differential test of Karpenter's incremental structures:
// a script of random cluster changes (pods of several templates created,
// finished, deleted, evicted through a PodDisruptionBudget, told to stop;
// static nodes added and removed; any node cordoned, tainted, relabelled;
// offerings exhausted and restored; instances reclaimed or interrupted;
// the NodePool's template changed) drives the real controller through
// the harness, and CheckIndexes recomputes every structure after every
// engine event and every change. The same script run with every what-if
// and batch computed whole (whatIfHooks.full) must decide the same, and
// every what-if doomed skips must fail when computed whole: the shortcuts
// that CheckIndexes cannot recompute without side effects.

// script draws a run's choices from bytes (a fuzzer's input, or random
// ones); 0 once they run out.
type script struct {
	b []byte
	i int
}

func (s *script) left() bool { return s.i < len(s.b) }

func (s *script) intn(n int) int {
	if s.i >= len(s.b) || n <= 1 {
		s.i++
		return 0
	}
	v := int(s.b[s.i]) % n
	s.i++
	return v
}

// scriptBytes are n random bytes of seed.
func scriptBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x6b70))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// indexRun is what one script run did.
type indexRun struct {
	record        string      // runRecord: every node's life and the stats
	counts        indexCounts // what the checks compared, summed
	checks        int         // CheckIndexes calls
	events        uint64      // engine events
	doomed, wrong int         // what-ifs doomed skipped, and those that succeed whole
	ops           map[int]int // changes applied, by kind
	syms          int         // symbols interned at the end
}

// scriptMode: full computes every what-if and batch whole; unchecked
// runs no check.
type scriptMode struct{ full, unchecked bool }

// The pools a script may start with; the second NodePool of each pair is
// the first's template changed (its nodes drift).
var scriptPools = [][2]string{
	{spotWide, poolWith("spot", spotOnly+cmr+newerThan4+amd64, "      taints: [{key: soft, effect: PreferNoSchedule}]\n  disruption: {consolidateAfter: 0s}")},
	{poolWith("small", smallNodes+odAndSpot, "  disruption: {consolidateAfter: 30s}"),
		poolWith("small", smallNodes+odAndSpot, "      startupTaints: [{key: init, effect: NoSchedule}]\n  disruption: {consolidateAfter: 30s}")},
	{poolWith("od", odM5, "      startupTaints: [{key: init, effect: NoSchedule}]\n  disruption: {consolidateAfter: 1m}\n  limits: {cpu: \"48\"}") +
		"---\n" + poolWith("spot", spotOnly+cmr+newerThan4, "  weight: 10\n  disruption: {consolidateAfter: 20s}"),
		poolWith("od", odM5, "  disruption: {consolidateAfter: 1m}\n  limits: {cpu: \"48\"}") +
			"---\n" + poolWith("spot", spotOnly+cmr+newerThan4, "  weight: 10\n  disruption: {consolidateAfter: 20s}")},
	{poolWith("empty", odAndSpot+cmr, "  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 10s}"),
		poolWith("empty", odAndSpot+cmr, "      expireAfter: 20m\n  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 10s}")},
}

func withToleration(key string) podOpt {
	return func(s *corev1.PodSpec, _, _ map[string]string) {
		s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists})
	}
}

// runIndexScript runs a script with CheckIndexes after every event and
// change (unless mode.unchecked); a drift fails t.
func runIndexScript(t testing.TB, data []byte, mode scriptMode) indexRun {
	t.Helper()
	s := &script{b: data}
	h := newHarness(t)
	settings := apis.DefaultSettings()
	settings.SpotToSpotConsolidation = s.intn(2) == 1
	settings.ComputeTime = s.intn(3) == 0 // provisioning solves take time
	if s.intn(4) == 0 {
		settings.PreferencePolicy = apis.PreferencesIgnore
	}
	h.settings = &settings
	sel, err := cluster.CompileLabelSelector(h.cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}})
	require.NoError(t, err)
	h.pdbs = []cluster.PDB{{Namespace: h.cl.Syms.Intern("default"), Name: "db", Selector: sel, MaxUnavailable: &cluster.IntOrPercent{Value: 1}}}
	prio := h.podSpec("400m", "512Mi", map[string]string{"app": "prio"})
	prio.Priority = 1 << 26
	templates := []*cluster.PodSpec{
		h.podSpec("500m", "512Mi", map[string]string{"app": "web"}),
		h.podSpec("2", "4Gi", map[string]string{"app": "big"}),
		h.podSpec("300m", "256Mi", map[string]string{"app": "spread"}, withZoneSpread("spread")),
		h.podSpec("250m", "256Mi", map[string]string{"app": "anti"}, withHostAntiAffinity("anti")),
		h.podSpec("200m", "256Mi", map[string]string{"app": "dnd"}, withDoNotDisrupt()),
		h.podSpec("1", "1Gi", map[string]string{"app": "od"}, withNodeSelector("karpenter.sh/capacity-type", "on-demand")),
		h.podSpec("400m", "512Mi", map[string]string{"app": "pref"}, withPreferredZone("us-east-1a")),
		h.podSpec("300m", "256Mi", map[string]string{"app": "tol"}, withToleration("dedicated")),
		h.podSpec("300m", "256Mi", map[string]string{"app": "team"}, withNodeSelector("team", "a")),
		h.podSpec("600m", "512Mi", map[string]string{"app": "db"}),
		prio,
	}
	daemon := h.podSpec("100m", "128Mi", map[string]string{"app": "daemon"})
	pools := scriptPools[s.intn(len(scriptPools))]
	if s.intn(2) == 0 {
		// Without anti-affinity or capacity-type selectors: doomed's
		// shortcut may then answer (see doomed.go).
		templates = slices.DeleteFunc(templates, func(spec *cluster.PodSpec) bool {
			return len(spec.PodAntiAffinity) > 0 || scheduling.SpecUsesKey(spec, h.cl.KeyCapacityType)
		})
	}
	statics := 0
	addStatic := func() {
		types := []string{"m5.large", "c5.xlarge", "r5.large", "m5.2xlarge"}
		h.staticNode(fmt.Sprintf("static-%d", statics), types[s.intn(len(types))], testZones[s.intn(len(testZones))])
		statics++
	}
	for range s.intn(3) {
		addStatic()
	}
	h.start(pools[0])
	k := h.k
	ns := h.cl.Syms.Intern("default")
	run := indexRun{ops: map[int]int{}}
	check := func(where string, pools bool) {
		if mode.unchecked {
			return
		}
		counts, err := k.checkIndexes(pools)
		run.checks++
		run.counts.add(counts)
		if err != nil {
			t.Fatalf("%s at %v (event %d, script byte %d): %v", where, h.eng.Now(), h.eng.Events(), s.i, err)
		}
	}
	if !mode.unchecked {
		h.eng.EnableChecks(func(engine.Event) { check("after an event", false) })
	}
	if mode.full {
		defer computeWhatIfsWhole(true)()
	} else {
		defer verifyDoomedWhatIfs(func(failed bool) {
			run.doomed++
			if !failed {
				run.wrong++
			}
		})()
	}
	// Live objects, in ID order, for the script to pick from.
	pods := func(keep func(p *cluster.Pod) bool) []cluster.PodID {
		var out []cluster.PodID
		for i := range h.cl.Pods {
			if p := &h.cl.Pods[i]; !p.Phase.Terminal() && keep(p) {
				out = append(out, cluster.PodID(i))
			}
		}
		return out
	}
	nodes := func(keep func(n *cluster.Node) bool) []cluster.NodeID {
		var out []cluster.NodeID
		for i := range h.cl.Nodes {
			if n := &h.cl.Nodes[i]; n.State != cluster.NodeGone && keep(n) {
				out = append(out, cluster.NodeID(i))
			}
		}
		return out
	}
	anyNode := func(*cluster.Node) bool { return true }
	bound := func(p *cluster.Pod) bool { return p.Phase.OnNode() }
	pickPod := func(ids []cluster.PodID) (cluster.PodID, bool) {
		if len(ids) == 0 {
			return cluster.NoPod, false
		}
		return ids[s.intn(len(ids))], true
	}
	pickNode := func(ids []cluster.NodeID) (cluster.NodeID, bool) {
		if len(ids) == 0 {
			return cluster.NoNode, false
		}
		return ids[s.intn(len(ids))], true
	}
	dedicated, soft, team := h.cl.Syms.Intern("dedicated"), h.cl.Syms.Intern("soft"), h.cl.Syms.Intern("team")
	teams := []cluster.Sym{h.cl.Syms.Intern("a"), h.cl.Syms.Intern("b")}
	created := 0
	create := func(spec *cluster.PodSpec, n int, runFor time.Duration) {
		for range n {
			h.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("p%d", created), Namespace: ns, Spec: spec, Workload: -1, RunFor: runFor})
			created++
		}
	}
	updated := false
	for ops := 0; s.left() && ops < 120; ops++ {
		op := s.intn(18)
		switch op {
		case 0, 1, 2, 3: // pods of a template
			var runFor time.Duration
			if s.intn(3) == 0 {
				runFor = time.Duration(1+s.intn(20)) * time.Minute
			}
			create(templates[s.intn(len(templates))], 1+s.intn(6), runFor)
		case 4: // a pod deleted, bound or not
			if id, ok := pickPod(pods(func(*cluster.Pod) bool { return true })); ok {
				h.cl.DeletePod(id, cluster.CauseScaleDown)
			}
		case 5: // a bound pod evicted through the eviction API (PDB)
			if id, ok := pickPod(pods(bound)); ok {
				h.ev.Evict(id, cluster.CauseEvicted)
			}
		case 6: // a bound pod told to stop; it keeps its room until deleted
			if id, ok := pickPod(pods(bound)); ok {
				h.cl.MarkTerminating(id)
			}
		case 7:
			addStatic()
		case 8:
			if id, ok := pickNode(nodes(func(n *cluster.Node) bool { return n.Owner == cluster.OwnedByStatic })); ok {
				h.cl.RemoveNode(id)
			}
		case 9: // cordon or uncordon any node
			if id, ok := pickNode(nodes(anyNode)); ok {
				h.cl.SetCordon(id, !h.cl.Nodes[id].Unschedulable)
			}
		case 10: // taint or untaint any node
			if id, ok := pickNode(nodes(anyNode)); ok {
				key, effect := dedicated, cluster.EffectNoSchedule
				switch s.intn(3) {
				case 1:
					key, effect = soft, cluster.EffectPreferNoSchedule
				case 2: // a user's hand on Karpenter's own taint
					key = k.keyDisrupted
				}
				if s.intn(2) == 0 {
					h.cl.AddTaint(id, cluster.Taint{Key: key, Effect: effect})
				} else {
					h.cl.RemoveTaint(id, key, effect)
				}
			}
		case 11: // relabel any node
			if id, ok := pickNode(nodes(anyNode)); ok {
				h.cl.SetLabel(id, team, teams[s.intn(len(teams))])
			}
		case 12: // capacity: a zone's or a capacity type's offerings run dry, or come back
			switch s.intn(3) {
			case 0:
				h.cloud.Exhaust(cloud.Offering{Zone: testZones[s.intn(len(testZones))], CapacityType: cluster.Spot})
			case 1:
				h.cloud.Exhaust(cloud.Offering{Zone: testZones[s.intn(len(testZones))]})
			default:
				h.cloud.RestoreAll()
			}
		case 13: // an instance of Karpenter's reclaimed or interrupted
			if id, ok := pickNode(nodes(func(n *cluster.Node) bool { return n.Owner == ownedByKarpenter })); ok {
				if s.intn(2) == 0 {
					h.cloud.Reclaim(k.nodes.get(id).instance)
				} else {
					h.cloud.Interrupt(k.nodes.get(id).instance)
				}
			}
		case 14: // the NodePools' template changes (drift), or back
			updated = !updated
			next := pools[0]
			if updated {
				next = pools[1]
			}
			for _, p := range h.pools(next) {
				k.UpdateNodePool(h.eng.Now(), p)
			}
		case 15: // a DaemonSet's or a mirror pod pinned to any node
			if id, ok := pickNode(nodes(anyNode)); ok {
				spec := *daemon
				spec.NodeName = h.cl.Nodes[id].Name
				if s.intn(2) == 0 {
					spec.DaemonSet = true
				} else {
					spec.Mirror = true
				}
				create(&spec, 1, 0)
			}
		case 16: // a long wait: consolidation, expiry, drift
			h.run(h.eng.Now() + time.Duration(5+s.intn(25))*time.Minute)
		case 17: // a burst of one template, as a scale-up
			create(templates[s.intn(len(templates))], 10+s.intn(20), 0)
		}
		run.ops[op]++
		check("after change "+fmt.Sprint(op), true)
		h.run(h.eng.Now() + time.Duration(1+s.intn(60))*time.Second)
	}
	h.run(h.eng.Now() + time.Duration(5+s.intn(26))*time.Minute) // 5 min once the script ran out
	check("at the end", true)
	run.record = runRecord(t, h)
	run.events = h.eng.Events()
	run.syms = h.cl.Syms.Len()
	return run
}

// add sums the checks' counts.
func (c *indexCounts) add(o indexCounts) {
	c.scans += o.scans
	c.nodeSets += o.nodeSets
	c.provSets += o.provSets
	c.entries += o.entries
	c.jumpPositions += o.jumpPositions
	c.verdicts += o.verdicts
	c.podStatics += o.podStatics
	c.claimStarts += o.claimStarts
	c.masks += o.masks
}

// TestKarpenterIndexes sweeps scripts of seeded random changes: no
// structure drifts from its recomputation, and computing every what-if
// and batch whole decides the same.
func TestKarpenterIndexes(t *testing.T) {
	var total indexCounts
	var doomed, events, checks int
	ops := map[int]int{}
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for seed := range uint64(seeds) {
		data := scriptBytes(seed+1, 300)
		short := runIndexScript(t, data, scriptMode{})
		require.Zero(t, short.wrong, "seed %d: doomed skipped what-ifs that succeed", seed+1)
		whole := runIndexScript(t, data, scriptMode{full: true, unchecked: true})
		require.Equal(t, whole.record, short.record, "seed %d: the shortcuts changed a decision", seed+1)
		total.add(short.counts)
		doomed += short.doomed
		events += int(short.events)
		checks += short.checks
		for op, n := range short.ops {
			ops[op] += n
		}
	}
	t.Logf("%d checks over %d events; compared %+v; %d doomed what-ifs verified; changes by kind %v", checks, events, total, doomed, ops)
	// The sweep reaches every structure and every kind of change.
	require.Positive(t, total.scans)
	require.Positive(t, total.nodeSets)
	require.Positive(t, total.provSets)
	require.Positive(t, total.entries)
	require.Positive(t, total.jumpPositions)
	require.Positive(t, total.verdicts)
	require.Positive(t, total.podStatics)
	require.Positive(t, total.claimStarts)
	require.Positive(t, total.masks)
	require.Positive(t, doomed)
	require.Len(t, ops, 18)
}

// A check changes nothing: the same script run without checks decides
// the same and interns no fewer symbols.
func TestCheckIndexesChangesNothing(t *testing.T) {
	data := scriptBytes(99, 300)
	checked := runIndexScript(t, data, scriptMode{})
	plain := runIndexScript(t, data, scriptMode{unchecked: true})
	require.Positive(t, checked.checks)
	require.Equal(t, plain.record, checked.record)
	require.Equal(t, plain.syms, checked.syms, "a check interned a symbol")
}

// fuzzScriptBytes bounds a fuzzed script (some 15 changes).
const fuzzScriptBytes = 64

// FuzzKarpenterIndexes runs scripts from the fuzzer's bytes: no structure
// drifts from its recomputation and no doomed what-if succeeds.
func FuzzKarpenterIndexes(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(scriptBytes(seed+1, fuzzScriptBytes))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzScriptBytes {
			data = data[:fuzzScriptBytes] // short runs: many of them
		}
		if r := runIndexScript(t, data, scriptMode{}); r.wrong > 0 {
			t.Fatalf("%d doomed what-ifs succeed when computed whole", r.wrong)
		}
	})
}

// Each structure, corrupted, is reported by name.
func TestCheckIndexesCatchesDrift(t *testing.T) {
	// setup runs a short churn where every structure has entries, stopped
	// at an instant where the snapshot is reused as is.
	setup := func(t *testing.T) *harness {
		h := newHarness(t)
		h.deploy("web", h.podSpec("700m", "1Gi", map[string]string{"app": "web"}), time.Duration(0), 12, 10*time.Minute, 4)
		h.deploy("anti", h.podSpec("250m", "256Mi", map[string]string{"app": "anti"}, withHostAntiAffinity("anti")), time.Duration(0), 2)
		h.staticNode("static-a", "m5.xlarge", "us-east-1a")
		h.start(poolWith("small", smallNodes+odAndSpot, "      startupTaints: [{key: init, effect: NoSchedule}]\n  disruption: {consolidateAfter: 30s}"))
		h.run(15 * time.Minute)
		require.NoError(t, h.k.CheckIndexes())
		return h
	}
	// fresh brings every cache into use at the current instant.
	fresh := func(h *harness) {
		k := h.k
		for _, ns := range k.dis.nodeScans() {
			(&candidate{kn: ns.kn, pods: ns.pods}).podSet(k.solvers)
		}
		// A what-if that moves every bound pod off every node: it fills
		// the jump tables, the verdicts and the pod statics, and starts
		// NodeClaims (claim starts, placeholder hostnames).
		var exclude []cluster.NodeID
		var pods []cluster.PodID
		for _, id := range k.base.ByOrderName {
			exclude = append(exclude, id)
			pods = append(pods, h.cl.Nodes[id].Pods...)
		}
		s := k.solvers.NewSolver(nil, scheduling.SolveOpts{Consolidation: true, Exclude: exclude,
			Sets: []*scheduling.PodSet{k.solvers.NewPodSet(pods), k.dis.provisionableSet()}})
		s.Solve(nil)
		require.GreaterOrEqual(t, len(s.Claims), 2)
		k.solvers.Recycle(s)
		k.offerings.AvailableMasks()
		counts, err := k.checkIndexes(true)
		require.NoError(t, err)
		require.Positive(t, counts.jumpPositions)
		require.Positive(t, counts.verdicts)
		require.Positive(t, counts.podStatics)
		require.Positive(t, counts.claimStarts)
		require.Positive(t, counts.masks)
		require.Positive(t, counts.nodeSets)
	}
	firstKN := func(h *harness, ok func(*knode) bool) *knode {
		for _, kn := range h.k.nodes.live {
			if ok(kn) {
				return kn
			}
		}
		h.t.Fatal("no such node")
		return nil
	}
	withPods := func(kn *knode) bool { return len(kn.scan.pods) > 0 && kn.scanValid }
	cases := []struct {
		structure string
		corrupt   func(h *harness)
	}{
		{"node records", func(h *harness) { firstKN(h, withPods).Initialized = false }},
		{"node records", func(h *harness) { delete(h.k.nodes.byInstance, h.k.nodes.live[0].instance) }},
		{"node records", func(h *harness) { firstKN(h, withPods).LastPodEvent = -time.Hour }},
		{"antiBound", func(h *harness) { h.k.nodes.idx.BoundAntiAffinityPods++ }},
		{"pending pods", func(h *harness) { h.k.prov.pending[0] = true }},
		{"pod scans", func(h *harness) { kn := firstKN(h, withPods); kn.scan.pods = kn.scan.pods[1:] }},
		{"pod scans", func(h *harness) { firstKN(h, withPods).scan.cost += 1 }},
		{"pod scans", func(h *harness) { firstKN(h, withPods).scan.doNotDisrupt = true }},
		{"prepared pod sets", func(h *harness) {
			kn := firstKN(h, func(kn *knode) bool {
				return kn.set != nil && len(kn.set.QueueKeys) > 0 && !kn.Deleting && kn.cmd == nil
			})
			kn.scanValid = false // so only the node's set is wrong
			kn.set.QueueKeys[0].CPU++
		}},
		{"prepared pod sets", func(h *harness) {
			kn := firstKN(h, func(kn *knode) bool {
				return kn.set != nil && len(kn.set.Templates) > 0 && !kn.Deleting && kn.cmd == nil
			})
			kn.scanValid = false
			kn.set.TemplateCounts[0]++
		}},
		{"prepared pod sets", func(h *harness) {
			h.k.dis.provSet = &scheduling.PodSet{Pods: h.k.prov.provisionable(), HasTopology: true}
		}},
		{"node order", func(h *harness) {
			b := h.k.base
			b.ByOrderName[0], b.ByOrderName[1] = b.ByOrderName[1], b.ByOrderName[0]
		}},
		{"node order", func(h *harness) { h.k.base.OrderNames[h.k.nodes.live[0].ID] = "zzz" }},
		{"dirty marks", func(h *harness) { h.k.base.DirtyNodes = append(h.k.base.DirtyNodes, 0) }},
		{"dirty marks", func(h *harness) { h.k.base.DirtyMarks = h.k.base.DirtyMarks[:0] }},
		{"existing-node snapshot", func(h *harness) { h.k.base.Snapshot.Nodes[0].Free[cluster.CPU]++ }},
		{"existing-node snapshot", func(h *harness) { h.k.base.Snapshot.Nodes[0].ConsolidateAfterUntil += time.Hour }},
		{"existing-node snapshot", func(h *harness) {
			c := &h.k.base.Snapshot
			c.PoolNodes[h.k.nodes.live[0].Pool]++
		}},
		{"existing-node snapshot", func(h *harness) {
			// A node deleted without the snapshot being told.
			kn := firstKN(h, withPods)
			kn.Deleting = true
			kn.scanValid = false
		}},
		{"jump tables", func(h *harness) {
			for _, jt := range h.k.base.Snapshot.JumpTables {
				for i, v := range jt.Next {
					if v >= 0 && int(v) < len(jt.Next) {
						jt.Next[i] = int32(len(jt.Next)) // claims nothing fits from i
						return
					}
				}
			}
			h.t.Fatal("no jump table with a fit")
		}},
		{"static-fit verdicts", func(h *harness) {
			for _, vs := range h.k.solvers.Verdicts {
				for _, id := range h.k.base.ByOrderName {
					if yes, known := vs.Get(id, h.cl.NodeEpoch(id)); known {
						vs.Set(id, h.cl.NodeEpoch(id), !yes, len(h.cl.Nodes))
						return
					}
				}
			}
			h.t.Fatal("no verdict")
		}},
		{"pod statics", func(h *harness) {
			for _, st := range h.k.solvers.PodStatics {
				st.Requests[cluster.CPU]++
				return
			}
		}},
		{"pod statics", func(h *harness) {
			for _, st := range h.k.solvers.PodStatics {
				st.Index = int32(len(h.k.solvers.PodStatics)) + 3
				return
			}
		}},
		{"node pools", func(h *harness) { h.k.pools.All[0].Types = h.k.pools.All[0].Types[1:] }},
		{"node pools", func(h *harness) { h.k.pools.All[0].HasPreferNoSchedule = true }},
		{"node pools", func(h *harness) {
			p := h.k.pools.All[0]
			p.ClaimStarts[1].OfferingMask = 0
		}},
		{"placeholder hostnames", func(h *harness) {
			ps := h.k.solvers.Placeholders
			ps[1], ps[2] = ps[2], ps[1]
		}},
		{"available offerings", func(h *harness) { h.k.offerings.AvailableCache[0] ^= 1 }},
		{"disruption pass cache", func(h *harness) { h.k.dis.pass.on = true }},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.structure, " ", "-"), func(t *testing.T) {
			h := setup(t)
			fresh(h)
			c.corrupt(h)
			err := h.k.CheckIndexes()
			require.Error(t, err)
			require.Contains(t, err.Error(), "karpenter "+c.structure+":")
			t.Log(err)
		})
	}
}

// Nodes that exist before Karpenter starts join the node order without a
// dirty mark; when one of them went, the snapshot's merge read the dirty
// marks of the others past their end and the run crashed (index out of
// range in existingBase.remerge; found by TestKarpenterIndexes' sweep,
// seed 6050). The dirty marks cover every live node now, which
// CheckIndexes checks.
func TestNodesBeforeStartLeaveTheSnapshot(t *testing.T) {
	h := newHarness(t)
	a := h.staticNode("static-a", "m5.large", "us-east-1a")
	h.staticNode("static-b", "m5.large", "us-east-1b")
	// A pod no NodePool can serve: every batch solves (building the
	// snapshot) and launches nothing.
	h.deploy("team", h.podSpec("300m", "256Mi", nil, withNodeSelector("team", "a")), time.Duration(0), 1)
	h.start(spotWide)
	h.eng.EnableChecks(func(engine.Event) {
		if err := h.k.CheckIndexes(); err != nil {
			t.Fatalf("at %v: %v", h.eng.Now(), err)
		}
	})
	h.run(time.Minute)
	require.True(t, h.k.base.Snapshot.Valid, "a batch solved")
	require.Empty(t, h.karpenterNodes())
	h.cl.RemoveNode(a)
	require.NoError(t, h.k.CheckIndexes())
	h.run(2 * time.Minute) // the next batch merges the snapshot anew
	require.Equal(t, 1, h.podsIn(cluster.Pending))
}
