package workload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/engine"
)

func setup(t *testing.T, specs ...Spec) (*engine.Engine, *cluster.Cluster, *Controllers) {
	t.Helper()
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	return eng, cl, New(eng, cl, specs)
}

func livePods(cl *cluster.Cluster) []string {
	var out []string
	for i := range cl.Pods {
		if !cl.Pods[i].Phase.Terminal() {
			out = append(out, cl.Pods[i].Name)
		}
	}
	return out
}

func TestStatefulSetOrdinalsAndScaleDown(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, _ := setup(t, Spec{Kind: StatefulSet, Namespace: "data", Name: "db", Pod: spec,
		Replicas: ReplicaPlan{Steps: []Step{{0, 3}, {time.Minute, 1}}}, TwinOf: -1})
	eng.Run(time.Second)
	require.Equal(t, []string{"db-0", "db-1", "db-2"}, livePods(cl))
	eng.Run(2 * time.Minute)
	require.Equal(t, []string{"db-0"}, livePods(cl), "the highest ordinals go first")
}

// TestStatefulSetReplacesOrdinal: a lost replica comes back under its own
// ordinal (the StatefulSet controller recreates the missing identity), so
// it finds its volumeClaimTemplates' claims again.
func TestStatefulSetReplacesOrdinal(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, _ := setup(t, Spec{Kind: StatefulSet, Namespace: "data", Name: "db", Pod: spec,
		Replicas: ReplicaPlan{Steps: []Step{{0, 3}}}, TwinOf: -1})
	eng.Run(time.Second)
	cl.DeletePod(1, cluster.CauseEvicted)
	eng.Run(2 * time.Second)
	require.Equal(t, []string{"db-0", "db-2", "db-1"}, livePods(cl))
}

func TestScaleDownDeletesPendingFirst(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, _ := setup(t, Spec{Kind: Deployment, Namespace: "default", Name: "web", Pod: spec,
		Replicas: ReplicaPlan{Steps: []Step{{0, 3}, {time.Minute, 2}}}, TwinOf: -1})
	eng.Run(time.Second)
	var alloc cluster.Resources
	alloc[cluster.Pods] = 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	cl.Bind(2, n) // the newest pod is bound, the two older ones pending
	eng.Run(2 * time.Minute)
	require.Equal(t, cluster.Deleted, cl.Pods[1].Phase, "the newest pending pod goes first")
	require.Equal(t, cluster.Pending, cl.Pods[0].Phase)
	require.Equal(t, cluster.Bound, cl.Pods[2].Phase, "a bound pod stays, though it is the newest")
}

func TestReplacesLostPods(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Deployment, Namespace: "default", Name: "web", Pod: spec, Replicas: ReplicaPlan{Steps: []Step{{0, 2}}}, TwinOf: -1})
	eng.Run(time.Second)
	cl.DeletePod(0, cluster.CauseEvicted)
	eng.Run(2 * time.Second)
	require.Len(t, livePods(cl), 2)
	require.Equal(t, uint64(1), c.Stats().PodsReplaced)
}

// TestReplicaSetReplacesTerminatingPodAtOnce: a ReplicaSet does not count
// a terminating pod (controller.FilterActivePods), so an evicted pod's
// replacement is created while it still terminates, and its deletion
// later replaces nothing more. A StatefulSet waits for the pod to go.
func TestReplicaSetReplacesTerminatingPodAtOnce(t *testing.T) {
	for _, kind := range []Kind{Deployment, StatefulSet} {
		eng, cl, c := setup(t, Spec{Kind: kind, Namespace: "default", Name: "web", Pod: &cluster.PodSpec{},
			Replicas: ReplicaPlan{Steps: []Step{{0, 2}}}, TwinOf: -1})
		var alloc cluster.Resources
		alloc[cluster.Pods] = 10
		n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
		eng.Run(time.Second)
		cl.Bind(0, n)
		cl.StartPod(0)
		cl.MarkTerminating(0)
		eng.Run(2 * time.Second)
		if kind == Deployment {
			require.Len(t, livePods(cl), 3, "the terminating pod and two replicas")
			require.Equal(t, cluster.Pending, cl.Pods[2].Phase, "its replacement")
		} else {
			require.Len(t, livePods(cl), 2, "%s: no replacement while the pod terminates", kind)
		}
		cl.DeletePod(0, cluster.CauseEvicted)
		eng.Run(3 * time.Second)
		require.Len(t, livePods(cl), 2, "%s", kind)
		require.Equal(t, uint64(1), c.Stats().PodsReplaced, "%s: replaced once", kind)
	}
}

