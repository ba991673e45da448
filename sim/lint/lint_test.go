package lint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/scenario"
)

// The scenarios below are built from a few pieces: a Scenario header,
// static pools, NodePools, eksctl node groups and Deployments, each a YAML
// document.

const header = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 1h
  zones: [us-east-1a, us-east-1b]
`

// caHeader is header with a Cluster Autoscaler that finds the node groups
// of the tests' ClusterConfig (demo) by the tag eksctl gives all its ASGs.
const caHeader = header + "  clusterAutoscaler: {args: [--node-group-auto-discovery=asg:tag=kubernetes.io/cluster/demo]}\n"

// nodeClass is Karpenter's example EC2NodeClass with a role.
const nodeClass = fixtures.EC2NodeClassAL2023 + "  role: r\n"

// nodePool is a karpenter.sh/v1 NodePool; spec holds the template's
// spec lines after nodeClassRef (requirements, taints) indented by 6, and
// extra the lines after the template (limits, disruption) indented by 2.
func nodePool(name, labels, spec, extra string) string {
	return `---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: ` + name + `}
spec:
  template:
    metadata:
      labels: ` + labels + `
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
` + spec + extra
}

// spotPool is the hybrid's spot pool: three types, two zones, tainted.
var spotPool = nodePool("burst-spot", "{provisioner-group: karpenter-burst}", `      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.large, c5a.large, c6i.large]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      taints:
        - {key: karpenter.sh/capacity-type, value: spot, effect: NoSchedule}
`, "") + nodeClass

// caGroup is the hybrid's on-demand managed node group.
const caGroup = `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - name: core-on-demand
    instanceType: m5.large
    minSize: 1
    maxSize: 10
    desiredCapacity: 1
    labels: {node-group-type: ca-managed}
    taints:
      - {key: capacity-type, value: on-demand, effect: NoSchedule}
`

// deployment is a Deployment whose pod spec has the given lines (indented
// by 6) and requests cpu.
func deployment(name, cpu, spec string) string {
	return `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `}
spec:
  replicas: 2
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:
` + spec + `      containers:
        - name: c
          image: x
          resources: {requests: {cpu: "` + cpu + `", memory: 512Mi}}
`
}

const tolerateSpot = `      tolerations:
        - {key: karpenter.sh/capacity-type, operator: Equal, value: spot, effect: NoSchedule}
`

const tolerateOnDemand = `      tolerations:
        - {key: capacity-type, operator: Equal, value: on-demand, effect: NoSchedule}
`

func load(t *testing.T, docs ...string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(strings.Join(docs, ""))}}, "s.yaml")
	require.NoError(t, err)
	return sc
}

func check(t *testing.T, docs ...string) Result {
	t.Helper()
	return Check(load(t, docs...))
}

// cellOf returns the cell of a workload row (variant "" for the workload
// as written) and source.
func cellOf(t *testing.T, r Result, workload, variant, source string) Cell {
	t.Helper()
	for _, p := range r.Placements {
		if p.Workload != workload || p.Variant != variant {
			continue
		}
		for _, c := range p.Cells {
			if c.Source == source {
				return c
			}
		}
	}
	t.Fatalf("no cell %s %q x %s in %+v", workload, variant, source, r.Placements)
	return Cell{}
}

func findingsOf(r Result, kind string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Kind == kind {
			out = append(out, f)
		}
	}
	return out
}

