package cluster

import (
	"time"

	"github.com/clustersim/clustersim/sim/engine"
)

// PodID indexes Cluster.Pods. IDs are never reused within a run.
type PodID int32

// NoPod marks the absence of a pod.
const NoPod PodID = -1

// Phase is where a pod is in its life. It widens Kubernetes' PodPhase with
// the scheduler's view: Pending means unbound; Bound means bound to a node
// whose kubelet has not started it yet.
type Phase uint8

// Pod phases, in order of a normal life.
const (
	Pending Phase = iota
	Bound
	Running
	Succeeded
	Failed
	Deleted // removed before it finished (scale-down, eviction, node loss)
)

var phaseNames = [...]string{"Pending", "Bound", "Running", "Succeeded", "Failed", "Deleted"}

func (p Phase) String() string { return phaseNames[p] }

// Terminal reports whether the pod will never run again.
func (p Phase) Terminal() bool { return p >= Succeeded }

// OnNode reports whether the pod holds resources on a node.
func (p Phase) OnNode() bool { return p == Bound || p == Running }

// DeleteCause says why a pod was removed before finishing.
type DeleteCause uint8

// Delete causes.
const (
	CauseNone         DeleteCause = iota
	CauseScaleDown                // its controller scaled down
	CauseEvicted                  // evicted through the eviction API (drain)
	CausePreempted                // preempted by a higher-priority pod
	CauseNodeGone                 // its node disappeared (reclaim, termination)
	CauseTaintEvicted             // a NoExecute taint it does not tolerate
	CauseEndOfRun                 // never used on a live pod; reports only
	CauseResubmitted              // replaced by a fallback controller with another spec
	CauseJobFailed                // its Job hit its backoffLimit
)

var causeNames = [...]string{"", "scaleDown", "evicted", "preempted", "nodeGone", "taintEvicted", "endOfRun", "resubmitted", "jobFailed"}

func (c DeleteCause) String() string { return causeNames[c] }

// SpreadConstraint is a compiled topologySpreadConstraint.
type SpreadConstraint struct {
	MaxSkew     int32
	TopologyKey Sym
	// Hard is whenUnsatisfiable: DoNotSchedule; otherwise ScheduleAnyway.
	Hard       bool
	Selector   LabelSelector
	MinDomains int32
	// HonorNodeAffinity (default true) counts only nodes that match the
	// pod's node affinity; HonorTaints (default false) skips nodes with
	// taints the pod does not tolerate.
	HonorNodeAffinity bool
	HonorTaints       bool
}

// AffinityTerm is a compiled pod (anti-)affinity term.
type AffinityTerm struct {
	Selector LabelSelector
	// Namespaces the selector applies to; empty with NamespaceSelector nil
	// means the pod's own namespace.
	Namespaces        []Sym
	NamespaceSelector *LabelSelector
	TopologyKey       Sym
	Weight            int32 // preferred terms only
}

