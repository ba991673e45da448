package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/scenario"
)

// smuggled is an export in which a secret (xleakxNN, a different one
// per route, each a valid label value) is planted in every place an
// export can carry one: Secret and ConfigMap objects, environment values
// and references, commands and args of containers, init containers and
// the Cluster Autoscaler's sidecar, annotations (last-applied-configuration
// holds the whole object), labels of objects no selector reads, volumes,
// image pull secrets, probes, security settings, eksctl's Bottlerocket
// settings, bootstrap commands, SSH keys, IAM and tags, an EC2NodeClass's
// user data, tags, role, KMS key and subnet selectors, a Provisioner's
// inline provider, a NodePool's and a node's annotations and status, an
// HPA's external metric selector, a StorageClass's parameters, a CSI
// volume's secrets and attributes, descriptions, and kinds not read.
const smuggled = `apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop, labels: {token: xleakx01}}
stringData: {password: xleakx02}
data: {key: eGxlYWt4MDM=}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: shop}
data: {token: xleakx04}
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {team: shop}
  annotations: {owner: xleakx05}
spec: {finalizers: [kubernetes]}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-1.ec2.internal
  creationTimestamp: "2026-11-20T08:00:00Z"
  labels:
    kubernetes.io/hostname: ip-10-0-1-1.ec2.internal
    node.kubernetes.io/instance-type: m5.xlarge
    topology.kubernetes.io/zone: us-east-1a
    topology.kubernetes.io/region: us-east-1
    karpenter.sh/capacity-type: on-demand
    alpha.eksctl.io/nodegroup-name: ng-1
    alpha.eksctl.io/cluster-name: prod
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    custom.example.com/token: xleakx06
spec:
  providerID: aws:///us-east-1a/i-0xleakx07
status:
  allocatable: {cpu: 3920m, memory: 14Gi, pods: "58"}
  capacity: {cpu: "4", memory: 15Gi, pods: "58"}
  addresses: [{type: InternalDNS, address: xleakx08.internal}]
  images: [{names: [registry.example.com/xleakx09:v1], sizeBytes: 1}]
  nodeInfo: {machineID: xleakx10, systemUUID: x, bootID: x, kernelVersion: x, osImage: x, containerRuntimeVersion: x, kubeletVersion: x, kubeProxyVersion: x, operatingSystem: linux, architecture: amd64}
  conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2026-11-20T08:30:00Z", lastTransitionTime: "2026-11-20T08:00:00Z", message: xleakx11}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web, deployed-by: xleakx12}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"spec":{"template":{"spec":{"containers":[{"env":[{"name":"K","value":"xleakx13"}]}]}}}}'
    vault.hashicorp.com/agent-inject-token: xleakx14
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {vault.hashicorp.com/role: xleakx15, karpenter.sh/do-not-disrupt: "true"}
    spec:
      serviceAccountName: xleakx16
      imagePullSecrets: [{name: xleakx17}]
      initContainers:
      - name: init
        image: busybox
        command: [sh, -c, "echo xleakx18"]
        args: [--token=xleakx19]
        env: [{name: T, value: xleakx20}]
      containers:
      - name: web
        image: nginx
        command: [/app/server, --password=xleakx21]
        args: [--api-key, xleakx22]
        env:
        - {name: DB_PASSWORD, value: xleakx23}
        - name: FROM_SECRET
          valueFrom: {secretKeyRef: {name: xleakx24, key: xleakx25}}
        envFrom: [{secretRef: {name: xleakx26}}, {configMapRef: {name: xleakx27}}]
        resources: {requests: {cpu: 500m, memory: 512Mi}}
        livenessProbe: {httpGet: {path: /xleakx28, port: 80, httpHeaders: [{name: Authorization, value: xleakx29}]}}
        readinessProbe: {exec: {command: [cat, /xleakx30]}}
        securityContext: {seLinuxOptions: {user: xleakx31}}
        volumeMounts: [{name: creds, mountPath: /xleakx32}]
      volumes:
      - {name: creds, secret: {secretName: xleakx33}}
      - {name: cfg, configMap: {name: xleakx34}}
      - name: token
        projected: {sources: [{serviceAccountToken: {audience: xleakx35, path: t}}]}
      - {name: host, hostPath: {path: /xleakx36}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler, namespace: kube-system, labels: {app: cluster-autoscaler}}
spec:
  replicas: 1
  selector: {matchLabels: {app: cluster-autoscaler}}
  template:
    metadata: {labels: {app: cluster-autoscaler}, annotations: {iam.amazonaws.com/role: xleakx37}}
    spec:
      initContainers:
      - {name: fetch, image: vault, args: [login, token=xleakx38]}
      containers:
      - name: vault-agent
        image: hashicorp/vault:1.15
        command: [vault, login, -method=token, token=xleakx39]
        env: [{name: VAULT_TOKEN, value: xleakx40}]
      - name: cluster-autoscaler
        image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/cluster-autoscaler:v1.31.0
        command:
        - ./cluster-autoscaler
        - --cloud-provider=aws
        - --expander=least-waste
        - --kubeconfig=/xleakx41
        - --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod
        args: [--vault-token=xleakx42, --scale-down-unneeded-time=5m]
        env: [{name: AWS_SECRET_ACCESS_KEY, value: xleakx43}]
        resources: {requests: {cpu: 100m, memory: 600Mi}}
---
apiVersion: v1
kind: Pod
metadata:
  name: debug
  namespace: shop
  labels: {run: debug}
  annotations: {kubernetes.io/psp: xleakx44}
spec:
  nodeName: ip-10-0-1-1.ec2.internal
  containers:
  - {name: debug, image: busybox, args: [sleep, xleakx45], env: [{name: X, value: xleakx46}]}
status:
  phase: Running
  message: xleakx47
  containerStatuses: [{name: debug, image: busybox, imageID: xleakx48, ready: true, restartCount: 0}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop, annotations: {note: xleakx49}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
  - type: External
    external:
      metric:
        name: sqs_messages
        selector: {matchLabels: {queue: xleakx50, account: "123456789012"}}
      target: {type: AverageValue, averageValue: "30"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop, annotations: {note: xleakx51}}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
status: {currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 2, observedGeneration: 1, conditions: [{type: x, status: "True", reason: xleakx52, message: x, lastTransitionTime: "2026-11-20T08:00:00Z"}]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: shop-high}
value: 1000
description: xleakx53
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3, annotations: {note: xleakx54}}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
parameters: {type: gp3, kmsKeyId: "arn:aws:kms:us-east-1:123456789012:key/xleakx55", csi.storage.k8s.io/provisioner-secret-name: xleakx56}
mountOptions: [xleakx57]
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1, labels: {topology.kubernetes.io/zone: us-east-1a, owner: xleakx58}, annotations: {note: xleakx59}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  csi:
    driver: ebs.csi.aws.com
    volumeHandle: vol-0123456789abcdef0
    volumeAttributes: {token: xleakx60}
    nodePublishSecretRef: {name: xleakx61, namespace: shop}
  claimRef: {namespace: shop, name: data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop, annotations: {note: xleakx62}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  volumeName: pv-1
  resources: {requests: {storage: 10Gi}}
  dataSource: {kind: VolumeSnapshot, name: xleakx63, apiGroup: snapshot.storage.k8s.io}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  labels: {owner: xleakx64}
  annotations: {kubernetes.io/description: xleakx65}
spec:
  template:
    metadata:
      labels: {team: shop}
      annotations: {example.com/token: xleakx66}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  limits: {cpu: "100"}
status: {conditions: [{type: Ready, status: "True", reason: xleakx67, message: x, lastTransitionTime: "2026-11-20T08:00:00Z"}]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default, annotations: {note: xleakx68}}
spec:
  amiFamily: AL2023
  amiSelectorTerms: [{name: my-ami, owner: "123456789012"}]
  instanceProfile: xleakx70
  userData: "echo TOKEN=xleakx71"
  tags: {cost-center: xleakx72, owner: KarpenterNodeRole-xleakx69}
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: xleakx73}}, {id: subnet-0123456789abcdef0}]
  securityGroupSelectorTerms: [{id: sg-0123456789abcdef0}]
  metadataOptions: {httpTokens: required}
  context: xleakx74
  blockDeviceMappings:
  - deviceName: /dev/xvda
    ebs: {volumeSize: 100Gi, volumeType: gp3, encrypted: true, kmsKeyID: "arn:aws:kms:us-east-1:123456789012:key/xleakx75", snapshotID: snap-xleakx76}
---
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: legacy}
spec:
  requirements:
  - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  provider:
    instanceProfile: xleakx77
    subnetSelector: {karpenter.sh/discovery: xleakx78}
    tags: {owner: xleakx79}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-abc, labels: {karpenter.sh/nodepool: default}, annotations: {note: xleakx80}}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: []
status: {nodeName: ip-10-0-9-9.ec2.internal, imageID: xleakx81, providerID: aws:///us-east-1a/i-xleakx82}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, annotations: {service.beta.kubernetes.io/aws-load-balancer-ssl-cert: xleakx83}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: prod
  region: us-east-1
  tags: {cost-center: xleakx84, k8s.io/cluster-autoscaler/node-template/label/tier2: web2}
vpc:
  id: vpc-0123456789abcdef0
  subnets: {private: {us-east-1a: {id: subnet-0123456789abcdef0}}}
iam: {serviceRoleARN: "arn:aws:iam::123456789012:role/xleakx85"}
secretsEncryption: {keyARN: "arn:aws:kms:us-east-1:123456789012:key/xleakx86"}
availabilityZones: [us-east-1a, us-east-1b]
nodeGroups:
- name: ng-1
  instanceType: m5.xlarge
  minSize: 1
  maxSize: 3
  labels: {tier: web}
  ssh: {publicKey: "ssh-rsa xleakx87"}
  iam:
    instanceRoleARN: "arn:aws:iam::123456789012:role/xleakx88"
    withAddonPolicies: {autoScaler: true}
  preBootstrapCommands: ["echo xleakx89"]
  overrideBootstrapCommand: "echo xleakx90"
  bottlerocket:
    settings:
      container-registry:
        credentials: [{registry: docker.io, username: me, password: xleakx91}]
  tags: {owner: xleakx92}
  securityGroups: {attachIDs: [sg-xleakx93]}
  subnets: [subnet-xleakx94]
  targetGroupARNs: ["arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/xleakx95/0123456789abcdef"]
  kubeletExtraConfig: {featureGates: {xleakx96: true}}
  volumeKmsKeyID: "arn:aws:kms:us-east-1:123456789012:key/xleakx97"
managedNodeGroups:
- name: mng-1
  instanceType: m5.large
  minSize: 0
  maxSize: 2
  launchTemplate: {id: lt-0123456789abcdef0, version: xleakx98}
  tags: {owner: xleakx99}
`

