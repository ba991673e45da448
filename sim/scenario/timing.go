package scenario

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/workload"
)

const (
	// maxArrivals bounds the arrival times one entry may expand to.
	maxArrivals = 1_000_000
	// maxReplicas bounds one replica step.
	maxReplicas = 1_000_000
)

type timingEntry struct {
	index int
	t     *timing
}

// timingsByRef matches spec.workloads entries to the objects they time.
func (l *loader) timingsByRef(objs []podObject) map[string]timingEntry {
	d := l.scenarioDoc
	known := map[string]bool{}
	var refs []string
	for _, o := range objs {
		ref := l.refOf(o.doc)
		known[ref] = true
		refs = append(refs, ref)
	}
	out := map[string]timingEntry{}
	for i := range l.doc.Spec.Workloads {
		t := &l.doc.Spec.Workloads[i]
		path := fmt.Sprintf("spec.workloads[%d].ref", i)
		ref, ok := normalizeRef(t.Ref)
		if !ok {
			l.fail(d.Errorf(path, "write Kind/namespace/name or Kind/name (namespace default), e.g. Deployment/default/web", "%q is not a reference", t.Ref))
			continue
		}
		if !known[ref] {
			hint := "the object must be inlined in the scenario file or in an included file"
			if s := closest(ref, refs); s != "" {
				hint = "did you mean " + s + "? " + hint
			} else if len(refs) > 0 {
				hint += "; workloads defined: " + strings.Join(firstN(refs, 8), ", ")
			}
			l.fail(d.Errorf(path, hint, "no workload %s", ref))
			continue
		}
		if prev, dup := out[ref]; dup {
			l.fail(d.Errorf(path, "merge the two entries", "%s is already timed by spec.workloads[%d]", ref, prev.index))
			continue
		}
		out[ref] = timingEntry{index: i, t: t}
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

// normalizeRef turns Kind/name into Kind/default/name.
func normalizeRef(ref string) (string, bool) {
	parts := strings.Split(ref, "/")
	for _, p := range parts {
		if p == "" {
			return "", false
		}
	}
	switch len(parts) {
	case 2:
		if kinds[parts[0]].clusterScoped {
			return ref, true
		}
		return parts[0] + "/" + DefaultNamespace + "/" + parts[1], true
	case 3:
		return ref, true
	}
	return "", false
}

// applyTiming fills the timing of one workload and returns the estimated
// number of pods it creates over the run.
func (l *loader) applyTiming(o podObject, te timingEntry, ws *workload.Spec) int64 {
	d := l.scenarioDoc
	base := fmt.Sprintf("spec.workloads[%d]", te.index)
	t := te.t
	if t == nil {
		t = &timing{}
	}
	times, poisson := l.arrivals(base+".arrivals", t.Arrivals)
	ws.Arrivals = workload.Arrivals{Times: times, Poisson: poisson}
	arrivals := int64(len(times))
	if len(times) == 0 && poisson == nil {
		arrivals = 1
	}
	if poisson != nil {
		hours := float64(poisson.Until-poisson.From) / float64(time.Hour)
		arrivals += int64(poisson.RatePerHour*hours*1.2) + 10
	}
	if t.Runtime != nil {
		ws.Runtime = l.distribution(base+".runtime", t.Runtime)
	}

	switch o.kind {
	case workload.Deployment, workload.StatefulSet:
		if t.Runtime != nil {
			l.fail(d.Errorf(base+".runtime", "remove runtime: it applies to Jobs and bare Pods", "%s pods run until scaled down", o.kind))
		}
		if len(times) > 1 || poisson != nil {
			l.fail(d.Errorf(base+".arrivals", "give one time with arrivals.at", "a %s is created once", o.kind))
		}
		ws.Replicas = l.replicaSteps(base+".replicas", t.Replicas, o.replicas)
		var peak int32
		for _, s := range ws.Replicas {
			peak = max(peak, s.Count)
		}
		return int64(peak) * 2 // room for replacements
	case workload.Job:
		if len(t.Replicas) > 0 {
			l.fail(d.Errorf(base+".replicas", "a Job's pod count comes from spec.parallelism and spec.completions", "replicas do not apply to a Job"))
		}
		if t.Runtime == nil {
			ref := l.refOf(o.doc)
			if te.t == nil {
				l.fail(d.Errorf("spec.workloads", fmt.Sprintf("add - {ref: %s, runtime: {fixed: 10m}}", ref),
					"%s needs a spec.workloads entry with a runtime: how long each pod runs cannot be read from the manifest", ref))
			} else {
				l.fail(d.Errorf(base, "add runtime: {fixed: 10m} or {lognormal: {median: 10m, p90: 30m}}",
					"%s needs a runtime: how long each pod runs cannot be read from the manifest", ref))
			}
		}
		return arrivals * int64(o.completions)
	case workload.BarePod:
		if len(t.Replicas) > 0 {
			l.fail(d.Errorf(base+".replicas", "use a Deployment for replicas", "replicas do not apply to a bare Pod"))
		}
		if len(times) > 1 || poisson != nil {
			l.fail(d.Errorf(base+".arrivals", "give one time with arrivals.at, or make it a Job", "a bare Pod is created once"))
		}
		return 1
	}
	return 0
}

func (l *loader) replicaSteps(path string, steps []replicaStep, manifestReplicas int32) []workload.Step {
	d := l.scenarioDoc
	var out []workload.Step
	for i, s := range steps {
		p := fmt.Sprintf("%s[%d]", path, i)
		at := l.dur(p+".at", s.At, 0)
		if s.At == "" {
			l.fail(d.Errorf(p+".at", "give the time the count applies from, e.g. at: 30m", "missing at"))
		}
		if s.Count == nil {
			l.fail(d.Errorf(p+".count", "give the replica count", "missing count"))
			continue
		}
		if *s.Count < 0 || *s.Count > maxReplicas {
			l.fail(d.Errorf(p+".count", fmt.Sprintf("use 0 to %d", maxReplicas), "count %d is out of range", *s.Count))
			continue
		}
		if len(out) > 0 && at <= out[len(out)-1].At {
			l.fail(d.Errorf(p+".at", "list steps in increasing time", "%s is not after the previous step", s.At))
			continue
		}
		if at > l.out.Duration {
			l.warn(d, p+".at", "%s is after the end of the run (%s)", s.At, l.out.Duration)
		}
		out = append(out, workload.Step{At: at, Count: *s.Count})
	}
	if len(out) == 0 || out[0].At > 0 {
		out = append([]workload.Step{{At: 0, Count: manifestReplicas}}, out...)
	}
	return out
}

func (l *loader) arrivals(path string, a *arrivals) ([]time.Duration, *workload.Poisson) {
	if a == nil {
		return nil, nil
	}
	d := l.scenarioDoc
	var times []time.Duration
	if a.At != "" {
		times = append(times, l.dur(path+".at", a.At, 0))
	}
	for i, s := range a.Times {
		times = append(times, l.dur(fmt.Sprintf("%s.times[%d]", path, i), s, 0))
	}
	if a.Every != "" {
		every := l.dur(path+".every", a.Every, 0)
		from := l.dur(path+".from", a.From, 0)
		until := l.dur(path+".until", a.Until, l.out.Duration)
		switch {
		case every <= 0:
			l.fail(d.Errorf(path+".every", "use a positive period such as 5m", "must be positive"))
		case until < from:
			l.fail(d.Errorf(path+".until", "", "until is before from"))
		case int64((until-from)/every) > maxArrivals:
			l.fail(d.Errorf(path+".every", "use a longer period", "more than %d arrivals", maxArrivals))
		default:
			for t := from; t <= until; t += every {
				times = append(times, t)
			}
		}
	} else if a.From != "" || a.Until != "" {
		l.fail(d.Errorf(path, "from and until go with every (or inside poisson)", "from/until without every"))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	for _, t := range times {
		if t > l.out.Duration {
			l.warn(d, path, "an arrival at %s is after the end of the run (%s)", t, l.out.Duration)
			break
		}
	}
	var p *workload.Poisson
	if a.Poisson != nil {
		pp := path + ".poisson"
		p = &workload.Poisson{
			RatePerHour: a.Poisson.RatePerHour,
			From:        l.dur(pp+".from", a.Poisson.From, 0),
			Until:       l.dur(pp+".until", a.Poisson.Until, l.out.Duration),
		}
		if p.RatePerHour <= 0 || p.RatePerHour > 1e6 {
			l.fail(d.Errorf(pp+".ratePerHour", "use a rate between 0 and 1000000 per hour", "rate %g is out of range", p.RatePerHour))
		}
		if p.Until < p.From {
			l.fail(d.Errorf(pp+".until", "", "until is before from"))
		}
	}
	if len(times) == 0 && p == nil {
		l.fail(d.Errorf(path, "give at, times, every or poisson", "no arrivals"))
	}
	return times, p
}

func (l *loader) distribution(path string, dd *durationDist) dist.Duration {
	d := l.scenarioDoc
	n := 0
	var out dist.Duration
	if dd.Fixed != "" {
		n++
		out = dist.Fixed{D: l.dur(path+".fixed", dd.Fixed, 0)}
	}
	if ln := dd.LogNormal; ln != nil {
		n++
		median := l.dur(path+".lognormal.median", ln.Median, 0)
		p90 := l.dur(path+".lognormal.p90", ln.P90, 0)
		if ln.Median == "" || ln.P90 == "" {
			l.fail(d.Errorf(path+".lognormal", "give both, e.g. {median: 10m, p90: 30m}", "lognormal needs median and p90"))
		} else if v, err := dist.NewLogNormal(median, p90); err != nil {
			l.fail(d.Errorf(path+".lognormal", "", "%v", err))
		} else {
			out = v
		}
	}
	if e := dd.Exponential; e != nil {
		n++
		mean := l.dur(path+".exponential.mean", e.Mean, 0)
		if mean <= 0 {
			l.fail(d.Errorf(path+".exponential.mean", "give a positive mean, e.g. 10m", "must be positive"))
		}
		out = dist.Exponential{MeanD: mean}
	}
	if u := dd.Uniform; u != nil {
		n++
		lo := l.dur(path+".uniform.min", u.Min, 0)
		hi := l.dur(path+".uniform.max", u.Max, 0)
		if hi < lo || u.Max == "" {
			l.fail(d.Errorf(path+".uniform", "give min <= max, e.g. {min: 5m, max: 15m}", "max must be at least min"))
		}
		out = dist.Uniform{Min: lo, Max: hi}
	}
	if n != 1 {
		l.fail(d.Errorf(path, "use exactly one of fixed, lognormal, exponential, uniform", "%d distributions given", n))
		return nil
	}
	if f, ok := out.(dist.Fixed); ok && f.D <= 0 {
		l.fail(d.Errorf(path+".fixed", "give a positive run time", "must be positive"))
	}
	return out
}
