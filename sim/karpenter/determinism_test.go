package karpenter

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// The same scenario gives the same decisions, whatever order symbols were
// interned in before (label maps are compiled in map order elsewhere).
func TestDeterminism(t *testing.T) {
	run := func(preIntern []string) string {
		h := newHarness(t)
		for _, s := range preIntern {
			h.cl.Syms.Intern(s)
		}
		h.cloud.Exhaust(cloud.Offering{Zone: "us-east-1b", CapacityType: cluster.Spot})
		h.deploy("spread", h.podSpec("700m", "1Gi", map[string]string{"app": "spread"}, withZoneSpread("spread")), time.Duration(0), 9, 20*time.Minute, 3)
		h.deploy("anti", h.podSpec("250m", "256Mi", map[string]string{"app": "anti"}, withHostAntiAffinity("anti")), time.Duration(0), 3)
		h.deploy("web", h.podSpec("1", "2Gi", map[string]string{"app": "web"}), time.Duration(0), 6, 30*time.Minute, 1)
		h.start(spotWide)
		h.run(2 * time.Hour)
		return runRecord(t, h)
	}
	a := run(nil)
	b := run(nil)
	c := run([]string{"us-east-1c", "us-east-1b", "us-east-1a", "app", "spread", "anti", "web", "kubernetes.io/hostname"})
	require.Equal(t, a, b)
	require.Equal(t, a, c)
}

// runRecord is what a run decided: every node's life and the stats.
func runRecord(t testing.TB, h *harness) string {
	var b strings.Builder
	for i := range h.cl.Nodes {
		n := &h.cl.Nodes[i]
		fmt.Fprintf(&b, "%s %s %s %s %v %v %v\n", n.Name, n.InstanceType, h.cl.Syms.Name(n.Zone), n.CapacityType, n.Launched, n.Ready, n.Deleted)
	}
	js, err := json.Marshal(h.k.Stats())
	require.NoError(t, err)
	b.Write(js)
	return b.String()
}

// Cutting consolidation what-ifs short once their answer is known
// (earlyNo) or skipping them (doomed) changes no decision: a churning
// cluster of spot and on-demand
// nodes runs the same with every what-if computed whole, and the short
// cut is taken.
func TestEarlyVerdictsChangeNothing(t *testing.T) {
	run := func(full bool, odPods bool) (string, int64) {
		h := newHarness(t)
		h.cloud.Exhaust(cloud.Offering{Zone: "us-east-1b", CapacityType: cluster.Spot})
		h.deploy("web", h.podSpec("700m", "1Gi", map[string]string{"app": "web"}),
			time.Duration(0), 40, 30*time.Minute, 12, time.Hour, 30, 90*time.Minute, 8)
		h.deploy("api", h.podSpec("300m", "512Mi", map[string]string{"app": "api"}, withZoneSpread("api")),
			time.Duration(0), 20, 40*time.Minute, 6, 100*time.Minute, 24)
		if odPods {
			h.deploy("od", h.podSpec("1", "1Gi", map[string]string{"app": "od"}, withNodeSelector("karpenter.sh/capacity-type", "on-demand")),
				time.Duration(0), 6, 50*time.Minute, 2, 80*time.Minute, 8)
		}
		h.start(spotWide)
		defer computeWhatIfsWhole(full)()
		h.run(3 * time.Hour)
		return runRecord(t, h), h.k.dis.earlyStops
	}
	for _, od := range []bool{false, true} {
		whole, none := run(true, od)
		require.Zero(t, none)
		short, stops := run(false, od)
		require.Equal(t, whole, short, "on-demand pods: %v", od)
		require.Positive(t, stops, "no what-if was cut short (on-demand pods: %v)", od)
		t.Logf("on-demand pods %v: %d what-ifs cut short", od, stops)
	}
}

func TestSpecNamesKey(t *testing.T) {
	h := newHarness(t)
	ct := h.cl.KeyCapacityType
	require.False(t, scheduling.SpecUsesKey(h.podSpec("1", "1Gi", nil, withZoneSpread("a")), ct))
	require.True(t, scheduling.SpecUsesKey(h.podSpec("1", "1Gi", nil, withNodeSelector("karpenter.sh/capacity-type", "spot")), ct))
	require.True(t, scheduling.SpecUsesKey(h.podSpec("1", "1Gi", nil, withZoneSpread("a")), h.cl.KeyZone))
	require.True(t, scheduling.SpecUsesKey(h.podSpec("1", "1Gi", nil, withPreferredZone("us-east-1a")), h.cl.KeyZone))
	require.True(t, scheduling.SpecUsesKey(h.podSpec("1", "1Gi", nil, withHostAntiAffinity("a")), h.cl.KeyHostname))
	require.False(t, scheduling.SpecUsesKey(h.podSpec("1", "1Gi", nil, withHostAntiAffinity("a")), ct))
}

// Every what-if doomed skips fails when computed whole, in a churning
// cluster where holes are few: Jobs-like pods of one shape on a spot
// pool whose nodes fill up.
func TestDoomedWhatIfsFail(t *testing.T) {
	h := newHarness(t)
	h.deploy("batch", h.podSpec("1", "2Gi", map[string]string{"app": "batch"}),
		time.Duration(0), 60, 30*time.Minute, 40, time.Hour, 70, 90*time.Minute, 30, 2*time.Hour, 50)
	h.deploy("small", h.podSpec("250m", "512Mi", map[string]string{"app": "small"}),
		time.Duration(0), 20, 45*time.Minute, 5, 100*time.Minute, 25)
	h.start(poolWith("small", "        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}\n"+
		"        - {key: karpenter.k8s.aws/instance-cpu, operator: In, values: [\"4\", \"8\"]}\n"+
		spotOnly, "  disruption: {consolidateAfter: 1m}"))
	skipped, wrong := 0, 0
	defer verifyDoomedWhatIfs(func(failed bool) {
		skipped++
		if !failed {
			wrong++
		}
	})()
	h.run(3 * time.Hour)
	require.Zero(t, wrong, "doomed skipped what-ifs that succeed")
	require.Positive(t, skipped, "nothing was skipped")
	require.Positive(t, h.k.Stats().Disruptions.Underutilized, "some consolidations succeed")
	t.Logf("%d what-ifs skipped, %d nodes consolidated", skipped, h.k.Stats().Disruptions.Underutilized)
}
