package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// TestSpreadMatchesReference drives a cluster through random binds,
// deletions and node changes and checks, after each, that the plugin's
// filter verdicts and scores equal those of the reference (the plugin
// before its per-spec preparation, counting by walking every node), for
// pods with the system default constraints, with their own soft and hard
// constraints, and under List defaulting.
func TestSpreadMatchesReference(t *testing.T) {
	for seed := range uint64(3) {
		for _, list := range []bool{false, true} {
			t.Run(fmt.Sprint("seed=", seed, ",list=", list), func(t *testing.T) { spreadAgainstReference(t, seed, list) })
		}
	}
}

// spreadAgainstReference runs one plugin and its reference on a scheduler
// of their own: plugins of one Topology must not share specs (kept domain
// sums are keyed by spec, namespace and constraint index, as a spec is
// served by one profile).
func spreadAgainstReference(t *testing.T, seed uint64, listDefaulting bool) {
	rng := rand.New(rand.NewPCG(seed, 99))
	h := newHarness(t, 1, Config{})
	taint := corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}
	addNode := func() {
		labels := map[string]string{"pool": fmt.Sprint("p", rng.IntN(2)), "rack": fmt.Sprint("r", rng.IntN(40))}
		if rng.IntN(10) > 0 {
			labels["topology.kubernetes.io/zone"] = fmt.Sprint("z", rng.IntN(4))
		}
		var taints []corev1.Taint
		if rng.IntN(5) == 0 {
			taints = append(taints, taint)
		}
		h.node(fmt.Sprint("n", len(h.cl.Nodes)), 64000, 1<<20, labels, taints...)
	}
	for range 60 {
		addNode()
	}

	honor := corev1.NodeInclusionPolicyHonor
	sel := func(app string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}
	soft := func(key string, skew int32, app string) corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel(app)}
	}
	hard := func(key string, skew int32, app string) corev1.TopologySpreadConstraint {
		c := soft(key, skew, app)
		c.WhenUnsatisfiable = corev1.DoNotSchedule
		return c
	}
	type tmpl struct {
		app    string
		owner  bool
		pool   string
		spread []corev1.TopologySpreadConstraint
	}
	withTaints := soft("topology.kubernetes.io/zone", 2, "c")
	withTaints.NodeTaintsPolicy = &honor
	tmpls := []tmpl{
		{app: "a", owner: true},
		{app: "b", owner: true, pool: "p1"},
		{app: "c", spread: []corev1.TopologySpreadConstraint{withTaints, soft("pool", 1, "c")}},
		{app: "a", spread: []corev1.TopologySpreadConstraint{hard("topology.kubernetes.io/zone", 3, "a"), soft("kubernetes.io/hostname", 1, "a")}},
		{app: "d", pool: "p0", spread: []corev1.TopologySpreadConstraint{soft("rack", 1, "d"), hard("rack", 4, "d")}},
		{app: "e"},
	}
	var specs []*cluster.PodSpec
	for _, tp := range tmpls {
		spec := podSpec("100m", "100Mi")
		spec.TopologySpreadConstraints = tp.spread
		if tp.pool != "" {
			spec.NodeSelector = map[string]string{"pool": tp.pool}
		}
		cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Labels: map[string]string{"app": tp.app}, Spec: &spec,
			Priority: func(string) (int32, bool, bool) { return 0, false, true }})
		require.NoError(t, err)
		if tp.owner {
			s, err := cluster.CompileLabelSelector(h.cl.Syms, sel(tp.app))
			require.NoError(t, err)
			cs.OwnerSelector = &s
		}
		specs = append(specs, cs)
	}
	namespaces := []cluster.Sym{h.cl.Syms.Intern("default"), h.cl.Syms.Intern("other")}

	var args PluginArgs
	if listDefaulting {
		args = PluginArgs{SpreadDefaulting: SpreadDefaultingList, DefaultConstraints: []cluster.SpreadConstraint{
			{MaxSkew: 2, TopologyKey: h.cl.Syms.Intern("pool")},
			{MaxSkew: 1, TopologyKey: h.cl.KeyZone, HonorTaints: true},
		}}
	}
	gotP, err := newPodTopologySpread(h.s, args)
	require.NoError(t, err)
	wantP, err := newRefSpread(h.s, args)
	require.NoError(t, err)
	got, want := gotP.(*podTopologySpread), wantP.(*refSpread)

	var bound []cluster.PodID
	check := func(step int) {
		nodes := h.s.Nodes()
		for si, spec := range specs {
			for _, ns := range namespaces {
				cs := CycleState{Pod: cluster.NoPod, Spec: spec, Namespace: ns}
				wcs := cs
				what := fmt.Sprintf("step %d spec %d ns %d", step, si, ns)
				skip := got.PreFilter(&cs)
				require.Equal(t, want.PreFilter(&wcs), skip, what)
				if !skip {
					for _, nid := range nodes {
						n := &h.cl.Nodes[nid]
						require.Equal(t, want.Filter(&wcs, nid, n, nil), got.Filter(&cs, nid, n, nil), what)
					}
				}
				feasible := append([]cluster.NodeID(nil), nodes...)
				rng.Shuffle(len(feasible), func(i, j int) { feasible[i], feasible[j] = feasible[j], feasible[i] })
				feasible = feasible[:rng.IntN(len(feasible)+1)]
				skip = got.PreScore(&cs, feasible)
				require.Equal(t, want.PreScore(&wcs, feasible), skip, what)
				if skip {
					continue
				}
				g, w := make([]int64, len(feasible)), make([]int64, len(feasible))
				for i, nid := range feasible {
					g[i] = got.Score(&cs, nid, &h.cl.Nodes[nid])
					w[i] = want.Score(&wcs, nid, &h.cl.Nodes[nid])
				}
				require.Equal(t, w, g, what)
				got.PreScore(&cs, feasible)
				all := make([]int64, len(feasible))
				got.scoreAll(&cs, h.cl.Nodes, feasible, all)
				require.Equal(t, w, all, what)
				got.NormalizeScore(&cs, g)
				want.NormalizeScore(&wcs, w)
				require.Equal(t, w, g, what)
			}
		}
	}

	zoneKey := h.cl.KeyZone
	for step := range 300 {
		switch op := rng.IntN(12); {
		case op < 6:
			spec := specs[rng.IntN(len(specs))]
			ns := namespaces[rng.IntN(2)]
			nodes := h.s.Nodes()
			if len(nodes) == 0 {
				continue
			}
			id := h.cl.CreatePod(cluster.Pod{Name: "p", Namespace: ns, Spec: spec, Workload: -1})
			h.s.dequeue(id)
			h.cl.Bind(id, nodes[rng.IntN(len(nodes))])
			bound = append(bound, id)
		case op < 8:
			if len(bound) == 0 {
				continue
			}
			i := rng.IntN(len(bound))
			h.cl.DeletePod(bound[i], cluster.CauseEvicted)
			bound = append(bound[:i], bound[i+1:]...)
		case op == 8:
			nid := cluster.NodeID(rng.IntN(len(h.cl.Nodes)))
			h.cl.SetLabel(nid, zoneKey, h.cl.Syms.Intern(fmt.Sprint("z", rng.IntN(5))))
		case op == 9:
			nid := cluster.NodeID(rng.IntN(len(h.cl.Nodes)))
			if rng.IntN(2) == 0 {
				h.cl.SetCordon(nid, !h.cl.Nodes[nid].Unschedulable)
			} else {
				ct, err := cluster.CompileTaint(h.cl.Syms, taint)
				require.NoError(t, err)
				h.cl.AddTaint(nid, ct)
			}
		case op == 10:
			nid := cluster.NodeID(rng.IntN(len(h.cl.Nodes)))
			h.cl.RemoveNode(nid)
			bound = slices.DeleteFunc(bound, func(id cluster.PodID) bool { return !h.cl.Pods[id].Phase.OnNode() })
		default:
			addNode()
		}
		check(step)
	}
}
