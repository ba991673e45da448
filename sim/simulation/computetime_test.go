package simulation

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// computeBurst is 2,000 pods at once for Karpenter's general-purpose
// style NodePool.
const computeBurst = `---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gp}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2000
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]
---
` + fixtures.EC2NodeClassAL2023 + "  role: r\n"

// spec.computeTime (default true) makes the scheduler and Karpenter
// take time for a burst, reported as their busy time; false makes them
// instantaneous.
func TestComputeTimeSwitch(t *testing.T) {
	section := func(raw any) map[string]any {
		b, err := json.Marshal(raw)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	on := runYAML(t, header+computeBurst)
	off := runYAML(t, header+"  computeTime: false\n"+computeBurst)
	require.Equal(t, 2000, on.Pods.Scheduled)
	require.Equal(t, 2000, off.Pods.Scheduled)

	require.Zero(t, off.Scheduler.BusySeconds)
	require.Zero(t, off.Scheduler.MaxWaitSeconds)
	require.Greater(t, on.Scheduler.BusySeconds, 1.0, "2,000 pods at a millisecond or more each, failed cycles too")
	require.Greater(t, on.Scheduler.MaxWaitSeconds, 0.0)

	kon, ok := on.Figures("karpenter")
	require.True(t, ok)
	koff, _ := off.Figures("karpenter")
	require.Zero(t, section(koff)["busySeconds"])
	require.Greater(t, section(kon)["busySeconds"].(float64), 0.5, "solves of 2,000 pods take time")

	require.Greater(t, on.Pods.PendingSeconds.P99, off.Pods.PendingSeconds.P99, "the burst waits for the controllers")
}
