package invariants

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

type poke struct{ fn func() }

func (p poke) HandleEvent(engine.Event) { p.fn() }

func setup(t *testing.T) (*engine.Engine, *cluster.Cluster, *Checker, cluster.NodeID, cluster.PodID) {
	eng := engine.New(7)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	c := New(eng, cl)
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Pods] = 1000, 10
	n := cl.AddNode(cluster.Node{Name: "n", Allocatable: alloc, State: cluster.NodeReady})
	spec, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Spec: &corev1.PodSpec{Containers: []corev1.Container{{
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}})
	require.NoError(t, err)
	p := cl.CreatePod(cluster.Pod{Name: "p", Spec: spec, Workload: -1})
	return eng, cl, c, n, p
}

func TestCleanRunPasses(t *testing.T) {
	eng, cl, c, n, p := setup(t)
	h := eng.Register(poke{func() { cl.Bind(p, n) }})
	eng.Schedule(time.Second, engine.Event{Handler: h})
	eng.Run(time.Minute)
	require.NoError(t, c.Err())
	require.NoError(t, c.Final())
}

func TestViolationsStopTheRun(t *testing.T) {
	eng, cl, c, n, p := setup(t)
	// A model bug: a pod bound behind the cluster's back.
	h := eng.Register(poke{func() {
		cl.Bind(p, n)
		cl.Nodes[n].Requested[cluster.CPU] += 700
		cl.SetCordon(n, true) // a change that touches the node
	}})
	later := eng.Register(poke{func() { t.Fatal("the run must stop at the violation") }})
	eng.Schedule(time.Second, engine.Event{Handler: h, Kind: 3})
	eng.Schedule(2*time.Second, engine.Event{Handler: later})
	eng.Run(time.Minute)
	require.EqualError(t, c.Err(), "invariant violated at t=1s after event handler=1 kind=3 obj=0 (seed 7): node n: requested [1200 0 0 1 0 0 0 0] differs from its pods' sum [500 0 0 1 0 0 0 0]")

	// A pod deleted without a cause is caught at the end.
	eng2, cl2, c2, _, p2 := setup(t)
	cl2.Pods[p2].Phase = cluster.Deleted
	eng2.Run(time.Second)
	require.ErrorContains(t, c2.Final(), "pod /p was deleted without a cause")
}
