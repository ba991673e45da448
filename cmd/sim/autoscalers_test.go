package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// caRun is what TestNodeGroupAutoscaledOnlyWhenACARuns reads of a report.
type caRun struct {
	Races struct {
		Pods  int `json:"pods"`
		Nodes int `json:"nodes"`
	} `json:"races"`
	Nodes struct {
		Launched int `json:"launched"`
	} `json:"nodes"`
	ClusterAutoscaler struct {
		Loops      int `json:"loops"`
		NodeGroups []struct {
			Name         string `json:"name"`
			Autoscaled   bool   `json:"autoscaled"`
			NodesAdded   int    `json:"nodesAdded"`
			DesiredAtEnd int    `json:"desiredAtEnd"`
		} `json:"nodeGroups"`
	} `json:"clusterAutoscaler"`
}

// The layout of eks-workshop's Karpenter module (Karpenter plus a small
// managed node group for its own controller, no Cluster Autoscaler) as a
// new user runs it: the node group is a plain ASG, so nothing races
// Karpenter and lint finds no autoscaler-race. The same manifests with a
// Cluster Autoscaler that discovers the group do race: the check can
// fail.
func TestNodeGroupAutoscaledOnlyWhenACARuns(t *testing.T) {
	const dir = "testdata/autoscalers/"
	out, stderr, code := simLint(t, dir+"eks-workshop.yaml")
	require.Equal(t, exitOK, code, out+stderr)
	out = strings.ReplaceAll(out, "\n  ", " ")
	require.Contains(t, out, "no Cluster Autoscaler runs")
	require.NotContains(t, out, "autoscaler-race")
	require.NotContains(t, out, "autoscalers-separated", "one autoscaler runs: nothing to separate")

	run := func(file string) caRun {
		t.Helper()
		out, stderr, code := sim(t, "run", dir+file, "-o", "json")
		require.Equal(t, exitOK, code, stderr)
		var r caRun
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		return r
	}
	alone := run("eks-workshop.yaml")
	require.Zero(t, alone.ClusterAutoscaler.Loops, "no Cluster Autoscaler loop runs")
	require.Len(t, alone.ClusterAutoscaler.NodeGroups, 1)
	g := alone.ClusterAutoscaler.NodeGroups[0]
	require.False(t, g.Autoscaled)
	require.Zero(t, g.NodesAdded)
	require.Equal(t, 3, g.DesiredAtEnd, "the ASG keeps its desired capacity")
	require.Zero(t, alone.Races.Pods)

	withCA := run("eks-workshop-with-ca.yaml")
	require.Positive(t, withCA.ClusterAutoscaler.Loops)
	require.True(t, withCA.ClusterAutoscaler.NodeGroups[0].Autoscaled)
	require.Positive(t, withCA.Races.Pods, "with a Cluster Autoscaler both autoscalers launch for the web pods")
	require.Greater(t, withCA.Nodes.Launched, alone.Nodes.Launched)

	out, _, code = simLint(t, dir+"eks-workshop-with-ca.yaml")
	require.Equal(t, exitOK, code)
	out = strings.ReplaceAll(out, "\n  ", " ")
	require.Contains(t, out, "a Cluster Autoscaler runs (spec.clusterAutoscaler): it autoscales node group(s) default (found by --node-group-auto-discovery)")
	require.Contains(t, out, "autoscaler-race")
}
