package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Defaults of the modelled flags, as the Cluster Autoscaler 1.37 defines
// them (kubernetes-sigs/cluster-autoscaler pkg/config/flags/flags.go;
// testdata/upstream-flags.txt lists them and TestUpstreamDefaults checks
// these against it); docs/models.md "Cluster Autoscaler" lists them under
// "Defaults and sources".
const (
	DefaultScanInterval                     = 10 * time.Second // --scan-interval
	MinScanInterval                         = time.Second      // the shortest --scan-interval accepted
	DefaultExpander                         = "least-waste"    // --expander; least-waste since 1.33, random before
	DefaultMaxNodeProvisionTime             = 15 * time.Minute // --max-node-provision-time
	DefaultScaleDownUtilizationThreshold    = 0.5              // --scale-down-utilization-threshold
	DefaultScaleDownGPUUtilizationThreshold = 0.5              // --scale-down-gpu-utilization-threshold
	DefaultScaleDownUnneededTime            = 10 * time.Minute // --scale-down-unneeded-time
	DefaultScaleDownDelayAfterAdd           = 10 * time.Minute // --scale-down-delay-after-add
	DefaultScaleDownDelayAfterDelete        = 0                // --scale-down-delay-after-delete (0: the next loop)
	DefaultScaleDownDelayAfterFailure       = 3 * time.Minute  // --scale-down-delay-after-failure
	DefaultUnremovableNodeRecheckTimeout    = 5 * time.Minute  // --unremovable-node-recheck-timeout
	DefaultNewPodScaleUpDelay               = 0                // --new-pod-scale-up-delay
	DefaultExpendablePodsPriorityCutoff     = -10              // --expendable-pods-priority-cutoff
	DefaultMaxNodesPerScaleUp               = 1000             // --max-nodes-per-scaleup
	DefaultMaxNodesTotal                    = 0                // --max-nodes-total (0: no limit)
	DefaultInitialNodeGroupBackoffDuration  = 5 * time.Minute  // --initial-node-group-backoff-duration
	DefaultMaxNodeGroupBackoffDuration      = 30 * time.Minute // --max-node-group-backoff-duration
	DefaultNodeGroupBackoffResetTimeout     = 3 * time.Hour    // --node-group-backoff-reset-timeout
	DefaultMaxGracefulTermination           = 600 * time.Second
	DefaultMaxPodEvictionTime               = 2 * time.Minute // --max-pod-eviction-time
	DefaultMaxScaleDownParallelism          = 10              // --max-scale-down-parallelism
	DefaultMaxDrainParallelism              = 1               // --max-drain-parallelism
	// DefaultBlockingSystemPodDisruptionTimeout is
	// --blocking-system-pod-distruption-timeout (sic; CA 1.33+).
	DefaultBlockingSystemPodDisruptionTimeout = time.Hour
	DefaultCoresTotalMax                      = 320000  // --cores-total "0:320000"
	DefaultMemoryTotalMaxGiB                  = 6400000 // --memory-total "0:6400000", GiB
	// DefaultSalvoScaleUpBudget is --salvo-scale-up-budget (1.36+): the
	// time a loop may spend on further scale-ups with --salvo-scale-up.
	DefaultSalvoScaleUpBudget = time.Minute
	// DefaultScaleDownNonEmptyCandidatesCount is
	// --scale-down-non-empty-candidates-count: non-empty nodes evaluated
	// for scale-down per loop (0 or less: no limit).
	DefaultScaleDownNonEmptyCandidatesCount = 30
	// DefaultMaxBulkSoftTaintCount is --max-bulk-soft-taint-count: nodes
	// given or relieved of the soft DeletionCandidate taint per loop (0:
	// no soft taints).
	DefaultMaxBulkSoftTaintCount = 10
	// DefaultNodeDeleteDelayAfterTaint is --node-delete-delay-after-taint:
	// the wait between tainting an empty node and deleting it.
	DefaultNodeDeleteDelayAfterTaint = 5 * time.Second
	// DefaultMemoryDifferenceRatio (--memory-difference-ratio) and
	// DefaultMaxAllocatableDifferenceRatio
	// (--max-allocatable-difference-ratio) are how far similar node
	// groups' memory capacity and allocatable may differ, as fractions of
	// the larger (pkg/config/autoscaling_options.go).
	DefaultMemoryDifferenceRatio         = 0.015
	DefaultMaxAllocatableDifferenceRatio = 0.05
)

// Defaults of the unready-node flags (upstream config/flags/flags.go).
const (
	// DefaultMaxNodeStartupTime is --max-node-startup-time (CA 1.35+;
	// config/flags/flags.go, clusterstate.MaxNodeStartupTime): how long a
	// registered node may stay NotReady before it counts as unready.
	DefaultMaxNodeStartupTime = 15 * time.Minute
	// DefaultScaleDownUnreadyTime is --scale-down-unready-time
	// (config.DefaultScaleDownUnreadyTime): how long an unready node must be
	// unneeded before scale-down removes it.
	DefaultScaleDownUnreadyTime = 20 * time.Minute
	// DefaultMaxTotalUnreadyPercentage and DefaultOkTotalUnreadyCount are
	// --max-total-unready-percentage and --ok-total-unready-count: past
	// both, the cluster is unhealthy and loops do nothing
	// (clusterstate.IsClusterHealthy).
	DefaultMaxTotalUnreadyPercentage = 45.0
	DefaultOkTotalUnreadyCount       = 3
)

// NodesSpec is one --nodes=<min>:<max>:<name> flag: a node group chosen by
// name with its own size limits.
type NodesSpec struct {
	Min, Max int
	Name     string // ASG name or eksctl node group name
	Arg      int    // index of the flag in the argument list, for messages
}

// Options are the Cluster Autoscaler's command-line flags that change what
// it does in the simulation. The zero value is not useful: start from
// [DefaultOptions] or use [ParseFlags].
type Options struct {
	ScanInterval time.Duration
	// Expanders is the --expander chain, e.g. [priority least-waste].
	Expanders                        []string
	MaxNodeProvisionTime             time.Duration
	ScaleDownEnabled                 bool
	ScaleDownUtilizationThreshold    float64
	ScaleDownGPUUtilizationThreshold float64
	ScaleDownUnneededTime            time.Duration
	ScaleDownDelays
	// UnremovableNodeRecheckTimeout: a node the removal simulation found
	// unremovable is not simulated again until then (planner.go,
	// unremovable.Nodes.AddTimeout).
	UnremovableNodeRecheckTimeout time.Duration
	NewPodScaleUpDelay            time.Duration
	Balancing
	ExpendablePodsPriorityCutoff int32
	MaxNodesPerScaleUp           int
	MaxNodesTotal                int // 0 = no limit
	// CoresTotal and MemoryTotalGiB are the cluster-wide [min, max] of
	// --cores-total and --memory-total (memory in GiB, as the flag).
	CoresTotal     [2]int64
	MemoryTotalGiB [2]int64
	Backoff
	SkipNodesWithLocalStorage bool
	SkipNodesWithSystemPods   bool
	// BlockingSystemPodDisruptionTimeout is
	// --blocking-system-pod-distruption-timeout (the flag's spelling): a
	// kube-system pod without a PDB blocks scale-down only until it is
	// this old (drainability rule system, CA 1.33+).
	BlockingSystemPodDisruptionTimeout time.Duration
	MaxGracefulTermination             time.Duration // --max-graceful-termination-sec
	MaxPodEvictionTime                 time.Duration
	MaxScaleDownParallelism            int
	MaxDrainParallelism                int
	ScaleUpFromZero                    bool
	EnforceNodeGroupMinSize            bool
	CordonNodeBeforeTerminating        bool
	// FrequentLoops starts a loop as soon as a pod becomes unschedulable,
	// and right after a productive loop (--frequent-loops-enabled).
	FrequentLoops bool
	CapacityBuffers
	Salvo
	ScaleDownPace
	TemplateTaints
	// ScaleUpSimulationForSkippedNodeGroups: a pod's NotTriggerScaleUp
	// reasons name a skipped node group (back-off, maximum size) only when
	// its template takes the pod, else the template's mismatch
	// (--scaleup-simulation-for-skipped-node-groups-enabled).
	ScaleUpSimulationForSkippedNodeGroups bool
	// Nodes are the --nodes flags; AutoDiscovery the tag sets of the
	// --node-group-auto-discovery=asg:tag=... flags (a value "" means any
	// value). With neither, no node group is autoscaled (see
	// [CrossCheck]).
	Nodes         []NodesSpec
	AutoDiscovery []map[string]string
	// ProvReq are the ProvisioningRequest flags (provreqflags.go).
	ProvReq ProvReqOptions

	UnreadyOptions

	// Warnings are accepted flags that may not do what their author
	// expects.
	Warnings []*manifest.Error

	// emptyBulkDelete is the removed --max-empty-bulk-delete (0: not
	// given), read as --max-scale-down-parallelism when that is not given.
	emptyBulkDelete int
}

