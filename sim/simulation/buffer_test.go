package simulation_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// bufferScenario: Deployment production/web-app (1 cpu pods) steps from
// 4 to 9 replicas at 1h, on one Karpenter on-demand NodePool; gates are
// the Karpenter gates line. The CapacityBuffer is the User Experience
// example of Karpenter's design (kubernetes-sigs/karpenter v1.15.0
// designs/capacity-buffers.md), verbatim: capacity for 5 more web-app
// pods.
func bufferScenario(gates string) string {
	return `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: buffer}
spec:
  seed: 1
  duration: 3h
  region: us-east-1
  zones: [us-east-1a, us-east-1b, us-east-1c]
  karpenter: {featureGates: {` + gates + `}}
  workloads:
    - ref: Deployment/production/web-app
      replicas: [{at: 0s, count: 4}, {at: 1h, count: 9}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-app, namespace: production}
spec:
  replicas: 4
  selector: {matchLabels: {app: web-app}}
  template:
    metadata: {labels: {app: web-app}}
    spec:
      containers:
        - {name: web, image: example.com/web:1.0, resources: {requests: {cpu: "1", memory: 2Gi}}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
---
` + fixtures.EC2NodeClassDemo + `---
# User creates a CapacityBuffer resource
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata:
  name: web-app-buffer
  namespace: production
spec:
  # Reference existing workload to derive capacity requirements
  scalableRef:
    apiGroup: apps
    kind: Deployment
    name: web-app
  replicas: 5  # Maintain capacity for 5 additional replicas
`
}

// runBuffer runs bufferScenario and counts the web-app pods (1 cpu, 2Gi)
// that would still fit in the nodes' free room at the end.
func runBuffer(t *testing.T, gates string) (*scenario.Scenario, *report.Report, int64) {
	t.Helper()
	sc, err := scenario.LoadManifests("buffer.yaml", []byte(bufferScenario(gates)), nil)
	require.NoError(t, err)
	var room int64
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		for i := range cl.Nodes {
			n := &cl.Nodes[i]
			if n.State == cluster.NodeGone {
				continue
			}
			free := n.Allocatable.Sub(n.Requested)
			room += min(free[cluster.CPU]/1000, free[cluster.Memory]/(2<<30))
		}
	}})
	require.NoError(t, err)
	return sc, rep, room
}

func warningsWith(sc *scenario.Scenario, code string) []string {
	var out []string
	for _, w := range sc.Warnings {
		if w.Code == code {
			out = append(out, w.Msg)
		}
	}
	return out
}

// With the gate on, Karpenter keeps room for 5 more web-app pods: the 5
// pods of the step at 1h bind at once, where without the buffer they wait
// for a node. The buffer's virtual pods are no pods of the run.
func TestCapacityBufferDesignExample(t *testing.T) {
	scOn, on, roomOn := runBuffer(t, "capacityBuffer: true")
	scOff, off, roomOff := runBuffer(t, "capacityBuffer: false")
	require.Len(t, warningsWith(scOn, "karpenter.buffer-version"), 1, "v1alpha1 is read with a warning")
	require.Empty(t, warningsWith(scOn, "karpenter.gate-off"))
	gateOff := warningsWith(scOff, "karpenter.gate-off")
	require.Len(t, gateOff, 1)
	require.True(t, strings.Contains(gateOff[0], "CapacityBuffer feature gate"), gateOff[0])

	require.Equal(t, 9, on.Pods.Total, "virtual pods are not pods of the run")
	require.Zero(t, on.Pods.Stranded)
	require.Zero(t, on.Pods.PendingAtEnd)
	t.Logf("pending p50/p99/max: on %.1f/%.1f/%.1f s, off %.1f/%.1f/%.1f s; cost on %.3f off %.3f USD",
		on.Pods.PendingSeconds.P50, on.Pods.PendingSeconds.P99, on.Pods.PendingSeconds.Max,
		off.Pods.PendingSeconds.P50, off.Pods.PendingSeconds.P99, off.Pods.PendingSeconds.Max, on.Cost.TotalUSD, off.Cost.TotalUSD)
	// 9 pods: the first 4 wait for the first node in both runs; the
	// median is a pod of the step.
	require.Less(t, on.Pods.PendingSeconds.P50, 5.0, "the step's pods land on the buffer's room at once")
	require.Greater(t, off.Pods.PendingSeconds.P50, 20.0, "without the buffer the step waits for a node")
	require.Greater(t, on.Cost.TotalUSD, off.Cost.TotalUSD, "the headroom costs")
	// The step took the buffer's room; the next reconcile refilled it,
	// and consolidation kept it for the 2 hours after.
	t.Logf("room for %d more pods at the end with the buffer, %d without; launched %d / %d", roomOn, roomOff, on.Nodes.Launched, off.Nodes.Launched)
	require.GreaterOrEqual(t, roomOn, int64(5))
	require.Less(t, roomOff, int64(5))
	require.Greater(t, on.Nodes.Launched, off.Nodes.Launched)
}

// A buffer in a cluster without Karpenter NodePools nor node groups
// keeps nothing, and a warning says so.
func TestCapacityBufferWithoutKarpenter(t *testing.T) {
	doc := bufferScenario("capacityBuffer: true")
	start := strings.Index(doc, "apiVersion: karpenter.sh/v1\nkind: NodePool")
	end := strings.Index(doc, "# User creates")
	doc = doc[:start] + doc[end:]
	doc = strings.Replace(doc, "  karpenter: {featureGates: {capacityBuffer: true}}\n", "", 1)
	sc, err := scenario.LoadManifests("buffer.yaml", []byte(doc), nil)
	require.NoError(t, err)
	w := warningsWith(sc, "karpenter.buffer-no-karpenter")
	require.Len(t, w, 1)
	require.Contains(t, w[0], "neither a NodePool nor an eksctl node group")
}

