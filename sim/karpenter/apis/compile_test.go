package apis

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/manifest"
)

func compileYAML(t *testing.T, file, yaml string) (Result, *cluster.Symbols, error) {
	t.Helper()
	docs, err := manifest.ReadBytes(file, []byte(yaml))
	require.NoError(t, err)
	cat, err := catalog.Default()
	require.NoError(t, err)
	syms := cluster.NewSymbols()
	res, err := Compile(docs, Env{Syms: syms, Resources: cluster.NewResourceNames(), Catalog: cat, Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}})
	return res, syms, err
}

func warningTexts(res Result) []string {
	var out []string
	for _, w := range res.Warnings {
		out = append(out, w.String())
	}
	return out
}

// seedProvisioner is hybrid/karpenter-provisioner.yaml of the seed thread
// (shared/spec/SCENARIO.md), exactly as written.
const seedProvisioner = `apiVersion: karpenter.sh/v1beta1
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: node.kubernetes.io/instance-type
      operator: In
      values: [c5.large, c5a.large, c6i.large]
    - key: topology.kubernetes.io/zone
      operator: In
      values: [us-east-1a, us-east-1b]
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["spot"]
  taints:
    - key: "karpenter.sh/capacity-type"
      value: "spot"
      effect: "NO_SCHEDULE"
  labels:
    karpenter.sh/provisioner-name: "default"
  consolidationPolicy: WhenEmpty
  ttlSecondsAfterEmpty: 30
`

