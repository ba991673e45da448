// Tests of the state an imported cluster starts in: the age of its
// adopted nodes and the pods terminating at the export.

package simulation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// ageScenario is an imported cluster exported at 2026-12-01T12:00:00Z
// (spec.importedAt) with a NodePool that expires nodes after 720h and two
// of its nodes: old, created 700h before the export, and fresh, 1h
// before. Each runs one pod, so neither is empty.
var ageScenario = `apiVersion: clustersim.dev/v1alpha1
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
` + fixtures.GeneralPurposeNodePool + `      expireAfter: 720h
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: Never
` + fixtures.EC2NodeClassDemo +
	fixtures.M5LargeNode("old", "us-east-1a", "2026-11-02T08:00:00Z", generalPurposeNodeLabels) +
	fixtures.M5LargeNode("fresh", "us-east-1b", "2026-12-01T11:00:00Z", generalPurposeNodeLabels) +
	fixtures.WebDeployment(2, "250m", "256Mi")

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
	require.Zero(t, s.karpenter().Stats().Disruptions.Expired, "nothing expires before 20h")
	require.NoError(t, s.RunUntil(engine.Time(21*time.Hour)))
	require.Equal(t, int64(1), s.karpenter().Stats().Disruptions.Expired, "the 700h-old node expires at 20h")
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

// terminatingScenario is an imported cluster whose only node still runs
// a pod of web that was terminating at the export with 25s of its grace
// period left; web's replacement (replicas: 1) does not fit beside it.
var terminatingScenario = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: terminating}
spec:
  duration: 1m
  podStartDelay: 0s
  workloads:
    - ref: Deployment/default/web
      startTerminating: [{node: ip-10-0-1-17.ec2.internal, for: 25s}]
` + fixtures.M5LargeNode("ip-10-0-1-17.ec2.internal", "us-east-1a", "", map[string]string{"kubernetes.io/os": "linux"}) +
	fixtures.WebDeployment(1, "1", "256Mi")

// A pod terminating at the start holds its room on its node for the grace
// period left, and its replacement is created at once: pending until the
// terminating pod is gone at 25s, then bound.
func TestStartTerminatingPodsHoldTheirRoom(t *testing.T) {
	sc := loadAdopt(t, terminatingScenario)
	s, err := Start(sc, Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(engine.Time(10*time.Second)))
	cl := s.Cluster()
	require.Len(t, cl.Pods, 2, "the terminating pod and its replacement")
	old, repl := &cl.Pods[0], &cl.Pods[1]
	require.Equal(t, "web-terminating-1", old.Name)
	require.True(t, old.Terminating)
	require.Equal(t, "ip-10-0-1-17.ec2.internal", cl.Nodes[old.Node].Name)
	require.Equal(t, cluster.Pending, repl.Phase, "no room beside the terminating pod")
	require.NoError(t, s.RunUntil(engine.Time(30*time.Second)))
	old, repl = &cl.Pods[0], &cl.Pods[1]
	require.Equal(t, cluster.Deleted, old.Phase)
	require.True(t, repl.Phase.OnNode(), "the replacement takes the room once the old pod is gone")
}
