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

// A NodeOverlay exported as kubectl get nodeoverlays -o yaml writes it
// (its status and server fields dropped) is kept, and the imported
// scenario runs Karpenter with it.
func TestImportKeepsNodeOverlays(t *testing.T) {
	karpenterObjects := `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default, uid: 8d1f0c2e-0000-4000-8000-000000000001, resourceVersion: "4242"}
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
- apiVersion: karpenter.sh/v1alpha1
  kind: NodeOverlay
  metadata:
    name: savings-plan-m7i
    uid: 8d1f0c2e-0000-4000-8000-000000000002
    generation: 1
    managedFields: [{manager: kubectl, operation: Apply}]
  spec:
    weight: 10
    requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m7i]}]
    priceAdjustment: "-28%"
  status:
    conditions: [{type: Ready, status: "True", reason: Ready, message: "", lastTransitionTime: "2026-11-20T09:00:00Z"}]
`
	var in bytes.Buffer
	require.NoError(t, kubeexport.Cluster{Nodes: 1, Deployments: 1, Replicas: 1}.Write(&in))
	im := New(Options{}, nil)
	require.NoError(t, im.Add("cluster.yaml", &in))
	require.NoError(t, im.Add("karpenter.yaml", strings.NewReader(karpenterObjects)))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	s := out.String()
	require.Contains(t, s, "kind: NodeOverlay")
	require.Contains(t, s, `priceAdjustment: -28%`)
	require.NotContains(t, s, "managedFields")
	require.NotContains(t, s, "lastTransitionTime")
	sc, err := scenario.LoadManifests("imported.yaml", out.Bytes(), nil)
	require.NoError(t, err)
	cfg := karpenter.ConfigIn(sc.Components)
	require.NotNil(t, cfg)
	require.Len(t, cfg.NodeOverlays, 1)
	require.Equal(t, "savings-plan-m7i", cfg.NodeOverlays[0].Name)
	require.InDelta(t, 0.72, cfg.NodeOverlays[0].Price.Apply(1), 1e-9)
}
