package apis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// exampleNodeClassSelectors is the role and the discovery-tag subnet and
// security group selectors that every EC2NodeClass of the
// aws/karpenter-provider-aws examples/v1/*.yaml writes.
const exampleNodeClassSelectors = `  role: "KarpenterNodeRole-${CLUSTER_NAME}"
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}"
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "${CLUSTER_NAME}"
`

// seedNodePoolLinux is a NodePool on the default node class whose one
// requirement the test writes in place of REQ.
const seedNodePoolLinux = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - REQ
` + fixtures.EC2NodeClassAL2023 + "  role: r\n"

// from aws/karpenter-provider-aws examples/v1/windows-2022.yaml, reduced.
const windows2022Example = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: windows2022
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/os
          operator: In
          values: ["windows"]
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: windows2022
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: windows2022
spec:
` + exampleNodeClassSelectors + `  amiSelectorTerms:
    - alias: windows2022@latest # Windows does not support pinning
`

// Windows NodePools and node classes are skipped with a warning at the
// field that asks for Windows, and the Linux pools next to them compile:
// Windows nodes are not simulated, but one Windows pool no longer stops a
// whole tree (before, each was an error and the run did not start).
func TestWindowsIsSkipped(t *testing.T) {
	// from aws/karpenter-provider-aws examples/v1/general-purpose.yaml
	// (v1.15.0), reduced: the Linux pool beside the Windows one.
	linux := "---\n" + strings.Replace(seedNodePoolLinux, "REQ", "{key: kubernetes.io/os, operator: In, values: [linux]}", 1)
	res, _, err := compileYAML(t, "windows-2022.yaml", windows2022Example+linux)
	require.NoError(t, err)
	require.Equal(t, []string{"np"}, poolNames(res))
	require.Equal(t, []SkippedPool{{Name: "windows2022", File: "windows-2022.yaml", Line: 1,
		Why: "Windows nodes are not simulated: kubernetes.io/os In [windows] allows Windows nodes only"}}, res.Skipped)
	require.Equal(t, []string{
		"windows-2022.yaml:9: spec.template.spec.requirements[0]: Windows nodes are not simulated: kubernetes.io/os In [windows] allows Windows nodes only: NodePool \"windows2022\" is skipped and the rest of the cluster simulated (pods that need Windows nodes stay Pending; sim lint lists them)",
		"windows-2022.yaml:33: spec.amiSelectorTerms[0].alias: Windows nodes are not simulated (Windows2022): the simulator has no Windows prices, node overheads or Windows-only scheduling: this EC2NodeClass is skipped, and so are the NodePools that use it (pods that need Windows nodes stay Pending)",
	}, warningTexts(res))
	for _, w := range res.Warnings {
		require.Equal(t, CodeWindows, w.Code)
	}

	// A pool that does not ask for Windows but names a Windows node class
	// is skipped too, saying which class.
	generic := strings.Replace(windows2022Example, "- key: kubernetes.io/os\n          operator: In\n          values: [\"windows\"]\n", "- key: kubernetes.io/arch\n          operator: In\n          values: [\"amd64\"]\n", 1)
	res, _, err = compileYAML(t, "windows-2022.yaml", generic+linux)
	require.NoError(t, err)
	require.Equal(t, []string{"np"}, poolNames(res))
	require.Equal(t, `Windows nodes are not simulated: its EC2NodeClass "windows2022" (windows-2022.yaml:20) runs Windows2022`, res.Skipped[0].Why)

	// from aws/karpenter-provider-aws examples/v1beta1/windows-2019.yaml:
	// the family in spec.amiFamily.
	v1beta1 := strings.NewReplacer("karpenter.sh/v1\n", "karpenter.sh/v1beta1\n", "karpenter.k8s.aws/v1\n", "karpenter.k8s.aws/v1beta1\n",
		"  amiSelectorTerms:\n    - alias: windows2022@latest # Windows does not support pinning\n", "  amiFamily: Windows2019\n",
		"        group: karpenter.k8s.aws\n", "        apiVersion: karpenter.k8s.aws/v1beta1\n").Replace(windows2022Example)
	res, _, err = compileYAML(t, "windows-2019.yaml", v1beta1)
	require.NoError(t, err)
	require.Empty(t, res.NodePools)
	require.Contains(t, strings.Join(warningTexts(res), "\n"), "windows-2019.yaml:32: spec.amiFamily: Windows nodes are not simulated (Windows2019)")

	// An AWSNodeTemplate (v1alpha1) with a Windows family.
	res, _, err = compileYAML(t, "awsnodetemplate.yaml", "apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: win}\nspec:\n  amiFamily: Windows2022\n  subnetSelector: {karpenter.sh/discovery: c}\n")
	require.NoError(t, err)
	require.Contains(t, strings.Join(warningTexts(res), "\n"), "awsnodetemplate.yaml:5: spec.amiFamily: Windows nodes are not simulated (Windows2022)")

	// Other ways to ask for Windows only.
	for _, req := range []string{
		"{key: kubernetes.io/os, operator: NotIn, values: [linux]}",
		"{key: node.kubernetes.io/windows-build, operator: Exists}",
		"{key: beta.kubernetes.io/os, operator: In, values: [windows]}",
	} {
		y := strings.Replace(seedNodePoolLinux, "REQ", req, 1)
		res, _, err = compileYAML(t, "np.yaml", y)
		require.NoError(t, err)
		require.Empty(t, res.NodePools, req)
		require.Contains(t, strings.Join(warningTexts(res), "\n"), "np.yaml:9: spec.template.spec.requirements[0]: Windows nodes are not simulated", req)
	}
	// Linux and Windows together: the Linux nodes are simulated.
	res, _, err = compileYAML(t, "np.yaml", strings.Replace(seedNodePoolLinux, "REQ", "{key: kubernetes.io/os, operator: In, values: [linux, windows]}", 1))
	require.NoError(t, err)
	require.Len(t, res.NodePools, 1)
	require.Empty(t, res.Skipped)
}

