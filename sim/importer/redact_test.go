package importer

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// identified is an export whose pods find their nodes by the identities
// --redact replaces: a nodeSelector on a node's hostname, node affinity on
// its name (matchFields metadata.name), a node label whose value is an
// e-mail-like owner, a numeric label compared with Gt, pod affinity to a
// namespace by its kubernetes.io/metadata.name label, a Karpenter
// NodePool's requirement on a team label, and a managed node group the
// Cluster Autoscaler finds by an auto-discovery tag that names the cluster
// (prod); the Cluster Autoscaler's image is in the account's ECR registry
// (its pod runs: it is no workload of the scenario, so it gets no startOn),
// and the account, subnets and security groups appear in ARNs and
// selectors.
func identified() string {
	var b strings.Builder
	node := func(i int, extra string) {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-%[1]d.ec2.internal
  creationTimestamp: "2026-11-20T08:00:00Z"
  labels:
    kubernetes.io/hostname: ip-10-0-1-%[1]d.ec2.internal
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: m5.xlarge
    topology.kubernetes.io/zone: us-east-1a
    topology.kubernetes.io/region: us-east-1
    eks.amazonaws.com/nodegroup: core
    eks.amazonaws.com/capacityType: ON_DEMAND
    alpha.eksctl.io/cluster-name: prod
    eks.amazonaws.com/nodegroup-image: ami-0123456789abcdef0
%[2]sstatus:
  allocatable: {cpu: 3920m, memory: 14Gi, pods: "58"}
  capacity: {cpu: "4", memory: 15Gi, pods: "58"}
  conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2026-11-20T08:30:00Z"}]
`, i, extra)
	}
	node(1, "")
	node(2, "    gen: \"5\"\n")
	node(3, "    owner: alice.example.com\n")
	deploy := func(ns, name string, replicas int, spec string) {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: %[2]s}}
  template:
    metadata: {labels: {app: %[2]s}}
    spec:
%[4]s      containers: [{name: app, image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/%[2]s:v1, resources: {requests: {cpu: 250m, memory: 256Mi}}}]
`, ns, name, replicas, spec)
	}
	deploy("shop", "web", 1, "")
	b.WriteString(`---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d8f
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}]
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f-abcde
  namespace: shop
  labels: {app: web}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, controller: true}]
spec:
  nodeName: ip-10-0-1-1.ec2.internal
  containers: [{name: app, image: x, resources: {requests: {cpu: 250m, memory: 256Mi}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {kubernetes.io/metadata.name: shop, team: shop}}
---
apiVersion: v1
kind: Namespace
metadata: {name: jobs, labels: {kubernetes.io/metadata.name: jobs}}
`)
	deploy("shop", "pinned-by-hostname", 2, "      nodeSelector: {kubernetes.io/hostname: ip-10-0-1-1.ec2.internal}\n")
	deploy("shop", "pinned-by-name", 2, `      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [ip-10-0-1-2.ec2.internal]}]}]
`)
	deploy("shop", "owned", 2, "      nodeSelector: {owner: alice.example.com}\n")
	deploy("shop", "newer", 2, `      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: gen, operator: Gt, values: ["3"]}]}]
`)
	deploy("jobs", "near-web", 2, `      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}}
            namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}
            topologyKey: kubernetes.io/hostname
`)
	deploy("jobs", "batch", 6, "      nodeSelector: {tier: batch}\n      tolerations: [{key: batch, operator: Exists}]\n")
	deploy("jobs", "payments", 6, "      nodeSelector: {team: payments}\n")
	b.WriteString(`---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: kp-pool}
spec:
  template:
    metadata: {labels: {team: payments}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}
      - {key: team, operator: In, values: [payments]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole-prod
  subnetSelectorTerms: [{id: subnet-0123456789abcdef0}]
  securityGroupSelectorTerms: [{id: sg-0123456789abcdef0}]
  blockDeviceMappings:
  - deviceName: /dev/xvda
    ebs: {volumeSize: 50Gi, kmsKeyID: "arn:aws:kms:us-east-1:123456789012:key/0123"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler, namespace: kube-system}
spec:
  selector: {matchLabels: {app: cluster-autoscaler}}
  template:
    metadata: {labels: {app: cluster-autoscaler}}
    spec:
      containers:
      - name: cluster-autoscaler
        image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/cluster-autoscaler:v1.31.0
        command:
        - ./cluster-autoscaler
        - --cloud-provider=aws
        - --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod
---
apiVersion: v1
kind: Pod
metadata:
  name: cluster-autoscaler-7c9f-xyz
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: cluster-autoscaler-7c9f, controller: true}]
spec:
  nodeName: ip-10-0-1-3.ec2.internal
  containers: [{name: cluster-autoscaler, image: x}]
status: {phase: Running}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: External
    external:
      metric: {name: q, selector: {matchLabels: {arn: "arn-aws-sqs-us-east-1-123456789012-q"}}}
      target: {type: AverageValue, averageValue: "30"}
---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: prod, region: us-east-1}
vpc: {subnets: {private: {us-east-1a: {id: subnet-0123456789abcdef0}}}, securityGroup: sg-0123456789abcdef0}
availabilityZones: [us-east-1a, us-east-1b]
managedNodeGroups:
- name: core
  instanceType: m5.xlarge
  minSize: 3
  maxSize: 3
- name: batch
  instanceType: m5.xlarge
  minSize: 0
  maxSize: 3
  labels: {tier: batch}
  taints: [{key: batch, value: "true", effect: NoSchedule}]
  securityGroups: {attachIDs: [sg-0123456789abcdef0]}
`)
	return b.String()
}

// A redacted import runs as the plain one does: the same pods scheduled
// and stranded, the same nodes, the same cost; and no identifier of the
// cluster is left in it.
func TestRedactedRunsIdentically(t *testing.T) {
	export := identified()
	run := func(redact bool) (string, simFigures) {
		out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{Redact: redact})
		sc, err := scenario.LoadManifests("imported.yaml", out, nil)
		require.NoError(t, err, "%s", out)
		rep, err := simulation.Run(sc, simulation.Options{Check: true})
		require.NoError(t, err)
		return string(out), simFigures{Total: rep.Pods.Total, Scheduled: rep.Pods.Scheduled, Stranded: rep.Pods.Stranded,
			PendingAtEnd: rep.Pods.PendingAtEnd, Initial: rep.Nodes.Initial, Launched: rep.Nodes.Launched, Peak: rep.Nodes.Peak,
			AtEnd: rep.Nodes.AtEnd, CostUSD: rep.Cost.TotalUSD}
	}
	_, plain := run(false)
	require.Zero(t, plain.Stranded, "every pod finds its node: %+v", plain)
	require.Zero(t, plain.PendingAtEnd, "%+v", plain)
	require.Positive(t, plain.Launched, "the autoscalers launch nodes for batch and payments: %+v", plain)
	s, redacted := run(true)
	require.Equal(t, plain, redacted)
	for _, id := range []string{"ip-10-0", "10-0-1", "ec2.internal", "alice", "example.com", "123456789012", "payments",
		"subnet-0123456789abcdef0", "sg-0123456789abcdef0", "ami-0123456789abcdef0", "shop", "jobs"} {
		require.NotContains(t, s, id)
	}
	require.NotRegexp(t, regexp.MustCompile(`\bprod\b`), s, "the cluster's name")
}

// simFigures are the report's figures a redaction must not change.
type simFigures struct {
	Total, Scheduled, Stranded, PendingAtEnd int
	Initial, Launched, Peak, AtEnd           int
	CostUSD                                  float64
}
