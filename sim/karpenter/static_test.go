package karpenter

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// withStatic turns the StaticCapacity feature gate on.
func withStatic(h *harness) *harness {
	st := apis.DefaultSettings()
	st.StaticCapacity = true
	h.settings = &st
	return h
}

// A static pool keeps its replicas with no pod at all, each of the
// cheapest type its requirements allow (nothing needs to fit), and never
// consolidates them, empty as they are.
func TestStaticPoolKeepsReplicas(t *testing.T) {
	h := withStatic(newHarness(t))
	h.start(poolWith("fixed", onDemand+cmr+newerThan4+amd64, "  replicas: 3\n  disruption: {consolidateAfter: 0s}"))
	h.run(2 * time.Hour)
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 3)
	cheapest := h.k.pools.StaticClaim(h.k.pools.ByName["fixed"])
	h.k.solvers.SortedOptions(cheapest)
	want := cheapest.Pool.Types[cheapest.Options[0]].Type.Name
	for _, n := range nodes {
		require.Equal(t, want, n.InstanceType)
		require.Equal(t, cluster.OnDemand, n.CapacityType)
	}
	st := h.k.Stats()
	require.Equal(t, int64(3), st.NodeClaimsLaunched)
	require.Zero(t, st.Disruptions.Empty)
}

// With the gate off (its default) the pool keeps nothing, and launches
// nothing for pods either.
func TestStaticPoolNeedsTheGate(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 2)
	h.start(poolWith("fixed", odLarge, "  replicas: 3"))
	h.run(30 * time.Minute)
	require.Empty(t, h.karpenterNodes())
	require.Equal(t, 2, h.podsIn(cluster.Pending))
}

// Pods that only a static pool could host stay pending once its nodes are
// full: Karpenter provisions for pods from dynamic pools only.
func TestStaticPoolDoesNotProvisionForPods(t *testing.T) {
	h := withStatic(newHarness(t))
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 10)
	h.start(poolWith("fixed", odLarge, "  replicas: 1"))
	h.run(30 * time.Minute)
	require.Len(t, h.karpenterNodes(), 1)
	running := h.podsIn(cluster.Running)
	require.Positive(t, running)
	require.Equal(t, 10-running, h.podsIn(cluster.Pending))
}

// An expired node is refilled as soon as its deletion starts (running
// nodes fall short), while it drains; the pool's nodes count stays.
func TestStaticPoolRefillsExpiredNodes(t *testing.T) {
	h := withStatic(newHarness(t))
	h.start(poolWith("fixed", odLarge, "      expireAfter: 1h\n  replicas: 2"))
	h.run(59 * time.Minute)
	require.Len(t, h.karpenterNodes(), 2)
	h.run(90 * time.Minute)
	require.Len(t, h.karpenterNodes(), 2)
	st := h.k.Stats()
	require.Equal(t, int64(2), st.Disruptions.Expired)
	require.Equal(t, int64(4), st.NodeClaimsLaunched)
}

// limits.nodes bounds the pool: active, deleting and pending-disruption
// nodes count.
func TestStaticPoolNodeLimit(t *testing.T) {
	h := withStatic(newHarness(t))
	h.start(poolWith("fixed", odLarge, "  replicas: 5\n  limits: {nodes: 2}"))
	h.run(time.Hour)
	require.Len(t, h.karpenterNodes(), 2)
}

