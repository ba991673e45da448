package clusterautoscaler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
)

// TestIncrementalStateMatchesRecomputation drives a cluster through many
// random changes (pods created and deleted, some under PDBs, nodes reclaimed, removed by
// someone else, labelled scale-down-disabled and cordoned, pods marked
// terminating, launches slow to get Ready, scale-ups and scale-downs) and checks
// after every step that the incremental state agrees with a recomputation
// from the cluster: a stale cache fails it.
func TestIncrementalStateMatchesRecomputation(t *testing.T) {
	h := newHarness(t)
	// Nodes of no group, from before and after the start: destinations,
	// never candidates.
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 4000, 16<<30, 110
	h.cl.AddNode(cluster.Node{Name: "static", Allocatable: alloc, State: cluster.NodeReady})
	// PDBs whose verdicts change as their pods come and go.
	for _, b := range []struct{ ns, app string }{{"default", "db"}, {"kube-system", "sys"}} {
		sel, err := cluster.CompileLabelSelector(h.cl.Syms, labelSelector("app", b.app))
		require.NoError(t, err)
		h.pdbs = append(h.pdbs, cluster.PDB{Namespace: h.cl.Syms.Intern(b.ns), Name: b.app, Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: 3}})
	}
	h.start(h.groups(managedNodeGroups(
		"{name: a, instanceType: m5.large, minSize: 1, maxSize: 30, desiredCapacity: 6}",
		"{name: b, instanceType: m5.xlarge, minSize: 0, maxSize: 20, desiredCapacity: 4}",
		`{name: c, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 2, labels: {cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"}}`)), []string{"--scale-down-unneeded-time=2m", "--scale-down-delay-after-add=1m", "--unremovable-node-recheck-timeout=1m"}, nil)
	h.cl.AddNode(cluster.Node{Name: "static-2", Allocatable: alloc, State: cluster.NodeReady})
	h.ca.replay.verify = true

	rng := rand.New(rand.NewPCG(7, 11))
	type shape struct{ cpu, mem string }
	shapes := []shape{{"100m", "128Mi"}, {"250m", "512Mi"}, {"500m", "1Gi"}, {"900m", "2Gi"}}
	kinds := [][]podOpt{nil, nil, nil,
		{withLabels(map[string]string{"app": "db"})},
		{inNamespace("kube-system"), withLabels(map[string]string{"app": "sys"})},
		{inNamespace("kube-system")},
		{withAnnotation("cluster-autoscaler.kubernetes.io/safe-to-evict", "true"), bare()}}
	var live []cluster.PodID
	disabled := h.cl.Syms.Intern(LabelScaleDownDisabled)
	for step := 0; step < 1500; step++ {
		// Phases of growth and shrinkage, for scale-ups and scale-downs.
		grow := 25
		if step/250%2 == 0 {
			grow = 60
		}
		switch r := rng.IntN(100); {
		case r < grow:
			s := shapes[rng.IntN(len(shapes))]
			live = append(live, h.pods(1+rng.IntN(6), s.cpu, s.mem, kinds[rng.IntN(len(kinds))]...)...)
		case r < 80 && len(live) > 0:
			for k := 1 + rng.IntN(4); k > 0 && len(live) > 0; k-- {
				j := rng.IntN(len(live))
				h.cl.DeletePod(live[j], cluster.CauseScaleDown)
				live[j] = live[len(live)-1]
				live = live[:len(live)-1]
			}
		case r < 85:
			if live := h.cloud.Live(); len(live) > 0 {
				h.cloud.Reclaim(live[0] + cloud.InstanceID(rng.IntN(3)))
			}
		case r < 88:
			// Launches that sometimes never get Ready in time.
			h.cloud.ReadyAfter = 90 * time.Second
			if rng.IntN(3) == 0 {
				h.cloud.ReadyAfter = 20 * time.Minute
			}
		case r < 92:
			// Someone else removes a node.
			if id := cluster.NodeID(rng.IntN(len(h.cl.Nodes))); h.cl.Nodes[id].Owner == ownedByCA {
				h.cl.RemoveNode(id)
			}
		case r < 96:
			if id := cluster.NodeID(rng.IntN(len(h.cl.Nodes))); h.cl.Nodes[id].State != cluster.NodeGone {
				v := "false"
				if rng.IntN(2) == 0 {
					v = "true"
				}
				h.cl.SetLabel(id, disabled, h.cl.Syms.Intern(v))
			}
		case r < 98:
			if id := cluster.NodeID(rng.IntN(len(h.cl.Nodes))); h.cl.Nodes[id].State != cluster.NodeGone {
				h.cl.SetCordon(id, !h.cl.Nodes[id].Unschedulable)
			}
		default:
			// A pod told to stop, still on its node, preferably an
			// unneeded one.
			for _, id := range rng.Perm(len(h.cl.Nodes)) {
				nd := &h.cl.Nodes[id]
				if n := h.ca.nodes.get(cluster.NodeID(id)); n != nil && n.unneededSince != never && len(nd.Pods) > 0 {
					h.cl.MarkTerminating(nd.Pods[rng.IntN(len(nd.Pods))])
					break
				}
			}
		}
		h.at(h.eng.Now() + time.Duration(1+rng.IntN(15))*time.Second)
		require.NoError(t, h.cl.CheckIndexes(), "step %d", step)
		require.NoError(t, h.ca.CheckIndexes(), "step %d", step)
		checkIncremental(t, h.ca, step)
	}
	st := h.ca.Stats()
	t.Logf("added %d removed %d reclaimed %d blocked %v pods %d nodes %d replays %d", st.NodesAdded, st.NodesRemoved, st.NodesReclaimed, st.ScaleDownBlockedNodes, len(live), len(h.cl.Nodes), h.ca.replay.verified)
	require.Positive(t, st.NodesRemoved, "scale-downs happened")
	require.Positive(t, st.NodesAdded, "scale-ups happened")
	require.Positive(t, h.ca.replay.verified, "removals replayable")
}

