package karpenter

import (
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// evictFromOutside evicts one pod as a user's drain would: it terminates
// on a node Karpenter may still disrupt.
func evictFromOutside(h *harness) {
	for _, kn := range h.k.nodes.live {
		if pods := h.cl.Nodes[kn.ID].Pods; !kn.Deleting && len(pods) > 0 {
			h.ev.Evict(pods[0], cluster.CauseEvicted)
			return
		}
	}
}

// Drift: when the pool's template changes, its nodes are replaced, the
// replacement coming up before the old node drains.
func TestDrift(t *testing.T) {
	h := startWeb(t, 2, poolWith("p", odLarge, "  disruption: {consolidateAfter: Never}"))
	h.run(10 * time.Minute)
	old := h.karpenterNodes()
	require.Len(t, old, 1)
	changed := h.pools(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    metadata:
      labels: {team: blue}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
  disruption: {consolidateAfter: Never}
`)
	h.k.UpdateNodePool(15*time.Minute, changed[0])
	h.run(20 * time.Minute)
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 1)
	require.NotEqual(t, old[0].Name, nodes[0].Name)
	require.Equal(t, "blue", h.label(nodes[0], "team"))
	require.Equal(t, int64(1), h.k.Stats().Disruptions.Drifted)
	require.Equal(t, 2, h.podsIn(cluster.Running))
}

// A budget {nodes: "0", reasons: [Drifted]} blocks drift.
const noDrift = `  disruption: {budgets: [{nodes: "0", reasons: [Drifted]}]}`

func TestDriftBlockedByBudget(t *testing.T) {
	h := startWeb(t, 2, poolWith("p", odLarge, noDrift))
	h.run(10 * time.Minute)
	changed := h.pools(poolWith("p", odLarge, "      startupTaints: [{key: init, effect: NoSchedule}]\n"+noDrift))
	h.k.UpdateNodePool(11*time.Minute, changed[0])
	h.run(30 * time.Minute)
	require.Zero(t, h.k.Stats().Disruptions.Drifted)
	require.Len(t, h.karpenterNodes(), 1)
}

// A consolidation method gives up once its simulations have taken longer
// than its timeout, and counts it.
func TestConsolidationTimeout(t *testing.T) {
	h := newHarness(t)
	h.start(poolWith("p", odLarge, "")) // 1,000 pods/s
	k := h.k
	k.dis.work = 180_000 // 180 s of computing: not over 3 min
	require.False(t, k.dis.timedOut(0, 3*time.Minute))
	k.dis.work = 180_001
	require.True(t, k.dis.timedOut(0, 3*time.Minute))
	require.True(t, k.dis.timedOut(100_000, time.Minute), "80 s since the method began")
	require.False(t, k.dis.timedOut(150_000, time.Minute))
	require.Equal(t, int64(2), k.Stats().ConsolidationTimeouts)
	k.dis.settings.SolverPodsPerSecond = 0 // the disrupter reads its own copy of the settings
	require.False(t, k.dis.timedOut(0, time.Second), "instantaneous passes never time out")
}

// Single-node candidates take one node from each pool in turn, pools by
// name; after a timeout the pools the pass never reached go first.
func TestInterleaveUnseenPoolsFirst(t *testing.T) {
	pa := &scheduling.Pool{Spec: &apis.NodePool{Name: "a"}}
	pb := &scheduling.Pool{Spec: &apis.NodePool{Name: "b"}}
	cand := func(id cluster.NodeID, p *scheduling.Pool, ratio float64) *candidate {
		return &candidate{kn: &knode{Node: scheduling.Node{ID: id, Pool: p}}, ratio: ratio}
	}
	cs := []*candidate{cand(1, pa, 1), cand(2, pa, 3), cand(3, pb, 2), cand(4, pb, 1)}
	ids := func(cs []*candidate) []cluster.NodeID {
		var out []cluster.NodeID
		for _, c := range cs {
			out = append(out, c.kn.ID)
		}
		return out
	}
	sn := &singleNode{}
	require.Equal(t, []cluster.NodeID{2, 3, 1, 4}, ids(sn.interleave(cs)))
	sn.unseenPools = map[*scheduling.Pool]bool{pb: true}
	require.Equal(t, []cluster.NodeID{3, 2, 4, 1}, ids(sn.interleave(cs)))
}

// The pod scans kept on nodes (podScan) match a fresh scan of every node
// throughout a run with churn, scale-downs (terminating pods), a PDB and
// do-not-disrupt pods.
func TestPodScansMatchRescan(t *testing.T) {
	h := newHarness(t)
	sel, err := cluster.CompileLabelSelector(h.cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}})
	require.NoError(t, err)
	h.pdbs = []cluster.PDB{{Namespace: h.cl.Syms.Intern("default"), Name: "db", Selector: sel, MaxUnavailable: &cluster.IntOrPercent{Value: 1}}}
	h.deploy("db", h.podSpec("900m", "512Mi", map[string]string{"app": "db"}), time.Duration(0), 6, 25*time.Minute, 3, 50*time.Minute, 8)
	h.deploy("web", h.podSpec("700m", "1Gi", map[string]string{"app": "web"}), time.Duration(0), 30, 20*time.Minute, 10, 45*time.Minute, 25, 70*time.Minute, 5)
	h.deploy("pin", h.podSpec("300m", "256Mi", map[string]string{"app": "pin"}, withDoNotDisrupt()), time.Duration(0), 3, 35*time.Minute, 0, 60*time.Minute, 4)
	h.start(poolWith("small", smallNodes+odAndSpot, "  disruption: {consolidateAfter: 30s}"))
	compared := 0
	for at := time.Minute; at <= 90*time.Minute; at += 10 * time.Second {
		h.run(at)
		if at%(5*time.Minute) == 0 {
			evictFromOutside(h)
		}
		cached := h.k.dis.nodeScans()
		for _, kn := range h.k.nodes.live {
			kn.scanValid = false
		}
		fresh := h.k.dis.nodeScans()
		require.Equal(t, len(fresh), len(cached))
		for i := range fresh {
			require.Equal(t, fresh[i].kn, cached[i].kn)
			require.Equal(t, fresh[i].pods, cached[i].pods, "node %d at %v", fresh[i].kn.ID, at)
			require.Equal(t, fresh[i].cost, cached[i].cost)
			require.Equal(t, fresh[i].blocked, cached[i].blocked)
			compared++
		}
	}
	require.Greater(t, compared, 1000)
}

// The existing-node base brought up to date incrementally (entries of
// nodes whose pods changed) matches one rebuilt from scratch throughout a
// run with churn, consolidation and outside evictions.
func TestExistingBaseMatchesRebuild(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("700m", "1Gi", map[string]string{"app": "web"}), time.Duration(0), 30, 20*time.Minute, 10, 45*time.Minute, 25, 70*time.Minute, 5)
	h.deploy("api", h.podSpec("300m", "512Mi", map[string]string{"app": "api"}, withZoneSpread("api")), time.Duration(0), 12, 30*time.Minute, 30, 60*time.Minute, 4)
	h.staticNode("static-a", "m5.xlarge", "us-east-1a")
	h.start(poolWith("small", smallNodes, "  disruption: {consolidateAfter: 2m}"))
	type entry struct {
		id          cluster.NodeID
		free        cluster.Resources
		daemon      cluster.Resources
		initialized bool
		ucaUntil    time.Duration
		taints      int
	}
	snapshot := func() ([]entry, map[*scheduling.Pool]cluster.Resources, map[*scheduling.Pool]int64) {
		c := h.k.base.Current()
		var out []entry
		for i := range c.Nodes {
			ex := &c.Nodes[i]
			require.Equal(t, int32(i), ex.BasePosition)
			require.Equal(t, int32(i), c.Positions[ex.ID])
			out = append(out, entry{ex.ID, ex.Free, ex.DaemonReserve, ex.Initialized, ex.ConsolidateAfterUntil, len(ex.View.Taints)})
		}
		return out, maps.Clone(c.PoolCapacity), maps.Clone(c.PoolNodes)
	}
	refreshed := 0
	for at := time.Minute; at <= 90*time.Minute; at += 10 * time.Second {
		h.run(at)
		if at%(5*time.Minute) == 0 {
			evictFromOutside(h)
		}
		if h.k.base.Snapshot.Valid && h.k.base.Snapshot.MembershipVersion == h.k.base.MembershipVersion {
			refreshed++
		}
		list, capacity, nodes := snapshot()
		h.k.base.Invalidate()
		list2, capacity2, nodes2 := snapshot()
		require.Equal(t, list2, list, "at %v", at)
		require.Equal(t, capacity2, capacity)
		require.Equal(t, nodes2, nodes)
	}
	require.Greater(t, refreshed, 100, "the incremental path was taken")
}

// What the solver's queue carries instead of reading pod records (qkey:
// template, namespace, origin) matches the pod records whenever a
// disruption pass would read it: the provisionable pods' set (kept across
// passes while the same pods are in it) and the candidates' sets (kept on
// their nodes).
func TestQueueKeysMatchPods(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("700m", "1Gi", map[string]string{"app": "web"}), time.Duration(0), 30, 20*time.Minute, 10, 45*time.Minute, 25, 70*time.Minute, 5)
	h.deploy("big", h.podSpec("3", "4Gi", map[string]string{"app": "big"}), time.Duration(0), 2, 15*time.Minute, 6, 50*time.Minute, 1)
	h.start(spotWide)
	check := func(ps *scheduling.PodSet, want func(cluster.PodID) scheduling.PodOrigin) {
		for _, e := range ps.QueueKeys {
			p := &h.cl.Pods[e.ID]
			require.Same(t, p.Spec, e.Spec)
			require.Equal(t, p.Namespace, e.Namespace)
			require.Equal(t, want(e.ID), e.Origin, "pod %s", p.Name)
		}
	}
	provisionable, candidates := 0, 0
	for at := 10 * time.Second; at <= 90*time.Minute; at += 10 * time.Second {
		h.run(at)
		prov := h.k.dis.provisionableSet()
		check(prov, h.k.solvers.OriginOf)
		provisionable += len(prov.QueueKeys)
		for _, c := range h.k.dis.candidates(methodOf[*singleNode](h.k.dis)) {
			check(c.podSet(h.k.solvers), func(cluster.PodID) scheduling.PodOrigin { return scheduling.FromCandidate })
			candidates++
		}
	}
	require.Positive(t, provisionable)
	require.Positive(t, candidates)
}

// A pod's eviction cost (KC disruption.EvictionCost): 1 + its
// disruption cost/2^27 + priority/2^25, clamped to [-10, 10].
func TestEvictionCost(t *testing.T) {
	require.Equal(t, 1.0, evictionCost(&cluster.PodSpec{}))
	require.InDelta(t, 1+1000.0/(1<<27), evictionCost(&cluster.PodSpec{DisruptionCost: 1000, HasDisruptionCost: true}), 1e-15)
	require.InDelta(t, 1+1000.0/(1<<25), evictionCost(&cluster.PodSpec{Priority: 1000}), 1e-15)
	require.Equal(t, 10.0, evictionCost(&cluster.PodSpec{Priority: 1 << 30}))
	require.Equal(t, -10.0, evictionCost(&cluster.PodSpec{DisruptionCost: -1 << 31, HasDisruptionCost: true, Priority: -1 << 30}))
}
