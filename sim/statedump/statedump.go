// Package statedump writes the simulated cluster at one moment as a
// kubectl-style List (sim run --dump-state): what `kubectl get
// nodes,pods,deployments,replicasets,statefulsets,daemonsets,jobs -A -o
// yaml` and `kubectl get nodepools,nodeclaims -o yaml` would print of the
// cluster if it were real, built with the k8s.io/api types and marshalled
// as kubectl does (sigs.k8s.io/yaml: JSON field names, keys sorted). `sim
// import` reads it back into a scenario that starts from that state.
//
// It is an output package: it reads the cluster state and what the driver
// copies into [Input] of the models' state (controllers, NodeClaims,
// NodePools), and writes to the io.Writer it is given, one item at a time.
//
// What it writes (docs/commands.md, "sim run --dump-state"):
//
//   - Nodes that are launching or Ready (not gone): labels, taints,
//     cordon, a start node's karpenter.sh/do-not-disrupt annotation,
//     karpenter.sh/registered and initialized labels on a Ready
//     Karpenter node (upstream's cluster state reads those, not the
//     NodeClaim's conditions),
//     capacity and allocatable, a providerID
//     aws:///ZONE/i-<17 hex digits> (the EC2 instance behind it; static
//     nodes, which have none, get an ID made from their node number with
//     bit 60 set), creationTimestamp at the launch, and a Ready
//     condition (False while launching, with the not-ready taint; False
//     or Unknown under a node failure, whose other conditions, such as
//     AcceleratedHardwareReady=False, are added as the agent reports
//     them). A
//     spot node no label calls spot (a static pool's) gets
//     eks.amazonaws.com/capacityType: SPOT, so that an import keeps it.
//   - Pods that are pending, bound or running (finished and deleted pods
//     are left out, as a Job's TTL would): labels, ownerReferences, one
//     container named "main" holding the pod's requests (and limits equal
//     to them for extended resources, as the API requires), nodeSelector,
//     affinity, tolerations, topology spread, priority, nodeName, phase,
//     the PodScheduled condition, and deletionTimestamp (the dump's time)
//     on terminating pods. The spec is rebuilt from the compiled spec: it
//     holds what the simulator reads, in the form the template had it
//     (In with one value in matchLabels), not the original bytes.
//   - Deployments with one ReplicaSet each at the current replica count
//     (named <deployment>-<hash of the name>, the pods' pod-template-hash),
//     StatefulSets (their podManagementPolicy, minReadySeconds, and a
//     readinessProbe without handler, initialDelaySeconds and
//     periodSeconds both the seconds from a pod's start to its Ready
//     condition, that gives the same delay as the original probes:
//     kubelet.ReadyAfter), DaemonSets, and the Jobs not finished yet with
//     status.active, succeeded and failed. A CronJob's Jobs are written
//     without their CronJob (its schedule is not kept in compiled form).
//     A workload the scenario scales with an HPA gets an autoscaling/v2
//     HorizontalPodAutoscaler (its bounds and CPU target); the
//     PodDisruptionBudgets are written as they were compiled.
//   - StorageClasses, PersistentVolumes (manifests' and provisioned ones,
//     with the zone they live in as node affinity, or as the zone label
//     where their manifest gave it so; claimRef; an EBS CSI source for
//     volumes that attach), PersistentVolumeClaims (class, volumeName,
//     a generic ephemeral volume's owned by its pod), pods' and
//     templates' claim volumes and StatefulSets' volumeClaimTemplates
//     (storage.go), so that an import binds every claim to its volume in
//     its zone again. Access modes are ReadWriteOnce and sizes are not
//     written (the model keeps neither).
//   - Karpenter's NodeClaims (karpenter.sh/v1) with their NodePool label
//     and owner, nodeClassRef, requirements, Karpenter's hash
//     annotations (as an import had them), a deletionTimestamp while
//     deleting, and status.providerID, nodeName, capacity, allocatable,
//     lastPodEventTime and conditions (Drifted on a drifted node,
//     InstanceTerminating once a deleted node's instance is terminated); and the
//     NodePools in force.
//
// UIDs are stable hashes of kind, namespace and name, so that the same run
// dumps the same bytes.
package statedump

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Workload kinds, as Workload.Kind spells them.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindDaemonSet   = "DaemonSet"
	KindJob         = "Job"
	KindPod         = "Pod"
)

