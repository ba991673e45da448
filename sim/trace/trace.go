// Package trace records the simulation timeline as entries (pod created,
// unschedulable with the scheduler's message, bound, started, finished,
// deleted with cause; node launched, ready, cordoned or tainted, removed;
// launches and their capacity errors; spot signals; why an autoscaler
// launched nothing for a waiting pod; disruption commands;
// ProvisioningRequests' conditions), for `--events`
// and `sim explain`. It only observes: it never changes what happens.
package trace

import (
	"slices"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Entry is one line of the timeline. Fields not relevant to a kind are
// empty and left out of the JSON.
type Entry struct {
	// T is the virtual time in seconds since the scenario start.
	T            float64 `json:"t"`
	Kind         string  `json:"kind"`
	Pod          string  `json:"pod,omitempty"` // namespace/name
	Workload     string  `json:"workload,omitempty"`
	Node         string  `json:"node,omitempty"`
	Owner        string  `json:"owner,omitempty"` // static, karpenter, cluster-autoscaler
	OwnerName    string  `json:"ownerName,omitempty"`
	InstanceType string  `json:"instanceType,omitempty"`
	Zone         string  `json:"zone,omitempty"`
	CapacityType string  `json:"capacityType,omitempty"`
	Cause        string  `json:"cause,omitempty"`
	Message      string  `json:"message,omitempty"`
	// The fields of a disruptionCommand entry (Disruption).
	Phase        string               `json:"phase,omitempty"`
	Method       string               `json:"method,omitempty"`
	Reason       string               `json:"reason,omitempty"`
	Candidates   []CommandNode        `json:"candidates,omitempty"`
	Replacements []CommandReplacement `json:"replacements,omitempty"`
	Budgets      []CommandBudget      `json:"budgets,omitempty"`
	Scores       []CommandScore       `json:"scores,omitempty"`
	// The fields of a provisioningRequest entry (ProvReq): the request
	// (namespace/name), its class, the condition and its status (Reason
	// and Message are the condition's).
	Request   string `json:"provisioningRequest,omitempty"`
	Class     string `json:"class,omitempty"`
	Condition string `json:"condition,omitempty"`
	Status    string `json:"status,omitempty"`
}

// CommandNode is a candidate of a disruption command.
type CommandNode struct {
	Node         string `json:"node"`
	NodePool     string `json:"nodePool,omitempty"`
	InstanceType string `json:"instanceType,omitempty"`
	CapacityType string `json:"capacityType,omitempty"`
	// Pods is how many of its pods must move.
	Pods int `json:"pods"`
}

// CommandReplacement is a node a disruption command launches: its
// NodePool, capacity type(s), instance types cheapest first (at most
// 10) and how many types it has in all.
type CommandReplacement struct {
	NodePool      string   `json:"nodePool"`
	CapacityType  string   `json:"capacityType,omitempty"`
	InstanceTypes []string `json:"instanceTypes,omitempty"`
	Options       int      `json:"options"`
}

// CommandBudget is the disruption budget of a NodePool that allowed a
// command: its nodes value ("10%"; "" when no budget applies to the
// reason), the reasons it names (none: all), its schedule, and how many
// more of the pool's nodes it allowed (-1: no limit).
// CommandScore is a Balanced pool's score of a consolidation move: savings
// and disruption in percent of the pool's, their ratio (score; JSON
// cannot hold +Inf, so a move that disrupts nothing scores -1) and the
// threshold it had to reach.
type CommandScore struct {
	NodePool      string  `json:"nodePool"`
	Score         float64 `json:"score"`
	Threshold     float64 `json:"threshold"`
	SavingsPct    float64 `json:"savingsPct"`
	DisruptionPct float64 `json:"disruptionPct"`
}

type CommandBudget struct {
	NodePool string   `json:"nodePool"`
	Nodes    string   `json:"nodes,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
	Schedule string   `json:"schedule,omitempty"`
	Allowed  int      `json:"allowed"`
}

// Sink receives entries in event order.
type Sink func(Entry)

// Recorder turns cluster changes, launches and spot signals into entries.
type Recorder struct {
	cl        *cluster.Cluster
	sink      Sink
	workloads func(w int32) string
	failure   func(cluster.PodID) string
	// told are the no-launch reasons each waiting pod got (NoLaunch).
	told map[cluster.PodID][]string
	// neverJoins are the launched instances whose node will never join
	// or never become Ready, with their nodeLaunched message, until their
	// node is added.
	neverJoins map[int32]string
	// cloudOnly: made by NewCloud, the recorder hears no cluster changes
	// and names no node in spot signals.
	cloudOnly bool
}

// NewCloud records only what EC2 says: launches and their errors (Launch)
// and spot signals (OnSignal, without the node's name, which costs a walk
// of the nodes). The report's timeline takes its events from one.
func NewCloud(cl *cluster.Cluster, sink Sink) *Recorder {
	return &Recorder{cl: cl, sink: sink, cloudOnly: true}
}

// NeverJoins is the message of a nodeLaunched entry whose instance's node
// never joins the cluster.
const NeverJoins = "never joins: the instance's bootstrap fails and its kubelet never registers"

// NeverReady is the message of a nodeLaunched entry whose instance's node
// registers but never becomes Ready.
const NeverReady = "never Ready: the node registers but its Ready condition never turns True (it stays tainted node.kubernetes.io/not-ready)"

// New records the cluster's changes. workload names a pod's workload
// index; failure returns a pod's last scheduler message.
func New(cl *cluster.Cluster, sink Sink, workload func(int32) string, failure func(cluster.PodID) string) *Recorder {
	r := &Recorder{cl: cl, sink: sink, workloads: workload, failure: failure}
	cl.Watch(r)
	return r
}

func secs(t engine.Time) float64 { return float64(t) / 1e9 }

func (r *Recorder) pod(id cluster.PodID, e *Entry) {
	p := &r.cl.Pods[id]
	e.Pod = r.cl.Syms.Name(p.Namespace) + "/" + p.Name
	if p.Workload >= 0 && r.workloads != nil {
		e.Workload = r.workloads(p.Workload)
	}
}

func (r *Recorder) node(id cluster.NodeID, e *Entry) {
	n := &r.cl.Nodes[id]
	e.Node = n.Name
}

func (r *Recorder) nodeDetail(id cluster.NodeID, e *Entry) {
	n := &r.cl.Nodes[id]
	e.Node = n.Name
	e.Owner = n.Owner.String()
	e.OwnerName = n.OwnerName
	e.InstanceType = n.InstanceType
	e.Zone = r.cl.Syms.Name(n.Zone)
	e.CapacityType = n.CapacityType.String()
}

var podKinds = map[cluster.ChangeKind]string{
	cluster.PodCreated:       "podCreated",
	cluster.PodUnschedulable: "podUnschedulable",
	cluster.PodBound:         "podBound",
	cluster.PodStarted:       "podStarted",
	cluster.PodFinished:      "podFinished",
	cluster.PodDeleted:       "podDeleted",
	cluster.PodTerminating:   "podTerminating",
}

// OnChange implements cluster.Watcher.
func (r *Recorder) OnChange(c cluster.Change) {
	e := Entry{T: secs(r.cl.Now())}
	if k, ok := podKinds[c.Kind]; ok {
		e.Kind = k
		r.pod(c.Pod, &e)
		if c.Node != cluster.NoNode {
			r.node(c.Node, &e)
		}
		switch c.Kind {
		case cluster.PodUnschedulable:
			if r.failure != nil {
				e.Message = r.failure(c.Pod)
			}
		case cluster.PodDeleted:
			e.Cause = r.cl.Pods[c.Pod].Cause.String()
			delete(r.told, c.Pod)
		case cluster.PodFinished:
			e.Cause = r.cl.Pods[c.Pod].Phase.String()
			delete(r.told, c.Pod)
		case cluster.PodBound:
			r.nodeDetail(c.Node, &e)
			delete(r.told, c.Pod)
		}
		r.sink(e)
		return
	}
	switch c.Kind {
	case cluster.ClaimBound:
		e.Kind = "volumeProvisioned"
		if c.Pod != cluster.NoPod {
			r.pod(c.Pod, &e)
		}
		if vol := r.cl.VolumeOf(c.Claim); vol != nil && len(vol.Zones) > 0 {
			e.Zone = cluster.ZoneNames(r.cl.Syms, vol.Zones)
		}
		e.Message = "claim " + r.cl.ClaimName(c.Claim)
		if cls := r.cl.ClaimClass(c.Claim); cls != nil {
			e.Message += " (StorageClass " + cls.Name + ", " + cls.Mode.String() + ")"
		}
		if c.Node != cluster.NoNode {
			r.node(c.Node, &e)
		}
		r.sink(e)
		return
	case cluster.VolumeHeld:
		e.Kind = "volumeHeld"
		r.pod(c.Pod, &e)
		r.node(c.Node, &e)
		e.Message = "claim " + r.cl.ClaimName(c.Claim) + ": the node went away with the pod on it, so no kubelet unmounted the volume; the attach/detach controller keeps it attached here and force-detaches it after " + cluster.ForceDetachAfter.String() + " (maxWaitForUnmountDuration)"
		r.sink(e)
		return
	case cluster.VolumeForceDetached:
		e.Kind = "volumeForceDetached"
		r.node(c.Node, &e)
		e.Message = "claim " + r.cl.ClaimName(c.Claim) + ": force-detached by the attach/detach controller, " + cluster.ForceDetachAfter.String() + " after its pod's deletion on this gone node"
		r.sink(e)
		return
	case cluster.VolumeAttached:
		e.Kind = "volumeAttached"
		r.pod(c.Pod, &e)
		r.node(c.Node, &e)
		e.Message = "its volume detached from the node it was on and attached here: the pod can start"
		r.sink(e)
		return
	case cluster.NodeAdded:
		e.Kind = "nodeLaunched"
		if inst := r.cl.Nodes[c.Node].Instance; r.neverJoins[inst] != "" {
			e.Message = r.neverJoins[inst]
			delete(r.neverJoins, inst)
		}
	case cluster.NodeReadied:
		e.Kind = "nodeReady"
	case cluster.NodeUpdated:
		e.Kind = "nodeUpdated"
		n := &r.cl.Nodes[c.Node]
		if n.Unschedulable {
			e.Message = "cordoned"
		}
		for _, t := range n.Taints {
			if e.Message != "" {
				e.Message += ", "
			}
			e.Message += "taint " + r.cl.Syms.Name(t.Key) + "=" + r.cl.Syms.Name(t.Value) + ":" + t.Effect.String()
		}
	case cluster.NodeRemoved:
		e.Kind = "nodeRemoved"
	default:
		return
	}
	r.nodeDetail(c.Node, &e)
	r.sink(e)
}

// Launch records a launch request's answer (used by a cloud decorator).
func (r *Recorder) Launch(owner string, res cloud.LaunchResult, err error) {
	now := secs(r.cl.Now())
	for _, oe := range res.Errors {
		e := Entry{T: now, Kind: "launchError", Owner: owner, InstanceType: oe.Offering.InstanceType, Zone: oe.Offering.Zone,
			CapacityType: oe.Offering.CapacityType.String(), Cause: oe.Code}
		if oe.Dry {
			e.Message = PoolDry
		}
		r.sink(e)
	}
	if err != nil {
		r.sink(Entry{T: now, Kind: "launchFailed", Owner: owner, Message: err.Error()})
		return
	}
	if (res.NeverJoins || res.NeverReady) && !r.cloudOnly {
		if r.neverJoins == nil {
			r.neverJoins = map[int32]string{}
		}
		msg := NeverJoins
		if res.NeverReady {
			msg = NeverReady
		}
		r.neverJoins[int32(res.Instance)] = msg
	}
	r.sink(Entry{T: now, Kind: "instanceLaunched", Owner: owner, InstanceType: res.Offering.InstanceType, Zone: res.Offering.Zone,
		CapacityType: res.Offering.CapacityType.String()})
}

// PoolDry is the message of a launchError whose pool's depth was used up:
// the request was partially fulfilled (or not at all) for want of
// instances in that pool, not because of its regime.
const PoolDry = "pool depth used up: partial fulfilment"

// OnSignal implements cloud.Subscriber: spot signals.
func (r *Recorder) OnSignal(s cloud.Signal) {
	e := Entry{T: secs(s.At), InstanceType: s.Offering.InstanceType, Zone: s.Offering.Zone, CapacityType: s.Offering.CapacityType.String()}
	switch s.Kind {
	case cloud.RebalanceRecommendation:
		e.Kind = "rebalanceRecommendation"
	case cloud.InterruptionNotice:
		e.Kind = "interruptionNotice"
	case cloud.Terminated:
		e.Kind = "instanceReclaimed"
	}
	for i := range r.cl.Nodes {
		if r.cloudOnly {
			break
		}
		if r.cl.Nodes[i].Instance == int32(s.Instance) && r.cl.Nodes[i].Instance != 0 {
			e.Node = r.cl.Nodes[i].Name
			break
		}
	}
	r.sink(e)
}

// NoLaunch records why an autoscaler launched no node for pending pods
// (kind karpenterNoLaunch or caNoScaleUp), one entry per pod. A pod gets
// each reason (by class, e.g. "unavailable-offerings/burst-spot") once
// per wait: the autoscalers retry every few seconds, and a reason that
// comes back (the offerings' cache expires, the launch fails again) adds
// nothing. The reasons a pod got are forgotten when it binds or ends.
func (r *Recorder) NoLaunch(kind, owner string, pods []cluster.PodID, class, message string) {
	now := secs(r.cl.Now())
	for _, id := range pods {
		p := &r.cl.Pods[id]
		if p.Phase != cluster.Pending || p.Node != cluster.NoNode {
			continue
		}
		if r.told == nil {
			r.told = map[cluster.PodID][]string{}
		}
		key := kind + "/" + class
		if slices.Contains(r.told[id], key) {
			continue
		}
		r.told[id] = append(r.told[id], key)
		e := Entry{T: now, Kind: kind, Owner: owner, Cause: class, Message: message}
		r.pod(id, &e)
		r.sink(e)
	}
}

// Command is a moment of an autoscaler's disruption command, as a
// disruptionCommand entry tells it (the run converts the component's
// value: this package imports no contract).
type Command struct {
	// Phase: decided, started, invalidated, aborted, completed; Why says
	// why it was invalidated or aborted.
	Phase, Why     string
	Method, Reason string
	Candidates     []CommandNode
	Replacements   []CommandReplacement
	Budgets        []CommandBudget
	Scores         []CommandScore
}

// Disruption records a moment of an autoscaler's disruption command (kind
// disruptionCommand): its phase (the message says why it was invalidated
// or aborted), method and reason, candidates, replacements and budgets.
func (r *Recorder) Disruption(owner string, c Command) {
	r.sink(Entry{T: secs(r.cl.Now()), Kind: "disruptionCommand", Owner: owner, Phase: c.Phase, Method: c.Method, Reason: c.Reason, Message: c.Why,
		Candidates: c.Candidates, Replacements: c.Replacements, Budgets: c.Budgets, Scores: c.Scores})
}

// ProvReq records a change of a ProvisioningRequest's condition (kind
// provisioningRequest): Accepted, Provisioned, Failed or BookingExpired,
// True or False, with the condition's reason and message.
func (r *Recorder) ProvReq(owner, request, class, condition, status, reason, message string) {
	r.sink(Entry{T: secs(r.cl.Now()), Kind: "provisioningRequest", Owner: owner, Request: request, Class: class,
		Condition: condition, Status: status, Reason: reason, Message: message})
}