func TestReasons(t *testing.T) {
	staticPools := func(pools string) string { return header + "  staticNodes:\n" + pools }
	zonedPool := nodePool("zoned", "{team: a}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`, "  limits: {cpu: \"1\"}\n") + nodeClass
	familyPool := nodePool("c5", "{team: a}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5]}
        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`, "") + nodeClass
	cases := []struct {
		name, source, reason, kind string
		docs                       []string
	}{
		{
			name: "taint of a static pool", source: "StaticPool/db", kind: "taint",
			reason: "untolerated taint dedicated=db:NoSchedule",
			docs:   []string{dbOnly, deployment("web", "500m", "")},
		},
		{
			name: "nodeSelector on a label a static pool lacks", source: "StaticPool/core", kind: "label",
			reason: "missing label node-group-type=ca-managed",
			docs: []string{staticPools("    - {name: core, instanceType: m5.large, count: 2}\n"),
				deployment("web", "500m", "      nodeSelector: {node-group-type: ca-managed}\n")},
		},
		{
			name: "nodeSelector on another value", source: "StaticPool/core", kind: "label",
			reason: "needs label role=batch; its nodes have role=core",
			docs: []string{staticPools("    - {name: core, instanceType: m5.large, count: 2, labels: {role: core}}\n"),
				deployment("web", "500m", "      nodeSelector: {role: batch}\n")},
		},
		{
			name: "too big for a static pool", source: "StaticPool/core", kind: "too-big",
			reason: "too big for every instance type: needs 4 cpu, m5.large has 1930m",
			docs: []string{staticPools("    - {name: core, instanceType: m5.large, count: 1}\n"),
				deployment("web", "4", "")},
		},
		{
			name: "zone of a static pool", source: "StaticPool/core", kind: "zone",
			reason: "no zone in common (the pod needs topology.kubernetes.io/zone In [us-east-1b]; its nodes are in us-east-1a)",
			docs: []string{staticPools("    - {name: core, instanceType: m5.large, count: 1, zones: [us-east-1a]}\n"),
				deployment("web", "500m", "      nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n")},
		},
		{
			name: "taint of a NodePool", source: "NodePool/burst-spot (spot)", kind: "taint",
			reason: "untolerated taint karpenter.sh/capacity-type=spot:NoSchedule",
			docs:   []string{header, spotPool, deployment("web", "500m", "")},
		},
		{
			name: "affinity term on a label the NodePool lacks", source: "NodePool/c5 (on-demand)", kind: "affinity",
			reason: "affinity term 0 needs provisioner-group In [karpenter-burst]",
			docs: []string{header, familyPool, deployment("web", "500m", `      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions: [{key: provisioner-group, operator: In, values: [karpenter-burst]}]
`)},
		},
		{
			name: "affinity term on another value", source: "NodePool/burst-spot (spot)", kind: "affinity",
			reason: "affinity term 0 needs provisioner-group In [other]; NodePool/burst-spot has provisioner-group In [karpenter-burst]",
			docs: []string{header, spotPool, deployment("web", "500m", tolerateSpot+`      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions: [{key: provisioner-group, operator: In, values: [other]}]
`)},
		},
		{
			name: "nodeSelector on a label the NodePool lacks", source: "NodePool/c5 (on-demand)", kind: "label",
			reason: "missing label node-group-type=ca-managed",
			docs:   []string{header, familyPool, deployment("web", "500m", "      nodeSelector: {node-group-type: ca-managed}\n")},
		},
		{
			name: "instance type outside the NodePool's", source: "NodePool/c5 (on-demand)", kind: "instance-type",
			reason: "no instance type satisfies the requirements",
			docs:   []string{header, familyPool, deployment("web", "500m", "      nodeSelector: {node.kubernetes.io/instance-type: m5.large}\n")},
		},
		{
			name: "zone outside the NodePool's", source: "NodePool/zoned (on-demand)", kind: "zone",
			reason: "no zone in common (the pod needs In [us-east-1b]; NodePool/zoned allows In [us-east-1a])",
			docs:   []string{header, zonedPool, deployment("web", "100m", "      nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n")},
		},
		{
			name: "NodePool limit below every instance type", source: "NodePool/zoned (on-demand)", kind: "limit",
			reason: "NodePool limit: NodePool/zoned's spec.limits leave room for none of the",
			docs:   []string{header, zonedPool, deployment("web", "100m", "")},
		},
		{
			name: "too big for a NodePool", source: "NodePool/c5 (on-demand)", kind: "too-big",
			reason: "too big for every instance type: needs 64 cpu, the largest allowed type (c5.xlarge) has 3920m",
			docs:   []string{header, familyPool, deployment("web", "64", "")},
		},
		{
			name: "capacity type the NodePool does not offer", source: "NodePool/burst-spot (spot)", kind: "capacity-type",
			reason: "the pod needs karpenter.sh/capacity-type In [on-demand]",
			docs:   []string{header, spotPool, deployment("web", "500m", tolerateSpot+"      nodeSelector: {karpenter.sh/capacity-type: on-demand}\n")},
		},
		{
			name: "minValues", source: "NodePool/flex (on-demand)", kind: "min-values",
			reason: "minValues not met: the 2 instance types left have fewer than 3 values of karpenter.k8s.aws/instance-family",
			docs: []string{header, nodePool("flex", "{a: b}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c5a, m5], minValues: 3}
        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`, "") + nodeClass, deployment("web", "500m", "      nodeSelector: {karpenter.k8s.aws/instance-family: c5}\n")},
		},
		{
			name: "taint of a node group", source: "NodeGroup/core-on-demand", kind: "taint",
			reason: "untolerated taint capacity-type=on-demand:NoSchedule",
			docs:   []string{header, caGroup, deployment("web", "500m", "")},
		},
		{
			name: "label the Cluster Autoscaler's template lacks", source: "NodeGroup/batch", kind: "template",
			reason: "starts with no nodes and the Cluster Autoscaler never scales it up for these pods (its template: missing label role=batch)",
			docs: []string{caHeader, `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
nodeGroups:
  - {name: batch, instanceType: c5.large, minSize: 0, maxSize: 5, desiredCapacity: 0, labels: {role: batch}, iam: {withAddonPolicies: {autoScaler: true}}}
`, deployment("web", "500m", "      nodeSelector: {role: batch}\n")},
		},
		{
			name: "node group the Cluster Autoscaler does not manage", source: "NodeGroup/batch", kind: "not-autoscaled",
			reason: "starts with no nodes and the Cluster Autoscaler does not manage it (no --nodes entry or auto-discovery tags match its ASG)",
			docs: []string{header + "  clusterAutoscaler: {args: [--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled]}\n", `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
nodeGroups:
  - {name: batch, instanceType: c5.large, minSize: 0, maxSize: 5, desiredCapacity: 0}
`, deployment("web", "500m", "")},
		},
		{
			name: "label of a node group", source: "NodeGroup/core-on-demand", kind: "label",
			reason: "needs label node-group-type=other; its nodes have node-group-type=ca-managed",
			docs:   []string{header, caGroup, deployment("web", "500m", tolerateOnDemand+"      nodeSelector: {node-group-type: other}\n")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, tc.docs...)
			c := cellOf(t, r, "Deployment/default/web", "", tc.source)
			require.False(t, c.CanLand)
			require.Contains(t, c.Reason, tc.reason)
			require.Equal(t, tc.kind, c.ReasonKind)
		})
	}
}

