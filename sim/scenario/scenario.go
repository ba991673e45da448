// Package scenario reads a scenario: our one document of our own
// (kind: Scenario) and the users' Kubernetes manifests it inlines or
// includes. It validates everything, reports every problem with its file,
// line and field path, and compiles the objects into the forms the models
// run on.
//
// Kinds it compiles itself, the cluster's shared state: apps/v1
// Deployment, StatefulSet, ReplicaSet, DaemonSet; batch/v1 Job, CronJob
// (cronjob.go: its schedule becomes Job arrivals, read on the wall clock
// of spec.epoch in its time zone); autoscaling/v2 and v1
// HorizontalPodAutoscaler (hpa.go: bounds of its target's replica plan);
// v1 Pod, Node, Namespace, PersistentVolume, PersistentVolumeClaim and
// storage.k8s.io/v1 StorageClass (storage.go, with pod volumes and a
// StatefulSet's volumeClaimTemplates); policy/v1 PodDisruptionBudget;
// scheduling.k8s.io/v1 PriorityClass; KubeSchedulerConfiguration.
//
// Every other document goes to the registered component (sim/component)
// that claims it or reads its API group and kind (Karpenter's NodePools
// and node classes, eksctl's ClusterConfig, the Cluster Autoscaler's own
// Deployment and priority ConfigMap), with the component's field of the
// Scenario spec (spec.karpenter, spec.clusterAutoscaler): the component
// compiles them into its configuration (Scenario.Components), which only
// it reads. A component's kind under an API group a typo away from its
// own is an error; under an unrelated group, another product's kind,
// skipped.
//
// Every other kind a real bundle carries (Services, RBAC, Secrets,
// webhooks, CRDs and their objects, ...) is skipped, with one info line
// per kind giving the count, the files and why it does not matter (or
// what is not modelled: LimitRange defaults). Only a
// malformed document is an error, and a kind one or two letters away from
// one we read ("Deploymnet"), so that a typo is never silently dropped.
// An object repeated identically (the EC2NodeClass every Karpenter example
// carries) is read once, with an info line; a different object under the
// same name is an error.
package scenario

import (
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/scheduler"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/workload"
)

// Defaults of the Scenario document.
const (
	DefaultSeed          = 1
	DefaultRegion        = "us-east-1"
	DefaultStrandedAfter = 10 * time.Minute
	// DefaultNamespace is where objects without metadata.namespace live.
	DefaultNamespace = "default"
	// MaxPods bounds how many pods a scenario may create over its run
	// (estimated at load): a typo such as a rate of 30000 per hour over a
	// week fails at once with an estimate instead of exhausting memory.
	MaxPods = 20_000_000
	// MaxStaticNodes bounds the static pools.
	MaxStaticNodes = 200_000
)

// DefaultEpoch is the wall-clock time of simulated time 0 unless
// spec.epoch sets it (component.DefaultEpoch).
var DefaultEpoch = component.DefaultEpoch

// Scenario is a loaded, validated scenario, ready to run.
type Scenario struct {
	Name        string
	Description string
	File        string

	Seed          uint64
	Duration      time.Duration
	Region        string
	Zones         []string
	StrandedAfter time.Duration
	PodStartDelay time.Duration
	// NodeFailures are spec.nodeFailures, for the kubelet model.
	NodeFailures []kubelet.NodeFailure
	// Subnets are spec.network's subnets (nil: addresses are unlimited),
	// IPsPerNode what a node takes of one.
	Subnets    []cloud.Subnet
	IPsPerNode int

	Catalog   *catalog.Catalog
	Syms      *cluster.Symbols
	Resources *cluster.ResourceNames
	// Nodes exist from the start (static pools and Node manifests), Ready;
	// their OwnerName is the pool's name (or "Node/<name>").
	Nodes []cluster.Node
	// StaticPools locate spec.staticNodes entries, for messages.
	StaticPools []StaticPool
	Workloads   []workload.Spec
	// PodTemplates are the v1 PodTemplates, in document order.
	PodTemplates []PodTemplate
	PDBs         []cluster.PDB
	// NamespaceLabels holds the labels of Namespace manifests.
	NamespaceLabels map[cluster.Sym]cluster.Labels
	// SchedulerProfiles from a KubeSchedulerConfiguration (empty: the
	// default profile); SchedulerBackoff is its initial and maximum pod
	// backoff (0: the defaults).
	SchedulerProfiles []scheduler.Profile
	SchedulerBackoff  [2]time.Duration
	// Market configures the EC2 model.
	Market spotmarket.Config
	// Components are the compiled configurations of the registered
	// components that run in this scenario (Karpenter with NodePools, the
	// Cluster Autoscaler with node groups), in registration order.
	Components component.Configs
	// Epoch is the wall-clock time of simulated time 0 (spec.epoch).
	Epoch time.Time
	// Storage holds the StorageClasses, PersistentVolumes and
	// PersistentVolumeClaims (nil: none, and no pod uses a claim).
	Storage *cluster.Storage
	// EstimatedPods is the load-time estimate of pods created over the run.
	EstimatedPods int64
	// Files are the files the scenario was read from (the scenario file,
	// its includes, overrides and replay trace), sorted, as the loader
	// named them: a sweep fingerprints them and ships them to Kubernetes.
	Files []string
	// ComputeTime is spec.computeTime (default true): the scheduler's
	// cycles, Karpenter's solves and the Cluster Autoscaler's loops take
	// virtual time (the components' settings carry it too).
	ComputeTime bool

	Warnings []Warning
}

// StaticPool locates one spec.staticNodes entry.
type StaticPool struct {
	Name string
	File string
	Line int
	Path string // e.g. spec.staticNodes[0]
}

// Warning is accepted input that may not do what its author expects, or a
// note (Info); its Code names it for sim lint.
type Warning = component.Warning

// Codes of the loader's own warnings (Warning.Code), for settings that do
// nothing or keep pods Pending; sim lint reads them as ineffective
// settings.
const (
	// CodeUnbindableClaim: a claim with storageClassName "" that no
	// PersistentVolume names.
	CodeUnbindableClaim = "ineffective.unbindable-claim"
	// CodeMultiAttach: a ReadWriteMany/ReadWriteOncePod-style multi-attach
	// claim on EBS the CSI driver refuses.
	CodeMultiAttach = "ineffective.multi-attach"
	// CodeEmptyBudget: a PodDisruptionBudget without a selector.
	CodeEmptyBudget = "ineffective.empty-budget"
	// CodeNoScheduler: pods naming a scheduler profile that does not
	// exist.
	CodeNoScheduler = "ineffective.no-scheduler"
	// CodeSuspendedJob: a Job with parallelism 0.
	CodeSuspendedJob = "ineffective.suspended-job"
	// CodeSchedulerPlugin: a scheduler plugin or extension point the
	// simulator does not run.
	CodeSchedulerPlugin = "ineffective.scheduler-plugin"
)

// CodeRemovedVersion is the code of the load error for a document of an
// alpha or beta apiVersion the served version replaced
// (policy/v1beta1 PodDisruptionBudget): sim lint reads it as an obsolete
// setting.
const CodeRemovedVersion = "api.removed-version"
