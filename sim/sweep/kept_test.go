package sweep

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// withSecrets is a scenario file as a repository holds one: comments, a
// Secret and a ConfigMap the run never reads, environment values (one
// through a merge key), a last-applied annotation, and the Cluster
// Autoscaler's Deployment whose sidecar logs in with a token. Every
// secret is xleakxNN.
const withSecrets = `# Deploy with: DB_PASSWORD=xleakx01 make deploy
apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: with-secrets}
spec:
  seed: 3
  duration: 30m
  region: us-east-1
  zones: [us-east-1a]
  staticNodes:
    - {name: core, instanceType: m5.large, count: 2, capacityType: on-demand}
  workloads:
    - ref: Deployment/default/web
---
apiVersion: v1
kind: Secret
metadata: {name: db}
stringData: {password: xleakx02}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data: {token: xleakx03}
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: '{"env":"xleakx04"}'
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        initContainers:
        - {name: init, image: busybox, command: [sh, -c, "echo xleakx05"]}
        containers:
        - &web
          name: web
          image: nginx
          command: [/server, --token=xleakx06]
          <<: {env: [{name: T, value: xleakx07}]}
          envFrom: [{secretRef: {name: db}}]
          resources: {requests: {cpu: 500m, memory: 512Mi}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: cluster-autoscaler, namespace: kube-system}
  spec:
    selector: {matchLabels: {app: ca}}
    template:
      metadata: {labels: {app: ca}}
      spec:
        containers:
        - {name: vault, image: vault, args: [login, token=xleakx08], env: [{name: V, value: xleakx09}]}
        - name: cluster-autoscaler
          image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0
          command: [./cluster-autoscaler, --scan-interval=20s]
          args: [--expander=least-waste]
`

var leakRE = regexp.MustCompile(`xleakx[0-9]+`)

func readsAll(d *manifest.Document) bool { return d.Kind == Kind || scenario.Reads(d) }

// Kept leaves out what no run reads, keeps what runs read (the Cluster
// Autoscaler's flags), is its own fixed point (a shard that reads it
// fingerprints the same bytes), and the scenario runs from it as from
// the original.
func TestKept(t *testing.T) {
	require.Len(t, leakRE.FindAllString(withSecrets, -1), 9)
	kept, err := Kept("s.yaml", []byte(withSecrets), readsAll)
	require.NoError(t, err)
	require.Empty(t, leakRE.FindAllString(string(kept), -1), "%s", kept)
	require.Contains(t, string(kept), "--scan-interval=20s")
	require.Contains(t, string(kept), "--expander=least-waste")
	require.NotContains(t, string(kept), "kind: Secret")
	require.NotContains(t, string(kept), "kind: ConfigMap")
	again, err := Kept("s.yaml", kept, readsAll)
	require.NoError(t, err)
	require.Equal(t, string(kept), string(again), "Kept is its own fixed point")

	run := func(data []byte) string {
		sc, err := scenario.LoadManifests("s.yaml", data, nil)
		require.NoError(t, err)
		rep, err := simulation.Run(sc, simulation.Options{})
		require.NoError(t, err)
		rep.Warnings = nil // the skipped kinds are named in one
		out, err := json.Marshal(rep)
		require.NoError(t, err)
		return string(out)
	}
	require.Equal(t, run([]byte(withSecrets)), run(kept), "the run reads the same")

	// JSON in, YAML out: read as YAML, not as JSON.
	js := []byte(`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "xleakx10"}},
		{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "123"}}}}]}`)
	kept, err = Kept("m.json", js, readsAll)
	require.NoError(t, err)
	require.NotContains(t, string(kept), "xleakx10")
	require.Contains(t, string(kept), `"app": "123"`, "a string that reads as a number stays a string")
	require.False(t, strings.HasPrefix(string(kept), "{"), "block style: not read as JSON")
	again, err = Kept("m.json", kept, readsAll)
	require.NoError(t, err)
	require.Equal(t, string(kept), string(again))
}

// The priority expander's ConfigMap is read (it ranks node groups): kept.
func TestKeptPriorityConfigMap(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}\ndata:\n  priorities: |-\n    10:\n      - .*spot.*\n"
	kept, err := Kept("p.yaml", []byte(in), readsAll)
	require.NoError(t, err)
	require.Contains(t, string(kept), "cluster-autoscaler-priority-expander")
	require.Contains(t, string(kept), ".*spot.*")
}

// Karpenter's Deployment keeps, of its controller container's env, the
// plain values of its settings (what the run reads), and nothing else:
// not the cluster's endpoint, not a sidecar's token, not a variable from
// a Secret.
func TestKeptKarpenterSettings(t *testing.T) {
	in := `apiVersion: apps/v1
kind: Deployment
metadata: {name: karpenter, namespace: kube-system}
spec:
  selector: {matchLabels: {app: karpenter}}
  template:
    metadata: {labels: {app: karpenter}}
    spec:
      containers:
      - {name: sidecar, image: vault, env: [{name: INTERRUPTION_QUEUE, value: xleakx01}]}
      - name: controller
        image: public.ecr.aws/karpenter/controller:1.15.0
        env:
        - {name: CLUSTER_ENDPOINT, value: "https://xleakx02.eks.amazonaws.com"}
        - {name: INTERRUPTION_QUEUE, value: demo-queue}
        - {name: BATCH_MAX_DURATION, value: 30s}
        - {name: AWS_SECRET_ACCESS_KEY, value: xleakx03}
        - name: FEATURE_GATES
          valueFrom: {secretKeyRef: {name: gates, key: xleakx04}}
        envFrom: [{secretRef: {name: xleakx05}}]
`
	kept, err := Kept("k.yaml", []byte(in), readsAll)
	require.NoError(t, err)
	require.Empty(t, leakRE.FindAllString(string(kept), -1), "%s", kept)
	require.Contains(t, string(kept), "demo-queue")
	require.Contains(t, string(kept), "30s")
	require.NotContains(t, string(kept), "FEATURE_GATES")
	again, err := Kept("k.yaml", kept, readsAll)
	require.NoError(t, err)
	require.Equal(t, string(kept), string(again), "Kept is its own fixed point")
}
