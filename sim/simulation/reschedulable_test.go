package simulation

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/scenario"
)

// How a pod came to its node does not decide whether Karpenter moves it:
// only a DaemonSet or its Node owning it does (KC pod.IsReschedulable).
// Each case puts pods of its own kind on an adopted node of a WhenEmpty
// NodePool; the node is not empty, so it stays, and no pod dies with it.
// Before the fix, pods placed through spec.nodeName (sim import's
// startOn, a bare Pod naming its node) were taken for DaemonSet pods: the
// node was deleted as empty at 75 s, undrained, and its pods with it.

// emptyPolicyScenario is one adopted m5.large of NodePool base
// (WhenEmpty, consolidateAfter 1m) and the documents given; workloads is
// the scenario's spec.workloads block ("" for none).
func emptyPolicyScenario(workloads, docs string) string {
	return `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: pinned}
spec:
  duration: 10m
  podStartDelay: 0s
  zones: [us-east-1a]
` + workloads + `---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: base}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m
` + fixtures.EC2NodeClassDemo +
		fixtures.M5LargeNode(pinnedNode, "us-east-1a", "2026-11-30T08:00:00Z", map[string]string{
			"karpenter.sh/nodepool":         "base",
			"karpenter.sh/capacity-type":    "on-demand",
			"karpenter.sh/initialized":      `"true"`,
			"topology.kubernetes.io/region": "us-east-1",
			"kubernetes.io/arch":            "amd64",
			"kubernetes.io/os":              "linux",
		}) + docs
}

const pinnedNode = "ip-10-0-1-17.ec2.internal"

// barePod is a bare Pod requesting cpu (and 512Mi); nodeName "" leaves
// it to the scheduler; meta is added under metadata.
func barePod(name, cpu, nodeName, meta, specExtra string) string {
	s := fmt.Sprintf("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: default\n%sspec:\n", name, meta)
	if nodeName != "" {
		s += "  nodeName: " + nodeName + "\n"
	}
	return s + specExtra + fmt.Sprintf("  containers: [{name: c, image: x, resources: {requests: {cpu: %q, memory: 512Mi}}}]\n", cpu)
}

// runPinned runs the scenario checked and returns the run.
func runPinned(t *testing.T, doc string) *Sim {
	t.Helper()
	sc := loadAdopt(t, doc)
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(sc.Duration))
	return s
}

// nodeGone counts the pods deleted because their node went away.
func nodeGone(cl *cluster.Cluster) int {
	n := 0
	for i := range cl.Pods {
		if p := &cl.Pods[i]; p.Phase == cluster.Deleted && p.Cause == cluster.CauseNodeGone {
			n++
		}
	}
	return n
}

// runningOn counts the pods running on the named node.
func runningOn(cl *cluster.Cluster, node string) int {
	n := 0
	for i := range cl.Pods {
		if p := &cl.Pods[i]; p.Phase == cluster.Running && cl.Nodes[p.Node].Name == node {
			n++
		}
	}
	return n
}

