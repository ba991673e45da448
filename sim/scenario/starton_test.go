package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// startOnBase has two Node manifests (as sim import writes them) and a
// Deployment of 3 replicas.
var startOnBase = fixtures.M5LargeNode("n1", "us-east-1a", "", nil) + fixtures.M5LargeNode("n2", "us-east-1b", "", nil) +
	fixtures.WebDeployment(3, "100m", "256Mi")

func TestStartOn(t *testing.T) {
	sc, err := loadString(t, minimal+"  workloads: [{ref: Deployment/web, startOn: [n1, n2, \"\"]}]\n"+startOnBase)
	require.NoError(t, err)
	require.Equal(t, []string{"n1", "n2", ""}, sc.Workloads[0].StartOn)

	sc, err = loadString(t, minimal+"  workloads: [{ref: Deployment/web, startOn: [n1, gone]}]\n"+startOnBase)
	require.NoError(t, err)
	require.Equal(t, []string{"n1", ""}, sc.Workloads[0].StartOn)
	var msgs []string
	for _, w := range sc.Warnings {
		msgs = append(msgs, w.String())
	}
	require.Contains(t, strings.Join(msgs, "\n"), "scenario.yaml:6: spec.workloads[0].startOn[1]: no node gone in the scenario: this pod starts pending")

	_, err = loadString(t, minimal+"  workloads: [{ref: Deployment/web, startOn: [n1, n1, n2, n2]}]\n"+startOnBase)
	require.ErrorContains(t, err, "spec.workloads[0].startOn: 4 pods listed, but Deployment/default/web starts with 3; list at most 3 nodes, one per pod the workload starts with")

	_, err = loadString(t, minimal+"  workloads: [{ref: Pod/p, startOn: [n1]}]\n"+startOnBase+"---\n"+barePod)
	require.ErrorContains(t, err, "startOn does not apply to a Pod")
}

func TestStartTerminating(t *testing.T) {
	sc, err := loadString(t, minimal+"  workloads: [{ref: Deployment/web, startTerminating: [{node: n1, for: 25s}, {node: gone, for: 5s}]}]\n"+startOnBase)
	require.NoError(t, err)
	require.Len(t, sc.Workloads[0].StartTerminating, 1, "the pod on an unknown node is left out")
	require.Equal(t, "n1", sc.Workloads[0].StartTerminating[0].Node)
	require.Equal(t, 25*time.Second, sc.Workloads[0].StartTerminating[0].Left)
	var msgs []string
	for _, w := range sc.Warnings {
		msgs = append(msgs, w.String())
	}
	require.Contains(t, strings.Join(msgs, "\n"), `spec.workloads[0].startTerminating[1].node: no node "gone" in the scenario: this terminating pod is left out`)

	_, err = loadString(t, minimal+"  workloads: [{ref: Pod/p, startTerminating: [{node: n1, for: 1s}]}]\n"+startOnBase+"---\n"+barePod)
	require.ErrorContains(t, err, "startTerminating applies to Deployments and Jobs only, not to Pod/default/p")
}