// ScaleDownDelays keep scale-down off after a scale-up, a scale-down
// deletion and a failed scale-down (--scale-down-delay-after-add,
// --scale-down-delay-after-delete, --scale-down-delay-after-failure).
type ScaleDownDelays struct {
	ScaleDownDelayAfterAdd     time.Duration
	ScaleDownDelayAfterDelete  time.Duration
	ScaleDownDelayAfterFailure time.Duration
}

// Backoff is a node group's back-off after a failed scale-up:
// --initial-node-group-backoff-duration, doubling up to
// --max-node-group-backoff-duration, forgotten after
// --node-group-backoff-reset-timeout.
type Backoff struct {
	InitialNodeGroupBackoffDuration time.Duration
	MaxNodeGroupBackoffDuration     time.Duration
	NodeGroupBackoffResetTimeout    time.Duration
}

// CapacityBuffers are --capacity-buffer-controller-enabled (the CA's
// buffer controller fills the CapacityBuffers' status) and
// --capacity-buffer-pod-injection-enabled (each loop's scale-up gets the
// ready buffers' fake pods); both off by default (CA
// config/flags/flags.go).
type CapacityBuffers struct {
	CapacityBufferController, CapacityBufferPodInjection bool
}

// Balancing is --balance-similar-node-groups and the node group
// comparison's settings.
type Balancing struct {
	BalanceSimilarNodeGroups bool
	BalancingIgnoreLabels    []string
	BalancingLabels          []string
	// MemoryDifferenceRatio and MaxAllocatableDifferenceRatio are the
	// comparison's tolerances (--memory-difference-ratio,
	// --max-allocatable-difference-ratio).
	MemoryDifferenceRatio         float64
	MaxAllocatableDifferenceRatio float64
}

// Salvo lets one loop run several scale-ups, each seeing the nodes of the
// ones before as upcoming, for up to SalvoScaleUpBudget of the loop's
// time (--salvo-scale-up, --salvo-scale-up-budget; 1.36+).
type Salvo struct {
	SalvoScaleUp       bool
	SalvoScaleUpBudget time.Duration
}

// TemplateTaints are the taints node templates leave out
// (utils/taints SanitizeTaints): --startup-taint and the deprecated
// --ignore-taint, --status-taint, and keys starting with a
// --startup-taint-prefix (the built-in prefixes and the node condition
// taints are left out whatever the flags).
type TemplateTaints struct {
	StartupTaints        []string
	StatusTaints         []string
	StartupTaintPrefixes []string
}

// ScaleDownPace bounds scale-down's work per loop, and says which pods a
// node's utilization leaves out.
type ScaleDownPace struct {
	// IgnoreDaemonSetsUtilization and IgnoreMirrorPodsUtilization leave
	// DaemonSet and mirror pods out of a node's utilization
	// (--ignore-daemonsets-utilization, --ignore-mirror-pods-utilization;
	// the per-group ASG tag override is not read).
	IgnoreDaemonSetsUtilization bool
	IgnoreMirrorPodsUtilization bool
	// ScaleDownNonEmptyCandidatesCount: at most this many non-empty nodes
	// are evaluated for scale-down per loop (0 or less: no limit).
	ScaleDownNonEmptyCandidatesCount int
	// MaxBulkSoftTaintCount: at most this many nodes get the soft
	// DeletionCandidate taint per loop (0: none).
	MaxBulkSoftTaintCount int
	// NodeDeleteDelayAfterTaint is the wait between tainting an empty node
	// and deleting it.
	NodeDeleteDelayAfterTaint time.Duration
}

// UnreadyOptions are the flags about nodes that are not Ready.
// MaxNodeStartupTime: a registered node NotReady for longer is unready, no
// longer an upcoming one. ScaleDownUnreadyEnabled and ScaleDownUnreadyTime:
// whether unready nodes are scaled down, and after how long unneeded. Past
// MaxTotalUnreadyPercentage of the nodes and OkTotalUnreadyCount unready
// nodes, loops do nothing.
type UnreadyOptions struct {
	MaxNodeStartupTime        time.Duration
	ScaleDownUnreadyEnabled   bool
	ScaleDownUnreadyTime      time.Duration
	MaxTotalUnreadyPercentage float64
	OkTotalUnreadyCount       int
}

