package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/kubeexport"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// small is a realistic export in little: 6 nodes (3 of the Karpenter
// NodePool default, spot; 3 of the managed node group core), 3
// Deployments of 4 running pods (the first with 2 pending and 1
// terminating), a StatefulSet, a Job in progress, a DaemonSet, a bare
// Pod, an HPA, a PDB, a Secret, a ConfigMap and a Service.
var small = kubeexport.Cluster{Nodes: 6, Deployments: 3, Replicas: 4, Pending: 2, Terminating: 1, Extra: true}

func importExport(t testing.TB, c kubeexport.Cluster, opts Options) ([]byte, *Importer) {
	t.Helper()
	var in bytes.Buffer
	require.NoError(t, c.Write(&in))
	return importFile(t, "cluster.yaml", &in, opts)
}

// importFile imports the file name, read from in, with the default
// catalogue and returns the scenario written and the importer.
func importFile(t testing.TB, name string, in io.Reader, opts Options) ([]byte, *Importer) {
	t.Helper()
	cat, err := catalog.Default()
	require.NoError(t, err)
	im := New(opts, cat)
	require.NoError(t, im.Add(name, in))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	return out.Bytes(), im
}

// notices are the importer's notices, one line each.
func notices(im *Importer) []string {
	var lines []string
	for _, n := range im.Notices() {
		lines = append(lines, n.String())
	}
	return lines
}

// boundAt runs the imported scenario for a few seconds and returns, per
// workload reference, the sorted nodes its pods are bound to.
func boundAt(t *testing.T, sc *scenario.Scenario) map[string][]string {
	t.Helper()
	s, err := simulation.Start(sc, simulation.Options{Check: true})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(10*time.Second))
	cl := s.Cluster()
	out := map[string][]string{}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if p.Node == cluster.NoNode || p.Phase.Terminal() {
			continue
		}
		ref := sc.Workloads[p.Workload].Ref()
		out[ref] = append(out[ref], cl.Nodes[p.Node].Name)
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// importBoth runs check on the import of c exported as YAML and as JSON
// (subtests json=false and json=true); c.JSON says which.
func importBoth(t *testing.T, c kubeexport.Cluster, check func(t *testing.T, c kubeexport.Cluster, out []byte, im *Importer)) {
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", asJSON), func(t *testing.T) {
			c.JSON = asJSON
			out, im := importExport(t, c, Options{})
			check(t, c, out, im)
		})
	}
}

func TestImportStartState(t *testing.T) {
	importBoth(t, small, func(t *testing.T, c kubeexport.Cluster, out []byte, _ *Importer) {
		sc, err := scenario.LoadManifests("imported.yaml", out, nil)
		require.NoError(t, err)

		// Nodes keep their type, zone, capacity type and owner label.
		require.Len(t, sc.Nodes, c.Nodes)
		for _, n := range sc.Nodes {
			i := -1
			for k := 0; k < c.Nodes; k++ {
				if kubeexport.NodeName(k) == n.Name {
					i = k
				}
			}
			require.GreaterOrEqual(t, i, 0, n.Name)
			want := c.Node(i)
			require.Equal(t, "m5.4xlarge", n.InstanceType)
			require.Equal(t, want.Labels["topology.kubernetes.io/zone"], sc.Syms.Name(n.Zone))
			if i%2 == 0 {
				require.Equal(t, cluster.Spot, n.CapacityType, n.Name)
				require.Equal(t, "default", label(sc, n, "karpenter.sh/nodepool"))
			} else {
				require.Equal(t, cluster.OnDemand, n.CapacityType, n.Name)
				require.Equal(t, "core", label(sc, n, "eks.amazonaws.com/nodegroup"))
			}
			require.Equal(t, int64(15890), n.Allocatable[cluster.CPU])
			// The export's time is its newest node heartbeat, an
			// hour after the nodes were created.
			require.Equal(t, time.Hour, n.AgeAtStart, n.Name)
		}
		require.Contains(t, string(out), "importedAt: \"2026-11-20T09:30:00Z\"")

		// Controllers at their replica counts; the Job with its progress.
		replicas := map[string]int32{}
		for _, w := range sc.Workloads {
			if len(w.Replicas.Steps) > 0 {
				replicas[w.Ref()] = w.Replicas.Steps[0].Count
			}
			if w.Ref() == "Job/data/etl" {
				require.Equal(t, int32(6), w.Completions, "10 completions, 4 done")
				require.Equal(t, int32(2), w.Parallelism)
			}
		}
		require.Equal(t, map[string]int32{
			"Deployment/team-0/svc-0000": int32(c.Replicas + c.Pending),
			"Deployment/team-1/svc-0001": int32(c.Replicas),
			"Deployment/team-2/svc-0002": int32(c.Replicas),
			"StatefulSet/data/db":        3,
		}, replicas)

		// Pods are bound where they ran.
		bound := boundAt(t, sc)
		for d := 0; d < c.Deployments; d++ {
			var want []string
			for r := 0; r < c.Replicas; r++ {
				want = append(want, kubeexport.NodeName(c.NodeOfPod(d, r)))
			}
			ref := fmt.Sprintf("Deployment/team-%d/%s", d, kubeexport.DeploymentName(d))
			got := bound[ref]
			if d == 0 {
				// The two pending pods fit somewhere now and are bound
				// too; the running ones must be where they were.
				require.Len(t, got, c.Replicas+c.Pending)
				got = subtract(got, want)
				require.Len(t, got, c.Pending)
				continue
			}
			sort.Strings(want)
			require.Equal(t, want, got, ref)
		}
		require.Equal(t, []string{kubeexport.NodeName(1), kubeexport.NodeName(3), kubeexport.NodeName(5)}, bound["StatefulSet/data/db"])
		require.Equal(t, []string{kubeexport.NodeName(0), kubeexport.NodeName(1)}, bound["Job/data/etl"])
		require.Equal(t, []string{kubeexport.NodeName(2)}, bound["Pod/default/debug"])
		require.Len(t, bound["DaemonSet/kube-system/aws-node"], c.Nodes)
	})
}