// generalPurpose is Karpenter's general-purpose NodePool, from
// aws/karpenter-provider-aws examples/v1/general-purpose.yaml: c, m and r
// families, no GPU.
var generalPurpose = `---
apiVersion: karpenter.sh/v1
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
        - key: kubernetes.io/os
          operator: In
          values: ["linux"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m", "r"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["2"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
` + nodeClass

// gpuNvidia is aws/karpenter-provider-aws examples/workloads/gpu-nvidia.yaml:
// the GPU is a limit only (the request defaults to it).
const gpuNvidia = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gpu-nvidia
spec:
  replicas: 1
  selector:
    matchLabels:
      app: gpu-nvidia
  template:
    metadata:
      labels:
        app: gpu-nvidia
    spec:
      containers:
      - image: public.ecr.aws/eks-distro/kubernetes/pause:3.2
        name: gpu-nvidia
        resources:
          limits:
            nvidia.com/gpu: "1"
          requests:
            cpu: "1"
            memory: 256M
`

// "Too big" names the resource that no instance type has enough of, over
// every resource the scenario knows: a GPU, ephemeral-storage, a custom
// extended resource; and, when each alone fits some type, what the
// largest types lack.
func TestTooBigNamesTheResource(t *testing.T) {
	// from kubernetes/website content/en/docs/concepts/configuration/manage-resources-containers.md
	// (local ephemeral storage), with its requests raised to 100Gi a container.
	frontend := `---
apiVersion: v1
kind: Pod
metadata:
  name: frontend
spec:
  containers:
  - name: app
    image: images.my-company.example/app:v4
    resources:
      requests:
        ephemeral-storage: "100Gi"
      limits:
        ephemeral-storage: "120Gi"
  - name: log-aggregator
    image: images.my-company.example/log-aggregator:v6
    resources:
      requests:
        ephemeral-storage: "100Gi"
      limits:
        ephemeral-storage: "120Gi"
`
	// from kubernetes/website content/en/examples/pods/resource/extended-resource-pod.yaml
	dongle := `---
apiVersion: v1
kind: Pod
metadata:
  name: extended-resource-demo
spec:
  containers:
  - name: extended-resource-demo-ctr
    image: nginx
    resources:
      requests:
        example.com/dongle: 3
      limits:
        example.com/dongle: 3
`
	twoTypes := nodePool("pair", "{team: a}", `      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.xlarge, r5.large]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`, "") + nodeClass
	static := header + "  staticNodes:\n    - {name: core, instanceType: m5.large, count: 2}\n"
	cases := []struct {
		name, workload, source, reason, fix string
		docs                                []string
	}{
		{
			name: "GPU from a CPU-only NodePool", workload: "Deployment/default/gpu-nvidia", source: "NodePool/general-purpose (on-demand)",
			reason: "too big for every instance type: needs 1 nvidia.com/gpu, no allowed type has any",
			fix:    "allow instance types that have nvidia.com/gpu in NodePool/general-purpose's requirements, or take it out of the pod's requests and limits",
			docs:   []string{header, generalPurpose, gpuNvidia},
		},
		{
			name: "GPU from a static pool", workload: "Deployment/default/gpu-nvidia", source: "StaticPool/core",
			reason: "too big for every instance type: needs 1 nvidia.com/gpu, m5.large has none",
			docs:   []string{static, gpuNvidia},
		},
		{
			// from eksctl-io/eksctl examples/01-simple-cluster.yaml (region
			// us-east-1 here)
			name: "GPU from a node group", workload: "Deployment/default/gpu-nvidia", source: "NodeGroup/ng-1",
			reason: "too big for every instance type: needs 1 nvidia.com/gpu, m5.large has none",
			docs: []string{header, `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: cluster-1
  region: us-east-1
nodeGroups:
  - name: ng-1
    instanceType: m5.large
    desiredCapacity: 10
