package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Defaults of the modelled flags, as the Cluster Autoscaler 1.3x documents
// them (cluster-autoscaler/FAQ.md "What are the parameters to CA?", the
// table generated from config/flags/flags.go); docs/models.md "Cluster
// Autoscaler" lists them under "Defaults and sources".
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
	ScaleDownDelayAfterAdd           time.Duration
	ScaleDownDelayAfterDelete        time.Duration
	ScaleDownDelayAfterFailure       time.Duration
	// UnremovableNodeRecheckTimeout: a node the removal simulation found
	// unremovable is not simulated again until then (planner.go,
	// unremovable.Nodes.AddTimeout).
	UnremovableNodeRecheckTimeout time.Duration
	NewPodScaleUpDelay            time.Duration
	BalanceSimilarNodeGroups      bool
	BalancingIgnoreLabels         []string
	BalancingLabels               []string
	ExpendablePodsPriorityCutoff  int32
	MaxNodesPerScaleUp            int
	MaxNodesTotal                 int // 0 = no limit
	// CoresTotal and MemoryTotalGiB are the cluster-wide [min, max] of
	// --cores-total and --memory-total (memory in GiB, as the flag).
	CoresTotal                      [2]int64
	MemoryTotalGiB                  [2]int64
	InitialNodeGroupBackoffDuration time.Duration
	MaxNodeGroupBackoffDuration     time.Duration
	NodeGroupBackoffResetTimeout    time.Duration
	SkipNodesWithLocalStorage       bool
	SkipNodesWithSystemPods         bool
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
	// Nodes are the --nodes flags; AutoDiscovery the tag sets of the
	// --node-group-auto-discovery=asg:tag=... flags (a value "" means any
	// value). With neither, every node group is autoscaled (see
	// [CrossCheck]).
	Nodes         []NodesSpec
	AutoDiscovery []map[string]string

	UnreadyOptions

	// Warnings are accepted flags that may not do what their author
	// expects.
	Warnings []*manifest.Error

	// emptyBulkDelete is the removed --max-empty-bulk-delete (0: not
	// given), read as --max-scale-down-parallelism when that is not given.
	emptyBulkDelete int
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
		ScanInterval:                       DefaultScanInterval,
		Expanders:                          []string{DefaultExpander},
		MaxNodeProvisionTime:               DefaultMaxNodeProvisionTime,
		ScaleDownEnabled:                   true,
		ScaleDownUtilizationThreshold:      DefaultScaleDownUtilizationThreshold,
		ScaleDownGPUUtilizationThreshold:   DefaultScaleDownGPUUtilizationThreshold,
		ScaleDownUnneededTime:              DefaultScaleDownUnneededTime,
		ScaleDownDelayAfterAdd:             DefaultScaleDownDelayAfterAdd,
		ScaleDownDelayAfterDelete:          DefaultScaleDownDelayAfterDelete,
		ScaleDownDelayAfterFailure:         DefaultScaleDownDelayAfterFailure,
		UnremovableNodeRecheckTimeout:      DefaultUnremovableNodeRecheckTimeout,
		NewPodScaleUpDelay:                 DefaultNewPodScaleUpDelay,
		ExpendablePodsPriorityCutoff:       DefaultExpendablePodsPriorityCutoff,
		MaxNodesPerScaleUp:                 DefaultMaxNodesPerScaleUp,
		MaxNodesTotal:                      DefaultMaxNodesTotal,
		CoresTotal:                         [2]int64{0, DefaultCoresTotalMax},
		MemoryTotalGiB:                     [2]int64{0, DefaultMemoryTotalMaxGiB},
		InitialNodeGroupBackoffDuration:    DefaultInitialNodeGroupBackoffDuration,
		MaxNodeGroupBackoffDuration:        DefaultMaxNodeGroupBackoffDuration,
		NodeGroupBackoffResetTimeout:       DefaultNodeGroupBackoffResetTimeout,
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
		note: "pod volumes are not modelled, so no pod counts as using local storage (emptyDir, hostPath): this flag changes nothing"},
	"max-graceful-termination-sec": intFlag(0, math.MaxInt32, func(o *Options, n int64) {
		o.MaxGracefulTermination = time.Duration(n) * time.Second
	}),
	"max-pod-eviction-time":       durationFlag(func(o *Options) *time.Duration { return &o.MaxPodEvictionTime }),
	"max-scale-down-parallelism":  intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.MaxScaleDownParallelism = int(n) }),
	"max-empty-bulk-delete":       intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.emptyBulkDelete = int(n) }),
	"max-drain-parallelism":       intFlag(1, math.MaxInt32, func(o *Options, n int64) { o.MaxDrainParallelism = int(n) }),
	"scale-up-from-zero":          boolFlag(func(o *Options) *bool { return &o.ScaleUpFromZero }),
	"enforce-node-group-min-size": boolFlag(func(o *Options) *bool { return &o.EnforceNodeGroupMinSize }),
	"cordon-node-before-terminating": boolFlag(func(o *Options) *bool {
		return &o.CordonNodeBeforeTerminating
	}),
	"frequent-loops-enabled": boolFlag(func(o *Options) *bool { return &o.FrequentLoops }),
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

