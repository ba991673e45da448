package lint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// faqProvReq is cluster-autoscaler FAQ.md's ProvisioningRequest example
// ("How can I use ProvisioningRequest to run batch workloads?") as
// written: the request names PodTemplate cluster-autoscaler while the
// template is named template, and the consume annotation is on the
// Deployment's own metadata.
const faqProvReq = `---
apiVersion: v1
kind: PodTemplate
metadata:
  name: template
template:
  spec:
    containers:
    - image: ubuntu
      name: default
      resources:
        requests:
          cpu: "1"
          memory: 600Mi
---
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata:
  name: provider
spec:
  provisioningClassName: "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
  podSets:
  - podTemplateRef:
      name: cluster-autoscaler
    count: 10
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: consumer
  annotations:
    autoscaling.x-k8s.io/consume-provisioning-request: provider
spec:
  replicas: 10
  selector:
    matchLabels:
      app: consumer
  template:
    metadata:
      labels:
        app: consumer
    spec:
      tolerations:
        - {key: capacity-type, operator: Equal, value: on-demand, effect: NoSchedule}
      containers:
      - name: default
        image: ubuntu
        resources:
          requests:
            cpu: "1"
            memory: 600Mi
        args: ["sleep"]
`

func provReqFindings(r Result) map[string]Finding {
	out := map[string]Finding{}
	for _, f := range findingsOf(r, KindIneffective) {
		out[f.Path] = f
	}
	return out
}

func TestProvisioningRequestFindings(t *testing.T) {
	// The flag on: the missing template and the annotation no pod gets.
	on := header + "  clusterAutoscaler:\n    args: [--nodes=1:10:core-on-demand, --enable-provisioning-requests=true]\n"
	fs := provReqFindings(check(t, on, caGroup, faqProvReq))
	tpl, ok := fs["spec.podSets[0].podTemplateRef.name"]
	require.True(t, ok, "%v", fs)
	require.Equal(t, Warning, tpl.Severity)
	require.Contains(t, tpl.Message, "no PodTemplate cluster-autoscaler in namespace default")
	require.Contains(t, tpl.Message, "FailedToCreatePods")
	ann, ok := fs[`metadata.annotations["autoscaling.x-k8s.io/consume-provisioning-request"]`]
	require.True(t, ok, "%v", fs)
	require.Contains(t, ann.Message, "its pods do not get it")
	require.Positive(t, ann.Line)

	// The flag off (its default): the request does nothing.
	off := header + "  clusterAutoscaler:\n    args: [--nodes=1:10:core-on-demand]\n"
	var disabled []Finding
	for _, f := range findingsOf(check(t, off, caGroup, faqProvReq), KindIneffective) {
		if f.Path == "" {
			disabled = append(disabled, f)
		}
	}
	require.Len(t, disabled, 1)
	require.Contains(t, disabled[0].Message, "--enable-provisioning-requests is off")
	require.Equal(t, "add --enable-provisioning-requests=true to the Cluster Autoscaler's flags (spec.clusterAutoscaler.args or its Deployment)", disabled[0].Fix)

	// Karpenter alone does not read them.
	r := check(t, header, nodeClass, nodePool("default", "", "", ""), faqProvReq)
	var none []Finding
	for _, f := range findingsOf(r, KindIneffective) {
		if f.Line > 0 && f.Path == "" {
			none = append(none, f)
		}
	}
	require.Len(t, none, 1)
	require.Contains(t, none[0].Message, "Karpenter does not read ProvisioningRequests")
}