`, gpuNvidia},
		},
		{
			name: "ephemeral-storage", workload: "Pod/default/frontend", source: "NodePool/general-purpose (on-demand)",
			reason: "too big for every instance type: needs 200Gi ephemeral-storage, the allowed types have at most 17Gi",
			fix:    "lower its ephemeral-storage request, or give the NodePool's EC2NodeClass a larger root volume (spec.blockDeviceMappings) or instanceStorePolicy: RAID0 with instance types that have NVMe instance stores",
			docs:   []string{header, generalPurpose, frontend},
		},
		{
			name: "custom extended resource", workload: "Pod/default/extended-resource-demo", source: "StaticPool/core",
			reason: "too big for every instance type: needs 3 example.com/dongle, m5.large has none",
			docs:   []string{static, dongle},
		},
		{
			name: "no type has both", workload: "Deployment/default/web", source: "NodePool/pair (on-demand)",
			reason: "too big for every instance type: no allowed type has room for 3 cpu and 10Gi memory at once (c5.xlarge, with the most cpu, has 6.4Gi memory; r5.large, with the most memory, has 1930m cpu)",
			docs:   []string{header, twoTypes, strings.Replace(deployment("web", "3", ""), "memory: 512Mi", "memory: 10Gi", 1)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, tc.docs...)
			c := cellOf(t, r, tc.workload, "", tc.source)
			require.False(t, c.CanLand)
			require.Equal(t, "too-big", c.ReasonKind)
			require.Equal(t, tc.reason, c.Reason)
			if tc.fix != "" {
				var fixes []string
				for _, f := range r.Findings {
					fixes = append(fixes, f.Fix)
				}
				require.Contains(t, strings.Join(fixes, "\n"), tc.fix)
			}
		})
	}
}

func TestCanLandAndProvisions(t *testing.T) {
	r := check(t, caHeader, spotPool, caGroup,
		deployment("api", "500m", tolerateOnDemand+"      nodeSelector: {node-group-type: ca-managed}\n"),
		deployment("batch", "500m", tolerateSpot))
	api := cellOf(t, r, "Deployment/default/api", "", "NodeGroup/core-on-demand")
	require.True(t, api.CanLand)
	require.True(t, api.Provisions)
	require.Equal(t, []string{"m5.large"}, api.InstanceTypes)
	batch := cellOf(t, r, "Deployment/default/batch", "", "NodePool/burst-spot (spot)")
	require.True(t, batch.CanLand)
	require.True(t, batch.Provisions)
	require.Equal(t, []string{"c5.large", "c5a.large", "c6i.large"}, batch.InstanceTypes)
	require.Equal(t, []Source{
		{ID: "NodePool/burst-spot (spot)", Kind: "NodePool", Name: "burst-spot", Autoscaler: "karpenter", CapacityType: "spot", File: "s.yaml", Line: 9},
		{ID: "NodeGroup/core-on-demand", Kind: "NodeGroup", Name: "core-on-demand", Autoscaler: "cluster-autoscaler", CapacityType: "on-demand", File: "s.yaml", Line: 37},
	}, r.Sources)
}

// dbOnly is a scenario whose only capacity is a static pool tainted
// dedicated=db:NoSchedule.
const dbOnly = header + "  staticNodes:\n    - {name: db, instanceType: m5.large, count: 2, taints: [{key: dedicated, value: db, effect: NoSchedule}]}\n"

// oneUnhostable checks docs and returns the report and its finding of an
// unhostable workload, which must be the only one.
func oneUnhostable(t *testing.T, docs ...string) (Result, Finding) {
	t.Helper()
	r := check(t, docs...)
	fs := findingsOf(r, KindUnhostable)
	require.Len(t, fs, 1)
	return r, fs[0]
}

func TestUnhostable(t *testing.T) {
	r, f := oneUnhostable(t, dbOnly, deployment("web", "500m", ""))
	require.Equal(t, Error, f.Severity)
	require.Equal(t, "Deployment/default/web", f.Workload)
	require.Equal(t, "no capacity source can ever host Deployment/default/web: its pods are stranded by construction", f.Message)
	require.Equal(t, "for example, let StaticPool/db take it (untolerated taint dedicated=db:NoSchedule): add the toleration {key: dedicated, operator: Equal, value: db, effect: NoSchedule} to its pod template", f.Fix)
	require.Equal(t, "s.yaml", f.File)
	require.Equal(t, "spec.template.spec", f.Path)
	require.Equal(t, 1, r.Summary.Errors)
	require.Equal(t, 1, r.Count(Error))
}

func TestSpotOnlyWithoutFallback(t *testing.T) {
	r := check(t, header, spotPool, caGroup, deployment("batch", "500m", tolerateSpot))
	fs := findingsOf(r, KindSpotOnly)
	require.Len(t, fs, 1)
	require.Equal(t, Warning, fs[0].Severity)
	require.Equal(t, "only spot capacity can host Deployment/default/batch (NodePool/burst-spot (spot)) and it has no fallback: when spot runs dry its pods strand", fs[0].Message)
	require.Contains(t, fs[0].Fix, "allow on-demand in NodePool/burst-spot (karpenter.sh/capacity-type In [spot, on-demand])")
	require.Contains(t, fs[0].Fix, "let NodeGroup/core-on-demand take it too (untolerated taint capacity-type=on-demand:NoSchedule)")
	require.Empty(t, findingsOf(r, KindSpotFallback))
}

func TestSpotWithFallbacks(t *testing.T) {
	t.Run("resubmit", func(t *testing.T) {
		r := check(t, header+`  workloads:
    - ref: Deployment/default/batch
      resubmit:
        after: 5m
        tolerations: [{key: capacity-type, operator: Equal, value: on-demand, effect: NoSchedule}]
        nodeSelector: {node-group-type: ca-managed}
