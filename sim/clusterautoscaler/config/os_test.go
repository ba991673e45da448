package config

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

// An eksctl Windows node group is refused at its amiFamily (before, it was
// simulated with kubernetes.io/os=linux, so Linux pods landed on it); the
// Linux groups beside it are fine, and every error of the file comes at
// once.
func TestEksctlWindowsGroupsRefused(t *testing.T) {
	// from eksctl-io/eksctl examples/14-windows-nodes.yaml, with a managed
	// Windows group added (eksctl accepts Windows amiFamily there too).
	_, _, err := compile(t, `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig

metadata:
  name: cluster-14
  region: us-east-1

nodeGroups:
  - name: windows-ng
    amiFamily: WindowsServer2019FullContainer
    minSize: 2
    maxSize: 3
  - name: linux-ng
    instanceType: t2.large
    minSize: 2
    maxSize: 3
managedNodeGroups:
  - name: windows-mng
    amiFamily: WindowsServer2022CoreContainer
    instanceType: m5.large
`)
	require.Error(t, err)
	require.Equal(t, `cluster.yaml:10: nodeGroups[0].amiFamily: Windows nodes are not simulated (WindowsServer2019FullContainer): the simulator has no Windows prices, node overheads or Windows-only scheduling; remove this node group to simulate the Linux part of the cluster (pods that need Windows nodes then stay Pending)
cluster.yaml:19: managedNodeGroups[0].amiFamily: Windows nodes are not simulated (WindowsServer2022CoreContainer): the simulator has no Windows prices, node overheads or Windows-only scheduling; remove this node group to simulate the Linux part of the cluster (pods that need Windows nodes then stay Pending)`, err.Error())
}

// Bottlerocket, Amazon Linux and Ubuntu node groups are Linux nodes.
func TestEksctlLinuxFamilies(t *testing.T) {
	// from eksctl-io/eksctl examples/20-bottlerocket.yaml, reduced (the
	// tests' header stands for its metadata).
	gs, _, err := compile(t, header+`nodeGroups:
  - name: ng1-public
    instanceType: m5.xlarge
    desiredCapacity: 4
    amiFamily: Bottlerocket
    labels:
      "network-locality.example.com/public": "true"
    bottlerocket:
      enableAdminContainer: true
      settings:
        motd: "Hello, eksctl!"
  - name: al2023
    amiFamily: AmazonLinux2023
  - name: ubuntu
    amiFamily: Ubuntu2204
`)
	require.NoError(t, err)
	require.Len(t, gs, 3)
	for _, g := range gs {
		require.Equal(t, "linux", g.Template.Labels[LabelOS], g.Name)
	}
}

// Location reads the region and zones before compiling.
func TestLocation(t *testing.T) {
	docs, err := manifest.ReadBytes("c.yaml", []byte(header+"availabilityZones: [us-east-1a, us-east-1d]\n"))
	require.NoError(t, err)
	r, zs := Location(docs[0])
	require.Equal(t, "us-east-1", r)
	require.Equal(t, []string{"us-east-1a", "us-east-1d"}, zs)
	docs, err = manifest.ReadBytes("c.yaml", []byte("apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: x}\navailabilityZones: {a: b}\n"))
	require.NoError(t, err)
	r, zs = Location(docs[0])
	require.Empty(t, r)
	require.Nil(t, zs)
}
