package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// TestPodWaitsForVolumeToDetach: a pod bound to another node than the
// one its ReadWriteOnce EBS volume is attached to stays bound, not
// running (Multi-Attach), until the first pod leaves; then it starts and
// the wait is counted.
func TestPodWaitsForVolumeToDetach(t *testing.T) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	ns := cl.Syms.Intern("default")
	cl.SetStorage(&cluster.Storage{Default: 0, Classes: []cluster.StorageClass{{Name: "gp3", Zonal: true, Attach: true,
		Mode: cluster.WaitForFirstConsumer}}, Claims: []cluster.ClaimInput{{Namespace: ns, Name: "data"}}})
	New(eng, cl, time.Second)
	zone := cl.Syms.Intern("us-east-1a")
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Pods] = 4000, 110
	n1 := cl.AddNode(cluster.Node{Name: "n1", Zone: zone, Allocatable: alloc, State: cluster.NodeReady})
	n2 := cl.AddNode(cluster.Node{Name: "n2", Zone: zone, Allocatable: alloc, State: cluster.NodeReady})
	spec := &cluster.PodSpec{Claims: []cluster.ClaimRef{{Name: "data"}}}
	spec.Requests[cluster.Pods] = 1
	a := cl.CreatePod(cluster.Pod{Name: "a", Namespace: ns, Spec: spec, Workload: -1})
	cl.BindVolumes(a, n1)
	cl.Bind(a, n1)
	b := cl.CreatePod(cluster.Pod{Name: "b", Namespace: ns, Spec: spec, Workload: -1})
	cl.Bind(b, n2)
	eng.Run(10 * time.Second)
	require.Equal(t, cluster.Running, cl.Pods[a].Phase)
	require.Equal(t, cluster.Bound, cl.Pods[b].Phase, "Multi-Attach: waits for the volume")
	require.Equal(t, int32(1), cl.AttachedVolumes(n1))
	eng.Schedule(30*time.Second, engine.Event{Handler: eng.Register(handlerFunc(func() { cl.DeletePod(a, cluster.CauseEvicted) }))})
	eng.Run(40 * time.Second)
	require.Equal(t, cluster.Running, cl.Pods[b].Phase)
	require.Equal(t, 30*time.Second, cl.Pods[b].Started)
	require.Equal(t, int32(0), cl.AttachedVolumes(n1))
	require.Equal(t, int32(1), cl.AttachedVolumes(n2))
	st := cl.VolumeStats()
	require.Equal(t, 1, st.AttachWaits)
	require.Equal(t, 29*time.Second, st.AttachWaited, "from its start time (bound at 0s + 1s delay) to the detach at 30s")
}

type handlerFunc func()

func (f handlerFunc) HandleEvent(engine.Event) { f() }