`, spotPool, caGroup, deployment("batch", "500m", tolerateSpot))
		require.Empty(t, findingsOf(r, KindSpotOnly))
		fs := findingsOf(r, KindSpotFallback)
		require.Len(t, fs, 1)
		require.Equal(t, Info, fs[0].Severity)
		require.Equal(t, "only spot capacity can host Deployment/default/batch (NodePool/burst-spot (spot)); its resubmit fallback (after 5m) can land on NodeGroup/core-on-demand, so it does not strand when spot runs dry", fs[0].Message)
		c := cellOf(t, r, "Deployment/default/batch", "resubmit after 5m", "NodeGroup/core-on-demand")
		require.True(t, c.CanLand)
	})
	t.Run("resubmit that cannot reach on-demand", func(t *testing.T) {
		r := check(t, header+`  workloads:
    - ref: Deployment/default/batch
      resubmit: {after: 5m, nodeSelector: {node-group-type: ca-managed}}
`, spotPool, caGroup, deployment("batch", "500m", tolerateSpot))
		fs := findingsOf(r, KindSpotOnly)
		require.Len(t, fs, 1)
		require.Contains(t, fs[0].Message, "its resubmit fallback (after 5m) cannot land on on-demand capacity either")
	})
	t.Run("NodePool allowing on-demand", func(t *testing.T) {
		mixed := nodePool("mixed", "{a: b}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
`, "") + nodeClass
		r := check(t, header, mixed, deployment("batch", "500m", ""))
		require.Empty(t, findingsOf(r, KindSpotOnly))
		require.Empty(t, findingsOf(r, KindSpotFallback))
		require.True(t, cellOf(t, r, "Deployment/default/batch", "", "NodePool/mixed (on-demand)").CanLand)
	})
	t.Run("split twin", func(t *testing.T) {
		r := check(t, header+`  workloads:
    - ref: Deployment/default/web
      replicas: [{at: 0s, count: 4}]
      split: {ref: Deployment/default/web-spot, share: 0.5}
`, spotPool, caGroup, deployment("web", "500m", tolerateOnDemand), deployment("web-spot", "500m", tolerateSpot))
		require.Empty(t, findingsOf(r, KindSpotOnly))
		fs := findingsOf(r, KindSpotFallback)
		require.Len(t, fs, 1)
		require.Contains(t, fs[0].Message, "its split twin Deployment/default/web can land on NodeGroup/core-on-demand")
	})
}

func TestRace(t *testing.T) {
	open := nodePool("general", "{provisioner-group: karpenter}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
`, "") + nodeClass
	r := check(t, caHeader, open, caGroup, deployment("web", "500m", tolerateOnDemand))
	fs := findingsOf(r, KindRace)
	require.Len(t, fs, 1)
	require.Equal(t, Warning, fs[0].Severity)
	require.Equal(t, "both Karpenter (NodePool/general (spot), NodePool/general (on-demand)) and the Cluster Autoscaler (NodeGroup/core-on-demand) can provision nodes for Deployment/default/web: they race for its pending pods and may both launch", fs[0].Message)
	require.Contains(t, fs[0].Fix, "provisioner-group=karpenter or node-group-type=ca-managed")
	require.Empty(t, findingsOf(r, KindSeparated))
	require.Empty(t, findingsOf(r, KindOverlap), "the race says it")

	sep := check(t, caHeader, spotPool, caGroup, deployment("web", "500m", tolerateOnDemand))
	require.Empty(t, findingsOf(sep, KindRace))
	require.Len(t, findingsOf(sep, KindSeparated), 1)
}

func TestOverlap(t *testing.T) {
	t.Run("a role label on static and Karpenter nodes", func(t *testing.T) {
		pool := nodePool("batch", "{role: batch}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5]}
`, "") + nodeClass
		r := check(t, header+"  staticNodes:\n    - {name: batch, instanceType: c5.xlarge, count: 1, labels: {role: batch}}\n",
			pool, deployment("job", "500m", "      nodeSelector: {role: batch}\n"))
		fs := findingsOf(r, KindOverlap)
		require.Len(t, fs, 1)
		require.Equal(t, "Deployment/default/job selects role In [batch], which capacity of different kinds carries (NodePool/batch (spot), NodePool/batch (on-demand), StaticPool/batch): its pods can land on any of them", fs[0].Message)
	})
	t.Run("meant for a tainted group, an untainted pool takes it", func(t *testing.T) {
		r := check(t, header+"  staticNodes:\n    - {name: general, instanceType: m5.large, count: 1}\n",
			caGroup, deployment("api", "500m", tolerateOnDemand))
		fs := findingsOf(r, KindOverlap)
		require.Len(t, fs, 1)
		require.Equal(t, "Deployment/default/api is meant for NodeGroup/core-on-demand (it tolerates capacity-type=on-demand:NoSchedule) but StaticPool/general can also take it: nothing keeps it off", fs[0].Message)
		require.Contains(t, fs[0].Fix, "taint StaticPool/general")
	})
	t.Run("isolated", func(t *testing.T) {
		r := check(t, header+"  staticNodes:\n    - {name: general, instanceType: m5.large, count: 1}\n",
			caGroup, deployment("api", "500m", tolerateOnDemand+"      nodeSelector: {node-group-type: ca-managed}\n"))
		require.Empty(t, findingsOf(r, KindOverlap))
	})
}