// DefaultOptions returns the flags' defaults.
func DefaultOptions() Options {
	return Options{
		ScanInterval:                     DefaultScanInterval,
		Expanders:                        []string{DefaultExpander},
		MaxNodeProvisionTime:             DefaultMaxNodeProvisionTime,
		ScaleDownEnabled:                 true,
		ScaleDownUtilizationThreshold:    DefaultScaleDownUtilizationThreshold,
		ScaleDownGPUUtilizationThreshold: DefaultScaleDownGPUUtilizationThreshold,
		ScaleDownUnneededTime:            DefaultScaleDownUnneededTime,
		ScaleDownDelays: ScaleDownDelays{
			ScaleDownDelayAfterAdd:     DefaultScaleDownDelayAfterAdd,
			ScaleDownDelayAfterDelete:  DefaultScaleDownDelayAfterDelete,
			ScaleDownDelayAfterFailure: DefaultScaleDownDelayAfterFailure,
		},
		UnremovableNodeRecheckTimeout: DefaultUnremovableNodeRecheckTimeout,
		NewPodScaleUpDelay:            DefaultNewPodScaleUpDelay,
		ExpendablePodsPriorityCutoff:  DefaultExpendablePodsPriorityCutoff,
		MaxNodesPerScaleUp:            DefaultMaxNodesPerScaleUp,
		MaxNodesTotal:                 DefaultMaxNodesTotal,
		CoresTotal:                    [2]int64{0, DefaultCoresTotalMax},
		MemoryTotalGiB:                [2]int64{0, DefaultMemoryTotalMaxGiB},
		Backoff: Backoff{
			InitialNodeGroupBackoffDuration: DefaultInitialNodeGroupBackoffDuration,
			MaxNodeGroupBackoffDuration:     DefaultMaxNodeGroupBackoffDuration,
			NodeGroupBackoffResetTimeout:    DefaultNodeGroupBackoffResetTimeout,
		},
		SkipNodesWithLocalStorage:          true,
		SkipNodesWithSystemPods:            true,
		BlockingSystemPodDisruptionTimeout: DefaultBlockingSystemPodDisruptionTimeout,
		MaxGracefulTermination:             DefaultMaxGracefulTermination,
		MaxPodEvictionTime:                 DefaultMaxPodEvictionTime,
		MaxScaleDownParallelism:            DefaultMaxScaleDownParallelism,
		MaxDrainParallelism:                DefaultMaxDrainParallelism,
		ScaleUpFromZero:                    true,
		CordonNodeBeforeTerminating:        true,
		FrequentLoops:                      true,
		ProvReq:                            defaultProvReqOptions(),
		Salvo:                              Salvo{SalvoScaleUpBudget: DefaultSalvoScaleUpBudget},
		ScaleDownPace: ScaleDownPace{
			ScaleDownNonEmptyCandidatesCount: DefaultScaleDownNonEmptyCandidatesCount,
			MaxBulkSoftTaintCount:            DefaultMaxBulkSoftTaintCount,
			NodeDeleteDelayAfterTaint:        DefaultNodeDeleteDelayAfterTaint,
		},
		Balancing: Balancing{
			MemoryDifferenceRatio:         DefaultMemoryDifferenceRatio,
			MaxAllocatableDifferenceRatio: DefaultMaxAllocatableDifferenceRatio,
		},
		UnreadyOptions: UnreadyOptions{
			MaxNodeStartupTime:        DefaultMaxNodeStartupTime,
			ScaleDownUnreadyEnabled:   true,
			ScaleDownUnreadyTime:      DefaultScaleDownUnreadyTime,
			MaxTotalUnreadyPercentage: DefaultMaxTotalUnreadyPercentage,
			OkTotalUnreadyCount:       DefaultOkTotalUnreadyCount,
		},
	}
}

// Expander names (cluster-autoscaler/expander/expander.go).
const (
	ExpanderRandom     = "random"
	ExpanderMostPods   = "most-pods"
	ExpanderLeastWaste = "least-waste"
	ExpanderPrice      = "price"
	ExpanderPriority   = "priority"
	ExpanderLeastNodes = "least-nodes"
	expanderGRPC       = "grpc"
)

var expanderNames = []string{ExpanderRandom, ExpanderMostPods, ExpanderLeastWaste, ExpanderPrice, ExpanderPriority, ExpanderLeastNodes, expanderGRPC}

type flagKind uint8

const (
	kindDuration flagKind = iota
	kindBool
	kindInt
	kindFloat
	kindString
)

// flagDef is one modelled flag: how to parse its value and where it goes.
type flagDef struct {
	kind flagKind
	// list flags may be given several times and accumulate.
	list bool
	set  func(o *Options, v string) error
	note string // a warning to give whenever the flag is set ("" = none)
}

func durationFlag(f func(o *Options) *time.Duration) flagDef {
	return flagDef{kind: kindDuration, set: func(o *Options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("cannot parse %q as a duration; use Go syntax such as 10s, 5m or 1h30m", v)
		}
		if d < 0 {
			return fmt.Errorf("must not be negative, got %s", v)
		}
		*f(o) = duration.Cap(d) // longer than any run: no overflow of a time plus it
		return nil
	}}
}

func boolFlag(f func(o *Options) *bool) flagDef {
	return flagDef{kind: kindBool, set: func(o *Options, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("cannot parse %q as a boolean; use true or false", v)
		}
		*f(o) = b
		return nil
	}}
}

func intFlag(lo, hi int64, f func(o *Options, n int64)) flagDef {
	return flagDef{kind: kindInt, set: func(o *Options, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("cannot parse %q as a whole number", v)
		}
		if n < lo || n > hi {
			return fmt.Errorf("must be between %d and %d, got %d", lo, hi, n)
		}
		f(o, n)
		return nil
	}}
}

func fractionFlag(f func(o *Options) *float64) flagDef {
	return flagDef{kind: kindFloat, set: func(o *Options, v string) error {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) {
			return fmt.Errorf("cannot parse %q as a number", v)
		}
		if x < 0 || x > 1 {
			return fmt.Errorf("must be between 0 and 1 (a fraction of allocatable), got %s", v)
		}
		*f(o) = x
		return nil
	}}
}

func minMaxFlag(f func(o *Options) *[2]int64) flagDef {
	return flagDef{kind: kindString, set: func(o *Options, v string) error {
		lo, hi, ok := strings.Cut(v, ":")
		a, err1 := strconv.ParseInt(lo, 10, 64)
		b, err2 := strconv.ParseInt(hi, 10, 64)
		if !ok || err1 != nil || err2 != nil || a < 0 || b < a {
			return fmt.Errorf("cannot parse %q as <min>:<max> with 0 <= min <= max, e.g. 0:1000", v)
		}
		*f(o) = [2]int64{a, b}
		return nil
	}}
}

func labelListFlag(f func(o *Options) *[]string) flagDef {
	return flagDef{kind: kindString, list: true, set: func(o *Options, v string) error {
		if v == "" {
			return fmt.Errorf("needs a label key")
		}
		*f(o) = append(*f(o), v)
		return nil
	}}
}

// taintListFlag is a repeatable flag of taint keys (or key prefixes).
func taintListFlag(f func(o *Options) *[]string) flagDef {
	return flagDef{kind: kindString, list: true, set: func(o *Options, v string) error {
		if v == "" {
			return fmt.Errorf("needs a taint key")
		}
		*f(o) = append(*f(o), v)
		return nil
	}}
}

// Phrases of the warnings sim lint raises to findings (it reads their
// codes, below).
const (
	// PriceExpanderExits: the AWS provider's Pricing() is not implemented
	// and the expander factory calls klog.Fatalf for the price expander
	// (expander/factory/expander_factory.go).
	PriceExpanderExits = "the AWS cloud provider has no pricing model, so the real Cluster Autoscaler exits at startup (\"Couldn't access cloud provider pricing for price expander\")"
	// PriceExpanderFix is the fix sim lint gives for it.
	PriceExpanderFix = "use --expander=least-waste (the default), or priority with a priority ConfigMap that ranks the cheaper groups first"
	// RemovedFlag: a flag the Cluster Autoscaler no longer defines.
	RemovedFlag = "was removed in Cluster Autoscaler 1.33 (deprecated in favour of --max-scale-down-parallelism since 1.28): a 1.33+ Cluster Autoscaler stops at startup on it as an unknown flag"
)

