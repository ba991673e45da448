package provreq

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

func docs(t *testing.T, yaml string) []*manifest.Document {
	t.Helper()
	ds, err := manifest.ReadBytes("pr.yaml", []byte(yaml))
	require.NoError(t, err)
	return ds
}

func decodeOne(t *testing.T, yaml string) (Request, error) {
	t.Helper()
	ds := docs(t, yaml)
	require.Len(t, ds, 1)
	return Decode(ds[0])
}

// The FAQ's request (cluster-autoscaler FAQ.md "How can I use
// ProvisioningRequest to run batch workloads?").
const faqRequest = `apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata:
  name: provider
spec:
  provisioningClassName: "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
  podSets:
  - podTemplateRef:
      name: cluster-autoscaler
    count: 10
`

func TestDecodeFAQRequest(t *testing.T) {
	r, err := decodeOne(t, faqRequest)
	require.NoError(t, err)
	require.Equal(t, "default/provider", r.String())
	require.Equal(t, ClassBestEffortAtomic, r.Class)
	require.Equal(t, []PodSet{{Template: "cluster-autoscaler", Count: 10, Line: 9}}, r.PodSets)
	require.Equal(t, 10, r.Pods())
	require.True(t, r.Supported(""))
	require.False(t, r.Supported("gpu"), "best-effort-atomic is off with a processor instance")
	require.False(t, r.CheckCapacity(""))
}

// What the CRD rejects is an error at its file, line and field.
func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"no spec", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\n",
			"pr.yaml:1: spec: missing spec"},
		{"no class", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec:\n  podSets: [{podTemplateRef: {name: t}, count: 1}]\n",
			"pr.yaml:4: spec.provisioningClassName: missing spec.provisioningClassName (required)"},
		{"bad class", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec:\n  provisioningClassName: Check_Capacity\n  podSets: [{podTemplateRef: {name: t}, count: 1}]\n",
			`pr.yaml:5: spec.provisioningClassName: "Check_Capacity" is not a valid class name`},
		{"no pod sets", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec:\n  provisioningClassName: check-capacity.autoscaling.x-k8s.io\n  podSets: []\n",
			"pr.yaml:6: spec.podSets: spec.podSets needs at least 1 item"},
		{"count 0", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec:\n  provisioningClassName: check-capacity.autoscaling.x-k8s.io\n  podSets:\n  - podTemplateRef: {name: t}\n    count: 0\n",
			"pr.yaml:8: spec.podSets[0].count: count 0: should be greater than or equal to 1"},
		{"no template", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec:\n  provisioningClassName: check-capacity.autoscaling.x-k8s.io\n  podSets:\n  - count: 2\n",
			"pr.yaml:7: spec.podSets[0].podTemplateRef.name: missing podTemplateRef.name (required)"},
		{"unknown field", "apiVersion: autoscaling.x-k8s.io/v1\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec:\n  provisioningClassName: check-capacity.autoscaling.x-k8s.io\n  podSet: []\n",
			"pr.yaml:6: spec.podSet"},
		{"version", "apiVersion: autoscaling.x-k8s.io/v2\nkind: ProvisioningRequest\nmetadata: {name: a}\nspec: {}\n",
			`pr.yaml:1: apiVersion: ProvisioningRequest apiVersion "autoscaling.x-k8s.io/v2" is not served`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeOne(t, tc.yaml)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// supported_classes.go: which requests an instance processes.
func TestSupported(t *testing.T) {
	cc := Request{Class: ClassCheckCapacity}
	withParam := Request{Class: ClassCheckCapacity, Parameters: map[string]string{ParamProcessorInstance: "gpu"}}
	prefixed := Request{Class: "gpu" + ClassCheckCapacity}
	require.True(t, cc.Supported(""))
	require.False(t, cc.Supported("gpu"), "with an instance, only requests that name it (or its prefix)")
	require.False(t, withParam.Supported(""))
	require.True(t, withParam.Supported("gpu"))
	require.False(t, withParam.Supported("cpu"))
	require.True(t, prefixed.Supported("gpu"), "the deprecated prefixed class")
	require.False(t, prefixed.Supported(""))
	require.False(t, (&Request{Class: "queued-provisioning.gke.io"}).Supported(""))
	require.True(t, (&Request{Parameters: map[string]string{ParamNoRetry: "true"}}).NoRetry())
	require.False(t, (&Request{Parameters: map[string]string{ParamNoRetry: "yes"}}).NoRetry())
}

func TestConsumers(t *testing.T) {
	ds := docs(t, `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    metadata:
      annotations: {cluster-autoscaler.kubernetes.io/consume-provisioning-request: old}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  annotations: {autoscaling.x-k8s.io/consume-provisioning-request: provider}
spec:
  template:
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    autoscaling.x-k8s.io/consume-provisioning-request: new
    cluster-autoscaler.kubernetes.io/consume-provisioning-request: old
spec: {containers: [{name: c, image: i}]}
`)
	cs := Consumers(ds)
	require.Len(t, cs, 3)
	require.Equal(t, "old", cs[0].Request)
	require.Equal(t, `spec.template.metadata.annotations["cluster-autoscaler.kubernetes.io/consume-provisioning-request"]`, cs[0].Path)
	require.False(t, cs[0].OnController)
	require.Equal(t, "provider", cs[1].Request)
	require.True(t, cs[1].OnController)
	require.Equal(t, "new", cs[2].Request, "the new key wins")
}