func TestTemplateMismatch(t *testing.T) {
	// An eksctl (unmanaged) group that starts empty: its ASG tags carry
	// neither its label nor its taint, so the Cluster Autoscaler's
	// template lacks the taint.
	group := `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
nodeGroups:
  - name: tainted
    instanceType: m5.large
    minSize: 0
    maxSize: 5
    desiredCapacity: 0
    iam: {withAddonPolicies: {autoScaler: true}}
    taints:
      - {key: dedicated, value: db, effect: NoSchedule}
`
	r := check(t, caHeader, group, deployment("web", "500m", ""))
	c := cellOf(t, r, "Deployment/default/web", "", "NodeGroup/tainted")
	require.False(t, c.CanLand)
	require.True(t, c.Provisions)
	fs := findingsOf(r, KindTemplateMismatch)
	require.Len(t, fs, 1)
	require.Equal(t, "the Cluster Autoscaler scales NodeGroup/tainted up for Deployment/default/web (its template matches) but the pods cannot run on the nodes it adds: untolerated taint dedicated=db:NoSchedule", fs[0].Message)
	require.Equal(t, "nodeGroups[0]", fs[0].Path)
	require.NotEmpty(t, findingsOf(r, KindIneffective), "the loader's warning that the CA does not know the taints")
}

func TestSpotFlexibility(t *testing.T) {
	r := check(t, header, spotPool, deployment("batch", "500m", tolerateSpot))
	fs := findingsOf(r, KindSpotFlexibility)
	require.Len(t, fs, 1)
	require.Equal(t, "Deployment/default/batch can use only 3 spot instance type(s) (c5.large, c5a.large, c6i.large): AWS recommends at least 10 per workload, so that one capacity pool running dry does not stop it", fs[0].Message)
	require.Equal(t, "spec.template.spec.requirements", fs[0].Path)
	require.Equal(t, 8, fs[0].Line, "the NodePool's line")
	require.Empty(t, findingsOf(r, KindSpotToSpot), "the feature gate is off")

	wide := nodePool("wide", "{a: b}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c5a, c6i, c6a, m5, m5a, m6i, m6a]}
        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
`, "") + nodeClass
	r = check(t, header, wide, deployment("batch", "500m", ""))
	require.Empty(t, findingsOf(r, KindSpotFlexibility))
	require.Len(t, cellOf(t, r, "Deployment/default/batch", "", "NodePool/wide (spot)").InstanceTypes, 16)
}

func TestSpotToSpotFlexibility(t *testing.T) {
	pool := nodePool("spot", "{a: b}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c5a, c6i, c6a, m5, m5a]}
        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
`, "") + nodeClass
	on := header + "  karpenter: {featureGates: {spotToSpotConsolidation: true}}\n"
	r := check(t, on, pool, deployment("batch", "500m", ""))
	require.Empty(t, findingsOf(r, KindSpotFlexibility), "12 types meet AWS's 10")
	fs := findingsOf(r, KindSpotToSpot)
	require.Len(t, fs, 1)
	require.Equal(t, "NodePool/spot offers Deployment/default/batch only 12 spot instance type(s): spot-to-spot consolidation (feature gate on) needs at least 15, so Karpenter never replaces its spot nodes with cheaper ones", fs[0].Message)

	whenEmpty := nodePool("spot", "{a: b}", `      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c5a, c6i, c6a, m5, m5a]}
        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
`, "  disruption: {consolidationPolicy: WhenEmpty}\n") + nodeClass
	r = check(t, on, whenEmpty, deployment("batch", "500m", ""))
	require.Empty(t, findingsOf(r, KindSpotToSpot), "WhenEmpty never replaces nodes")
}