func TestSeedProvisioner(t *testing.T) {
	res, syms, err := compileYAML(t, "hybrid/karpenter-provisioner.yaml", seedProvisioner)
	require.NoError(t, err)
	require.Equal(t, []string{
		`hybrid/karpenter-provisioner.yaml:2: kind: there is no karpenter.sh/v1beta1 Provisioner: v1beta1 renamed Provisioner to NodePool, and Provisioner existed only in karpenter.sh/v1alpha5: read as the v1alpha5 Provisioner it resembles and converted to a karpenter.sh/v1 NodePool, each change listed below (write it as apiVersion: karpenter.sh/v1, kind: NodePool)`,
		`hybrid/karpenter-provisioner.yaml:5: spec: no providerRef: read as nodeClassRef {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default} (default settings unless an EC2NodeClass named default is given)`,
		`hybrid/karpenter-provisioner.yaml:5: spec: no ttlSecondsUntilExpired: v1alpha5 nodes never expired: read as expireAfter: Never (v1 would default to 720h)`,
		`hybrid/karpenter-provisioner.yaml:6: spec.requirements: no kubernetes.io/os requirement: the v1alpha5 AWS webhook defaulted it: added kubernetes.io/os In [linux] (v1 has no such default; write it to keep it)`,
		`hybrid/karpenter-provisioner.yaml:6: spec.requirements: no kubernetes.io/arch requirement: the v1alpha5 AWS webhook defaulted it: added kubernetes.io/arch In [amd64] (v1 has no such default; write it to keep it)`,
		`hybrid/karpenter-provisioner.yaml:19: spec.taints[0].effect: "NO_SCHEDULE" is the EKS API and eksctl spelling, not a Kubernetes taint effect: read as NoSchedule (write effect: NoSchedule)`,
		`hybrid/karpenter-provisioner.yaml:21: spec.labels["karpenter.sh/provisioner-name"]: label karpenter.sh/provisioner-name is in the karpenter.sh domain, which Karpenter reserves: it labels every node karpenter.sh/nodepool=<name> itself (the v1 successor of karpenter.sh/provisioner-name): dropped`,
		`hybrid/karpenter-provisioner.yaml:22: spec.consolidationPolicy: consolidationPolicy is not a Provisioner field (it is spec.disruption.consolidationPolicy of a NodePool): read as disruption.consolidationPolicy: WhenEmpty`,
		`hybrid/karpenter-provisioner.yaml:23: spec.ttlSecondsAfterEmpty: ttlSecondsAfterEmpty: 30 next to consolidationPolicy: WhenEmpty: read as disruption.consolidateAfter: 30s, the wait before empty nodes are removed (v1: consolidationPolicy: WhenEmpty, consolidateAfter: 30s)`,
	}, warningTexts(res))
	require.Len(t, res.NodePools, 1)
	p := res.NodePools[0]
	require.Equal(t, "default", p.Name)
	require.Equal(t, WhenEmpty, p.Disruption.Policy)
	require.Equal(t, 30*time.Second, p.Disruption.ConsolidateAfter)
	require.False(t, p.Disruption.ConsolidateNever)
	require.Zero(t, p.ExpireAfter, "Never")
	require.Empty(t, p.Labels)
	require.Len(t, p.Taints, 1)
	require.Equal(t, cluster.EffectNoSchedule, p.Taints[0].Effect)
	require.Equal(t, "spot", syms.Name(p.Taints[0].Value))
	var keys []string
	for _, r := range p.Requirements {
		keys = append(keys, syms.Name(r.Key))
	}
	require.Equal(t, []string{"node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "karpenter.sh/capacity-type", "kubernetes.io/os", "kubernetes.io/arch"}, keys)
	require.Equal(t, NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, p.NodeClassRef)
	require.Equal(t, "karpenter.sh/v1beta1 Provisioner", p.Source)
	require.Len(t, p.Disruption.Budgets, 1)
	require.Equal(t, cluster.IntOrPercent{Value: 10, Percent: true}, p.Disruption.Budgets[0].Nodes)
}

func TestSeedNodePoolV1(t *testing.T) {
	res, _, err := compileYAML(t, "np.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: burst-spot}
spec:
  template:
    metadata:
      labels: {provisioner-group: karpenter-burst}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.large, c5a.large, c6i.large]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      taints:
        - {key: karpenter.sh/capacity-type, value: spot, effect: NoSchedule}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
`+fixtures.EC2NodeClassAL2023+`  role: "KarpenterNodeRole-${CLUSTER_NAME}"
  kubelet: {maxPods: 58, kubeReserved: {cpu: 100m}}
  blockDeviceMappings:
    - deviceName: /dev/xvda
      rootVolume: true
      ebs: {volumeSize: 50Gi, volumeType: gp3}
`)
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	p := res.NodePools[0]
	require.Equal(t, 720*time.Hour, p.ExpireAfter)
	require.Equal(t, WhenEmpty, p.Disruption.Policy)
	require.Equal(t, int32(58), p.NodeClass.Kubelet.MaxPods)
	require.Equal(t, int64(100), p.NodeClass.Kubelet.KubeReserved.CPUMilli)
	require.Equal(t, int64(50), p.NodeClass.RootVolumeGiB)
	require.Equal(t, "karpenter.sh/v1 NodePool", p.Source)
}

// One warning per legacy conversion, exact text.
func TestLegacyConversionWarnings(t *testing.T) {
	alpha := func(spec string) string {
		return "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec:\n  requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}, {key: kubernetes.io/arch, operator: In, values: [arm64]}, {key: kubernetes.io/os, operator: In, values: [linux]}, {key: karpenter.k8s.aws/instance-family, operator: In, values: [m6g]}]\n" + spec
	}
	beta := func(spec string) string {
		return "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: p}\nspec:\n" + spec
	}
	betaTemplate := "  template:\n    spec:\n      nodeClassRef: {name: default}\n      requirements: []\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"v1alpha5 kind", alpha(""), "kind: karpenter.sh/v1alpha5 Provisioner was replaced by the NodePool (karpenter.sh/v1beta1, now karpenter.sh/v1) and is not served since Karpenter v0.33: converted to a karpenter.sh/v1 NodePool, each change listed below"},
		{"ttlSecondsAfterEmpty alone", alpha("  ttlSecondsAfterEmpty: 60\n"), "spec.ttlSecondsAfterEmpty: ttlSecondsAfterEmpty: 60 is v1alpha5: read as disruption {consolidationPolicy: WhenEmpty, consolidateAfter: 1m}"},
		{"consolidation enabled", alpha("  consolidation: {enabled: true}\n"), "spec.consolidation: consolidation: {enabled: true} is v1alpha5: read as disruption {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}"},
		{"neither", alpha(""), "spec: no ttlSecondsAfterEmpty and consolidation not enabled: a v1alpha5 Provisioner removed neither empty nor underutilized nodes: read as disruption.consolidateAfter: Never (v1 would consolidate with WhenEmptyOrUnderutilized after 0s)"},
		{"consolidation disabled", alpha("  consolidation: {enabled: false}\n"), "spec.consolidation: no ttlSecondsAfterEmpty and consolidation not enabled: a v1alpha5 Provisioner removed neither empty nor underutilized nodes: read as disruption.consolidateAfter: Never (v1 would consolidate with WhenEmptyOrUnderutilized after 0s)"},
		{"ttlSecondsUntilExpired", alpha("  ttlSecondsUntilExpired: 2592000\n"), "spec.ttlSecondsUntilExpired: ttlSecondsUntilExpired: 2592000 is v1alpha5: read as spec.template.spec.expireAfter: 720h"},
		{"no ttlSecondsUntilExpired", alpha(""), "spec: no ttlSecondsUntilExpired: v1alpha5 nodes never expired: read as expireAfter: Never (v1 would default to 720h)"},
		{"providerRef", alpha("  providerRef: {name: default}\n"), "spec.providerRef: providerRef is v1alpha5: read as spec.template.spec.nodeClassRef {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}"},
		{"inline provider", alpha("  provider: {subnetSelector: {karpenter.sh/discovery: demo}}\n"), "spec.provider: the inline provider was replaced by an EC2NodeClass in v1beta1: its subnet, security group, AMI and IAM settings do not change where pods land and are ignored; nodes get the default EC2NodeClass settings"},
		{"kubeletConfiguration", alpha("  kubeletConfiguration: {maxPods: 20}\n"), "spec.kubeletConfiguration: kubeletConfiguration is v1alpha5 (v1 keeps it in the EC2NodeClass's spec.kubelet): applied to this NodePool's nodes"},
		{"default capacity type", "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {}\n", "spec.requirements: no karpenter.sh/capacity-type requirement: the v1alpha5 AWS webhook defaulted it: added karpenter.sh/capacity-type In [on-demand] (v1 has no such default; write it to keep it)"},
		{"default category", "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {}\n", "spec.requirements: no karpenter.k8s.aws/instance-category requirement: the v1alpha5 AWS webhook defaulted it: added karpenter.k8s.aws/instance-category In [c, m, r] (v1 has no such default; write it to keep it)"},
		{"default generation", "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec: {}\n", "spec.requirements: no karpenter.k8s.aws/instance-generation requirement: the v1alpha5 AWS webhook defaulted it: added karpenter.k8s.aws/instance-generation Gt 2 (v1 has no such default; write it to keep it)"},
		{"drift in a Provisioner", alpha("  drift: {enabled: false}\n"), `spec.drift: drift: {enabled: ...} never was a Provisioner or NodePool field, and drift cannot be turned off in karpenter.sh/v1: read as a budget that blocks drift, {nodes: "0", reasons: [Drifted]}`},
		{"do-not-consolidate taint", alpha("  taints: [{key: karpenter.sh/do-not-consolidate, effect: NoSchedule}]\n"), `spec.taints[0].key: taint karpenter.sh/do-not-consolidate means nothing to Karpenter: it is an ordinary taint that pods must tolerate to run on these nodes; to keep Karpenter from disrupting nodes use the karpenter.sh/do-not-disrupt: "true" annotation in spec.template.metadata.annotations (nodes Karpenter did not launch are never disrupted by it)`},
		{"do-not-consolidate annotation", alpha("  annotations: {karpenter.sh/do-not-consolidate: \"true\"}\n"), `spec.annotations["karpenter.sh/do-not-consolidate"]: annotation karpenter.sh/do-not-consolidate was removed in Karpenter v1 and is ignored: use karpenter.sh/do-not-disrupt: "true"`},
		{"reserved label", alpha("  labels: {karpenter.sh/team: a}\n"), `spec.labels["karpenter.sh/team"]: label karpenter.sh/team is in the karpenter.sh domain, which Karpenter reserves for its own labels: dropped`},
		{"v1beta1 kind", beta(betaTemplate), "apiVersion: karpenter.sh/v1beta1 NodePool was replaced by karpenter.sh/v1 (v1beta1 is not served since Karpenter v1.1): converted to karpenter.sh/v1, each change listed below"},
		{"WhenUnderutilized", beta(betaTemplate + "  disruption: {consolidationPolicy: WhenUnderutilized}\n"), `spec.disruption.consolidationPolicy: "WhenUnderutilized" is v1beta1: read as WhenEmptyOrUnderutilized`},
		{"consolidateAfter with WhenUnderutilized", beta(betaTemplate + "  disruption: {consolidationPolicy: WhenUnderutilized, consolidateAfter: 30s}\n"), "spec.disruption.consolidateAfter: v1beta1 allowed consolidateAfter only with consolidationPolicy: WhenEmpty (the API server rejected it here): read as v1 reads it, the wait before underutilized nodes are consolidated"},
		{"expireAfter moved", beta(betaTemplate + "  disruption: {expireAfter: 24h}\n"), "spec.disruption.expireAfter: expireAfter moved to spec.template.spec.expireAfter in karpenter.sh/v1: read there"},
		{"kubelet moved", beta("  template:\n    spec:\n      nodeClassRef: {name: default}\n      requirements: []\n      kubelet: {maxPods: 30}\n"), "spec.template.spec.kubelet: kubelet moved to the EC2NodeClass (spec.kubelet) in karpenter.sh/v1: applied to this NodePool's nodes"},
		{"nodeClassRef apiVersion", beta("  template:\n    spec:\n      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}\n      requirements: []\n"), "spec.template.spec.nodeClassRef.apiVersion: nodeClassRef.apiVersion is v1beta1: read as group: karpenter.k8s.aws"},
		{"v1beta1 NO_SCHEDULE", beta("  template:\n    spec:\n      nodeClassRef: {name: default}\n      requirements: []\n      taints: [{key: a, effect: NO_EXECUTE}]\n"), `spec.template.spec.taints[0].effect: "NO_EXECUTE" is the EKS API and eksctl spelling, not a Kubernetes taint effect: read as NoExecute (write effect: NoExecute)`},
		{"AWSNodeTemplate", "apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: default}\nspec: {subnetSelector: {a: b}, launchTemplate: lt}\n", "kind: karpenter.k8s.aws/v1alpha1 AWSNodeTemplate was replaced by EC2NodeClass in karpenter.k8s.aws/v1beta1 and removed in v1: read as an EC2NodeClass (its subnet, security group and AMI selectors do not change where pods land and are ignored)"},
		{"AWSNodeTemplate launchTemplate", "apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: default}\nspec: {subnetSelector: {a: b}, launchTemplate: lt}\n", "spec.launchTemplate: custom launch templates were removed in v1beta1: ignored (nodes get the default kubelet settings unless the Provisioner's kubeletConfiguration sets them)"},
		{"missing node class", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gone}\n      requirements: []\n", `spec.template.spec.nodeClassRef: no EC2NodeClass named "gone" among the manifests: nodes get the default settings (in a cluster the NodePool would stay NotReady and launch nothing until it exists)`},
		{"unknown instance type", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.larg]}]\n", `spec.template.spec.requirements[0].values[0]: instance type "m5.larg" is not in the EC2 catalogue: no node can have it`},
		{"node do-not-disrupt duration", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    metadata: {annotations: {karpenter.sh/do-not-disrupt: 10m}}\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n", `spec.template.metadata.annotations["karpenter.sh/do-not-disrupt"]: karpenter.sh/do-not-disrupt: "10m" on a node means nothing: Karpenter reads only "true" there (a duration such as "10m" applies to pods): these nodes are not protected`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := compileYAML(t, "p.yaml", tc.yaml)
			require.NoError(t, err)
			var msgs []string
			for _, w := range res.Warnings {
				msgs = append(msgs, w.Message())
			}
			require.Contains(t, msgs, tc.want)
		})
	}
}

// Invalid or obsolete input in karpenter.sh/v1 is an error with the v1
// equivalent as its hint.
func TestV1Errors(t *testing.T) {
	pool := func(spec string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n" + spec
	}
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"consolidation disabled", pool("  disruption:\n    consolidation: {enabled: false}\n"),
			"p.yaml:10: spec.disruption.consolidation: consolidation is not a karpenter.sh/v1 field (consolidation: {enabled: ...} belonged to the v1alpha5 Provisioner); to turn consolidation off write spec.disruption.consolidateAfter: Never"},
		{"consolidation enabled", pool("  disruption:\n    consolidation: {enabled: true}\n"),
			"p.yaml:10: spec.disruption.consolidation: consolidation is not a karpenter.sh/v1 field (consolidation: {enabled: ...} belonged to the v1alpha5 Provisioner); consolidation is on by default in v1 (consolidationPolicy: WhenEmptyOrUnderutilized): remove the field"},
		{"drift disabled", pool("  disruption:\n    drift: {enabled: false}\n"),
			`p.yaml:10: spec.disruption.drift: drift cannot be turned off in karpenter.sh/v1, and drift: {enabled: ...} never was a NodePool or Provisioner field; to block drift add a budget: spec.disruption.budgets: [{nodes: "0", reasons: [Drifted]}]`},
		{"NO_SCHEDULE", pool("      taints: [{key: a, effect: NO_SCHEDULE}]\n"),
			`p.yaml:9: spec.template.spec.taints[0].effect: "NO_SCHEDULE" is the EKS API and eksctl spelling, not a Kubernetes taint effect; write effect: NoSchedule`},
		{"unknown effect", pool("      taints: [{key: a, effect: NoScheduel}]\n"),
			`p.yaml:9: spec.template.spec.taints[0].effect: effect "NoScheduel" is not one of NoSchedule, PreferNoSchedule, NoExecute; use NoSchedule, PreferNoSchedule or NoExecute`},
		{"WhenUnderutilized", pool("  disruption: {consolidationPolicy: WhenUnderutilized}\n"),
			`p.yaml:9: spec.disruption.consolidationPolicy: "WhenUnderutilized" is v1beta1; in karpenter.sh/v1 use WhenEmptyOrUnderutilized`},
		{"reserved label", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    metadata: {labels: {karpenter.sh/provisioner-name: p}}\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n",
			`p.yaml:6: spec.template.metadata.labels["karpenter.sh/provisioner-name"]: label karpenter.sh/provisioner-name is in the karpenter.sh domain, which Karpenter reserves; remove it or use a domain of your own (karpenter.sh/nodepool is set on every node automatically)`},
		{"expireAfter under disruption", pool("  disruption: {expireAfter: 720h}\n"),
			"p.yaml:9: spec.disruption.expireAfter: expireAfter moved from spec.disruption to spec.template.spec.expireAfter in karpenter.sh/v1; move it to spec.template.spec.expireAfter"},
		{"kubelet in template", pool("      kubelet: {maxPods: 20}\n"),
			"p.yaml:9: spec.template.spec.kubelet: kubelet moved from the NodePool to the EC2NodeClass in karpenter.sh/v1; move it to the EC2NodeClass's spec.kubelet"},
		{"ttlSecondsAfterEmpty", pool("  ttlSecondsAfterEmpty: 30\n"),
			"p.yaml:9: spec.ttlSecondsAfterEmpty: ttlSecondsAfterEmpty is a v1alpha5 Provisioner field; write spec.disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}"},
		{"typo", pool("  disruption: {consolidationPolcy: WhenEmpty}\n"),
			`p.yaml:9: spec.disruption.consolidationPolcy: unknown field "consolidationPolcy"; did you mean "consolidationPolicy"?`},
		{"missing nodeClassRef", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      requirements: []\n",
			"p.yaml:6: spec.template.spec.nodeClassRef: nodeClassRef is required; add spec.template.spec.nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}"},
		{"days", pool("  disruption: {consolidateAfter: 1d}\n"),
			`p.yaml:9: spec.disruption.consolidateAfter: "1d" is not a duration Karpenter accepts; write whole hours, minutes or seconds such as 720h, 30m or 90s, or Never`},
		{"budget nodes", pool("  disruption: {budgets: [{nodes: ten}]}\n"),
			`p.yaml:9: spec.disruption.budgets[0].nodes: "ten" is not a node count or percentage; write a count such as "1" or a percentage such as "10%"`},
		{"schedule without duration", pool("  disruption: {budgets: [{nodes: \"0\", schedule: \"@daily\"}]}\n"),
			"p.yaml:9: spec.disruption.budgets[0]: 'schedule' must be set with 'duration'; give both schedule and duration, or neither"},
		{"bad cron", pool("  disruption: {budgets: [{nodes: \"0\", schedule: \"0 25 * * *\", duration: 1h}]}\n"),
			`p.yaml:9: spec.disruption.budgets[0].schedule: hour: "25" is not a value from 0 to 23; write a cron expression such as "0 9 * * mon-fri" (UTC)`},
		{"budget reason", pool("  disruption: {budgets: [{nodes: \"0\", reasons: [Expired]}]}\n"),
			`p.yaml:9: spec.disruption.budgets[0].reasons[0]: "Expired" is not a disruption reason; use Empty, Underutilized, Drifted or Unhealthy`},
		{"operator case", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: kubernetes.io/arch, operator: in, values: [amd64]}]\n",
			`p.yaml:8: spec.template.spec.requirements[0].operator: "in" is not a requirement operator; write operator: In`},
		{"capacity type spelling", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [SPOT]}]\n",
			`p.yaml:8: spec.template.spec.requirements[0].values[0]: "SPOT" is not a capacity type; the EKS spellings SPOT and ON_DEMAND are not Karpenter values: write spot or on-demand`},
		{"minValues", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [m5], minValues: 2}]\n",
			"p.yaml:8: spec.template.spec.requirements[0].minValues: minValues 2 is more than the 1 values given; list at least minValues values"},
		{"weight", pool("  weight: 101\n"),
			"p.yaml:9: spec.weight: weight 101 is out of range; give a weight from 1 to 100 (higher is tried first)"},
		{"hostname requirement", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: kubernetes.io/hostname, operator: Exists}]\n",
			"p.yaml:8: spec.template.spec.requirements[0].key: requirement key kubernetes.io/hostname is restricted; remove it: Karpenter picks hostnames and sets karpenter.sh/nodepool itself"},
		{"v1beta1 Provisioner with both ttl and consolidation", "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\nspec:\n  ttlSecondsAfterEmpty: 30\n  consolidation: {enabled: true}\n",
			"p.yaml:5: spec.ttlSecondsAfterEmpty: ttlSecondsAfterEmpty and consolidation.enabled are mutually exclusive in a v1alpha5 Provisioner; keep one: consolidation.enabled: true already removes empty nodes (v1: consolidationPolicy: WhenEmptyOrUnderutilized)"},
		{"NodePool in v1alpha5", "apiVersion: karpenter.sh/v1alpha5\nkind: NodePool\nmetadata: {name: p}\n",
			"p.yaml:2: kind: karpenter.sh/v1alpha5 has no NodePool (it had Provisioner); write apiVersion: karpenter.sh/v1 (or kind: Provisioner for a v1alpha5 object)"},
		{"reserved requirement key typo", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: [{key: karpenter.k8s.aws/instance-gpu-manufacturor, operator: In, values: [nvidia]}]\n",
			"p.yaml:8: spec.template.spec.requirements[0].key: requirement key karpenter.k8s.aws/instance-gpu-manufacturor is in the karpenter.k8s.aws domain, which Karpenter reserves; did you mean karpenter.k8s.aws/instance-gpu-manufacturer? use a well-known label or a domain of your own"},
		{"instanceStorePolicy", "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: c}\nspec:\n  instanceStorePolicy: RAID1\n",
			`p.yaml:5: spec.instanceStorePolicy: instanceStorePolicy "RAID1" is not RAID0, the only policy; write instanceStorePolicy: RAID0, or leave it out`},
		{"duplicate", pool("") + "---\n" + pool(""),
			`p.yaml:12: metadata.name: a second NodePool named "p" (the first is at p.yaml:1; a Provisioner becomes a NodePool of the same name); rename one of them`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := compileYAML(t, "p.yaml", tc.yaml)
			require.Error(t, err)
			var es manifest.Errors
			require.True(t, errors.As(err, &es))
			var msgs []string
			for _, e := range es {
				msgs = append(msgs, e.Error())
			}
			require.Contains(t, msgs, tc.want, strings.Join(msgs, "\n"))
		})
	}
}

func TestNodeTaintWarning(t *testing.T) {
	require.Contains(t, NodeTaintWarning("karpenter.sh/do-not-consolidate"), "Karpenter never disrupts nodes it did not launch")
	require.Empty(t, NodeTaintWarning("dedicated"))
}

func TestHandles(t *testing.T) {
	for kind, want := range map[string]bool{"NodePool": true, "Provisioner": true, "EC2NodeClass": true, "AWSNodeTemplate": true, "Deployment": false, "NodeClaim": false} {
		require.Equal(t, want, Handles(&manifest.Document{Kind: kind}), kind)
	}
}

// Every label key of the catalogue is well-known, so "no well-known label"
// implies "no instance type has it" (the unknown-label warning).
func TestCatalogLabelKeysAreWellKnown(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	keys := cat.LabelKeys()
	require.Len(t, keys, 23)
	for _, k := range keys {
		require.True(t, isWellKnown(k), k)
	}
}

// Huge but valid NodePool values saturate beyond any run instead of
// overflowing: limits.cpu "1e16" (1e19 millicores) acted as 0, an
// expireAfter near time.Duration's maximum overflowed the virtual time.
func TestHugeNodePoolValuesSaturate(t *testing.T) {
	res, _, err := compileYAML(t, "np.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: big}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expireAfter: 2562047h47m16s
  limits: {cpu: "1e16", memory: 1e30, nodes: "1e25"}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: r
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
`)
	require.NoError(t, err)
	p := res.NodePools[0]
	require.Equal(t, maxLimit, p.Limits.Max[cluster.CPU])
	require.Equal(t, maxLimit, p.Limits.Max[cluster.Memory])
	require.Equal(t, maxLimit, p.Limits.Nodes)
	require.Equal(t, duration.Saturated, p.ExpireAfter)

	s, err := compileSettings(t, "apiVersion: x/v1\nkind: Scenario\nspec:\n  karpenter:\n    unavailableOfferingsTTL: 2562047h\n")
	require.NoError(t, err)
	require.Equal(t, duration.Saturated, s.UnavailableOfferingsTTL)
}

// A v1.15 NodePool may pace node repair with a budget for reason
// Unhealthy: it is read (not refused) without a finding here (package
// karpenter says when the NodeRepair gate leaves it pacing nothing), and
// the other reasons' allowances are not touched by it.
func TestUnhealthyBudgetReason(t *testing.T) {
	res, _, err := compileYAML(t, "p.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption:
    budgets:
      - {nodes: "0", reasons: [Unhealthy]}
      - {nodes: "5"}
`)
	require.NoError(t, err)
	require.NotContains(t, strings.Join(warningTexts(res), "\n"), "Unhealthy")
	d := res.NodePools[0].Disruption
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	require.Equal(t, 5, d.AllowedDisruptions(now, 100, ReasonUnderutilized))
	require.Equal(t, 0, d.AllowedDisruptions(now, 100, ReasonUnhealthy))
}

// Balanced (v1.14) is a policy of its own (upstream's docs,
// concepts/disruption: "consolidationPolicy: Balanced"), read without a
// warning; an unknown policy names the three.
func TestBalancedPolicy(t *testing.T) {
	pool := func(policy string) string {
		return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n  disruption: {consolidationPolicy: " + policy + ", consolidateAfter: 1m}\n"
	}
	res, _, err := compileYAML(t, "p.yaml", pool("Balanced"))
	require.NoError(t, err)
	for _, w := range res.Warnings {
		require.NotContains(t, w.Message(), "consolidationPolicy")
	}
	require.Len(t, res.NodePools, 1)
	require.Equal(t, Balanced, res.NodePools[0].Disruption.Policy)
	require.True(t, Balanced.ConsolidatesUnderutilized())
	require.False(t, WhenEmpty.ConsolidatesUnderutilized())
	require.Equal(t, "Balanced", Balanced.String())
	_, _, err = compileYAML(t, "p.yaml", pool("Balance"))
	require.ErrorContains(t, err, "use WhenEmpty, WhenEmptyOrUnderutilized or Balanced")
}

// Static NodePools (spec.replicas): the v1 CRD's rules on them (KC
// pkg/apis/v1/nodepool.go, v1.15.0) are errors at their fields; the
// consolidation fields they ignore are warnings.
func TestStaticNodePoolRules(t *testing.T) {
	pool := func(extra string) string {
		return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: fixed}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
` + extra
	}
	res, _, err := compileYAML(t, "np.yaml", pool("  replicas: 3\n  limits: {nodes: 4}\n"))
	require.NoError(t, err)
	require.True(t, res.NodePools[0].Static)
	require.Equal(t, int64(3), res.NodePools[0].Replicas)
	require.Equal(t, int64(4), res.NodePools[0].Limits.Nodes)

	for extra, want := range map[string]string{
		"  replicas: -1\n":                      "np.yaml:10: spec.replicas: replicas -1 must not be negative",
		"  replicas: 2\n  limits: {cpu: 100}\n": `np.yaml:11: spec.limits["cpu"]: only 'limits.nodes' is supported on static NodePools`,
		"  replicas: 2\n  weight: 10\n":         "np.yaml:11: spec.weight: 'weight' is not supported on static NodePools",
	} {
		_, _, err := compileYAML(t, "np.yaml", pool(extra))
		require.Error(t, err, extra)
		require.Contains(t, err.Error(), want)
	}
	res, _, err = compileYAML(t, "np.yaml", pool("  replicas: 2\n  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 1m}\n"))
	require.NoError(t, err)
	w := strings.Join(warningTexts(res), "\n")
	require.Contains(t, w, "spec.disruption.consolidationPolicy: ignored on a static NodePool (spec.replicas): Karpenter never consolidates its nodes, it keeps 2 of them")
	require.Contains(t, w, "spec.disruption.consolidateAfter: ignored on a static NodePool")
}