func TestPodsKeepTheirNodeHoweverTheyWereBound(t *testing.T) {
	web := fixtures.WebDeployment(2, "500m", "512Mi")
	cases := []struct {
		name      string
		workloads string
		docs      string
		running   int // pods running on the node at the end
	}{
		{"startOn", "  workloads:\n    - ref: Deployment/default/web\n      startOn: [" + pinnedNode + ", " + pinnedNode + "]\n", web, 2},
		{"scheduler", "", web, 2},
		{"spec.nodeName", "", barePod("a", "500m", pinnedNode, "", "") + barePod("b", "500m", pinnedNode, "", ""), 2},
		// A pod of priority 1000 arrives at 2m, preempts the filler that
		// fills the node, and binds there by its nomination.
		{"nominated", "  workloads:\n    - ref: Deployment/default/filler\n      startOn: [" + pinnedNode + "]\n    - ref: Pod/default/urgent\n      arrivals: {at: 2m}\n",
			`---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: filler, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: filler}}
  template:
    metadata: {labels: {app: filler}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 1500m, memory: 512Mi}}}]
` + barePod("urgent", "1500m", "", "", "  priorityClassName: high\n"), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := runPinned(t, emptyPolicyScenario(c.workloads, c.docs))
			cl := s.Cluster()
			require.Zero(t, nodeGone(cl), "no pod dies with its node")
			require.Equal(t, c.running, runningOn(cl, pinnedNode), "the pods still run on %s", pinnedNode)
			require.Zero(t, s.karpenter().Stats().Disruptions.Empty, "the node is not empty")
			if c.name == "nominated" {
				urgent := -1
				for i := range cl.Pods {
					if cl.Pods[i].Name == "urgent" {
						urgent = i
					}
				}
				require.GreaterOrEqual(t, urgent, 0)
				p := &cl.Pods[urgent]
				require.Equal(t, cluster.Running, p.Phase)
				require.Equal(t, pinnedNode, cl.Nodes[p.Node].Name, "urgent runs where it preempted")
				require.Positive(t, s.sched.Stats().Preemptions, "urgent got there by preemption")
			}
		})
	}
}

// A mirror pod (a static pod, owned by its Node) and a DaemonSet's pod do
// not keep a node from being empty, as upstream: Karpenter deletes the
// node at consolidateAfter and nothing is rescheduled.
func TestMirrorAndDaemonSetPodsLeaveANodeEmpty(t *testing.T) {
	mirror := barePod("kube-proxy-"+pinnedNode, "100m", pinnedNode,
		"  annotations: {kubernetes.io/config.mirror: static}\n  ownerReferences: [{apiVersion: v1, kind: Node, name: "+pinnedNode+", uid: u1, controller: true}]\n", "")
	ds := `---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
`
	s := runPinned(t, emptyPolicyScenario("", mirror+ds))
	require.Equal(t, int64(1), s.karpenter().Stats().Disruptions.Empty, "the node holds only a mirror and a DaemonSet pod: empty")
	for i := range s.Cluster().Nodes {
		require.Equal(t, cluster.NodeGone, s.Cluster().Nodes[i].State)
	}
}

// A bare Pod owned by a Node must name it in spec.nodeName.
func TestMirrorPodNeedsItsNode(t *testing.T) {
	mirror := barePod("static", "100m", "", "  ownerReferences: [{apiVersion: v1, kind: Node, name: n, uid: u1, controller: true}]\n", "")
	_, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(emptyPolicyScenario("", mirror))}}, "s.yaml")
	require.ErrorContains(t, err, "metadata.ownerReferences")
	require.ErrorContains(t, err, "give spec.nodeName")
}

// A public Karpenter test log (EKS 1.31, t3a.medium, consolidateAfter
// 10s; its scenario 3) shows podevents' 10 s dedupe: node-d-app deleted
// at 20:18:04 set lastPodEventTime to 20:18:05, and node-a-app deleted 6 s
// later left it there. The same timeline here: the node is empty at 126 s
// but consolidatable from 120 s + 10 s, so Karpenter's 10 s disruption
// poll decides at 130 s and, after 15 s of validation, 5 s of the drain's
// minimum and 5 s until the instance's termination is seen, removes it at
// 155 s; counting the second deletion (no dedupe) would wait until 136 s
// and remove it at 165 s. (The log's custom
// consolidationGracePeriod is not upstream's and is left out.)
func TestPodEventDedupeAsObserved(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/podevent-dedupe.yaml")
	require.NoError(t, err)
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(sc.Duration))
	cl := s.Cluster()
	require.Len(t, cl.Nodes, 1)
	n := &cl.Nodes[0]
	require.Equal(t, "t3a.medium", n.InstanceType, "the log's instance type")
	require.Equal(t, cluster.NodeGone, n.State)
	require.InDelta(t, 155.0, n.Deleted.Seconds(), 0.1)
	require.Equal(t, int64(1), s.karpenter().Stats().Disruptions.Empty)
}
