package clusterautoscaler

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/kubelet"
)

// newManualHarness has no scheduler: tests bind pods themselves.
func newManualHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	eng := engine.New(1)
	h.eng = eng
	h.cl = cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	kubelet.New(eng, h.cl, 2*time.Second)
	h.cloud = newCloud(eng)
	return h
}

var twoNodes = managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 0, maxSize: 5, desiredCapacity: 2}")

// quickScaleDown: nodes are removed after 1 min unneeded, at once after a
// scale-up.
var quickScaleDown = []string{"--scale-down-unneeded-time=1m", "--scale-down-delay-after-add=0s"}

// twoNodesUp runs until the nodes of twoNodes are up and binds a pod of
// 1200m to the second, enough for it to stay; the first, a, is the one
// scale-down looks at.
func (h *harness) twoNodesUp() (a, b cluster.NodeID) {
	h.t.Helper()
	h.at(time.Second)
	nodes := h.nodesOf("ng")
	require.Len(h.t, nodes, 2)
	a, b = nodes[0], nodes[1]
	h.podOn(b, "1200m", "1Gi")
	return a, b
}

// podOn creates one pod of the spec and binds it to node.
func (h *harness) podOn(node cluster.NodeID, cpu, mem string, opts ...podOpt) cluster.PodID {
	p := h.pods(1, cpu, mem, opts...)[0]
	h.cl.Bind(p, node)
	return p
}

// coveringEvictor adds PDB coverage to the eviction model.
type coveringEvictor struct {
	*eviction.Evictor
	cl   *cluster.Cluster
	pdbs []cluster.PDB
}

func (c coveringEvictor) Covered(p cluster.PodID) bool {
	for i := range c.pdbs {
		if c.pdbs[i].Covers(c.cl, &c.cl.Pods[p]) {
			return true
		}
	}
	return false
}

