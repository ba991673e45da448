package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

type poke func()

func (p poke) HandleEvent(engine.Event) { p() }

// The timeline samples the counters at each interval: a sample at T holds
// every change at or before T; stranded counts the pending pods older than
// strandedAfter; a pool that appears later is padded with zeros; cost
// integrates the live nodes' prices; alike events within an interval
// merge; scripted events take their places; a copy built mid-run leaves
// the run's books alone.
func TestTimelineSamples(t *testing.T) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	c := NewCollector(cl, 2*time.Minute, 0)
	c.StartTimeline(TimelineConfig{
		Interval: time.Minute,
		OnDemandPrice: func(typ string) (float64, bool) {
			return 0.4, typ == "c5.large"
		},
		Scripted: []TimelineEvent{{T: 120, Kind: "marketEvent", Count: 1, Owner: "market", Message: "zones a: exhausted"}},
	})
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 4000, 1e9, 10
	at := func(d time.Duration, f func()) { eng.Schedule(d, engine.Event{Handler: eng.Register(poke(f))}) }
	var spot, core cluster.NodeID
	var p0, p1 cluster.PodID
	at(0, func() {
		spot = cl.AddNode(cluster.Node{Name: "s", InstanceType: "c5.large", CapacityType: cluster.Spot, PriceUSDPerHour: 0.1,
			Owner: cluster.RegisterOwner("karpenter"), OwnerName: "np", Allocatable: alloc, State: cluster.NodeReady})
		core = cl.AddNode(cluster.Node{Name: "c", InstanceType: "m5.large", CapacityType: cluster.OnDemand, PriceUSDPerHour: 0.2,
			Owner: cluster.OwnedByStatic, OwnerName: "core", Allocatable: alloc, State: cluster.NodeReady})
		p0 = cl.CreatePod(cluster.Pod{Name: "p0", Workload: -1, Spec: &cluster.PodSpec{}})
		p1 = cl.CreatePod(cluster.Pod{Name: "p1", Workload: -1, Spec: &cluster.PodSpec{}})
	})
	at(time.Minute, func() { cl.Bind(p0, spot) }) // on a sample time: in that sample
	at(90*time.Second, func() { cl.StartPod(p0) })
	at(100*time.Second, func() {
		c.Happened(TimelineEvent{Kind: "launchError", Owner: "karpenter", Pool: "c5.large/a/spot", Cause: "InsufficientInstanceCapacity"})
		c.Happened(TimelineEvent{Kind: "launchError", Owner: "karpenter", Pool: "c5.large/a/spot", Cause: "InsufficientInstanceCapacity"})
	})
	at(130*time.Second, func() {
		c.Happened(TimelineEvent{Kind: "launchError", Owner: "karpenter", Pool: "c5.large/a/spot", Cause: "InsufficientInstanceCapacity"})
		cl.AddNode(cluster.Node{Name: "g", InstanceType: "m5.large", Owner: cluster.RegisterOwner("cluster-autoscaler"), OwnerName: "grp",
			Allocatable: alloc, State: cluster.NodeReady})
	})
	var mid *Report
	at(150*time.Second, func() { mid = c.Clone().Build(Inputs{End: eng.Now()}) })
	at(200*time.Second, func() { cl.DeletePod(p1, cluster.CauseScaleDown) })
	at(240*time.Second, func() {
		cl.FinishPod(p0, cluster.Succeeded)
		cl.RemoveNode(spot)
	})
	eng.Run(5 * time.Minute)
	_ = core
	r := c.Build(Inputs{End: eng.Now()})
	tl := r.Timeline
	require.NotNil(t, tl)
	require.Equal(t, 60.0, tl.IntervalSeconds)
	require.Equal(t, []float64{0, 60, 120, 180, 240, 300}, tl.T)
	require.Equal(t, []int32{2, 1, 1, 1, 0, 0}, tl.PendingPods)
	require.Equal(t, []int32{0, 0, 0, 1, 0, 0}, tl.StrandedPods, "p1 waited more than 2m at 3m, and was deleted at 3m20s")
	require.Equal(t, []int32{0, 1, 0, 0, 0, 0}, tl.StartingPods)
	require.Equal(t, []int32{0, 0, 1, 1, 0, 0}, tl.RunningPods)
	require.Equal(t, []int32{1, 1, 1, 1, 0, 0}, tl.SpotNodes)
	require.Equal(t, []int32{1, 1, 1, 2, 2, 2}, tl.OnDemandNodes)
	require.Equal(t, []int32{0, 0, 0, 0, 0, 0}, tl.ReservedNodes)
	require.Equal(t, []PoolSeries{
		{Owner: "karpenter", Name: "np", Nodes: []int32{1, 1, 1, 1, 0, 0}, Launched: []int32{1, 1, 1, 1, 1, 1},
			AllocatableCPU: []float64{4, 4, 4, 4, 0, 0}, AllocatableMemory: []float64{1e9, 1e9, 1e9, 1e9, 0, 0}},
		{Owner: "static", Name: "core", Nodes: []int32{1, 1, 1, 1, 1, 1}, Launched: []int32{0, 0, 0, 0, 0, 0},
			AllocatableCPU: []float64{4, 4, 4, 4, 4, 4}, AllocatableMemory: []float64{1e9, 1e9, 1e9, 1e9, 1e9, 1e9}},
		{Owner: "cluster-autoscaler", Name: "grp", Nodes: []int32{0, 0, 0, 1, 1, 1}, Launched: []int32{0, 0, 0, 1, 1, 1},
			AllocatableCPU: []float64{0, 0, 0, 4, 4, 4}, AllocatableMemory: []float64{0, 0, 0, 1e9, 1e9, 1e9}},
	}, tl.Pools)
	require.Equal(t, []float64{0.3, 0.3, 0.3, 0.3, 0.2, 0.2}, tl.CostUSDPerHour)
	require.Equal(t, []float64{0, 0.005, 0.01, 0.015, 0.02, 0.023333}, tl.CostUSD)
	require.Equal(t, []float64{0.6, 0.6, 0.6, 0.6, 0.2, 0.2}, tl.OnDemandEquivalentUSDPerHour, "c5.large at 0.4 on demand")
	require.Equal(t, []float64{0, 0.01, 0.02, 0.03, 0.04, 0.043333}, tl.OnDemandEquivalentUSD)
	require.Equal(t, []TimelineEvent{
		{T: 100, Kind: "launchError", Count: 2, Owner: "karpenter", Pool: "c5.large/a/spot", Cause: "InsufficientInstanceCapacity"},
		{T: 120, Kind: "marketEvent", Count: 1, Owner: "market", Message: "zones a: exhausted"},
		{T: 130, Kind: "launchError", Count: 1, Owner: "karpenter", Pool: "c5.large/a/spot", Cause: "InsufficientInstanceCapacity"},
	}, tl.Events)

	// The copy built at 2m30s has the samples up to then, and no more.
	require.Equal(t, []float64{0, 60, 120}, mid.Timeline.T)
	require.Equal(t, []int32{2, 1, 1}, mid.Timeline.PendingPods)
	require.Len(t, mid.Timeline.Events, 3)
}