// subtract removes want from got (multisets), failing if one is missing.
func subtract(got, want []string) []string {
	rest := append([]string(nil), got...)
	for _, w := range want {
		for i, g := range rest {
			if g == w {
				rest = append(rest[:i], rest[i+1:]...)
				break
			}
		}
	}
	return rest
}

func TestNothingSecretLeaves(t *testing.T) {
	out, im := importExport(t, small, Options{})
	s := string(out)
	for _, leak := range []string{kubeexport.Secret, "DB_PASSWORD", "API_KEY", "/app/server", "last-applied-configuration",
		"managedFields", "uid:", "resourceVersion", "kind: Secret", "kind: ConfigMap", "kind: Service", "providerID",
		"checksum/config", "kube-api-access", "pod-template-hash", "controller-uid", "status:\n    phase"} {
		require.NotContains(t, s, leak)
	}
	all := strings.Join(notices(im), "\n")
	require.Contains(t, all, "cluster.yaml:")
	require.Contains(t, all, "1 Secret object(s) skipped: never read")
	require.Contains(t, all, "1 ConfigMap object(s) skipped: never read")
	require.Contains(t, all, "3 node(s) of NodePool default start as its NodeClaims when the scenario has that NodePool")
	require.Contains(t, all, "3 node(s) of managed node group core start as its instances when the scenario has that group")
	require.NotContains(t, all, "terminating pod(s) left out", "the terminating pod of svc-0000 is kept")
	require.Contains(t, s, "startTerminating:\n    - for: 0s\n      node: ip-10-0-0-1.ec2.internal")
	require.Contains(t, all, "PriorityClass/database-critical: not in the export: written with value 100000, the priority its pods have")
	require.Contains(t, s, "kind: PriorityClass\nmetadata:\n  name: database-critical\nvalue: 100000\n")
}

func TestRedactStable(t *testing.T) {
	a, _ := importExport(t, small, Options{Redact: true})
	b, _ := importExport(t, small, Options{Redact: true})
	require.Equal(t, string(a), string(b), "the same input gives the same output")
	s := string(a)
	for _, name := range []string{"svc-000", "team-", "ip-10-0-", "ec2.internal", "etl", "debug", "123456789012"} {
		require.NotContains(t, s, name)
	}
	require.Contains(t, s, hash("node-", kubeexport.NodeName(0)))
	require.Contains(t, s, "ref: Deployment/"+hash("ns-", "team-0")+"/"+hash("w-", "svc-0000"))
	// The redacted scenario loads and places pods as the plain one does.
	sc, err := scenario.LoadManifests("redacted.yaml", a, nil)
	require.NoError(t, err)
	bound := boundAt(t, sc)
	want := []string{hash("node-", kubeexport.NodeName(1)), hash("node-", kubeexport.NodeName(3)), hash("node-", kubeexport.NodeName(5))}
	sort.Strings(want)
	require.Equal(t, want, bound["StatefulSet/"+hash("ns-", "data")+"/"+hash("w-", "db")])
}

