package config

import (
	"math"
	"time"
)

// Defaults of the ProvisioningRequest flags (cluster-autoscaler
// pkg/config/flags/flags.go).
const (
	DefaultProvReqInitialBackoff     = time.Minute      // --provisioning-request-initial-backoff-time
	DefaultProvReqMaxBackoff         = 10 * time.Minute // --provisioning-request-max-backoff-time
	DefaultCheckCapacityMaxBatchSize = 10               // --check-capacity-provisioning-request-max-batch-size
	DefaultCheckCapacityBatchTimebox = 10 * time.Second // --check-capacity-provisioning-request-batch-timebox
)

// ProvReqOptions are the flags of the Cluster Autoscaler's
// ProvisioningRequest support.
type ProvReqOptions struct {
	// Enabled is --enable-provisioning-requests (default false): without
	// it the Cluster Autoscaler ignores ProvisioningRequests and the pods
	// that consume them are scaled up for like any other.
	Enabled bool
	// InitialBackoff and MaxBackoff: a request found Provisioned=False is
	// retried InitialBackoff after it, then after twice as long each
	// time, at most MaxBackoff (processors/provreq/injector.go).
	InitialBackoff, MaxBackoff time.Duration
	// BatchProcessing (--check-capacity-batch-processing) checks up to
	// MaxBatchSize check-capacity requests in one loop instead of one;
	// BatchTimebox is the wall-clock bound of such a batch, not modelled
	// (a simulated check takes no time).
	BatchProcessing bool
	MaxBatchSize    int
	BatchTimebox    time.Duration
	// ProcessorInstance is --check-capacity-processor-instance: only
	// check-capacity requests whose processorInstance parameter names it
	// are processed, and no best-effort-atomic ones.
	ProcessorInstance string
}

func defaultProvReqOptions() ProvReqOptions {
	return ProvReqOptions{InitialBackoff: DefaultProvReqInitialBackoff, MaxBackoff: DefaultProvReqMaxBackoff,
		MaxBatchSize: DefaultCheckCapacityMaxBatchSize, BatchTimebox: DefaultCheckCapacityBatchTimebox}
}

// provReqFlags join modelledFlags (init).
var provReqFlags = map[string]flagDef{
	"enable-provisioning-requests":              boolFlag(func(o *Options) *bool { return &o.ProvReq.Enabled }),
	"provisioning-request-initial-backoff-time": durationFlag(func(o *Options) *time.Duration { return &o.ProvReq.InitialBackoff }),
	"provisioning-request-max-backoff-time":     durationFlag(func(o *Options) *time.Duration { return &o.ProvReq.MaxBackoff }),
	"check-capacity-batch-processing":           boolFlag(func(o *Options) *bool { return &o.ProvReq.BatchProcessing }),
	"check-capacity-provisioning-request-max-batch-size": intFlag(1, math.MaxInt32, func(o *Options, n int64) {
		o.ProvReq.MaxBatchSize = int(n)
	}),
	"check-capacity-provisioning-request-batch-timebox": {kind: kindDuration,
		set:  durationFlag(func(o *Options) *time.Duration { return &o.ProvReq.BatchTimebox }).set,
		note: "a batch's wall-clock time is not modelled (a simulated capacity check takes no time), so this bound never cuts a batch short"},
	"check-capacity-processor-instance": {kind: kindString, set: func(o *Options, v string) error {
		o.ProvReq.ProcessorInstance = v
		return nil
	}},
}

func init() {
	for name, def := range provReqFlags {
		modelledFlags[name] = def
	}
}
