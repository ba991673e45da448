package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/spotmarket"
)

// marketSpec is spec.market: the EC2 side of the scenario.
type marketSpec struct {
	// Model: stochastic (default), replay (with Replay) or off.
	Model string `json:"model,omitempty"`
	// Replay is a trace file (CSV or JSONL), relative to the scenario.
	Replay           string   `json:"replay,omitempty"`
	HazardMultiplier *float64 `json:"hazardMultiplier,omitempty"`
	Shocks           *struct {
		RateScale *float64 `json:"rateScale,omitempty"`
		Share     *float64 `json:"share,omitempty"`
	} `json:"shocks,omitempty"`
	Regimes *struct {
		DurationScale      *float64 `json:"durationScale,omitempty"`
		ConstrainedFailure *float64 `json:"constrainedFailure,omitempty"`
	} `json:"regimes,omitempty"`
	SpotVCPUQuota *int       `json:"spotVCPUQuota,omitempty"`
	Depth         *depthSpec `json:"depth,omitempty"`
	LaunchLatency *struct {
		Fleet *durationDist `json:"fleet,omitempty"`
		ASG   *durationDist `json:"asg,omitempty"`
	} `json:"launchLatency,omitempty"`
	Join   *joinSpec     `json:"join,omitempty"`
	Events []marketEvent `json:"events,omitempty"`
	// Reservations are the account's capacity reservations
	// (reservations.go).
	Reservations []reservationSpec `json:"reservations,omitempty"`
}

// depthSpec is spec.market.depth: how many instances a pool gives at once
// (spotmarket.DepthConfig; every field optional, defaults there).
type depthSpec struct {
	Unlimited      *bool    `json:"unlimited,omitempty"`
	Spot           *float64 `json:"spot,omitempty"`
	OnDemand       *float64 `json:"onDemand,omitempty"`
	SizeExponent   *float64 `json:"sizeExponent,omitempty"`
	Spread         *float64 `json:"spread,omitempty"`
	Constrained    *float64 `json:"constrained,omitempty"`
	Refill         string   `json:"refill,omitempty"`
	Accelerated    *float64 `json:"accelerated,omitempty"`
	NewAccelerated *float64 `json:"newAccelerated,omitempty"`
	Metal          *float64 `json:"metal,omitempty"`
}

// apply sets the fields given on d.
func (ds *depthSpec) apply(l *loader, d *spotmarket.DepthConfig) {
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	if ds.Unlimited != nil {
		d.Unlimited = *ds.Unlimited
	}
	set(&d.Spot, ds.Spot)
	set(&d.OnDemand, ds.OnDemand)
	set(&d.SizeExponent, ds.SizeExponent)
	set(&d.Spread, ds.Spread)
	set(&d.Constrained, ds.Constrained)
	set(&d.Accelerated, ds.Accelerated)
	set(&d.NewAccelerated, ds.NewAccelerated)
	set(&d.Metal, ds.Metal)
	if ds.Refill != "" {
		d.Refill = l.dur("spec.market.depth.refill", ds.Refill, d.Refill)
	}
}

type marketEvent struct {
	At    string     `json:"at"`
	For   string     `json:"for,omitempty"`
	Pools poolFilter `json:"pools"`
	// State: available, constrained or exhausted while the event holds.
	State string `json:"state,omitempty"`
	// Reclaim is the share of matching running instances given a notice;
	// Rebalance the share given a rebalance recommendation.
	Reclaim   float64 `json:"reclaim,omitempty"`
	Rebalance float64 `json:"rebalance,omitempty"`
	// JoinFailure makes launches never join while the event holds.
	JoinFailure *joinFailureSpec `json:"joinFailure,omitempty"`
}

type poolFilter struct {
	InstanceTypes    []string `json:"instanceTypes,omitempty"`
	InstanceFamilies []string `json:"instanceFamilies,omitempty"`
	Zones            []string `json:"zones,omitempty"`
	// CapacityType: spot (default) or on-demand.
	CapacityType string `json:"capacityType,omitempty"`
}

