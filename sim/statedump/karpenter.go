package statedump

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// NodePool is a NodePool as configured, in the karpenter.sh/v1 spelling
// (the driver converts the compiled form; fields the simulator does not
// compile, such as budgets' schedules, are not kept).
type NodePool struct {
	Name          string
	Weight        int32
	Labels        map[string]string
	Annotations   map[string]string
	Requirements  []NodePoolRequirement
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	NodeClassRef  NodeClassRef
	// ExpireAfter 0 is Never; TerminationGracePeriod 0 is unset.
	ExpireAfter, TerminationGracePeriod time.Duration
	// ConsolidationPolicy is WhenEmpty, WhenEmptyOrUnderutilized or Balanced;
	// ConsolidateAfter "Never" or a duration.
	ConsolidationPolicy, ConsolidateAfter string
	// Budgets are the disruption budgets without a schedule (those with
	// one, active only part of the time, are left out).
	Budgets []Budget
	// Limits in Kubernetes quantities.
	Limits corev1.ResourceList
}

// Budget is a disruption budget: nodes, and the reasons it applies to
// (empty: all).
type Budget struct {
	Nodes   string   `json:"nodes"`
	Reasons []string `json:"reasons,omitempty"`
}

// NodePoolRequirement is a NodeSelectorRequirementWithMinValues.
type NodePoolRequirement struct {
	corev1.NodeSelectorRequirement `json:",inline"`
	MinValues                      *int `json:"minValues,omitempty"`
}

// The karpenter.sh/v1 objects, with only the fields written.
type (
	nodePoolObject struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              nodePoolSpec `json:"spec"`
	}
	nodePoolSpec struct {
		Template   nodeClaimTemplate   `json:"template"`
		Disruption nodePoolDisruption  `json:"disruption"`
		Limits     corev1.ResourceList `json:"limits,omitempty"`
		Weight     *int32              `json:"weight,omitempty"`
	}
	nodeClaimTemplate struct {
		Metadata struct {
			Labels      map[string]string `json:"labels,omitempty"`
			Annotations map[string]string `json:"annotations,omitempty"`
		} `json:"metadata,omitempty"`
		Spec nodeClaimSpec `json:"spec"`
	}
	nodeClaimSpec struct {
		Taints                 []corev1.Taint        `json:"taints,omitempty"`
		StartupTaints          []corev1.Taint        `json:"startupTaints,omitempty"`
		Requirements           []NodePoolRequirement `json:"requirements"`
		NodeClassRef           NodeClassRef          `json:"nodeClassRef"`
		TerminationGracePeriod *metav1.Duration      `json:"terminationGracePeriod,omitempty"`
		ExpireAfter            string                `json:"expireAfter,omitempty"`
	}
	nodePoolDisruption struct {
		ConsolidateAfter    string   `json:"consolidateAfter,omitempty"`
		ConsolidationPolicy string   `json:"consolidationPolicy,omitempty"`
		Budgets             []Budget `json:"budgets,omitempty"`
	}
	nodeClaimObject struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              nodeClaimSpec   `json:"spec"`
		Status            nodeClaimStatus `json:"status"`
	}
	nodeClaimStatus struct {
		ProviderID  string              `json:"providerID,omitempty"`
		NodeName    string              `json:"nodeName,omitempty"`
		ImageID     string              `json:"imageID,omitempty"`
		Capacity    corev1.ResourceList `json:"capacity,omitempty"`
		Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
		Conditions  []metav1.Condition  `json:"conditions,omitempty"`
		// LastPodEventTime is when a pod last bound to, finished on or
		// left the node (KC podevents), for consolidateAfter.
		LastPodEventTime *metav1.Time `json:"lastPodEventTime,omitempty"`
	}
)

func duration(d time.Duration) string {
	if d == 0 {
		return "Never"
	}
	return Duration(d)
}

