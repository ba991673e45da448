package lint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A karpenter.k8s.aws/v1beta1 EC2NodeClass is an obsolete-setting
// warning whose fix is the v1 form, said once (the message no longer
// repeats it in parentheses).
func TestLegacyEC2NodeClassObsolete(t *testing.T) {
	// from aws/karpenter-provider-aws examples/v1beta1/general-purpose.yaml
	// (its EC2NodeClass), beside a v1 pool of the tests.
	const v1beta1 = `---
apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiFamily: AL2
  role: "KarpenterNodeRole-${CLUSTER_NAME}" # replace with your cluster name
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name
`
	r := check(t, header, nodePool("general-purpose", "{}", "", ""), v1beta1, deployment("web", "500m", ""))
	var got []Finding
	for _, f := range findingsOf(r, KindObsolete) {
		if f.Path == "apiVersion" {
			got = append(got, f)
		}
	}
	require.Len(t, got, 1)
	require.Equal(t, Warning, got[0].Severity)
	require.Equal(t, "write apiVersion: karpenter.k8s.aws/v1; its amiFamily: AL2 becomes amiSelectorTerms: [{alias: al2@latest}]", got[0].Fix)
	require.True(t, strings.HasSuffix(got[0].Message, "as Karpenter v1.0's conversion webhook read it"), got[0].Message)
}