// checkIncremental compares the Cluster Autoscaler's incremental state
// with a recomputation from the cluster.
func checkIncremental(t *testing.T, a *Autoscaler, step int) {
	t.Helper()
	at := fmt.Sprintf("step %d at %s", step, a.eng.Now())
	for id := range a.cl.Nodes {
		nd := &a.cl.Nodes[id]
		if nd.State == cluster.NodeGone {
			continue
		}
		a.state(cluster.NodeID(id))
		require.Equal(t, nd.Allocatable.Sub(nd.Requested), a.cache.free[id], "%s: node %d's room", at, id)
	}
	var dests []cluster.NodeID
	for id := range a.cl.Nodes {
		nd := &a.cl.Nodes[id]
		if nd.State != cluster.NodeGone && nd.Schedulable() && !a.hasTaint(nd, a.symToBeDeleted) {
			dests = append(dests, cluster.NodeID(id))
		}
	}
	ids, pos := a.destIDs()
	require.Equal(t, dests, ids, "%s: destinations", at)
	for id := range a.cl.Nodes {
		want := int32(-1)
		if i := slices.Index(dests, cluster.NodeID(id)); i >= 0 {
			want = int32(i)
		}
		require.Equal(t, want, pos[id], "%s: node %d's destination index", at, id)
	}
	if gi := a.gpuIndex(); gi == a.cache.scanGI {
		for _, g := range a.groups {
			for _, id := range g.nodes {
				if int(id) >= len(a.cache.inScan) || !a.cache.inScan[id] {
					require.True(t, a.plan.quiet(id, gi), "%s: node %d left out of the scan but not quiet", at, id)
				}
			}
		}
	}
	soft := map[cluster.NodeID]bool{}
	for _, id := range a.cache.soft {
		soft[id] = true
	}
	launching := map[cluster.NodeID]bool{}
	for _, id := range a.cache.launching {
		launching[id] = true
	}
	inFlight := 0
	for _, g := range a.groups {
		deleting := 0
		for _, id := range g.nodes {
			if n := a.nodes.get(id); n.deleting {
				deleting++
				if n.drain.kind == deleteScaleDown {
					inFlight++
				}
			}
			if a.cl.Nodes[id].State == cluster.NodeLaunching {
				require.True(t, launching[id], "%s: launching node %d not listed", at, id)
			}
		}
		require.Equal(t, deleting, g.deleting, "%s: group %s's nodes being deleted", at, g.cfg.Name)
		upcoming := len(g.placeholders) + g.seenFailed
		for _, id := range g.nodes {
			if a.cl.Nodes[id].State == cluster.NodeLaunching {
				upcoming++
			}
		}
		require.Equal(t, upcoming, a.upcoming(g, true), "%s: group %s's upcoming nodes", at, g.cfg.Name)
	}
	require.Equal(t, inFlight, a.act.scaleDownsInFlight, "%s: scale-downs in flight", at)
	for _, g := range a.groups {
		for i, id := range g.nodes {
			require.Equal(t, g, a.nodes.get(id).group, "%s: node %d's group", at, id)
			if i > 0 {
				require.Less(t, g.nodes[i-1], id, "%s: group %s's nodes by ID", at, g.cfg.Name)
			}
			if a.nodes.get(id).softTainted {
				require.True(t, soft[id], "%s: soft-tainted node %d not listed", at, id)
			}
			if !a.goneSeen {
				require.NotEqual(t, cluster.NodeGone, a.cl.Nodes[id].State, "%s: node %d gone unseen", at, id)
			}
		}
	}
}