func poolNames(res Result) []string {
	var out []string
	for _, p := range res.NodePools {
		out = append(out, p.Name)
	}
	return out
}

// bottlerocketExample is the EC2NodeClass of aws/karpenter-provider-aws
// examples/v1/bottlerocket.yaml without its blockDeviceMappings; the tests
// write the rest of its spec after it.
const bottlerocketExample = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: bottlerocket
spec:
` + exampleNodeClassSelectors + `  amiSelectorTerms:
    - alias: bottlerocket@latest
`

// Linux families compile, and the volume that holds ephemeral storage is
// the family's: Bottlerocket's second volume /dev/xvdb.
func TestLinuxFamiliesAndEphemeralVolume(t *testing.T) {
	// from aws/karpenter-provider-aws examples/v1/bottlerocket.yaml (the
	// EC2NodeClass): a 4Gi OS volume and a 20Gi data volume.
	bottlerocket := bottlerocketExample + `  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs:
        volumeType: gp3
        volumeSize: 4Gi
        deleteOnTermination: true
    # Bottlerocket data volume
    - deviceName: /dev/xvdb
      ebs:
        volumeType: gp3
        volumeSize: 50Gi
        deleteOnTermination: true
`
	for _, tc := range []struct {
		name, yaml, family string
		gib                int64
	}{
		{"bottlerocket alias", bottlerocket, AMIFamilyBottlerocket, 50},
		{"bottlerocket amiFamily", strings.Replace(bottlerocket, "  amiSelectorTerms:\n    - alias: bottlerocket@latest\n", "  amiFamily: Bottlerocket\n  amiSelectorTerms: [{id: ami-0123}]\n", 1), AMIFamilyBottlerocket, 50},
		{"al2023 reads /dev/xvda", strings.Replace(bottlerocket, "bottlerocket@latest", "al2023@latest", 1), AMIFamilyAL2023, 4},
		{"al2 reads /dev/xvda", strings.Replace(bottlerocket, "bottlerocket@latest", "al2@latest", 1), AMIFamilyAL2, 4},
		{"custom reads the last mapping", strings.Replace(bottlerocket, "  amiSelectorTerms:\n    - alias: bottlerocket@latest\n", "  amiFamily: Custom\n  amiSelectorTerms: [{id: ami-0123}]\n", 1), AMIFamilyCustom, 50},
		{"rootVolume wins", strings.Replace(bottlerocket, "    - deviceName: /dev/xvda\n", "    - deviceName: /dev/xvda\n      rootVolume: true\n", 1), AMIFamilyBottlerocket, 4},
		{"no mapping of the device: the default", strings.Replace(bottlerocket, "/dev/xvdb", "/dev/xvdc", 1), AMIFamilyBottlerocket, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := compileYAML(t, "nc.yaml", tc.yaml)
			require.NoError(t, err)
			require.Len(t, res.NodeClasses, 1)
			require.Equal(t, tc.family, res.NodeClasses[0].AMIFamily)
			require.Equal(t, tc.gib, res.NodeClasses[0].RootVolumeGiB)
		})
	}
}

// Bottlerocket nodes get the kubelet Karpenter gives them: kube-reserved
// memory follows maxPods (11 MiB per pod + 255 MiB: UsesENILimitedMemory-
// Overhead is false for Bottlerocket), and podsPerCore and evictionSoft
// are not passed. AL2023 keeps the ENI-limited kube-reserved memory.
func TestBottlerocketKubelet(t *testing.T) {
	// from aws/karpenter-provider-aws examples/v1/bottlerocket.yaml, with the
	// kubelet settings of the EC2NodeClass docs (Kubelet section) added.
	nc := bottlerocketExample + `  kubelet:
    podsPerCore: 2
    maxPods: 110
    evictionHard:
      memory.available: 5%
    evictionSoft:
      memory.available: 10%
    evictionSoftGracePeriod:
      memory.available: 1m
