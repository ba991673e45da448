package apis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// generalPurposeV1 is aws/karpenter-provider-aws examples/v1/general-purpose.yaml
// (v1.15.0), reduced to what the tests need.
const generalPurposeV1 = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general-purpose
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: "KarpenterNodeRole-${CLUSTER_NAME}" # replace with your cluster name
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name
  amiSelectorTerms:
    - alias: al2023@latest # Amazon Linux 2023
`

// An EC2NodeClass the v1 CRD refuses is an error at each field, and its
// NodePool gets one saying it cannot launch nodes (before: an info line
// for missing amiSelectorTerms, nothing for the selectors, and the run
// launched nodes for it).
func TestEC2NodeClassRequiredFields(t *testing.T) {
	_, _, err := compileYAML(t, "gp.yaml", generalPurposeV1)
	require.NoError(t, err, "Karpenter's example is valid")

	// The example without its subnet and security group selectors and
	// its AMI alias.
	cut := strings.NewReplacer(`  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name
  amiSelectorTerms:
    - alias: al2023@latest # Amazon Linux 2023
`, "").Replace(generalPurposeV1)
	_, _, err = compileYAML(t, "gp.yaml", cut)
	require.Error(t, err)
	require.Equal(t, `gp.yaml:12: spec.template.spec.nodeClassRef: EC2NodeClass "default" (gp.yaml:17) is refused by the API server (spec.subnetSelectorTerms: subnetSelectorTerms is required and cannot be empty), so NodePool "general-purpose" cannot launch nodes; fix the EC2NodeClass (its errors are listed at its own lines)
gp.yaml:21: spec.subnetSelectorTerms: subnetSelectorTerms is required and cannot be empty; add subnetSelectorTerms such as [{tags: {karpenter.sh/discovery: <cluster name>}}] as in Karpenter's examples (the simulator does not model subnets, but the API server refuses an EC2NodeClass without them and its NodePools launch nothing)
gp.yaml:21: spec.securityGroupSelectorTerms: securityGroupSelectorTerms is required and cannot be empty; add securityGroupSelectorTerms such as [{tags: {karpenter.sh/discovery: <cluster name>}}] as in Karpenter's examples (the simulator does not model security groups, but the API server refuses an EC2NodeClass without them and its NodePools launch nothing)
gp.yaml:21: spec.amiSelectorTerms: amiSelectorTerms is required and cannot be empty in karpenter.k8s.aws/v1; add amiSelectorTerms: [{alias: al2023@latest}] (or the family your nodes run; AMIs are not simulated, but the API server refuses an EC2NodeClass without them and its NodePools launch nothing)`, err.Error())

	// The CRD's CEL rules, one change each.
	for _, tc := range []struct{ from, to, want string }{
		{`    - alias: al2023@latest # Amazon Linux 2023`, `    - alias: al2023`,
			`gp.yaml:30: spec.amiSelectorTerms[0].alias: 'alias' is improperly formatted, must match the format 'family@version'`},
		{`    - alias: al2023@latest # Amazon Linux 2023`, `    - alias: ubuntu@latest`,
			`gp.yaml:30: spec.amiSelectorTerms[0].alias: family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'`},
		{`    - alias: al2023@latest # Amazon Linux 2023`, "    - alias: al2023@latest\n    - id: ami-0123456789abcdef0",
			`gp.yaml:30: spec.amiSelectorTerms[0].alias: 'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms`},
		{`    - alias: al2023@latest # Amazon Linux 2023`, `    - id: ami-0123456789abcdef0`,
			`gp.yaml:21: spec: must specify amiFamily if amiSelectorTerms does not contain an alias`},
		{`    - alias: al2023@latest # Amazon Linux 2023`, "    - alias: al2023@latest\n  amiFamily: Bottlerocket",
			`gp.yaml:31: spec.amiFamily: if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias`},
		{`  role: "KarpenterNodeRole-${CLUSTER_NAME}" # replace with your cluster name`, "  role: r\n  instanceProfile: p",
			`gp.yaml:21: spec: must specify exactly one of ['role', 'instanceProfile']`},
		{`        karpenter.sh/discovery: "${CLUSTER_NAME}" # replace with your cluster name`, `        karpenter.sh/discovery: ""`,
			`gp.yaml:24: spec.subnetSelectorTerms[0].tags: empty tag keys or values aren't supported`},
		{"  amiSelectorTerms:", "  tags: {karpenter.sh/nodepool: x}\n  amiSelectorTerms:",
			`spec.tags["karpenter.sh/nodepool"]: tag contains a restricted tag matching karpenter.sh/nodepool`},
	} {
		_, _, err := compileYAML(t, "gp.yaml", strings.Replace(generalPurposeV1, tc.from, tc.to, 1))
		require.ErrorContains(t, err, tc.want, tc.to)
		require.ErrorContains(t, err, `so NodePool "general-purpose" cannot launch nodes`, tc.to)
	}
}

// A karpenter.k8s.aws/v1beta1 EC2NodeClass is read as v1 with a legacy
// warning, as a karpenter.sh/v1beta1 NodePool is (before: nothing), and
// the selectors v1beta1 required too are still checked.
func TestLegacyEC2NodeClass(t *testing.T) {
	// from aws/karpenter-provider-aws examples/v1beta1/general-purpose.yaml
	const v1beta1 = `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        # Include general purpose instance families
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [c5, m5, r5]
      nodeClassRef:
        name: default
---
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
	res, _, err := compileYAML(t, "gp.yaml", v1beta1)
	require.NoError(t, err)
	var got *Warning
	for i := range res.Warnings {
		if w := &res.Warnings[i]; w.Line == 16 {
			got = w
		}
	}
	require.NotNil(t, got, "%v", warningTexts(res))
	require.Equal(t, CodeLegacy, got.Code)
	require.Equal(t, "gp.yaml:16: apiVersion: karpenter.k8s.aws/v1beta1 EC2NodeClass was replaced by karpenter.k8s.aws/v1 (v1beta1 is not served since Karpenter v1.1, whose API server refuses it): read as karpenter.k8s.aws/v1, as Karpenter v1.0's conversion webhook read it (write apiVersion: karpenter.k8s.aws/v1; its amiFamily: AL2 becomes amiSelectorTerms: [{alias: al2@latest}])", got.String())
	require.Equal(t, AMIFamilyAL2, res.NodePools[0].NodeClass.AMIFamily)

	cut := strings.Replace(v1beta1, "  subnetSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: \"${CLUSTER_NAME}\" # replace with your cluster name\n", "", 1)
	_, _, err = compileYAML(t, "gp.yaml", cut)
	require.ErrorContains(t, err, "gp.yaml:20: spec.subnetSelectorTerms: subnetSelectorTerms is required and cannot be empty")
}