func TestObsoleteAndIneffectiveSettings(t *testing.T) {
	provisioner := `---
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  requirements:
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  consolidation: {enabled: false}
  ttlSecondsAfterEmpty: 30
  consolidationPolicy: WhenEmpty
  drift: {enabled: false}
`
	_, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(header + provisioner)}}, "s.yaml")
	if err != nil {
		// consolidation.enabled with ttlSecondsAfterEmpty is an error, as
		// it was in v1alpha5: check it comes out as a finding.
		res, ok := FromLoadError("t", err)
		require.True(t, ok)
		require.NotEmpty(t, res.Findings)
	}
	provisioner = strings.Replace(provisioner, "  consolidation: {enabled: false}\n", "", 1)
	r := check(t, header+"  staticNodes:\n    - {name: core, instanceType: m5.large, count: 1, taints: [{key: karpenter.sh/do-not-consolidate, value: \"true\", effect: NoSchedule}]}\n",
		provisioner)
	obsolete := findingsOf(r, KindObsolete)
	require.NotEmpty(t, obsolete)
	var paths []string
	for _, f := range obsolete {
		require.Equal(t, Warning, f.Severity)
		require.Equal(t, "s.yaml", f.File)
		require.Positive(t, f.Line)
		paths = append(paths, f.Path)
	}
	require.Contains(t, paths, "spec.ttlSecondsAfterEmpty")
	require.Contains(t, paths, "spec.drift")
	ineffective := findingsOf(r, KindIneffective)
	require.Len(t, ineffective, 1)
	require.Equal(t, "spec.staticNodes[0].taints[0]", ineffective[0].Path)
	require.Contains(t, ineffective[0].Message, "karpenter.sh/do-not-consolidate is not read by Karpenter")
}

func TestObsoleteFieldsOfAV1NodePool(t *testing.T) {
	pool := nodePool("p", "{a: b}", `      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
`, "  disruption:\n    consolidation: {enabled: false}\n    drift: {enabled: false}\n") + nodeClass
	_, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(header + pool)}}, "s.yaml")
	require.Error(t, err)
	r, ok := FromLoadError("t", err)
	require.True(t, ok)
	require.Equal(t, 2, r.Summary.Errors)
	byPath := map[string]Finding{}
	for _, f := range r.Findings {
		require.Equal(t, Error, f.Severity)
		require.Equal(t, KindObsolete, f.Kind)
		byPath[f.Path] = f
	}
	require.Equal(t, "to turn consolidation off write spec.disruption.consolidateAfter: Never", byPath["spec.disruption.consolidation"].Fix)
	require.Contains(t, byPath["spec.disruption.drift"].Fix, `budgets: [{nodes: "0", reasons: [Drifted]}]`)
	require.Positive(t, byPath["spec.disruption.drift"].Line)

	_, ok = FromLoadError("t", errString("boom"))
	require.False(t, ok, "only the loader's located errors are findings")
}

type errString string

func (e errString) Error() string { return string(e) }

func TestDeterministicAndJSON(t *testing.T) {
	docs := []string{header, spotPool, caGroup, deployment("api", "500m", tolerateOnDemand), deployment("batch", "500m", tolerateSpot)}
	a, err := json.Marshal(check(t, docs...))
	require.NoError(t, err)
	b, err := json.Marshal(check(t, docs...))
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
	var back Result
	require.NoError(t, json.Unmarshal(a, &back))
	require.Equal(t, SchemaVersion, back.SchemaVersion)
	require.NotEmpty(t, back.Findings)
	require.Contains(t, string(a), `"severity":"warning"`)
}

func TestCheckLeavesScenarioAlone(t *testing.T) {
	sc := load(t, header, spotPool, caGroup, deployment("batch", "500m", tolerateSpot))
	n := sc.Syms.Len()
	Check(sc)
	require.Equal(t, n, sc.Syms.Len(), "symbols are interned into a clone")
}

func TestSeverity(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Error} {
		got, err := ParseSeverity(s.String())
		require.NoError(t, err)
		require.Equal(t, s, got)
	}
	_, err := ParseSeverity("fatal")
	require.EqualError(t, err, `unknown severity "fatal": use info, warning or error`)
}

// A NodePool requirement on a key no instance type has and that is neither
// well-known nor one of the pool's template labels narrows nothing: a
// warning with the well-known key meant. A custom label the template sets,
// and the well-known instance labels, are silent.
func TestUnknownLabel(t *testing.T) {
	pool := nodePool("general", "{example.com/team: a}", `      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-family, operator: In, values: [c5, m5]}
        - {key: karpenter.k8s.aws/instance-hypervisor, operator: In, values: [nitro]}
        - {key: example.com/team, operator: In, values: [a]}
        - {key: example.com/tier, operator: In, values: [gold]}
`, "") + nodeClass
	r := check(t, header, pool, deployment("web", "500m", ""))
	got := findingsOf(r, KindUnknownLabel)
	require.Len(t, got, 2)
	require.Equal(t, Warning, got[0].Severity)
	require.Equal(t, "s.yaml", got[0].File)
	require.Equal(t, 19, got[0].Line) // the requirement's line
	require.Equal(t, "spec.template.spec.requirements[1].key", got[0].Path)
	require.Contains(t, got[0].Message, "requirement key node.kubernetes.io/instance-family is not a label of any instance type")
	require.Contains(t, got[0].Fix, "write the well-known karpenter.k8s.aws/instance-family")
	require.NotContains(t, got[0].Message, "(write", "the fix is said once")
	require.Equal(t, "spec.template.spec.requirements[4].key", got[1].Path)
	require.Contains(t, got[1].Message, "example.com/tier")
}