// boolFlags without a modelled effect: they take no value when given alone.
var boolNoEffect = map[string]bool{
	"add-dir-header": true, "alsologtostderr": true, "async-node-groups": true, "aws-use-static-instance-list": true,
	"bulk-mig-instances-listing-enabled": true, "capacity-buffer-controller-enabled": true, "capacity-buffer-pod-dry-run-enabled": true,
	"capacity-buffer-pod-injection-enabled": true, "capacity-quotas-enabled": true, "check-capacity-batch-processing": true,
	"clusterapi-cloud-config-authoritative": true, "daemonset-eviction-for-empty-nodes": true, "daemonset-eviction-for-occupied-nodes": true,
	"debugging-snapshot-enabled": true, "dynamic-node-delete-delay-after-taint-enabled": true, "emit-per-nodegroup-metrics": true,
	"enable-csi-node-aware-scheduling": true, "enable-dynamic-resource-allocation": true, "enable-proactive-scaleup": true,
	"enable-provisioning-requests": true, "fastpath-binpacking-enabled": true, "force-delete-failed-nodes": true,
	"force-delete-unregistered-nodes": true, "force-ds": true, "ignore-daemonsets-utilization": true, "ignore-mirror-pods-utilization": true,
	"leader-elect": true, "log-json-split-stream": true, "log-text-split-stream": true, "logtostderr": true,
	"max-node-skip-eval-time-tracker-enabled": true, "node-removal-latency-tracking-enabled": true, "one-output": true,
	"parallel-scale-up": true, "profiling": true, "record-duplicated-events": true, "regional": true,
	"scale-down-delay-type-local": true,
	// Every pod's controller here is a built-in one (Deployment, StatefulSet,
	// Job, DaemonSet), so custom controllers never come up.
	"skip-nodes-with-custom-controller-pods": true, "scale-from-unschedulable": true,
	"skip-headers": true, "skip-log-headers": true, "write-status-configmap": true, "parallel-drain": true,
}

// valueNoEffect are the other flags of the Cluster Autoscaler (1.3x FAQ
// table) that change nothing in the simulation: logging, leader election,
// API clients, metrics, other clouds, features the simulation does not have.
var valueNoEffect = map[string]bool{
	"address": true, "allowed-scheduler-names": true, "bypassed-scheduler-names": true,
	"check-capacity-processor-instance": true, "check-capacity-provisioning-request-batch-timebox": true,
	"check-capacity-provisioning-request-max-batch-size": true, "cloud-config": true, "cloud-provider-gce-l7lb-src-cidrs": true,
	"cloud-provider-gce-lb-src-cidrs": true, "cluster-name": true, "cluster-snapshot-parallelism": true, "drain-priority-config": true,
	"feature-gates": true, "gce-concurrent-refreshes": true, "gce-mig-instances-min-refresh-wait-time": true, "gpu-total": true,
	"grpc-expander-cert": true, "grpc-expander-url": true, "ignore-taint": true, "kube-api-content-type": true, "kube-client-burst": true,
	"kube-client-qps": true, "kubeconfig": true, "kubernetes": true, "leader-elect-lease-duration": true, "leader-elect-renew-deadline": true,
	"leader-elect-resource-lock": true, "leader-elect-resource-name": true, "leader-elect-resource-namespace": true,
	"leader-elect-retry-period": true, "log-backtrace-at": true, "log-dir": true, "log-file": true, "log-file-max-size": true,
	"log-flush-frequency": true, "log-json-info-buffer-size": true, "log-text-info-buffer-size": true, "logging-format": true,
	"max-allocatable-difference-ratio": true, "max-binpacking-time": true, "max-bulk-soft-taint-count": true,
	"max-bulk-soft-taint-time": true, "max-failing-time": true, "max-free-difference-ratio": true, "max-inactivity": true,
	"max-nodegroup-binpacking-duration": true, "memory-difference-ratio": true, "min-replica-count": true, "namespace": true, "node-delete-delay-after-taint": true,
	"node-deletion-batcher-interval": true, "node-deletion-candidate-ttl": true, "node-deletion-delay-timeout": true,
	"node-info-cache-expire-time": true, "pod-injection-limit": true, "predicate-parallelism": true,
	"provisioning-request-initial-backoff-time": true, "provisioning-request-max-backoff-cache-size": true,
	"provisioning-request-max-backoff-time": true, "scale-down-candidates-pool-min-count": true,
	"scale-down-candidates-pool-ratio": true, "scale-down-non-empty-candidates-count": true, "scale-down-simulation-timeout": true,
	"scheduler-config-file": true, "startup-taint": true, "startup-taint-prefix": true, "status-config-map-name": true,
	"status-taint": true, "stderrthreshold": true, "user-agent": true, "v": true,
	"vmodule": true, "node-autoprovisioning-enabled": true, "max-autoprovisioned-node-group-count": true,
}