func label(sc *scenario.Scenario, n cluster.Node, key string) string {
	v, ok := n.Labels.Get(sc.Syms.Intern(key))
	if !ok {
		return ""
	}
	return sc.Syms.Name(v)
}

// Without ReplicaSets in the export, a ReplicaSet's pods count for the
// Deployment its name comes from; pods owned by a Deployment directly
// (a state dumped by another tool) count for it too.
func TestPodsWithoutTheirReplicaSet(t *testing.T) {
	var in bytes.Buffer
	require.NoError(t, kubeexport.Cluster{Nodes: 3, Deployments: 2, Replicas: 3}.Write(&in))
	var kept []string
	require.NoError(t, scan(bytes.NewReader(in.Bytes()), func(it *item) error {
		if it.kind != "ReplicaSet" {
			kept = append(kept, string(it.yamlText))
		}
		return nil
	}))
	var list strings.Builder
	list.WriteString("apiVersion: v1\nitems:\n")
	for _, k := range kept {
		list.WriteString("- " + strings.ReplaceAll(strings.TrimSuffix(k, "\n"), "\n", "\n  ") + "\n")
	}
	list.WriteString("- {apiVersion: v1, kind: Pod, metadata: {name: direct, namespace: team-1, ownerReferences: [{kind: Deployment, name: svc-0001, controller: true}]}, spec: {nodeName: " + kubeexport.NodeName(2) + ", containers: [{name: c}]}, status: {phase: Running}}\n")
	list.WriteString("kind: List\nmetadata: {resourceVersion: \"\"}\n")
	im := New(Options{}, nil)
	require.NoError(t, im.Add("no-rs.yaml", strings.NewReader(list.String())))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	sc, err := scenario.LoadManifests("imported.yaml", out.Bytes(), nil)
	require.NoError(t, err)
	for _, w := range sc.Workloads {
		switch w.Ref() {
		case "Deployment/team-0/svc-0000":
			require.Len(t, w.StartOn, 3)
		case "Deployment/team-1/svc-0001":
			require.Len(t, w.StartOn, 3, "3 pods of the ReplicaSet and 1 of the Deployment: the first 3 of 4")
		}
	}
	require.Contains(t, strings.Join(notices(im), "\n"), "ReplicaSet/team-0/svc-0000-7d9f00000: not in the export: its pods count for Deployment/team-0/svc-0000, by its name")
}

// An eksctl ClusterConfig keeps its region, zones and node groups, without
// what may be secret; its zones, not the nodes', are the scenario's.
// From eksctl-io/eksctl examples/01-simple-cluster.yaml, with ssh, iam
// and bootstrap commands added as real configs have them.
func TestClusterConfig(t *testing.T) {
	cc := `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: cluster-1
  region: us-east-1
availabilityZones: [us-east-1a, us-east-1b, us-east-1c, us-east-1d]
iam:
  serviceRoleARN: arn:aws:iam::123456789012:role/eks-service
nodeGroups:
  - name: ng-1
    instanceType: m5.large
    desiredCapacity: 2
    minSize: 1
    maxSize: 10
    ssh:
      publicKeyName: prod-key
    preBootstrapCommands: ["echo s3cr3t-value-do-not-leak"]
    iam:
      instanceRoleARN: arn:aws:iam::123456789012:role/ng
`
	var in bytes.Buffer
	require.NoError(t, kubeexport.Cluster{Nodes: 2, Deployments: 1, Replicas: 2}.Write(&in))
	im := New(Options{}, nil)
	require.NoError(t, im.Add("cluster.yaml", &in))
	require.NoError(t, im.Add("eksctl.yaml", strings.NewReader(cc)))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	s := out.String()
	for _, leak := range []string{"arn:aws:iam", "prod-key", kubeexport.Secret, "serviceRoleARN"} {
		require.NotContains(t, s, leak)
	}
	sc, err := scenario.LoadManifests("imported.yaml", out.Bytes(), nil)
	require.NoError(t, err)
	require.Equal(t, []string{"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"}, sc.Zones)
	require.Len(t, caConfig(sc).NodeGroups, 1)
	require.Equal(t, "ng-1", caConfig(sc).NodeGroups[0].Name)
	// The export has no node of ng-1: its size now is its minSize, not
	// the desiredCapacity it was created with.
	require.Equal(t, 1, caConfig(sc).NodeGroups[0].DesiredCapacity)
	require.Contains(t, strings.Join(notices(im), "\n"), "node group ng-1: desiredCapacity set to 1, its 0 node(s) in the export (within minSize and maxSize): the group adopts them")
}