// The Cluster Autoscaler's removed and fatal flags: --expander=price makes
// the real Cluster Autoscaler exit on AWS (an error with the fix, although
// the simulation runs it); --max-empty-bulk-delete is gone since 1.33 (a
// warning naming its replacement).
func TestClusterAutoscalerStartupFlags(t *testing.T) {
	scn := header + "  clusterAutoscaler:\n    args: [--nodes=1:10:core-on-demand, --expander=price, --max-empty-bulk-delete=5]\n"
	r := check(t, scn, caGroup)
	fatal := findingsOf(r, KindStartupFailure)
	require.Len(t, fatal, 1)
	require.Equal(t, Error, fatal[0].Severity)
	require.Equal(t, "spec.clusterAutoscaler.args[1]", fatal[0].Path)
	require.Contains(t, fatal[0].Message, "exits at startup")
	require.Equal(t, "use --expander=least-waste (the default), or priority with a priority ConfigMap that ranks the cheaper groups first", fatal[0].Fix)
	var removed []Finding
	for _, f := range findingsOf(r, KindObsolete) {
		if strings.Contains(f.Message, "--max-empty-bulk-delete") {
			removed = append(removed, f)
		}
	}
	require.Len(t, removed, 1)
	require.Equal(t, Warning, removed[0].Severity)
	require.Equal(t, "write --max-scale-down-parallelism=5 instead", removed[0].Fix)
	require.Equal(t, Error, r.Findings[0].Severity, "errors come first")
}

// Cluster Autoscaler flags without a modelled effect: one that changes
// the real one's decisions (--scale-down-delay-type-local) is an
// ineffective-setting warning, one of the process (--v) an input note,
// and a flag 1.37 no longer defines (--parallel-drain) an obsolete
// setting.
func TestClusterAutoscalerNoEffectFlags(t *testing.T) {
	scn := header + "  clusterAutoscaler:\n    args: [--nodes=1:10:core-on-demand, --v=4, --scale-down-delay-type-local, --parallel-drain]\n"
	r := check(t, scn, caGroup)
	find := func(flag string) Finding {
		for _, f := range r.Findings {
			if strings.Contains(f.Message, flag) {
				return f
			}
		}
		t.Fatalf("no finding names %s: %+v", flag, r.Findings)
		return Finding{}
	}
	ineff := find("--scale-down-delay-type-local")
	require.Equal(t, Warning, ineff.Severity)
	require.Equal(t, KindIneffective, ineff.Kind)
	require.Equal(t, "spec.clusterAutoscaler.args[2]", ineff.Path)
	note := find("--v:")
	require.Equal(t, Info, note.Severity)
	require.Equal(t, KindInput, note.Kind)
	removed := find("--parallel-drain")
	require.Equal(t, KindObsolete, removed.Kind)
	require.Equal(t, Warning, removed.Severity)
}

// A multi-zone group's template is a copy of one of its nodes, so the
// Cluster Autoscaler scales it for a pod pinned to any zone where it has a
// node; scaled from zero, only for the ASG's first zone.
func TestCATemplateZones(t *testing.T) {
	group := func(desired int) string {
		return `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: ng, instanceType: m5.large, minSize: 0, maxSize: 10, desiredCapacity: ` + fmt.Sprint(desired) + `}
`
	}
	pinnedB := deployment("pinned", "500m", "      nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n")
	pinnedA := deployment("first", "500m", "      nodeSelector: {topology.kubernetes.io/zone: us-east-1a}\n")
	r := check(t, caHeader, group(2), pinnedB, pinnedA)
	require.True(t, cellOf(t, r, "Deployment/default/pinned", "", "NodeGroup/ng").Provisions, "a node in us-east-1b can be the template")
	require.True(t, cellOf(t, r, "Deployment/default/first", "", "NodeGroup/ng").Provisions)
	r = check(t, caHeader, group(1), pinnedB, pinnedA)
	require.False(t, cellOf(t, r, "Deployment/default/pinned", "", "NodeGroup/ng").Provisions, "its only node is in us-east-1a")
	require.True(t, cellOf(t, r, "Deployment/default/first", "", "NodeGroup/ng").Provisions)
	r = check(t, caHeader, group(0), pinnedB, pinnedA)
	require.False(t, cellOf(t, r, "Deployment/default/pinned", "", "NodeGroup/ng").Provisions, "from zero: the ASG's first zone")
	require.True(t, cellOf(t, r, "Deployment/default/first", "", "NodeGroup/ng").Provisions)
}
