package scenario

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

// TestCustomResourcesOfKubernetesKindNames: kinds are matched by API group
// and kind. A Volcano Job, OpenKruise's Advanced StatefulSets and the kwok
// operator's NodePool (real files, testdata/custom) are other APIs' kinds
// of those names: each kind and group is skipped with one info line saying
// its pods are not simulated, and the rest of the scenario loads.
func TestCustomResourcesOfKubernetesKindNames(t *testing.T) {
	sc, err := LoadFile("testdata/custom/scenario.yaml")
	require.NoError(t, err)
	var refs []string
	for _, w := range sc.Workloads {
		refs = append(refs, w.Ref())
	}
	require.Equal(t, []string{"Deployment/default/web"}, refs)
	require.Empty(t, sc.Components, "the kwok operator's NodePool runs no Karpenter")
	require.Equal(t, strings.Join([]string{
		"testdata/custom/volcano-job.yaml:3: 1 Job.batch.volcano.sh object(s) skipped: a custom resource of API group batch.volcano.sh, not Kubernetes's Job (batch/v1): the simulator does not read it, and the pods its controller would create are not simulated",
		"testdata/custom/kwok-nodepool.yaml:4: 1 NodePool.kwok.sigs.run-ai.com object(s) skipped: the simulator reads NodePool of API group karpenter.sh (karpenter), not of kwok.sigs.run-ai.com: a custom resource, whose controller is not simulated, nor whatever it would create",
		"testdata/custom/kruise-statefulset.yaml:4: 2 StatefulSet.apps.kruise.io object(s) skipped: a custom resource of API group apps.kruise.io, not Kubernetes's StatefulSet (apps/v1): the simulator does not read it, and the pods its controller would create are not simulated",
	}, "\n")+"\n", warningsOf(sc))

	docs, err := manifest.ReadFile("testdata/custom/volcano-job.yaml")
	require.NoError(t, err)
	require.False(t, Reads(docs[0]), "sim sweep --emit-job does not ship a custom resource")
	require.True(t, CustomResource(docs[0]))
}

// TestKubernetesGroupsKeepVersionErrors: a kind of a Kubernetes group (or
// a group a letter or two from the kind's) under a version that is not
// served is still the user's mistake, with the error that says what is.
func TestKubernetesGroupsKeepVersionErrors(t *testing.T) {
	for _, c := range []struct{ apiVersion, kind, want string }{
		{"extensions/v1beta1", "Deployment", "extensions/v1beta1 is not a served version of Deployment; extensions/v1beta1 and apps/v1beta* were removed in Kubernetes 1.16; use apiVersion: apps/v1"},
		{"apps/v1beta1", "StatefulSet", "apps/v1beta1 is not a served version of StatefulSet; apps/v1beta* were removed in Kubernetes 1.16; use apiVersion: apps/v1"},
		{"batch/v1beta1", "CronJob", "batch/v1beta1 is not a served version of CronJob; batch/v1beta1 was removed in Kubernetes 1.25; use apiVersion: batch/v1"},
		{"policy/v1beta1", "PodDisruptionBudget", "policy/v1beta1 was removed in Kubernetes 1.25"},
		{"app/v1", "Deployment", "app/v1 is not a served version of Deployment"},
		{"storage.k8s.io/v1beta1", "StorageClass", "storage.k8s.io/v1beta1 is not a served version of StorageClass"},
		{"karpenter.sh/v1alpha5", "NodePool", "karpenter.sh/v1alpha5 has no NodePool (it had Provisioner)"},
		{"karpenter.sh/v2", "NodePool", `NodePool is served as karpenter.sh/v1 (formerly karpenter.sh/v1beta1), not "karpenter.sh/v2"`},
	} {
		doc := "apiVersion: " + c.apiVersion + "\nkind: " + c.kind + "\nmetadata: {name: x}\nspec: {}\n"
		_, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + "---\n" + doc)}}, "s.yaml")
		require.ErrorContains(t, err, c.want, c.apiVersion)
	}
}
