package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/kubeexport"
	"github.com/clustersim/clustersim/sim/scenario"
)

// A CapacityBuffer exported as kubectl get capacitybuffers -o yaml writes
// it (status from the buffer controller) is kept without its status, and
// the imported scenario gives it to Karpenter.
func TestImportKeepsCapacityBuffers(t *testing.T) {
	objects := `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    amiSelectorTerms: [{alias: al2023@latest}]
    role: KarpenterNodeRole-prod
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
- apiVersion: autoscaling.x-k8s.io/v1beta1
  kind: CapacityBuffer
  metadata: {name: web-headroom, namespace: default, uid: 8d1f0c2e-0000-4000-8000-000000000003, generation: 1}
  spec:
    provisioningStrategy: buffer.x-k8s.io/active-capacity
    scalableRef: {apiGroup: apps, kind: Deployment, name: web}
    percentage: 20
  status:
    replicas: 1
    provisioningStrategy: buffer.x-k8s.io/active-capacity
    conditions: [{type: ReadyForProvisioning, status: "True", reason: Resolved, message: "Pod template resolved successfully", lastTransitionTime: "2026-11-20T09:00:00Z"}]
`
	var in bytes.Buffer
	require.NoError(t, kubeexport.Cluster{Nodes: 1, Deployments: 1, Replicas: 1}.Write(&in))
	im := New(Options{}, nil)
	require.NoError(t, im.Add("cluster.yaml", &in))
	require.NoError(t, im.Add("karpenter.yaml", strings.NewReader(objects)))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	s := out.String()
	require.Contains(t, s, "kind: CapacityBuffer")
	require.Contains(t, s, "percentage: 20")
	require.NotContains(t, s, "lastTransitionTime")
	sc, err := scenario.LoadManifests("imported.yaml", out.Bytes(), nil)
	require.NoError(t, err)
	cfg := karpenter.ConfigIn(sc.Components)
	require.NotNil(t, cfg)
	require.Len(t, cfg.CapacityBuffers, 1)
	b := cfg.CapacityBuffers[0]
	require.Equal(t, "web-headroom", b.Name)
	require.Equal(t, "web", b.ScalableName)
	require.Equal(t, int32(20), *b.Percentage)
}
