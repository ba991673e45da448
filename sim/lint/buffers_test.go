package lint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// caBuffer is a Cluster Autoscaler cluster (one m5.large node group) with
// both --capacity-buffer-* flags and, after it, extra documents; the
// buffer is Story 1 of the Cluster Autoscaler's buffers proposal
// (pkg/proposals/buffers.md, typos fixed) in namespace default.
func caBuffer(flags string, extra ...string) []string {
	docs := []string{strings.Replace(header, "spec:\n", "spec:\n  clusterAutoscaler: {args: ["+flags+"]}\n", 1), `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: ng, instanceType: m5.large, minSize: 1, maxSize: 5, desiredCapacity: 1}
---
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata:
  name: my-deployment-buffer
spec:
  scalableRef:
    apiGroup: apps
    kind: Deployment
    name: my-deployment
  percentage: 10
  replicas: 1
`}
	return append(docs, extra...)
}

const bufferFlags = "--capacity-buffer-controller-enabled, --capacity-buffer-pod-injection-enabled"

// A buffer whose pod no node group hosts (8 cpu on m5.large) keeps
// nothing: an ineffective-setting at the buffer. One that fits does not.
func TestBufferFitsNoNodeGroup(t *testing.T) {
	r := check(t, caBuffer(bufferFlags, deployment("my-deployment", "8", ""))...)
	var at []Finding
	for _, f := range findingsOf(r, KindIneffective) {
		if strings.Contains(f.Message, "fit no node group") {
			at = append(at, f)
		}
	}
	require.Len(t, at, 1, "%+v", r.Findings)
	require.Equal(t, "s.yaml", at[0].File)
	require.Equal(t, []string{"NodeGroup/ng"}, at[0].Sources)

	r = check(t, caBuffer(bufferFlags, deployment("my-deployment", "1", ""))...)
	for _, f := range r.Findings {
		require.NotContains(t, f.Message, "CapacityBuffer", "%+v", f)
	}
}

// The flags: both off (their defaults) or one alone keep nothing, each
// an ineffective-setting; a buffer of another strategy is left alone.
func TestBufferFlags(t *testing.T) {
	dep := deployment("my-deployment", "1", "")
	for flags, code := range map[string]string{
		"":                                     "ineffective.ca-buffer-flags-off",
		"--capacity-buffer-controller-enabled": "ineffective.ca-buffer-no-injection",
		"--capacity-buffer-pod-injection-enabled": "ineffective.ca-buffer-no-controller",
	} {
		sc := load(t, caBuffer(flags, dep)...)
		var codes []string
		for _, w := range sc.Warnings {
			if strings.Contains(w.Code, "buffer") {
				codes = append(codes, w.Code)
			}
		}
		require.Equal(t, []string{code}, codes, flags)
		require.Len(t, findingsOf(Check(sc), KindIneffective), 1, flags)
	}
	docs := caBuffer(bufferFlags, dep)
	docs[1] = strings.Replace(docs[1], "  percentage: 10\n", "  provisioningStrategy: buffer.x-k8s.io/standby-capacity\n  percentage: 10\n", 1)
	sc := load(t, docs...)
	var codes []string
	for _, w := range sc.Warnings {
		codes = append(codes, w.Code)
	}
	require.Contains(t, codes, "ineffective.ca-buffer-strategy")
}
