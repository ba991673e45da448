package importer

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
)

// A Node exported with an unhealthy condition node repair acts on
// (Ready=Unknown after its kubelet stopped posting, the node monitoring
// agent's AcceleratedHardwareReady=False) starts unhealthy, its condition
// held since its lastTransitionTime (before the export: the toleration
// counts from there), Ready=Unknown with the node lifecycle controller's
// unreachable NoExecute taint. A Ready node stays healthy. Conditions as
// `kubectl get node -o yaml` prints them (k8s.io/api core/v1
// NodeCondition; the agent's types from the EKS node monitoring agent
// docs, which the AWS provider's RepairPolicies name).
func TestUnhealthyNodes(t *testing.T) {
	node := func(name, conds string) string {
		return `- apiVersion: v1
  kind: Node
  metadata:
    labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, topology.kubernetes.io/region: us-east-1, karpenter.sh/nodepool: default}
    name: ` + name + `
    creationTimestamp: "2026-11-30T08:00:00Z"
  status:
    allocatable: {cpu: 1930m, memory: 7134Mi, pods: "29"}
    conditions:
` + conds
	}
	export := "apiVersion: v1\nkind: List\nitems:\n" +
		node("ok", `    - {type: Ready, status: "True", reason: KubeletReady, lastHeartbeatTime: "2026-11-30T12:00:00Z", lastTransitionTime: "2026-11-30T08:01:30Z"}
`) +
		node("lost", `    - {type: Ready, status: Unknown, reason: NodeStatusUnknown, lastHeartbeatTime: "2026-11-30T11:20:00Z", lastTransitionTime: "2026-11-30T11:20:40Z"}
`) +
		node("gpu", `    - {type: AcceleratedHardwareReady, status: "False", reason: NvidiaXID79, lastHeartbeatTime: "2026-11-30T12:00:00Z", lastTransitionTime: "2026-11-30T11:55:00Z"}
    - {type: Ready, status: "True", reason: KubeletReady, lastHeartbeatTime: "2026-11-30T12:00:00Z", lastTransitionTime: "2026-11-30T08:01:30Z"}
`)
	out, im := importFile(t, "prod.yaml", strings.NewReader(export), Options{})
	require.Contains(t, notices(im), `prod.yaml:14: Node/lost: Ready was Unknown at the export (NodeStatusUnknown): simulated as unhealthy from its lastTransitionTime`)
	require.Contains(t, notices(im), `prod.yaml:24: Node/gpu: AcceleratedHardwareReady was False at the export (NvidiaXID79): simulated as unhealthy from its lastTransitionTime`)
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	byName := map[string]cluster.Node{}
	for _, n := range sc.Nodes {
		byName[n.Name] = n
	}
	require.Len(t, byName, 3)
	require.Equal(t, cluster.Healthy, byName["ok"].Condition)
	require.Empty(t, byName["ok"].Taints)
	lost := byName["lost"]
	require.Equal(t, cluster.ReadyUnknown, lost.Condition)
	require.Equal(t, -(39*time.Minute + 20*time.Second), lost.ConditionSince, "since 11:20:40, the export at 12:00:00")
	require.Len(t, lost.Taints, 1)
	require.Equal(t, cluster.TaintUnreachable, sc.Syms.Name(lost.Taints[0].Key))
	require.Equal(t, cluster.EffectNoExecute, lost.Taints[0].Effect)
	gpu := byName["gpu"]
	require.Equal(t, cluster.AcceleratedHardwareNotReady, gpu.Condition)
	require.Equal(t, -5*time.Minute, gpu.ConditionSince)
	require.Empty(t, gpu.Taints, "the agent's conditions taint nothing")
}
