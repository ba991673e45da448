package cluster

import (
	"strings"
	"time"
)

// NodeCondition is an unhealthy node condition, as a node's agents report
// it (the kubelet's Ready; the EKS node monitoring agent's
// AcceleratedHardwareReady, StorageReady, NetworkingReady, KernelReady and
// ContainerRuntimeReady). A node has at most one at a time here; Healthy
// is none. The conditions are those the AWS provider's RepairPolicies
// name (KA cloudprovider.RepairPolicies).
type NodeCondition uint8

// The unhealthy conditions, written Type=Status.
const (
	Healthy NodeCondition = iota
	ReadyFalse
	ReadyUnknown
	AcceleratedHardwareNotReady
	StorageNotReady
	NetworkingNotReady
	KernelNotReady
	ContainerRuntimeNotReady
)

var conditionNames = [...]string{"", "Ready=False", "Ready=Unknown", "AcceleratedHardwareReady=False",
	"StorageReady=False", "NetworkingReady=False", "KernelReady=False", "ContainerRuntimeReady=False"}

func (c NodeCondition) String() string { return conditionNames[c] }

// NotReady: the node's Ready condition is not True.
func (c NodeCondition) NotReady() bool { return c == ReadyFalse || c == ReadyUnknown }

// ParseNodeCondition reads Type=Status (case-sensitive, as condition types
// are); ok is false for a healthy or unknown one.
func ParseNodeCondition(s string) (NodeCondition, bool) {
	for i, n := range conditionNames {
		if i > 0 && n == strings.TrimSpace(s) {
			return NodeCondition(i), true
		}
	}
	return Healthy, false
}

// NodeConditionNames lists the unhealthy conditions, for messages.
func NodeConditionNames() []string { return append([]string(nil), conditionNames[1:]...) }

// SetNodeCondition sets a node's unhealthy condition (Healthy clears it);
// its transition time is now. A Ready condition that is not True taints
// the node as the node lifecycle controller does:
// node.kubernetes.io/not-ready:NoExecute for Ready=False,
// node.kubernetes.io/unreachable:NoExecute for Ready=Unknown (the taint
// manager evicts its pods after their toleration: 300 s by default). The
// other conditions taint nothing; pods stay.
func (c *Cluster) SetNodeCondition(id NodeID, cond NodeCondition) {
	c.changing("SetNodeCondition")
	n := &c.Nodes[id]
	if n.State == NodeGone || n.Condition == cond {
		return
	}
	notReady, unreachable := c.Syms.Intern(TaintNotReady), c.Syms.Intern(TaintUnreachable)
	var keep []Taint
	for _, t := range n.Taints {
		if t.Effect == EffectNoExecute && (t.Key == notReady || t.Key == unreachable) {
			continue
		}
		keep = append(keep, t)
	}
	switch cond {
	case ReadyFalse:
		keep = append(keep, Taint{Key: notReady, Effect: EffectNoExecute})
	case ReadyUnknown:
		keep = append(keep, Taint{Key: unreachable, Effect: EffectNoExecute})
	}
	if n.Condition.NotReady() {
		c.notReady--
	}
	if cond.NotReady() {
		c.notReady++
	}
	n.Condition, n.ConditionSince = cond, c.Now()
	n.Taints = keep
	c.nodeChanged(id, NodeUpdated)
}

// RegisterNotReady registers a launching node whose Ready condition never
// turns True (cloud.LaunchResult.NeverReady): it stays Launching, so it
// takes no pods, with Ready=False since now and the not-ready taint.
func (c *Cluster) RegisterNotReady(id NodeID) {
	if c.Nodes[id].State == NodeLaunching {
		c.SetNodeCondition(id, ReadyFalse)
	}
}

// The node lifecycle controller's NoExecute taints for a Ready condition
// that is not True.
const (
	TaintNotReady    = "node.kubernetes.io/not-ready"
	TaintUnreachable = "node.kubernetes.io/unreachable"
)

// DefaultNotReadyToleration is what the DefaultTolerationSeconds admission
// plugin gives every pod that does not tolerate the not-ready and
// unreachable NoExecute taints itself: 300 s.
const DefaultNotReadyToleration = 300 * time.Second
