package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/workload"
)

func TestLoadEveryKind(t *testing.T) {
	sc, err := LoadFile("testdata/full/scenario.yaml")
	require.NoError(t, err)
	require.Equal(t, "full", sc.Name)
	require.Equal(t, "every kind", sc.Description)
	require.Equal(t, uint64(42), sc.Seed)
	require.Equal(t, 26*time.Hour, sc.Duration)
	require.Equal(t, 5*time.Minute, sc.StrandedAfter)
	require.Equal(t, 3*time.Second, sc.PodStartDelay)
	require.Equal(t, []string{"us-east-1a", "us-east-1b"}, sc.Zones)

	// Nodes: 3 core + 1 gpu from pools, 2 from Node manifests.
	require.Len(t, sc.Nodes, 6)
	core := sc.Nodes[0]
	require.Equal(t, "core-1", core.Name)
	require.Equal(t, int64(1930), core.Allocatable[cluster.CPU])
	require.Equal(t, int64(6903)<<20, core.Allocatable[cluster.Memory])
	require.Equal(t, 0.096, core.PriceUSDPerHour)
	require.Len(t, core.Taints, 1, "NO_SCHEDULE is accepted as NoSchedule")
	require.Equal(t, cluster.EffectNoSchedule, core.Taints[0].Effect)
	zone, _ := core.Labels.Get(sc.Syms.Intern("topology.kubernetes.io/zone"))
	require.Equal(t, "us-east-1a", sc.Syms.Name(zone))
	require.Equal(t, "us-east-1b", sc.Syms.Name(sc.Nodes[1].Zone), "pools spread round-robin over zones")
	gpu := sc.Nodes[3]
	require.Equal(t, cluster.Spot, gpu.CapacityType)
	gi, ok := sc.Resources.Lookup("nvidia.com/gpu")
	require.True(t, ok)
	require.Equal(t, int64(1), gpu.Allocatable[gi])
	require.Less(t, gpu.PriceUSDPerHour, 0.526, "spot is priced below on-demand")
	legacy := sc.Nodes[4]
	require.Equal(t, "legacy-1", legacy.Name)
	require.Equal(t, int64(3920), legacy.Allocatable[cluster.CPU], "allocatable from the instance-type label")
	require.Equal(t, cluster.EffectNoExecute, legacy.Taints[0].Effect)
	onprem := sc.Nodes[5]
	require.Equal(t, int64(8000), onprem.Allocatable[cluster.CPU])
	require.Equal(t, int64(58), onprem.Allocatable[cluster.Pods])
	require.Equal(t, 0.0, onprem.PriceUSDPerHour)

	// Workloads in file order: inline first, then included files.
	require.Len(t, sc.Workloads, 5)
	web := sc.Workloads[0]
	require.Equal(t, "Deployment/default/web", web.Ref())
	require.Equal(t, []workload.Step{{At: 0, Count: 2}, {At: time.Hour, Count: 5}}, web.Replicas.Steps)
	require.Equal(t, int32(1000), web.Pod.Priority)
	require.Equal(t, int64(250), web.Pod.Requests[cluster.CPU])
	require.Len(t, web.Pod.Spread, 1)
	db := sc.Workloads[1]
	require.Equal(t, workload.StatefulSet, db.Kind)
	require.Equal(t, []time.Duration{5 * time.Minute}, db.Arrivals.Times)
	require.Len(t, db.Pod.PodAntiAffinity, 1)
	require.Equal(t, int32(10), db.Pod.Priority, "the globalDefault class applies to pods without a class")
	train := sc.Workloads[2]
	require.Equal(t, []time.Duration{time.Hour, 7 * time.Hour, 13 * time.Hour, 19 * time.Hour, 25 * time.Hour}, train.Arrivals.Times)
	require.Equal(t, int32(1), train.Parallelism)
	require.Equal(t, int32(2), train.Completions)
	require.Equal(t, int64(1), train.Pod.Requests[gi])
	require.IsType(t, dist.LogNormal{}, train.Runtime)
	etl := sc.Workloads[3]
	require.Equal(t, &workload.Poisson{RatePerHour: 2, Until: 10 * time.Hour, PeakAt: 12 * time.Hour}, etl.Arrivals.Poisson)
	require.Equal(t, int32(4), etl.Completions, "completions default to parallelism")
	debug := sc.Workloads[4]
	require.Equal(t, workload.BarePod, debug.Kind)
	require.Equal(t, dist.Uniform{Min: time.Minute, Max: 2 * time.Minute}, debug.Runtime)

	require.Len(t, sc.PDBs, 1)
	require.Equal(t, &cluster.IntOrPercent{Value: 50, Percent: true}, sc.PDBs[0].MinAvailable)
	require.Contains(t, sc.NamespaceLabels, sc.Syms.Intern("batch"))

	var warns []string
	for _, w := range sc.Warnings {
		warns = append(warns, w.String())
	}
	require.Contains(t, strings.Join(warns, "\n"), "1 Service object(s) skipped: services do not affect scheduling")
	require.Contains(t, strings.Join(warns, "\n"), "no known node.kubernetes.io/instance-type: node onprem-1 costs 0")
}

func TestLoadFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"s.yaml":        {Data: []byte(minimal + "  include: [sub/pods.yaml]\n")},
		"sub/pods.yaml": {Data: []byte(barePod)},
	}
	sc, err := LoadFS(fsys, "s.yaml")
	require.NoError(t, err)
	require.Len(t, sc.Workloads, 1)
}

const minimal = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 1h
`

const barePod = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
`

// TestBadInput pins the exact message of every kind of bad input: a user
// must learn the file, the line, the field and what to do.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string // scenario.yaml is loaded
		want  string
	}{
		{"unknown kind", map[string]string{"scenario.yaml": minimal + "---\napiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n"},
			`scenario.yaml:8: kind: unknown kind "Deploymnet" (apiVersion apps/v1); did you mean Deployment? supported kinds: AWSNodeTemplate, CapacityBuffer, ClusterConfig, CronJob, DaemonSet, Deployment, EC2NodeClass, HorizontalPodAutoscaler, Job, KubeSchedulerConfiguration, Namespace, Node, NodeClass, NodeOverlay, NodePool, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, PodTemplate, PriorityClass, Provisioner, ProvisioningRequest, ReplicaSet, StatefulSet, StorageClass`},
		{"removed apiVersion", map[string]string{"scenario.yaml": minimal + "---\napiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: x}\n"},
			`scenario.yaml:7: apiVersion: extensions/v1beta1 is not a served version of Deployment; extensions/v1beta1 and apps/v1beta* were removed in Kubernetes 1.16; use apiVersion: apps/v1`},
		{"no scenario", map[string]string{"scenario.yaml": barePod},
			`scenario.yaml: no kind: Scenario document in this file; a scenario file starts with apiVersion: clustersim.dev/v1alpha1, kind: Scenario (see the README's scenario format)`},
		{"bad scenario version", map[string]string{"scenario.yaml": strings.Replace(minimal, "v1alpha1", "v9", 1)},
			`scenario.yaml:1: apiVersion: "clustersim.dev/v9" is not a Scenario version this simulator reads; use apiVersion: clustersim.dev/v1alpha1`},
		{"missing duration", map[string]string{"scenario.yaml": strings.Replace(minimal, "  duration: 1h\n", "  seed: 3\n", 1)},
			`scenario.yaml:4: spec.duration: missing duration; set how much simulated time to run, e.g. duration: 2h`},
		{"bad duration", map[string]string{"scenario.yaml": strings.Replace(minimal, "1h", "1 hour", 1)},
			`scenario.yaml:5: spec.duration: "1 hour" is not a duration; write a duration like 90s, 10m, 1h30m or 7d`},
		{"unknown join failure mode", map[string]string{"scenario.yaml": minimal + "  market:\n    events:\n      - {at: 1h, joinFailure: {mode: registerNotReady}}\n"},
			`scenario.yaml:8: spec.market.events[0].joinFailure.mode: unknown join failure mode "registerNotReady"; did you mean registersNotReady? use neverRegisters (the kubelet never registers) or registersNotReady (the node registers and never becomes Ready)`},
		{"unknown field", map[string]string{"scenario.yaml": minimal + "  strandedAftr: 5m\n"},
			`scenario.yaml:6: spec.strandedAftr: unknown field`},
		{"bad quantity", map[string]string{"scenario.yaml": minimal + "---\n" + strings.Replace(barePod, "100m", "1.5 cores", 1)},
			`scenario.yaml:11: spec.containers[0].resources.requests.cpu:`},
		{"unknown instance type", map[string]string{"scenario.yaml": minimal + "  staticNodes: [{name: a, instanceType: m5.larg, count: 1}]\n"},
			`scenario.yaml:6: spec.staticNodes[0].instanceType: unknown instance type "m5.larg"; did you mean m5.large, m5.xlarge, m5a.large?`},
		{"missing count", map[string]string{"scenario.yaml": minimal + "  staticNodes: [{name: a, instanceType: m5.large}]\n"},
			`scenario.yaml:6: spec.staticNodes[0].count: missing count; give the number of nodes, e.g. count: 3`},
		{"missing include", map[string]string{"scenario.yaml": minimal + "  include: [nope/]\n"},
			`scenario.yaml:6: spec.include[0]: nope/ does not exist (looked for`},
		{"duplicate object", map[string]string{"scenario.yaml": minimal + "  include: [a.yaml]\n---\n" + barePod, "a.yaml": strings.Replace(barePod, "100m", "200m", 1)},
			`a.yaml:3: metadata.name: duplicate Pod/default/p (first defined at`},
		{"job without runtime", map[string]string{"scenario.yaml": minimal + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: x}]\n"},
			`scenario.yaml:4: spec.workloads: Job/default/j needs a spec.workloads entry with a runtime: how long each pod runs cannot be read from the manifest; add - {ref: Job/default/j, runtime: {fixed: 10m}}`},
		{"ref to nothing", map[string]string{"scenario.yaml": minimal + "  workloads: [{ref: Pod/default/q}]\n---\n" + barePod},
			`scenario.yaml:6: spec.workloads[0].ref: no workload Pod/default/q; did you mean Pod/default/p? the object must be inlined in the scenario file or in an included file`},
		{"unknown priority class", map[string]string{"scenario.yaml": minimal + "---\n" + strings.Replace(barePod, "spec:\n", "spec:\n  priorityClassName: urgent\n", 1)},
			`scenario.yaml:11: spec.priorityClassName: no PriorityClass named "urgent": add its manifest or remove the field`},
		{"selector mismatch", map[string]string{"scenario.yaml": minimal + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: b}}\n    spec:\n      containers: [{name: c, image: x}]\n"},
			`scenario.yaml:11: spec.selector: selector does not match template labels (the API server rejects this); make spec.template.metadata.labels match spec.selector`},
		{"bad operator", map[string]string{"scenario.yaml": minimal + "---\n" + strings.Replace(barePod, "spec:\n", "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions: [{key: a, operator: Equals, values: [x]}]\n", 1)},
			`scenario.yaml:15: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: "Equals" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt`},
		{"too many pods", map[string]string{"scenario.yaml": strings.Replace(minimal, "1h", "7d", 1) + "  workloads: [{ref: Job/j, arrivals: {poisson: {ratePerHour: 200000}}, runtime: {fixed: 1m}}]\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 10\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: x}]\n"},
			`scenario.yaml:6: spec.workloads: this scenario would create about 806400200 pods, more than the 20000000 a run may hold; lower arrival rates, replicas or the duration, or split the scenario`},
		{"CronJob without a schedule", map[string]string{"scenario.yaml": minimal + "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: x}\n"},
			`scenario.yaml:7: spec.schedule: missing schedule; give a cron schedule such as "0 2 * * *" (02:00 every day)`},
		{"scenario in include", map[string]string{"scenario.yaml": minimal + "  include: [b.yaml]\n", "b.yaml": minimal},
			`b.yaml:2: kind: a Scenario document inside an included file; an included file may hold Kubernetes objects only; run it as a scenario of its own`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range c.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
			}
			wd, _ := os.Getwd()
			require.NoError(t, os.Chdir(dir))
			defer os.Chdir(wd)
			_, err := LoadFile("scenario.yaml")
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := LoadFile("testdata/does-not-exist.yaml")
	require.EqualError(t, err, "testdata/does-not-exist.yaml: no such file; give the path of a scenario file, or the name of an embedded scenario (sim scenarios lists them)")
}