// Codes of the Cluster Autoscaler's warnings (manifest.Error.Code,
// component.Warning.Code): stable names sim lint reads.
const (
	// CodePriceExpanderExits: --expander=price, which the real Cluster
	// Autoscaler on AWS exits on at startup.
	CodePriceExpanderExits = "ca.price-expander-exits"
	// CodeRemovedFlag: a flag a current Cluster Autoscaler no longer
	// defines.
	CodeRemovedFlag = "ca.removed-flag"
	// CodeFlagNoEffect: flags that concern only the real process
	// (logging, leader election, the API client, other clouds) or bounds
	// of its computation: nothing to simulate.
	CodeFlagNoEffect = "ca.flag-no-effect"
	// CodeFlagNotModelled: flags that change the real Cluster
	// Autoscaler's decisions in a way the simulation does not model.
	CodeFlagNotModelled = "ineffective.ca-flag"
	// CodeTaintTag: a node-template taint tag it skips (its value is not
	// <value>:<Effect>).
	CodeTaintTag = "ineffective.taint-tag"
	// CodeResourceTag: a node-template resources tag that is not a
	// quantity.
	CodeResourceTag = "ineffective.resource-tag"
	// CodeZeroLabels: labels of a group that may be empty that its ASG
	// tags lack, so pods selecting them cannot scale it up from zero.
	CodeZeroLabels = "ineffective.scale-from-zero-labels"
	// CodeZeroTaints: taints of such a group its tags cannot carry.
	CodeZeroTaints = "ineffective.scale-from-zero-taints"
)

// modelledFlags are the flags the simulation acts on.
var modelledFlags = map[string]flagDef{
	"scan-interval": durationFlag(func(o *Options) *time.Duration { return &o.ScanInterval }),
	"expander": {kind: kindString, set: func(o *Options, v string) error {
		chain, err := parseExpanders(v)
		if err != nil {
			return err
		}
		o.Expanders = chain
		return nil
	}},
	"max-node-provision-time":              durationFlag(func(o *Options) *time.Duration { return &o.MaxNodeProvisionTime }),
	"scale-down-enabled":                   boolFlag(func(o *Options) *bool { return &o.ScaleDownEnabled }),
	"scale-down-utilization-threshold":     fractionFlag(func(o *Options) *float64 { return &o.ScaleDownUtilizationThreshold }),
	"scale-down-gpu-utilization-threshold": fractionFlag(func(o *Options) *float64 { return &o.ScaleDownGPUUtilizationThreshold }),
	"scale-down-unneeded-time":             durationFlag(func(o *Options) *time.Duration { return &o.ScaleDownUnneededTime }),
	"scale-down-delay-after-add":           durationFlag(func(o *Options) *time.Duration { return &o.ScaleDownDelayAfterAdd }),
	"scale-down-delay-after-delete":        durationFlag(func(o *Options) *time.Duration { return &o.ScaleDownDelayAfterDelete }),
	"scale-down-delay-after-failure":       durationFlag(func(o *Options) *time.Duration { return &o.ScaleDownDelayAfterFailure }),
	"unremovable-node-recheck-timeout":     durationFlag(func(o *Options) *time.Duration { return &o.UnremovableNodeRecheckTimeout }),
	"new-pod-scale-up-delay":               durationFlag(func(o *Options) *time.Duration { return &o.NewPodScaleUpDelay }),
	"balance-similar-node-groups":          boolFlag(func(o *Options) *bool { return &o.BalanceSimilarNodeGroups }),
	"balancing-ignore-label":               labelListFlag(func(o *Options) *[]string { return &o.BalancingIgnoreLabels }),
	"balancing-label":                      labelListFlag(func(o *Options) *[]string { return &o.BalancingLabels }),
	// --ignore-taint is deprecated in favour of --startup-taint, which it
	// equals (flags.go: StartupTaints = ignoreTaints + startupTaints).
	"ignore-taint":         taintListFlag(func(o *Options) *[]string { return &o.StartupTaints }),
	"startup-taint":        taintListFlag(func(o *Options) *[]string { return &o.StartupTaints }),
	"status-taint":         taintListFlag(func(o *Options) *[]string { return &o.StatusTaints }),
	"startup-taint-prefix": taintListFlag(func(o *Options) *[]string { return &o.StartupTaintPrefixes }),
	"expendable-pods-priority-cutoff": intFlag(math.MinInt32, math.MaxInt32, func(o *Options, n int64) {
		o.ExpendablePodsPriorityCutoff = int32(n)
	}),
	"max-nodes-per-scaleup": intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.MaxNodesPerScaleUp = int(n) }),
	"max-nodes-total":       intFlag(0, math.MaxInt32, func(o *Options, n int64) { o.MaxNodesTotal = int(n) }),
	"cores-total":           minMaxFlag(func(o *Options) *[2]int64 { return &o.CoresTotal }),
	"memory-total":          minMaxFlag(func(o *Options) *[2]int64 { return &o.MemoryTotalGiB }),
	"initial-node-group-backoff-duration": durationFlag(func(o *Options) *time.Duration {
		return &o.InitialNodeGroupBackoffDuration
	}),
	"max-node-group-backoff-duration":  durationFlag(func(o *Options) *time.Duration { return &o.MaxNodeGroupBackoffDuration }),
	"node-group-backoff-reset-timeout": durationFlag(func(o *Options) *time.Duration { return &o.NodeGroupBackoffResetTimeout }),
	"skip-nodes-with-system-pods":      boolFlag(func(o *Options) *bool { return &o.SkipNodesWithSystemPods }),
	"blocking-system-pod-distruption-timeout": durationFlag(func(o *Options) *time.Duration {
		return &o.BlockingSystemPodDisruptionTimeout
	}),
	"skip-nodes-with-local-storage": {kind: kindBool, set: boolFlag(func(o *Options) *bool { return &o.SkipNodesWithLocalStorage }).set,
		// Upstream's LocalStorage drainability rule (simulator/
		// drainability/rules/localstorage, drain.HasBlockingLocalStorage)
		// looks at hostPath and disk emptyDir volumes only.
		note: "it keeps nodes whose pods have hostPath or emptyDir volumes (not medium: Memory), which are not modelled; " +
			"the volumes that are, persistent volumes, never count as local storage: this flag changes nothing"},
	"max-graceful-termination-sec": intFlag(0, math.MaxInt32, func(o *Options, n int64) {
		o.MaxGracefulTermination = time.Duration(n) * time.Second
	}),
	"max-pod-eviction-time":      durationFlag(func(o *Options) *time.Duration { return &o.MaxPodEvictionTime }),
	"max-scale-down-parallelism": intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.MaxScaleDownParallelism = int(n) }),
	"max-empty-bulk-delete":      intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.emptyBulkDelete = int(n) }),
	"max-drain-parallelism":      intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.MaxDrainParallelism = int(n) }),
	"scale-up-from-zero":         boolFlag(func(o *Options) *bool { return &o.ScaleUpFromZero }),
	"ignore-daemonsets-utilization": boolFlag(func(o *Options) *bool {
		return &o.IgnoreDaemonSetsUtilization
	}),
	"ignore-mirror-pods-utilization": boolFlag(func(o *Options) *bool {
		return &o.IgnoreMirrorPodsUtilization
	}),
	"enforce-node-group-min-size": boolFlag(func(o *Options) *bool { return &o.EnforceNodeGroupMinSize }),
	"cordon-node-before-terminating": boolFlag(func(o *Options) *bool {
		return &o.CordonNodeBeforeTerminating
	}),
	"frequent-loops-enabled": boolFlag(func(o *Options) *bool { return &o.FrequentLoops }),
	"capacity-buffer-controller-enabled": boolFlag(func(o *Options) *bool {
		return &o.CapacityBufferController
	}),
	"capacity-buffer-pod-injection-enabled": boolFlag(func(o *Options) *bool {
		return &o.CapacityBufferPodInjection
	}),
	"salvo-scale-up":        boolFlag(func(o *Options) *bool { return &o.SalvoScaleUp }),
	"salvo-scale-up-budget": durationFlag(func(o *Options) *time.Duration { return &o.SalvoScaleUpBudget }),
	"scaleup-simulation-for-skipped-node-groups-enabled": boolFlag(func(o *Options) *bool {
		return &o.ScaleUpSimulationForSkippedNodeGroups
	}),
	// Upstream reads 0 or less as no limit.
	"scale-down-non-empty-candidates-count": intFlag(math.MinInt32, math.MaxInt32, func(o *Options, n int64) {
		o.ScaleDownNonEmptyCandidatesCount = int(n)
	}),
	"max-bulk-soft-taint-count":        intFlag(0, math.MaxInt32, func(o *Options, n int64) { o.MaxBulkSoftTaintCount = int(n) }),
	"node-delete-delay-after-taint":    durationFlag(func(o *Options) *time.Duration { return &o.NodeDeleteDelayAfterTaint }),
	"memory-difference-ratio":          fractionFlag(func(o *Options) *float64 { return &o.MemoryDifferenceRatio }),
	"max-allocatable-difference-ratio": fractionFlag(func(o *Options) *float64 { return &o.MaxAllocatableDifferenceRatio }),
	"nodes": {kind: kindString, list: true, set: func(o *Options, v string) error {
		parts := strings.SplitN(v, ":", 3)
		if len(parts) != 3 {
			return fmt.Errorf("cannot parse %q as <min>:<max>:<node group name>", v)
		}
		lo, err1 := strconv.Atoi(parts[0])
		hi, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || lo < 0 || hi < lo || parts[2] == "" {
			return fmt.Errorf("cannot parse %q as <min>:<max>:<node group name> with 0 <= min <= max", v)
		}
		o.Nodes = append(o.Nodes, NodesSpec{Min: lo, Max: hi, Name: parts[2]})
		return nil
	}},
	"node-group-auto-discovery": {kind: kindString, list: true, set: func(o *Options, v string) error {
		spec, ok := strings.CutPrefix(v, "asg:")
		if !ok {
			return fmt.Errorf("%q is not an AWS auto-discovery spec; on AWS write asg:tag=<key>[=<value>],<key>...", v)
		}
		tags, ok := strings.CutPrefix(spec, "tag=")
		if !ok || tags == "" {
			return fmt.Errorf("%q: want asg:tag=<key>[=<value>],<key>..., e.g. asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/my-cluster", v)
		}
		m := map[string]string{}
		for _, kv := range strings.Split(tags, ",") {
			k, val, _ := strings.Cut(kv, "=")
			if k == "" {
				return fmt.Errorf("%q: empty tag key", v)
			}
			m[k] = val
		}
		o.AutoDiscovery = append(o.AutoDiscovery, m)
		return nil
	}},
	"estimator": {kind: kindString, set: func(o *Options, v string) error {
		if v != "binpacking" {
			return fmt.Errorf("unknown estimator %q; the only one is binpacking", v)
		}
		return nil
	}},
	"cloud-provider": {kind: kindString, set: func(o *Options, v string) error {
		if v != "aws" {
			return fmt.Errorf("the simulation models the aws cloud provider only, got %q; use --cloud-provider=aws or leave it out", v)
		}
		return nil
	}},
	// Unready nodes (unready.go).
	"max-node-startup-time":      durationFlag(func(o *Options) *time.Duration { return &o.MaxNodeStartupTime }),
	"scale-down-unready-enabled": boolFlag(func(o *Options) *bool { return &o.ScaleDownUnreadyEnabled }),
	"scale-down-unready-time":    durationFlag(func(o *Options) *time.Duration { return &o.ScaleDownUnreadyTime }),
	"max-total-unready-percentage": {kind: kindFloat, set: func(o *Options, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 100 || math.IsNaN(f) {
			return fmt.Errorf("%q is not a percentage from 0 to 100", v)
		}
		o.MaxTotalUnreadyPercentage = f
		return nil
	}},
	"ok-total-unready-count": intFlag(0, math.MaxInt32, func(o *Options, n int64) { o.OkTotalUnreadyCount = int(n) }),
}

