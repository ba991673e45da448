package scenario

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/workload"
)

const (
	// maxArrivals bounds the arrival times one entry may expand to.
	maxArrivals = 1_000_000
	// maxReplicas bounds one replica step.
	maxReplicas = 1_000_000
	// maxPoissonRatePerHour bounds a Poisson arrival rate.
	maxPoissonRatePerHour = 1e6
	// defaultPeakAt is when a daily curve peaks unless peakAt says (our
	// choice: noon).
	defaultPeakAt = 12 * time.Hour
)

type timingEntry struct {
	index int
	t     *timing
}

// timingsByRef matches spec.workloads entries to the objects they time.
func (l *loader) timingsByRef(objs []podObject, broken map[string]bool) map[string]timingEntry {
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
		if msg, hint, ok := l.claimedWorkload(ref); ok && !known[ref] {
			l.fail(d.Errorf(path, hint, "%s %s", ref, msg))
			continue
		}
		if broken[ref] {
			continue // its own error says what is wrong with it
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
func (l *loader) applyTiming(o podObject, te timingEntry, ws *workload.Spec, priority func(string) (int32, bool, bool)) int64 {
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
		arrivals += int64(poisson.RatePerHour*(1+poisson.Amplitude)*hours*1.2) + 10
	}
	if t.Runtime != nil {
		ws.Runtime = l.distribution(base+".runtime", t.Runtime)
	}
	if t.Resubmit != nil {
		ws.Fallback = l.fallback(o, base+".resubmit", t.Resubmit, priority)
	}
	l.startOn(o, base+".startOn", t.StartOn, ws)
	l.startedAgo(base+".startedAgo", t.StartedAgo, t.StartOn, ws)
	l.startTerminating(o, base+".startTerminating", t.StartTerminating, ws)
	plans := 0
	for _, set := range []bool{len(t.Replicas) > 0, t.Daily != nil, t.HPA != nil} {
		if set {
			plans++
		}
	}
	if plans > 1 {
		l.fail(d.Errorf(base, "keep one of replicas, daily, hpa", "more than one replica plan"))
	}
	noPlan := func(why string) {
		if plans > 0 {
			l.fail(d.Errorf(base, why, "replicas, daily and hpa do not apply to a %s", o.kind))
		}
	}

	switch o.kind {
	case workload.Deployment, workload.StatefulSet:
		if t.Runtime != nil {
			l.fail(d.Errorf(base+".runtime", "remove runtime: it applies to Jobs and bare Pods", "%s pods run until scaled down", o.kind))
		}
		if len(times) > 1 || poisson != nil {
			l.fail(d.Errorf(base+".arrivals", "give one time with arrivals.at", "a %s is created once", o.kind))
		}
		var peak int32
		// A HorizontalPodAutoscaler of the manifests bounds the plan.
		hpa := l.hpas[l.refOf(o.doc)]
		switch {
		case t.Daily != nil:
			ds := t.Daily
			if hpa != nil {
				ds = l.boundDaily(hpa, base+".daily", ds)
			}
			ws.Replicas.Daily, ws.Replicas.DailyEvery = l.dailyPlan(base+".daily", ds)
			if ws.Replicas.Daily != nil {
				peak = int32(ws.Replicas.Daily.Max)
			}
		case t.HPA != nil:
			hs := t.HPA
			if hpa != nil {
				hs = l.mergeHPA(hpa, base+".hpa", hs)
			}
			ws.Replicas.HPA = l.hpaPlan(base+".hpa", hs, ws.Pod)
			if ws.Replicas.HPA != nil {
				peak = ws.Replicas.HPA.Max
			}
		default:
			ws.Replicas.Steps = l.replicaSteps(base+".replicas", t.Replicas, o.replicas)
			if hpa != nil {
				l.boundSteps(hpa, o, base, ws.Replicas.Steps, len(t.Replicas))
			}
			for _, s := range ws.Replicas.Steps {
				peak = max(peak, s.Count)
			}
		}
		return int64(peak) * 2 // room for replacements
	case workload.Job:
		if o.cron != nil {
			return l.cronTiming(o, te, ws, base, plans > 0)
		}
		noPlan("a Job's pod count comes from spec.parallelism and spec.completions")
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
		return arrivals * int64(o.completions) * 2
	case workload.BarePod:
		noPlan("use a Deployment for replicas")
		if len(times) > 1 || poisson != nil {
			l.fail(d.Errorf(base+".arrivals", "give one time with arrivals.at, or make it a Job", "a bare Pod is created once"))
		}
		return 1
	case workload.DaemonSet:
		noPlan("a DaemonSet runs one pod per matching node")
		if t.Runtime != nil || t.Split != nil || t.Resubmit != nil {
			l.fail(d.Errorf(base, "a DaemonSet takes only arrivals.at", "runtime, split and resubmit do not apply to a DaemonSet"))
		}
		return 0 // one pod per node: counted by compileWorkloads (daemonSetPods)
	}
	return 0
}

// claimedWorkload: ref names a document a component claimed (the
// Deployment that runs the Cluster Autoscaler), which is configuration,
// not a workload: the error's message and hint.
func (l *loader) claimedWorkload(ref string) (msg, hint string, ok bool) {
	for _, c := range component.Registered() {
		cl, is := c.(component.Claimer)
		if !is {
			continue
		}
		for _, doc := range l.compDocs[c.Name()] {
			if cl.Claims(doc) && l.refOf(doc) == ref {
				msg, hint = cl.NotAWorkload(doc)
				return msg, hint, true
			}
		}
	}
	return "", "", false
}

// daemonSetPods bounds the pods a DaemonSet creates over the run: one per
// node that can exist, so the Nodes from the start, the node groups' maximum
// sizes and, with an autoscaler, one launch per other pod the run creates
// (pods, twice counted for replacements); at most MaxStaticNodes.
func (l *loader) daemonSetPods(otherPods int64) int64 {
	nodes := int64(len(l.out.Nodes))
	unbounded := false
	for _, cc := range l.out.Components {
		c, _ := component.Lookup(cc.Name)
		if b, ok := c.(component.NodeBounder); ok {
			fixed, more := b.NodeBound(cc.Config)
			nodes += fixed
			unbounded = unbounded || more
		}
	}
	if unbounded {
		nodes += otherPods
	}
	return min(nodes, int64(MaxStaticNodes))
}

func (l *loader) dailyPlan(path string, ds *dailySpec) (*workload.Daily, time.Duration) {
	d := l.scenarioDoc
	if ds.Min == nil || ds.Max == nil || *ds.Min < 0 || *ds.Max < *ds.Min || *ds.Max > maxReplicas {
		l.fail(d.Errorf(path, "give 0 <= min <= max, e.g. {min: 3, max: 12, peakAt: 14h}", "min and max replicas are required"))
		return nil, 0
	}
	peak := l.dur(path+".peakAt", ds.PeakAt, defaultPeakAt)
	every := l.dur(path+".every", ds.Every, workload.DefaultDailyEvery)
	if every <= 0 {
		l.fail(d.Errorf(path+".every", "", "must be positive"))
	}
	return &workload.Daily{Min: float64(*ds.Min), Max: float64(*ds.Max), PeakAt: peak}, every
}

func (l *loader) hpaPlan(path string, hs *hpaSpec, pod *cluster.PodSpec) *workload.HPA {
	d := l.scenarioDoc
	h := &workload.HPA{Min: workload.DefaultHPAMinReplicas, Target: workload.DefaultHPATarget, Tolerance: workload.DefaultHPATolerance}
	if hs.MinReplicas != nil {
		h.Min = *hs.MinReplicas
	}
	if hs.MaxReplicas == nil || *hs.MaxReplicas < h.Min || *hs.MaxReplicas > maxReplicas || h.Min < 1 {
		l.fail(d.Errorf(path+".maxReplicas", "give 1 <= minReplicas <= maxReplicas", "maxReplicas is required and must be at least minReplicas"))
		return nil
	}
	h.Max = *hs.MaxReplicas
	if v := hs.TargetCPUUtilizationPercentage; v != nil {
		if *v < 1 || *v > 100 {
			l.fail(d.Errorf(path+".targetCPUUtilizationPercentage", "use 1 to 100", "%d is out of range", *v))
		}
		h.Target = float64(*v) / 100
	}
	if hs.LoadCores == nil || hs.LoadCores.Min < 0 || hs.LoadCores.Max < hs.LoadCores.Min {
		l.fail(d.Errorf(path+".loadCores", "give the CPU the service needs over the day, e.g. {min: 2, max: 16, peakAt: 14h}", "loadCores with 0 <= min <= max is required"))
		return nil
	}
	h.Load = workload.Daily{Min: hs.LoadCores.Min, Max: hs.LoadCores.Max, PeakAt: l.dur(path+".loadCores.peakAt", hs.LoadCores.PeakAt, defaultPeakAt)}
	h.Sync = l.dur(path+".syncPeriod", hs.SyncPeriod, workload.DefaultHPASync)
	h.Stabilization = l.dur(path+".scaleDownStabilization", hs.ScaleDownStabilization, workload.DefaultHPAStabilization)
	if h.Sync <= 0 {
		l.fail(d.Errorf(path+".syncPeriod", "", "must be positive"))
	}
	if hs.Tolerance != nil {
		h.Tolerance = *hs.Tolerance
	}
	if pod.Requests[cluster.CPU] == 0 {
		l.fail(d.Errorf(path, "give the pods a CPU request: an HPA on CPU utilization needs one", "the pods request no CPU"))
	}
	return h
}

// fallback compiles the resubmitted pod spec: the template with the given
// fields replaced.
func (l *loader) fallback(o podObject, path string, rs *resubmitSpec, priority func(string) (int32, bool, bool)) *workload.Fallback {
	d := l.scenarioDoc
	after := l.dur(path+".after", rs.After, 0)
	if rs.After == "" || after <= 0 {
		l.fail(d.Errorf(path+".after", "give how long a pod may stay pending before it is resubmitted, e.g. after: 10m", "missing after"))
	}
	if o.kind != workload.Job && o.kind != workload.Deployment && o.kind != workload.StatefulSet {
		l.fail(d.Errorf(path, "resubmission applies to Jobs, Deployments and StatefulSets", "not for a %s", o.kind))
		return nil
	}
	spec := *o.template.Spec.DeepCopy()
	if rs.Tolerations != nil {
		spec.Tolerations = rs.Tolerations
	}
	if rs.NodeSelector != nil {
		spec.NodeSelector = rs.NodeSelector
	}
	if rs.Affinity != nil {
		spec.Affinity = rs.Affinity
	}
	if rs.PriorityClassName != "" {
		spec.PriorityClassName = rs.PriorityClassName
	}
	fb := o
	fb.doc = d
	compiled := l.compileTemplate(fb, &spec, path, priority)
	if compiled == nil {
		return nil
	}
	return &workload.Fallback{After: after, Pod: compiled}
}

// resolveSplits links each split to its twin: same kind, no timing of its
// own.
func (l *loader) resolveSplits(refs []string, entries []timingEntry) {
	d := l.scenarioDoc
	index := map[string]int{}
	for i, r := range refs {
		index[r] = i
	}
	for i, te := range entries {
		if te.t == nil || te.t.Split == nil {
			continue
		}
		path := fmt.Sprintf("spec.workloads[%d].split", te.index)
		sp := te.t.Split
		ref, ok := normalizeRef(sp.Ref)
		j, found := index[ref]
		switch {
		case !ok || !found:
			l.fail(d.Errorf(path+".ref", "name the twin workload, e.g. Deployment/default/web-on-demand", "no workload %q", sp.Ref))
			continue
		case j == i:
			l.fail(d.Errorf(path+".ref", "", "a workload cannot be its own twin"))
			continue
		case sp.Share < 0 || sp.Share > 1:
			l.fail(d.Errorf(path+".share", "use a fraction between 0 and 1", "share %g is out of range", sp.Share))
			continue
		}
		w, twin := &l.out.Workloads[i], &l.out.Workloads[j]
		if w.Kind != twin.Kind || (w.Kind != workload.Deployment && w.Kind != workload.StatefulSet && w.Kind != workload.Job) {
			l.fail(d.Errorf(path+".ref", "twins are two Deployments, two StatefulSets or two Jobs", "%s cannot split with %s", refs[i], refs[j]))
			continue
		}
		if twin.TwinOf >= 0 || twin.Split != nil {
			l.fail(d.Errorf(path+".ref", "a workload may be the twin of one other, and not split itself", "%s is already part of a split", refs[j]))
			continue
		}
		if tw := entries[j].t; tw != nil && (len(tw.Replicas) > 0 || tw.Daily != nil || tw.HPA != nil || tw.Arrivals != nil) {
			l.fail(d.Errorf(fmt.Sprintf("spec.workloads[%d]", entries[j].index), "the twin follows its primary's plan and arrivals: remove its own", "%s is the twin of %s", refs[j], refs[i]))
			continue
		}
		w.Split = &workload.Split{Twin: int32(j), Share: sp.Share}
		twin.TwinOf = int32(i)
		twin.Replicas = workload.ReplicaPlan{}
		if w.Kind == workload.Job && twin.Runtime == nil {
			twin.Runtime = w.Runtime
		}
	}
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
		count, ok := requiredCount(l, p+".count", s.Count, maxReplicas, "give the replica count")
		if !ok {
			continue
		}
		if len(out) > 0 && at <= out[len(out)-1].At {
			l.fail(d.Errorf(p+".at", "list steps in increasing time", "%s is not after the previous step", s.At))
			continue
		}
		if at > l.out.Duration {
			l.warn(d, p+".at", "%s is after the end of the run (%s)", s.At, l.out.Duration)
		}
		out = append(out, workload.Step{At: at, Count: count})
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
			Amplitude:   a.Poisson.Amplitude,
			PeakAt:      l.dur(pp+".peakAt", a.Poisson.PeakAt, defaultPeakAt),
		}
		if p.Amplitude < 0 || p.Amplitude > 1 {
			l.fail(d.Errorf(pp+".amplitude", "use 0 (steady) to 1 (no arrivals at the trough)", "amplitude %g is out of range", p.Amplitude))
		}
		if p.RatePerHour <= 0 || p.RatePerHour > maxPoissonRatePerHour {
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

// startTerminating checks a workload's startTerminating list (sim
// import's terminating pods): Deployments and Jobs only (their
// controllers replace a terminating pod at once; a StatefulSet waits for
// it), nodes the scenario has (a pod on another is dropped, with a
// warning) and a grace period left of 0 or more.
func (l *loader) startTerminating(o podObject, path string, pods []startTerminating, ws *workload.Spec) {
	if len(pods) == 0 {
		return
	}
	d := l.scenarioDoc
	if (o.kind != workload.Deployment && o.kind != workload.Job) || o.cron != nil {
		l.fail(d.Errorf(path, "remove startTerminating", "startTerminating applies to Deployments and Jobs only, not to %s", l.refOf(o.doc)))
		return
	}
	for i, p := range pods {
		at := fmt.Sprintf("%s[%d]", path, i)
		left := l.dur(at+".for", p.For, 0)
		if left < 0 {
			l.fail(d.Errorf(at+".for", "give the grace period left, 0s or more", "negative duration %q", p.For))
			continue
		}
		if !l.hasNode(p.Node) {
			l.warn(d, at+".node", "no node %q in the scenario: this terminating pod is left out", p.Node)
			continue
		}
		ws.StartTerminating = append(ws.StartTerminating, workload.TerminatingPod{Node: p.Node, Left: left})
	}
}

// startedAgo checks a workload's startedAgo list: one duration, 0s or
// more, per startOn entry.
func (l *loader) startedAgo(path string, ages, nodes []string, ws *workload.Spec) {
	if len(ages) == 0 {
		return
	}
	d := l.scenarioDoc
	if len(ages) != len(nodes) {
		l.fail(d.Errorf(path, "give one duration per startOn entry, or remove startedAgo", "%d durations for %d startOn entries", len(ages), len(nodes)))
		return
	}
	out := make([]time.Duration, len(ages))
	for i, a := range ages {
		at := fmt.Sprintf("%s[%d]", path, i)
		v := l.dur(at, a, 0)
		if v < 0 {
			l.fail(d.Errorf(at, "give how long the pod had run at the export, 0s or more", "negative duration %q", a))
			return
		}
		out[i] = v
	}
	ws.StartedAgo = out
}

// hasNode says whether the scenario starts with a node of that name.
func (l *loader) hasNode(name string) bool {
	if l.nodeNames == nil {
		l.nodeNames = make(map[string]bool, len(l.out.Nodes))
		for i := range l.out.Nodes {
			l.nodeNames[l.out.Nodes[i].Name] = true
		}
	}
	return l.nodeNames[name]
}

// startOn checks a workload's startOn list (sim import's start state):
// Deployments, StatefulSets and Jobs only, no more pods than the workload
// starts with, and nodes the scenario has; a pod on an unknown node starts
// pending, with a warning.
func (l *loader) startOn(o podObject, path string, nodes []string, ws *workload.Spec) {
	if len(nodes) == 0 {
		return
	}
	d := l.scenarioDoc
	var most int32
	switch o.kind {
	case workload.Deployment, workload.StatefulSet:
		most = o.replicas
	case workload.Job:
		if o.cron != nil {
			l.fail(d.Errorf(path, "remove startOn: a CronJob's Jobs start on its schedule", "startOn does not apply to a CronJob"))
			return
		}
		most = min(o.parallelism, o.completions)
	default:
		l.fail(d.Errorf(path, "remove startOn: a bare Pod gives its node in spec.nodeName, a DaemonSet runs on every matching node", "startOn does not apply to a %s", o.kind))
		return
	}
	if int64(len(nodes)) > int64(most) {
		l.fail(d.Errorf(path, fmt.Sprintf("list at most %d nodes, one per pod the workload starts with", most), "%d pods listed, but %s starts with %d", len(nodes), l.refOf(o.doc), most))
		return
	}
	out := make([]string, len(nodes))
	for i, n := range nodes {
		if n != "" && !l.hasNode(n) {
			l.warn(d, fmt.Sprintf("%s[%d]", path, i), "no node %s in the scenario: this pod starts pending", n)
			continue
		}
		out[i] = n
	}
	ws.StartOn = out
}
