package clusterautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/eviction"
)

// PlanScaleDown, the planner's entry point, on two nodes: a holds the pod
// under test (500m of an m5.large), b a 1200m pod (used above the 0.5
// threshold). The planner says whether a is unneeded and deleted, or why
// not, and leaves the loops' own decisions as they were.
func TestPlanScaleDown(t *testing.T) {
	cases := []struct {
		name     string
		opts     []podOpt
		pdb      bool // a PDB with minAvailable 1 over the pod
		yaml     string
		full     bool // b has no room for a's pod
		unneeded bool
		reason   string // a's reason ("" when deleted)
		removed  bool   // the simulation removes a by 30 min
	}{
		{name: "movable pod, room elsewhere", unneeded: true, removed: true},
		{name: "no controller", opts: []podOpt{bare()}, reason: BlockNotReplicated},
		{name: "kube-system without PDB", opts: []podOpt{inNamespace("kube-system")}, reason: BlockKubeSystem},
		{name: "PDB allows no disruption", opts: []podOpt{withLabels(map[string]string{"app": "db"})}, pdb: true, reason: BlockPDB},
		{name: "safe-to-evict false", opts: []podOpt{withAnnotation("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")}, reason: BlockNotSafeToEvict},
		{name: "no room elsewhere", full: true, reason: BlockNoPlaceToMove},
		// A group at its minimum has no scale-down candidates (upstream's
		// PreFilteringScaleDownNodeProcessor): a is not unneeded.
		{name: "minimum size", yaml: managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 2, maxSize: 5, desiredCapacity: 2}"),
			reason: BlockMinSize},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newManualHarness(t)
			yaml := c.yaml
			if yaml == "" {
				yaml = twoNodes
			}
			groups := h.groups(yaml)
			if c.pdb {
				sel, err := cluster.CompileLabelSelector(h.cl.Syms, labelSelector("app", "db"))
				require.NoError(t, err)
				h.pdbs = []cluster.PDB{{Namespace: h.cl.Syms.Intern("default"), Name: "db", Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 1}}}
			}
			h.ev = eviction.New(h.eng, h.cl, h.pdbs)
			ca, err := New(Deps{Engine: h.eng, Cluster: h.cl, Catalog: h.cat, Cloud: h.cloud, Evictor: coveringEvictor{h.ev, h.cl, h.pdbs}},
				Config{Region: "us-east-1", Zones: testZones, NodeGroups: groups, Settings: SettingsSpecFor(t, quickScaleDown)})
			require.NoError(t, err)
			h.ca = ca
			a, b := h.twoNodesUp()
			if c.full {
				h.podOn(b, "700m", "1Gi")
			}
			h.podOn(a, "500m", "512Mi", c.opts...)
			h.at(5 * time.Second)

			plan := h.ca.PlanScaleDown()
			require.Len(t, plan.Nodes, 2)
			byID := map[cluster.NodeID]ScaleDownNode{}
			for _, v := range plan.Nodes {
				byID[v.Node] = v
			}
			va, vb := byID[a], byID[b]
			require.Equal(t, h.cl.Nodes[a].Name, va.Name)
			require.Equal(t, "ng", va.Group)
			alloc := h.cl.Nodes[a].Allocatable
			require.InDelta(t, max(500/float64(alloc[cluster.CPU]), float64(512<<20)/float64(alloc[cluster.Memory])), va.Utilization, 1e-9)
			require.Equal(t, c.unneeded, va.Unneeded, "a unneeded")
			require.Equal(t, c.reason, va.Reason, "a's reason")
			require.Equal(t, c.reason == "", va.Delete, "a deleted")
			if c.unneeded {
				require.Equal(t, []cluster.NodeID{a}, plan.Unneeded)
			} else {
				require.Empty(t, plan.Unneeded)
			}
			if va.Delete {
				require.Equal(t, []cluster.NodeID{a}, plan.ToDelete)
			} else {
				require.Empty(t, plan.ToDelete)
			}
			require.False(t, vb.Unneeded)
			require.False(t, vb.Delete)
			wantB := ReasonNotUnderutilized // used above the threshold
			if c.reason == BlockMinSize {
				wantB = BlockMinSize // the group's minimum comes first
			}
			require.Equal(t, wantB, vb.Reason, "b's reason")
			require.NoError(t, h.ca.CheckIndexes())

			// The plan changed nothing: the loops go on as without it.
			again := h.ca.PlanScaleDown()
			require.Equal(t, plan, again)
			h.at(30 * time.Minute)
			require.Equal(t, c.removed, h.cl.Nodes[a].State == cluster.NodeGone)
			require.NoError(t, h.ca.CheckIndexes())
		})
	}
}

// PlanScaleDown honours --max-scale-down-parallelism and puts empty nodes
// first: of three empty nodes and one with a movable pod, with
// parallelism 2, two empty ones are deleted.
func TestPlanScaleDownParallelism(t *testing.T) {
	h := newManualHarness(t)
	h.start(h.groups(managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 0, maxSize: 5, desiredCapacity: 5}")),
		append([]string{"--max-scale-down-parallelism=2"}, quickScaleDown...), nil)
	h.at(time.Second)
	nodes := h.nodesOf("ng")
	require.Len(t, nodes, 5)
	h.podOn(nodes[0], "1200m", "1Gi") // used: stays
	h.podOn(nodes[1], "300m", "256Mi")
	h.at(5 * time.Second)
	plan := h.ca.PlanScaleDown()
	require.Len(t, plan.Unneeded, 4)
	require.Len(t, plan.ToDelete, 2)
	for _, id := range plan.ToDelete {
		require.NotEqual(t, nodes[1], id, "empty nodes go first")
	}
	reasons := map[string]int{}
	for _, v := range plan.Nodes {
		reasons[v.Reason]++
	}
	require.Equal(t, map[string]int{"": 2, ReasonParallelism: 2, ReasonNotUnderutilized: 1}, reasons)
}

// --scale-down-non-empty-candidates-count bounds the non-empty nodes a
// loop evaluates for removal (30 by default, 0 or less: no limit): of
// three lightly used nodes, a pass with a limit of 1 evaluates one and
// the others are not unneeded (NotUnneededOtherReason); with 0 it
// evaluates all three, and two are unneeded (the third's pod needs one
// of them).
func TestNonEmptyCandidatesCount(t *testing.T) {
	for _, c := range []struct {
		limit    string
		unneeded int
		other    int
	}{{"1", 1, 2}, {"0", 2, 0}} {
		t.Run(c.limit, func(t *testing.T) {
			h := newManualHarness(t)
			h.start(h.groups(managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 0, maxSize: 5, desiredCapacity: 3}")),
				append([]string{"--scale-down-non-empty-candidates-count=" + c.limit}, quickScaleDown...), nil)
			h.at(time.Second)
			nodes := h.nodesOf("ng")
			require.Len(t, nodes, 3)
			// Busy first, so that no node was unneeded before (those are
			// evaluated whatever the limit), then lightly used.
			var busy []cluster.PodID
			for _, n := range nodes {
				busy = append(busy, h.podOn(n, "1500m", "1Gi"))
			}
			h.at(30 * time.Second)
			for i, n := range nodes {
				h.cl.DeletePod(busy[i], cluster.CauseScaleDown)
				h.podOn(n, "200m", "256Mi")
			}
			plan := h.ca.PlanScaleDown()
			require.Len(t, plan.Unneeded, c.unneeded)
			other := 0
			for _, v := range plan.Nodes {
				if v.Reason == ReasonNotUnneededOtherReason {
					other++
				}
			}
			require.Equal(t, c.other, other)
		})
	}
}
