package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestFitIndexFollowsFilterOrder: a profile that lists NodeResourcesFit
// before the static filters reports, for a node that fails both, the
// resources, as the node-by-node scan and upstream do. The fit index
// ranked every static verdict first and gave "had untolerated taint(s)"
// (found by TestIndexesFollowTheCluster).
func TestFitIndexFollowsFilterOrder(t *testing.T) {
	p := DefaultProfile()
	p.Plugins = append([]PluginWeight{{Name: NameNodeResourcesFit, Weight: 1}}, slices.DeleteFunc(p.Plugins, func(pw PluginWeight) bool { return pw.Name == NameNodeResourcesFit })...)
	h := newHarness(t, 1, Config{Profiles: []Profile{p}})
	h.node("a", 500, 8192, map[string]string{"pool": "p0"}, corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule})
	h.node("b", 4000, 8192, map[string]string{"pool": "p1"})
	spec := podSpec("1", "1Gi")
	spec.NodeSelector = map[string]string{"pool": "p0"}
	id := h.pod("p", spec)
	h.eng.Run(time.Second)
	if len(h.s.fitIdx) == 0 {
		t.Fatal("the pod did not go through a fit index")
	}
	if got, want := h.s.LastFailure(id), "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector."; got != want {
		t.Fatalf("fit error %q, want %q", got, want)
	}
	if err := h.s.CheckIndexes(); err != nil {
		t.Fatal(err)
	}
}

// TestFitIndexStaleLayout: a new index's bitset is laid out in the
// current scan order at once (commit 01abd8d); then a node added in a new zone moves the last of
// 64 nodes of another zone to scan position 64, past the one-word bitset
// of an index no cycle has used since; a bind on that node before the
// next use must not touch the stale layout (commit 1967e58, which
// sim/simulation's TestFitIndexCrashCase found at scale: index out of
// range), and the index must agree with the cluster throughout.
func TestFitIndexStaleLayout(t *testing.T) {
	h := newHarness(t, 1, Config{})
	zone := func(z string) map[string]string { return map[string]string{"topology.kubernetes.io/zone": z} }
	for i := range 64 {
		h.node(fmt.Sprint("a", i), 4000, 8192, zone("a"))
	}
	check := func(when string) {
		if err := h.s.CheckIndexes(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
	p := h.pod("p", podSpec("100m", "100Mi"))
	h.eng.Run(time.Second)
	if len(h.s.fitList) != 1 || len(h.s.fitList[0].feasible) != 1 || h.nodeOf(p) == "" {
		t.Fatal("want one fit index of one word, and the pod bound through it")
	}
	check("after the first cycle") // a new index lays its bitset out at once (commit 01abd8d)
	last := h.s.nodes[63]
	h.node("b0", 4000, 8192, zone("b"))
	if h.s.nodeSlot[last] != 64 {
		t.Fatalf("node %s at scan position %d, want 64", h.cl.Nodes[last].Name, h.s.nodeSlot[last])
	}
	check("after the node in a new zone")
	spec := podSpec("100m", "100Mi")
	spec.SchedulerName = "other" // bound by another binder: no cycle uses the index
	id := h.pod("q", spec)
	h.cl.Bind(id, last)
	check("after the bind")
	h.pod("r", podSpec("100m", "100Mi"))
	h.eng.Run(2 * time.Second)
	check("after a cycle through the index")
}
