package simulation_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// caBufferScenario: Deployment my-namespace/my-deployment (1 cpu pods)
// steps from 30 to 33 replicas at 1h on an eksctl node group of
// m5.xlarge the Cluster Autoscaler scales; flags are its extra
// arguments. The CapacityBuffer is Story 1 of the Cluster Autoscaler's
// buffers proposal (kubernetes-sigs/cluster-autoscaler
// pkg/proposals/buffers.md), its typos fixed (apiversion, the colon
// after scalableRef): 10% of the Deployment's replicas, at least 1.
func caBufferScenario(flags ...string) string {
	args := ""
	for _, f := range flags {
		args += "      - " + f + "\n"
	}
	return `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: ca-buffer}
spec:
  seed: 1
  duration: 3h
  region: us-east-1
  zones: [us-east-1a, us-east-1b, us-east-1c]
  clusterAutoscaler:
    args:
      - --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled
` + args + `  workloads:
    - ref: Deployment/my-namespace/my-deployment
      replicas: [{at: 0s, count: 30}, {at: 1h, count: 33}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: my-deployment, namespace: my-namespace}
spec:
  replicas: 30
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - {name: web, image: example.com/web:1.0, resources: {requests: {cpu: "1", memory: 2Gi}}}
---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - name: web
    instanceType: m5.xlarge
    minSize: 1
    maxSize: 40
    desiredCapacity: 1
    tags: {k8s.io/cluster-autoscaler/enabled: "true"}
---
apiversion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata:
  name: my-deployment-buffer
  namespace: my-namespace
spec:
  scalableRef:
    apiGroup: apps
    kind: Deployment
    name: my-deployment
  percentage: 10
  replicas: 1
`
}

// runCABuffer runs a scenario and counts the 1 cpu / 2Gi pods that would
// still fit in the nodes' free room at the end, and the longest wait of
// the pods created from 1h on (the step's).
func runCABuffer(t *testing.T, doc string) (*scenario.Scenario, *report.Report, int64, time.Duration) {
	t.Helper()
	sc, err := scenario.LoadManifests("ca-buffer.yaml", []byte(strings.Replace(doc, "apiversion:", "apiVersion:", 1)), nil)
	require.NoError(t, err)
	var room int64
	var step time.Duration
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		room = freeChunks(cl, 1000, 2<<30)
		for i := range cl.Pods {
			if p := &cl.Pods[i]; p.Created >= time.Hour {
				require.True(t, p.Phase.OnNode(), "pod %s", p.Name)
				step = max(step, p.BoundAt-p.Created)
			}
		}
	}})
	require.NoError(t, err)
	return sc, rep, room, step
}

// freeChunks counts the pods of cpu millicores and mem bytes that fit in
// the live nodes' free room.
func freeChunks(cl *cluster.Cluster, cpu, mem int64) int64 {
	var n int64
	for i := range cl.Nodes {
		nd := &cl.Nodes[i]
		if nd.State == cluster.NodeGone {
			continue
		}
		free := nd.Allocatable.Sub(nd.Requested)
		n += min(free[cluster.CPU]/cpu, free[cluster.Memory]/mem)
	}
	return n
}

// With both flags the buffer controller resolves the buffer to 3 pods of
// the Deployment (10% of 30), the pod list processor injects them, and
// the Cluster Autoscaler scales the group up for them and keeps the room
// through scale-down; the 3 pods of the step at 1h bind at once into it,
// and the next loops scale up again to restore it (4 pods now). Either flag alone
// keeps nothing (a warning says so), and the step waits for a node.
func TestCABufferProposalStory1(t *testing.T) {
	scOn, on, roomOn, stepOn := runCABuffer(t, caBufferScenario("--capacity-buffer-controller-enabled=true", "--capacity-buffer-pod-injection-enabled=true"))
	scCtl, ctl, roomCtl, stepCtl := runCABuffer(t, caBufferScenario("--capacity-buffer-controller-enabled=true"))
	scOff, off, roomOff, stepOff := runCABuffer(t, caBufferScenario())
	require.Empty(t, warningsWith(scOn, "ineffective.ca-buffer-flags-off"))
	require.Len(t, warningsWith(scCtl, "ineffective.ca-buffer-no-injection"), 1)
	require.Len(t, warningsWith(scOff, "ineffective.ca-buffer-flags-off"), 1)
	require.Empty(t, warningsWith(scOn, "karpenter.buffer-no-karpenter"), "the Cluster Autoscaler reads the buffer")

	// The buffer's fake pods are no pods of the run.
	require.Equal(t, off.Pods.Total, on.Pods.Total)
	t.Logf("room at the end: %d with the buffer, %d controller only, %d without; the step waited %s / %s / %s; launched %d / %d",
		roomOn, roomCtl, roomOff, stepOn, stepCtl, stepOff, on.Nodes.Launched, off.Nodes.Launched)
	// After the step the buffer is 10% of 33, rounded up: 4 pods.
	require.GreaterOrEqual(t, roomOn, int64(4), "the buffer's room is restored after the step")
	require.Zero(t, on.Nodes.Terminated, "the nodes holding the buffer's room are kept from scale-down")
	require.Less(t, roomOff, int64(3))
	require.Equal(t, roomOff, roomCtl, "the controller alone keeps nothing")
	require.Equal(t, off.Pods.PendingSeconds.P50, ctl.Pods.PendingSeconds.P50)
	require.Less(t, stepOn, 5*time.Second, "the step's pods bind into the buffer's room at once")
	require.Greater(t, stepOff, 30*time.Second, "without the buffer the step waits for a node")
	require.Equal(t, stepOff, stepCtl)
	require.Greater(t, on.Nodes.Launched, off.Nodes.Launched, "nodes for the buffer, then for its restoring")
	require.Greater(t, on.Cost.TotalUSD, off.Cost.TotalUSD, "the headroom costs")
}