// leakRE finds a planted secret.
var leakRE = regexp.MustCompile(`xleakx[0-9]+`)

// asJSONList is a YAML stream of objects as kubectl get -o json prints
// them: one List.
func asJSONList(t *testing.T, stream string) []byte {
	t.Helper()
	var items []json.RawMessage
	for _, doc := range strings.Split(stream, "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err)
		items = append(items, j)
	}
	out, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}, "", "    ")
	require.NoError(t, err)
	return out
}

// No planted secret reaches the scenario, with or without --redact, from
// YAML or JSON; the scenario still loads, with what the simulation reads.
func TestNothingSmuggledLeaves(t *testing.T) {
	require.Len(t, leakRE.FindAllString(smuggled, -1), 98, "every route planted (xleakx03 is base64 in the Secret)")
	for _, asJSON := range []bool{false, true} {
		for _, redact := range []bool{false, true} {
			t.Run(fmt.Sprintf("json=%v,redact=%v", asJSON, redact), func(t *testing.T) {
				in := []byte(smuggled)
				if asJSON {
					in = asJSONList(t, smuggled)
				}
				out, im := importFile(t, "cluster.yaml", bytes.NewReader(in), Options{Redact: redact})
				s := string(out)
				require.Empty(t, leakRE.FindAllString(s, -1), "planted secrets in the scenario:\n%s", s)
				for _, n := range notices(im) {
					require.NotRegexp(t, leakRE, n, "a notice")
				}
				for _, leak := range []string{"vault", "bottlerocket", "userData", "preBootstrapCommands", "subnet-0123456789abcdef0", "sg-0123456789abcdef0",
					"kmsKeyID", "eGxlYWt4MDM", "targetGroupARNs", "last-applied-configuration", "imagePullSecrets", "envFrom"} {
					require.NotContains(t, s, leak)
				}
				sc, err := scenario.LoadManifests("imported.yaml", out, nil)
				require.NoError(t, err)
				// What the simulation reads is still there.
				require.Len(t, caConfig(sc).NodeGroups, 2)
				require.Len(t, sc.Nodes, 1)
				require.Equal(t, "m5.xlarge", sc.Nodes[0].InstanceType)
				require.Equal(t, 5*60, int(caConfig(sc).Settings.ScaleDownUnneededTime.Seconds()), "the CA's modelled flags are kept")
				for _, g := range caConfig(sc).NodeGroups {
					_, ok := g.Template.Labels["tier2"]
					require.Equal(t, g.Name == "ng-1", ok, "the cluster's node-template tag reaches the template of its eksctl node group, as eksctl propagates it (%s)", g.Name)
				}
				if !redact {
					require.Contains(t, s, "k8s.io/cluster-autoscaler/prod")
					require.Contains(t, s, "image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/cluster-autoscaler:v1.31.0")
					require.Contains(t, s, "karpenter.sh/do-not-disrupt")
				}
				all := strings.Join(notices(im), "\n")
				require.Contains(t, all, "argument(s) of the Cluster Autoscaler that the simulation does not read left out: --kubeconfig, --vault-token")
				require.Contains(t, all, "1 other container(s) of the Cluster Autoscaler's Deployment left out")
			})
		}
	}
}

// A Cluster Autoscaler run by a shell (its flags cannot be read) loses its
// command whole: the wrapper's other commands may hold anything.
func TestCAWrappedCommandLeftOut(t *testing.T) {
	in := `apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler, namespace: kube-system}
spec:
  selector: {matchLabels: {app: ca}}
  template:
    metadata: {labels: {app: ca}}
    spec:
      containers:
      - name: ca
        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0
        command: [sh, -c, "vault login token=xleakx01 && exec ./cluster-autoscaler --scan-interval=20s"]
`
	out, im := importFile(t, "ca.yaml", strings.NewReader(in), Options{})
	require.NotRegexp(t, leakRE, string(out))
	require.NotContains(t, string(out), "command")
	require.Contains(t, strings.Join(notices(im), "\n"), "the Cluster Autoscaler's command is not the cluster-autoscaler program, so its flags cannot be read: the command and its arguments are left out")
	require.Contains(t, string(out), "image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0")
}