// Input is what Write reads.
type Input struct {
	Cluster *cluster.Cluster
	// Epoch is the wall time of simulated time 0.
	Epoch time.Time
	// Capacity returns a node's capacity; nil, or false: its allocatable.
	Capacity func(id cluster.NodeID) (cluster.Resources, bool)
	// Workloads are indexed by cluster.Pod.Workload.
	Workloads []Workload
	// InstanceOf returns the index in its workload's Instances of the
	// instance that made a pod, or -1.
	InstanceOf func(id cluster.PodID) int32
	// NodeClaims returns the NodeClaim of a Karpenter node (nil: none).
	NodeClaims func(id cluster.NodeID) (NodeClaim, bool)
	NodePools  []NodePool
	PDBs       []cluster.PDB
}

// Workload is one controller of the run.
type Workload struct {
	Kind            string
	Namespace, Name string
	Pod             *cluster.PodSpec
	// Parallelism and BackoffLimit of a Job.
	Parallelism, BackoffLimit int32
	// OrderedReady and MinReadySeconds are a StatefulSet's
	// podManagementPolicy (OrderedReady, else Parallel) and
	// minReadySeconds.
	OrderedReady    bool
	MinReadySeconds int32
	// ReadyAfter is how long after its start a StatefulSet's pod becomes
	// Ready (workload.Spec.ReadyAfter, from its probes): written as a
	// readinessProbe that gives the same delay.
	ReadyAfter time.Duration
	// HPA is set on a Deployment or StatefulSet an HPA scales.
	HPA       *HPA
	Instances []Instance
}

// Instance is one created copy of a workload (workload.InstanceView).
type Instance struct {
	Name                         string
	Desired, Succeeded, Failures int32
	Done                         bool
}

// NodeClaim is a Karpenter node's NodeClaim.
type NodeClaim struct {
	NodePool     string
	NodeClassRef NodeClassRef
	Capacity     cluster.Resources
	// LastPodEvent is status.lastPodEventTime when HasLastPodEvent.
	LastPodEvent    time.Duration
	HasLastPodEvent bool
	// Drifted: its Drifted condition is true since DriftedAt.
	Drifted   bool
	DriftedAt time.Duration
	// Deleting: the NodeClaim is being deleted (deletionTimestamp);
	// InstanceTerminating, since InstanceTerminatingAt, once it is
	// drained and its instance terminated (Karpenter's budgets no longer
	// count it).
	Deleting              bool
	InstanceTerminating   bool
	InstanceTerminatingAt time.Duration
	// Annotations are its metadata annotations (Karpenter's hashes).
	Annotations map[string]string
	// ExpiresAt is when it expires, if Expires: its spec.expireAfter is
	// that less its creation (else Never).
	ExpiresAt time.Duration
	Expires   bool
}

// NodeClassRef names a NodePool's node class.
type NodeClassRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// The karpenter.sh/v1 API group's spellings.
const (
	KarpenterAPIVersion  = "karpenter.sh/v1"
	LabelNodePool        = "karpenter.sh/nodepool"
	LabelNodeRegistered  = "karpenter.sh/registered"
	LabelNodeInitialized = "karpenter.sh/initialized"
)

// Write writes the List. Objects come in the order kubectl would list
// the kinds: NodePools, NodeClaims, Nodes, Deployments, ReplicaSets,
// StatefulSets, DaemonSets, Jobs, HorizontalPodAutoscalers,
// PodDisruptionBudgets, StorageClasses, PersistentVolumes,
// PersistentVolumeClaims, Pods.
func Write(w io.Writer, in Input) error {
	d := &dumper{in: in, cl: in.Cluster, bw: bufio.NewWriterSize(w, 1<<16)}
	d.now = in.Epoch.Add(d.cl.Now())
	if _, err := d.bw.WriteString("apiVersion: v1\n"); err != nil {
		return err
	}
	for i := range in.NodePools {
		d.item(in.NodePools[i].object())
	}
	d.nodeClaims()
	d.nodes()
	d.controllers()
	d.hpas()
	d.pdbs()
	d.storage()
	d.pods()
	if d.err != nil {
		return d.err
	}
	if d.items == 0 {
		d.bw.WriteString("items: []\n")
	}
	if _, err := d.bw.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n"); err != nil {
		return err
	}
	return d.bw.Flush()
}

