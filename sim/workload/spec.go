package workload

import (
	"fmt"
	"math"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
)

// Kind is the owner kind.
type Kind uint8

// Workload kinds.
const (
	Deployment Kind = iota
	StatefulSet
	Job
	BarePod
	DaemonSet
)

var kindNames = [...]string{"Deployment", "StatefulSet", "Job", "Pod", "DaemonSet"}

func (k Kind) String() string { return kindNames[k] }

// Defaults of the Job controller (k8s batch/v1 Job; pkg/controller/job).
const (
	// DefaultBackoffLimit is spec.backoffLimit's default.
	DefaultBackoffLimit = 6
	// jobBackoffBase and jobBackoffMax delay the replacement of a failed
	// Job pod: 10 s doubling up to 6 min (DefaultJobPodFailureBackOff,
	// MaxJobPodFailureBackOff).
	jobBackoffBase = 10 * time.Second
	jobBackoffMax  = 6 * time.Minute
)

// Defaults of the HorizontalPodAutoscaler (kube-controller-manager flags).
const (
	DefaultHPASync          = 15 * time.Second // --horizontal-pod-autoscaler-sync-period
	DefaultHPAStabilization = 5 * time.Minute  // --horizontal-pod-autoscaler-downscale-stabilization
	DefaultHPATolerance     = 0.1              // --horizontal-pod-autoscaler-tolerance
	// HorizontalPodAutoscaler spec defaults: minReplicas 1, and autoscaling/v1
	// targetCPUUtilizationPercentage 80.
	DefaultHPAMinReplicas = 1
	DefaultHPATarget      = 0.8
	// DefaultDailyEvery is how often a daily replica curve is re-read.
	DefaultDailyEvery = 5 * time.Minute
)

// Step sets the desired replica count from At on.
type Step struct {
	At    time.Duration
	Count int32
}

// Daily is a smooth daily cycle between Min and Max, highest at PeakAt
// (time of day) and lowest twelve hours later: a cosine.
type Daily struct {
	Min, Max float64
	PeakAt   time.Duration
}

// At is the curve's value at virtual time t (the scenario starts at
// midnight).
func (d Daily) At(t time.Duration) float64 {
	phase := 2 * math.Pi * float64((t-d.PeakAt)%(24*time.Hour)) / float64(24*time.Hour)
	return d.Min + (d.Max-d.Min)*(1+math.Cos(phase))/2
}

// HPA scales on a synthetic CPU load, as the HorizontalPodAutoscaler does
// on a utilization target: desired = ceil(load / (pod CPU request x
// target)), within [Min, Max], not acted on within Tolerance, and scale-down
// held to the highest recommendation of the stabilization window.
type HPA struct {
	Min, Max int32
	// Target utilization of the pods' CPU request, 0..1.
	Target float64
	// Load is the total CPU the service needs, in cores, over the day.
	Load          Daily
	Sync          time.Duration
	Stabilization time.Duration
	Tolerance     float64
}

// ReplicaPlan says how many replicas a Deployment or StatefulSet wants over
// time. Exactly one of Steps, Daily and HPA is set; Steps always has its
// first step at 0.
type ReplicaPlan struct {
	Steps []Step
	Daily *Daily
	// DailyEvery is how often the Daily curve is re-read.
	DailyEvery time.Duration
	HPA        *HPA
}

// Poisson arrivals at RatePerHour on average between From and Until;
// Amplitude (0..1) modulates the rate over the day, highest at PeakAt.
type Poisson struct {
	RatePerHour float64
	From, Until time.Duration
	Amplitude   float64
	PeakAt      time.Duration
}

// rate is the arrival rate per hour at t.
func (p *Poisson) rate(t time.Duration) float64 {
	if p.Amplitude == 0 {
		return p.RatePerHour
	}
	d := Daily{Min: p.RatePerHour * (1 - p.Amplitude), Max: p.RatePerHour * (1 + p.Amplitude), PeakAt: p.PeakAt}
	return d.At(t)
}

// Arrivals say when a workload is created: at each of Times, plus Poisson
// arrivals. Empty means once, at 0.
type Arrivals struct {
	Times   []time.Duration
	Poisson *Poisson
}

// Fallback is a job-queue controller's resubmission: a pod of the workload
// still pending After its creation is deleted and created again with Pod
// (other tolerations or affinity, e.g. the on-demand ones).
type Fallback struct {
	After time.Duration
	Pod   *cluster.PodSpec
}