// PodSpec is the compiled, immutable part of a pod. Every replica of one
// template shares one PodSpec, which keeps memory per pod small and lets the
// scheduler treat identical pods as one class.
type PodSpec struct {
	Requests Resources
	// ScoreCPU and ScoreMemory are the requests the scheduler's scoring
	// uses: 100m and 200Mi stand in for a missing request
	// (schedutil.NonZeroRequested).
	ScoreCPU, ScoreMemory int64

	Labels       Labels
	NodeSelector []Requirement // nodeSelector map, every entry must hold
	Affinity     *NodeSelector // required node affinity; nil = any node
	Preferred    []PreferredTerm
	Tolerations  Tolerations
	Spread       []SpreadConstraint
	// PodAffinity and PodAntiAffinity hold required terms; the Preferred
	// variants carry weights.
	PodAffinity              []AffinityTerm
	PodAntiAffinity          []AffinityTerm
	PreferredPodAffinity     []AffinityTerm
	PreferredPodAntiAffinity []AffinityTerm

	// DaemonSet marks pods of a DaemonSet: the autoscalers do not
	// provision for them and drains leave them.
	DaemonSet bool
	// Mirror marks a static pod, which the kubelet runs from a file and
	// the API server shows as a mirror pod owned by its Node: no
	// controller moves it, and no drain can evict it (KC
	// pod.IsOwnedByNode; kubectl drain skips it too).
	Mirror bool
	// OwnerSelector is the selector of the pod's ReplicaSet or StatefulSet
	// (nil for Jobs and bare pods): the system default topology spread
	// constraints spread the pods it selects.
	OwnerSelector *LabelSelector

	Priority          int32
	PriorityClassName string
	PreemptNever      bool // preemptionPolicy: Never
	SchedulerName     string
	// NodeName is spec.nodeName: the scheduler evaluates only that node.
	// It places the pod on its first node and means nothing once the pod
	// is bound: DaemonSet pods, bare pods that name a node, and sim
	// import's startOn pods (pinned for their first scheduling) are
	// bound pods like any other. Whether an autoscaler may move a pod is
	// DaemonSet and Mirror, never NodeName (cluster.StaticFitAnyNode).
	NodeName string

	// TerminationGrace is terminationGracePeriodSeconds: how long a pod
	// keeps its room after it is told to stop (default 30s).
	TerminationGrace time.Duration

	// DoNotDisrupt is the karpenter.sh/do-not-disrupt: "true" annotation;
	// DoNotDisruptFor is the annotation given as a duration (Karpenter
	// v1.12+: "10m"), which protects the pod until it has run that long
	// (Pod.DoNotDisruptActive). SafeToEvict is
	// cluster-autoscaler.kubernetes.io/safe-to-evict (nil when absent).
	DoNotDisrupt    bool
	DoNotDisruptFor time.Duration
	SafeToEvict     *bool
	// DisruptionCost is karpenter.sh/disruption-cost, else
	// controller.kubernetes.io/pod-deletion-cost (an int32), which
	// Karpenter adds to a pod's eviction cost (/2^27); HasDisruptionCost
	// says one was set.
	DisruptionCost    int32
	HasDisruptionCost bool
	// ConsumesProvReq is the name of the ProvisioningRequest the pod
	// consumes (annotation autoscaling.x-k8s.io/consume-provisioning-request,
	// else the older cluster-autoscaler.kubernetes.io/ one; "" for none):
	// the Cluster Autoscaler does not scale up for it.
	ConsumesProvReq string

	// Claims are the PersistentVolumeClaims the pod's volumes use (nil:
	// none). Volume is set only on the per-pod variants the cluster makes
	// of a spec with claims (volumes.go): what the pod's claims demand of
	// a node.
	Claims []ClaimRef
	Volume *VolumePin
}

// Pod is one pod object.
type Pod struct {
	Name      string
	Namespace Sym
	Spec      *PodSpec
	// Workload indexes the owner in the run's workload table; -1 for none.
	Workload int32

	Phase Phase
	Node  NodeID
	// nodeSlot is the pod's index in its node's Pods slice, for O(1) unbind.
	nodeSlot int32

	Created engine.Time
	// UIDRank orders the pod's metadata.uid as the state dump writes it
	// (PodUIDRank): upstream Karpenter's queue breaks ties between pods
	// of equal requests created in the same second by uid.
	UIDRank uint64
	BoundAt engine.Time
	Started engine.Time
	Ended   engine.Time
	// Ran is set once the pod has started: its Started time is valid.
	Ran bool
	// StartedBefore is how long before the run's start a pod of an
	// imported state had started (sim import's startedAgo; 0: not
	// given). Its start time is then -StartedBefore (StartTime), not the
	// moment it runs again in the simulation.
	StartedBefore time.Duration
	// RunFor is how long the pod runs once started; 0 runs until deleted.
	RunFor time.Duration

	// Unschedulable mirrors the condition PodScheduled=False with reason
	// Unschedulable that the autoscalers read.
	Unschedulable bool
	// Terminating is set when the pod was told to stop (eviction,
	// preemption) and keeps its room until it is deleted.
	Terminating bool
	// Preempting mirrors status.nominatedNodeName: the scheduler evicted
	// pods for this one and it waits for their room. The autoscalers
	// leave it alone (KC IsProvisionable: !IsPreempting; CA
	// FilterOutExpendableAndSplit), as the room is already being made.
	Preempting bool
	Cause      DeleteCause
}

// StartTime is the pod's status.startTime: when it started, or for a pod
// of an imported state, when it had started before the run. Valid once
// Ran.
func (p *Pod) StartTime() engine.Time {
	if p.StartedBefore > 0 {
		return -p.StartedBefore
	}
	return p.Started
}

// DoNotDisruptActive reports whether karpenter.sh/do-not-disrupt protects
// the pod at now, and until when a duration protects it (0: "true", or
// not protected). A duration counts from the pod's start time (KC
// pod.IsDoNotDisruptActive: pod.status.startTime); a pod not started yet
// is protected, as upstream fails safe without a start time.
func (p *Pod) DoNotDisruptActive(now engine.Time) (active bool, until engine.Time) {
	if p.Spec.DoNotDisrupt {
		return true, 0
	}
	if p.Spec.DoNotDisruptFor <= 0 {
		return false, 0
	}
	if !p.Ran {
		return true, 0
	}
	until = p.StartTime() + p.Spec.DoNotDisruptFor
	if now < until {
		return true, until
	}
	return false, 0
}
