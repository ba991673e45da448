package scenario

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/workload"
)

// MaxWorkloadScale bounds ScaleWorkloads' factor.
const MaxWorkloadScale = 1000

// ScaleWorkloads multiplies the load of every workload by f, in place,
// without touching the files (sim run --scale-workloads):
//
//   - Deployments and StatefulSets: every replica step's count, an HPA's
//     minReplicas and maxReplicas, and the load curves (a daily curve's
//     min and max, an HPA's synthetic CPU load) are multiplied by f;
//   - Jobs (and a CronJob's Jobs) and bare Pods that arrive by Poisson:
//     the arrival rate is multiplied by f; the other Jobs (arriving once,
//     at given times or on a CronJob's schedule): parallelism and
//     completions are multiplied by f, so each Job does f times the work;
//     a split's twin follows the workload that drives it;
//   - DaemonSets (one pod per node), bare Pods at fixed times,
//     PodDisruptionBudgets and pod specs are left as they are.
//
// Counts are rounded to the nearest integer (halves away from zero), and
// a count that was above 0 stays at least 1; rates and curves are not
// rounded (a curve is rounded where it is read, as without scaling). f
// must be above 0 and at most MaxWorkloadScale.
func (sc *Scenario) ScaleWorkloads(f float64) error {
	if math.IsNaN(f) || f <= 0 || f > MaxWorkloadScale {
		return fmt.Errorf("scale factor %v: use a number above 0 and at most %d, e.g. 2 or 0.5", f, MaxWorkloadScale)
	}
	count := func(n int32) int32 {
		if n <= 0 {
			return n
		}
		return int32(max(1, math.Round(float64(n)*f)))
	}
	ws := sc.Workloads
	// Whether a Job arrives by Poisson is its driver's (a twin's primary).
	poisson := make([]bool, len(ws))
	for i := range ws {
		poisson[i] = ws[i].Arrivals.Poisson != nil
	}
	for i := range ws {
		w := &ws[i]
		switch w.Kind {
		case workload.Deployment, workload.StatefulSet:
			plan := &w.Replicas
			if len(plan.Steps) > 0 {
				steps := slices.Clone(plan.Steps)
				for k := range steps {
					steps[k].Count = count(steps[k].Count)
				}
				plan.Steps = steps
			}
			if plan.Daily != nil {
				d := *plan.Daily
				d.Min, d.Max = d.Min*f, d.Max*f
				plan.Daily = &d
			}
			if plan.HPA != nil {
				h := *plan.HPA
				h.Min, h.Max = count(h.Min), count(h.Max)
				h.Load.Min, h.Load.Max = h.Load.Min*f, h.Load.Max*f
				plan.HPA = &h
			}
		case workload.Job, workload.BarePod:
			if p := w.Arrivals.Poisson; p != nil {
				q := *p
				q.RatePerHour *= f
				w.Arrivals.Poisson = &q
				continue
			}
			driver := i
			if w.TwinOf >= 0 {
				driver = int(w.TwinOf)
			}
			if w.Kind == workload.Job && !poisson[driver] {
				w.Parallelism, w.Completions = count(w.Parallelism), count(w.Completions)
			}
		}
	}
	sc.EstimatedPods = int64(math.Ceil(float64(sc.EstimatedPods) * max(f, 1)))
	return nil
}

// ZoneOut makes every offering of one zone (spot, on-demand and reserved,
// every instance type) unavailable from at to the end of the run, as a
// scripted market event appended to the scenario's (sim run --zone-out):
// launches there fail with InsufficientInstanceCapacity, running
// instances keep running. A scripted event of the scenario that starts
// later and sets a state wins over it for its pools, as between any two
// events.
func (sc *Scenario) ZoneOut(zone string, at time.Duration) error {
	if !slices.Contains(sc.Zones, zone) {
		return fmt.Errorf("zone %q is not one of the scenario's zones (%s)", zone, strings.Join(sc.Zones, ", "))
	}
	if at < 0 || at > sc.Duration {
		return fmt.Errorf("time %s is outside the scenario's duration %s", at, sc.Duration)
	}
	sc.Market.Events = append(slices.Clone(sc.Market.Events), spotmarket.ScriptedEvent{
		At: at, Zones: []string{zone}, State: spotmarket.RegimeExhausted,
		CapacityTypes: []cluster.CapacityType{cluster.OnDemand, cluster.Spot, cluster.Reserved},
	})
	return nil
}

// ScaleHazard multiplies the market's reclaim hazard multiplier
// (spec.market.hazardMultiplier, default 1) by f, in place: a sweep's
// market-stress axis. f must be at least 0 and at most MaxWorkloadScale.
func (sc *Scenario) ScaleHazard(f float64) error {
	if math.IsNaN(f) || f < 0 || f > MaxWorkloadScale {
		return fmt.Errorf("hazard multiplier %v: use a number from 0 to %d, e.g. 2 for twice the reclaims", f, MaxWorkloadScale)
	}
	sc.Market.HazardMultiplier *= f
	return nil
}

// SetFallbackAfter sets how long every workload with a job-queue
// fallback (spec.workloads[].resubmit) lets a pod wait before it is
// resubmitted: a sweep's fallback-timeout axis. A scenario without a
// fallback is an error, so that the setting is never silently ignored.
func (sc *Scenario) SetFallbackAfter(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("fallback timeout %s: use a positive duration such as 2m or 10m", d)
	}
	n := 0
	for i := range sc.Workloads {
		if f := sc.Workloads[i].Fallback; f != nil {
			g := *f
			g.After = d
			sc.Workloads[i].Fallback = &g
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no workload of %s has a fallback (spec.workloads[].resubmit) whose timeout to set", sc.Name)
	}
	return nil
}