func TestScaleDownBlockers(t *testing.T) {
	cases := []struct {
		name    string
		opts    []podOpt
		pdb     bool // a PDB with minAvailable 1 over the pod
		pdbNS   string
		pdbMax  bool // the PDB is maxUnavailable 1 instead (allows one)
		yaml    string
		args    []string
		full    bool          // the other node has no room
		until   time.Duration // when to look (default 30 min)
		removed bool
		reason  string
	}{
		{name: "movable pod", removed: true},
		{name: "no controller", opts: []podOpt{bare()}, reason: BlockNotReplicated},
		{name: "no controller, safe to evict", opts: []podOpt{bare(), withAnnotation("cluster-autoscaler.kubernetes.io/safe-to-evict", "true")}, removed: true},
		{name: "kube-system without PDB", opts: []podOpt{inNamespace("kube-system")}, reason: BlockKubeSystem},
		// --blocking-system-pod-distruption-timeout (CA 1.33+): such a pod
		// blocks only until it is that old (1 h by default).
		{name: "kube-system without PDB, after 1 h", opts: []podOpt{inNamespace("kube-system")}, until: 90 * time.Minute, removed: true},
		{name: "kube-system without PDB, shorter timeout", opts: []podOpt{inNamespace("kube-system")}, args: []string{"--blocking-system-pod-distruption-timeout=10m"}, removed: true},
		{name: "kube-system with a PDB", opts: []podOpt{inNamespace("kube-system"), withLabels(map[string]string{"app": "db"})}, pdb: true, pdbNS: "kube-system", pdbMax: true, removed: true},
		{name: "kube-system, system pods allowed", opts: []podOpt{inNamespace("kube-system")}, args: []string{"--skip-nodes-with-system-pods=false"}, removed: true},
		{name: "safe-to-evict false", opts: []podOpt{withAnnotation("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")}, reason: BlockNotSafeToEvict},
		{name: "PDB allows no disruption", opts: []podOpt{withLabels(map[string]string{"app": "db"})}, pdb: true, reason: BlockPDB},
		{name: "no room elsewhere", full: true, reason: BlockNoPlaceToMove},
		{name: "scale-down disabled", yaml: managedNodeGroups(`{name: ng, instanceType: m5.large, minSize: 0, maxSize: 5, desiredCapacity: 2, labels: {cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"}}`), reason: BlockScaleDownDisabled},
		{name: "minimum size", yaml: managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 2, maxSize: 5, desiredCapacity: 2}"), reason: BlockMinSize},
		{name: "utilization above threshold", args: []string{"--scale-down-utilization-threshold=0.2"}, reason: "NotUnderutilized"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newManualHarness(t)
			yaml := c.yaml
			if yaml == "" {
				yaml = twoNodes
			}
			groups := h.groups(yaml)
			spec := SettingsSpecFor(t, c.args)
			if c.pdb {
				sel, err := cluster.CompileLabelSelector(h.cl.Syms, labelSelector("app", "db"))
				require.NoError(t, err)
				ns := c.pdbNS
				if ns == "" {
					ns = "default"
				}
				pdb := cluster.PDB{Namespace: h.cl.Syms.Intern(ns), Name: "db", Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 1}}
				if c.pdbMax {
					pdb.MinAvailable, pdb.MaxUnavailable = nil, &cluster.IntOrPercent{Value: 1}
				}
				h.pdbs = []cluster.PDB{pdb}
			}
			h.ev = eviction.New(h.eng, h.cl, h.pdbs)
			ca, err := New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: coveringEvictor{h.ev, h.cl, h.pdbs}},
				Config{Region: "us-east-1", Zones: testZones, NodeGroups: groups, Settings: spec})
			require.NoError(t, err)
			h.ca = ca
			a, b := h.twoNodesUp() // a holds the pod under test
			if c.full {
				h.podOn(b, "700m", "1Gi")
			}
			h.podOn(a, "500m", "512Mi", c.opts...)
			until := c.until
			if until == 0 {
				until = 30 * time.Minute
			}
			h.at(until)
			gone := h.cl.Nodes[a].State == cluster.NodeGone
			require.Equal(t, c.removed, gone)
			require.NotEqual(t, cluster.NodeGone, h.cl.Nodes[b].State, "the busy node stays")
			if c.removed {
				st := h.groupStats("ng")
				require.Equal(t, 1, st.NodesRemoved)
				require.Equal(t, 1, st.DesiredAtEnd)
				require.Contains(t, h.cloud.Terminated(), cloudID(h.cl.Nodes[a].Instance))
			}
			if c.reason != "" && c.reason != "NotUnderutilized" {
				require.Positive(t, h.ca.Stats().ScaleDownBlockedNodes[c.reason], "blocked by %s", c.reason)
			}
		})
	}
}

// A drained node's pods are evicted, recreated elsewhere by the scheduler,
// and the node goes once they are gone.
func TestScaleDownDrain(t *testing.T) {
	h := newManualHarness(t)
	h.start(h.groups(twoNodes), quickScaleDown, nil)
	a, _ := h.twoNodesUp()
	p := h.podOn(a, "500m", "512Mi")
	h.at(10 * time.Minute)
	require.Equal(t, cluster.NodeGone, h.cl.Nodes[a].State)
	pod := &h.cl.Pods[p]
	require.Equal(t, cluster.Deleted, pod.Phase)
	require.Equal(t, cluster.CauseEvicted, pod.Cause)
	// Evicted, then deleted after its 30 s grace; the node went with it.
	require.Equal(t, pod.Ended, h.cl.Nodes[a].Deleted)
	require.Equal(t, 1, h.groupStats("ng").NodesRemoved)
}

