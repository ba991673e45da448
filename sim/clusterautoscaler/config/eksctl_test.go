package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/manifest"
)

var testZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

func compile(t *testing.T, yaml string) ([]NodeGroup, []*manifest.Error, error) {
	t.Helper()
	cat, err := catalog.Default()
	require.NoError(t, err)
	docs, err := manifest.ReadBytes("cluster.yaml", []byte(yaml))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	return CompileClusterConfig(docs[0], Env{Catalog: cat, Region: "us-east-1", Zones: testZones})
}

// errorTexts is the text of every error, in order.
func errorTexts(errs []*manifest.Error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

const header = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: demo
  region: us-east-1
`

func TestEksctlManagedGroup(t *testing.T) {
	gs, warns, err := compile(t, header+`managedNodeGroups:
  - name: spot-workers
    instanceTypes: [m5.large, m5a.large]
    spot: true
    minSize: 0
    maxSize: 20
    desiredCapacity: 1
    availabilityZones: [us-east-1b, us-east-1a]
    labels: {team: web}
    taints:
      - {key: dedicated, value: web, effect: NoSchedule}
      - {key: spot, effect: PREFER_NO_SCHEDULE}
    iam:
      withAddonPolicies: {autoScaler: true}
    ssh: {allow: true, publicKeyName: mine}
    volumeSize: 100
`)
	require.NoError(t, err)
	require.Empty(t, warns)
	require.Len(t, gs, 1)
	g := gs[0]
	require.True(t, g.Managed)
	require.True(t, g.Spot())
	require.True(t, g.CapacityRebalance)
	require.Equal(t, cloud.CapacityOptimized, g.SpotStrategy)
	require.Equal(t, []string{"m5.large", "m5a.large"}, g.InstanceTypes)
	require.Equal(t, []string{"us-east-1a", "us-east-1b"}, g.Zones)
	require.Equal(t, [3]int{0, 20, 1}, [3]int{g.MinSize, g.MaxSize, g.DesiredCapacity})
	require.Equal(t, map[string]string{"team": "web", LabelCapacityType: "SPOT", LabelEKSNodeGroup: "spot-workers",
		LabelEksctlCluster: "demo", LabelEksctlNodeGroup: "spot-workers"}, g.Labels)
	require.Equal(t, []Taint{{"dedicated", "web", "NoSchedule"}, {"spot", "", "PreferNoSchedule"}}, g.Taints)
	require.Equal(t, int64(100), g.Kubelet.RootVolumeGiB)
	require.True(t, strings.HasPrefix(g.ASGName, "eks-spot-workers-"), g.ASGName)
	require.Equal(t, "true", g.Tags[TagEnabled])
	// The template: EKS API labels (capacity type), taints, first type's
	// nominal size, first zone.
	tpl := g.Template
	require.Equal(t, "m5.large", tpl.InstanceType)
	require.Equal(t, "us-east-1a", tpl.Zone)
	require.Equal(t, "SPOT", tpl.Labels[LabelCapacityType])
	require.Equal(t, "spot-workers", tpl.Labels["nodegroup-name"]) // from the eks:nodegroup-name tag
	require.Equal(t, "web", tpl.Labels["team"])
	require.Equal(t, g.Taints, tpl.Taints)
	cpu := tpl.Capacity["cpu"]
	mem := tpl.Capacity["memory"]
	require.Equal(t, int64(2), cpu.Value())
	require.Equal(t, int64(8192)<<20, mem.Value())
}

func TestEksctlUnmanagedGroup(t *testing.T) {
	gs, warns, err := compile(t, header+`availabilityZones: [us-east-1a, us-east-1c]
nodeGroups:
  - name: mixed
    minSize: 1
    maxSize: 5
    instancesDistribution:
      instanceTypes: [c5.xlarge, c5a.xlarge]
      onDemandBaseCapacity: 1
      onDemandPercentageAboveBaseCapacity: 25
      spotAllocationStrategy: price-capacity-optimized
      capacityRebalance: true
    labels: {role: batch}
    taints:
      batch: "true:NoSchedule"
      gpu: ":NO_EXECUTE"
    propagateASGTags: true
    tags:
      k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage: 50Gi
`)
	require.NoError(t, err)
	require.Len(t, gs, 1)
	g := gs[0]
	require.False(t, g.Managed)
	require.False(t, g.Spot())
	require.Equal(t, 1, g.OnDemandBase)
	require.Equal(t, 25, g.OnDemandPercent)
	require.Equal(t, cloud.PriceCapacityOptimized, g.SpotStrategy)
	require.Equal(t, cloud.Prioritized, g.OnDemandStrategy)
	require.Equal(t, []string{"us-east-1a", "us-east-1c"}, g.Zones)
	require.Equal(t, [3]int{1, 5, 1}, [3]int{g.MinSize, g.MaxSize, g.DesiredCapacity})
	require.Equal(t, []Taint{{"batch", "true", "NoSchedule"}, {"gpu", "", "NoExecute"}}, g.Taints)
	require.True(t, strings.HasPrefix(g.ASGName, "eksctl-demo-nodegroup-mixed-NodeGroup-"), g.ASGName)
	require.NotContains(t, g.Tags, TagEnabled, "no autoScaler addon policy: not discoverable")
	// propagateASGTags: labels reach the template, taints do not (eksctl
	// writes the value without the effect).
	require.Equal(t, "batch", g.Template.Labels["role"])
	require.Empty(t, g.Template.Taints)
	require.Equal(t, resource.MustParse("50Gi"), g.Template.Capacity["ephemeral-storage"])
	require.Empty(t, warns)
}

func TestEksctlDefaults(t *testing.T) {
	gs, _, err := compile(t, header+`nodeGroups:
  - name: a
  - name: b
    desiredCapacity: 3
  - name: c
    minSize: 0
`)
	require.NoError(t, err)
	require.Equal(t, "m5.large", gs[0].InstanceTypes[0])
	require.Equal(t, [3]int{2, 2, 2}, [3]int{gs[0].MinSize, gs[0].MaxSize, gs[0].DesiredCapacity})
	require.Equal(t, [3]int{3, 3, 3}, [3]int{gs[1].MinSize, gs[1].MaxSize, gs[1].DesiredCapacity})
	require.Equal(t, [3]int{0, 1, 0}, [3]int{gs[2].MinSize, gs[2].MaxSize, gs[2].DesiredCapacity})
	require.Equal(t, testZones, gs[0].Zones)
	require.Equal(t, int64(DefaultEksctlVolumeGiB), gs[0].Kubelet.RootVolumeGiB)
	require.Equal(t, cloud.LowestPrice, gs[0].SpotStrategy)
	require.Equal(t, 100, gs[0].OnDemandPercent)
}

func TestEksctlTaintSpellings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"NoSchedule", "NoSchedule"}, {"NO_SCHEDULE", "NoSchedule"}, {"PreferNoSchedule", "PreferNoSchedule"},
		{"PREFER_NO_SCHEDULE", "PreferNoSchedule"}, {"NoExecute", "NoExecute"}, {"NO_EXECUTE", "NoExecute"},
	} {
		for _, form := range []string{
			"nodeGroups:\n  - name: ng\n    taints: [{key: k, value: v, effect: " + c.in + "}]\n",
			"nodeGroups:\n  - name: ng\n    taints: {k: \"v:" + c.in + "\"}\n",
			"managedNodeGroups:\n  - name: ng\n    taints: [{key: k, value: v, effect: " + c.in + "}]\n",
		} {
			gs, _, err := compile(t, header+form)
			require.NoError(t, err, form)
			require.Equal(t, []Taint{{"k", "v", c.want}}, gs[0].Taints, form)
		}
	}
}

func TestEksctlErrors(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"unknown field", "managedNodeGroups:\n  - name: ng\n    instanceTyp: m5.large\n",
			`cluster.yaml:8: managedNodeGroups[0].instanceTyp: unknown field "instanceTyp"; did you mean "instanceType"?`},
		{"unknown type", "managedNodeGroups:\n  - name: ng\n    instanceType: m5.larg\n",
			`cluster.yaml:8: managedNodeGroups[0].instanceType: unknown instance type "m5.larg"; did you mean m5.large`},
		{"unknown type in list", "managedNodeGroups:\n  - name: ng\n    instanceTypes: [m5.large, c9.huge]\n",
			`cluster.yaml:8: managedNodeGroups[0].instanceTypes[1]: unknown instance type "c9.huge"`},
		{"both types", "managedNodeGroups:\n  - name: ng\n    instanceType: m5.large\n    instanceTypes: [m5.large]\n",
			"cluster.yaml:8: managedNodeGroups[0].instanceType: only one of instanceType or instanceTypes can be specified; remove one of them"},
		{"max below min", "nodeGroups:\n  - name: ng\n    minSize: 3\n    maxSize: 2\n",
			"cluster.yaml:9: nodeGroups[0].maxSize: maxSize 2 is below minSize 3; raise maxSize or lower minSize"},
		{"desired above max", "nodeGroups:\n  - name: ng\n    minSize: 1\n    maxSize: 2\n    desiredCapacity: 4\n",
			"cluster.yaml:10: nodeGroups[0].desiredCapacity: desiredCapacity 4 is above maxSize 2; lower desiredCapacity or raise maxSize"},
		{"bad effect", "nodeGroups:\n  - name: ng\n    taints:\n      - {key: k, effect: NoSchedul}\n",
			`cluster.yaml:9: nodeGroups[0].taints[0]: taint k: unknown effect "NoSchedul"; use NoSchedule, PreferNoSchedule or NoExecute (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE also accepted)`},
		{"bad map effect", "nodeGroups:\n  - name: ng\n    taints:\n      dedicated: \"x:Never\"\n",
			`cluster.yaml:9: nodeGroups[0].taints.dedicated: taint dedicated: unknown effect "Never"; use NoSchedule, PreferNoSchedule or NoExecute (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE also accepted)`},
		{"taint typo", "nodeGroups:\n  - name: ng\n    taints:\n      - {key: k, efect: NoSchedule}\n",
			`cluster.yaml:9: nodeGroups[0].taints[0].efect: unknown field "efect"; did you mean "effect"?`},
		{"map taints on managed", "managedNodeGroups:\n  - name: ng\n    taints: {k: \"v:NoSchedule\"}\n",
			"cluster.yaml:8: managedNodeGroups[0].taints: eksctl accepts the map form of taints only under nodeGroups; managedNodeGroups take a list; write taints as a list: [{key: k, value: v, effect: NoSchedule}]"},
		{"zone outside scenario", "managedNodeGroups:\n  - name: ng\n    availabilityZones: [us-east-1a, us-east-1f]\n",
			"cluster.yaml:8: managedNodeGroups[0].availabilityZones[1]: zone us-east-1f is not one of the scenario's zones (us-east-1a, us-east-1b, us-east-1c); add it to the scenario's spec.zones or remove it here"},
		{"duplicate name", "managedNodeGroups:\n  - name: ng\nnodeGroups:\n  - name: ng\n",
			`cluster.yaml:9: nodeGroups[0].name: node group "ng" is also defined at managedNodeGroups[0]; node group names must be unique in a cluster`},
		{"mixed with type", "nodeGroups:\n  - name: ng\n    instanceType: m5.large\n    instancesDistribution: {instanceTypes: [m5.large]}\n",
			`cluster.yaml:8: nodeGroups[0].instanceType: instanceType should be "mixed" or unset when using instancesDistribution; remove instanceType or set it to "mixed"`},
		{"bad strategy", "nodeGroups:\n  - name: ng\n    instancesDistribution: {instanceTypes: [m5.large], spotAllocationStrategy: cheapest}\n",
			`cluster.yaml:8: nodeGroups[0].instancesDistribution.spotAllocationStrategy: unknown spot allocation strategy "cheapest"; use lowest-price, capacity-optimized, capacity-optimized-prioritized or price-capacity-optimized`},
		{"instance selector", "managedNodeGroups:\n  - name: ng\n    instanceSelector: {vCPUs: 2}\n",
			"cluster.yaml:8: managedNodeGroups[0].instanceSelector: instanceSelector is resolved by eksctl against the live EC2 API, which the simulation cannot do; list the instance types the selector resolves to in instanceTypes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := compile(t, header+c.body)
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), c.want), "got  %s\nwant %s", err.Error(), c.want)
		})
	}
}

func TestEksctlIgnoredFieldsAccepted(t *testing.T) {
	_, _, err := compile(t, header+`vpc:
  cidr: 10.0.0.0/16
  nat: {gateway: Single}
iam: {withOIDC: true}
addons: [{name: vpc-cni}]
cloudWatch: {clusterLogging: {enableTypes: ["*"]}}
managedNodeGroups:
  - name: ng
    amiFamily: AmazonLinux2023
    privateNetworking: true
    ssh: {allow: false}
    iam: {attachPolicyARNs: [arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy]}
    securityGroups: {attachIDs: [sg-1]}
    updateConfig: {maxUnavailable: 1}
    launchTemplate: {id: lt-1}
`)
	require.NoError(t, err)
}

func TestEksctlWarnings(t *testing.T) {
	_, warns, err := compile(t, `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: eu-west-1}