// webSpec is the spec of the Deployment web in namespace shop and of its
// ReplicaSet (which copies the Deployment's pod template).
const webSpec = `  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]
`

// exportedPod is a running Pod of namespace shop as kubectl exports it in a
// List's items, bound to node and controlled by its owner; spec adds lines
// to its spec.
func exportedPod(name, ownerAPIVersion, ownerKind, owner, node, spec string) string {
	return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata:
    name: %s
    namespace: shop
    ownerReferences:
    - apiVersion: %s
      kind: %s
      name: %s
      controller: true
  spec:
    nodeName: %s
%s  status:
    phase: Running
`, name, ownerAPIVersion, ownerKind, owner, node, spec)
}

// What cannot be placed as it was is reported, one line each with the
// file and the object, saying what was done.
func TestUnplaceable(t *testing.T) {
	export := `apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    labels: {node.kubernetes.io/instance-type: x9.mega, topology.kubernetes.io/zone: us-east-1a, topology.kubernetes.io/region: us-east-1}
    name: odd
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "58"}
    conditions:
    - {type: Ready, status: "True", reason: KubeletReady}
- apiVersion: v1
  kind: Node
  metadata:
    labels: {kubernetes.io/os: windows, node.kubernetes.io/instance-type: m5.large}
    name: win
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
` + webSpec + `- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-5d8f
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}]
` + webSpec +
		exportedPod("web-5d8f-a", "apps/v1", "ReplicaSet", "web-5d8f", "odd", "") +
		exportedPod("web-5d8f-b", "apps/v1", "ReplicaSet", "web-5d8f", "gone", "") +
		exportedPod("api-0", "apps/v1", "StatefulSet", "api", "odd", "") +
		exportedPod("canary-x", "argoproj.io/v1alpha1", "Rollout", "canary", "win", "    containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n") + `kind: List
metadata:
  resourceVersion: ""