// A PDB that only blocks once the drain started (its pods were not
// healthy when the node was found unneeded) makes the drain fail after
// --max-pod-eviction-time; scale-down then waits
// --scale-down-delay-after-failure.
func TestScaleDownDrainFailure(t *testing.T) {
	h := newManualHarness(t)
	sel, err := cluster.CompileLabelSelector(h.cl.Syms, labelSelector("app", "db"))
	require.NoError(t, err)
	h.pdbs = []cluster.PDB{{Namespace: h.cl.Syms.Intern("default"), Name: "db", Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 1}}}
	groups := h.groups(twoNodes)
	h.ev = eviction.New(h.eng, h.cl, h.pdbs)
	blocking := &flakyEvictor{Evictor: h.ev}
	ca, err := New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: blocking},
		Config{Region: "us-east-1", Zones: testZones, NodeGroups: groups,
			Settings: SettingsSpecFor(t, quickScaleDown)})
	require.NoError(t, err)
	h.ca = ca
	a, _ := h.twoNodesUp()
	h.podOn(a, "500m", "512Mi")
	// Scale-down starts 3 min after the start (delay after failure runs
	// from the start), each drain gives up after 2 min and the next
	// waits 3 min: failures at about 5, 10, 15 and 20 min.
	h.at(21*time.Minute + 30*time.Second)
	require.NotEqual(t, cluster.NodeGone, h.cl.Nodes[a].State)
	require.Equal(t, 4, h.ca.Stats().FailedScaleDowns)
	require.False(t, h.cl.Nodes[a].Unschedulable, "uncordoned after the failure")
	for _, tt := range h.cl.Nodes[a].Taints {
		require.NotEqual(t, TaintToBeDeleted, h.cl.Syms.Name(tt.Key))
	}
}

// flakyEvictor refuses every eviction while saying no PDB blocks: a PDB
// that turns blocking between the plan and the drain.
type flakyEvictor struct{ *eviction.Evictor }

func (f *flakyEvictor) Evict(cluster.PodID, cluster.DeleteCause) bool { return false }
func (f *flakyEvictor) Blocked(cluster.PodID) bool                    { return false }

// Karpenter's and static nodes are never touched.
func TestScaleDownLeavesOtherNodesAlone(t *testing.T) {
	h := newHarness(t)
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 2000, 8<<30, 30
	karp := h.cl.AddNode(cluster.Node{Name: "karpenter-1", Allocatable: alloc, State: cluster.NodeReady, Owner: cluster.RegisterOwner("karpenter"), OwnerName: "default"})
	static := h.cl.AddNode(cluster.Node{Name: "core-1", Allocatable: alloc, State: cluster.NodeReady, Owner: cluster.OwnedByStatic, OwnerName: "core"})
	h.start(h.groups(oneGroup), quickScaleDown, nil)
	h.at(time.Hour)
	require.Equal(t, cluster.NodeReady, h.cl.Nodes[karp].State)
	require.Equal(t, cluster.NodeReady, h.cl.Nodes[static].State)
	require.Empty(t, h.cl.Nodes[karp].Taints)
}

// A node the removal simulation found unremovable is not simulated
// again before --unremovable-node-recheck-timeout (5 min), even when room
// for its pods appears at once (planner.go: unremovableNodes.AddTimeout).
func TestScaleDownRecheckTimeout(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		presentAt time.Duration // the node is still there
		goneBy    time.Duration
	}{
		// Blocked at the 10 s loop; rechecked from 5m10s, unneeded for
		// 1 min, then drained (30 s grace).
		{name: "default 5m", presentAt: 6 * time.Minute, goneBy: 8 * time.Minute},
		// Rechecked every loop: unneeded from about 1m10s; scale-down
		// waits for the delay after failure (3 min from the start).
		{name: "10s", args: []string{"--unremovable-node-recheck-timeout=10s"}, presentAt: 3 * time.Minute, goneBy: 4*time.Minute + 30*time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newManualHarness(t)
			args := slices.Concat(quickScaleDown, c.args)
			h.start(h.groups(twoNodes), args, nil)
			a, b := h.twoNodesUp()
			filler := h.podOn(b, "700m", "1Gi")
			h.podOn(a, "500m", "512Mi")
			h.at(time.Minute)
			require.Positive(t, h.ca.Stats().ScaleDownBlockedNodes[BlockNoPlaceToMove])
			h.cl.DeletePod(filler, cluster.CauseScaleDown) // room on b from now on
			h.at(c.presentAt)
			require.NotEqual(t, cluster.NodeGone, h.cl.Nodes[a].State, "still there at %v", c.presentAt)
			h.at(c.goneBy)
			require.Equal(t, cluster.NodeGone, h.cl.Nodes[a].State, "gone by %v", c.goneBy)
		})
	}
}

