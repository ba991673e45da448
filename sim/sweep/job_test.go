package sweep

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/experiment"
)

// SplitManifests splits Manifests' output into its documents and decodes
// them strictly with the API types (unknown fields fail): the ConfigMap,
// if any, and the Job.
func SplitManifests(data []byte) (*corev1.ConfigMap, *batchv1.Job, error) {
	var cm *corev1.ConfigMap
	var job *batchv1.Job
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return nil, nil, err
		}
		switch meta.Kind {
		case "ConfigMap":
			cm = &corev1.ConfigMap{}
			if err := yaml.UnmarshalStrict([]byte(doc), cm); err != nil {
				return nil, nil, err
			}
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict([]byte(doc), job); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("unexpected kind %q", meta.Kind)
		}
	}
	return cm, job, nil
}

func TestManifests(t *testing.T) {
	js := JobSpec{Name: "sim-sweep-1", Namespace: "sims", Image: "example.com/sim:v1", Shards: 8, Parallelism: 3, BackoffLimitPerIndex: 2,
		Args: []string{"grid.yaml", "--runs", "5"}, WorkDir: "sweeps", Memory: 100<<20 + 1, CPU: 2,
		Files: []File{{Path: "sweeps/grid.yaml", Data: []byte("a: 1\n")}, {Path: "base/scenario.yaml", Data: []byte("b: 2\n")}}}
	data, err := Manifests(js)
	require.NoError(t, err)
	cm, job, err := SplitManifests(data)
	require.NoError(t, err)
	require.NotNil(t, cm)
	require.Equal(t, "sim-sweep-1-scenarios", cm.Name)
	require.Equal(t, map[string]string{"f0-grid.yaml": "a: 1\n", "f1-scenario.yaml": "b: 2\n"}, cm.Data)

	spec := job.Spec
	require.Equal(t, batchv1.IndexedCompletion, *spec.CompletionMode)
	require.Equal(t, int32(8), *spec.Completions)
	require.Equal(t, int32(3), *spec.Parallelism)
	require.Equal(t, int32(2), *spec.BackoffLimitPerIndex)
	pod := spec.Template.Spec
	require.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy, "backoffLimitPerIndex needs it")
	require.True(t, *pod.SecurityContext.RunAsNonRoot)
	c := pod.Containers[0]
	require.Equal(t, "example.com/sim:v1", c.Image)
	require.Equal(t, []string{"sweep", "grid.yaml", "--runs", "5", "--shards", "8", "--workers", "2"}, c.Args)
	require.Equal(t, "/sweep/sweeps", c.WorkingDir)
	require.Equal(t, resource.MustParse("101Mi"), c.Resources.Requests[corev1.ResourceMemory], "rounded up to MiB")
	require.Equal(t, resource.MustParse("2"), c.Resources.Requests[corev1.ResourceCPU])
	require.Equal(t, []corev1.KeyToPath{{Key: "f0-grid.yaml", Path: "sweeps/grid.yaml"}, {Key: "f1-scenario.yaml", Path: "base/scenario.yaml"}},
		pod.Volumes[0].ConfigMap.Items)
	require.Equal(t, "/sweep", c.VolumeMounts[0].MountPath)

	// A results volume: the shards write their partials there.
	js.ResultsClaim, js.ScenarioClaim = "results", "scenarios"
	data, err = Manifests(js)
	require.NoError(t, err)
	cm, job, err = SplitManifests(data)
	require.NoError(t, err)
	require.Nil(t, cm, "the files are on the named claim")
	c = job.Spec.Template.Spec.Containers[0]
	require.Equal(t, []string{"--out", "/results/"}, c.Args[len(c.Args)-2:])
	require.Equal(t, "scenarios", job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	require.Equal(t, "results", job.Spec.Template.Spec.Volumes[1].PersistentVolumeClaim.ClaimName)

	// ConfigMap keys may hold only [-._a-zA-Z0-9].
	require.Equal(t, "f3-my_grid_v2.yaml", configMapKey(3, "dir/my grid+v2.yaml"))
	require.Equal(t, "f0-caf__.yaml", configMapKey(0, "x/café.yaml"), "each byte of a non-ASCII letter")

	js.ScenarioClaim, js.Files = "", []File{{Path: "big.yaml", Data: bytes.Repeat([]byte("x"), 2<<20)}}
	_, err = Manifests(js)
	require.ErrorContains(t, err, "more than a ConfigMap holds (1 MiB): put them on a volume and give its PersistentVolumeClaim with --scenario-claim")
}

// BenchmarkMerge10000 reads and merges the partials of 10,000 (point,
// seed) results of 90 metrics each, in 8 shards, and renders the JSON:
// issue 25 asks for under 5 s.
func BenchmarkMerge10000(b *testing.B) {
	s := testSweep(500, 20)
	var parts [][]byte
	for i := range 8 {
		var buf bytes.Buffer
		id, _ := Identify(s, nil, "x")
		pw, err := NewPartialWriter(&buf, s, id, Shard{i, 8})
		require.NoError(b, err)
		seeds := s.Seeds()
		for k := range s.Pairs() {
			if k%8 != i {
				continue
			}
			r := Result{Point: k / s.Runs, Run: k % s.Runs, Seed: seeds[k%s.Runs]}
			for j := range 90 {
				r.Metrics = append(r.Metrics, experiment.Metric{Path: fmt.Sprintf("section%d.metric%d", j/10, j), Value: float64(k*j%977) / 3})
			}
			require.NoError(b, pw.Write(r))
		}
		require.NoError(b, pw.Close())
		parts = append(parts, buf.Bytes())
	}
	b.ResetTimer()
	for b.Loop() {
		m := NewMerger()
		for i, p := range parts {
			require.NoError(b, m.Read(bytes.NewReader(p), fmt.Sprint(i)))
		}
		def, rs, err := m.Results()
		require.NoError(b, err)
		out, err := Aggregate(def, rs)
		require.NoError(b, err)
		_, err = out.JSON()
		require.NoError(b, err)
	}
}