func TestJobArrivalsMakeNamedInstances(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "etl", Pod: spec, Parallelism: 2, Completions: 2,
		Runtime: dist.Fixed{D: time.Minute}, Arrivals: Arrivals{Times: []time.Duration{0, time.Hour}}, TwinOf: -1})
	eng.Run(2 * time.Hour)
	var names []string
	for _, p := range cl.Pods {
		names = append(names, p.Name)
	}
	require.Equal(t, []string{"etl-1-1", "etl-1-2", "etl-2-1", "etl-2-2"}, names)
	require.Equal(t, uint64(2), c.Stats().JobsArrived)
	for _, p := range cl.Pods {
		require.Equal(t, time.Minute, p.RunFor)
	}
}

func TestJobBackoffLimitAndLostTime(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "j", Pod: spec, Parallelism: 1, Completions: 1,
		BackoffLimit: 1, Runtime: dist.Fixed{D: time.Hour}, TwinOf: -1})
	var alloc cluster.Resources
	alloc[cluster.Pods] = 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	lose := func() {
		t.Helper()
		var id cluster.PodID = -1
		for i := range cl.Pods {
			if !cl.Pods[i].Phase.Terminal() {
				id = cluster.PodID(i)
			}
		}
		require.NotEqual(t, cluster.PodID(-1), id, "a live pod")
		cl.Bind(id, n)
		cl.StartPod(id)
		eng.Run(eng.Now() + 10*time.Minute)
		cl.DeletePod(id, cluster.CauseNodeGone)
	}
	eng.Run(time.Second)
	lose() // failure 1 of backoffLimit 1: replaced after a 10 s backoff
	eng.Run(eng.Now() + 9*time.Second)
	require.Len(t, cl.Pods, 1, "the replacement waits out the Job's 10 s pod failure backoff")
	eng.Run(eng.Now() + 2*time.Second)
	require.Len(t, cl.Pods, 2)
	lose() // failure 2 > backoffLimit: the Job fails
	eng.Run(eng.Now() + time.Hour)
	require.Len(t, cl.Pods, 2, "a failed Job makes no more pods")
	st := c.Stats()
	require.Equal(t, uint64(1), st.JobsFailed)
	require.Equal(t, uint64(2), st.JobPodFailures)
	require.Equal(t, uint64(1), st.PodsReplaced, "the first lost pod was replaced; the failed Job replaces the second with none")
	require.InDelta(t, 1200, st.LostPodSeconds, 1e-9, "two pods lost after 10 minutes of work each")
	failed := c.FailedJobs()
	require.Len(t, failed, 1)
	require.Equal(t, "batch/j", failed[0].Job)
	require.Equal(t, cl.Pods[1].Ended, failed[0].At, "failed when its second pod was lost")
	require.Equal(t, "exceeded backoffLimit 1 after 2 pod failures (2 nodeGone)", failed[0].Reason)
}

func TestFailedJobLosesTheRunTimeOfItsOtherPods(t *testing.T) {
	// Two pods in parallel, backoffLimit 0: losing one fails the Job,
	// which deletes the other (in an event of its own: deleting it while
	// the cluster told of the first loss panicked); both pods' run time
	// is lost.
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "j", Pod: spec, Parallelism: 2, Completions: 2,
		BackoffLimit: 0, Runtime: dist.Fixed{D: time.Hour}, TwinOf: -1})
	var alloc cluster.Resources
	alloc[cluster.Pods] = 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	eng.Run(time.Second)
	require.Len(t, cl.Pods, 2)
	for i := range cl.Pods {
		cl.Bind(cluster.PodID(i), n)
		cl.StartPod(cluster.PodID(i))
	}
	eng.Run(eng.Now() + 20*time.Minute)
	cl.DeletePod(0, cluster.CauseEvicted)
	eng.Run(eng.Now() + time.Second)
	require.Equal(t, cluster.CauseJobFailed, cl.Pods[1].Cause)
	st := c.Stats()
	require.Equal(t, uint64(1), st.JobsFailed)
	require.Equal(t, uint64(1), st.JobPodFailures, "the pod the failed Job deleted is no failure of its own")
	require.InDelta(t, 2400, st.LostPodSeconds, 1e-9, "20 minutes of each pod's work thrown away")
	require.Equal(t, "exceeded backoffLimit 0 after 1 pod failures (1 evicted)", c.FailedJobs()[0].Reason)
}

