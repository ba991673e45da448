package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
)

// A few hours of churn on a pool of many instance types: every model
// stays consistent (no overcommitted node, every pod eventually runs).
func TestStressChurn(t *testing.T) {
	var steps []any
	for i := 0; i < 24; i++ {
		steps = append(steps, time.Duration(i)*10*time.Minute, 200+(i%5)*150)
	}
	h := startChurn(t, steps, cmr+newerThan4)
	start := time.Now()
	h.run(4 * time.Hour)
	st := h.k.Stats()
	t.Logf("wall %v events %d nodes %d stats launched=%d failures=%d disruptions=%+v batches=%d evicted=%d",
		time.Since(start), h.eng.Events(), len(h.karpenterNodes()), st.NodeClaimsLaunched, st.LaunchFailures, st.Disruptions, st.Batches, st.PodsEvicted)
	for i := range h.cl.Nodes {
		n := &h.cl.Nodes[i]
		if n.State != cluster.NodeGone {
			require.True(t, n.Requested.Fits(n.Allocatable))
		}
	}
	require.Zero(t, h.podsIn(cluster.Pending))
}

// Many small nodes: consolidation simulations over hundreds of nodes.
func TestStressManyNodes(t *testing.T) {
	var steps []any
	for i := 0; i < 12; i++ {
		steps = append(steps, time.Duration(i)*20*time.Minute, 300+(i%3)*200)
	}
	h := startChurn(t, steps, smallNodes)
	start := time.Now()
	peak := 0
	for m := 10 * time.Minute; m <= 4*time.Hour; m += 10 * time.Minute {
		h.run(m)
		peak = max(peak, len(h.karpenterNodes()))
	}
	st := h.k.Stats()
	t.Logf("wall %v events %d nodes %d peak %d stats launched=%d failures=%d disruptions=%+v batches=%d evicted=%d",
		time.Since(start), h.eng.Events(), len(h.karpenterNodes()), peak, st.NodeClaimsLaunched, st.LaunchFailures, st.Disruptions, st.Batches, st.PodsEvicted)
	require.Zero(t, h.podsIn(cluster.Pending))
}

// startChurn starts (skipped in -short) a web Deployment following
// webSteps and a zone-spread api one on a spot and on-demand amd64 pool
// of the instance types types selects, consolidating after 30 s.
func startChurn(t *testing.T, webSteps []any, types string) *harness {
	if testing.Short() {
		t.Skip("long")
	}
	h := newHarness(t)
	h.deploy("web", h.podSpec("700m", "1Gi", map[string]string{"app": "web"}), webSteps...)
	h.deploy("api", h.podSpec("300m", "512Mi", map[string]string{"app": "api"}, withZoneSpread("api")), time.Duration(0), 150, time.Hour, 60, 2*time.Hour, 300)
	h.start(poolWith("default", types+amd64+odAndSpot, "  disruption: {consolidateAfter: 30s}"))
	return h
}
