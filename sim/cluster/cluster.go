package cluster

import (
	"fmt"

	"github.com/clustersim/clustersim/sim/engine"
)

// ChangeKind says what changed in the cluster.
type ChangeKind uint8

// Changes that watchers are told about.
const (
	PodCreated ChangeKind = iota
	PodBound
	PodStarted
	PodFinished // Succeeded or Failed
	PodDeleted
	PodUnschedulable // the PodScheduled=False/Unschedulable condition was set
	PodTerminating   // told to stop; still holds its room
	NodeAdded        // launched, not yet Ready
	NodeReadied
	NodeUpdated // labels, taints or cordon changed
	NodeRemoved
	// VolumeAttached: a bound pod that waited for its volume to detach
	// from another node has it now (volumes.go).
	VolumeAttached
	// ClaimBound: Claim got a new volume (Pod: the pod it was provisioned
	// for, or NoPod for a manifest's claim; Node: the node the scheduler
	// chose for a WaitForFirstConsumer claim, or NoNode).
	ClaimBound
	// VolumeHeld: Claim's volume stays attached to Node, which Pod left
	// without its kubelet unmounting it (the node went away with the pod
	// on it); the attach/detach controller force-detaches it after
	// ForceDetachAfter (ForceDetach).
	VolumeHeld
	// VolumeForceDetached: Claim's volume, held on Node, was force-detached.
	VolumeForceDetached
)

var changeNames = [...]string{"PodCreated", "PodBound", "PodStarted", "PodFinished", "PodDeleted", "PodUnschedulable",
	"PodTerminating", "NodeAdded", "NodeReadied", "NodeUpdated", "NodeRemoved", "VolumeAttached", "ClaimBound",
	"VolumeHeld", "VolumeForceDetached"}

func (k ChangeKind) String() string {
	if int(k) < len(changeNames) {
		return changeNames[k]
	}
	return fmt.Sprintf("ChangeKind(%d)", k)
}

// Change is one notification.
type Change struct {
	Kind  ChangeKind
	Pod   PodID
	Node  NodeID
	Claim ClaimID // ClaimBound, VolumeHeld, VolumeForceDetached
}

// Watcher is told about every change, synchronously, in registration order.
// It must not mutate the cluster during the call.
type Watcher interface {
	OnChange(c Change)
}

// Clock gives the current virtual time; the engine satisfies it.
type Clock interface {
	Now() engine.Time
}

// Cluster is the whole state. Pods and Nodes are indexed by PodID and NodeID
// and are never removed from the slices: a gone object keeps its record so
// reports can read it.
type Cluster struct {
	Syms      *Symbols
	Resources *ResourceNames
	Nodes     []Node
	Pods      []Pod

	// Well-known label keys, interned once.
	KeyZone, KeyInstanceType, KeyCapacityType, KeyHostname Sym

	clock    Clock
	watchers []Watcher
	// notifying is set while watchers are told of change told (changing).
	notifying bool
	told      Change
	live      int // nodes not Gone
	// notReady counts the live nodes whose Ready condition is not True
	// (NodeCondition.NotReady), so that readers can skip a walk when none is.
	notReady int
	// epochs is NodeEpoch by NodeID (nodeepoch.go).
	epochs []uint32
	// seen is each node's epoch and view at the last CheckIndexes
	// (check.go), which only that check reads.
	seen []epochSeen

	// launchedFor records, per pod, the nodes autoscalers launched with
	// that pod in mind (see NoteLaunchFor).
	launchedFor map[PodID][]NodeID

	// budgets are the tracked PodDisruptionBudgets' counts (TrackPDBs).
	budgets pdbTracker

	// vol is the storage state (volumes.go); nil without storage.
	vol *volumes
	// pdbScale gives a budget's controllers' scale (SetPDBScale).
	pdbScale func(b *PDB) (int, bool)
	// scaleSource gives workloads' templates and scale (SetScaleSource).
	scaleSource ScaleSource
	// attachLimit gives an instance type's attachable EBS volumes.
	attachLimit func(instanceType string) int32
}

// New returns an empty cluster on the given clock.
func New(clock Clock, syms *Symbols, res *ResourceNames) *Cluster {
	c := &Cluster{Syms: syms, Resources: res, clock: clock}
	c.KeyZone = syms.Intern("topology.kubernetes.io/zone")
	c.KeyInstanceType = syms.Intern("node.kubernetes.io/instance-type")
	c.KeyCapacityType = syms.Intern("karpenter.sh/capacity-type")
	c.KeyHostname = syms.Intern("kubernetes.io/hostname")
	return c
}

