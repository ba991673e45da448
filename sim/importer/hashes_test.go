package importer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"

	_ "github.com/clustersim/clustersim/sim/component/builtin"
)

// driftExport is a live cluster with two Karpenter nodes: one made from
// the NodePool's current template (its NodeClaim's nodepool-hash equals
// the pool's), one from an older one; and a Deployment whose template
// carries the pod-deletion-cost annotation, which its pod carries too.
var driftExport = `apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: default, annotations: {karpenter.k8s.aws/ec2nodeclass-hash: "111", karpenter.k8s.aws/ec2nodeclass-hash-version: v4}}
  spec: {amiSelectorTerms: [{alias: al2023@latest}], role: r, subnetSelectorTerms: [{tags: {a: b}}], securityGroupSelectorTerms: [{tags: {a: b}}]}
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default, annotations: {karpenter.sh/nodepool-hash: "222", karpenter.sh/nodepool-hash-version: v3}}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
    disruption: {consolidateAfter: Never}
- apiVersion: karpenter.sh/v1
  kind: NodeClaim
  metadata: {name: default-aaaaa, labels: {karpenter.sh/nodepool: default}, annotations: {karpenter.sh/nodepool-hash: "222", karpenter.sh/nodepool-hash-version: v3, karpenter.k8s.aws/ec2nodeclass-hash: "111", karpenter.k8s.aws/ec2nodeclass-hash-version: v4}}
  status: {nodeName: current}
- apiVersion: karpenter.sh/v1
  kind: NodeClaim
  metadata: {name: default-bbbbb, labels: {karpenter.sh/nodepool: default}, annotations: {karpenter.sh/nodepool-hash: "999", karpenter.sh/nodepool-hash-version: v3, karpenter.k8s.aws/ec2nodeclass-hash: "111", karpenter.k8s.aws/ec2nodeclass-hash-version: v4}}
  status: {nodeName: older, conditions: [{type: Drifted, status: "True", lastTransitionTime: "2026-11-30T11:00:00Z"}]}
` + driftNode("current") + driftNode("older") + `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}, annotations: {controller.kubernetes.io/pod-deletion-cost: "100"}}
      spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, labels: {app: web}, annotations: {controller.kubernetes.io/pod-deletion-cost: "100"}, ownerReferences: [{kind: Deployment, name: web, controller: true}]}
  spec: {nodeName: current, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running}
`

func driftNode(name string) string {
	return `- apiVersion: v1
  kind: Node
  metadata:
    name: ` + name + `
    creationTimestamp: "2026-11-30T10:00:00Z"
    labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand, kubernetes.io/hostname: ` + name + `}
  status:
    allocatable: {cpu: 1930m, memory: 7140Mi, pods: "29"}
    conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2026-11-30T12:00:00Z"}]
`
}

// Karpenter's hash annotations go through sim import: a NodeClaim made
// from an older NodePool template (another nodepool-hash, the same hash
// version) is drifted when the run starts, and Karpenter replaces it;
// the one made from the current template is not. And a pod that carries
// its template's annotation gets no notice that it would be lost.
func TestImportedHashDrift(t *testing.T) {
	out, im := importFile(t, "cluster.yaml", strings.NewReader(driftExport), Options{})
	require.NotContains(t, strings.Join(notices(im), "\n"), "which its pod template does not")
	require.Contains(t, string(out), `karpenter.sh/nodepool-hash: "999"`, "the older NodeClaim's hash is on its Node")
	require.Contains(t, string(out), `clustersim.dev/drifted-since: "2026-11-30T11:00:00Z"`, "and when it drifted")
	require.Equal(t, scenario.DriftedSinceAnnotation, driftedSinceAnnotation)
	require.Equal(t, scenario.LastPodEventAnnotation, lastPodEventAnnotation)

	require.Equal(t, []string{"drift older"}, decided(t, out))

	// The same older node carrying karpenter.sh/do-not-disrupt itself is
	// no candidate (KC ValidateNodeDisruptable), drifted or not.
	annotated := strings.Replace(driftExport, "    name: older\n", "    name: older\n    annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n", 1)
	require.NotEqual(t, driftExport, annotated)
	out, _ = importFile(t, "cluster.yaml", strings.NewReader(annotated), Options{})
	require.Empty(t, decided(t, out))
}

// decided runs an imported scenario for two minutes and lists the
// disruption commands decided: method and candidate.
func decided(t *testing.T, scenarioYAML []byte) []string {
	t.Helper()
	sc, err := scenario.LoadManifests("imported.yaml", scenarioYAML, nil)
	require.NoError(t, err)
	var out []string
	s, err := simulation.Start(sc, simulation.Options{Trace: func(e trace.Entry) {
		if e.Kind == "disruptionCommand" && e.Phase == "decided" {
			for _, c := range e.Candidates {
				out = append(out, e.Method+" "+c.Node)
			}
		}
	}})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(2*time.Minute))
	return out
}