// Duration writes d as Go does without zero trailing units: 720h, 1h30m,
// 30s.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func (p *NodePool) object() *nodePoolObject {
	o := &nodePoolObject{TypeMeta: metav1.TypeMeta{APIVersion: KarpenterAPIVersion, Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, UID: UID("NodePool", "", p.Name)}}
	t := &o.Spec.Template
	t.Metadata.Labels, t.Metadata.Annotations = p.Labels, p.Annotations
	t.Spec = nodeClaimSpec{Taints: p.Taints, StartupTaints: p.StartupTaints, Requirements: p.Requirements,
		NodeClassRef: p.NodeClassRef, ExpireAfter: duration(p.ExpireAfter)}
	if t.Spec.Requirements == nil {
		t.Spec.Requirements = []NodePoolRequirement{}
	}
	if p.TerminationGracePeriod > 0 {
		t.Spec.TerminationGracePeriod = &metav1.Duration{Duration: p.TerminationGracePeriod}
	}
	o.Spec.Disruption = nodePoolDisruption{ConsolidateAfter: p.ConsolidateAfter, ConsolidationPolicy: p.ConsolidationPolicy}
	o.Spec.Disruption.Budgets = p.Budgets
	o.Spec.Limits = p.Limits
	if p.Weight != 0 {
		w := p.Weight
		o.Spec.Weight = &w
	}
	return o
}

func (d *dumper) nodeClaims() {
	if d.in.NodeClaims == nil {
		return
	}
	for i := range d.cl.Nodes {
		n := &d.cl.Nodes[i]
		id := cluster.NodeID(i)
		if !live(n) {
			continue
		}
		nc, ok := d.in.NodeClaims(id)
		if !ok {
			continue
		}
		t := true
		created := n.Launched - n.AgeAtStart
		o := &nodeClaimObject{TypeMeta: metav1.TypeMeta{APIVersion: KarpenterAPIVersion, Kind: "NodeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: UID("NodeClaim", "", n.Name), Labels: d.labels(n.Labels),
				CreationTimestamp: d.time(created),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: KarpenterAPIVersion, Kind: "NodePool", Name: nc.NodePool,
					UID: UID("NodePool", "", nc.NodePool), BlockOwnerDeletion: &t}}}}
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		o.Labels[LabelNodePool] = nc.NodePool
		syms := d.cl.Syms
		req := func(key cluster.Sym, v string) NodePoolRequirement {
			return NodePoolRequirement{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: syms.Name(key),
				Operator: corev1.NodeSelectorOpIn, Values: []string{v}}}
		}
		o.Spec = nodeClaimSpec{Taints: d.taints(n.Taints), NodeClassRef: nc.NodeClassRef, Requirements: []NodePoolRequirement{
			req(d.cl.KeyInstanceType, n.InstanceType), req(d.cl.KeyZone, syms.Name(n.Zone)),
			req(d.cl.KeyCapacityType, n.CapacityType.String()),
		}}
		// Its own expireAfter (upstream expires a NodeClaim by it), from
		// its creation; at least a second (0 would read as Never).
		o.Spec.ExpireAfter = "Never"
		if nc.Expires {
			o.Spec.ExpireAfter = Duration(max(nc.ExpiresAt-created, time.Second).Round(time.Second))
		}
		o.Status = nodeClaimStatus{ProviderID: d.providerID(n, id),
			Capacity: ResourceList(d.cl.Resources, nc.Capacity), Allocatable: ResourceList(d.cl.Resources, n.Allocatable)}
		cond := func(typ string, ok bool, at time.Duration) metav1.Condition {
			c := metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: typ, LastTransitionTime: d.time(at)}
			if !ok {
				c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionUnknown, "AwaitingReconciliation", d.time(n.Launched)
			}
			return c
		}
		ready := n.State == cluster.NodeReady
		registered, registeredAt := ready, n.Ready
		if n.RegisteredNotReady() {
			// Registered, never Initialized (its node is not Ready).
			registered, registeredAt = true, n.ConditionSince
		}
		if registered {
			o.Status.NodeName = n.Name
		}
		if nc.HasLastPodEvent {
			t := d.time(nc.LastPodEvent)
			o.Status.LastPodEventTime = &t
		}
		o.Status.Conditions = []metav1.Condition{cond("Launched", true, n.Launched), cond("Registered", registered, registeredAt),
			cond("Initialized", ready, n.Ready), cond("Ready", ready, n.Ready)}
		if nc.Drifted {
			o.Status.Conditions = append(o.Status.Conditions, cond("Drifted", true, nc.DriftedAt))
		}
		if nc.InstanceTerminating {
			o.Status.Conditions = append(o.Status.Conditions, cond("InstanceTerminating", true, nc.InstanceTerminatingAt))
		}
		o.Annotations = nc.Annotations
		if nc.Deleting {
			now := metav1.NewTime(d.now)
			o.DeletionTimestamp = &now
		}
		d.item(o)
	}
}
