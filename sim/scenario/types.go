package scenario

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// APIVersion is the group/version of our own document.
const APIVersion = "clustersim.dev/v1alpha1"

// Kind is the kind of our own document.
const Kind = "Scenario"

// Durations are strings in Go syntax plus a day suffix ("90s", "10m",
// "1h30m", "7d"); they are parsed during validation so that a bad one is
// reported at its line and field path.

// document is the Scenario document as users write it.
type document struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       spec              `json:"spec"`
}

type spec struct {
	// Seed of every random stream; --seed overrides it. Default 1.
	Seed *uint64 `json:"seed,omitempty"`
	// Duration of simulated time. Required.
	Duration string `json:"duration,omitempty"`
	// Region for prices and the spot market. Default: the first eksctl
	// ClusterConfig's metadata.region, else us-east-1.
	Region string `json:"region,omitempty"`
	// Zones of the cluster. Default: that ClusterConfig's
	// availabilityZones, else the region's first three zones.
	Zones []string `json:"zones,omitempty"`
	// StrandedAfter: a pod pending longer than this counts as stranded.
	// Default 10m.
	StrandedAfter string `json:"strandedAfter,omitempty"`
	// PodStartDelay from binding to Running. Default 2s.
	PodStartDelay string `json:"podStartDelay,omitempty"`
	// ImportedAt (sim import) is when the cluster was exported (RFC 3339):
	// a Node manifest's age at the start is ImportedAt minus its
	// metadata.creationTimestamp.
	ImportedAt string `json:"importedAt,omitempty"`
	// Include lists files and folders of manifests, relative to this file.
	Include []string `json:"include,omitempty"`
	// StaticNodes are node pools that exist from the start and never
	// scale.
	StaticNodes []staticPool `json:"staticNodes,omitempty"`
	// Workloads set the timing of the workloads the manifests define.
	Workloads []timing `json:"workloads,omitempty"`
	// Market configures the EC2 side: capacity, the spot market, replay.
	Market *marketSpec `json:"market,omitempty"`
	// NodeFailures make nodes unhealthy (faults.go).
	NodeFailures []nodeFailureSpec `json:"nodeFailures,omitempty"`
	// Epoch is the wall-clock time of simulated time 0 (RFC 3339): the
	// clock CronJob schedules and Karpenter's budget schedules read.
	// Default DefaultEpoch, or spec.karpenter.startTime when only that is
	// set.
	Epoch string `json:"epoch,omitempty"`
	// The registered components' settings (spec.karpenter,
	// spec.clusterAutoscaler, ...) are fields of this document too: the
	// loader adds each component's field when it decodes (decode.go).
	// Network gives the subnets' free addresses (VPC CNI); unset:
	// unlimited.
	Network *networkSpec `json:"network,omitempty"`
	// ComputeTime: the scheduler, Karpenter's provisioner and the
	// Cluster Autoscaler's loop take virtual time for their work (the
	// compute-time models, docs/models.md). Default true; false makes
	// scheduling cycles and solves instantaneous and CA loops last
	// loopDuration (1 s).
	ComputeTime *bool `json:"computeTime,omitempty"`
	// Admission sets the API server's admission plugins the run applies
	// to pods (admission.go); unset: EKS's.
	Admission *admissionSpec `json:"admission,omitempty"`
}

// admissionSpec turns admission plugins on or off.
type admissionSpec struct {
	// ExtendedResourceToleration: pods requesting an extended resource
	// tolerate the NoSchedule taint of its name. Default true (EKS
	// enables the plugin on every version).
	ExtendedResourceToleration *bool `json:"extendedResourceToleration,omitempty"`
}