// Scaling down deletes empty nodes first (then the cheapest to disrupt):
// the node with the pod stays and the pod never moves. No budget applies.
func TestStaticPoolScaleDown(t *testing.T) {
	h := withStatic(newHarness(t))
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 1)
	extra := "  disruption: {budgets: [{nodes: \"0\"}]}"
	h.start(poolWith("fixed", odLarge, "  replicas: 3\n"+extra))
	h.run(10 * time.Minute)
	require.Len(t, h.karpenterNodes(), 3)
	with := ""
	for _, n := range h.karpenterNodes() {
		if len(n.Pods) > 0 {
			with = n.Name
		}
	}
	require.NotEmpty(t, with)
	smaller := h.pools(poolWith("fixed", odLarge, "  replicas: 1\n"+extra))
	h.k.UpdateNodePool(11*time.Minute, smaller[0])
	h.run(20 * time.Minute)
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 1)
	require.Equal(t, with, nodes[0].Name)
	require.Equal(t, int64(2), h.k.Stats().Disruptions.Overprovisioned)
	require.Zero(t, h.k.Stats().PodsEvicted)
	require.Equal(t, 1, h.podsIn(cluster.Running))
}

// driftStatic starts a static pool of two m5.large with the spec lines
// extra, lets it fill, and drifts it at 11 minutes (a new startup taint);
// it returns the nodes it had.
func driftStatic(t *testing.T, h *harness, extra string) []*cluster.Node {
	t.Helper()
	h.start(poolWith("fixed", odLarge, extra))
	h.run(10 * time.Minute)
	old := h.karpenterNodes()
	require.Len(t, old, 2)
	changed := h.pools(poolWith("fixed", odLarge, "      startupTaints: [{key: init, effect: NoSchedule}]\n"+extra))
	h.k.UpdateNodePool(11*time.Minute, changed[0])
	return old
}

// requireAllReplaced checks that the pool ends with two nodes, none of
// old, both drifted away.
func requireAllReplaced(t *testing.T, h *harness, old []*cluster.Node) {
	t.Helper()
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 2)
	for _, n := range nodes {
		require.NotEqual(t, old[0].Name, n.Name)
		require.NotEqual(t, old[1].Name, n.Name)
	}
	require.Equal(t, int64(2), h.k.Stats().Disruptions.Drifted)
}

// Drift of a static pool launches one replacement per drifted node first
// (no pods simulated) within the Drifted budget and limits.nodes, then
// deletes the old node: the pool never drops below its replicas.
func TestStaticDriftReplacesFirst(t *testing.T) {
	h := withStatic(newHarness(t))
	old := driftStatic(t, h, "  replicas: 2\n  limits: {nodes: 3}\n  disruption: {budgets: [{nodes: \"100%\"}]}")
	peak := 0
	for at := 11 * time.Minute; at < 40*time.Minute; at += 5 * time.Second {
		h.run(at)
		live := len(h.karpenterNodes())
		peak = max(peak, live)
		require.GreaterOrEqual(t, live, 2, "at %s", at)
	}
	require.Equal(t, 3, peak) // the limit leaves room for one replacement at a time
	requireAllReplaced(t, h, old)
}

// At limits.nodes = replicas no replacement can be staged: drifted
// static nodes stay (without TerminateFirstDrift, its default).
func TestStaticDriftBlockedAtNodeLimit(t *testing.T) {
	h := withStatic(newHarness(t))
	driftStatic(t, h, "  replicas: 2\n  limits: {nodes: 2}")
	h.run(time.Hour)
	require.Len(t, h.karpenterNodes(), 2)
	require.Zero(t, h.k.Stats().Disruptions.Drifted)
}

// With TerminateFirstDrift a static pool at its node limit deletes its
// drifted nodes first (KC StaticDrift unreplaceableCommands: delete-only
// commands, as many as the Drifted budget allows) and the static
// controller refills it once each node is gone: the pool dips below its
// replicas, never above its limit, and ends with new nodes only.
func TestStaticDriftTerminateFirstAtNodeLimit(t *testing.T) {
	h := withStatic(newHarness(t))
	h.settings.TerminateFirstDrift = true
	old := driftStatic(t, h, "  replicas: 2\n  limits: {nodes: 2}")
	low := 2
	for at := 11 * time.Minute; at < time.Hour; at += 5 * time.Second {
		h.run(at)
		ready := 0
		for _, n := range h.karpenterNodes() {
			if n.State == cluster.NodeReady {
				ready++
			}
		}
		low = min(low, ready)
		require.LessOrEqual(t, len(h.karpenterNodes()), 2, "at %s: never above limits.nodes", at)
	}
	require.Less(t, low, 2, "terminate-first leaves the pool short while a refill comes up")
	requireAllReplaced(t, h, old)
}