// noEffect says why a flag the Cluster Autoscaler defines changes nothing
// in the simulation; Code is the warning's (manifest.Error.Code), so sim
// lint can tell settings that only concern the real process
// (CodeFlagNoEffect, an input note) from those that change the real
// Cluster Autoscaler's decisions (CodeFlagNotModelled, an
// ineffective-setting warning).
type noEffect struct {
	Code, Reason string
}

// Reasons shared by several flags.
var (
	noEffectLogging = &noEffect{CodeFlagNoEffect, "logging, metrics, events and profiling: the simulation reports through its own timeline and report"}
	noEffectProcess = &noEffect{CodeFlagNoEffect, "the process, its API client, leader election and health checks: the simulated Cluster Autoscaler talks to no API server, runs as one replica and is never restarted"}
	noEffectStatus  = &noEffect{CodeFlagNoEffect, "the status ConfigMap: the simulation's report shows the Cluster Autoscaler's state"}
	// Flags of other clouds (a Deployment for one cloud may carry them).
	noEffectCloud = &noEffect{CodeFlagNoEffect, "another cloud provider's setting (GCE, Cluster API, node group autoprovisioning): the simulation runs the AWS provider"}
	// Bounds on the real Cluster Autoscaler's own computation: the
	// simulation completes every computation, with the result the real
	// one reaches when it has the time.
	noEffectCompute = &noEffect{CodeFlagNoEffect, "a bound or shortcut of the real Cluster Autoscaler's computation (time limits, parallelism, caches, fast paths): the simulation completes every computation in virtual time, with the same decisions"}
	noEffectProvReq = &noEffect{CodeFlagNoEffect, "the size of the ProvisioningRequests' back-off cache: the simulation keeps every request's back-off"}
	noEffectBuffer  = &noEffect{CodeFlagNoEffect, "the dry run of a CapacityBuffer's pod against the API server: the simulation's buffer pod is the compiled template"}
	// noEffectDRA: pods' claims are ignored with a warning of their own
	// (cluster.CodeResourceClaims); since 1.35 upstream locks the flag to
	// true (pkg/config/flags/flags.go).
	noEffectDRA = &noEffect{CodeFlagNoEffect, "Dynamic Resource Allocation is not modelled: pods' spec.resourceClaims, ResourceClaims, ResourceClaimTemplates, DeviceClasses and ResourceSlices are not read, so no pod waits for a device and no node group offers one"}
)