// story2 is Story 2 of the buffers proposal (pkg/proposals/buffers.md):
// a PodTemplate of one 8 cpu container and a buffer of as many chunks as
// fit in its limits, on a node group of m5.4xlarge (one chunk per node)
// that starts empty. limits are the buffer's limits lines; the proposal
// writes "mem: 5120Mi" and "cpi: 40" (typos of memory and cpu); its
// nodeSelector, a GKE compute class misplaced under resources, is left
// out, as is the typo apiversion.
func story2(limits string) string {
	return `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: ca-buffer-template}
spec:
  seed: 1
  duration: 1h
  region: us-east-1
  zones: [us-east-1a, us-east-1b, us-east-1c]
  clusterAutoscaler:
    args: [--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled, --capacity-buffer-controller-enabled, --capacity-buffer-pod-injection-enabled]
---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: big, instanceType: m5.4xlarge, minSize: 0, maxSize: 10, desiredCapacity: 0, tags: {k8s.io/cluster-autoscaler/enabled: "true"}}
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: my-custom-template
  namespace: my-namespace
template:
  spec:
    containers:
    - name: cpu-buffer-container
      resources:
        requests:
          cpu: "8"
        limits:
          cpu: "8"
---
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata:
  name: testing-capacity
  namespace: my-namespace
spec:
  limits:
` + limits + `  podTemplateRef:
    name: my-custom-template
`
}

// The buffer controller sizes the buffer by its limits: 40 cpu of 8 cpu
// chunks is 5 (memory, which the pod does not request, limits nothing),
// and the Cluster Autoscaler scales the empty group up from zero to hold
// them, one per node. The proposal's limits as written name no resource
// the pod requests: the controller marks the buffer not ready
// (getBufferNumberOfPods) and nothing is kept.
func TestCABufferProposalStory2(t *testing.T) {
	run := func(limits string) (*report.Report, int64) {
		sc, err := scenario.LoadManifests("story2.yaml", []byte(story2(limits)), nil)
		require.NoError(t, err)
		var room int64
		rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) { room = freeChunks(cl, 8000, 1) }})
		require.NoError(t, err)
		return rep, room
	}
	rep, room := run("    memory: 5120Mi\n    cpu: 40\n")
	require.Equal(t, 5, rep.Nodes.Launched)
	require.Equal(t, int64(5), room)
	rep, room = run("    mem: 5120Mi\n    cpi: 40\n")
	require.Zero(t, rep.Nodes.Launched)
	require.Zero(t, room)
}

// Karpenter (gate on) and the Cluster Autoscaler (both flags) read the
// same buffer (Karpenter's design example, bufferScenario): an info line
// says each provisions for it. Each places the buffer's pods in every
// node's free room, so the room one keeps serves the other: the run ends
// with room for the buffer's 5 pods, not twice that.
func TestCABufferWithKarpenterToo(t *testing.T) {
	doc := bufferScenario("capacityBuffer: true")
	doc = strings.Replace(doc, "  karpenter: {featureGates: {capacityBuffer: true}}\n", `  karpenter: {featureGates: {capacityBuffer: true}}
  clusterAutoscaler:
    args: [--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled, --capacity-buffer-controller-enabled, --capacity-buffer-pod-injection-enabled]
`, 1) + `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: web, instanceType: m5.xlarge, minSize: 1, maxSize: 20, desiredCapacity: 1, tags: {k8s.io/cluster-autoscaler/enabled: "true"}}
`
	sc, err := scenario.LoadManifests("both.yaml", []byte(doc), nil)
	require.NoError(t, err)
	require.Len(t, warningsWith(sc, "ca.buffer-both-autoscalers"), 1)
	var room int64
	_, err = simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) { room = freeChunks(cl, 1000, 2<<30) }})
	require.NoError(t, err)
	t.Logf("room for %d web-app pods at the end", room)
	require.GreaterOrEqual(t, room, int64(5))
	require.Less(t, room, int64(10))
}
