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

// An EKS Auto Mode cluster's export (kubectl get nodepools,nodeclasses
// -o yaml): the built-in general-purpose NodePool as EKS writes it and
// its default NodeClass (the fields of create-node-class.adoc's
// specification, with EKS's defaults) are kept, the role, subnets,
// security groups and tags left out, and the imported scenario runs
// them as Auto Mode pools.
func TestImportKeepsAutoModeNodeClass(t *testing.T) {
	objects := `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: general-purpose, uid: 8d1f0c2e-0000-4000-8000-000000000011, resourceVersion: "4242"}
  spec:
    disruption:
      budgets: [{nodes: 10%}]
      consolidateAfter: 30s
      consolidationPolicy: WhenEmptyOrUnderutilized
    template:
      metadata: {}
      spec:
        expireAfter: 336h
        nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
        requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: eks.amazonaws.com/instance-category, operator: In, values: [c, m, r]}
        - {key: eks.amazonaws.com/instance-generation, operator: Gt, values: ["4"]}
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        terminationGracePeriod: 24h0m0s
- apiVersion: eks.amazonaws.com/v1
  kind: NodeClass
  metadata: {name: default, uid: 8d1f0c2e-0000-4000-8000-000000000012}
  spec:
    role: AmazonEKSAutoNodeRole
    subnetSelectorTerms: [{id: subnet-0123456789abcdef0}]
    securityGroupSelectorTerms: [{id: sg-0123456789abcdef0}]
    snatPolicy: Random
    networkPolicy: DefaultAllow
    networkPolicyEventLogs: Disabled
    ephemeralStorage: {size: 80Gi, iops: 3000, throughput: 125, kmsKeyID: "arn:aws:kms:us-east-1:111122223333:key/abcd"}
    tags: {Team: platform}
  status:
    conditions: [{type: Ready, status: "True", reason: Ready, message: "", lastTransitionTime: "2026-11-20T09:00:00Z"}]
`
	var in bytes.Buffer
	require.NoError(t, kubeexport.Cluster{Nodes: 1, Deployments: 1, Replicas: 1}.Write(&in))
	im := New(Options{}, nil)
	require.NoError(t, im.Add("cluster.yaml", &in))
	require.NoError(t, im.Add("automode.yaml", strings.NewReader(objects)))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	s := out.String()
	require.Contains(t, s, "kind: NodeClass")
	require.Contains(t, s, "size: 80Gi")
	for _, gone := range []string{"kmsKeyID", "subnet-0123456789abcdef0", "AmazonEKSAutoNodeRole", "Team: platform", "lastTransitionTime"} {
		require.NotContains(t, s, gone)
	}
	sc, err := scenario.LoadManifests("imported.yaml", out.Bytes(), nil)
	require.NoError(t, err)
	cfg := karpenter.ConfigIn(sc.Components)
	require.NotNil(t, cfg)
	require.Len(t, cfg.NodePools, 1)
	p := cfg.NodePools[0]
	require.Equal(t, "general-purpose", p.Name)
	require.True(t, p.NodeClass.AutoMode)
	require.Equal(t, int64(80), p.NodeClass.RootVolumeGiB)
}
