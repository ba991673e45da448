package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

func TestPercentiles(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i)*time.Second)
	}
	p := percentiles(s)
	// Empirical quantile: the smallest value whose cumulative share reaches p.
	require.Equal(t, Percentiles{P50: 50, P95: 95, P99: 99, Max: 100, Mean: 50.5}, p)
	require.Equal(t, Percentiles{}, percentiles(nil))
	require.Equal(t, Percentiles{P50: 1.5, P95: 1.5, P99: 1.5, Max: 1.5, Mean: 1.5}, percentiles([]time.Duration{1500 * time.Millisecond}))
}

func TestFormatSeconds(t *testing.T) {
	for s, want := range map[float64]string{0: "0s", 4.25: "4.2s", 59: "59s", 185: "3m05s", 7800: "2h10m"} {
		require.Equal(t, want, formatSeconds(s), "%v", s)
	}
}

func TestWrap(t *testing.T) {
	require.Equal(t, "short", wrap("short", 10))
	require.Equal(t, "aaa bbb\nccc", wrap("aaa bbb ccc", 8))
}

// A pod tried before the first node came, then bound with it within the
// scheduler's initial backoff, never waited: its "0/0 nodes are
// available." is no reason for its workload's wait, and it is not among
// the unschedulable pods. One that waited for a launch still is.
func TestPodsBoundAtOnceGiveNoWaitReason(t *testing.T) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	c := NewCollector(cl, 10*time.Minute, 2)
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 4000, 1e9, 10
	at := func(d time.Duration, f func()) { eng.Schedule(d, engine.Event{Handler: eng.Register(poke(f))}) }
	var web, batch cluster.PodID
	var n cluster.NodeID
	at(0, func() {
		web = cl.CreatePod(cluster.Pod{Name: "web-1", Workload: 0, Spec: &cluster.PodSpec{}})
		batch = cl.CreatePod(cluster.Pod{Name: "batch-1", Workload: 1, Spec: &cluster.PodSpec{}})
	})
	at(200*time.Millisecond, func() {
		n = cl.AddNode(cluster.Node{Name: "n", InstanceType: "m5.large", Owner: cluster.OwnedByStatic, Allocatable: alloc, State: cluster.NodeReady})
		cl.Bind(web, n)
	})
	at(40*time.Second, func() { cl.Bind(batch, n) })
	eng.Run(time.Minute)
	failed := Failure{Message: "0/0 nodes are available.", Reasons: map[string]int{}}
	r := c.Build(Inputs{Scenario: "s", End: eng.Now(), WorkloadRefs: []string{"Deployment/default/web", "Job/default/batch"},
		Failure: func(id cluster.PodID) (Failure, int32, bool) { return failed, 1, true }})
	require.Len(t, r.UnschedulablePods, 1)
	require.Equal(t, "/batch-1", r.UnschedulablePods[0].Pod)
	require.Equal(t, 40.0, r.UnschedulablePods[0].PendingSeconds)
	require.Empty(t, r.Workloads[0].WaitReason, "web bound 0.2 s after it was created: it never waited")
	require.Zero(t, r.Workloads[0].UnschedulablePods)
	require.Equal(t, "0/0 nodes are available.", r.Workloads[1].WaitReason, "batch waited 40 s")
}