// boolNoEffect are the boolean flags without a modelled effect (they take
// no value when given alone), valueNoEffect the others: every other flag
// of the Cluster Autoscaler 1.37 (pkg/config/flags/flags.go and the
// klog, logs, leader-election and feature-gate flags its main registers;
// testdata/upstream-flags.txt lists them, TestFlagTableCoversUpstream
// checks this table against it). ParseFlags warns once per flag, grouped
// by reason.
var boolNoEffect = map[string]*noEffect{
	"add-dir-header": noEffectLogging, "alsologtostderr": noEffectLogging, "legacy-stderr-threshold-behavior": noEffectLogging,
	"log-json-split-stream": noEffectLogging, "log-text-split-stream": noEffectLogging, "logtostderr": noEffectLogging,
	"one-output": noEffectLogging, "skip-headers": noEffectLogging, "skip-log-headers": noEffectLogging,
	"profiling": noEffectLogging, "record-duplicated-events": noEffectLogging, "emit-per-nodegroup-metrics": noEffectLogging,
	"debugging-snapshot-enabled": noEffectLogging, "node-removal-latency-tracking-enabled": noEffectLogging,
	"max-node-skip-eval-time-tracker-enabled": noEffectLogging,
	"leader-elect":                       noEffectProcess,
	"write-status-configmap":             noEffectStatus,
	"bulk-mig-instances-listing-enabled": noEffectCloud, "clusterapi-cloud-config-authoritative": noEffectCloud, "regional": noEffectCloud,
	"async-node-groups":           noEffectCloud,
	"fastpath-binpacking-enabled": noEffectCompute, "parallel-scale-up": noEffectCompute, "enable-graceful-degradation": noEffectCompute,
	"enable-inter-pod-affinity-hostname-fast-path":  noEffectCompute,
	"capacity-buffer-pod-dry-run-enabled":           noEffectBuffer,
	"aws-use-static-instance-list":                  {CodeFlagNoEffect, "the simulation's instance types come from its EC2 catalogue, not from the AWS API or the provider's static list"},
	"capacity-quotas-enabled":                       {CodeFlagNotModelled, "CapacityQuota objects are not modelled: only --max-nodes-total, --cores-total and --memory-total limit scale-ups"},
	"daemonset-eviction-for-empty-nodes":            {CodeFlagNoEffect, "DaemonSet pods are not evicted when a node is drained; they go with the node, which changes no decision"},
	"daemonset-eviction-for-occupied-nodes":         {CodeFlagNoEffect, "DaemonSet pods are not evicted when a node is drained; they go with the node, which changes no decision"},
	"dynamic-node-delete-delay-after-taint-enabled": {CodeFlagNoEffect, "the API server's latency is zero here, so the dynamic delay is --node-delete-delay-after-taint"},
	"enable-csi-node-aware-scheduling":              {CodeFlagNotModelled, "CSINode objects (per-node volume attach limits) are not modelled: pods' volumes count towards no attach limit"},
	"enable-dynamic-resource-allocation":            noEffectDRA,
	"enable-proactive-scaleup":                      {CodeFlagNotModelled, "proactive scale-up (fake pods for the replicas controllers are about to create) is not modelled: scale-ups wait for the pods themselves"},
	"force-delete-failed-nodes":                     {CodeFlagNotModelled, "failed instances are not modelled apart from those that never join, which are removed down to the group's minimum"},
	"force-delete-unregistered-nodes":               {CodeFlagNotModelled, "long-unregistered nodes are removed only down to the group's minimum: forcing their removal below it is not modelled"},
	"force-ds":                                      {CodeFlagNotModelled, "the check that a node group is large enough for its DaemonSets' pods is not modelled"},
	"scale-down-delay-type-local":                   {CodeFlagNotModelled, "the --scale-down-delay-after-* delays apply to the whole cluster: per-node-group delays are not modelled"},
	"scale-from-unschedulable":                      {CodeFlagNoEffect, "node templates are never cordoned here, so there is no spec.unschedulable to ignore"},
	// Every pod's controller here is a built-in one (Deployment,
	// StatefulSet, Job, DaemonSet), so custom controllers never come up.
	"skip-nodes-with-custom-controller-pods": {CodeFlagNoEffect, "every pod's controller is a built-in one (Deployment, StatefulSet, Job, DaemonSet): no pod has a custom controller"},
}

var valueNoEffect = map[string]*noEffect{
	"alsologtostderrthreshold": noEffectLogging, "log-backtrace-at": noEffectLogging, "log-dir": noEffectLogging,
	"log-file": noEffectLogging, "log-file-max-size": noEffectLogging, "log-flush-frequency": noEffectLogging,
	"log-json-info-buffer-size": noEffectLogging, "log-text-info-buffer-size": noEffectLogging, "logging-format": noEffectLogging,
	"stderrthreshold": noEffectLogging, "v": noEffectLogging, "vmodule": noEffectLogging, "scheduler-verbosity": noEffectLogging,
	"address":                     noEffectLogging,
	"leader-elect-lease-duration": noEffectProcess, "leader-elect-renew-deadline": noEffectProcess,
	"leader-elect-resource-lock": noEffectProcess, "leader-elect-resource-name": noEffectProcess,
	"leader-elect-resource-namespace": noEffectProcess, "leader-elect-retry-period": noEffectProcess,
	"kubernetes": noEffectProcess, "kubeconfig": noEffectProcess, "kube-api-content-type": noEffectProcess,
	"kube-client-burst": noEffectProcess, "kube-client-qps": noEffectProcess, "user-agent": noEffectProcess,
	"namespace": noEffectProcess, "cluster-name": noEffectProcess, "cloud-config": noEffectProcess,
	"feature-gates": {CodeFlagNoEffect, "the real binary's feature gates (logging, the scheduler framework's): a feature the simulation models has a flag or a setting of its own"},
	// Health checks: the real Cluster Autoscaler restarts itself when a
	// loop has not succeeded for this long (metrics.NewHealthCheck).
	"max-inactivity": noEffectProcess, "max-failing-time": noEffectProcess, "max-startup-time": noEffectProcess,
	"status-config-map-name":   noEffectStatus,
	"gce-concurrent-refreshes": noEffectCloud, "gce-mig-instances-min-refresh-wait-time": noEffectCloud, "gpu-total": noEffectCloud,
	// The FAQ's table lists these from builds that linked the legacy GCE
	// provider; 1.37's tree does not register them (see notInUpstream).
	"cloud-provider-gce-l7lb-src-cidrs": noEffectCloud, "cloud-provider-gce-lb-src-cidrs": noEffectCloud,
	"max-binpacking-time": noEffectCompute, "max-nodegroup-binpacking-duration": noEffectCompute,
	"scale-down-simulation-timeout": noEffectCompute, "predicate-parallelism": noEffectCompute,
	"cluster-snapshot-parallelism": noEffectCompute, "node-info-cache-expire-time": noEffectCompute,
	"pending-pods-batching-timeout": noEffectCompute, "max-bulk-soft-taint-time": noEffectCompute,
	"provisioning-request-max-backoff-cache-size": noEffectProvReq,
	"grpc-expander-cert":                          {CodeFlagNoEffect, "the grpc expander is not simulated (--expander=grpc is refused)"},
	"grpc-expander-url":                           {CodeFlagNoEffect, "the grpc expander is not simulated (--expander=grpc is refused)"},
	"allowed-scheduler-names":                     {CodeFlagNotModelled, "every pod is taken as the simulated scheduler's: pods are not filtered by spec.schedulerName"},
	"bypassed-scheduler-names":                    {CodeFlagNotModelled, "every pod is taken as the simulated scheduler's: pods are not filtered by spec.schedulerName, and none skips the wait for the scheduler's verdict"},
	"drain-priority-config":                       {CodeFlagNotModelled, "the priority evictor is not modelled: a drain evicts every pod at once, each with its own grace period capped by --max-graceful-termination-sec"},
	"max-free-difference-ratio":                   {CodeFlagNotModelled, "similar node groups are compared by capacity, allocatable and labels (--memory-difference-ratio, --max-allocatable-difference-ratio), not by free resources"},
	"min-replica-count":                           {CodeFlagNotModelled, "the minimum replica count of a pod's controller is not checked when draining"},
	"node-deletion-batcher-interval":              {CodeFlagNotModelled, "node deletions are not batched: each starts when its node is picked"},
	"node-deletion-candidate-ttl":                 {CodeFlagNoEffect, "the simulated Cluster Autoscaler is never restarted, so its unneeded-node markings never go stale"},
	"node-deletion-delay-timeout":                 {CodeFlagNoEffect, "no node carries delay-deletion.cluster-autoscaler.kubernetes.io/ annotations here"},
	"pod-injection-limit":                         {CodeFlagNotModelled, "the cap on fake pods injected per loop is not enforced: every CapacityBuffer's and ProvisioningRequest's pods are injected (proactive scale-up is not modelled)"},
	"scale-down-candidates-pool-min-count":        {CodeFlagNotModelled, "the pool of additional scale-down candidates is not modelled: every node is evaluated each loop, up to --scale-down-non-empty-candidates-count non-empty ones"},
	"scale-down-candidates-pool-ratio":            {CodeFlagNotModelled, "the pool of additional scale-down candidates is not modelled: every node is evaluated each loop, up to --scale-down-non-empty-candidates-count non-empty ones"},
	"scheduler-config-file":                       {CodeFlagNotModelled, "the Cluster Autoscaler simulates scheduling with the scenario's scheduler, not with a profile of its own"},
}

