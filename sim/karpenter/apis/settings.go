package apis

import (
	"fmt"
	"github.com/clustersim/clustersim/sim/component"
	"math"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Defaults of the Karpenter controller's settings. Sources: KC
// pkg/operator/options/options.go (BATCH_IDLE_DURATION,
// BATCH_MAX_DURATION, FEATURE_GATES, PREFERENCE_POLICY, MIN_VALUES_POLICY),
// KC pkg/controllers/nodeclaim/lifecycle (launch and registration
// timeouts), KC pkg/controllers/disruption (polling period, command
// validation delay, queue retry), KA pkg/cache (unavailable offerings TTL),
// KA pkg/operator/options (INTERRUPTION_QUEUE, VM_MEMORY_OVERHEAD_PERCENT),
// KC pkg/controllers/provisioning (pod requeue), KA pkg/controllers/pricing
// (price refresh). docs/models.md "Karpenter" lists them too, under
// "Defaults and sources".
const (
	DefaultBatchIdleDuration       = time.Second
	DefaultBatchMaxDuration        = 10 * time.Second
	DefaultLaunchTimeout           = 5 * time.Minute
	DefaultRegistrationTimeout     = 15 * time.Minute
	DefaultDisruptionPollInterval  = 10 * time.Second
	DefaultCommandValidationDelay  = 15 * time.Second
	DefaultReplacementTimeout      = 10 * time.Minute // disruption queue minRetryDuration
	DefaultUnavailableOfferingsTTL = 3 * time.Minute
	DefaultPodRequeueInterval      = 10 * time.Second
	DefaultDrainPollInterval       = time.Second // first retry of a refused eviction (backs off to 10s)
	DefaultPriceRefreshInterval    = 12 * time.Hour
	DefaultVMMemoryOverheadPercent = 0.075
	// DefaultConsolidationStateTTL: with no cluster change, consolidation
	// is re-evaluated at least this often (KC state.Cluster.ConsolidationState).
	DefaultConsolidationStateTTL = 5 * time.Minute
	// DefaultMaxInstanceTypes is how many instance types a NodeClaim keeps
	// after scheduling (KC scheduling.MaxInstanceTypes); the launch keeps
	// the cheapest DefaultMaxLaunchInstanceTypes (KA instance.maxInstanceTypes).
	DefaultMaxInstanceTypes       = 600
	DefaultMaxLaunchInstanceTypes = 60
	// DefaultMultiNodeCandidates caps multi-node consolidation's batch.
	DefaultMultiNodeCandidates = 100
	// DefaultSpotToSpotMinTypes is MinInstanceTypesForSpotToSpotConsolidation.
	DefaultSpotToSpotMinTypes = 15
	// DefaultSolverPodsPerSecond is how fast the controller's scheduling
	// simulation runs (pods placed per second of controller time):
	// Karpenter's own scheduling benchmark reports about 1,000-1,300
	// pods/s. A disruption pass takes the time its simulations take.
	DefaultSolverPodsPerSecond = 1000
	// Consolidation gives up after this much computing in one pass and
	// keeps what it found (KC SingleNodeConsolidationTimeoutDuration,
	// MultiNodeConsolidationTimeoutDuration).
	DefaultSingleNodeConsolidationTimeout = 3 * time.Minute
	DefaultMultiNodeConsolidationTimeout  = time.Minute
)

// MinDisruptionPollInterval is the shortest disruptionPollInterval
// accepted: shorter, the passes would outnumber every other event and the
// run would never end.
const MinDisruptionPollInterval = time.Second

// DefaultEpoch is the wall-clock time of simulated time 0 budget
// schedules (cron, UTC) are read on when neither spec.epoch nor
// startTime is set: the house's (component.DefaultEpoch).
var DefaultEpoch = component.DefaultEpoch

// PreferencePolicy is Karpenter's PREFERENCE_POLICY option.
type PreferencePolicy uint8

// Preference policies.
const (
	// PreferencesRespect treats preferences as required at first and
	// relaxes them one at a time (the default).
	PreferencesRespect PreferencePolicy = iota
	// PreferencesIgnore ignores preferred affinities and ScheduleAnyway
	// spread constraints.
	PreferencesIgnore
)

// Settings are the compiled Karpenter controller settings.
type Settings struct {
	BatchIdleDuration time.Duration
	BatchMaxDuration  time.Duration
	// SpotToSpotConsolidation is the SpotToSpotConsolidation feature gate
	// (off by default).
	SpotToSpotConsolidation bool
	// StaticCapacity is the StaticCapacity feature gate (off by default):
	// only with it do static NodePools (spec.replicas) keep nodes.
	StaticCapacity bool
	// NodeOverlay is the NodeOverlay feature gate (off by default): only
	// with it are NodeOverlays applied to the instance types.
	NodeOverlay bool
	// ReservedCapacity is the ReservedCapacity feature gate (on by default
	// since v1.6): only with it are capacity reservations offered.
	ReservedCapacity bool
	// CapacityBuffer is the CapacityBuffer feature gate (off by default):
	// only with it does Karpenter keep the capacity CapacityBuffers ask for.
	CapacityBuffer bool
	// TerminateFirstDrift is the TerminateFirstDrift feature gate (off by
	// default): a drifted node of a static NodePool at its node limit is
	// deleted first, the pool refilled once it is gone.
	TerminateFirstDrift bool
	// NodeRepair is the NodeRepair feature gate (off by default): only
	// with it does the repair method replace unhealthy nodes.
	NodeRepair bool
	// TerminateFirstRepair is the TerminateFirstRepair feature gate (off
	// by default): an unhealthy node of a static NodePool at its node
	// limit is deleted first, the pool refilled once it is gone.
	TerminateFirstRepair bool
	// InterruptionQueue says whether an SQS interruption queue is
	// configured (off by default): only then are spot interruption
	// notices handled (cordon, drain, replace).
	InterruptionQueue bool

	LaunchTimeout           time.Duration
	RegistrationTimeout     time.Duration
	DisruptionPollInterval  time.Duration
	CommandValidationDelay  time.Duration
	ReplacementTimeout      time.Duration
	UnavailableOfferingsTTL time.Duration
	PodRequeueInterval      time.Duration
	DrainPollInterval       time.Duration
	PriceRefreshInterval    time.Duration
	ConsolidationStateTTL   time.Duration

	PreferencePolicy PreferencePolicy
	// MinValuesBestEffort is MIN_VALUES_POLICY=BestEffort (default Strict).
	MinValuesBestEffort bool

	VMMemoryOverheadPercent float64
	MaxInstanceTypes        int
	MaxLaunchInstanceTypes  int
	MultiNodeCandidates     int
	SpotToSpotMinTypes      int

	// SolverPodsPerSecond paces the disruption controller: each pass
	// (and each validation) takes (pods simulated) / SolverPodsPerSecond
	// of virtual time before its decision takes effect and the next pass
	// is scheduled; 0 makes the passes instantaneous.
	SolverPodsPerSecond float64
	// ComputeTime makes a provisioning solve take virtual time (package
	// karpenter's solve-time model): the batch is solved when its time
	// is over, and triggers meanwhile open the next batch then. False
	// (the zero value): solves take no time; scenarios turn it on unless
	// spec.computeTime is false.
	ComputeTime                    bool
	SingleNodeConsolidationTimeout time.Duration
	MultiNodeConsolidationTimeout  time.Duration

	// Epoch is the wall time of simulated time 0 (budget schedules).
	Epoch time.Time
}

// DefaultSettings returns Karpenter's defaults.
func DefaultSettings() Settings {
	return Settings{
		BatchIdleDuration:       DefaultBatchIdleDuration,
		BatchMaxDuration:        DefaultBatchMaxDuration,
		ReservedCapacity:        true,
		LaunchTimeout:           DefaultLaunchTimeout,
		RegistrationTimeout:     DefaultRegistrationTimeout,
		DisruptionPollInterval:  DefaultDisruptionPollInterval,
		CommandValidationDelay:  DefaultCommandValidationDelay,
		ReplacementTimeout:      DefaultReplacementTimeout,
		UnavailableOfferingsTTL: DefaultUnavailableOfferingsTTL,
		PodRequeueInterval:      DefaultPodRequeueInterval,
		DrainPollInterval:       DefaultDrainPollInterval,
		PriceRefreshInterval:    DefaultPriceRefreshInterval,
		ConsolidationStateTTL:   DefaultConsolidationStateTTL,
		VMMemoryOverheadPercent: DefaultVMMemoryOverheadPercent,
		MaxInstanceTypes:        DefaultMaxInstanceTypes,
		MaxLaunchInstanceTypes:  DefaultMaxLaunchInstanceTypes,
		MultiNodeCandidates:     DefaultMultiNodeCandidates,
		SpotToSpotMinTypes:      DefaultSpotToSpotMinTypes,
		SolverPodsPerSecond:     DefaultSolverPodsPerSecond,
		Epoch:                   DefaultEpoch,

		SingleNodeConsolidationTimeout: DefaultSingleNodeConsolidationTimeout,
		MultiNodeConsolidationTimeout:  DefaultMultiNodeConsolidationTimeout,
	}
}

// SettingsSpec is the karpenter section of the Scenario document
// (spec.karpenter) as users write it. Durations use Go syntax ("1s",
// "10m"); every field is optional.
type SettingsSpec struct {
	// BatchIdleDuration closes a provisioning batch after this long without
	// a new pending pod. Default 1s.
	BatchIdleDuration string `json:"batchIdleDuration,omitempty"`
	// BatchMaxDuration closes a batch this long after its first pod.
	// Default 10s.
	BatchMaxDuration string `json:"batchMaxDuration,omitempty"`
	// FeatureGates are Karpenter's FEATURE_GATES.
	FeatureGates *FeatureGatesSpec `json:"featureGates,omitempty"`
	// InterruptionQueue: an SQS interruption queue is configured, so spot
	// interruption notices are handled. Default false.
	InterruptionQueue *bool `json:"interruptionQueue,omitempty"`
	// LaunchTimeout and RegistrationTimeout bound a NodeClaim's launch and
	// its node's registration. Defaults 5m and 15m.
	LaunchTimeout       string `json:"launchTimeout,omitempty"`
	RegistrationTimeout string `json:"registrationTimeout,omitempty"`
	// DisruptionPollInterval is the disruption loop's period. Default 10s.
	DisruptionPollInterval string `json:"disruptionPollInterval,omitempty"`
	// CommandValidationDelay is how long a consolidation decision waits
	// before it is re-validated. Default 15s.
	CommandValidationDelay string `json:"commandValidationDelay,omitempty"`
	// UnavailableOfferingsTTL is how long an offering that failed with
	// insufficient capacity is skipped. Default 3m.
	UnavailableOfferingsTTL string `json:"unavailableOfferingsTTL,omitempty"`
	// PreferencePolicy is Respect (default) or Ignore.
	PreferencePolicy string `json:"preferencePolicy,omitempty"`
	// MinValuesPolicy is Strict (default) or BestEffort.
	MinValuesPolicy string `json:"minValuesPolicy,omitempty"`
	// VMMemoryOverheadPercent is the share of instance memory lost to the
	// hypervisor. Default 0.075.
	VMMemoryOverheadPercent *float64 `json:"vmMemoryOverheadPercent,omitempty"`
	// StartTime is the wall-clock time (RFC 3339) of simulated time 0,
	// used for budget schedules. Default 2026-01-05T00:00:00Z (a Monday).
	StartTime string `json:"startTime,omitempty"`
	// SolverPodsPerSecond is the controller's scheduling-simulation speed
	// that paces disruption passes. Default 1000; 0 makes them instant.
	SolverPodsPerSecond *float64 `json:"solverPodsPerSecond,omitempty"`
	// AutoMode turns EKS Auto Mode on: AWS runs Karpenter for the cluster
	// and creates the built-in NodePools listed (general-purpose,
	// system) with their default NodeClass. An eksctl ClusterConfig's
	// autoModeConfig says the same; this field wins over it.
	AutoMode *AutoModeSpec `json:"autoMode,omitempty"`
	// Scale changes a static NodePool's replicas at a time, as
	// `kubectl scale nodepool <name> --replicas=<n>` would.
	Scale []ScaleSpec `json:"scale,omitempty"`
}

// AutoModeSpec is spec.karpenter.autoMode, as the EKS API's
// computeConfig (and eksctl's autoModeConfig) write it.
type AutoModeSpec struct {
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
	// NodePools are the built-in NodePools to enable; unset: both
	// (general-purpose and system), [] none.
	NodePools *[]string `json:"nodePools,omitempty"`
}

// ScaleSpec is one `kubectl scale nodepool` of spec.karpenter.scale.
type ScaleSpec struct {
	// NodePool names a static NodePool (one with spec.replicas).
	NodePool string `json:"nodePool"`
	// At is when, from the start ("2h").
	At string `json:"at"`
	// Replicas is the new count, 0 or more.
	Replicas *int64 `json:"replicas"`
}

// Scale is a compiled ScaleSpec.
type Scale struct {
	NodePool string
	At       time.Duration
	Replicas int64
}

// CompileScale reads spec.karpenter.scale against the compiled NodePools:
// each entry names a static pool, a time and a count.
func (s *SettingsSpec) CompileScale(d *manifest.Document, path string, pools []NodePool) ([]Scale, error) {
	if s == nil {
		return nil, nil
	}
	var errs manifest.Errors
	var out []Scale
	for i, e := range s.Scale {
		at := fmt.Sprintf("%s.scale[%d]", path, i)
		k := slices.IndexFunc(pools, func(p NodePool) bool { return p.Name == e.NodePool })
		switch {
		case e.NodePool == "":
			errs = append(errs, d.Errorf(at+".nodePool", "name the static NodePool to scale", "missing nodePool"))
			continue
		case k < 0:
			errs = append(errs, d.Errorf(at+".nodePool", "name one of the scenario's NodePools", "no NodePool %q", e.NodePool))
			continue
		case !pools[k].Static:
			errs = append(errs, d.Errorf(at+".nodePool", "only a NodePool with spec.replicas scales (the API refuses to turn a dynamic NodePool static)",
				"NodePool %q is not static (%s:%d has no spec.replicas)", e.NodePool, pools[k].File, pools[k].Line))
			continue
		}
		v, err := duration.Parse(e.At)
		if err == nil && v < 0 {
			err = fmt.Errorf("must not be negative")
		}
		if err != nil {
			errs = append(errs, d.Errorf(at+".at", "write a time from the start like 30m or 2h", "%q: %v", e.At, err))
			continue
		}
		if e.Replicas == nil || *e.Replicas < 0 {
			errs = append(errs, d.Errorf(at+".replicas", "give the new number of nodes, 0 or more", "replicas must be given and not negative"))
			continue
		}
		out = append(out, Scale{NodePool: e.NodePool, At: duration.Cap(v), Replicas: *e.Replicas})
	}
	return out, errs.Err()
}

// FeatureGatesSpec are Karpenter's feature gates that change behaviour
// here.
type FeatureGatesSpec struct {
	// SpotToSpotConsolidation lets single-node consolidation replace a
	// spot node with a cheaper spot node. Default false.
	SpotToSpotConsolidation *bool `json:"spotToSpotConsolidation,omitempty"`
	// StaticCapacity makes NodePools with spec.replicas keep that many
	// nodes (alpha since v1.8). Default false: such a pool then keeps
	// none and launches nothing.
	StaticCapacity *bool `json:"staticCapacity,omitempty"`
	// NodeOverlay applies karpenter.sh/v1alpha1 NodeOverlays (alpha since
	// v1.7). Default false: overlays change nothing.
	NodeOverlay *bool `json:"nodeOverlay,omitempty"`
	// CapacityBuffer keeps the spare capacity of autoscaling.x-k8s.io
	// CapacityBuffers (alpha since v1.14). Default false: buffers keep
	// nothing.
	CapacityBuffer *bool `json:"capacityBuffer,omitempty"`
	// TerminateFirstDrift deletes a drifted node before its replacement
	// when none can be staged (alpha since v1.15; here: a static NodePool
	// at its node limit). Default false: such nodes stay.
	TerminateFirstDrift *bool `json:"terminateFirstDrift,omitempty"`
	// ReservedCapacity offers the capacity reservations EC2NodeClasses
	// select (beta, on by default since v1.6). Default true.
	ReservedCapacity *bool `json:"reservedCapacity,omitempty"`
	// NodeRepair replaces nodes whose conditions stay unhealthy past the
	// cloud provider's toleration (alpha since v1.1; a disruption method
	// in v1.15). Default false: unhealthy nodes stay.
	NodeRepair *bool `json:"nodeRepair,omitempty"`
	// TerminateFirstRepair deletes an unhealthy node before its
	// replacement when none can be staged (alpha since v1.15; here: a
	// static NodePool at its node limit). Default false: such nodes stay.
	TerminateFirstRepair *bool `json:"terminateFirstRepair,omitempty"`
}

// anyUnset reports whether some gate is left unset (nil: all are).
func (g *FeatureGatesSpec) anyUnset() bool {
	return g == nil || g.SpotToSpotConsolidation == nil || g.StaticCapacity == nil || g.NodeOverlay == nil || g.CapacityBuffer == nil || g.TerminateFirstDrift == nil ||
		g.ReservedCapacity == nil || g.NodeRepair == nil || g.TerminateFirstRepair == nil
}

// merge fills the gates g leaves unset with under's.
func (g *FeatureGatesSpec) merge(under *FeatureGatesSpec) *FeatureGatesSpec {
	if under == nil {
		return g
	}
	out := FeatureGatesSpec{}
	if g != nil {
		out = *g
	}
	if out.SpotToSpotConsolidation == nil {
		out.SpotToSpotConsolidation = under.SpotToSpotConsolidation
	}
	if out.StaticCapacity == nil {
		out.StaticCapacity = under.StaticCapacity
	}
	if out.NodeOverlay == nil {
		out.NodeOverlay = under.NodeOverlay
	}
	if out.TerminateFirstDrift == nil {
		out.TerminateFirstDrift = under.TerminateFirstDrift
	}
	if out.ReservedCapacity == nil {
		out.ReservedCapacity = under.ReservedCapacity
	}
	if out.NodeRepair == nil {
		out.NodeRepair = under.NodeRepair
	}
	if out.TerminateFirstRepair == nil {
		out.TerminateFirstRepair = under.TerminateFirstRepair
	}
	if out.CapacityBuffer == nil {
		out.CapacityBuffer = under.CapacityBuffer
	}
	return &out
}

// zeroRule says whether a setting's duration may be 0.
type zeroRule bool

const (
	zeroAllowed  zeroRule = true
	zeroRejected zeroRule = false
)

// Compile validates the settings; path is where the section sits in the
// document (e.g. "spec.karpenter") so errors point at the right line. A
// nil receiver gives the defaults.
func (s *SettingsSpec) Compile(d *manifest.Document, path string) (Settings, error) {
	out := DefaultSettings()
	if s == nil {
		return out, nil
	}
	var errs manifest.Errors
	dur := func(field, text string, dst *time.Duration, allowZero zeroRule) {
		if text == "" {
			return
		}
		v, err := duration.Parse(text)
		if err == nil && v == 0 && !allowZero {
			err = fmt.Errorf("must be more than 0")
		}
		if err == nil && field == "disruptionPollInterval" && v < MinDisruptionPollInterval {
			// A pass every nanosecond of simulated time would never let
			// the run end; upstream's loop polls every 10s.
			errs = append(errs, d.Errorf(path+"."+field, "use at least 1s; upstream Karpenter polls every 10s",
				"%s is shorter than %s", text, MinDisruptionPollInterval))
			return
		}
		if err != nil {
			errs = append(errs, d.Errorf(path+"."+field, "write a duration like 1s, 90s or 10m", "%v", err))
			return
		}
		*dst = duration.Cap(v)
	}
	dur("batchIdleDuration", s.BatchIdleDuration, &out.BatchIdleDuration, zeroRejected)
	dur("batchMaxDuration", s.BatchMaxDuration, &out.BatchMaxDuration, zeroRejected)
	dur("launchTimeout", s.LaunchTimeout, &out.LaunchTimeout, zeroRejected)
	dur("registrationTimeout", s.RegistrationTimeout, &out.RegistrationTimeout, zeroRejected)
	dur("disruptionPollInterval", s.DisruptionPollInterval, &out.DisruptionPollInterval, zeroRejected)
	dur("commandValidationDelay", s.CommandValidationDelay, &out.CommandValidationDelay, zeroAllowed)
	dur("unavailableOfferingsTTL", s.UnavailableOfferingsTTL, &out.UnavailableOfferingsTTL, zeroAllowed)
	if s.BatchIdleDuration != "" && s.BatchMaxDuration != "" && out.BatchIdleDuration > out.BatchMaxDuration {
		errs = append(errs, d.Errorf(path+".batchIdleDuration", "keep batchIdleDuration at most batchMaxDuration",
			"%s is longer than batchMaxDuration %s", out.BatchIdleDuration, out.BatchMaxDuration))
	}
	if s.FeatureGates != nil && s.FeatureGates.SpotToSpotConsolidation != nil {
		out.SpotToSpotConsolidation = *s.FeatureGates.SpotToSpotConsolidation
	}
	if s.FeatureGates != nil && s.FeatureGates.StaticCapacity != nil {
		out.StaticCapacity = *s.FeatureGates.StaticCapacity
	}
	if s.FeatureGates != nil && s.FeatureGates.NodeOverlay != nil {
		out.NodeOverlay = *s.FeatureGates.NodeOverlay
	}
	if s.FeatureGates != nil && s.FeatureGates.TerminateFirstDrift != nil {
		out.TerminateFirstDrift = *s.FeatureGates.TerminateFirstDrift
	}
	if s.FeatureGates != nil && s.FeatureGates.ReservedCapacity != nil {
		out.ReservedCapacity = *s.FeatureGates.ReservedCapacity
	}
	if s.FeatureGates != nil && s.FeatureGates.NodeRepair != nil {
		out.NodeRepair = *s.FeatureGates.NodeRepair
	}
	if s.FeatureGates != nil && s.FeatureGates.TerminateFirstRepair != nil {
		out.TerminateFirstRepair = *s.FeatureGates.TerminateFirstRepair
	}
	if s.FeatureGates != nil && s.FeatureGates.CapacityBuffer != nil {
		out.CapacityBuffer = *s.FeatureGates.CapacityBuffer
	}
	if s.InterruptionQueue != nil {
		out.InterruptionQueue = *s.InterruptionQueue
	}
	// other reads a policy of two values, def (also when unset) and alt,
	// and reports whether it is alt.
	other := func(field, value, what, def, alt string) bool {
		switch value {
		case "", def:
			return false
		case alt:
			return true
		}
		errs = append(errs, d.Errorf(path+"."+field, "use "+def+" or "+alt, "unknown %s %q", what, value))
		return false
	}
	if other("preferencePolicy", s.PreferencePolicy, "preference policy", "Respect", "Ignore") {
		out.PreferencePolicy = PreferencesIgnore
	}
	if other("minValuesPolicy", s.MinValuesPolicy, "minValues policy", "Strict", "BestEffort") {
		out.MinValuesBestEffort = true
	}
	if p := s.VMMemoryOverheadPercent; p != nil {
		if *p < 0 || *p >= 1 {
			errs = append(errs, d.Errorf(path+".vmMemoryOverheadPercent", "give a fraction such as 0.075 (7.5%)", "%v is not in [0, 1)", *p))
		} else {
			out.VMMemoryOverheadPercent = *p
		}
	}
	if p := s.SolverPodsPerSecond; p != nil {
		if *p < 0 || math.IsNaN(*p) || math.IsInf(*p, 0) {
			errs = append(errs, d.Errorf(path+".solverPodsPerSecond", "give a rate such as 1000, or 0 for instantaneous passes", "%v is not a non-negative number", *p))
		} else {
			out.SolverPodsPerSecond = *p
		}
	}
	if s.StartTime != "" {
		t, err := time.Parse(time.RFC3339, s.StartTime)
		if err != nil {
			errs = append(errs, d.Errorf(path+".startTime", "write an RFC 3339 time such as 2026-01-05T00:00:00Z", "%q is not a time", s.StartTime))
		} else {
			out.Epoch = t.UTC()
		}
	}
	if len(errs) > 0 {
		return out, errs.Err()
	}
	return out, nil
}
