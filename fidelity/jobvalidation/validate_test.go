package jobvalidation

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/sweep"
)

// validateJob runs a Job through what a create request does before
// storage: decoding (strict), defaulting, conversion to the internal type,
// the registry strategy's PrepareForCreate and Validate.
func validateJob(t *testing.T, doc string) field.ErrorList {
	var j batchv1.Job
	require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &j))
	legacyscheme.Scheme.Default(&j)
	var in batch.Job
	require.NoError(t, legacyscheme.Scheme.Convert(&j, &in, nil))
	if in.Namespace == "" {
		in.Namespace = "default" // the request's namespace
	}
	in.UID = types.UID("3c2e1a9e-6b9e-4d6f-9a55-3a8f2b1c0d11") // set by the API server
	ctx := genericapirequest.WithNamespace(context.Background(), in.Namespace)
	job.Strategy.PrepareForCreate(ctx, &in)
	return job.Strategy.Validate(ctx, &in)
}

func validateConfigMap(t *testing.T, doc string) field.ErrorList {
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(doc), &cm))
	legacyscheme.Scheme.Default(&cm)
	var in api.ConfigMap
	require.NoError(t, legacyscheme.Scheme.Convert(&cm, &in, nil))
	if in.Namespace == "" {
		in.Namespace = "default"
	}
	return corevalidation.ValidateConfigMap(&in)
}

func split(t *testing.T, data []byte) (cm, j string) {
	for _, doc := range strings.Split(string(data), "\n---\n") {
		switch {
		case strings.Contains(doc, "\nkind: ConfigMap\n"):
			cm = doc
		case strings.Contains(doc, "\nkind: Job\n"):
			j = doc
		default:
			t.Fatalf("unexpected document:\n%s", doc)
		}
	}
	return cm, j
}

// Every form --emit-job writes passes the API server's validation.
func TestEmittedManifestsValidate(t *testing.T) {
	files := []sweep.File{{Path: "sweeps/grid.yaml", Data: []byte("a: 1\n")}, {Path: "base/hybrid.yaml", Data: []byte("b: 2\n")}, {Path: "base/my grid+v2.yaml", Data: []byte("c: 3\n")}}
	specs := map[string]sweep.JobSpec{
		"configmap": {Name: "sim-sweep-1a2b3c4d5e", Image: "registry.example.com/sim:v1", Shards: 20, Parallelism: 5, BackoffLimitPerIndex: 2,
			Args: []string{"sweeps/grid.yaml", "--runs", "10", "--seed", "1"}, Files: files, WorkDir: ".", Memory: 300 << 20, CPU: 1},
		"claims": {Name: "sweep", Namespace: "sims", Image: "sim:v1", Shards: 3, BackoffLimitPerIndex: 0,
			Args: []string{"grid.yaml"}, ScenarioClaim: "scenarios", ResultsClaim: "results", Memory: 1 << 30, CPU: 4},
		"embedded": {Name: "frontier", Image: "sim:v1", Shards: 100, Parallelism: 10, BackoffLimitPerIndex: 1,
			Args: []string{"hybrid-frontier"}, Memory: 64 << 20, CPU: 1},
	}
	for name, js := range specs {
		data, err := sweep.Manifests(js)
		require.NoError(t, err, name)
		cm, j := split(t, data)
		require.Empty(t, validateJob(t, j), name)
		if cm != "" {
			require.Empty(t, validateConfigMap(t, cm), name)
		}
	}
}

// The validation is the real one: a Job it must refuse is refused.
func TestValidationRefuses(t *testing.T) {
	data, err := sweep.Manifests(sweep.JobSpec{Name: "x", Image: "sim:v1", Shards: 2, Args: []string{"a"}, Memory: 1 << 20, CPU: 1})
	require.NoError(t, err)
	_, j := split(t, data)
	noCompletions := strings.Replace(j, "  completions: 2\n", "", 1)
	require.NotEqual(t, j, noCompletions)
	errs := validateJob(t, noCompletions)
	require.Contains(t, errs.ToAggregate().Error(), "spec.completions: Required value")
	neg := strings.Replace(j, "backoffLimitPerIndex: 0", "backoffLimitPerIndex: -1", 1)
	require.NotEqual(t, j, neg)
	errs = validateJob(t, neg)
	require.Contains(t, errs.ToAggregate().Error(), "spec.backoffLimitPerIndex: Invalid value: -1")
}
