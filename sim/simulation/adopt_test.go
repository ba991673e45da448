package simulation

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/scenario"
)

// adoptScenario is an imported cluster reduced to the essentials: a
// NodePool and two Nodes it made (as kubectl get nodes -o yaml shows
// them: the labels Karpenter sets), one running one small pod, the other
// empty. limits is the NodePool's spec.limits line (or "").
func adoptScenario(limits string) string {
	return `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: adopted}
spec:
  duration: 2h
  podStartDelay: 0s
  zones: [us-east-1a, us-east-1b]
  workloads:
    - ref: Deployment/default/web
      startOn: [ip-10-0-1-17.ec2.internal]
---
# from aws/karpenter-provider-aws examples/v1/general-purpose.yaml (reduced)
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
` + limits + `
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
# a Node as the API server returns it for a Karpenter node (reduced)
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-17.ec2.internal
  creationTimestamp: "2026-11-30T08:00:00Z"
  labels:
    karpenter.sh/nodepool: general-purpose
    karpenter.sh/capacity-type: on-demand
    karpenter.sh/initialized: "true"
    node.kubernetes.io/instance-type: m5.2xlarge
    topology.kubernetes.io/zone: us-east-1a
    topology.kubernetes.io/region: us-east-1
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
spec:
  providerID: aws:///us-east-1a/i-0a1b2c3d4e5f60001
status:
  allocatable: {cpu: 7910m, memory: 30612Mi, pods: "58"}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-2-4.ec2.internal
  labels:
    karpenter.sh/nodepool: general-purpose
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: m5.2xlarge
    topology.kubernetes.io/zone: us-east-1b
    topology.kubernetes.io/region: us-east-1
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
spec:
  providerID: aws:///us-east-1b/i-0a1b2c3d4e5f60002
status:
  allocatable: {cpu: 7910m, memory: 30612Mi, pods: "58"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          resources: {requests: {cpu: 250m, memory: 256Mi}}
`
}

func loadAdopt(t *testing.T, doc string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
	require.NoError(t, err)
	return sc
}

// Karpenter adopts the imported nodes of its NodePool: the empty one is
// removed and the underused one replaced by a cheaper node, which a static
// start node would never be.
func TestKarpenterConsolidatesAdoptedNodes(t *testing.T) {
	sc := loadAdopt(t, adoptScenario(""))
	var infos []string
	for _, w := range sc.Warnings {
		if w.Info {
			infos = append(infos, w.Msg)
		}
	}
	require.Contains(t, infos, "NodePool general-purpose adopts the 2 start node(s) labelled with its name as its NodeClaims (ip-10-0-1-17.ec2.internal, ip-10-0-2-4.ec2.internal): Karpenter may consolidate, expire and drift them, and they count toward its limits")
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(0))
	for i := range s.Cluster().Nodes {
		n := &s.Cluster().Nodes[i]
		require.Equal(t, cluster.OwnedByKarpenter, n.Owner, n.Name)
		require.NotZero(t, n.Instance, "%s has an instance in the market", n.Name)
		view, ok := s.kp.NodeClaim(cluster.NodeID(i))
		require.True(t, ok)
		require.True(t, view.Initialized)
	}
	require.NoError(t, s.RunUntil(engine.Time(sc.Duration)))
	r := s.Report()
	require.Equal(t, 2, r.Nodes.Initial, "adopted nodes are start nodes, not launches")
	var live []string
	for i := range s.Cluster().Nodes {
		if n := &s.Cluster().Nodes[i]; n.State != cluster.NodeGone {
			live = append(live, n.InstanceType)
		}
	}
	require.Len(t, live, 1, "the empty node is gone and the other replaced")
	require.NotEqual(t, "m5.2xlarge", live[0], "the underused m5.2xlarge is replaced by a smaller type")
	ks := s.kp.Stats()
	require.Equal(t, int64(2), ks.NodeClaimsAdopted)
	require.Equal(t, int64(1), ks.Disruptions.Empty)
	require.Equal(t, int64(1), ks.Disruptions.Underutilized)
	// Billing starts at the adopted nodes' on-demand price ($0.384/h for
	// an m5.2xlarge in the embedded data) and ends when they go: less than
	// two of them for the whole run.
	require.Greater(t, r.Cost.TotalUSD, 0.0)
	require.Less(t, r.Cost.TotalUSD, 2*2*0.384)
}

// The adopted nodes count toward the NodePool's limits: with a cpu limit
// of 16 its two m5.2xlarge (8 vCPUs each) use it all, so a pod that fits
// on neither stays pending, with no launch.
func TestAdoptedNodesCountTowardLimits(t *testing.T) {
	doc := adoptScenario("  limits: {cpu: \"16\"}") + `---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers:
    - name: big
      image: busybox
      resources: {requests: {cpu: "10"}}
`
	sc := loadAdopt(t, doc)
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(engine.Time(10*60e9)))
	require.Equal(t, int64(0), s.kp.Stats().NodeClaimsLaunched, "the limit is used up by the adopted nodes")
}