// ReservePods makes room for n pod records up front, so the table does
// not grow by copying (at scale the copies are gigabytes over a run).
func (c *Cluster) ReservePods(n int) {
	if n > cap(c.Pods) {
		c.Pods = append(make([]Pod, 0, n), c.Pods...)
	}
}

// Watch registers a watcher.
func (c *Cluster) Watch(w Watcher) { c.watchers = append(c.watchers, w) }

// Now is the current virtual time.
func (c *Cluster) Now() engine.Time { return c.clock.Now() }

// LiveNodes is the number of nodes not Gone.
func (c *Cluster) LiveNodes() int { return c.live }

// NotReadyNodes is the number of nodes not Gone whose Ready condition is
// not True (Ready=False or Unknown), registered launching nodes included.
func (c *Cluster) NotReadyNodes() int { return c.notReady }

func (c *Cluster) notify(ch Change) {
	if ch.Pod != NoPod && len(c.budgets.list) > 0 {
		c.budgets.update(c, ch.Pod)
	}
	c.notifying, c.told = true, ch
	for _, w := range c.watchers {
		w.OnChange(ch)
	}
	c.notifying = false
}

// changing enforces Watcher's rule: no change to the cluster while its
// watchers are told of one. A watcher that changed it would have the
// watchers after it hear of the second change before the first, and read
// a state the first change's notification does not describe. It panics,
// naming the call and the change being told: a model bug, which the run
// reports as an internal error. React through an engine event instead.
func (c *Cluster) changing(op string) {
	if c.notifying {
		panic(fmt.Sprintf("cluster: %s called by a watcher while the change %s (pod %d, node %d) was being told; a watcher must react through an engine event", op, c.told.Kind, c.told.Pod, c.told.Node))
	}
}

// AddNode adds a node (Launching or Ready, as n.State says) and returns its
// ID. The node's hostname label is set from its name.
func (c *Cluster) AddNode(n Node) NodeID {
	c.changing("AddNode")
	id := NodeID(len(c.Nodes))
	n.SetIdentity(c.Syms, c.KeyHostname)
	n.Launched = c.Now()
	n.Requested = Resources{}
	n.ScoreRequested = [2]int64{}
	n.Pods, n.PodRefs = nil, nil
	ready := n.State == NodeReady
	n.State = NodeLaunching
	c.Nodes = append(c.Nodes, n)
	c.epochs = append(c.epochs, 0)
	c.live++
	if n.Condition.NotReady() {
		c.notReady++
	}
	c.nodeChanged(id, NodeAdded)
	if ready {
		c.MarkNodeReady(id)
	}
	return id
}

// NoteLaunchFor records that an autoscaler launched node with pod in mind
// (Karpenter's nomination, the Cluster Autoscaler's scale-up for the pod).
// When Karpenter and the Cluster Autoscaler both launch for the same pod,
// the report counts the race.
func (c *Cluster) NoteLaunchFor(pod PodID, node NodeID) {
	if c.launchedFor == nil {
		c.launchedFor = map[PodID][]NodeID{}
	}
	c.launchedFor[pod] = append(c.launchedFor[pod], node)
}

// LaunchedFor returns the nodes launched with pod in mind, in launch order.
func (c *Cluster) LaunchedFor(pod PodID) []NodeID { return c.launchedFor[pod] }

// MarkNodeReady makes a launching node schedulable.
func (c *Cluster) MarkNodeReady(id NodeID) {
	c.changing("MarkNodeReady")
	n := &c.Nodes[id]
	if n.State != NodeLaunching {
		panic(fmt.Sprintf("cluster: MarkNodeReady on node %s in state %s", n.Name, n.State))
	}
	n.State = NodeReady
	n.Ready = c.Now()
	c.nodeChanged(id, NodeReadied)
}

// SetCordon cordons or uncordons a node.
func (c *Cluster) SetCordon(id NodeID, cordoned bool) {
	c.changing("SetCordon")
	n := &c.Nodes[id]
	if n.Unschedulable == cordoned {
		return
	}
	n.Unschedulable = cordoned
	c.nodeChanged(id, NodeUpdated)
}

// SetTaints replaces a node's taints (as a controller or kubectl taint
// would).
func (c *Cluster) SetTaints(id NodeID, taints []Taint) {
	c.changing("SetTaints")
	n := &c.Nodes[id]
	n.Taints = append([]Taint(nil), taints...)
	c.nodeChanged(id, NodeUpdated)
}