// Karpenter restarted on an imported cluster runs its first disruption
// pass once the export's pods run again (upstream's first pass runs as
// soon as its state has synced), not a poll interval later,
// and never on the nodes before their pods are back: the empty node goes,
// the one running a pod stays.
func TestFirstPassAfterTheStartState(t *testing.T) {
	export := strings.Replace(driftExport, "disruption: {consolidateAfter: Never}", "disruption: {consolidateAfter: 0s}", 1)
	export = strings.Replace(export, `karpenter.sh/nodepool-hash: "999"`, `karpenter.sh/nodepool-hash: "222"`, 1) // no drift
	require.NotEqual(t, driftExport, export)
	out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{})
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	var got []string
	s, err := simulation.Start(sc, simulation.Options{Trace: func(e trace.Entry) {
		if e.Kind == "disruptionCommand" && e.Phase == "decided" {
			for _, c := range e.Candidates {
				got = append(got, fmt.Sprintf("%gs %s %s", e.T, e.Method, c.Node))
			}
		}
	}})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(5*time.Second))
	// The pods restart with the pod start delay (2 s): the first look at
	// 1 s waits, the second runs the pass.
	require.Equal(t, []string{"2s emptiness older"}, got)
}

// Karpenter expires a NodeClaim by its own spec.expireAfter, set when it
// was made, from its creation, not by its NodePool's value now
// (KC nodeclaim expiration): sim import carries it (expires-at) and the
// run follows it. Here the pool says 24h; one NodeClaim was made with 1h
// two hours ago (expired), the other with Never.
func TestImportedNodeClaimExpireAfter(t *testing.T) {
	export := strings.Replace(driftExport, "    template:\n      spec:\n        nodeClassRef", "    template:\n      spec:\n        expireAfter: 24h\n        nodeClassRef", 1)
	export = strings.Replace(export, `karpenter.sh/nodepool-hash: "999"`, `karpenter.sh/nodepool-hash: "222"`, 1) // no drift
	export = strings.Replace(export, "  status: {nodeName: current}", "  spec: {expireAfter: 1h}\n  status: {nodeName: current}", 1)
	export = strings.Replace(export, "  status: {nodeName: older,", "  spec: {expireAfter: Never}\n  status: {nodeName: older,", 1)
	export = strings.ReplaceAll(export, "  kind: NodeClaim\n  metadata: {", "  kind: NodeClaim\n  metadata: {creationTimestamp: \"2026-11-30T10:00:00Z\", ")
	require.Contains(t, export, "expireAfter: 24h\n        nodeClassRef")
	require.Equal(t, 2, strings.Count(export, "creationTimestamp: \"2026-11-30T10:00:00Z\", "))
	out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{})
	require.Contains(t, string(out), `clustersim.dev/expires-at: "2026-11-30T11:00:00Z"`)
	require.Contains(t, string(out), `clustersim.dev/expires-at: Never`)
	require.Equal(t, scenario.ExpiresAtAnnotation, expiresAtAnnotation)

	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	removed := map[string]bool{}
	s, err := simulation.Start(sc, simulation.Options{Trace: func(e trace.Entry) {
		if e.Kind == "nodeRemoved" {
			removed[e.Node] = true
		}
	}})
	require.NoError(t, err)
	// 25 h: past the pool's 24h for both nodes, were it used.
	require.NoError(t, s.RunUntil(25*time.Hour))
	require.Equal(t, map[string]bool{"current": true}, removed)
}

// A drifted node's Drifted condition is in a state dump taken before
// Karpenter's first pass looked at it (the drift check is lazy; upstream's
// nodeclaim disruption controller keeps the condition all the time), with
// the export's time: a dump read back keeps the drift order.
func TestDumpKeepsExportDrift(t *testing.T) {
	// Drift by requirements (the pool now wants m5.xlarge), which is
	// checked when the drift method looks, not at adoption.
	export := strings.Replace(driftExport, `karpenter.sh/nodepool-hash: "999"`, `karpenter.sh/nodepool-hash: "222"`, 1)
	export = strings.Replace(export, "requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]",
		"requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}, {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}]", 1)
	require.Contains(t, export, "values: [m5.xlarge]")
	out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{})
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	s, err := simulation.Start(sc, simulation.Options{})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(time.Second)) // Karpenter's first pass is at 2 s
	var buf strings.Builder
	require.NoError(t, s.WriteState(&buf))
	dump := buf.String()
	i := strings.Index(dump, "nodeName: older")
	require.Positive(t, i)
	j := strings.LastIndex(dump[:i], "kind: NodeClaim")
	require.Positive(t, j)
	claim := dump[j:i]
	require.Contains(t, claim, "lastTransitionTime: \"2026-11-30T11:00:00Z\"\n      message: \"\"\n      reason: Drifted\n      status: \"True\"\n      type: Drifted", claim)
}
