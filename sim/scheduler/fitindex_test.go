package scheduler

import (
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