`
	out, im := importFile(t, "prod.yaml", strings.NewReader(export), Options{})
	require.Equal(t, []string{
		`prod.yaml:3: Node/odd: instance type "x9.mega" is not in the catalogue: sized from its status.allocatable, and it costs 0`,
		`prod.yaml:12: Node/win: a windows node: skipped (only Linux nodes are simulated); its pods start pending`,
		`prod.yaml:82: Pod/shop/canary-x: owned by Rollout canary, a kind that is not read: imported as a bare Pod`,
		`prod.yaml:68: StatefulSet/shop/api: 1 pod(s) owned by it, which is not in the export: skipped (export statefulsets too)`,
		`prod.yaml:17: Deployment/shop/web: pods on node(s) the scenario does not have (not in the export, or skipped: gone): they start pending`,
		`prod.yaml:82: Pod/shop/canary-x: runs on node win, which the scenario does not have (not in the export, or skipped): it starts pending`,
	}, notices(im))
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"odd"}, sc.Workloads[0].StartOn)
	bound := boundAt(t, sc)
	require.Equal(t, []string{"odd", "odd", "odd"}, bound["Deployment/shop/web"], "the pod of the missing node and the third replica start pending and land on the one node")
	require.Equal(t, []string{"odd"}, bound["Pod/shop/canary-x"], "unbound, it is scheduled where it fits")
}

// terminatingExport is a pod being deleted (kubectl delete, grace period
// 30s) at an export whose newest node heartbeat is 12:00:10: the API
// server set its deletionTimestamp to the deletion's time plus the grace
// period, 12:00:30, so 20s of it are left.
// from kubernetes/website content/en/examples/controllers/nginx-deployment.yaml
// (the Deployment; Node, ReplicaSet and Pod as the API server returns them, reduced)
const terminatingExport = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    creationTimestamp: "2026-11-30T12:00:00Z"
    labels:
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: m5.large
      topology.kubernetes.io/zone: us-east-1a
    name: ip-10-0-1-17.ec2.internal
  status:
    allocatable: {cpu: 1930m, memory: 7220Mi, pods: "29"}
    conditions:
    - lastHeartbeatTime: "2026-12-01T12:00:10Z"
      lastTransitionTime: "2026-11-30T12:00:40Z"
      message: kubelet is posting ready status
      reason: KubeletReady
      status: "True"
      type: Ready
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: nginx-deployment
    namespace: default
  spec:
    replicas: 1
    selector:
      matchLabels: {app: nginx}
    template:
      metadata:
        labels: {app: nginx}
      spec:
        containers:
        - image: nginx:1.14.2
          name: nginx
          resources:
            requests: {cpu: 500m, memory: 256Mi}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: nginx-deployment-86dcfdf4c6
    namespace: default
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: Deployment
      name: nginx-deployment
      uid: 9d0c1f8a-2b1e-4c43-9a55-0c5d4b1f2e01
  spec:
    replicas: 1
    selector:
      matchLabels: {app: nginx, pod-template-hash: 86dcfdf4c6}
    template:
      metadata:
        labels: {app: nginx, pod-template-hash: 86dcfdf4c6}
      spec:
        containers:
        - image: nginx:1.14.2
          name: nginx
          resources:
            requests: {cpu: 500m, memory: 256Mi}
- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-12-01T09:00:00Z"
    deletionGracePeriodSeconds: 30
    deletionTimestamp: "2026-12-01T12:00:30Z"
    labels: {app: nginx, pod-template-hash: 86dcfdf4c6}
    name: nginx-deployment-86dcfdf4c6-x7k2p
    namespace: default
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: nginx-deployment-86dcfdf4c6
      uid: 3f2a9b7c-5d6e-4f80-8a91-b2c3d4e5f601
  spec:
    containers:
    - image: nginx:1.14.2
      name: nginx
      resources:
        requests: {cpu: 500m, memory: 256Mi}
    nodeName: ip-10-0-1-17.ec2.internal
    terminationGracePeriodSeconds: 30
  status:
    phase: Running
`

// A terminating pod is kept terminating on its node with the grace period
// left, and its Deployment's replica is created beside it at the start.
func TestTerminatingPodsKept(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", asJSON), func(t *testing.T) {
			in := []byte(terminatingExport)
			if asJSON {
				var v any
				require.NoError(t, yaml.Unmarshal(in, &v))
				var err error
				in, err = json.Marshal(v)
				require.NoError(t, err)
			}
			out, _ := importFile(t, "export.yaml", bytes.NewReader(in), Options{})
			require.Contains(t, string(out), "importedAt: \"2026-12-01T12:00:10Z\"")
			require.Contains(t, string(out), "startTerminating:\n    - for: 20s\n      node: ip-10-0-1-17.ec2.internal")
			sc, err := scenario.LoadManifests("imported.yaml", out, nil)
			require.NoError(t, err)
			s, err := simulation.Start(sc, simulation.Options{Check: true})
			require.NoError(t, err)
			require.NoError(t, s.RunUntil(10*time.Second))
			cl := s.Cluster()
			var terminating, running int
			for i := range cl.Pods {
				p := &cl.Pods[i]
				if p.Phase.OnNode() && p.Terminating {
					terminating++
				} else if p.Phase.OnNode() {
					running++
				}
			}
			require.Equal(t, 1, terminating, "the deleted pod is still terminating at 10s")
			require.Equal(t, 1, running, "its replacement runs beside it")
			require.NoError(t, s.RunUntil(21*time.Second))
			terminating = 0
			for i := range cl.Pods {
				if p := &cl.Pods[i]; p.Phase.OnNode() && p.Terminating {
					terminating++
				}
			}
			require.Zero(t, terminating, "gone after its 20s")
		})
	}
}

