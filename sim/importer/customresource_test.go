package importer

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/kubeexport"
)

// TestCustomResourcesSkipped: objects of another API's kind that bears a
// name the import reads (the Volcano Job, OpenKruise StatefulSets and kwok
// operator NodePool of sim/scenario/testdata/custom, real files, as a
// GitOps folder holds them beside a cluster's export) are skipped with a
// notice; the import goes on. A removed version of a Kubernetes group is
// still a problem.
func TestCustomResourcesSkipped(t *testing.T) {
	var in bytes.Buffer
	require.NoError(t, small.Write(&in))
	for _, f := range []string{"volcano-job.yaml", "kruise-statefulset.yaml", "kwok-nodepool.yaml"} {
		b, err := os.ReadFile("../scenario/testdata/custom/" + f)
		require.NoError(t, err)
		in.WriteString("---\n")
		in.Write(b)
	}
	out, im := importFile(t, "cluster.yaml", &in, Options{})
	all := strings.Join(notices(im), "\n")
	require.Contains(t, all, "1 Job.batch.volcano.sh object(s) skipped: a custom resource of API group batch.volcano.sh, not the Job of batch/v1: its controller, and the pods it would create, are not simulated")
	require.Contains(t, all, "2 StatefulSet.apps.kruise.io object(s) skipped: a custom resource of API group apps.kruise.io, not the StatefulSet of apps/v1")
	require.Contains(t, all, "1 NodePool.kwok.sigs.run-ai.com object(s) skipped: a custom resource of API group kwok.sigs.run-ai.com, not the NodePool of karpenter.sh/v1, karpenter.sh/v1beta1")
	for _, s := range []string{"openmpi-hello", "guestbook", "nodepool-sample"} {
		require.NotContains(t, string(out), s)
	}

	// An apps/v1beta2 Deployment is the user's (an old export): a problem.
	c := kubeexport.Cluster{Nodes: 1, Deployments: 1, Replicas: 1}
	var old bytes.Buffer
	require.NoError(t, c.Write(&old))
	old.WriteString("---\napiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: legacy, namespace: default}\nspec: {}\n")
	im = New(Options{}, im.cat)
	require.NoError(t, im.Add("old.yaml", &old))
	err := im.Write(&bytes.Buffer{})
	require.ErrorContains(t, err, `apiVersion "apps/v1beta2" is not read (read: apps/v1)`)
}
