package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Names and namespaces are checked as the API server checks them, for
// every kind at once: an unsubstituted placeholder is an error at its line
// that says to render the file (before: ${EKS_CLUSTER} was accepted as a
// name).
func TestObjectNames(t *testing.T) {
	// from msfidelis/eks-karpenter-autonomous-cluster
	// files/karpenter/ec2_node_class.yml.tpl (a Terraform templatefile),
	// reduced.
	const tpl = `---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: ${EKS_CLUSTER}
spec:
  amiFamily: AL2
  role: ${KARPENTER_NODE_ROLE}
`
	_, err := ReadBytes("ec2_node_class.yml", []byte(tpl))
	require.EqualError(t, err, `ec2_node_class.yml:5: metadata.name: EC2NodeClass name "${EKS_CLUSTER}" is not a DNS-1123 subdomain; the file looks like an unrendered template (${EKS_CLUSTER} is a placeholder): render it first (helm template, envsubst, kustomize build or terraform's templatefile) and simulate the output`)

	for _, tc := range []struct{ doc, want string }{
		// A namespace is a DNS-1123 label: no dots.
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: team.a}\n", `x.yaml:3: metadata.namespace: namespace "team.a" is not a DNS-1123 label: must not contain dots`},
		{"apiVersion: v1\nkind: Namespace\nmetadata: {name: team.a}\n", `x.yaml:3: metadata.name: Namespace name "team.a" is not a DNS-1123 label: must not contain dots`},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: Web}\n", `x.yaml:3: metadata.name: Deployment name "Web" is not a DNS-1123 subdomain; rename it as the API server requires`},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: \"$(APP)\"}\n", "($(APP) is a placeholder)"},
		{"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: a/b}\n", `x.yaml:3: metadata.name: Role name "a/b" is not a valid path segment: may not contain "/" or "%"`},
		{"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: " + strings.Repeat("a", 53) + "}\n", "is 53 characters long, more than 52"},
		// Helm's braces unquoted are no string at all.
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n", "x.yaml:4: metadata.name: a key must be plain text, not a mapping; the file looks like an unrendered Helm template"},
	} {
		_, err := ReadBytes("x.yaml", []byte(tc.doc))
		require.ErrorContains(t, err, tc.want, tc.doc)
	}
	for _, ok := range []string{
		// RBAC names are path segments: colons are fine.
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: \"system:controller:karpenter\"}\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web.v2, namespace: shop}\n",
		// Not API objects: the simulator's and eksctl's own documents.
		"apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: My_Scenario}\n",
		"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: Prod_Cluster, region: us-east-1}\n",
	} {
		_, err := ReadBytes("x.yaml", []byte(ok))
		require.NoError(t, err, ok)
	}
}