// removedFlags are flags users' Deployments still carry that the Cluster
// Autoscaler 1.37 no longer defines (not in pkg/config/flags/flags.go):
// it stops at startup on them as unknown flags. The simulation accepts
// them with a CodeRemovedFlag warning; --max-empty-bulk-delete, which it
// also reads, is in modelledFlags.
var removedFlags = map[string]removedFlag{
	"parallel-drain": {true, "the parallel scale-down it switched on is how the Cluster Autoscaler always works now, bounded by --max-scale-down-parallelism and --max-drain-parallelism"},
	// GKE's node autoprovisioning.
	"node-autoprovisioning-enabled":        {true, "a setting of GKE's node autoprovisioning"},
	"max-autoprovisioned-node-group-count": {false, "a setting of GKE's node autoprovisioning"},
}

// removedFlag is a flag of removedFlags: whether it is a boolean, and
// what became of it.
type removedFlag struct {
	isBool bool
	note   string
}

// knownFlagNames lists every flag name, for did-you-mean hints.
func knownFlagNames() []string {
	names := make([]string, 0, len(modelledFlags)+len(boolNoEffect)+len(valueNoEffect)+len(removedFlags))
	for n := range modelledFlags {
		names = append(names, n)
	}
	for n := range boolNoEffect {
		names = append(names, n)
	}
	for n := range valueNoEffect {
		names = append(names, n)
	}
	for n := range removedFlags {
		names = append(names, n)
	}
	return names
}

// flagInfo is what the tables say of one flag name.
type flagInfo struct {
	def      flagDef
	modelled bool
	noEffect *noEffect // a flag without a modelled effect
	removed  *removedFlag
	isBool   bool
}

// lookupFlag finds a flag by its name, as pflag does after
// kube_flag.InitFlags' WordSepNormalizeFunc: "_" reads as "-" (--log_dir
// is --log-dir). ok is false for an unknown flag.
func lookupFlag(name string) (string, flagInfo, bool) {
	name = strings.ReplaceAll(name, "_", "-")
	if def, ok := modelledFlags[name]; ok {
		return name, flagInfo{def: def, modelled: true, isBool: def.kind == kindBool}, true
	}
	if ne, ok := boolNoEffect[name]; ok {
		return name, flagInfo{noEffect: ne, isBool: true}, true
	}
	if ne, ok := valueNoEffect[name]; ok {
		return name, flagInfo{noEffect: ne}, true
	}
	if rm, ok := removedFlags[name]; ok {
		return name, flagInfo{removed: &rm, isBool: rm.isBool}, true
	}
	return name, flagInfo{}, false
}

// ParseFlags parses the Cluster Autoscaler's command-line arguments as a
// user pastes them from the container's args: "--flag=value", "--flag
// value", "--bool-flag" (true) and the single-dash forms; a leading
// program name (".../cluster-autoscaler") is skipped. d and path locate
// the list for messages (path is the field path of the list, e.g.
// "spec.clusterAutoscaler.args"; d may be nil). An unknown flag is an
// error that names it and, when one is spelled alike, suggests it. Flags
// that change nothing in the simulation are accepted with a warning that
// names each once and says why, one warning per reason (in
// Options.Warnings, coded CodeFlagNoEffect or CodeFlagNotModelled).
func ParseFlags(args []string, d *manifest.Document, path string) (Options, error) {
	return parseFlags(args, d, path, func(i int) string { return fmt.Sprintf("%s[%d]", path, i) })
}

// noEffectGroup is the flags of one reason, in the order first given.
type noEffectGroup struct {
	why   *noEffect
	arg   int // the first flag's argument
	names []string
}

