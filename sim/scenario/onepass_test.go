package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

// TestErrorsInOnePass: every file's problems and the references between
// the objects come in one run, sorted by file and line. The folder
// (testdata/onepass, the Kubernetes docs' examples) holds a pod whose
// claim is not there, a claim bound to a PersistentVolume that is not
// there, a Deployment of a removed version and a file that does not parse:
// the syntax error does not keep the other files from being read, nor the
// refused Deployment the references from being checked.
func TestErrorsInOnePass(t *testing.T) {
	_, err := LoadFile("testdata/onepass/scenario.yaml")
	es, ok := manifest.AsErrors(err)
	require.True(t, ok, "%v", err)
	var got []string
	for _, e := range es {
		got = append(got, e.Error())
	}
	const dir = "testdata/onepass/manifests/"
	require.Equal(t, []string{
		dir + `claim.yaml:12: spec.volumeName: no PersistentVolume named "task-pv-volume" among the manifests; add the PersistentVolume or remove spec.volumeName`,
		dir + `configmap.yaml:4: syntax error: did not find expected ',' or '}'; check for a missing comma, or a [ or { that is not closed`,
		dir + `deployment.yaml:3: apiVersion: apps/v1beta2 is not a served version of Deployment; extensions/v1beta1 and apps/v1beta* were removed in Kubernetes 1.16; use apiVersion: apps/v1`,
		dir + `pod.yaml:17: spec.volumes: volume 0 names PersistentVolumeClaim "task-pv-claim", which is not among the manifests (namespace default): the pods could never start; add the PersistentVolumeClaim to the manifests, or remove the volume`,
	}, got)

	// Loaded twice, the same errors in the same order.
	_, again := LoadFile("testdata/onepass/scenario.yaml")
	require.Equal(t, err.Error(), again.Error())
}

// TestScenarioErrorsWithIncludes: a Scenario document that does not decode
// is not compiled, but its includes are still read: their own errors come
// in the same run as the Scenario's.
func TestScenarioErrorsWithIncludes(t *testing.T) {
	manifests, err := filepath.Abs("testdata/onepass/manifests")
	require.NoError(t, err)
	b, err := os.ReadFile("testdata/onepass/scenario.yaml")
	require.NoError(t, err)
	s := strings.Replace(string(b), "  duration: 1h\n", "  durration: 1h\n", 1)
	s = strings.Replace(s, "include: [manifests]", "include: ["+manifests+"]", 1)
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	_, err = LoadFile(path)
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, path+`:5: spec.durration: unknown field "durration"; did you mean "duration"?`)
	require.Contains(t, msg, "configmap.yaml:4: syntax error")
	require.Contains(t, msg, "deployment.yaml:3: apiVersion: apps/v1beta2 is not a served version of Deployment")
	require.NotContains(t, msg, "task-pv-claim", "references are checked when the scenario compiles")
}

// TestRefusedIsNotMissing: an object whose own error is reported (a
// removed version, a field that does not decode) is not also "missing"
// where another object names it: one error each, not two.
func TestRefusedIsNotMissing(t *testing.T) {
	pod, err := os.ReadFile("testdata/onepass/manifests/pod.yaml")
	require.NoError(t, err)
	// kubernetes/website content/en/examples/pods/storage/pv-claim.yaml
	// with a size that is not a quantity, and a PriorityClass of the
	// removed scheduling.k8s.io/v1beta1 that the pod names.
	claim := "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: task-pv-claim\nspec:\n  accessModes:\n  - ReadWriteOnce\n  resources:\n    requests:\n      storage: 3 gigs\n  storageClassName: manual\n"
	class := "apiVersion: scheduling.k8s.io/v1beta1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
	p := strings.Replace(string(pod), "spec:\n  containers:", "spec:\n  priorityClassName: high\n  containers:", 1)
	dir := t.TempDir()
	for name, data := range map[string]string{"pod.yaml": p, "claim.yaml": claim, "class.yaml": class,
		"scenario.yaml": minimal + "  include: [pod.yaml, claim.yaml, class.yaml]\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	_, err = LoadFile(filepath.Join(dir, "scenario.yaml"))
	es, ok := manifest.AsErrors(err)
	require.True(t, ok, "%v", err)
	var got []string
	for _, e := range es {
		got = append(got, strings.TrimPrefix(e.File, dir+string(filepath.Separator))+": "+e.Path)
	}
	require.Equal(t, []string{"claim.yaml: spec.resources.requests.storage", "class.yaml: apiVersion"}, got, "%v", err)

	// Without the class, the pod's claims are checked: the claim that did
	// not decode is not missing either.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pod.yaml"), pod, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(minimal+"  include: [pod.yaml, claim.yaml]\n"), 0o644))
	_, err = LoadFile(filepath.Join(dir, "scenario.yaml"))
	es, ok = manifest.AsErrors(err)
	require.True(t, ok, "%v", err)
	require.Len(t, es, 1, "%v", err)
	require.Equal(t, "spec.resources.requests.storage", es[0].Path)
}
