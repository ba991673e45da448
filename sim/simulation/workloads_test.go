package simulation

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDaemonSetRunsOnMatchingNodes(t *testing.T) {
	r := runYAML(t, header+`  staticNodes:
    - {name: a, instanceType: m5.large, count: 2}
    - {name: t, instanceType: m5.large, count: 1, taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: logs, namespace: kube-system}
spec:
  selector: {matchLabels: {app: logs}}
  template:
    metadata: {labels: {app: logs}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
`)
	require.Equal(t, 2, r.Pods.Total, "one pod per untainted node; the tainted one is not tolerated")
	require.Equal(t, 2, r.Pods.Scheduled)
	require.InDelta(t, 0.0, r.Pods.PendingSeconds.Max, 0.01, "only the scheduler's cycles")
}

const tainted = `  staticNodes:
    - {name: spot, instanceType: c5.xlarge, count: 1, capacityType: spot, taints: [{key: capacity-type, value: spot, effect: NoSchedule}]}
    - {name: od, instanceType: c5.xlarge, count: 1, taints: [{key: capacity-type, value: on-demand, effect: NoSchedule}]}
`

const spotJob = `---
apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  parallelism: 6
  completions: 6
  template:
    spec:
      restartPolicy: Never
      tolerations: [{key: capacity-type, value: spot, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`

func TestResubmitFallsBackToOnDemand(t *testing.T) {
	// The spot node holds 3 of the 6 pods; without a fallback the rest
	// wait 30 minutes.
	base := runYAML(t, header+tainted+`  workloads: [{ref: Job/batch, runtime: {fixed: 30m}}]
`+spotJob)
	require.InDelta(t, 1800.0, base.Pods.PendingSeconds.Max, 0.01) // and the scheduler's cycles
	require.Equal(t, 3, base.Pods.Stranded)

	// A job-queue controller resubmits pods pending for 5 minutes with
	// the on-demand toleration: they land on the on-demand node.
	r := runYAML(t, header+tainted+`  workloads:
    - ref: Job/batch
      runtime: {fixed: 30m}
      resubmit:
        after: 5m
        tolerations: [{key: capacity-type, value: on-demand, effect: NoSchedule}]
`+spotJob)
	require.Equal(t, 9, r.Pods.Total, "three pods resubmitted")
	require.Equal(t, 6, r.Pods.Succeeded)
	require.Equal(t, 0, r.Pods.Stranded)
	require.Equal(t, 300.0, r.Pods.PendingSeconds.Max, "the resubmitted originals waited their 5 minutes")
}

func TestSplitTwins(t *testing.T) {
	r := runYAML(t, header+`  staticNodes: [{name: a, instanceType: m5.4xlarge, count: 1}]
  workloads:
    - {ref: Deployment/web, replicas: [{at: 0s, count: 10}], split: {ref: Deployment/web-od, share: 0.3}}
`+deployment+`---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-od}
spec:
  selector: {matchLabels: {app: web-od}}
  template:
    metadata: {labels: {app: web-od}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 100m, memory: 100Mi}}}]
`)
	require.Len(t, r.Workloads, 2)
	require.Equal(t, 7, r.Workloads[0].Pods)
	require.Equal(t, 3, r.Workloads[1].Pods)
}

func TestDailyAndHPAReplicas(t *testing.T) {
	day := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 1d
  podStartDelay: 0s
  staticNodes: [{name: a, instanceType: m5.24xlarge, count: 1}]
`
	r := runYAML(t, day+`  workloads: [{ref: Deployment/web, daily: {min: 2, max: 10, peakAt: 12h, every: 1h}}]
`+deployment)
	// Up from 2 at midnight to 10 at noon and back: 8 pods added on the
	// way up, 8 deleted on the way down, plus the first 2.
	require.Equal(t, 10, r.Pods.Total)
	require.Equal(t, 8, r.Pods.Deleted)

	hpa := runYAML(t, day+`  workloads:
    - ref: Deployment/web
      hpa: {minReplicas: 1, maxReplicas: 50, targetCPUUtilizationPercentage: 50, loadCores: {min: 0.5, max: 2, peakAt: 12h}}
`+deployment)
	// 100m pods at 50%: 2 cores need 40 replicas at the peak, 0.5 need 10.
	require.GreaterOrEqual(t, hpa.Pods.Total, 40)
	require.Less(t, hpa.Pods.Total, 80)
}