type dumper struct {
	in  Input
	cl  *cluster.Cluster
	bw  *bufio.Writer
	now time.Time
	err error
	// items counts the items written ("items:" comes before the first).
	items int
	// specs caches sharedSpec.
	specs map[*cluster.PodSpec]corev1.PodSpec
}

// item writes one list item: its YAML indented under "- ".
func (d *dumper) item(obj any) {
	if d.err != nil {
		return
	}
	b, err := yaml.Marshal(obj)
	if err != nil {
		d.err = err
		return
	}
	if d.items == 0 {
		d.bw.WriteString("items:\n")
	}
	d.items++
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		prefix := "  "
		if i == 0 {
			prefix = "- "
		}
		d.bw.WriteString(prefix)
		d.bw.WriteString(l)
	}
	_, d.err = d.bw.WriteString("\n")
}

func (d *dumper) time(t time.Duration) metav1.Time {
	return metav1.NewTime(d.in.Epoch.Add(t).UTC())
}

// UID is a stable UUID-shaped hash of an object's identity.
func UID(kind, namespace, name string) types.UID {
	b := cluster.ObjectUIDHash(kind, namespace, name)
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// TemplateHash is the pod-template-hash of a Deployment's ReplicaSet: a
// stable hash of the Deployment's identity, in the alphabet the
// Deployment controller uses.
func TemplateHash(namespace, name string) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s", namespace, name)
	const alphabet = "bcdfghjklmnpqrstvwxz2456789" // k8s.io/apimachinery rand.SafeEncodeString
	v := h.Sum64()
	var b [10]byte
	for i := range b {
		b[i] = alphabet[v%uint64(len(alphabet))]
		v /= uint64(len(alphabet))
	}
	return string(b[:])
}

// InstanceID is the EC2 instance ID written for a node: its cloud instance,
// or for a static node one made from its node number.
func InstanceID(n *cluster.Node, id cluster.NodeID) string {
	if n.Instance > 0 {
		return fmt.Sprintf("i-%017x", uint64(n.Instance))
	}
	return fmt.Sprintf("i-%017x", uint64(1)<<63>>3|uint64(id))
}

// LabelEKSCapacityType is the label EKS puts on a managed node group's
// nodes: ON_DEMAND or SPOT.
const LabelEKSCapacityType = "eks.amazonaws.com/capacityType"

func eksCapacityType(ct cluster.CapacityType) string {
	switch ct {
	case cluster.Spot:
		return "SPOT"
	case cluster.OnDemand:
		return "ON_DEMAND"
	}
	return ct.String()
}

// ProviderID is the node's spec.providerID.
func (d *dumper) providerID(n *cluster.Node, id cluster.NodeID) string {
	return fmt.Sprintf("aws:///%s/%s", d.cl.Syms.Name(n.Zone), InstanceID(n, id))
}

// ResourceList converts a vector to a resource list (zero dimensions
// left out).
func ResourceList(names *cluster.ResourceNames, r cluster.Resources) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < names.Len(); i++ {
		if r[i] == 0 {
			continue
		}
		name := names.Name(i)
		switch i {
		case cluster.CPU:
			out[name] = *resource.NewMilliQuantity(r[i], resource.DecimalSI)
		case cluster.Memory, cluster.Ephemeral:
			out[name] = *resource.NewQuantity(r[i], resource.BinarySI)
		default:
			out[name] = *resource.NewQuantity(r[i], resource.DecimalSI)
		}
	}
	return out
}

func (d *dumper) labels(ls cluster.Labels) map[string]string {
	if len(ls) == 0 {
		return nil
	}
	out := make(map[string]string, len(ls))
	for _, l := range ls {
		out[d.cl.Syms.Name(l.Key)] = d.cl.Syms.Name(l.Value)
	}
	return out
}

func (d *dumper) taints(ts []cluster.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range ts {
		out = append(out, Taint(d.cl.Syms, t))
	}
	return out
}

// Taint converts a compiled taint.
func Taint(syms *cluster.Symbols, t cluster.Taint) corev1.Taint {
	out := corev1.Taint{Key: syms.Name(t.Key), Effect: corev1.TaintEffect(t.Effect.String())}
	if t.Value != cluster.NoSym {
		out.Value = syms.Name(t.Value)
	}
	return out
}