func TestTimelineInterval(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		time.Hour: time.Minute, 24 * time.Hour: time.Minute, 24*time.Hour + time.Minute: 2 * time.Minute,
		48 * time.Hour: 2 * time.Minute, 7 * 24 * time.Hour: 10 * time.Minute, 30 * 24 * time.Hour: 30 * time.Minute, 31 * 24 * time.Hour: time.Hour,
	} {
		got := TimelineInterval(d)
		require.Equal(t, want, got, "%s", d)
		require.LessOrEqual(t, int(d/got), MaxTimelineSamples)
	}
}

// The timeline is the JSON's last key, each series on one line, and it
// reads back as it was.
func TestTimelineJSON(t *testing.T) {
	r := build(Inputs{})
	r.Timeline = &Timeline{IntervalSeconds: 60, T: []float64{0, 60}, PendingPods: []int32{1, 2}, StrandedPods: []int32{0, 0},
		StartingPods: []int32{0, 1}, RunningPods: []int32{3, 4}, SpotNodes: []int32{1, 1}, OnDemandNodes: []int32{0, 0}, ReservedNodes: []int32{0, 0},
		Pools:          []PoolSeries{{Owner: "karpenter", Name: `<b>"np"</b>`, Nodes: []int32{1, 1}, Launched: []int32{1, 1}}},
		CostUSDPerHour: []float64{0.1, 0.1}, CostUSD: []float64{0, 0.001667}, OnDemandEquivalentUSDPerHour: []float64{0.3, 0.3},
		OnDemandEquivalentUSD: []float64{0, 0.005},
		Events:                []TimelineEvent{{T: 12.5, Kind: "launchError", Count: 2, Owner: "karpenter", Cause: "ICE"}}}
	data, err := r.JSON()
	require.NoError(t, err)
	keys := topKeys(t, data)
	require.Equal(t, "timeline", keys[len(keys)-1])
	require.Contains(t, string(data), "\n    \"pendingPods\": [1,2],\n")
	require.Contains(t, string(data), "\n      {\"owner\": \"karpenter\", \"name\": \"\\u003cb\\u003e\\\"np\\\"\\u003c/b\\u003e\", \"nodes\": [1,1], \"launched\": [1,1]}\n")
	var back Report
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, r.Timeline, back.Timeline)
	require.Empty(t, back.Models, "the timeline is no model's section")
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	require.Equal(t, string(data), buf.String())
	// Marshalled compactly (json.Marshal) it is the same document.
	compact, err := json.Marshal(r)
	require.NoError(t, err)
	var again Report
	require.NoError(t, json.Unmarshal(compact, &again))
	require.Equal(t, r.Timeline, again.Timeline)
	require.True(t, strings.HasSuffix(string(data), "\n  }\n}\n"))
}

func TestAxisTime(t *testing.T) {
	for s, want := range map[float64]string{0: "0", 30: "30s", 90: "1m30s", 900: "15m", 3600: "1h", 4500: "1h15m", 86400: "1d", 129600: "1d12h"} {
		require.Equal(t, want, axisTime(s))
	}
}