// compileMarket turns spec.market into the market's Config.
func (l *loader) compileMarket(path string) {
	d := l.scenarioDoc
	cfg := spotmarket.DefaultConfig()
	ms := l.doc.Spec.Market
	if ms != nil {
		if ms.Model != "" {
			m, ok := spotmarket.ParseModel(ms.Model)
			if !ok {
				l.fail(d.Errorf("spec.market.model", "use stochastic, replay or off", "unknown model %q", ms.Model))
			}
			cfg.Model = m
		}
		if ms.Replay != "" {
			if cfg.Model != spotmarket.ModelReplay {
				l.fail(d.Errorf("spec.market.replay", "set model: replay to drive the market from the trace", "a replay trace needs model: replay"))
			}
			l.readTrace(path, ms.Replay, &cfg)
		} else if cfg.Model == spotmarket.ModelReplay {
			l.fail(d.Errorf("spec.market.replay", "give the trace file, e.g. replay: traces/incident.csv", "model replay needs a trace"))
		}
		if v := ms.HazardMultiplier; v != nil {
			cfg.HazardMultiplier = *v
		}
		if s := ms.Shocks; s != nil {
			if s.RateScale != nil {
				cfg.Shocks.RateScale = *s.RateScale
			}
			if s.Share != nil {
				cfg.Shocks.Share = *s.Share
			}
		}
		if r := ms.Regimes; r != nil {
			if r.DurationScale != nil {
				cfg.Regimes.DurationScale = *r.DurationScale
			}
			if r.ConstrainedFailure != nil {
				cfg.Regimes.ConstrainedFailure = *r.ConstrainedFailure
			}
		}
		if ms.SpotVCPUQuota != nil {
			cfg.SpotVCPUQuota = *ms.SpotVCPUQuota
		}
		if ms.Depth != nil {
			ms.Depth.apply(l, &cfg.Depth)
		}
		if ll := ms.LaunchLatency; ll != nil {
			if ll.Fleet != nil {
				if dd := l.distribution("spec.market.launchLatency.fleet", ll.Fleet); dd != nil {
					cfg.Latency.Fleet = dd
				}
			}
			if ll.ASG != nil {
				if dd := l.distribution("spec.market.launchLatency.asg", ll.ASG); dd != nil {
					cfg.Latency.ASG = dd
				}
			}
		}
	}
	l.compileJoin(ms, &cfg)
	l.compileReservations(ms, &cfg)
	if ms != nil {
		for i, e := range ms.Events {
			cfg.Events = append(cfg.Events, l.marketEvent(fmt.Sprintf("spec.market.events[%d]", i), e))
		}
	}
	if err := cfg.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			field, msg, _ := strings.Cut(line, ": ")
			if field == "market.trace" && ms != nil && ms.Replay != "" {
				continue // the trace's own errors are reported already
			}
			l.fail(d.Errorf("spec."+joinField(field), "", "%s", msg))
		}
	}
	l.out.Market = cfg
}

func (l *loader) marketEvent(path string, e marketEvent) spotmarket.ScriptedEvent {
	d := l.scenarioDoc
	out := spotmarket.ScriptedEvent{
		At:                l.dur(path+".at", e.At, 0),
		For:               l.dur(path+".for", e.For, 0),
		InstanceTypes:     e.Pools.InstanceTypes,
		Families:          e.Pools.InstanceFamilies,
		Zones:             e.Pools.Zones,
		InterruptFraction: e.Reclaim,
		RebalanceFraction: e.Rebalance,
	}
	if e.At == "" {
		l.fail(d.Errorf(path+".at", "give the time of the event, e.g. at: 30m", "missing at"))
	}
	if e.State != "" {
		r, ok := spotmarket.ParseRegime(e.State)
		if !ok {
			l.fail(d.Errorf(path+".state", "use available, constrained or exhausted", "unknown state %q", e.State))
		}
		out.State = r
	}
	if e.Pools.CapacityType != "" {
		ct, ok := cluster.ParseCapacityType(e.Pools.CapacityType)
		if !ok || ct == cluster.Reserved {
			l.fail(d.Errorf(path+".pools.capacityType", "use spot or on-demand", "unknown capacity type %q", e.Pools.CapacityType))
		}
		out.CapacityTypes = []cluster.CapacityType{ct}
	}
	for i, z := range e.Pools.Zones {
		if !l.hasZone(z) {
			l.fail(d.Errorf(fmt.Sprintf("%s.pools.zones[%d]", path, i), "use one of spec.zones: "+strings.Join(l.out.Zones, ", "), "zone %q is not in the scenario", z))
		}
	}
	for i, t := range e.Pools.InstanceTypes {
		if _, ok := l.cat.Lookup(t); !ok {
			l.fail(d.Errorf(fmt.Sprintf("%s.pools.instanceTypes[%d]", path, i), "", "unknown instance type %q", t))
		}
	}
	l.joinFailure(path, &e, &out)
	if e.State == "" && e.Reclaim == 0 && e.Rebalance == 0 && e.JoinFailure == nil {
		l.fail(d.Errorf(path, "give state, reclaim, rebalance or joinFailure", "the event changes nothing"))
	}
	return out
}

// readTrace reads a replay trace relative to the scenario file.
func (l *loader) readTrace(scenarioPath, rel string, cfg *spotmarket.Config) {
	d := l.scenarioDoc
	p := l.src.resolve(scenarioPath, rel)
	var data []byte
	var err error
	switch src := l.src.(type) {
	case fsSource:
		data, err = fs.ReadFile(src.fsys, p)
	default:
		if what := l.src.irregular(p); what != "" {
			err = fmt.Errorf("%s, not a regular file (a FIFO would hang the load, a device such as /dev/zero never ends)", what)
		} else if data, err = manifest.ReadFileLimited(p); err != nil {
			var me *manifest.Error
			if errors.As(err, &me) {
				err = errors.New(me.Msg)
			}
		}
	}
	if err != nil {
		l.fail(d.Errorf("spec.market.replay", "paths are relative to the scenario file's folder", "cannot read %s: %v", rel, err))
		return
	}
	l.files[p] = true
	tr, err := spotmarket.ReadTrace(bytes.NewReader(data), p)
	if err != nil {
		l.failErr(err)
		return
	}
	cfg.Trace = &tr
}
