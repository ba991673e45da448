package simulation

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
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
` + fixtures.GeneralPurposeNodePool + `      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
` + limits + "\n" + fixtures.EC2NodeClassDemo +
		fixtures.Node("ip-10-0-1-17.ec2.internal", "m5.2xlarge", "us-east-1a", "2026-11-30T08:00:00Z", m52xlarge,
			withLabels(generalPurposeNodeLabels, "karpenter.sh/initialized", `"true"`)) +
		fixtures.Node("ip-10-0-2-4.ec2.internal", "m5.2xlarge", "us-east-1b", "", m52xlarge, generalPurposeNodeLabels) +
		fixtures.WebDeployment(1, "250m", "256Mi")
}

// m52xlarge is the allocatable of an m5.2xlarge node.
const m52xlarge = `{cpu: 7910m, memory: 30612Mi, pods: "58"}`

// generalPurposeNodeLabels are the labels besides instance type and zone
// of a node Karpenter made for the NodePool general-purpose.
var generalPurposeNodeLabels = map[string]string{
	"karpenter.sh/nodepool":         "general-purpose",
	"karpenter.sh/capacity-type":    "on-demand",
	"topology.kubernetes.io/region": "us-east-1",
	"kubernetes.io/arch":            "amd64",
	"kubernetes.io/os":              "linux",
}

// withLabels is labels and key: value.
func withLabels(labels map[string]string, key, value string) map[string]string {
	out := maps.Clone(labels)
	out[key] = value
	return out
}

func loadAdopt(t *testing.T, doc string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
	require.NoError(t, err)
	return sc
}

// infoMsgs are the messages of sc's notes (the warnings that are Info).
func infoMsgs(sc *scenario.Scenario) []string {
	var infos []string
	for _, w := range sc.Warnings {
		if w.Info {
			infos = append(infos, w.Msg)
		}
	}
	return infos
}

// Karpenter adopts the imported nodes of its NodePool: the empty one is
// removed and the underused one replaced by a cheaper node, which a static
// start node would never be.
func TestKarpenterConsolidatesAdoptedNodes(t *testing.T) {
	sc := loadAdopt(t, adoptScenario(""))
	require.Contains(t, infoMsgs(sc), "NodePool general-purpose adopts the 2 start node(s) labelled with its name as its NodeClaims (ip-10-0-1-17.ec2.internal, ip-10-0-2-4.ec2.internal): Karpenter may consolidate, expire and drift them, and they count toward its limits")
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(0))
	for i := range s.Cluster().Nodes {
		n := &s.Cluster().Nodes[i]
		require.Equal(t, cluster.RegisterOwner("karpenter"), n.Owner, n.Name)
		require.NotZero(t, n.Instance, "%s has an instance in the market", n.Name)
		view, ok := s.karpenter().NodeClaim(cluster.NodeID(i))
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
	ks := s.karpenter().Stats()
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
	require.Equal(t, int64(0), s.karpenter().Stats().NodeClaimsLaunched, "the limit is used up by the adopted nodes")
}

// caScenario is an imported cluster with an eksctl managed node group
// (from scenarios/hybrid/eksctl-cluster.yaml, itself eksctl's
// managedNodeGroups example reduced) and its nodes as kubectl shows them
// (the labels EKS sets), desiredCapacity their number as sim import
// writes it. extra is appended (workloads).
func caScenario(nodes int, extra string) string {
	doc := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: adopted-ca}
spec:
  duration: 2h
  podStartDelay: 0s
  zones: [us-east-1a, us-east-1b]
  clusterAutoscaler:
    args:
      - --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo
---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - name: core
    instanceType: m5.large
    minSize: 1
    maxSize: 3
    desiredCapacity: ` + fmt.Sprint(nodes) + `
    tags:
      k8s.io/cluster-autoscaler/enabled: "true"
      k8s.io/cluster-autoscaler/demo: owned
`
	for i := range nodes {
		zone := []string{"us-east-1a", "us-east-1b"}[i%2]
		doc += fmt.Sprintf(`---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-%d-10.ec2.internal
  labels:
    eks.amazonaws.com/nodegroup: core
    eks.amazonaws.com/capacityType: ON_DEMAND
    alpha.eksctl.io/nodegroup-name: core
    node.kubernetes.io/instance-type: m5.large
    topology.kubernetes.io/zone: %s
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
status:
  allocatable: {cpu: 1930m, memory: 7131Mi, pods: "29"}
`, i, zone)
	}
	return doc + extra
}

// Empty imported nodes of a node group are scaled in down to its minSize
// (a static start node never is), and count as start nodes, not launches.
func TestClusterAutoscalerScalesInAdoptedNodes(t *testing.T) {
	sc := loadAdopt(t, caScenario(3, ""))
	require.Contains(t, infoMsgs(sc), "node group core adopts the 3 start node(s) labelled with its name as its instances (ip-10-0-0-10.ec2.internal, ip-10-0-1-10.ec2.internal, ip-10-0-2-10.ec2.internal): they count in its size and toward maxSize, and the Cluster Autoscaler may scale them in")
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(0))
	require.Len(t, s.Cluster().Nodes, 3, "desiredCapacity is made up by the adopted nodes: nothing is launched")
	require.NoError(t, s.RunUntil(engine.Time(sc.Duration)))
	r := s.Report()
	require.Equal(t, 3, r.Nodes.Initial)
	require.Equal(t, 0, r.Nodes.Launched)
	st := s.clusterAutoscaler().Stats()
	require.Equal(t, 2, st.NodesRemoved, "scaled in to minSize 1")
	require.Equal(t, 3, st.NodeGroups[0].NodesAdopted)
	// Billed from the start at m5.large's $0.096/h: three nodes until the
	// scale-in, one after.
	require.Greater(t, r.Cost.TotalUSD, 2*0.096)
	require.Less(t, r.Cost.TotalUSD, 3*2*0.096)
}

// The adopted nodes count toward maxSize: a group at its maxSize of 3
// adopted nodes launches nothing for pods that do not fit.
func TestAdoptedNodesCountTowardMaxSize(t *testing.T) {
	sc := loadAdopt(t, caScenario(3, fixtures.WebDeployment(8, "1", "1Gi")))
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(engine.Time(30*60e9)))
	require.Equal(t, 0, s.clusterAutoscaler().Stats().NodesAdded, "the group is at maxSize")
	require.Len(t, s.Cluster().Nodes, 3)
}

// A node the group launches is not named as an adopted one (a dumped and
// imported cluster's nodes are named as the simulator names them).
func TestLaunchedNodesSkipAdoptedNames(t *testing.T) {
	doc := strings.ReplaceAll(caScenario(1, fixtures.WebDeployment(2, "1", "1Gi")), "ip-10-0-0-10.ec2.internal", "core-1")
	s, err := Start(loadAdopt(t, doc), Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(engine.Time(30*60e9)))
	var names []string
	for i := range s.Cluster().Nodes {
		names = append(names, s.Cluster().Nodes[i].Name)
	}
	require.Equal(t, []string{"core-1", "core-2"}, names)
}