// Upstream's "scales down in disruption cost order" (KC v1.15.0
// pkg/controllers/static/deprovisioning/suite_test.go): eight nodes, two
// each holding one pod (low), two pods (high), a do-not-disrupt pod (dnd)
// and a DaemonSet pod only (ds). Scaling down drops the DaemonSet-only
// nodes first, then low, then high, do-not-disrupt last.
func TestStaticScaleDownInDisruptionCostOrder(t *testing.T) {
	kinds := []string{"low", "high", "dnd", "ds", "low", "high", "dnd", "ds"}
	for _, tc := range []struct {
		replicas int
		keep     []int
	}{
		{6, []int{0, 1, 2, 4, 5, 6}}, // drops DS-only first
		{4, []int{1, 2, 5, 6}},       // drops low next
		{2, []int{2, 6}},             // drops high next
		{0, nil},                     // drops do-not-disrupt last
	} {
		h := withStatic(newHarness(t))
		pool := func(n int) string { return poolWith("fixed", odLarge, fmt.Sprintf("  replicas: %d", n)) }
		h.start(pool(8))
		h.run(5 * time.Minute)
		nodes := h.karpenterNodes()
		require.Len(t, nodes, 8)
		ids := make([]cluster.NodeID, len(h.k.nodes.live))
		for i, kn := range h.k.nodes.live {
			ids[i] = kn.ID
		}
		for i, n := range nodes {
			pin := func(spec *cluster.PodSpec) {
				spec.NodeName = n.Name
				h.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("%s-%d-%d", kinds[i], i, len(h.cl.Pods)), Namespace: h.cl.Syms.Intern("default"), Spec: spec, Workload: -1})
			}
			switch kinds[i] {
			case "low":
				pin(h.podSpec("100m", "64Mi", nil))
			case "high":
				pin(h.podSpec("100m", "64Mi", nil))
				pin(h.podSpec("100m", "64Mi", nil))
			case "dnd":
				pin(h.podSpec("100m", "64Mi", nil, withDoNotDisrupt()))
			case "ds":
				spec := h.podSpec("100m", "64Mi", nil)
				spec.DaemonSet = true
				pin(spec)
			}
		}
		h.run(6 * time.Minute)
		require.Equal(t, 10, h.podsIn(cluster.Running))
		smaller := h.pools(pool(tc.replicas))
		h.k.UpdateNodePool(7*time.Minute, smaller[0])
		h.run(7*time.Minute + time.Second)
		var kept []int
		for i, id := range ids {
			if kn := h.k.nodes.get(id); kn != nil && !kn.Deleting {
				kept = append(kept, i)
			}
		}
		require.Equal(t, tc.keep, kept, "to %d", tc.replicas)
		require.Equal(t, int64(8-tc.replicas), h.k.Stats().Disruptions.Overprovisioned)
	}
}

// A pod that only a full static pool could host is told so, not that
// there is no NodePool.
func TestStaticPoolExplainsWaitingPods(t *testing.T) {
	h := withStatic(newHarness(t))
	var msgs []string
	h.deploy("web", h.podSpec("1500m", "512Mi", nil), time.Duration(0), 3)
	h.start(poolWith("fixed", odLarge, "  replicas: 1"))
	h.k.OnNoLaunch(func(_ []cluster.PodID, class, message string) { msgs = append(msgs, class+": "+message) })
	h.run(5 * time.Minute)
	require.NotEmpty(t, msgs)
	require.Contains(t, msgs[len(msgs)-1], `static/fixed: could not schedule pod, nodepool "fixed" is static (spec.replicas 1): Karpenter launches nothing from it for pods`)
}