// Split drives two workloads from one plan: of each replica count (or each
// Job arrival), Share goes to the twin workload and the rest to this one.
type Split struct {
	Twin  int32 // index of the twin in the workload list
	Share float64
}

// Spec is one compiled workload.
type Spec struct {
	Kind      Kind
	Namespace string
	Name      string
	Pod       *cluster.PodSpec
	// Replicas for Deployments and StatefulSets. A workload that is the
	// twin of another's Split has no plan of its own.
	Replicas ReplicaPlan
	Arrivals Arrivals
	// Runtime of each pod once Running (Jobs; optional for bare Pods);
	// nil runs until the end.
	Runtime dist.Duration
	// Parallelism, Completions and BackoffLimit of a Job;
	// IgnoreDisruptions is a podFailurePolicy rule {action: Ignore,
	// onPodConditions: [{type: DisruptionTarget}]}: pods lost to
	// eviction, preemption or node loss do not count as failures.
	Parallelism, Completions int32
	BackoffLimit             int32
	IgnoreDisruptions        bool
	// ActiveDeadline is a Job's spec.activeDeadlineSeconds (0: none): a
	// Job not complete that long after it arrived fails, its pods
	// deleted (the Job controller's DeadlineExceeded).
	ActiveDeadline time.Duration
	// OrderedReady is a StatefulSet's podManagementPolicy OrderedReady,
	// the API's default (the scenario sets it unless the manifest says
	// Parallel; false is Parallel): the controller creates one missing
	// ordinal at a time, lowest first, only while every lower ordinal is
	// Running and Ready (started ReadyAfter ago, not terminating) and has
	// been Ready for MinReady; it deletes one pod at a time, highest
	// first, only then; an ordinal that is not Running and Ready halts
	// both (statefulset.go).
	OrderedReady bool
	// ReadyAfter is how long after it starts (Running) a StatefulSet's
	// pod becomes Ready: the delay its containers' readiness and startup
	// probes put on the kubelet's Ready condition (kubelet.ReadyAfter,
	// computed by the scenario from the pod template and the scenario's
	// podStartDelay; 0 without probes). Every probe is taken to succeed
	// once it runs.
	ReadyAfter time.Duration
	// MinReady is a StatefulSet's spec.minReadySeconds: how long a pod
	// must have been Ready before OrderedReady counts it as available.
	MinReady time.Duration
	// CronJob is set on a Job that a CronJob starts on its schedule.
	CronJob  *CronJob
	Fallback *Fallback
	Split    *Split
	// TwinOf is set on a Split's twin: the index of the workload that
	// drives it, or -1.
	TwinOf int32
	// StartOn holds, for a state imported from a live cluster, the node
	// each of the first instance's first pods runs on at the start (""
	// for a pod that starts pending; a StatefulSet's by ordinal). Those
	// pods are created first, pinned to their node for their first
	// scheduling (spec.nodeName); the rest of the replicas wait for a
	// reconcile at the same instant, so every pinned pod is queued
	// before them. Replacements are not pinned.
	StartOn []string
	// StartedAgo, when set, is how long each StartOn pod had been running
	// at the export (same order; a bare Pod's one entry is its own,
	// from its status.startTime): a do-not-disrupt duration counts from
	// a pod's start (cluster.Pod.StartedBefore).
	StartedAgo []time.Duration
	// StartTerminating are pods of an imported state that were already
	// terminating at the export: created at the start, pinned to their
	// node as StartOn pods, marked terminating once bound and deleted
	// when their grace period left is over. They do not count toward the
	// workload's pods (a terminating pod does not count toward a
	// ReplicaSet's or a Job's), so its replacements start at once.
	StartTerminating []TerminatingPod
	// File and Line locate the workload's manifest, for messages.
	File string
	Line int
}

// Ref is "Kind/namespace/name" ("Kind/name" for cluster-scoped kinds); a
// CronJob's Jobs are "CronJob/namespace/name", as the manifest names it.
func (s *Spec) Ref() string {
	kind := s.Kind.String()
	if s.CronJob != nil {
		kind = "CronJob"
	}
	return fmt.Sprintf("%s/%s/%s", kind, s.Namespace, s.Name)
}

// TerminatingPod is a pod that starts terminating on Node, with Left of
// its grace period to run.
type TerminatingPod struct {
	Node string
	Left time.Duration
}
