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
		Replicas: []Step{{0, 3}, {time.Minute, 1}}})
	eng.Run(time.Second)
	require.Equal(t, []string{"db-0", "db-1", "db-2"}, livePods(cl))
	eng.Run(2 * time.Minute)
	require.Equal(t, []string{"db-0"}, livePods(cl), "the highest ordinals go first")
}

func TestScaleDownDeletesPendingFirst(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, _ := setup(t, Spec{Kind: Deployment, Namespace: "default", Name: "web", Pod: spec,
		Replicas: []Step{{0, 3}, {time.Minute, 2}}})
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
	eng, cl, c := setup(t, Spec{Kind: Deployment, Namespace: "default", Name: "web", Pod: spec, Replicas: []Step{{0, 2}}})
	eng.Run(time.Second)
	cl.DeletePod(0, cluster.CauseEvicted)
	eng.Run(2 * time.Second)
	require.Len(t, livePods(cl), 2)
	require.Equal(t, uint64(1), c.Stats().PodsReplaced)
}

func TestJobArrivalsMakeNamedInstances(t *testing.T) {
	spec := &cluster.PodSpec{}
	eng, cl, c := setup(t, Spec{Kind: Job, Namespace: "batch", Name: "etl", Pod: spec, Parallelism: 2, Completions: 2,
		Runtime: dist.Fixed{D: time.Minute}, Arrivals: Arrivals{Times: []time.Duration{0, time.Hour}}})
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