// parseFlags is ParseFlags with at giving the field path of each argument
// (the flags of a Deployment come from a container's command and args).
func parseFlags(args []string, d *manifest.Document, path string, at func(i int) string) (Options, error) {
	o := DefaultOptions()
	var errs manifest.Errors
	seen := map[string]int{}
	var noEffect []*noEffectGroup
	fail := func(i int, hint, format string, a ...any) {
		errs = append(errs, errorAt(d, at(i), hint, format, a...))
	}
	for i := 0; i < len(args); i++ {
		arg := strings.TrimSpace(args[i])
		if i == 0 && !strings.HasPrefix(arg, "-") && strings.HasSuffix(arg, "cluster-autoscaler") {
			continue // the program name, as in a container's command
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
			fail(i, "write each flag as --name=value", "%q is not a flag", arg)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
		name, value, hasValue := strings.Cut(name, "=")
		name, info, known := lookupFlag(name)
		if !known {
			hint := "see the flags of cluster-autoscaler --help (FAQ: What are the parameters to CA?)"
			if s := closestName(name, knownFlagNames()); s != "" {
				hint = fmt.Sprintf("did you mean --%s?", s)
			}
			fail(i, hint, "unknown Cluster Autoscaler flag --%s", name)
			continue
		}
		if !hasValue {
			switch {
			case info.isBool:
				value = "true"
			case i+1 < len(args) && !strings.HasPrefix(strings.TrimSpace(args[i+1]), "-"):
				i++
				value = strings.TrimSpace(args[i])
			default:
				fail(i, fmt.Sprintf("write --%s=<value>", name), "flag --%s needs a value", name)
				continue
			}
		}
		if !info.modelled {
			if info.isBool {
				if _, err := strconv.ParseBool(value); err != nil {
					fail(i, "use true or false", "--%s: cannot parse %q as a boolean", name, value)
					continue
				}
			}
			if info.removed != nil {
				w := errorAt(d, at(i), "remove it", "--%s is not a flag of Cluster Autoscaler 1.37, which stops at startup on it as an unknown flag (%s); the simulation ignores it",
					name, info.removed.note)
				w.Code = CodeRemovedFlag
				o.Warnings = append(o.Warnings, w)
				continue
			}
			if name == "enable-dynamic-resource-allocation" && value != "" {
				if b, _ := strconv.ParseBool(value); !b {
					// flags.go Options: "--enable-dynamic-resource-allocation
					// flag must be true".
					fail(i, "remove it: the flag is locked to true", "--enable-dynamic-resource-allocation=false: Cluster Autoscaler 1.37 refuses it and exits at startup")
					continue
				}
			}
			if name == "predicate-parallelism" {
				if n, err := strconv.Atoi(value); err != nil || n < 1 {
					fail(i, "use a whole number of at least 1 (the default is 4)", "--predicate-parallelism %q: Cluster Autoscaler 1.37 refuses it and exits at startup", value)
					continue
				}
			}
			var grp *noEffectGroup
			for _, g := range noEffect {
				if g.why == info.noEffect {
					grp = g
				}
			}
			if grp == nil {
				grp = &noEffectGroup{why: info.noEffect, arg: i}
				noEffect = append(noEffect, grp)
			}
			if !slices.Contains(grp.names, "--"+name) {
				grp.names = append(grp.names, "--"+name)
			}
			continue
		}
		if prev, ok := seen[name]; ok && !info.def.list {
			o.Warnings = append(o.Warnings, errorAt(d, at(i), "", "--%s is also given at %s: the last value wins", name, at(prev)))
		}
		seen[name] = i
		if err := info.def.set(&o, value); err != nil {
			fail(i, "", "--%s: %v", name, err)
			continue
		}
		if name == "nodes" {
			o.Nodes[len(o.Nodes)-1].Arg = i
		}
		if info.def.note != "" {
			o.Warnings = append(o.Warnings, errorAt(d, at(i), "", "--%s: %s", name, info.def.note))
		}
		if name == "expander" {
			for _, e := range o.Expanders {
				if e == ExpanderPrice {
					w := errorAt(d, at(i), PriceExpanderFix,
						"--expander=price: %s; the simulation prices nodes from the EC2 catalogue", PriceExpanderExits)
					w.Code = CodePriceExpanderExits
					o.Warnings = append(o.Warnings, w)
				}
			}
		}
		if name == "max-empty-bulk-delete" {
			w := errorAt(d, at(i), "write --max-scale-down-parallelism="+value+" instead",
				"--max-empty-bulk-delete %s; --max-scale-down-parallelism (default %d) replaced it and bounds the deletion of empty and drained nodes alike (the simulation reads this value as --max-scale-down-parallelism unless that is given, as 1.28 to 1.32 did)",
				RemovedFlag, DefaultMaxScaleDownParallelism)
			w.Code = CodeRemovedFlag
			o.Warnings = append(o.Warnings, w)
		}
	}
	if _, given := seen["max-scale-down-parallelism"]; o.emptyBulkDelete > 0 && !given {
		o.MaxScaleDownParallelism = o.emptyBulkDelete
	}
	if _, given := seen["salvo-scale-up-budget"]; given && !o.SalvoScaleUp {
		w := errorAt(d, at(seen["salvo-scale-up-budget"]), "add --salvo-scale-up",
			"--salvo-scale-up-budget has no effect without --salvo-scale-up (one scale-up per loop)")
		w.Code = CodeFlagNotModelled
		o.Warnings = append(o.Warnings, w)
	}
	for _, g := range noEffect {
		w := errorAt(d, at(g.arg), "", "%s: no effect in the simulation: %s", strings.Join(g.names, ", "), g.why.Reason)
		w.Code = g.why.Code
		o.Warnings = append(o.Warnings, w)
	}
	if len(errs) > 0 {
		return o, errs.Err()
	}
	if o.MaxNodeGroupBackoffDuration < o.InitialNodeGroupBackoffDuration {
		o.Warnings = append(o.Warnings, errorAt(d, path, "", "--max-node-group-backoff-duration (%s) is below --initial-node-group-backoff-duration (%s): every back-off lasts the maximum",
			o.MaxNodeGroupBackoffDuration, o.InitialNodeGroupBackoffDuration))
	}
	if o.ScanInterval <= 0 {
		return o, manifest.Errors{errorAt(d, path, "the upstream default is 10s", "--scan-interval must be positive")}.Err()
	}
	if o.ScanInterval < MinScanInterval {
		// A loop every nanosecond of simulated time would never let the
		// run end.
		return o, manifest.Errors{errorAt(d, path, "use at least 1s; the upstream default is 10s", "--scan-interval %s is shorter than %s", o.ScanInterval, MinScanInterval)}.Err()
	}
	return o, nil
}

// parseExpanders checks an --expander chain as the expander factory does
// (cluster-autoscaler/expander/factory/expander_factory.go): known names,
// each at most once, nothing after random (a strategy that always returns
// one option).
func parseExpanders(v string) ([]string, error) {
	if v == "" {
		return nil, fmt.Errorf("needs at least one expander, e.g. least-waste")
	}
	var chain []string
	seen := map[string]bool{}
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		known := false
		for _, n := range expanderNames {
			known = known || n == name
		}
		switch {
		case !known:
			hint := ""
			if s := closestName(name, expanderNames); s != "" {
				hint = fmt.Sprintf("; did you mean %s?", s)
			}
			return nil, fmt.Errorf("unknown expander %q (known: random, most-pods, least-waste, least-nodes, price, priority)%s", name, hint)
		case name == expanderGRPC:
			return nil, fmt.Errorf("the grpc expander calls an external plugin the simulation cannot run; use a built-in expander")
		case seen[name]:
			return nil, fmt.Errorf("expander %s is given twice; each expander may appear once", name)
		case len(chain) > 0 && chain[len(chain)-1] == ExpanderRandom:
			return nil, fmt.Errorf("expander %s comes after random, which always returns one option, so it would never be used", name)
		}
		seen[name] = true
		chain = append(chain, name)
	}
	return chain, nil
}

// errorAt makes an error at path in d; with d nil it carries the path only.
func errorAt(d *manifest.Document, path, hint, format string, a ...any) *manifest.Error {
	if d == nil {
		return &manifest.Error{Path: path, Msg: fmt.Sprintf(format, a...), Hint: hint}
	}
	return d.Errorf(path, hint, format, a...)
}

// ModelledArgs keeps, of a Cluster Autoscaler's arguments, the flags the
// simulation reads (those [ParseFlags] acts on), each as --name=value (or
// --name for a boolean given alone), in their order; dropped names the
// others: flags with no effect here and unknown ones (by name: their
// values may hold anything, a token or a password), and "(not a flag)"
// for each argument that is none. It reads the arguments exactly as
// ParseFlags does ("--flag value" takes the next argument as the value of
// a flag that needs one), so ParseFlags gives the same Options for kept as
// for args, but for the warnings about dropped flags. sim import writes
// the Cluster Autoscaler's Deployment with these flags only.
func ModelledArgs(args []string) (kept, dropped []string) {
	for i := 0; i < len(args); i++ {
		arg := strings.TrimSpace(args[i])
		if i == 0 && !strings.HasPrefix(arg, "-") && strings.HasSuffix(arg, "cluster-autoscaler") {
			continue // the program name
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
			dropped = append(dropped, "(not a flag)")
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
		name, value, hasValue := strings.Cut(name, "=")
		name, info, known := lookupFlag(name)
		if !known {
			dropped = append(dropped, "--"+name)
			continue
		}
		if !hasValue && !info.isBool && i+1 < len(args) && !strings.HasPrefix(strings.TrimSpace(args[i+1]), "-") {
			i++
			value, hasValue = strings.TrimSpace(args[i]), true
		}
		switch {
		case !info.modelled:
			dropped = append(dropped, "--"+name)
		case hasValue:
			kept = append(kept, "--"+name+"="+value)
		default:
			kept = append(kept, "--"+name) // a boolean, or a flag without its value (ParseFlags says so)
		}
	}
	return kept, dropped
}
