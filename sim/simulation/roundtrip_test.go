package simulation_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/importer"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/workload"
)

// nodeKey is what a node must keep through a dump and an import.
type nodeKey struct {
	Name, InstanceType, Zone, CapacityType, Owner string
	// Managed: the autoscaler and NodePool or node group that manage the
	// node (launched, or adopted from the import), or static.
	Managed string
}

// ownerOf names the node's owner as its labels say.
func ownerOf(cl *cluster.Cluster, n *cluster.Node) string {
	for _, key := range []string{"karpenter.sh/nodepool", "eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name"} {
		if k, ok := cl.Syms.Lookup(key); ok {
			if v, ok := n.Labels.Get(k); ok {
				return key + "=" + cl.Syms.Name(v)
			}
		}
	}
	return "static"
}

// nodesOf are the Ready nodes.
func nodesOf(cl *cluster.Cluster) []nodeKey {
	var out []nodeKey
	for i := range cl.Nodes {
		n := &cl.Nodes[i]
		if n.State != cluster.NodeReady || n.Condition.NotReady() {
			continue
		}
		managed := "static"
		if n.Owner != cluster.OwnedByStatic {
			managed = n.Owner.String() + "/" + n.OwnerName
		}
		out = append(out, nodeKey{n.Name, n.InstanceType, cl.Syms.Name(n.Zone), n.CapacityType.String(), ownerOf(cl, n), managed})
	}
	slices.SortFunc(out, func(a, b nodeKey) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// notReadyOf names the live nodes whose Ready condition is not True: a
// node that registered and never became Ready (Launching) is, once
// imported, a start node with its Ready=False condition.
func notReadyOf(cl *cluster.Cluster) []string {
	var out []string
	for i := range cl.Nodes {
		if n := &cl.Nodes[i]; n.State != cluster.NodeGone && n.Condition.NotReady() {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	return out
}

// placement is, per workload, the sorted nodes its pods are bound to
// (pod names are the controllers' own and change through an import).
// Pods for which skip is true are left out.
func placement(cl *cluster.Cluster, ref func(w int32) string, skip func(p *cluster.Pod) bool) map[string][]string {
	out := map[string][]string{}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if !p.Phase.OnNode() || p.Terminating || p.Workload < 0 || p.Spec.DaemonSet || skip(p) {
			continue
		}
		out[ref(p.Workload)] = append(out[ref(p.Workload)], cl.Nodes[p.Node].Name)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// pending counts, per workload, the pods not bound yet.
func pending(cl *cluster.Cluster, ref func(w int32) string) map[string]int {
	out := map[string]int{}
	for i := range cl.Pods {
		if p := &cl.Pods[i]; p.Phase == cluster.Pending && p.Workload >= 0 && !p.Spec.DaemonSet {
			out[ref(p.Workload)]++
		}
	}
	return out
}

// pdbsOf names the budgets with their bounds and selectors.
func pdbsOf(cl *cluster.Cluster, pdbs []cluster.PDB) []string {
	var out []string
	for _, b := range pdbs {
		sel := ""
		for _, r := range b.Selector.Reqs {
			sel += fmt.Sprintf(" %s %s %d", cl.Syms.Name(r.Key), r.Op, len(r.Values))
		}
		out = append(out, fmt.Sprintf("%s/%s min=%v max=%v%s", cl.Syms.Name(b.Namespace), b.Name, b.MinAvailable, b.MaxUnavailable, sel))
	}
	slices.Sort(out)
	return out
}

// claimZones are the zones of the bound claims' volumes, by claim; the
// pods on nodes that use a claim must be in its zone.
func claimZones(t *testing.T, cl *cluster.Cluster) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, c := range cl.Claims() {
		if c.Gone || c.Volume == cluster.NoVolume {
			continue
		}
		out[cl.ClaimName(cluster.ClaimID(i))] = cluster.ZoneNames(cl.Syms, cl.Volumes()[c.Volume].Zones)
	}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if !p.Phase.OnNode() {
			continue
		}
		for _, id := range cl.ClaimsOf(cluster.PodID(i)) {
			if z := out[cl.ClaimName(id)]; z != "" && !strings.Contains(z, cl.Syms.Name(cl.Nodes[p.Node].Zone)) {
				t.Errorf("pod %s on %s (%s) uses claim %s in %s", p.Name, cl.Nodes[p.Node].Name, cl.Syms.Name(cl.Nodes[p.Node].Zone), cl.ClaimName(id), z)
			}
		}
	}
	return out
}

// A dump at half of every embedded scenario, imported with sim import,
// starts a run with the same Ready nodes (names, types, zones, capacity
// types, owners), the same nodes whose Ready condition is not True and the same pods bound where they were; StatefulSets
// keep their podManagementPolicy, minReadySeconds and the delay their
// probes put on Ready (testdata/readiness.yaml).
func TestDumpImportRoundTrip(t *testing.T) {
	for _, name := range embeddedScenarios(t) {
		t.Run(name, func(t *testing.T) { roundTrip(t, load(t, name)) })
	}
	t.Run("readiness", func(t *testing.T) {
		sc, err := scenario.LoadFile("testdata/readiness.yaml")
		require.NoError(t, err)
		require.Equal(t, 17*time.Second, sc.Workloads[0].ReadyAfter)
		roundTrip(t, sc)
	})
}

// roundTrip dumps sc at half its duration, imports the dump and checks
// that the imported run starts from the same state.
func roundTrip(t *testing.T, sc *scenario.Scenario) {
	t.Helper()
	// Instant controllers: with compute time a pod may be waiting
	// for its scheduling cycle at the moment of the dump, and the
	// imported run would place it at time 0.
	sc.ComputeTime, kpConfig(sc).Settings.ComputeTime, caConfig(sc).Settings.ComputeTime = false, false, false
	s, err := simulation.Start(sc, simulation.Options{})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(sc.Duration/2))
	var dump bytes.Buffer
	require.NoError(t, s.WriteState(&dump))

	im := importer.New(importer.Options{Name: "round-trip", Duration: "1h"}, sc.Catalog)
	require.NoError(t, im.Add("dump.yaml", &dump))
	// The dump has no node groups: a user adds the eksctl
	// ClusterConfig, so that the groups adopt their nodes.
	seen := map[string]bool{}
	for _, g := range caConfig(sc).NodeGroups {
		if seen[g.File] {
			continue
		}
		seen[g.File] = true
		f, err := scenarios.FS.Open(g.File)
		require.NoError(t, err)
		require.NoError(t, im.Add(g.File, f))
		require.NoError(t, f.Close())
	}
	var out bytes.Buffer
	require.NoError(t, im.Write(&out), "notices: %v", im.Notices())
	path := filepath.Join(t.TempDir(), "imported.yaml")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	back, err := scenario.LoadFile(path)
	require.NoError(t, err)
	r, err := simulation.Start(back, simulation.Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, r.RunUntil(0))

	before, after := s.Cluster(), r.Cluster()
	require.NotEmpty(t, nodesOf(before))
	require.Equal(t, nodesOf(before), nodesOf(after))
	require.Equal(t, notReadyOf(before), notReadyOf(after))
	refs := func(specs []string) func(int32) string { return func(w int32) string { return specs[w] } }
	var was, is []string
	for i := range sc.Workloads {
		was = append(was, sc.Workloads[i].Ref())
	}
	for i := range back.Workloads {
		is = append(is, back.Workloads[i].Ref())
	}
	// Known gap: a pod a fallback controller resubmitted with its
	// other spec is dumped under its Job with that spec, but sim
	// import places a controller's pods by its template, so it
	// comes back pending: left out here (hybrid-isolated).
	resubmitted := func(p *cluster.Pod) bool {
		fb := sc.Workloads[p.Workload].Fallback
		return fb != nil && p.Spec == fb.Pod
	}
	want := placement(before, refs(was), resubmitted)
	require.NotEmpty(t, want)
	require.Equal(t, want, placement(after, refs(is), func(*cluster.Pod) bool { return false }))
	wantPending := pending(before, refs(was))
	for i := range before.Pods {
		if p := &before.Pods[i]; p.Phase.OnNode() && !p.Terminating && p.Workload >= 0 && resubmitted(p) {
			wantPending[was[p.Workload]]++ // the gap above
		}
	}
	require.Equal(t, wantPending, pending(after, refs(is)), "pending pods stay pending")
	policies := func(ws []workload.Spec) map[string]string {
		out := map[string]string{}
		for i := range ws {
			if w := &ws[i]; w.Kind == workload.StatefulSet {
				out[w.Ref()] = fmt.Sprintf("ordered=%v minReady=%v readyAfter=%v", w.OrderedReady, w.MinReady, w.ReadyAfter)
			}
		}
		return out
	}
	require.Equal(t, policies(sc.Workloads), policies(back.Workloads), "StatefulSets keep their podManagementPolicy and readiness")
	require.Equal(t, pdbsOf(before, sc.PDBs), pdbsOf(after, back.PDBs))
	// Claims come back bound to their volumes, in their zones,
	// and stay there as the run goes on (stateful-*).
	zones := claimZones(t, before)
	require.Equal(t, zones, claimZones(t, after))
	// The autoscalers go on from the adopted nodes: the nodes they
	// launch are not named as an adopted one is.
	require.NoError(t, r.RunUntil(back.Duration))
	for claim, z := range claimZones(t, after) {
		if was, ok := zones[claim]; ok {
			require.Equal(t, was, z, claim)
		}
	}
	names := map[string]bool{}
	for i := range after.Nodes {
		n := &after.Nodes[i]
		require.False(t, names[n.Name], "two nodes named %s", n.Name)
		names[n.Name] = true
	}
}
