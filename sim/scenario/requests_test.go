package scenario

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Requests are what the API server makes of the pod spec: a limit without
// a request is the request (per resource, init containers included), and
// sidecars, init containers, pod overhead and pod-level resources count as
// upstream counts them. Every kind that owns pods goes through the same
// compilation.
func TestRequestsAsTheAPIServerDefaultsThem(t *testing.T) {
	sc, err := LoadFile("testdata/requests/scenario.yaml")
	require.NoError(t, err)
	gpu, ok := sc.Resources.Lookup("nvidia.com/gpu")
	require.True(t, ok, "a GPU given only as a limit is a resource the scenario uses")
	const mi, gi = int64(1) << 20, int64(1) << 30
	want := map[string]map[int]int64{
		"Deployment/default/gpu-nvidia":                {cluster.CPU: 1000, cluster.Memory: 256e6, gpu: 1},
		"StatefulSet/default/web":                      {cluster.CPU: 1000, cluster.Memory: 2 * gi},
		"Deployment/default/myapp":                     {cluster.CPU: 2500, cluster.Memory: 1024*mi + 128*mi},
		"Pod/default/test-pod":                         {cluster.CPU: 2250, cluster.Memory: 320 * mi},
		"Job/default/pi":                               {cluster.CPU: 250, cluster.Memory: 64 * mi, cluster.Ephemeral: gi},
		"DaemonSet/kube-system/fluentd-elasticsearch":  {cluster.CPU: 100, cluster.Memory: 200 * mi},
		"Pod/pod-resources-example/pod-resources-demo": {cluster.CPU: 500, cluster.Memory: 100 * mi},
	}
	require.Len(t, sc.Workloads, len(want))
	for _, w := range sc.Workloads {
		exp, ok := want[w.Ref()]
		require.True(t, ok, w.Ref())
		var r cluster.Resources
		for i, v := range exp {
			r[i] = v
		}
		r[cluster.Pods] = 1
		require.Equal(t, sc.Resources.Format(r), sc.Resources.Format(w.Pod.Requests), w.Ref())
	}
	for _, w := range sc.Warnings {
		require.NotContains(t, w.String(), "no cpu or memory requests", "limits are requests")
	}
}

// The API server rejects requests that do not agree with their limits;
// so does the loader, at the field, with the fix.
func TestRequestsAgainstLimits(t *testing.T) {
	pod := func(resources string) string {
		return minimal + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: x\n      resources:\n" + resources
	}
	cases := []struct{ name, resources, want string }{
		{"request above limit", "        requests: {cpu: \"2\"}\n        limits: {cpu: \"1\"}\n",
			`scenario.yaml:15: spec.containers[0].resources.requests.cpu: 2 is more than the limit 1; the API server rejects a request above its limit: lower the request or raise the limit`},
		{"GPU request below its limit", "        requests: {nvidia.com/gpu: 1}\n        limits: {nvidia.com/gpu: 2}\n",
			`scenario.yaml:15: spec.containers[0].resources.requests["nvidia.com/gpu"]: 1 differs from the limit 2: the API server requires the request of a resource that cannot be overcommitted, such as nvidia.com/gpu, to equal its limit; give only the limit (the request defaults to it)`},
		{"GPU request without a limit", "        requests: {nvidia.com/gpu: 1}\n",
			`scenario.yaml:15: spec.containers[0].resources.requests["nvidia.com/gpu"]: a request without a limit: the API server requires a limit for resources that cannot be overcommitted, such as nvidia.com/gpu; move it to limits (the request defaults to the limit)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadString(t, pod(c.resources))
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
	_, err := loadString(t, pod("        requests: {cpu: 500m, nvidia.com/gpu: 1}\n        limits: {cpu: \"1\", nvidia.com/gpu: 1}\n"))
	require.NoError(t, err, "a request below its limit is fine where it may be overcommitted, and an equal one everywhere")
}

func loadString(t *testing.T, doc string) (*Scenario, error) {
	t.Helper()
	return LoadFS(fstest.MapFS{"scenario.yaml": {Data: []byte(doc)}}, "scenario.yaml")
}

// "The pods fit anywhere" is said only of pods that ask for nothing: not
// of pods with limits (their requests), nor of pods that ask only for a
// GPU.
func TestNoRequestsWarning(t *testing.T) {
	warned := func(resources string) bool {
		t.Helper()
		sc, err := loadString(t, minimal+"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: x\n"+resources)
		require.NoError(t, err)
		for _, w := range sc.Warnings {
			if strings.Contains(w.String(), "the pods fit anywhere") {
				return true
			}
		}
		return false
	}
	require.True(t, warned(""))
	require.False(t, warned("      resources: {limits: {cpu: \"1\", memory: 2Gi}}\n"))
	require.False(t, warned("      resources: {limits: {nvidia.com/gpu: 1}}\n"))
}
