package simulation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// ageScenario is an imported cluster exported at 2026-12-01T12:00:00Z
// (spec.importedAt) with a NodePool that expires nodes after 720h and two
// of its nodes: old, created 700h before the export, and fresh, 1h
// before. Each runs one pod, so neither is empty.
const ageScenario = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: aged}
spec:
  duration: 24h
  podStartDelay: 0s
  importedAt: "2026-12-01T12:00:00Z"
  zones: [us-east-1a, us-east-1b]
  workloads:
    - ref: Deployment/default/web
      startOn: [old, fresh]
---
# from aws/karpenter-provider-aws examples/v1/general-purpose.yaml (reduced, with expireAfter)
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 720h
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole-demo
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
---
# Nodes as the API server returns them for Karpenter nodes (reduced)
apiVersion: v1
kind: Node
metadata:
  name: old
  creationTimestamp: "2026-11-02T08:00:00Z"
  labels:
    karpenter.sh/nodepool: general-purpose
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: m5.large
    topology.kubernetes.io/zone: us-east-1a
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
status:
  allocatable: {cpu: 1930m, memory: 7220Mi, pods: "29"}
---
apiVersion: v1
kind: Node
metadata:
  name: fresh
  creationTimestamp: "2026-12-01T11:00:00Z"
  labels:
    karpenter.sh/nodepool: general-purpose
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: m5.large
    topology.kubernetes.io/zone: us-east-1b
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
status:
  allocatable: {cpu: 1930m, memory: 7220Mi, pods: "29"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          resources: {requests: {cpu: 250m, memory: 256Mi}}
`

// An adopted node's expireAfter counts from its creationTimestamp: the
// node 700h old at the export expires about 20h into a 720h expireAfter,
// the 1h-old one does not.
func TestAdoptedNodesExpireByTheirAge(t *testing.T) {
	sc := loadAdopt(t, ageScenario)
	require.Equal(t, 700*time.Hour, sc.Nodes[0].AgeAtStart)
	require.Equal(t, time.Hour, sc.Nodes[1].AgeAtStart)
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(engine.Time(20*time.Hour-time.Minute)))
	require.Zero(t, s.kp.Stats().Disruptions.Expired, "nothing expires before 20h")
	require.NoError(t, s.RunUntil(engine.Time(21*time.Hour)))
	require.Equal(t, int64(1), s.kp.Stats().Disruptions.Expired, "the 700h-old node expires at 20h")
	for i := range s.Cluster().Nodes {
		n := &s.Cluster().Nodes[i]
		switch n.Name {
		case "old":
			require.Equal(t, cluster.NodeGone, n.State)
		case "fresh":
			require.NotEqual(t, cluster.NodeGone, n.State)
		}
	}
}
