package scheduling_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// The EKS user guide's sample Auto Mode NodePool (create-node-pool.adoc,
// zones moved to us-east-1) launches exactly the instance types of the
// same pool written with karpenter.k8s.aws keys and an EC2NodeClass; its
// nodes hold at most 110 pods and the NodeClass's 160Gi of ephemeral
// storage (create-node-class.adoc), or their NVMe instance stores, and a pod selecting
// eks.amazonaws.com/compute-type: auto gets a NodeClaim from it only.
func TestAutoModeSamplePoolNarrowsAsKarpenter(t *testing.T) {
	auto := `apiVersion: karpenter.sh/v1
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
---
`
	oss := strings.NewReplacer("name: my-node-pool", "name: oss", "eks.amazonaws.com/instance-", "karpenter.k8s.aws/instance-",
		"group: eks.amazonaws.com", "group: karpenter.k8s.aws", "kind: NodeClass", "kind: EC2NodeClass", "name: private-compute", "name: default").Replace(
		auto[:strings.Index(auto, "---\napiVersion: eks")])
	w := newWorld(t)
	sc := w.scheduler(auto + oss)
	typeNames := func(pool string) []string {
		var out []string
		for _, pt := range sc.Pools.ByName[pool].Types {
			out = append(out, pt.Type.Name)
		}
		return out
	}
	autoTypes := typeNames("my-node-pool")
	require.NotEmpty(t, autoTypes)
	require.Equal(t, typeNames("oss"), autoTypes)
	require.Contains(t, autoTypes, "m5.8xlarge")
	require.NotContains(t, autoTypes, "m5.large") // 2 vCPUs

	for _, pt := range sc.Pools.ByName["my-node-pool"].Types {
		require.LessOrEqual(t, pt.Allocatable[cluster.Pods], int64(110), pt.Type.Name)
		it, _ := w.cat.Lookup(pt.Type.Name)
		if it.LocalNVMeGB == 0 {
			require.Equal(t, int64(160)*catalog.GiB, pt.Capacity[cluster.Ephemeral], pt.Type.Name)
		} else { // Auto Mode puts ephemeral storage on its NVMe stores (RAID0)
			require.Equal(t, it.LocalNVMeGB*1e9, pt.Capacity[cluster.Ephemeral], pt.Type.Name)
		}
	}
	m5 := sc.Pools.ByName["my-node-pool"].Types[slices.IndexFunc(sc.Pools.ByName["my-node-pool"].Types, func(pt scheduling.PoolType) bool { return pt.Type.Name == "m5.8xlarge" })]
	require.Equal(t, int64(110), m5.Allocatable[cluster.Pods], "m5.8xlarge's ENIs allow 234 pods; Auto Mode caps them at 110")
	ossM5 := sc.Pools.ByName["oss"].Types[slices.IndexFunc(sc.Pools.ByName["oss"].Types, func(pt scheduling.PoolType) bool { return pt.Type.Name == "m5.8xlarge" })]
	require.Equal(t, int64(234), ossM5.Allocatable[cluster.Pods])

	pods := w.pending(3, "1", "1Gi", map[string]string{"eks.amazonaws.com/compute-type": "auto"})
	res := sc.Solve(pods)
	require.Empty(t, res.Unschedulable)
	require.Len(t, res.NodeClaims, 1)
	require.Equal(t, "my-node-pool", res.NodeClaims[0].NodePool)
	require.Equal(t, []string{"us-east-1a", "us-east-1b"}, res.NodeClaims[0].Zones)

	// A pod selecting an eks.amazonaws.com instance label: Auto Mode's
	// Karpenter knows it and narrows by it; a self-managed pool does not
	// (the key is neither well known nor its own), so only the Auto Mode
	// pool can take the pod.
	m6g := w.pending(1, "1", "1Gi", map[string]string{"eks.amazonaws.com/instance-family": "m6g"})
	res = sc.Solve(m6g)
	require.Empty(t, res.Unschedulable)
	require.Len(t, res.NodeClaims, 1)
	require.Equal(t, "my-node-pool", res.NodeClaims[0].NodePool)
	for _, it := range res.NodeClaims[0].InstanceTypes {
		require.True(t, strings.HasPrefix(it, "m6g."), it)
	}
	w2 := newWorld(t)
	ossOnly := w2.scheduler(oss)
	res = ossOnly.Solve(w2.pending(1, "1", "1Gi", map[string]string{"eks.amazonaws.com/instance-family": "m6g"}))
	require.Len(t, res.Unschedulable, 1)
	require.Empty(t, res.NodeClaims)

	// In a self-managed pool, a requirement on an eks.amazonaws.com key
	// narrows nothing (apis warns so): the pool has the types it has
	// without it.
	w3 := newWorld(t)
	narrowed := w3.scheduler(pool("a", "1", onDemand+"        - {key: eks.amazonaws.com/instance-family, operator: In, values: [m6g]}\n") + pool("b", "1", onDemand))
	var a, b []string
	for _, pt := range narrowed.Pools.ByName["a"].Types {
		a = append(a, pt.Type.Name)
	}
	for _, pt := range narrowed.Pools.ByName["b"].Types {
		b = append(b, pt.Type.Name)
	}
	require.Equal(t, b, a)
}