// An override file replaces the scenario's eksctl ClusterConfig of the
// same name and its priority expander ConfigMap, so a proposed Cluster
// Autoscaler setup can be compared with the current one.
func TestOverrideClusterAutoscalerObjects(t *testing.T) {
	base := "../../scenarios/ca-priority-fallback.yaml"
	src, err := os.ReadFile("../../scenarios/ca/eksctl-priority.yaml")
	require.NoError(t, err)
	docs := strings.Split(string(src), "\n---\n")
	require.Len(t, docs, 2)
	cc := strings.Replace(docs[0], "maxSize: 20", "maxSize: 7", 1)
	prio := strings.Replace(strings.Replace(docs[1], "20:", "5:", 1), "10:", "30:", 1)
	override := filepath.Join(t.TempDir(), "proposed.yaml")
	require.NoError(t, os.WriteFile(override, []byte(cc+"\n---\n"+prio), 0o644))

	sc, err := LoadFile(base, override)
	require.NoError(t, err)
	var core int
	for _, g := range caConfig(sc).NodeGroups {
		if g.Name == "core-on-demand" {
			core = g.MaxSize
		}
	}
	require.Equal(t, 7, core, "the proposed ClusterConfig is the one used")
	var replaced []string
	for _, w := range sc.Warnings {
		if strings.Contains(w.Msg, "replaces") {
			replaced = append(replaced, w.Msg)
		}
	}
	require.Len(t, replaced, 2, "%v", sc.Warnings)
	require.Equal(t, 30, caConfig(sc).Settings.Priorities.Rules[0].Priority, "the proposed priorities are the ones used")
}