// live reports whether a node is in the dump: launching or Ready.
func live(n *cluster.Node) bool { return n.State != cluster.NodeGone }

func (d *dumper) capacity(id cluster.NodeID) cluster.Resources {
	if d.in.Capacity != nil {
		if c, ok := d.in.Capacity(id); ok {
			return c
		}
	}
	return d.cl.Nodes[id].Allocatable
}

// nodeAnnotations are the annotations of a start node the models read
// from the Node itself (a NodeClaim's hashes go on the NodeClaim):
// Karpenter leaves a node annotated do-not-disrupt alone.
var nodeAnnotations = []string{"karpenter.sh/do-not-disrupt"}

func (d *dumper) nodes() {
	for i := range d.cl.Nodes {
		n := &d.cl.Nodes[i]
		if !live(n) {
			continue
		}
		id := cluster.NodeID(i)
		node := corev1.Node{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: UID("Node", "", n.Name), Labels: d.labels(n.Labels),
				CreationTimestamp: d.time(n.Launched - n.AgeAtStart)},
			Spec: corev1.NodeSpec{ProviderID: d.providerID(n, id), Taints: d.taints(n.Taints), Unschedulable: n.Unschedulable},
			Status: corev1.NodeStatus{
				Capacity:    ResourceList(d.cl.Resources, d.capacity(id)),
				Allocatable: ResourceList(d.cl.Resources, n.Allocatable),
			},
		}
		ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "kubelet is posting ready status", LastTransitionTime: d.time(n.Ready), LastHeartbeatTime: metav1.NewTime(d.now)}
		if n.State == cluster.NodeLaunching {
			ready.Status, ready.Reason, ready.Message = corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready"
			ready.LastTransitionTime = d.time(n.Launched)
			node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
		}
		node.Status.Conditions = []corev1.NodeCondition{ready}
		switch c := n.Condition; {
		case c == cluster.ReadyFalse || c == cluster.ReadyUnknown:
			ready.Status, ready.Reason, ready.Message = corev1.ConditionFalse, "KubeletNotReady", "the scenario's node failure"
			if n.RegisteredNotReady() {
				// Registered and never Ready (a join failure of mode
				// registersNotReady), as a kubelet whose CNI never starts says.
				ready.Message = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
			}
			if c == cluster.ReadyUnknown {
				ready.Status, ready.Reason, ready.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
			}
			ready.LastTransitionTime = d.time(n.ConditionSince)
			node.Status.Conditions[0] = ready
		case c != cluster.Healthy:
			// The node monitoring agent's condition, as it reports it.
			typ, _, _ := strings.Cut(c.String(), "=")
			node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeConditionType(typ),
				Status: corev1.ConditionFalse, Reason: "NodeFailure", Message: "the scenario's node failure",
				LastTransitionTime: d.time(n.ConditionSince), LastHeartbeatTime: metav1.NewTime(d.now)})
		}
		if d.in.NodeClaims != nil && n.State == cluster.NodeReady {
			if _, ok := d.in.NodeClaims(id); ok {
				// Karpenter labels the Nodes it registered and
				// initialized; its cluster state reads those labels,
				// not the NodeClaim's conditions.
				if node.Labels == nil {
					node.Labels = map[string]string{}
				}
				node.Labels[LabelNodeRegistered], node.Labels[LabelNodeInitialized] = "true", "true"
			}
		}
		for _, key := range nodeAnnotations {
			if v, ok := n.Annotations[key]; ok {
				if node.Annotations == nil {
					node.Annotations = map[string]string{}
				}
				node.Annotations[key] = v
			}
		}
		if n.CapacityType != cluster.OnDemand && !n.Labels.Has(d.cl.KeyCapacityType) {
			// A static spot node: no label says what it is; the one EKS
			// puts on managed node groups' nodes tells an import.
			if _, ok := node.Labels[LabelEKSCapacityType]; !ok {
				if node.Labels == nil {
					node.Labels = map[string]string{}
				}
				node.Labels[LabelEKSCapacityType] = eksCapacityType(n.CapacityType)
			}
		}
		if ls := node.Labels; ls != nil {
			node.Status.NodeInfo = corev1.NodeSystemInfo{Architecture: ls[corev1.LabelArchStable], OperatingSystem: ls[corev1.LabelOSStable]}
		}
		d.item(&node)
	}
}