// DaemonSet pods neither block scale-down nor count as pods to move: a
// node holding a movable pod and a DaemonSet pod is drained and removed
// (the DaemonSet pod is left to end with it), and a node holding only a
// DaemonSet pod is empty (drainability rule daemonset).
func TestScaleDownIgnoresDaemonSetPods(t *testing.T) {
	for _, withPod := range []bool{true, false} {
		h := newManualHarness(t)
		h.start(h.groups(twoNodes), quickScaleDown, nil)
		a, b := h.twoNodesUp()
		var ds []cluster.PodID
		for _, n := range []cluster.NodeID{a, b} {
			spec, m := h.spec("50m", "64Mi", withToleration("any"))
			spec.DaemonSet = true
			spec.NodeName = h.cl.Nodes[n].Name
			p := h.cl.CreatePod(cluster.Pod{Name: "ds-" + h.cl.Nodes[n].Name, Namespace: h.cl.Syms.Intern(m.ns), Spec: spec, Workload: m.workload})
			h.cl.Bind(p, n)
			ds = append(ds, p)
		}
		var moved cluster.PodID
		if withPod {
			moved = h.podOn(a, "500m", "512Mi")
		}
		h.at(10 * time.Minute)
		require.Equal(t, cluster.NodeGone, h.cl.Nodes[a].State, "with a movable pod: %v", withPod)
		require.NotEqual(t, cluster.NodeGone, h.cl.Nodes[b].State)
		require.NotEqual(t, cluster.CauseEvicted, h.cl.Pods[ds[0]].Cause, "the DaemonSet pod is not evicted")
		if withPod {
			require.Equal(t, cluster.CauseEvicted, h.cl.Pods[moved].Cause)
		}
		require.Zero(t, h.ca.Stats().ScaleDownBlockedNodes[BlockNoPlaceToMove])
	}
}

// --ignore-daemonsets-utilization and --ignore-mirror-pods-utilization
// (simulator/utilization Calculate): a node whose DaemonSet or mirror pod
// (1200m of an m5.large's 1930m) holds its utilization above 50% is
// unneeded only when that kind of pod is left out.
func TestIgnoreDaemonSetAndMirrorUtilization(t *testing.T) {
	for _, c := range []struct {
		name     string
		mirror   bool
		args     []string
		unneeded bool
	}{
		{"daemonset counted", false, nil, false},
		{"daemonset ignored", false, []string{"--ignore-daemonsets-utilization"}, true},
		{"mirror counted", true, []string{"--ignore-daemonsets-utilization"}, false},
		{"mirror ignored", true, []string{"--ignore-mirror-pods-utilization"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newManualHarness(t)
			h.start(h.groups(twoNodes), append(c.args, quickScaleDown...), nil)
			a, _ := h.twoNodesUp()
			spec, m := h.spec("1200m", "64Mi", withToleration("any"))
			spec.DaemonSet, spec.Mirror = !c.mirror, c.mirror
			spec.NodeName = h.cl.Nodes[a].Name
			p := h.cl.CreatePod(cluster.Pod{Name: "sys", Namespace: h.cl.Syms.Intern(m.ns), Spec: spec, Workload: m.workload})
			h.cl.Bind(p, a)
			plan := h.ca.PlanScaleDown()
			require.Equal(t, c.unneeded, slices.Contains(plan.Unneeded, a))
		})
	}
}