// knownFlagNames lists every flag name, for did-you-mean hints.
func knownFlagNames() []string {
	names := make([]string, 0, len(modelledFlags)+len(boolNoEffect)+len(valueNoEffect))
	for n := range modelledFlags {
		names = append(names, n)
	}
	for n := range boolNoEffect {
		names = append(names, n)
	}
	for n := range valueNoEffect {
		names = append(names, n)
	}
	return names
}

// ParseFlags parses the Cluster Autoscaler's command-line arguments as a
// user pastes them from the container's args: "--flag=value", "--flag
// value", "--bool-flag" (true) and the single-dash forms; a leading
// program name (".../cluster-autoscaler") is skipped. d and path locate
// the list for messages (path is the field path of the list, e.g.
// "spec.clusterAutoscaler.args"; d may be nil). An unknown flag is an
// error that names it and, when one is spelled alike, suggests it. Flags
// that change nothing in the simulation are accepted with one warning
// listing them (in Options.Warnings).
func ParseFlags(args []string, d *manifest.Document, path string) (Options, error) {
	return parseFlags(args, d, path, func(i int) string { return fmt.Sprintf("%s[%d]", path, i) })
}

// parseFlags is ParseFlags with at giving the field path of each argument
// (the flags of a Deployment come from a container's command and args).
func parseFlags(args []string, d *manifest.Document, path string, at func(i int) string) (Options, error) {
	o := DefaultOptions()
	var errs manifest.Errors
	seen := map[string]int{}
	var noEffect []string
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
		def, modelled := modelledFlags[name]
		isBool := (modelled && def.kind == kindBool) || boolNoEffect[name]
		known := modelled || boolNoEffect[name] || valueNoEffect[name]
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
			case isBool:
				value = "true"
			case i+1 < len(args) && !strings.HasPrefix(strings.TrimSpace(args[i+1]), "-"):
				i++
				value = strings.TrimSpace(args[i])
			default:
				fail(i, fmt.Sprintf("write --%s=<value>", name), "flag --%s needs a value", name)
				continue
			}
		}
		if !modelled {
			if isBool {
				if _, err := strconv.ParseBool(value); err != nil {
					fail(i, "use true or false", "--%s: cannot parse %q as a boolean", name, value)
					continue
				}
			}
			noEffect = append(noEffect, "--"+name)
			continue
		}
		if prev, ok := seen[name]; ok && !def.list {
			o.Warnings = append(o.Warnings, errorAt(d, at(i), "", "--%s is also given at %s: the last value wins", name, at(prev)))
		}
		seen[name] = i
		if err := def.set(&o, value); err != nil {
			fail(i, "", "--%s: %v", name, err)
			continue
		}
		if name == "nodes" {
			o.Nodes[len(o.Nodes)-1].Arg = i
		}
		if def.note != "" {
			o.Warnings = append(o.Warnings, errorAt(d, at(i), "", "--%s: %s", name, def.note))
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
	if len(noEffect) > 0 {
		o.Warnings = append(o.Warnings, errorAt(d, path, "", "flags with no effect in the simulation are ignored: %s", strings.Join(noEffect, ", ")))
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
		def, modelled := modelledFlags[name]
		isBool := (modelled && def.kind == kindBool) || boolNoEffect[name]
		known := modelled || boolNoEffect[name] || valueNoEffect[name]
		if !known {
			dropped = append(dropped, "--"+name)
			continue
		}
		if !hasValue && !isBool && i+1 < len(args) && !strings.HasPrefix(strings.TrimSpace(args[i+1]), "-") {
			i++
			value, hasValue = strings.TrimSpace(args[i]), true
		}
		switch {
		case !modelled:
			dropped = append(dropped, "--"+name)
		case hasValue:
			kept = append(kept, "--"+name+"="+value)
		default:
			kept = append(kept, "--"+name) // a boolean, or a flag without its value (ParseFlags says so)
		}
	}
	return kept, dropped
}
