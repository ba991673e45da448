package simulation_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/importer"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// clusterExport is what `kubectl get nodepools,ec2nodeclasses,nodeclaims,
// nodes,deployments,replicasets,pods -A -o yaml` returns for a cluster of
// two Karpenter nodes of NodePool base (WhenEmpty, consolidateAfter 10m):
// ip-a runs the Deployment web's two pods (one annotated do-not-disrupt on
// the pod itself, not its template); ip-b runs only kube-proxy, a static
// pod (owned by its Node). ip-b's NodeClaim last saw a pod event podEvent
// before the export (none: no lastPodEventTime).
func clusterExport(podEvent string) string {
	claim := func(node, lastEvent string) string {
		s := fmt.Sprintf(`- apiVersion: karpenter.sh/v1
  kind: NodeClaim
  metadata:
    name: base-%[1]s
    labels: {karpenter.sh/nodepool: base, node.kubernetes.io/instance-type: m5.large}
  spec:
    nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
    requirements: []
  status:
    nodeName: %[1]s
`, node)
		if lastEvent != "" {
			s += "    lastPodEventTime: \"" + lastEvent + "\"\n"
		}
		return s
	}
	node := func(name string) string {
		return fmt.Sprintf(`- apiVersion: v1
  kind: Node
  metadata:
    name: %s
    creationTimestamp: "2026-11-30T08:00:00Z"
    labels:
      karpenter.sh/nodepool: base
      karpenter.sh/capacity-type: on-demand
      karpenter.sh/initialized: "true"
      node.kubernetes.io/instance-type: m5.large
      topology.kubernetes.io/zone: us-east-1a
      topology.kubernetes.io/region: us-east-1
      kubernetes.io/arch: amd64
      kubernetes.io/os: linux
  status:
    allocatable: {cpu: 1930m, memory: 7220Mi, pods: "29"}
    conditions:
    - {type: Ready, status: "True", lastHeartbeatTime: "2026-12-01T10:00:00Z", lastTransitionTime: "2026-11-30T08:01:00Z"}
`, name)
	}
	pod := func(name, nodeName, ownerKind, owner, annotations string) string {
		return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata:
    name: %s
    namespace: %s
%s    ownerReferences:
    - {apiVersion: %s, kind: %s, name: %s, uid: u-%s, controller: true}
  spec:
    nodeName: %s
    containers:
    - name: c
      image: x
      resources: {requests: {cpu: 500m, memory: 512Mi}}
  status: {phase: Running}
`, name, map[bool]string{true: "kube-system", false: "default"}[ownerKind == "Node"], annotations,
			map[bool]string{true: "v1", false: "apps/v1"}[ownerKind == "Node"], ownerKind, owner, name, nodeName)
	}
	lastEvent := ""
	if podEvent != "" {
		lastEvent = podEvent
	}
	return `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: base}
  spec:
    disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 10m}
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default}
  spec:
    role: KarpenterNodeRole-demo
    amiSelectorTerms: [{alias: al2023@latest}]
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
` + claim("ip-a", "2026-12-01T09:30:00Z") + claim("ip-b", lastEvent) + node("ip-a") + node("ip-b") + `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-5d8f
    namespace: default
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u-web, controller: true}]
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
` + pod("web-5d8f-aaaaa", "ip-a", "ReplicaSet", "web-5d8f", "") +
		pod("web-5d8f-bbbbb", "ip-a", "ReplicaSet", "web-5d8f", "    annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n") +
		pod("kube-proxy-ip-b", "ip-b", "Node", "ip-b", "    annotations: {kubernetes.io/config.mirror: 0f3c}\n")
}

// importAndRun runs the user's path: sim import of the export, then a
// checked run of the scenario it writes.
func importAndRun(t *testing.T, export string) (*simulation.Sim, string, []importer.Notice) {
	t.Helper()
	im := importer.New(importer.Options{Name: "imported", Duration: "30m"}, nil)
	require.NoError(t, im.Add("cluster.yaml", strings.NewReader(export)))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out), "notices: %v", im.Notices())
	path := filepath.Join(t.TempDir(), "imported.yaml")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	sc, err := scenario.LoadFile(path)
	require.NoError(t, err)
	s, err := simulation.Start(sc, simulation.Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(sc.Duration))
	return s, out.String(), im.Notices()
}

// goneAt is when the named node was deleted (-1: it was not).
func goneAt(cl *cluster.Cluster, name string) float64 {
	for i := range cl.Nodes {
		if n := &cl.Nodes[i]; n.Name == name && n.State == cluster.NodeGone {
			return n.Deleted.Seconds()
		}
	}
	return -1
}

// The import path end to end: the node running web's pods keeps them (it
// is not empty); the node with only a static pod is empty, and Karpenter
// deletes it when consolidateAfter has passed since its NodeClaim's last
// pod event, which the import carries (9m before the export: at 1m), or
// from the run's start when the export has none (at 10m): the pass after
// that (every 10 s from 2 s) decides, 15 s of validation, 5 s of the
// drain's minimum and 5 s until the instance's termination is seen.
func TestImportedNodesKeepTheirPodsAndTheirTimers(t *testing.T) {
	for _, c := range []struct {
		lastEvent string
		gone      float64 // when ip-b goes, about
	}{{"2026-12-01T09:51:00Z", 87}, {"", 627}} {
		s, text, notices := importAndRun(t, clusterExport(c.lastEvent))
		cl := s.Cluster()
		require.Contains(t, text, "clustersim.dev/last-pod-event-time: \"2026-12-01T09:30:00Z\"", "ip-a keeps its NodeClaim's lastPodEventTime")
		require.Contains(t, text, "kubernetes.io/config.mirror", "the static pod stays a mirror pod")
		for i := range cl.Pods {
			p := &cl.Pods[i]
			if !p.Spec.Mirror { // a static pod ends with its node
				require.NotEqual(t, cluster.CauseNodeGone, p.Cause, "pod %s died with its node", p.Name)
			}
		}
		require.Equal(t, -1.0, goneAt(cl, "ip-a"), "ip-a runs web's pods")
		running := 0
		for i := range cl.Pods {
			if p := &cl.Pods[i]; p.Phase == cluster.Running && cl.Nodes[p.Node].Name == "ip-a" {
				running++
			}
		}
		require.Equal(t, 2, running)
		require.InDelta(t, c.gone, goneAt(cl, "ip-b"), 1, "ip-b is empty: deleted consolidateAfter after its last pod event")
		var said []string
		for _, n := range notices {
			said = append(said, n.String())
		}
		all := strings.Join(said, "\n")
		require.Contains(t, all, `1 of its pods (default/web-5d8f-bbbbb) carry karpenter.sh/do-not-disrupt: "true" themselves`)
		if c.lastEvent == "" {
			require.Contains(t, all, "1 Karpenter node(s) without a NodeClaim status.lastPodEventTime in the export (ip-b)")
		} else {
			require.NotContains(t, all, "without a NodeClaim status.lastPodEventTime")
		}
	}
}

// A real mirror pod of a cluster from before owner references (marked by
// kubernetes.io/config.mirror only) is imported as a mirror pod: the node
// that holds only it is empty, and Karpenter deletes it at consolidateAfter
// (1m: the passes run from 2 s, when the imported pods run again, every
// 10 s; the one at 62 s decides, 15 s of validation, then 5 s of the
// drain's minimum and 5 s until the instance's termination is seen: 87 s).
// Imported as a bare pod it kept the node all run.
func TestAnnotationOnlyMirrorPodImportsAsMirror(t *testing.T) {
	export, err := os.ReadFile("testdata/mirror-annotation-export.yaml")
	require.NoError(t, err)
	s, text, _ := importAndRun(t, string(export))
	require.Contains(t, text, "kubernetes.io/config.mirror: static")
	cl := s.Cluster()
	require.InDelta(t, 87.0, goneAt(cl, "minikube"), 1)
	for i := range cl.Pods {
		if p := &cl.Pods[i]; p.Name == "etcd-minikube" {
			require.True(t, p.Spec.Mirror)
		}
	}
}