// Settings that cannot do what their author expects are findings at
// the buffer: a strategy Karpenter does not read, a scalableRef kind the
// controller cannot resolve, a buffer of 0 chunks.
func TestCapacityBufferFindings(t *testing.T) {
	extra := `---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: standby, namespace: production}
spec:
  provisioningStrategy: buffer.x-k8s.io/standby-capacity
  scalableRef: {apiGroup: apps, kind: Deployment, name: web-app}
  replicas: 1
---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: by-job, namespace: production}
spec:
  scalableRef: {apiGroup: batch, kind: Job, name: nightly}
  replicas: 2
---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: none, namespace: production}
spec:
  scalableRef: {apiGroup: apps, kind: Deployment, name: web-app}
`
	sc, err := scenario.LoadManifests("buffer.yaml", []byte(bufferScenario("capacityBuffer: true")+extra), nil)
	require.NoError(t, err)
	strategy := warningsWith(sc, "karpenter.buffer-strategy")
	require.Len(t, strategy, 1)
	require.Contains(t, strategy[0], `provisioningStrategy "buffer.x-k8s.io/standby-capacity" is not read by Karpenter v1.15`)
	unres := warningsWith(sc, "ineffective.buffer-unresolvable")
	require.Len(t, unres, 1)
	require.Contains(t, unres[0], `unsupported scalableRef API group "batch"`)
	empty := warningsWith(sc, "ineffective.buffer-empty")
	require.Len(t, empty, 1)
	require.Contains(t, empty[0], "production/none")
}

// Example 4 of Karpenter's design (KC designs/capacity-buffers.md,
// v1.15.0; its tab indentation written as spaces, which YAML requires): a
// PodTemplate buffer sized by its limits alone, 20 cpu / 2 cpu and 40Gi /
// 4Gi: 10 chunks. With no pod at all, Karpenter keeps nodes with room
// for them, for the whole run.
func TestCapacityBufferPodTemplateLimits(t *testing.T) {
	example := `apiVersion: v1
kind: PodTemplate
metadata:
  name: worker-template
  namespace: workers
template:
  spec:
    containers:
    - name: worker
      image: worker:latest
      resources:
        requests:
          cpu: "2"
          memory: "4Gi"
---
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata:
  name: worker-buffer
  namespace: workers
spec:
  provisioningStrategy: "buffer.x-k8s.io/active-capacity"
  podTemplateRef:
    name: worker-template
  limits:
    cpu: "20"
    memory: "40Gi"
`
	doc := bufferScenario("capacityBuffer: true")
	doc = doc[:strings.Index(doc, "# User creates")] + example
	doc = strings.Replace(doc, "  workloads:\n    - ref: Deployment/production/web-app\n      replicas: [{at: 0s, count: 4}, {at: 1h, count: 9}]\n", "", 1)
	doc = strings.Replace(doc, "  replicas: 4\n", "  replicas: 0\n", 1)
	sc, err := scenario.LoadManifests("buffer.yaml", []byte(doc), nil)
	require.NoError(t, err)
	require.Empty(t, warningsWith(sc, "ineffective.buffer-ref-missing"), "the PodTemplate is found")
	var freeCPU int64
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		for i := range cl.Nodes {
			if n := &cl.Nodes[i]; n.State != cluster.NodeGone {
				freeCPU += n.Allocatable[cluster.CPU]
			}
		}
	}})
	if ie, ok := err.(*simulation.InternalError); ok {
		t.Log(ie.Stack)
	}
	require.NoError(t, err)
	require.Zero(t, rep.Pods.Total, "the buffer's pods are virtual")
	require.GreaterOrEqual(t, freeCPU, int64(20000), "room for 10 chunks of 2 cpu at the end")
	require.Less(t, freeCPU, int64(40000), "and not much more")
	require.Positive(t, rep.Cost.TotalUSD, "the headroom is paid for")
	t.Logf("nodes launched %d, terminated %d, room %d mcpu, cost %.3f USD", rep.Nodes.Launched, rep.Nodes.Terminated, freeCPU, rep.Cost.TotalUSD)
	require.Zero(t, rep.Nodes.Terminated, "emptiness leaves nodes with buffer pods alone (KC HasBufferPods)")
}

// A reference to an object the scenario does not have (here a
// Deployment in another namespace: references are namespace-local) is a
// finding: upstream's controller reports ScalableRefNotFound and keeps
// nothing, and so does the run.
func TestCapacityBufferMissingRef(t *testing.T) {
	doc := strings.Replace(bufferScenario("capacityBuffer: true"), "  namespace: production\nspec:\n  # Reference", "  namespace: staging\nspec:\n  # Reference", 1)
	sc, err := scenario.LoadManifests("buffer.yaml", []byte(doc), nil)
	require.NoError(t, err)
	w := warningsWith(sc, "ineffective.buffer-ref-missing")
	require.Len(t, w, 1)
	require.Contains(t, w[0], "Deployment staging/web-app is not in the scenario")
	// sim lint reports it as an ineffective setting.
	found := false
	for _, f := range lint.Check(sc).Findings {
		found = found || f.Kind == "ineffective-setting" && strings.Contains(f.Message, "staging/web-app is not in the scenario")
	}
	require.True(t, found, "a lint finding")
	rep, err := simulation.Run(sc, simulation.Options{Check: true})
	require.NoError(t, err)
	require.Greater(t, rep.Pods.PendingSeconds.P50, 20.0, "no room is kept: the step waits for nodes")
}
