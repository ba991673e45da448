package scenario

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// Windows nodes are refused where they are declared: a Node manifest (as
// kubectl get nodes -o yaml lists a Windows node) and a static pool
// labelled kubernetes.io/os: windows. Every simulated node is Linux, so no
// Linux pod lands on a Windows node and no Windows pod on a Linux one.
func TestWindowsStaticNodesRefused(t *testing.T) {
	// A Windows node of an EKS cluster, reduced from kubectl get node -o yaml.
	node := `---
apiVersion: v1
kind: Node
metadata:
  name: ip-192-168-3-100.ec2.internal
  labels:
    beta.kubernetes.io/os: windows
    kubernetes.io/os: windows
    node.kubernetes.io/instance-type: m5.large
    node.kubernetes.io/windows-build: 10.0.17763
    topology.kubernetes.io/zone: us-east-1a
`
	pool := "  staticNodes:\n    - {name: win, instanceType: m5.large, count: 2, labels: {kubernetes.io/os: windows}}\n"
	_, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + pool + node)}}, "s.yaml")
	require.Error(t, err)
	require.Equal(t, `s.yaml:7: spec.staticNodes[0].labels["kubernetes.io/os"]: Windows nodes are not simulated: only Linux nodes are; remove the label (static nodes are Linux) or the pool
s.yaml:15: metadata.labels["kubernetes.io/os"]: Windows nodes are not simulated: only Linux nodes are; remove this Node to simulate the Linux part of the cluster (pods that need it then stay Pending)`, err.Error())

	// Linux nodes that say so are fine.
	sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "  staticNodes:\n    - {name: l, instanceType: m5.large, count: 1, labels: {kubernetes.io/os: linux}}\n")}}, "s.yaml")
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 1)
}
