package apis

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/manifest"
)

// From the EKS user guide, latest/ug/automode/create-node-pool.adoc
// ("Sample NodePool") and create-node-class.adoc ("Basic Node Class
// Example", renamed from private-compute only in the pool's reference),
// github.com/awsdocs/amazon-eks-user-guide.
const eksDocsNodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: my-node-pool
spec:
  template:
    metadata:
      labels:
        billing-team: my-team
    spec:
      nodeClassRef:
        group: eks.amazonaws.com
        kind: NodeClass
        name: private-compute

      requirements:
        - key: "eks.amazonaws.com/instance-category"
          operator: In
          values: ["c", "m", "r"]
        - key: "eks.amazonaws.com/instance-cpu"
          operator: In
          values: ["4", "8", "16", "32"]
        - key: "topology.kubernetes.io/zone"
          operator: In
          values: ["us-east-1a", "us-east-1b"]
        - key: "kubernetes.io/arch"
          operator: In
          values: ["arm64", "amd64"]

  limits:
    cpu: "1000"
    memory: 1000Gi
---
apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: private-compute
spec:
  ephemeralStorage:
    size: "160Gi"
`

func compileAuto(t *testing.T, yaml string, am *AutoMode) (Result, *cluster.Symbols, error) {
	t.Helper()
	docs, err := manifest.ReadBytes("auto.yaml", []byte(yaml))
	require.NoError(t, err)
	cat, err := catalog.Default()
	require.NoError(t, err)
	syms := cluster.NewSymbols()
	res, err := Compile(docs, Env{Syms: syms, Resources: cluster.NewResourceNames(), Catalog: cat, Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}, AutoMode: am})
	return res, syms, err
}

func reqKeys(syms *cluster.Symbols, p NodePool) []string {
	var out []string
	for _, r := range p.Requirements {
		out = append(out, syms.Name(r.Key))
	}
	return out
}

// The docs' NodePool and NodeClass: eks.amazonaws.com/instance-* narrow
// as their karpenter.k8s.aws counterparts (the key they compile to), the
// node class's ephemeral storage is read, Auto Mode's defaults apply.
func TestAutoModeDocsNodePool(t *testing.T) {
	res, syms, err := compileAuto(t, eksDocsNodePool, nil)
	require.NoError(t, err)
	require.Empty(t, warningTexts(res))
	require.Len(t, res.NodePools, 1)
	p := res.NodePools[0]
	require.Equal(t, []string{LabelInstanceCategory, LabelInstanceCPU, LabelZone, LabelArch}, reqKeys(syms, p))
	require.Equal(t, NodeClassRef{Group: GroupEKS, Kind: KindNodeClass, Name: "private-compute"}, p.NodeClassRef)
	require.True(t, p.NodeClass.AutoMode)
	require.Equal(t, int64(160), p.NodeClass.RootVolumeGiB)
	require.Equal(t, AMIFamilyBottlerocket, p.NodeClass.AMIFamily)
	require.True(t, p.NodeClass.InstanceStoreRAID0)
	require.Equal(t, 336*time.Hour, p.ExpireAfter)
	require.Equal(t, 24*time.Hour, p.TerminationGracePeriod)
	v, ok := p.Labels.Get(syms.Intern(LabelComputeType))
	require.True(t, ok)
	require.Equal(t, "auto", syms.Name(v))
}

// Built-in pools: both by default with the default NodeClass, as the EKS
// guide describes them; a user's NodePool named like one is replaced.
func TestAutoModeBuiltinPools(t *testing.T) {
	scen, err := manifest.ReadBytes("scenario.yaml", []byte("apiVersion: clustersim.io/v1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  karpenter:\n    autoMode: {}\n"))
	require.NoError(t, err)
	am := &AutoMode{NodePools: []string{BuiltinGeneralPurpose, BuiltinSystem}, Doc: scen[0], Path: "spec.karpenter.autoMode"}
	user := strings.Replace(eksDocsNodePool, "my-node-pool", "system", 1)
	res, syms, err := compileAuto(t, user, am)
	require.NoError(t, err)
	require.Equal(t, []string{"auto.yaml:4: metadata.name: system is an EKS Auto Mode built-in NodePool, enabled at scenario.yaml:6 (spec.karpenter.autoMode): EKS owns it and restores its spec, so this one is ignored and the built-in pool is simulated (disable the built-in pool or rename this one)"},
		warningTexts(res))
	require.Len(t, res.NodePools, 2)
	gp, sys := res.NodePools[0], res.NodePools[1]
	require.Equal(t, BuiltinGeneralPurpose, gp.Name)
	require.Equal(t, BuiltinSystem, sys.Name)
	for _, p := range []NodePool{gp, sys} {
		require.Equal(t, []string{LabelCapacityType, LabelInstanceCategory, LabelInstanceGen, LabelArch}, reqKeys(syms, p), p.Name)
		require.Equal(t, "default", p.NodeClass.Name)
		require.True(t, p.NodeClass.AutoMode)
		require.Equal(t, int64(80), p.NodeClass.RootVolumeGiB)
		require.Equal(t, 30*time.Second, p.Disruption.ConsolidateAfter)
		require.Equal(t, 336*time.Hour, p.ExpireAfter)
		gen := p.Requirements[2]
		require.Equal(t, cluster.OpGt, gen.Op)
		require.Equal(t, int64(4), gen.Num)
	}
	require.Empty(t, gp.Taints)
	require.Len(t, sys.Taints, 1)
	require.Equal(t, "CriticalAddonsOnly", syms.Name(sys.Taints[0].Key))
	require.Equal(t, []string{"amd64"}, names(syms, gp.Requirements[3].Values))
	require.Equal(t, []string{"amd64", "arm64"}, names(syms, sys.Requirements[3].Values))

	// Only system enabled.
	am.NodePools = []string{BuiltinSystem}
	res, _, err = compileAuto(t, "", am)
	require.NoError(t, err)
	require.Len(t, res.NodePools, 1)
	require.Equal(t, BuiltinSystem, res.NodePools[0].Name)
}

// Errors at their field: karpenter.k8s.aws keys in an Auto Mode pool
// (its instance types carry eks.amazonaws.com labels), a NodeClass's
// out-of-range storage, unknown policies, restricted tags. Warnings: an
// eks.amazonaws.com key in a pool of an EC2NodeClass, kubernetes.io/os
// in an Auto Mode pool, DefaultDeny.
func TestAutoModeRules(t *testing.T) {
	bad := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: a
spec:
  template:
    spec:
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: nc}
      requirements:
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
      - {key: kubernetes.io/os, operator: In, values: [linux]}
---
apiVersion: eks.amazonaws.com/v1
kind: NodeClass
metadata:
  name: nc
spec:
  snatPolicy: Sometimes
  networkPolicy: DefaultDeny
  ephemeralStorage: {size: 70Ti, iops: 100, throughput: 125}
  tags: {eks.amazonaws.com/nodeclass: x}
`
	res, _, err := compileAuto(t, bad, nil)
	require.Error(t, err)
	require.Equal(t, []string{
		"auto.yaml:10: spec.template.spec.requirements[0].key: EKS Auto Mode's instance types have no karpenter.k8s.aws/instance-family label (Auto Mode labels instances eks.amazonaws.com/...): this requirement would narrow nothing; write eks.amazonaws.com/instance-family",
		"auto.yaml:18: spec.snatPolicy: \"Sometimes\" is not one of Random, Disabled; use Random or Disabled",
		"auto.yaml:20: spec.ephemeralStorage.size: size 70Ti is out of range; give a size from 1Gi to 59000Gi, e.g. 80Gi",
		"auto.yaml:20: spec.ephemeralStorage.iops: iops 100 is out of range; give 3000 to 16000",
		"auto.yaml:21: spec.tags[\"eks.amazonaws.com/nodeclass\"]: tag eks.amazonaws.com/nodeclass is restricted; remove it: EKS sets it itself",
	}, errorLines(err))
	require.Contains(t, strings.Join(warningTexts(res), "\n"), "auto.yaml:11: spec.template.spec.requirements[1].key: EKS Auto Mode lists kubernetes.io/os among the labels it does not support")
	require.Contains(t, strings.Join(warningTexts(res), "\n"), "auto.yaml:19: spec.networkPolicy: network policies are not simulated")

	oss := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: a
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: eks.amazonaws.com/instance-family, operator: In, values: [m5]}
` + fixtures.EC2NodeClassDemo
	res, syms, err := compileAuto(t, oss, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"auto.yaml:10: spec.template.spec.requirements[0].key: requirement key eks.amazonaws.com/instance-family is an EKS Auto Mode label: self-managed Karpenter's instance types do not have it, so it does not narrow them and Karpenter only puts it on the node (write karpenter.k8s.aws/instance-family (eks.amazonaws.com labels are EKS Auto Mode's, for NodePools of an eks.amazonaws.com NodeClass))"},
		warningTexts(res))
	require.Equal(t, []string{"eks.amazonaws.com/instance-family"}, reqKeys(syms, res.NodePools[0]))
}

func errorLines(err error) []string {
	es, _ := manifest.AsErrors(err)
	var out []string
	for _, e := range es {
		out = append(out, e.Error())
	}
	return out
}

func names(syms *cluster.Symbols, vs []cluster.Sym) []string {
	var out []string
	for _, v := range vs {
		out = append(out, syms.Name(v))
	}
	return out
}