// AddTaint adds a taint unless one with the same key and effect is there.
func (c *Cluster) AddTaint(id NodeID, t Taint) {
	c.changing("AddTaint")
	for _, have := range c.Nodes[id].Taints {
		if have.Key == t.Key && have.Effect == t.Effect {
			return
		}
	}
	c.SetTaints(id, append(append([]Taint(nil), c.Nodes[id].Taints...), t))
}

// RemoveTaint removes the taints with this key and effect.
func (c *Cluster) RemoveTaint(id NodeID, key Sym, effect Effect) {
	c.changing("RemoveTaint")
	var keep []Taint
	for _, have := range c.Nodes[id].Taints {
		if have.Key != key || have.Effect != effect {
			keep = append(keep, have)
		}
	}
	if len(keep) != len(c.Nodes[id].Taints) {
		c.SetTaints(id, keep)
	}
}

// SetLabel sets one node label.
func (c *Cluster) SetLabel(id NodeID, key, value Sym) {
	c.changing("SetLabel")
	n := &c.Nodes[id]
	n.Labels = n.Labels.With(key, value)
	c.nodeChanged(id, NodeUpdated)
}

// SetCapacityType changes how a node's instance is bought, with its
// labels and price (a reserved instance whose reservation ended runs on
// demand from then on).
func (c *Cluster) SetCapacityType(id NodeID, ct CapacityType, labels Labels, priceUSDPerHour float64) {
	c.changing("SetCapacityType")
	n := &c.Nodes[id]
	n.CapacityType, n.Labels, n.PriceUSDPerHour = ct, labels, priceUSDPerHour
	c.nodeChanged(id, NodeUpdated)
}

// RemoveNode deletes a node. Pods still on it are deleted with CauseNodeGone
// first (their controllers recreate them).
func (c *Cluster) RemoveNode(id NodeID) {
	c.changing("RemoveNode")
	n := &c.Nodes[id]
	if n.State == NodeGone {
		return
	}
	for len(n.Pods) > 0 {
		c.DeletePod(n.Pods[len(n.Pods)-1], CauseNodeGone)
	}
	n.State = NodeGone
	n.Deleted = c.Now()
	c.live--
	if n.Condition.NotReady() {
		c.notReady--
	}
	c.nodeChanged(id, NodeRemoved)
}

// CreatePod adds a Pending pod and returns its ID.
func (c *Cluster) CreatePod(p Pod) PodID {
	c.changing("CreatePod")
	id := PodID(len(c.Pods))
	p.Phase = Pending
	p.Node = NoNode
	p.nodeSlot = -1
	p.Created = c.Now()
	p.UIDRank = PodUIDRank(c.Syms.Name(p.Namespace), p.Name)
	p.Unschedulable = false
	p.Cause = CauseNone
	c.Pods = append(c.Pods, p)
	if p.Spec.Claims != nil {
		c.podCreated(id)
	}
	c.notify(Change{Kind: PodCreated, Pod: id, Node: NoNode})
	return id
}

// MarkUnschedulable sets the PodScheduled=False/Unschedulable condition.
func (c *Cluster) MarkUnschedulable(id PodID) {
	c.changing("MarkUnschedulable")
	p := &c.Pods[id]
	if p.Phase != Pending {
		return
	}
	first := !p.Unschedulable
	p.Unschedulable = true
	if first {
		c.notify(Change{Kind: PodUnschedulable, Pod: id, Node: NoNode})
	}
}

// SetPreempting records or clears the pod's nominated node (the scheduler
// preempted pods for it). Clearing it on a pod still unschedulable makes
// it the autoscalers' to help again, so watchers see PodUnschedulable
// anew, as upstream's pod watchers see the status update.
func (c *Cluster) SetPreempting(id PodID, on bool) {
	c.changing("SetPreempting")
	p := &c.Pods[id]
	if p.Preempting == on {
		return
	}
	p.Preempting = on
	if !on && p.Phase == Pending && p.Unschedulable {
		c.notify(Change{Kind: PodUnschedulable, Pod: id, Node: NoNode})
	}
}

