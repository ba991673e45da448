package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// A buffer of 3 web pods: Karpenter keeps room for them next to the 2
// real ones; the virtual pods never enter the cluster, are never pending,
// nominate no node (KC Results.Record nominates for real pods only:
// nomination would shield the node from all disruption), and mark the
// node that hosts them against emptiness (KC HasBufferPods).
func TestBufferVirtualPods(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 2)
	st := apis.DefaultSettings()
	st.CapacityBuffer = true
	h.settings = &st
	three := int32(3)
	h.buffers = []capacitybuffer.Buffer{{Name: "web-headroom", Namespace: "default", ScalableKind: "Deployment", ScalableName: "web", Replicas: &three, Strategy: capacitybuffer.ActiveCapacity}}
	h.start(poolWith("p", odM5, "  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}"))
	// 5 s after a resync (every 30 s from the start): its batch (1 s)
	// placed the virtual pods; a nomination would last 20 s.
	h.run(10*time.Minute + 5*time.Second)

	require.Len(t, h.cl.Pods, 2, "virtual pods are not cluster pods")
	require.Equal(t, 2, h.podsIn(cluster.Running))
	require.Equal(t, []int32{3}, h.k.buffers.Chunks)
	for id := range h.k.prov.pending {
		require.False(t, scheduling.IsVirtual(id))
	}
	var free int64
	hosting := 0
	for _, kn := range h.k.nodes.live {
		n := &h.cl.Nodes[kn.ID]
		free += n.Allocatable[cluster.CPU] - n.Requested[cluster.CPU]
		require.LessOrEqual(t, kn.nominatedUntil, h.eng.Now(), "the resyncs' placements nominate nothing")
		if kn.bufferPods > 0 {
			hosting++
		}
	}
	require.GreaterOrEqual(t, free, int64(1500), "room for 3 pods of 500m")
	require.Positive(t, hosting, "the nodes hosting virtual pods are known")

	// Without the buffer the same pods keep less room.
	h2 := startWeb(t, 2, poolWith("p", odM5, "  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}"))
	h2.run(10 * time.Minute)
	var free2 int64
	for _, kn := range h2.k.nodes.live {
		n := &h2.cl.Nodes[kn.ID]
		free2 += n.Allocatable[cluster.CPU] - n.Requested[cluster.CPU]
	}
	require.Less(t, free2, free)
}

// A percentage buffer follows its workload's desired replicas at the
// next reconcile (KC calculatePercentageReplicas: ceil, at least 1).
func TestBufferPercentageFollowsWorkload(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 3, 5*time.Minute, 10)
	st := apis.DefaultSettings()
	st.CapacityBuffer = true
	h.settings = &st
	pct := int32(25)
	h.buffers = []capacitybuffer.Buffer{{Name: "web-headroom", Namespace: "default", ScalableKind: "Deployment", ScalableName: "web", Percentage: &pct, Strategy: capacitybuffer.ActiveCapacity}}
	h.start(poolWith("p", odM5, ""))
	h.run(4 * time.Minute)
	require.Equal(t, []int32{1}, h.k.buffers.Chunks, "ceil(3 x 25%) = 1")
	h.run(6 * time.Minute)
	require.Equal(t, []int32{3}, h.k.buffers.Chunks, "ceil(10 x 25%) = 3")
}

// Limits count the containers' requests only (KC RequestsForSpec): a
// limit on pods constrains nothing, one on cpu does.
func TestBufferLimitsReadRequests(t *testing.T) {
	h := newHarness(t)
	spec := h.podSpec("500m", "512Mi", nil)
	h.start(poolWith("p", odM5, ""))
	require.Zero(t, capacitybuffer.MilliRequest(h.cl, spec, "pods"))
	require.Equal(t, int64(500), capacitybuffer.MilliRequest(h.cl, spec, "cpu"))
	require.Equal(t, int64(512<<20)*1000, capacitybuffer.MilliRequest(h.cl, spec, "memory"))
	five := int32(5)
	b := capacitybuffer.Buffer{ScalableName: "web", Replicas: &five, Limits: []capacitybuffer.Limit{{Resource: "pods", Milli: 2000}}}
	req := func(name string) int64 { return capacitybuffer.MilliRequest(h.cl, spec, name) }
	require.Equal(t, int32(5), first(capacitybuffer.Karpenter.Replicas(&b, 1, req)))
	b.Limits = append(b.Limits, capacitybuffer.Limit{Resource: "cpu", Milli: 1500})
	require.Equal(t, int32(3), first(capacitybuffer.Karpenter.Replicas(&b, 1, req)))
}

func first(n int32, _ string) int32 { return n }
