package clusterautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
)

// With ComputeTime a loop takes the model's time for the cluster it
// sees, and the next starts --scan-interval after it ends; without it,
// the fixed loop duration (1 s); an explicit loopDuration wins.
func TestLoopTakesModelTime(t *testing.T) {
	run := func(compute bool, loopDuration string) (*harness, Settings) {
		h := newHarness(t)
		spec := config.SettingsSpec{Args: []string{"--scale-down-enabled=false"}, LoopDuration: loopDuration}
		s, err := spec.Compile(nil, "spec.clusterAutoscaler")
		require.NoError(t, err)
		s.ComputeTime = compute
		h.startSettings(h.groups(managedNodeGroups("{name: a, instanceType: m5.large, minSize: 40, maxSize: 40, desiredCapacity: 40}")), s)
		h.pods(30, "100m", "128Mi")
		h.at(10 * time.Minute)
		return h, s
	}
	for _, c := range []struct {
		compute  bool
		duration string
		loop     time.Duration
	}{
		{false, "", config.DefaultLoopDuration},
		// 40 nodes and 30 bound pods, nothing pending.
		{true, "", LoopBase + 40*LoopPerNode + 30*LoopPerBoundPod},
		{true, "3s", 3 * time.Second},
	} {
		h, s := run(c.compute, c.duration)
		period := c.loop + s.ScanInterval
		wantLoops := int((10*time.Minute)/period) + 1 // the first at 0
		st := h.ca.Stats()
		require.Equal(t, wantLoops, st.Loops, "computeTime %v, loopDuration %q", c.compute, c.duration)
		require.InDelta(t, (time.Duration(wantLoops) * c.loop).Seconds(), st.BusySeconds, 1e-3)
	}
	// The published scalability test: 1,000 nodes of 30 pods, bursts of
	// 30,000 pending pods, every iteration under 10 s.
	require.Equal(t, 3600*time.Millisecond, loopTime(1000, 30000, 0, 1))
	require.Equal(t, 6900*time.Millisecond, loopTime(1000, 30000, 30000, 1))
	require.Less(t, loopTime(1000, 30000, 30000, 1), 10*time.Second)
	// Tens of seconds at 5,000 nodes.
	require.Greater(t, loopTime(5000, 150000, 0, 1), 10*time.Second)
}

// A pod that becomes unschedulable while a loop computes waits for the
// loop to end: the longest such wait is maxWaitSeconds.
func TestLoopWaitOfPodsArrivingMidLoop(t *testing.T) {
	h := newHarness(t)
	spec := config.SettingsSpec{Args: []string{"--scale-down-enabled=false"}}
	s, err := spec.Compile(nil, "spec.clusterAutoscaler")
	require.NoError(t, err)
	s.ComputeTime = true
	h.startSettings(h.groups(managedNodeGroups("{name: a, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: 0}")), s)
	h.at(0) // the first loop, at 0: an empty cluster
	loop := loopTime(0, 0, 0, 1)
	require.Equal(t, loop, LoopBase)
	h.at(loop / 4)
	h.pods(1, "100m", "128Mi") // unschedulable at loop/4: no node
	h.at(time.Minute)
	require.InDelta(t, (loop - loop/4).Seconds(), h.ca.Stats().MaxWaitSeconds, 1e-3)
}
