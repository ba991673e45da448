package simulation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// terminatingScenario is an imported cluster whose only node still runs
// a pod of web that was terminating at the export with 25s of its grace
// period left; web's replacement (replicas: 1) does not fit beside it.
const terminatingScenario = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: terminating}
spec:
  duration: 1m
  podStartDelay: 0s
  workloads:
    - ref: Deployment/default/web
      startTerminating: [{node: ip-10-0-1-17.ec2.internal, for: 25s}]
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-17.ec2.internal
  labels:
    node.kubernetes.io/instance-type: m5.large
    topology.kubernetes.io/zone: us-east-1a
    kubernetes.io/os: linux
status:
  allocatable: {cpu: 1930m, memory: 7220Mi, pods: "29"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          resources: {requests: {cpu: "1", memory: 256Mi}}
`

// A pod terminating at the start holds its room on its node for the grace
// period left, and its replacement is created at once: pending until the
// terminating pod is gone at 25s, then bound.
func TestStartTerminatingPodsHoldTheirRoom(t *testing.T) {
	sc := loadAdopt(t, terminatingScenario)
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(engine.Time(10*time.Second)))
	cl := s.Cluster()
	require.Len(t, cl.Pods, 2, "the terminating pod and its replacement")
	old, repl := &cl.Pods[0], &cl.Pods[1]
	require.Equal(t, "web-terminating-1", old.Name)
	require.True(t, old.Terminating)
	require.Equal(t, "ip-10-0-1-17.ec2.internal", cl.Nodes[old.Node].Name)
	require.Equal(t, cluster.Pending, repl.Phase, "no room beside the terminating pod")
	require.NoError(t, s.RunUntil(engine.Time(30*time.Second)))
	old, repl = &cl.Pods[0], &cl.Pods[1]
	require.Equal(t, cluster.Deleted, old.Phase)
	require.True(t, repl.Phase.OnNode(), "the replacement takes the room once the old pod is gone")
}
