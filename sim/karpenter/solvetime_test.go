package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// launchTimes returns when Karpenter's nodes were launched, in order.
func (h *harness) launchTimes() []time.Duration {
	var out []time.Duration
	for i := range h.cl.Nodes {
		if n := &h.cl.Nodes[i]; n.Owner == ownedByKarpenter {
			out = append(out, time.Duration(n.Launched))
		}
	}
	return out
}

// expectedSolve is the solve-time formula for n unconstrained pods with
// the harness's pools, on a cluster of live nodes.
func (h *harness) expectedSolve(n, live int) time.Duration {
	types := 0
	for _, p := range h.k.prov.pools.Ordered() {
		types += len(p.Types)
	}
	return time.Duration(n) * (SolvePlainPerPod + time.Duration(types)*SolvePlainPerPodType +
		time.Duration(n)*SolvePlainPerPodPair + time.Duration(live)*SolvePerPodNode)
}

// With ComputeTime the batch's NodeClaims launch when its solve is over,
// and pods that arrive while it runs wait for it to end before their
// batch window opens (the batcher's trigger waits for the next Wait).
// Without it they launch when the window closes.
func TestSolveTakesTime(t *testing.T) {
	pool := poolWith("p", onDemand, "")
	off := startWeb(t, 400, pool)
	off.run(time.Minute)
	require.Equal(t, time.Second, off.launchTimes()[0], "no compute time: at the window's close")

	h := newHarness(t)
	st := apis.DefaultSettings()
	st.ComputeTime = true
	h.settings = &st
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 400)
	// 400 more pods just after the first batch's window closed (1 s), in
	// the middle of its solve.
	h.deploy("late", h.podSpec("500m", "512Mi", nil), time.Duration(0), 0, time.Second+time.Millisecond, 400)
	h.start(pool)
	h.run(5 * time.Second) // before the 10 s requeue of the still pending pods

	first := h.expectedSolve(400, 0)
	require.Greater(t, first, 100*time.Millisecond, "a batch of 400 pods takes a while")
	end1 := time.Second + first
	times := h.launchTimes()
	require.Equal(t, end1, times[0], "the first batch launches when its solve ends")
	// The late pods' window opened when the first solve ended and closed
	// a second later; their solve holds the first batch's pods too (still
	// pending, nominated to the launching node, as upstream's pending pods
	// are) and sees that node.
	var second time.Duration
	for _, at := range times {
		if at > end1 {
			second = at
			break
		}
	}
	live := 0
	for _, at := range times {
		if at <= end1 {
			live++
		}
	}
	end2 := end1 + time.Second + h.expectedSolve(800, live)
	require.Equal(t, end2, second)
	st2 := h.k.Stats()
	require.InDelta(t, (end2 - end1 - time.Second + first).Seconds(), st2.BusySeconds, 1e-3)
	// The late pods waited from their trigger (1.001 s) for the first
	// solve to end, then for their own.
	require.InDelta(t, (end1 - time.Second - time.Millisecond + end2 - end1 - time.Second).Seconds(), st2.MaxWaitSeconds, 1e-3)
}