nodeGroups:
  - name: gpu
    minSize: 0
    maxSize: 4
    labels: {accelerator: nvidia}
    taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
    tags:
      k8s.io/cluster-autoscaler/node-template/taint/dedicated: gpu
`)
	require.NoError(t, err)
	require.Equal(t, []string{
		"cluster.yaml:3: metadata.region: region eu-west-1 differs from the scenario's region us-east-1: the scenario's region is used",
		`cluster.yaml:10: nodeGroups[0].tags: tag k8s.io/cluster-autoscaler/node-template/taint/dedicated="gpu": the Cluster Autoscaler reads only taint tags whose value is <value>:<Effect> (NoSchedule, PreferNoSchedule or NoExecute), so it ignores this one`,
		"cluster.yaml:8: nodeGroups[0].labels: while the group is empty the Cluster Autoscaler sees only its ASG tags, which lack the labels accelerator: pods that select them cannot scale it up from zero; set propagateASGTags: true or add k8s.io/cluster-autoscaler/node-template/label/<key> tags",
		"cluster.yaml:9: nodeGroups[0].taints: while the group is empty the Cluster Autoscaler does not know the taints nvidia.com/gpu (taint tags need the value <value>:<Effect>, which eksctl does not write): it may scale this group up for pods that do not tolerate them",
	}, errorTexts(warns))
}

func TestBuildTemplateFromTags(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	it, _ := cat.Lookup("g4dn.xlarge")
	tpl, warns := BuildTemplate(it, "us-east-1", []string{"us-east-1b", "us-east-1c"}, map[string]string{
		TagPrefixLabel + "workload":              "ml",
		TagPrefixTaint + "nvidia.com/gpu":        "present:NoSchedule",
		TagPrefixTaint + "bad":                   "NoSchedule",
		TagPrefixResources + "ephemeral-storage": "100Gi",
		TagPrefixResources + "pods":              "58",
		TagPrefixResources + "junk":              "lots",
		"eks:nodegroup-name":                     "gpu",
		"Name":                                   "ignored",
	}, nil, nil)
	require.Equal(t, "us-east-1b", tpl.Zone)
	require.Equal(t, "ml", tpl.Labels["workload"])
	require.Equal(t, "gpu", tpl.Labels["nodegroup-name"])
	require.Equal(t, "us-east-1b", tpl.Labels[LabelZone])
	require.Equal(t, "g4dn.xlarge", tpl.Labels[LabelInstanceType])
	require.Equal(t, "amd64", tpl.Labels[LabelArch])
	require.NotContains(t, tpl.Labels, "Name")
	require.Equal(t, []Taint{{"nvidia.com/gpu", "present", "NoSchedule"}}, tpl.Taints)
	require.Equal(t, int64(58), ptr(tpl.Capacity["pods"]).Value())
	require.Equal(t, int64(1), ptr(tpl.Capacity[catalog.GPUResourceName]).Value())
	require.Equal(t, int64(4), ptr(tpl.Capacity["cpu"]).Value())
	require.Equal(t, resource.MustParse("100Gi"), tpl.Capacity["ephemeral-storage"])
	require.Len(t, warns, 2)
	require.Equal(t, TagPrefixResources+"junk", warns[0].Tag) // in tag order
	require.Equal(t, TagPrefixTaint+"bad", warns[1].Tag)
}

func ptr(q resource.Quantity) *resource.Quantity { return &q }

func TestASGNamesAreStable(t *testing.T) {
	require.Equal(t, asgName("demo", "ng", managedGroup), asgName("demo", "ng", managedGroup))
	require.NotEqual(t, asgName("demo", "ng", managedGroup), asgName("other", "ng", managedGroup))
	require.Regexp(t, `^eks-ng-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, asgName("demo", "ng", managedGroup))
	require.Regexp(t, `^eksctl-demo-nodegroup-ng-NodeGroup-[A-Z0-9]{12}$`, asgName("demo", "ng", selfManagedGroup))
}

// A node group's template exposes the instance type's accelerators under
// their own resource names: g4ad's AMD GPU is amd.com/gpu, not
// nvidia.com/gpu (issue 18, item 2).
func TestBuildTemplateAccelerators(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	for typ, want := range map[string]map[string]int64{
		"g4ad.xlarge": {"amd.com/gpu": 1},
		"g4dn.xlarge": {"nvidia.com/gpu": 1},
		"inf2.xlarge": {"aws.amazon.com/neuron": 1, "aws.amazon.com/neuroncore": 2},
		"m5.large":    {},
	} {
		it, ok := cat.Lookup(typ)
		require.True(t, ok, typ)
		tpl, _ := BuildTemplate(it, "us-east-1", []string{"us-east-1a"}, nil, nil, nil)
		got := map[string]int64{}
		for name, q := range tpl.Capacity {
			if name != "cpu" && name != "memory" && name != "pods" {
				got[name] = q.Value()
			}
		}
		require.Equal(t, want, got, typ)
	}
}