// spec.karpenter.launchTimeout is accepted but said to change nothing:
// launches answer at once in the simulation.
func TestLaunchTimeoutWarns(t *testing.T) {
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(minimal + "  karpenter:\n    launchTimeout: 2m\n")}}
	sc, err := LoadFS(fsys, "s.yaml")
	require.NoError(t, err)
	var msgs []string
	for _, w := range sc.Warnings {
		msgs = append(msgs, w.String())
	}
	require.Contains(t, msgs, "s.yaml:7: spec.karpenter.launchTimeout: launches answer at once in the simulation, so the launch timeout never fires: this setting changes nothing")
}

// A DaemonSet's pods are estimated from the nodes the run can have, not
// a fixed 200,000 per DaemonSet.
func TestDaemonSetEstimate(t *testing.T) {
	ds := "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: logs}\nspec:\n  selector: {matchLabels: {app: logs}}\n  template:\n    metadata: {labels: {app: logs}}\n    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n"
	one := minimal + "  staticNodes: [{name: a, instanceType: m5.large, count: 3}]\n" + ds
	two := one + strings.Replace(ds, "name: logs}", "name: metrics}", 1)
	for _, tc := range []struct {
		yaml string
		want int64
	}{{one, 3}, {two, 6}} {
		sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(tc.yaml)}}, "s.yaml")
		require.NoError(t, err)
		require.Equal(t, tc.want, sc.EstimatedPods)
	}
}

// A Node manifest's size comes from status.allocatable, else from
// status.capacity (with a warning), else from its instance type; an
// unreadable list is an error at the list used.
func TestNodeManifestSize(t *testing.T) {
	node := func(status string) string {
		return minimal + "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}\n" + status
	}
	// One extended resource more than a scenario may hold.
	tooMany := "{cpu: \"1\", x.io/a: \"1\", x.io/b: \"1\", x.io/c: \"1\", x.io/d: \"1\", x.io/e: \"1\"}"
	for _, tc := range []struct {
		name, status string
		cpu          int64
		warn, err    string
	}{
		{name: "allocatable", status: "status:\n  allocatable: {cpu: \"3\", pods: \"10\"}\n  capacity: {cpu: \"4\"}\n", cpu: 3000},
		{name: "capacity", status: "status:\n  capacity: {cpu: \"4\"}\n", cpu: 4000, warn: "no status.allocatable: capacity is used as allocatable"},
		{name: "instance type", cpu: 1930},
		{name: "bad allocatable", status: "status:\n  allocatable: " + tooMany + "\n", err: "status.allocatable"},
		{name: "bad capacity", status: "status:\n  capacity: " + tooMany + "\n", err: "status.capacity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(node(tc.status))}}, "s.yaml")
			if tc.err != "" {
				require.ErrorContains(t, err, "s.yaml:13: "+tc.err+": too many distinct resource names")
				return
			}
			require.NoError(t, err)
			require.Len(t, sc.Nodes, 1)
			require.Equal(t, tc.cpu, sc.Nodes[0].Allocatable[cluster.CPU])
			var warned bool
			for _, w := range sc.Warnings {
				warned = warned || strings.Contains(w.String(), "no status.allocatable")
			}
			require.Equal(t, tc.warn != "", warned)
		})
	}
}