// Bind places a pending pod on a Ready node. The caller (the scheduler) has
// checked that it fits; Bind panics on a model bug that would overcommit.
func (c *Cluster) Bind(id PodID, node NodeID) {
	c.changing("Bind")
	p := &c.Pods[id]
	n := &c.Nodes[node]
	if p.Phase != Pending {
		panic(fmt.Sprintf("cluster: Bind of pod %s in phase %s", p.Name, p.Phase))
	}
	if n.State != NodeReady {
		panic(fmt.Sprintf("cluster: Bind of pod %s to node %s in state %s", p.Name, n.Name, n.State))
	}
	if !p.Spec.Requests.Fits(n.Free()) {
		panic(fmt.Sprintf("cluster: Bind of pod %s overcommits node %s", p.Name, n.Name))
	}
	p.Phase = Bound
	p.Node = node
	p.BoundAt = c.Now()
	p.Unschedulable = false
	p.nodeSlot = int32(len(n.Pods))
	n.Pods = append(n.Pods, id)
	n.PodRefs = append(n.PodRefs, PodRef{Spec: p.Spec, Created: p.Created, UIDRank: p.UIDRank, Namespace: p.Namespace, Terminating: p.Terminating})
	n.Requested = n.Requested.Add(p.Spec.Requests)
	n.ScoreRequested[CPU] += p.Spec.ScoreCPU
	n.ScoreRequested[Memory] += p.Spec.ScoreMemory
	if p.Spec.Volume != nil {
		c.attachPod(id)
	}
	c.notify(Change{Kind: PodBound, Pod: id, Node: node})
}

// StartPod moves a bound pod to Running.
func (c *Cluster) StartPod(id PodID) {
	c.changing("StartPod")
	p := &c.Pods[id]
	if p.Phase != Bound {
		panic(fmt.Sprintf("cluster: StartPod of pod %s in phase %s", p.Name, p.Phase))
	}
	p.Phase = Running
	p.Started = c.Now()
	p.Ran = true
	c.notify(Change{Kind: PodStarted, Pod: id, Node: p.Node})
}

// MarkTerminating records that a bound pod was told to stop; it keeps its
// room until DeletePod. Watchers see a PodTerminating change.
func (c *Cluster) MarkTerminating(id PodID) {
	c.changing("MarkTerminating")
	p := &c.Pods[id]
	if p.Terminating || p.Phase.Terminal() {
		return
	}
	p.Terminating = true
	if p.Phase.OnNode() {
		c.Nodes[p.Node].PodRefs[p.nodeSlot].Terminating = true
	}
	c.notify(Change{Kind: PodTerminating, Pod: id, Node: p.Node})
}

// FinishPod ends a running pod as Succeeded or Failed and frees its node.
func (c *Cluster) FinishPod(id PodID, phase Phase) {
	c.changing("FinishPod")
	p := &c.Pods[id]
	if p.Phase != Running || (phase != Succeeded && phase != Failed) {
		panic(fmt.Sprintf("cluster: FinishPod of pod %s in phase %s to %s", p.Name, p.Phase, phase))
	}
	node := p.Node
	c.unbind(id)
	p.Phase = phase
	p.Ended = c.Now()
	if p.Spec.Claims != nil {
		c.podEnded(id)
	}
	c.notify(Change{Kind: PodFinished, Pod: id, Node: node})
}

// DeletePod removes a pod that has not finished, wherever it is.
func (c *Cluster) DeletePod(id PodID, cause DeleteCause) {
	c.changing("DeletePod")
	p := &c.Pods[id]
	if p.Phase.Terminal() {
		return
	}
	node := p.Node
	p.Cause = cause // before unbind: a pod gone with its node leaves its volumes mounted
	if p.Phase.OnNode() {
		c.unbind(id)
	}
	p.Phase = Deleted
	p.Ended = c.Now()
	if p.Spec.Claims != nil {
		c.podEnded(id)
	}
	c.notify(Change{Kind: PodDeleted, Pod: id, Node: node})
}

func (c *Cluster) unbind(id PodID) {
	p := &c.Pods[id]
	n := &c.Nodes[p.Node]
	end := len(n.Pods) - 1
	last := n.Pods[end]
	n.Pods[p.nodeSlot] = last
	n.PodRefs[p.nodeSlot] = n.PodRefs[end]
	c.Pods[last].nodeSlot = p.nodeSlot
	n.Pods = n.Pods[:end]
	n.PodRefs[end] = PodRef{} // no stale spec pointer
	n.PodRefs = n.PodRefs[:end]
	n.Requested = n.Requested.Sub(p.Spec.Requests)
	n.ScoreRequested[CPU] -= p.Spec.ScoreCPU
	n.ScoreRequested[Memory] -= p.Spec.ScoreMemory
	p.nodeSlot = -1
	if p.Spec.Volume != nil {
		c.detachPod(id, p.Node)
	}
}