type staticPool struct {
	Name         string            `json:"name"`
	InstanceType string            `json:"instanceType"`
	Count        *int              `json:"count,omitempty"`
	Zones        []string          `json:"zones,omitempty"`
	CapacityType string            `json:"capacityType,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Taints       []taint           `json:"taints,omitempty"`
}

type taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

type timing struct {
	// Ref names the object: Kind/namespace/name, or Kind/name in the
	// default namespace.
	Ref string `json:"ref"`
	// Replicas over time (Deployments, StatefulSets): steps, a daily
	// curve, or an HPA on a synthetic load; at most one of the three.
	Replicas []replicaStep `json:"replicas,omitempty"`
	Daily    *dailySpec    `json:"daily,omitempty"`
	HPA      *hpaSpec      `json:"hpa,omitempty"`
	// Split drives a twin workload from this one's plan or arrivals.
	Split *splitSpec `json:"split,omitempty"`
	// Resubmit replaces pods still pending after a timeout with another
	// spec (a job-queue controller's fallback).
	Resubmit *resubmitSpec `json:"resubmit,omitempty"`
	// Arrivals: when the object is created (Jobs may arrive many times).
	Arrivals *arrivals `json:"arrivals,omitempty"`
	// Runtime of each pod once Running (required for Jobs).
	Runtime *durationDist `json:"runtime,omitempty"`
	// StartOn (sim import) lists the nodes the workload's pods run on at
	// the start, one entry per pod ("" for a pod that starts pending; a
	// StatefulSet's by ordinal).
	StartOn []string `json:"startOn,omitempty"`
	// StartedAgo (sim import) is how long each startOn pod had been
	// running at the export, same order; written when the pods carry a
	// karpenter.sh/do-not-disrupt duration, which counts from a pod's
	// start.
	StartedAgo []string `json:"startedAgo,omitempty"`
	// StartTerminating (sim import) lists the workload's pods that were
	// terminating at the export: their node and the grace period left.
	StartTerminating []startTerminating `json:"startTerminating,omitempty"`
}

type startTerminating struct {
	Node string `json:"node"`
	For  string `json:"for"`
}

type replicaStep struct {
	At    string `json:"at"`
	Count *int32 `json:"count"`
}

type arrivals struct {
	At      string   `json:"at,omitempty"`
	Times   []string `json:"times,omitempty"`
	Every   string   `json:"every,omitempty"`
	From    string   `json:"from,omitempty"`
	Until   string   `json:"until,omitempty"`
	Poisson *poisson `json:"poisson,omitempty"`
}

type poisson struct {
	RatePerHour float64 `json:"ratePerHour"`
	From        string  `json:"from,omitempty"`
	Until       string  `json:"until,omitempty"`
	// Amplitude (0..1) and PeakAt make the rate follow a daily cycle.
	Amplitude float64 `json:"amplitude,omitempty"`
	PeakAt    string  `json:"peakAt,omitempty"`
}

type dailySpec struct {
	Min    *int32 `json:"min"`
	Max    *int32 `json:"max"`
	PeakAt string `json:"peakAt,omitempty"`
	Every  string `json:"every,omitempty"`
}

type hpaSpec struct {
	MinReplicas                    *int32    `json:"minReplicas,omitempty"`
	MaxReplicas                    *int32    `json:"maxReplicas"`
	TargetCPUUtilizationPercentage *int32    `json:"targetCPUUtilizationPercentage,omitempty"`
	LoadCores                      *loadSpec `json:"loadCores"`
	SyncPeriod                     string    `json:"syncPeriod,omitempty"`
	ScaleDownStabilization         string    `json:"scaleDownStabilization,omitempty"`
	Tolerance                      *float64  `json:"tolerance,omitempty"`
}

type loadSpec struct {
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	PeakAt string  `json:"peakAt,omitempty"`
}

type splitSpec struct {
	Ref   string  `json:"ref"`
	Share float64 `json:"share"`
}

type resubmitSpec struct {
	After             string              `json:"after"`
	Tolerations       []corev1.Toleration `json:"tolerations,omitempty"`
	NodeSelector      map[string]string   `json:"nodeSelector,omitempty"`
	Affinity          *corev1.Affinity    `json:"affinity,omitempty"`
	PriorityClassName string              `json:"priorityClassName,omitempty"`
}

type durationDist struct {
	Fixed       string       `json:"fixed,omitempty"`
	LogNormal   *logNormal   `json:"lognormal,omitempty"`
	Exponential *exponential `json:"exponential,omitempty"`
	Uniform     *uniform     `json:"uniform,omitempty"`
}

type logNormal struct {
	Median string `json:"median"`
	P90    string `json:"p90"`
}

type exponential struct {
	Mean string `json:"mean"`
}

type uniform struct {
	Min string `json:"min"`
	Max string `json:"max"`
}