// Pods with topology spread and with pod anti-affinity cost their
// class's figures: the fit found them dearer per instance type.
func TestSolveTimeByClass(t *testing.T) {
	h := newHarness(t)
	h.start(poolWith("p", onDemand, ""))
	types := 0
	for _, p := range h.k.prov.pools.Ordered() {
		types += len(p.Types)
	}
	T := time.Duration(types)
	mk := func(spec *cluster.PodSpec) []cluster.PodID {
		var ids []cluster.PodID
		for range 10 {
			ids = append(ids, h.cl.CreatePod(cluster.Pod{Name: "x", Namespace: h.cl.Syms.Intern("default"), Spec: spec, Workload: -1}))
		}
		return ids
	}
	plain := mk(h.podSpec("100m", "128Mi", nil))
	spread := mk(h.podSpec("100m", "128Mi", map[string]string{"app": "s"}, withZoneSpread("s")))
	anti := mk(h.podSpec("100m", "128Mi", map[string]string{"app": "a"}, withHostAntiAffinity("a")))
	require.Equal(t, 10*(SolvePlainPerPod+T*SolvePlainPerPodType+10*SolvePlainPerPodPair), h.k.prov.solveTime(plain))
	require.Equal(t, 10*(SolveSpreadPerPod+T*SolveSpreadPerPodType+10*SolveSpreadPerPodPair), h.k.prov.solveTime(spread))
	require.Equal(t, 10*(SolveAffinityPerPod+T*SolveAffinityPerPodType+10*SolveAffinityPerPodPair), h.k.prov.solveTime(anti))
	mixed := append(append(append([]cluster.PodID(nil), plain...), spread...), anti...)
	require.Equal(t, 10*(SolvePlainPerPod+T*SolvePlainPerPodType+30*SolvePlainPerPodPair)+
		10*(SolveSpreadPerPod+T*SolveSpreadPerPodType+30*SolveSpreadPerPodPair)+
		10*(SolveAffinityPerPod+T*SolveAffinityPerPodType+30*SolveAffinityPerPodPair), h.k.prov.solveTime(mixed))
	require.Greater(t, h.k.prov.solveTime(anti), h.k.prov.solveTime(plain))

	// Each pod tries every existing node: spread and affinity pods at
	// their own rate.
	h.staticNode("s1", "m5.large", "us-east-1a")
	h.staticNode("s2", "m5.large", "us-east-1b")
	require.Equal(t, 10*(SolvePlainPerPod+T*SolvePlainPerPodType+10*SolvePlainPerPodPair+2*SolvePerPodNode), h.k.prov.solveTime(plain))
	require.Equal(t, 10*(SolveSpreadPerPod+T*SolveSpreadPerPodType+10*SolveSpreadPerPodPair+2*SolveConstrainedPerPodNode), h.k.prov.solveTime(spread))
}

// A batch whose solve would run past a minute is cut there (KC
// Provisioner.Schedule's one-minute Solve timeout): the NodeClaims of the
// pods it tried launch at the minute, the pods it never tried are left
// for the next batch, and every pod gets a node in the end.
func TestSolveTimeout(t *testing.T) {
	pool := poolWith("p", onDemand, "")
	probe := newHarness(t)
	probe.start(pool)
	// The smallest batch of small pods whose solve takes over 90 s.
	n := 1000
	for probe.expectedSolve(n, 0) < 90*time.Second {
		n += 1000
	}
	h := newHarness(t)
	st := apis.DefaultSettings()
	st.ComputeTime = true
	h.settings = &st
	h.deploy("web", h.podSpec("100m", "128Mi", nil), time.Duration(0), n)
	h.start(pool)
	untried := 0
	h.k.OnNoLaunch(func(pods []cluster.PodID, class, _ string) {
		if class == "solve-timeout" {
			untried += len(pods)
		}
	})
	h.run(time.Second + SolveTimeout + time.Millisecond)

	times := h.launchTimes()
	require.NotEmpty(t, times)
	require.Equal(t, time.Second+SolveTimeout, times[0], "the solve stops at the timeout and launches what it placed")
	require.Equal(t, int64(1), h.k.Stats().SolveTimeouts)
	// A try costs the same for every pod of the batch: the solve tried
	// as many as fit in the minute, and launched for them.
	launchedFor := 0
	for i := range h.cl.Pods {
		if len(h.cl.LaunchedFor(cluster.PodID(i))) > 0 {
			launchedFor++
		}
	}
	perTry := h.expectedSolve(n, 0) / time.Duration(n)
	require.Equal(t, int(SolveTimeout/perTry), launchedFor)
	require.Less(t, launchedFor, n)
	require.Equal(t, n-launchedFor, untried, "sim explain says the rest were never tried")

	h.run(30 * time.Minute)
	pending := 0
	for i := range h.cl.Pods {
		if h.cl.Pods[i].Phase == cluster.Pending {
			pending++
		}
	}
	require.Zero(t, pending, "the pods the first solve never tried got nodes from later batches")
}