`
	res, _, err := compileYAML(t, "nc.yaml", nc)
	require.NoError(t, err)
	k := res.NodeClasses[0].Kubelet
	require.Equal(t, int32(110), k.MaxPods)
	require.Zero(t, k.PodsPerCore)
	require.True(t, k.KubeReserved.SetMemory)
	require.Equal(t, int64(11*110+255)<<20, k.KubeReserved.MemoryBytes)
	require.Equal(t, 0.05, k.EvictionMemoryPercent, "evictionSoft's 10% is not passed")
	require.Equal(t, []string{
		"nc.yaml:16: spec.kubelet.podsPerCore: Karpenter does not pass podsPerCore to Bottlerocket nodes: ignored",
		"nc.yaml:20: spec.kubelet.evictionSoft: Karpenter does not pass evictionSoft to Bottlerocket nodes: ignored",
	}, warningTexts(res))

	res, _, err = compileYAML(t, "nc.yaml", strings.Replace(nc, "bottlerocket@latest", "al2023@latest", 1))
	require.NoError(t, err)
	k = res.NodeClasses[0].Kubelet
	require.Equal(t, int32(2), k.PodsPerCore)
	require.False(t, k.KubeReserved.SetMemory)
	require.Equal(t, 0.1, k.EvictionMemoryPercent)
	require.Empty(t, res.Warnings)

	// A kube-reserved memory the user sets wins.
	res, _, err = compileYAML(t, "nc.yaml", strings.Replace(nc, "    maxPods: 110\n", "    maxPods: 110\n    kubeReserved: {memory: 1Gi}\n", 1))
	require.NoError(t, err)
	require.Equal(t, int64(1)<<30, res.NodeClasses[0].Kubelet.KubeReserved.MemoryBytes)
}
