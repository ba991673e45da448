package importer

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/scenario"
)

// karpenterDeploymentItem is Karpenter's Deployment as kubectl exports
// it (the Helm chart's env, a private mirror of the image, a sidecar),
// with one pod of it running on a node.
const karpenterDeploymentItem = `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: karpenter, namespace: kube-system}
  spec:
    replicas: 1
    selector: {matchLabels: {app.kubernetes.io/name: karpenter}}
    template:
      metadata: {labels: {app.kubernetes.io/name: karpenter}}
      spec:
        containers:
        - name: controller
          image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror/karpenter/controller:1.15.0@sha256:0000000000000000000000000000000000000000000000000000000000000000
          env:
          - {name: CLUSTER_NAME, value: secretcluster}
          - {name: CLUSTER_ENDPOINT, value: "https://SECRETENDPOINT.gr7.us-east-1.eks.amazonaws.com"}
          - {name: INTERRUPTION_QUEUE, value: secretcluster}
          - {name: BATCH_MAX_DURATION, value: 10s}
          - {name: FEATURE_GATES, value: "SpotToSpotConsolidation=true"}
          - name: AWS_ROLE_ARN
            valueFrom: {secretKeyRef: {name: creds, key: role}}
          args: [--log-level=debug, --batch-max-duration, 30s]
          resources: {requests: {cpu: "1", memory: 1Gi}}
        - {name: sidecar, image: vault, env: [{name: TOKEN, value: SECRETTOKEN}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: karpenter-1, namespace: kube-system, labels: {app.kubernetes.io/name: karpenter}, ownerReferences: [{kind: Deployment, name: karpenter, controller: true}]}
  spec: {nodeName: current, containers: [{name: controller, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
  status: {phase: Running}
`

// sim import of a cluster with Karpenter's Deployment: the imported
// scenario configures the simulated Karpenter from the Deployment's
// settings (INTERRUPTION_QUEUE, FEATURE_GATES, and BATCH_MAX_DURATION as
// its flag gives it, over the variable), does
// not simulate it as a workload, and carries nothing else of it: not the
// cluster's name or endpoint, not the mirror's account, not the sidecar.
func TestImportedKarpenterDeployment(t *testing.T) {
	export := driftExport + karpenterDeploymentItem
	for _, redact := range []bool{false, true} {
		out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{Redact: redact})
		for _, secret := range []string{"SECRETENDPOINT", "SECRETTOKEN", "123456789012", "creds", "sidecar"} {
			require.NotContains(t, string(out), secret, "redact=%v", redact)
		}
		if redact {
			require.NotContains(t, string(out), "secretcluster")
		}
		sc, err := scenario.LoadManifests("imported.yaml", out, nil)
		require.NoError(t, err, "%s", out)
		for _, w := range sc.Workloads {
			require.NotEqual(t, "karpenter", w.Name, "Karpenter's controller is not a workload")
		}
		s := karpenter.ConfigIn(sc.Components).Settings
		require.True(t, s.InterruptionQueue, "redact=%v", redact)
		require.Equal(t, 30*time.Second, s.BatchMaxDuration)
		require.True(t, s.SpotToSpotConsolidation)
	}
}
