package config

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

// The handler's Helm chart renders a DaemonSet (IMDS mode) or, with
// enableSqsTerminationDraining, a Deployment (queue mode); reduced from
// aws/aws-node-termination-handler
// config/helm/aws-node-termination-handler/templates/daemonset.linux.yaml
// and deployment.yaml.
func TestFindTerminationHandler(t *testing.T) {
	doc := func(kind, image, env string) *manifest.Document {
		return workloadDoc(t, "nth.yaml", kind, "aws-node-termination-handler", "nth",
			"        - name: aws-node-termination-handler\n          image: "+image+"\n          env:\n"+env)
	}
	img := "public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.22.0"
	h, ok := FindTerminationHandler(doc("DaemonSet", img, "            - {name: ENABLE_SPOT_INTERRUPTION_DRAINING, value: \"true\"}\n"))
	require.True(t, ok)
	require.Equal(t, TerminationHandler{Mode: NTHIMDS, DrainOnInterruption: true, Source: "DaemonSet/kube-system/aws-node-termination-handler"}, h)

	h, ok = FindTerminationHandler(doc("DaemonSet", img, "            - {name: ENABLE_REBALANCE_DRAINING, value: \"true\"}\n"))
	require.True(t, ok)
	require.True(t, h.DrainOnRebalance)

	h, ok = FindTerminationHandler(doc("Deployment", "amazon/aws-node-termination-handler@sha256:0123", "            - {name: ENABLE_SQS_TERMINATION_DRAINING, value: \"true\"}\n"))
	require.True(t, ok)
	require.Equal(t, NTHQueue, h.Mode)
	require.True(t, h.DrainOnRebalance && h.DrainOnInterruption)

	_, ok = FindTerminationHandler(doc("DaemonSet", "example.com/aws-node-termination-handler-exporter:v1", "            - {name: X, value: y}\n"))
	require.False(t, ok)
}

func TestNodeTerminationHandlerSetting(t *testing.T) {
	docs, err := manifest.ReadBytes("s.yaml", []byte(caScenario+"    nodeTerminationHandler: sqs\n"))
	require.NoError(t, err)
	_, err = (&SettingsSpec{NodeTerminationHandler: "sqs"}).Compile(docs[0], "spec.clusterAutoscaler")
	require.EqualError(t, err, `s.yaml:6: spec.clusterAutoscaler.nodeTerminationHandler: unknown mode "sqs"; use none, imds (the DaemonSet) or queue (the Deployment with an SQS queue)`)
	s, err := (&SettingsSpec{NodeTerminationHandler: "queue"}).Compile(docs[0], "spec.clusterAutoscaler")
	require.NoError(t, err)
	require.True(t, s.TerminationHandlerSet)
	require.Equal(t, NTHQueue, s.TerminationHandler.Mode)
}