// A StatefulSet keeps its podManagementPolicy and minReadySeconds, and its
// pending pods: db-1 exists, unscheduled, so it is created at the start
// ("" in startOn); db-2 and db-3 do not, so the controller creates them
// (OrderedReady: once db-1 runs).
func TestStatefulSetStart(t *testing.T) {
	sts := func(name, extra string) string {
		return `- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: ` + name + `, namespace: shop}
  spec:
    replicas: 4
    serviceName: ` + name + `
` + extra + `    selector: {matchLabels: {app: ` + name + `}}
    template:
      metadata: {labels: {app: ` + name + `}}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
`
	}
	pending := func(name, owner string) string {
		return `- apiVersion: v1
  kind: Pod
  metadata:
    name: ` + name + `
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: ` + owner + `, controller: true}]
  spec:
    containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
  status: {phase: Pending}
`
	}
	export := `apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}
    name: n1
` + sts("db", "    podManagementPolicy: OrderedReady\n") + sts("cache", "    podManagementPolicy: Parallel\n    minReadySeconds: 10\n") +
		exportedPod("db-0", "apps/v1", "StatefulSet", "db", "n1", "") + pending("db-1", "db") +
		exportedPod("cache-0", "apps/v1", "StatefulSet", "cache", "n1", "") + `kind: List
metadata:
  resourceVersion: ""
`
	out, _ := importFile(t, "prod.yaml", strings.NewReader(export), Options{})
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	require.Len(t, sc.Workloads, 2)
	db, cache := sc.Workloads[0], sc.Workloads[1]
	require.Equal(t, "StatefulSet/shop/db", db.Ref())
	require.True(t, db.OrderedReady)
	require.Equal(t, []string{"n1", ""}, db.StartOn, "db-1 exists, pending; db-2 and db-3 do not")
	require.False(t, cache.OrderedReady)
	require.Equal(t, 10*time.Second, cache.MinReady)
	require.Equal(t, []string{"n1"}, cache.StartOn)
}

// TestStatefulSetProbeTiming: an imported StatefulSet keeps the timing of
// its containers' and sidecars' readiness and startup probes, so its pods
// become Ready as late as in the export's cluster (workload ReadyAfter),
// and none of their handlers (which may hold secrets); a Deployment's
// probes are dropped.
func TestStatefulSetProbeTiming(t *testing.T) {
	export := `apiVersion: v1
items:
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db, namespace: shop}
  spec:
    replicas: 2
    serviceName: db
    selector: {matchLabels: {app: db}}
    template:
      metadata: {labels: {app: db}}
      spec:
        initContainers:
        - name: proxy
          image: x
          restartPolicy: Always
          readinessProbe: {tcpSocket: {port: 9000}, initialDelaySeconds: 40, periodSeconds: 10, successThreshold: 1, timeoutSeconds: 1, failureThreshold: 3}
        containers:
        - name: c
          image: x
          resources: {requests: {cpu: 100m}}
          startupProbe:
            httpGet: {path: /started, port: 80, httpHeaders: [{name: Authorization, value: Bearer s3cret}]}
            initialDelaySeconds: 0
            periodSeconds: 10
            successThreshold: 1
            timeoutSeconds: 1
            failureThreshold: 30
          readinessProbe:
            exec: {command: [check, --password=hunter2]}
            initialDelaySeconds: 10
            periodSeconds: 5
            successThreshold: 2
            timeoutSeconds: 1
            failureThreshold: 3
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: c, image: x, readinessProbe: {httpGet: {path: /web-ready, port: 80}, periodSeconds: 7}}
kind: List
metadata:
  resourceVersion: ""
`
	out, _ := importFile(t, "prod.yaml", strings.NewReader(export), Options{})
	for _, leak := range []string{"s3cret", "hunter2", "/started", "web-ready", "periodSeconds: 7"} {
		require.NotContains(t, string(out), leak)
	}
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	require.Equal(t, "StatefulSet/shop/db", sc.Workloads[0].Ref())
	// The startup probe succeeds at AddPod + 10 s, 8 s after the start
	// (podStartDelay 2 s); readiness runs then, inside its 10 s initial
	// delay, and on its ticker from there: 8+5 = 13 s, 18 s (two
	// successes). The sidecar is Ready at 40 s, and the pod with it.
	require.Equal(t, 40*time.Second, sc.Workloads[0].ReadyAfter)

	// With the sidecar Ready at its start: the main container's 18 s.
	out, _ = importFile(t, "prod.yaml", strings.NewReader(strings.Replace(export, "initialDelaySeconds: 40", "initialDelaySeconds: 0", 1)), Options{})
	sc, err = scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	require.Equal(t, 18*time.Second, sc.Workloads[0].ReadyAfter)
}