func TestIgnoredDisruptionsDoNotFailJobs(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "j", Pod: spec, Parallelism: 1, Completions: 1,
		BackoffLimit: 0, IgnoreDisruptions: true, Runtime: dist.Fixed{D: time.Hour}, TwinOf: -1})
	eng.Run(time.Second)
	for range 3 {
		cl.DeletePod(cluster.PodID(len(cl.Pods)-1), cluster.CauseEvicted)
		eng.Run(eng.Now() + time.Second)
	}
	require.Len(t, cl.Pods, 4, "replaced at once every time")
	require.Equal(t, uint64(0), c.Stats().JobsFailed)
}

func TestPoissonDailyCycle(t *testing.T) {
	spec := &cluster.PodSpec{}
	// Thinning: over ten days at 60/h with amplitude 0.8 peaking at noon,
	// the six hours around noon see far more arrivals than those around
	// midnight (expected ratio (1+0.8 cos) integrated: about 5.9).
	eng2 := engine.New(3)
	cl2 := cluster.New(eng2, cluster.NewSymbols(), cluster.NewResourceNames())
	New(eng2, cl2, []Spec{{Kind: Job, Namespace: "b", Name: "j", Pod: spec, Parallelism: 1, Completions: 1, Runtime: dist.Fixed{D: time.Second},
		Arrivals: Arrivals{Poisson: &Poisson{RatePerHour: 60, Until: 240 * time.Hour, Amplitude: 0.8, PeakAt: 12 * time.Hour}}, TwinOf: -1}})
	eng2.Run(240 * time.Hour)
	var noon, night int
	for _, p := range cl2.Pods {
		h := (p.Created % (24 * time.Hour)) / time.Hour
		switch {
		case h >= 9 && h < 15:
			noon++
		case h >= 21 || h < 3:
			night++
		}
	}
	require.Greater(t, float64(noon)/float64(night), 4.0)
	require.Less(t, float64(noon)/float64(night), 8.0)
}

// A CapacityBuffer's scalableRef to a Job reads its template and
// parallelism (the Cluster Autoscaler's job resolver), once the Job
// exists.
func TestScaleOfJob(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, _, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "etl", Pod: spec, Parallelism: 3, Completions: 6,
		Runtime: dist.Fixed{D: time.Hour}, Arrivals: Arrivals{Times: []time.Duration{time.Minute}}, TwinOf: -1})
	_, _, ok := c.ScaleOf("batch", "Job", "etl")
	require.False(t, ok, "no Job before its arrival")
	eng.Run(2 * time.Minute)
	got, n, ok := c.ScaleOf("batch", "Job", "etl")
	require.True(t, ok)
	require.Same(t, spec, got)
	require.Equal(t, int32(3), n)
	_, _, ok = c.ScaleOf("other", "Job", "etl")
	require.False(t, ok)
}

func TestJobFailsAtItsActiveDeadline(t *testing.T) {
	// activeDeadlineSeconds 600 on a Job whose pods need an hour: at 10
	// minutes after its arrival it fails and its running pods go.
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "j", Pod: spec, Parallelism: 2, Completions: 4,
		BackoffLimit: 6, ActiveDeadline: 10 * time.Minute, Runtime: dist.Fixed{D: time.Hour}, TwinOf: -1})
	var alloc cluster.Resources
	alloc[cluster.Pods] = 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	eng.Run(time.Second)
	for i := range cl.Pods {
		cl.Bind(cluster.PodID(i), n)
		cl.StartPod(cluster.PodID(i))
	}
	eng.Run(10*time.Minute - time.Second)
	require.Empty(t, c.FailedJobs(), "not yet")
	eng.Run(time.Hour)
	require.Len(t, cl.Pods, 2, "a failed Job makes no more pods")
	for i := range cl.Pods {
		require.Equal(t, cluster.CauseJobFailed, cl.Pods[i].Cause)
		require.Equal(t, engine.Time(10*time.Minute), cl.Pods[i].Ended)
	}
	failed := c.FailedJobs()
	require.Len(t, failed, 1)
	require.Equal(t, engine.Time(10*time.Minute), failed[0].At)
	require.Equal(t, "exceeded activeDeadlineSeconds 600 with 0 of 4 completions", failed[0].Reason)
	st := c.Stats()
	require.Equal(t, uint64(1), st.JobsFailed)
	require.Equal(t, uint64(0), st.JobPodFailures)
	require.InDelta(t, 2*(600-1), st.LostPodSeconds, 1e-9, "both pods ran from 1s to 10m")
}
