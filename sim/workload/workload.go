// Package workload models the controllers that own pods: Deployments and
// StatefulSets keep a replica count that the scenario sets over time
// (steps, a daily curve, or an HPA-like rule on a synthetic load); Jobs run
// pods to completion with parallelism, completions and backoffLimit,
// arriving once or many times (a burst, Poisson, a daily cycle, or a
// CronJob's schedule under its concurrency policy: cron.go, cronjob.go); DaemonSets
// put one pod on every matching node; bare Pods are created once. Two
// fallback patterns from the field are options: a job-queue controller that
// resubmits a pod still pending after a timeout with another spec, and a
// split of one workload's replicas or arrivals between two twins.
//
// Simplifications (see docs/models.md, "Pods and controllers"): controllers
// react at once (no reconcile latency); a Deployment's rollout strategy is not
// modelled (replicas are replaced one for one, a pod told to stop at once,
// as its ReplicaSet does not count a terminating pod; other kinds replace a
// pod once it is gone, a Job too though its default podReplacementPolicy
// would not wait); scale-down deletes pending
// pods first, then the newest bound ones, the gist of the ReplicaSet
// controller's ranking; StatefulSets keep ordinals and follow their
// podManagementPolicy (statefulset.go: OrderedReady creates one ordinal at a
// time once the lower ones are Running and Ready, and deletes one at a time
// from the highest; Parallel all at once; a pod is Ready Spec.ReadyAfter
// after it starts, the delay of its readiness and startup probes, every
// probe taken to succeed once it runs), scale-down deleting pods at once, without
// a grace period; a Job pod lost to eviction,
// preemption or node loss counts as a failure towards backoffLimit (as with
// the PodDisruptionConditions feature) unless the Job's podFailurePolicy
// ignores DisruptionTarget, and its progress is lost; HPAs act on the load
// curve directly, not on measured usage; the CronJob controller is never
// late (startingDeadlineSeconds matters only for runs Forbid held back), and
// a Job Replace deletes loses its pods with CauseScaleDown.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Event kinds of the controllers' handler.
const (
	evArrive          uint16 = iota // Obj = workload
	evStep                          // Obj = workload, Arg = step index
	evReconcile                     // Obj = workload
	evPoisson                       // Obj = workload: the next Poisson candidate arrival
	evDaily                         // Obj = workload: re-read the daily curve
	evHPA                           // Obj = workload: an HPA sync
	evResubmit                      // Obj = pod: its fallback timeout
	evDaemonSet                     // Obj = node: create DaemonSet pods on a Ready node
	evCronLate                      // Obj = workload: a CronJob's Job ended; start a skipped run late
	evMarkTerminating               // Obj = pod: a StartTerminating pod was bound
	evTerminated                    // Obj = pod: a StartTerminating pod's grace period is over
	evAvailable                     // Obj = workload: an OrderedReady StatefulSet's pod became Ready and passed minReadySeconds
	evJobFailed                     // Obj = workload, Arg = instance: delete a failed Job's remaining pods
	evJobDeadline                   // Obj = workload, Arg = instance: its activeDeadlineSeconds are over
)

// instance is one created copy of a workload: one Deployment, or one
// arrival of a Job.
type instance struct {
	name      string
	desired   int32
	succeeded int32
	failures  int32
	created   int32 // pods made so far, for names and StatefulSet ordinals
	live      []cluster.PodID
	done      bool
	failed    bool
	// lostBy counts a Job's pod failures by why the pod went, for the
	// reason a failed Job gives.
	lostBy [cluster.CauseJobFailed + 1]int32
	// owed counts a Job's lost pods not yet replaced.
	owed int32
	// notBefore delays a Job's replacement pods after a failure.
	notBefore engine.Time
}

type controller struct {
	spec      Spec
	ns        cluster.Sym
	instances []*instance
	runtime   *rand.Rand
	arrivals  *rand.Rand
	pending   bool // a reconcile event is scheduled
	// hpaHistory holds recent HPA recommendations for scale-down
	// stabilization.
	hpaHistory []hpaRec
	// onNode records DaemonSet pods by node.
	onNode map[cluster.NodeID]cluster.PodID
	// missed is the most recent run of a Forbid CronJob skipped while a
	// Job was active (valid when hasMissed).
	missed    engine.Time
	hasMissed bool
	// holdStart limits the first instance to its StartOn pods until the
	// reconcile that follows them; pinned caches one pinned spec per node.
	holdStart bool
	pinned    map[string]*cluster.PodSpec
}

type hpaRec struct {
	at    engine.Time
	count int32
}

// Controllers runs every workload of a scenario.
type Controllers struct {
	eng   *engine.Engine
	cl    *cluster.Cluster
	id    engine.HandlerID
	ctrls []*controller
	// owner maps a PodID to its instance; grows with the cluster's pods.
	owner []ownerRef
	// resubmitTimers holds, by PodID, a pending fallback timeout.
	resubmitTimers map[cluster.PodID]engine.Timer
	// startTerm are the StartTerminating pods not yet gone.
	startTerm map[cluster.PodID]bool
	// ordered is set when a workload is an OrderedReady StatefulSet: only
	// then do pods starting wake a controller.
	ordered    bool
	stats      Stats
	byWorkload []WorkloadStats
	// failedJobs are the Jobs that failed, in the order they did.
	failedJobs []FailedJob
}

// FailedJob is one Job that failed: which, when and why.
type FailedJob struct {
	Workload int32  // index of its workload
	Job      string // namespace/name of the Job (one arrival of the workload)
	At       engine.Time
	// Reason is the Job's failure in words, as the Job controller's
	// Failed condition would give it: "exceeded backoffLimit 6 after 7
	// pod failures (7 nodeGone)".
	Reason string
}

type ownerRef struct {
	ctrl, inst int32
}

// Stats count controller actions over all workloads.
type Stats struct {
	PodsCreated    uint64
	PodsReplaced   uint64 // created to replace a pod lost to eviction, preemption or node loss
	JobsArrived    uint64
	JobsCompleted  uint64
	JobsFailed     uint64 // hit their backoffLimit or activeDeadlineSeconds
	JobPodFailures uint64 // lost Job pods counted towards backoffLimit
	Resubmissions  uint64 // pods a fallback controller resubmitted with its other spec
	// CronRunsSkipped are CronJob runs not started because a Job was
	// still active (Forbid) or started too late for the deadline;
	// CronJobsReplaced are active Jobs a Replace CronJob deleted.
	CronRunsSkipped  uint64
	CronJobsReplaced uint64
	// LostPodSeconds is the run time, in seconds from start (Running)
	// to deletion, of the Job pods deleted before they succeeded: lost to
	// eviction, preemption, node loss or a NoExecute taint, deleted with
	// their failed Job or a Job a Replace CronJob replaced. Compute paid
	// for and thrown away; a pod still running at the end is not lost.
	LostPodSeconds float64
}

// WorkloadStats are the counters of one workload.
type WorkloadStats struct {
	JobsCompleted, JobsFailed int
	Resubmissions             int
	LostPodSeconds            float64
}

// New registers the controllers and schedules every workload's arrivals.
func New(eng *engine.Engine, cl *cluster.Cluster, specs []Spec) *Controllers {
	c := &Controllers{eng: eng, cl: cl, resubmitTimers: map[cluster.PodID]engine.Timer{}}
	c.id = eng.Register(c)
	cl.Watch(c)
	c.byWorkload = make([]WorkloadStats, len(specs))
	for i, s := range specs {
		ref := s.Ref()
		ctl := &controller{
			spec:      s,
			ns:        cl.Syms.Intern(s.Namespace),
			runtime:   eng.Stream("workload/" + ref + "/runtime"),
			arrivals:  eng.Stream("workload/" + ref + "/arrivals"),
			holdStart: len(s.StartOn) > 0,
		}
		c.ctrls = append(c.ctrls, ctl)
		c.ordered = c.ordered || (s.Kind == StatefulSet && s.OrderedReady)
		if s.TwinOf >= 0 && s.Kind == Job {
			continue // arrives only through its primary's split
		}
		times := s.Arrivals.Times
		if len(times) == 0 && s.Arrivals.Poisson == nil && s.CronJob == nil {
			times = []time.Duration{0}
		}
		for _, at := range times {
			eng.Schedule(at, engine.Event{Handler: c.id, Kind: evArrive, Obj: int32(i)})
		}
		if p := s.Arrivals.Poisson; p != nil && p.RatePerHour > 0 {
			c.schedulePoisson(int32(i), p.From)
		}
	}
	return c
}

// Workload returns the spec of workload i (the pods' Workload index).
func (c *Controllers) Workload(i int32) *Spec { return &c.ctrls[i].spec }

// Len is the number of workloads.
func (c *Controllers) Len() int { return len(c.ctrls) }

// Stats returns the counters so far.
func (c *Controllers) Stats() Stats { return c.stats }

// WorkloadStats returns the counters of workload i.
func (c *Controllers) WorkloadStats(i int32) WorkloadStats { return c.byWorkload[i] }

// FailedJobs returns the Jobs that failed so far, in the order they did.
func (c *Controllers) FailedJobs() []FailedJob { return c.failedJobs }

// schedulePoisson draws the next candidate arrival at the curve's peak rate
// and keeps it with probability rate(t)/peak (thinning), so a daily cycle
// needs no precomputed schedule.
func (c *Controllers) schedulePoisson(w int32, after time.Duration) {
	ctl := c.ctrls[w]
	p := ctl.spec.Arrivals.Poisson
	peak := p.RatePerHour * (1 + p.Amplitude)
	gap := time.Duration(ctl.arrivals.ExpFloat64() / peak * float64(time.Hour))
	at := after + gap
	if at > p.Until {
		return
	}
	c.eng.Schedule(at, engine.Event{Handler: c.id, Kind: evPoisson, Obj: w})
}

// HandleEvent implements engine.Handler.
func (c *Controllers) HandleEvent(ev engine.Event) {
	switch ev.Kind {
	case evArrive:
		c.arrive(ev.Obj)
	case evPoisson:
		ctl := c.ctrls[ev.Obj]
		p := ctl.spec.Arrivals.Poisson
		now := c.eng.Now()
		if p.Amplitude == 0 || ctl.arrivals.Float64()*p.RatePerHour*(1+p.Amplitude) < p.rate(now) {
			c.arrive(ev.Obj)
		}
		c.schedulePoisson(ev.Obj, now)
	case evStep:
		c.setDesired(ev.Obj, c.ctrls[ev.Obj].spec.Replicas.Steps[ev.Arg].Count)
	case evDaily:
		c.daily(ev.Obj)
	case evHPA:
		c.hpa(ev.Obj)
	case evReconcile:
		c.ctrls[ev.Obj].pending = false
		c.ctrls[ev.Obj].holdStart = false
		c.reconcile(ev.Obj)
	case evResubmit:
		c.resubmit(cluster.PodID(ev.Obj))
	case evDaemonSet:
		c.daemonSetsOn(cluster.NodeID(ev.Obj))
	case evCronLate:
		c.cronLate(ev.Obj)
	case evAvailable:
		c.reconcile(ev.Obj)
	case evJobFailed:
		c.deleteJobPods(c.ctrls[ev.Obj].instances[ev.Arg])
	case evJobDeadline:
		c.jobDeadline(ev.Obj, int32(ev.Arg))
	case evMarkTerminating:
		if id := cluster.PodID(ev.Obj); c.startTerm[id] && c.cl.Pods[id].Phase.OnNode() {
			c.cl.MarkTerminating(id)
		}
	case evTerminated:
		id := cluster.PodID(ev.Obj)
		delete(c.startTerm, id)
		if !c.cl.Pods[id].Phase.Terminal() {
			c.cl.DeletePod(id, cluster.CauseScaleDown)
		}
	}
}

func (c *Controllers) arrive(w int32) {
	ctl := c.ctrls[w]
	s := &ctl.spec
	// A split Job arrival goes to the twin with probability Share.
	if s.Kind == Job && s.Split != nil && ctl.arrivals.Float64() < s.Split.Share {
		w = s.Split.Twin
		ctl = c.ctrls[w]
		s = &ctl.spec
	}
	in := &instance{name: s.Name}
	n := len(ctl.instances)
	if s.Kind == Job && (n > 0 || len(s.Arrivals.Times) > 1 || s.Arrivals.Poisson != nil || s.TwinOf >= 0) {
		in.name = fmt.Sprintf("%s-%d", s.Name, n+1)
	}
	if cj := s.CronJob; cj != nil {
		if !c.cronAdmit(w) {
			return
		}
		in.name = cj.JobName(s.Name, c.eng.Now())
	}
	if n == 0 && len(s.StartTerminating) > 0 {
		c.startTerminating(w, in.name)
	}
	switch s.Kind {
	case Deployment, StatefulSet:
		ctl.instances = append(ctl.instances, in)
		c.startPlan(w)
		return
	case Job:
		in.desired = s.Completions
		c.stats.JobsArrived++
		if s.ActiveDeadline > 0 && s.Parallelism > 0 {
			c.eng.Schedule(c.eng.Now()+s.ActiveDeadline, engine.Event{Handler: c.id, Kind: evJobDeadline, Obj: w, Arg: int64(len(ctl.instances))})
		}
	case BarePod:
		in.desired = 1
	case DaemonSet:
		ctl.onNode = map[cluster.NodeID]cluster.PodID{}
		ctl.instances = append(ctl.instances, in)
		for i := range c.cl.Nodes {
			if c.cl.Nodes[i].State == cluster.NodeReady {
				c.daemonSetOn(w, cluster.NodeID(i))
			}
		}
		return
	}
	ctl.instances = append(ctl.instances, in)
	c.reconcile(w)
}

// startTerminating creates workload w's StartTerminating pods, pinned to
// their nodes and owned by no instance (they are not its pods any more),
// and their deletion when their grace period left is over.
func (c *Controllers) startTerminating(w int32, name string) {
	ctl := c.ctrls[w]
	if c.startTerm == nil {
		c.startTerm = map[cluster.PodID]bool{}
	}
	for i, t := range ctl.spec.StartTerminating {
		id := c.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("%s-terminating-%d", name, i+1), Namespace: ctl.ns,
			Spec: ctl.pinnedSpec(t.Node), Workload: w})
		c.startTerm[id] = true
		c.eng.After(t.Left, engine.Event{Handler: c.id, Kind: evTerminated, Obj: int32(id)})
	}
}

// startPlan applies the replica plan of a Deployment or StatefulSet that
// just arrived: steps already past, then future steps, curve re-reads or
// HPA syncs as engine events.
func (c *Controllers) startPlan(w int32) {
	ctl := c.ctrls[w]
	plan := &ctl.spec.Replicas
	now := c.eng.Now()
	switch {
	case plan.Daily != nil:
		c.daily(w)
	case plan.HPA != nil:
		c.setDesired(w, plan.HPA.Min)
		c.hpa(w)
	case len(plan.Steps) > 0:
		desired := plan.Steps[0].Count
		for k, st := range plan.Steps {
			if st.At <= now {
				desired = st.Count
				continue
			}
			c.eng.Schedule(st.At, engine.Event{Handler: c.id, Kind: evStep, Obj: w, Arg: int64(k)})
		}
		c.setDesired(w, desired)
	default:
		c.reconcile(w) // a split twin waits for its primary
	}
}

func (c *Controllers) daily(w int32) {
	plan := &c.ctrls[w].spec.Replicas
	c.setDesired(w, int32(math.Round(plan.Daily.At(c.eng.Now()))))
	every := plan.DailyEvery
	if every <= 0 {
		every = DefaultDailyEvery
	}
	c.eng.After(every, engine.Event{Handler: c.id, Kind: evDaily, Obj: w})
}

// hpa runs one HorizontalPodAutoscaler sync (k8s podautoscaler
// replica_calculator.go, in short).
func (c *Controllers) hpa(w int32) {
	ctl := c.ctrls[w]
	h := ctl.spec.Replicas.HPA
	now := c.eng.Now()
	current := c.desiredOf(w)
	podCPU := float64(ctl.spec.Pod.Requests[cluster.CPU]) / 1000
	if podCPU > 0 && current > 0 {
		load := h.Load.At(now)
		ratio := load / (float64(current) * podCPU) / h.Target
		desired := current
		if math.Abs(ratio-1) > h.Tolerance {
			desired = int32(math.Ceil(load / (podCPU * h.Target)))
		}
		desired = min(max(desired, h.Min), h.Max)
		ctl.hpaHistory = append(ctl.hpaHistory, hpaRec{now, desired})
		// Scale down only to the highest recommendation of the window.
		keep := ctl.hpaHistory[:0]
		stable := desired
		for _, r := range ctl.hpaHistory {
			if r.at >= now-h.Stabilization {
				keep = append(keep, r)
				stable = max(stable, r.count)
			}
		}
		ctl.hpaHistory = keep
		if desired < current {
			desired = min(current, stable)
		}
		c.setDesired(w, desired)
	}
	c.eng.After(h.Sync, engine.Event{Handler: c.id, Kind: evHPA, Obj: w})
}

// desiredOf is the replica count of a Deployment or StatefulSet, its
// twin's share included.
func (c *Controllers) desiredOf(w int32) int32 {
	ctl := c.ctrls[w]
	var d int32
	for _, in := range ctl.instances {
		d += in.desired
	}
	if s := ctl.spec.Split; s != nil {
		for _, in := range c.ctrls[s.Twin].instances {
			d += in.desired
		}
	}
	return d
}

// setDesired sets a replica count, splitting it with the twin if any.
func (c *Controllers) setDesired(w int32, total int32) {
	ctl := c.ctrls[w]
	own := total
	if s := ctl.spec.Split; s != nil {
		twin := int32(math.Round(float64(total) * s.Share))
		own = total - twin
		tc := c.ctrls[s.Twin]
		if len(tc.instances) == 0 {
			tc.instances = append(tc.instances, &instance{name: tc.spec.Name})
		}
		tc.instances[0].desired = twin
		c.reconcile(s.Twin)
	}
	for _, in := range ctl.instances {
		in.desired = own
	}
	c.reconcile(w)
}

// reconcile brings every instance of workload w to its desired state.
func (c *Controllers) reconcile(w int32) {
	ctl := c.ctrls[w]
	for k, in := range ctl.instances {
		if in.done {
			continue
		}
		switch ctl.spec.Kind {
		case Deployment:
			c.reconcileReplicas(w, int32(k), in)
		case StatefulSet:
			c.reconcileStatefulSet(w, int32(k), in)
		case Job:
			c.reconcileJob(w, int32(k), in)
		case BarePod:
			if in.created == 0 {
				c.createPod(w, int32(k), in, ctl.spec.Pod)
			}
		}
	}
	if ctl.holdStart && !ctl.pending {
		ctl.holdStart = false // every pod of the start is created
	}
}

func (c *Controllers) reconcileReplicas(w, k int32, in *instance) {
	for int32(len(in.live)) < c.startLimit(w, k, in.desired) {
		c.createPod(w, k, in, c.ctrls[w].spec.Pod)
	}
	if excess := int32(len(in.live)) - in.desired; excess > 0 {
		for _, id := range c.scaleDownOrder(in, excess) {
			c.cl.DeletePod(id, cluster.CauseScaleDown)
		}
	}
}

// scaleDownOrder picks n pods of a Deployment to delete: pending before
// bound, newer before older (ReplicaSet's ranking in short).
func (c *Controllers) scaleDownOrder(in *instance, n int32) []cluster.PodID {
	pods := append([]cluster.PodID(nil), in.live...)
	sort.Slice(pods, func(i, j int) bool {
		a, b := &c.cl.Pods[pods[i]], &c.cl.Pods[pods[j]]
		if (a.Phase == cluster.Pending) != (b.Phase == cluster.Pending) {
			return a.Phase == cluster.Pending
		}
		return pods[i] > pods[j]
	})
	return pods[:n]
}

func (c *Controllers) reconcileJob(w, k int32, in *instance) {
	s := &c.ctrls[w].spec
	if in.failed {
		return
	}
	if now := c.eng.Now(); now < in.notBefore {
		if !c.ctrls[w].pending {
			c.ctrls[w].pending = true
			c.eng.Schedule(in.notBefore, engine.Event{Handler: c.id, Kind: evReconcile, Obj: w})
		}
		return
	}
	want := c.startLimit(w, k, min(s.Parallelism, in.desired-in.succeeded))
	for int32(len(in.live)) < want {
		c.createPod(w, k, in, s.Pod)
		if in.owed > 0 {
			in.owed--
			c.stats.PodsReplaced++
		}
	}
	if in.succeeded >= in.desired && len(in.live) == 0 {
		in.done = true
		c.stats.JobsCompleted++
		c.byWorkload[w].JobsCompleted++
		c.cronJobEnded(w)
	}
}

// startLimit is how many live pods instance k of workload w may have
// now: want, or while the start is held, at most its StartOn pods (a
// reconcile at the same instant then creates the rest, after every
// workload's pinned pods are queued).
func (c *Controllers) startLimit(w, k int32, want int32) int32 {
	ctl := c.ctrls[w]
	if !ctl.holdStart || k != 0 {
		return want
	}
	if n := int32(len(ctl.spec.StartOn)); want > n {
		if !ctl.pending {
			ctl.pending = true
			c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evReconcile, Obj: w})
		}
		return n
	}
	return want
}

func (c *Controllers) createPod(w, k int32, in *instance, spec *cluster.PodSpec) cluster.PodID {
	ctl := c.ctrls[w]
	start := -1 // the pod's entry in StartedAgo, if it has one
	switch {
	case k == 0 && ctl.holdStart && int(in.created) < len(ctl.spec.StartOn) && spec == ctl.spec.Pod:
		start = int(in.created)
		if node := ctl.spec.StartOn[start]; node != "" {
			spec = ctl.pinnedSpec(node)
		}
	case ctl.spec.Kind == BarePod:
		start = 0 // an imported bare Pod's own status.startTime (created at 0: the loader sees to it)
	}
	id := c.createNamedPod(w, k, in, spec, "")
	if start >= 0 && start < len(ctl.spec.StartedAgo) {
		c.cl.Pods[id].StartedBefore = ctl.spec.StartedAgo[start]
	}
	return id
}

// pinnedSpec is the workload's pod spec bound to one node (spec.nodeName),
// one copy per node.
func (ctl *controller) pinnedSpec(node string) *cluster.PodSpec {
	if s, ok := ctl.pinned[node]; ok {
		return s
	}
	if ctl.pinned == nil {
		ctl.pinned = map[string]*cluster.PodSpec{}
	}
	s := *ctl.spec.Pod
	s.NodeName = node
	ctl.pinned[node] = &s
	return &s
}

// freeOrdinal is the lowest StatefulSet ordinal none of the instance's
// live pods holds.
func (c *Controllers) freeOrdinal(in *instance) int {
	for k := 0; ; k++ {
		name := fmt.Sprintf("%s-%d", in.name, k)
		taken := false
		for _, id := range in.live {
			if c.cl.Pods[id].Name == name {
				taken = true
				break
			}
		}
		if !taken {
			return k
		}
	}
}

// createNamedPod creates a pod of instance k of workload w; name "" names
// it after the instance.
func (c *Controllers) createNamedPod(w, k int32, in *instance, spec *cluster.PodSpec, name string) cluster.PodID {
	ctl := c.ctrls[w]
	s := &ctl.spec
	switch {
	case name != "":
	case s.Kind == StatefulSet:
		// The lowest ordinal no live pod holds: a lost replica comes back
		// under its own name, and finds its volumeClaimTemplates' claims.
		name = fmt.Sprintf("%s-%d", in.name, c.freeOrdinal(in))
	case s.Kind == BarePod:
		name = in.name
	default:
		name = fmt.Sprintf("%s-%d", in.name, in.created+1)
	}
	in.created++
	p := cluster.Pod{Name: name, Namespace: ctl.ns, Spec: spec, Workload: w}
	if s.Runtime != nil {
		p.RunFor = s.Runtime.Sample(ctl.runtime)
	}
	id := c.cl.CreatePod(p)
	c.stats.PodsCreated++
	c.setOwner(id, ownerRef{ctrl: w, inst: k})
	in.live = append(in.live, id)
	if fb := s.Fallback; fb != nil && spec != fb.Pod {
		c.resubmitTimers[id] = c.eng.After(fb.After, engine.Event{Handler: c.id, Kind: evResubmit, Obj: int32(id)})
	}
	return id
}

// resubmit replaces a pod still pending after its fallback timeout with a
// pod of the fallback spec, in the same instance (a Job keeps its
// progress: the pod never ran).
func (c *Controllers) resubmit(id cluster.PodID) {
	delete(c.resubmitTimers, id)
	p := &c.cl.Pods[id]
	if p.Phase != cluster.Pending {
		return
	}
	o := c.owner[id]
	ctl := c.ctrls[o.ctrl]
	in := ctl.instances[o.inst]
	c.removeLive(in, id)
	c.cl.DeletePod(id, cluster.CauseResubmitted)
	c.stats.Resubmissions++
	c.byWorkload[o.ctrl].Resubmissions++
	c.createPod(o.ctrl, o.inst, in, ctl.spec.Fallback.Pod)
}

func (c *Controllers) setOwner(id cluster.PodID, o ownerRef) {
	for int(id) >= len(c.owner) {
		c.owner = append(c.owner, ownerRef{ctrl: -1})
	}
	c.owner[id] = o
}

// ownedBy reports whether the pod is an instance's pod of a kind-k
// workload.
func (c *Controllers) ownedBy(id cluster.PodID, k Kind) bool {
	if int(id) >= len(c.owner) || c.owner[id].ctrl < 0 {
		return false
	}
	return c.ctrls[c.owner[id].ctrl].spec.Kind == k
}

func (c *Controllers) removeLive(in *instance, id cluster.PodID) bool {
	for i, have := range in.live {
		if have == id {
			in.live = append(in.live[:i], in.live[i+1:]...)
			return true
		}
	}
	return false
}

// OnChange implements cluster.Watcher: a controller learns that one of its
// pods ended, or that a node came or went (DaemonSets), and acts in an
// event of its own.
func (c *Controllers) OnChange(ch cluster.Change) {
	switch ch.Kind {
	case cluster.NodeReadied:
		c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evDaemonSet, Obj: int32(ch.Node)})
		return
	case cluster.PodFinished, cluster.PodDeleted:
	case cluster.PodTerminating:
		// A ReplicaSet does not count a terminating pod
		// (controller.FilterActivePods): it replaces it at once, while
		// the pod still holds its room. Other kinds wait for it to go.
		if !c.ownedBy(ch.Pod, Deployment) {
			return
		}
	case cluster.PodBound:
		if len(c.startTerm) > 0 && c.startTerm[ch.Pod] {
			c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evMarkTerminating, Obj: int32(ch.Pod)})
		}
		return
	case cluster.PodStarted:
		if c.ordered && int(ch.Pod) < len(c.owner) {
			if w := c.owner[ch.Pod].ctrl; w >= 0 && c.ctrls[w].spec.Kind == StatefulSet && c.ctrls[w].spec.OrderedReady {
				c.orderedStarted(w)
			}
		}
		return
	default:
		return
	}
	if t, ok := c.resubmitTimers[ch.Pod]; ok {
		c.eng.Cancel(t)
		delete(c.resubmitTimers, ch.Pod)
	}
	if int(ch.Pod) >= len(c.owner) || c.owner[ch.Pod].ctrl < 0 {
		return
	}
	o := c.owner[ch.Pod]
	ctl := c.ctrls[o.ctrl]
	in := ctl.instances[o.inst]
	if !c.removeLive(in, ch.Pod) {
		return // already forgotten (resubmitted)
	}
	p := &c.cl.Pods[ch.Pod]
	lost := ch.Kind == cluster.PodTerminating || p.Phase == cluster.Deleted && p.Cause != cluster.CauseScaleDown &&
		p.Cause != cluster.CauseResubmitted && p.Cause != cluster.CauseJobFailed
	switch ctl.spec.Kind {
	case DaemonSet:
		if ctl.onNode[ch.Node] == ch.Pod {
			delete(ctl.onNode, ch.Node)
		}
		if lost && c.cl.Nodes[ch.Node].State != cluster.NodeGone {
			c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evDaemonSet, Obj: int32(ch.Node)})
		}
		return
	case BarePod:
		in.done = true
		return
	case Job:
		c.jobPodEnded(o.ctrl, o.inst, in, p, lost)
	}
	if lost && ctl.spec.Kind != Job { // a Job counts its replacements as it makes them
		c.stats.PodsReplaced++
	}
	if !ctl.pending {
		ctl.pending = true
		c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evReconcile, Obj: o.ctrl})
	}
}

// jobPodEnded accounts the end of a pod of instance k of Job w: success,
// or a loss that throws its progress away and may count towards
// backoffLimit.
func (c *Controllers) jobPodEnded(w, k int32, in *instance, p *cluster.Pod, lost bool) {
	s := &c.ctrls[w].spec
	if p.Phase == cluster.Succeeded {
		in.succeeded++
		return
	}
	if p.Ran && p.Phase == cluster.Deleted {
		// Its work is thrown away, whatever deleted it.
		secs := (p.Ended - p.Started).Seconds()
		c.stats.LostPodSeconds += secs
		c.byWorkload[w].LostPodSeconds += secs
	}
	if !lost || in.failed {
		return // a failed Job's pods lost before it deleted them count no more
	}
	if s.IgnoreDisruptions {
		in.owed++
		return
	}
	in.failures++
	c.stats.JobPodFailures++
	if p.Phase == cluster.Deleted && int(p.Cause) < len(in.lostBy) {
		in.lostBy[p.Cause]++
	}
	if in.failures > s.BackoffLimit {
		in.failed, in.done = true, true
		c.stats.JobsFailed++
		c.byWorkload[w].JobsFailed++
		c.failedJobs = append(c.failedJobs, FailedJob{Workload: w, Job: s.Namespace + "/" + in.name, At: c.eng.Now(),
			Reason: backoffReason(s.BackoffLimit, in)})
		// Its other pods go in an event of their own: this runs while
		// the cluster tells of a change, which must not be changed.
		if len(in.live) > 0 {
			c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evJobFailed, Obj: w, Arg: int64(k)})
		}
		c.cronJobEnded(w)
		return
	}
	in.owed++
	delay := jobBackoffBase
	for i := int32(1); i < in.failures && delay < jobBackoffMax; i++ {
		delay *= 2
	}
	in.notBefore = c.eng.Now() + min(delay, jobBackoffMax)
}

// deleteJobPods deletes a failed Job's pods still alive.
func (c *Controllers) deleteJobPods(in *instance) {
	for _, id := range append([]cluster.PodID(nil), in.live...) {
		c.cl.DeletePod(id, cluster.CauseJobFailed)
	}
}

// jobDeadline fails instance k of Job w if it is still active when its
// activeDeadlineSeconds are over (the Job controller's DeadlineExceeded,
// pkg/controller/job/job_controller.go), counting from its arrival: the
// controller sets status.startTime when it first syncs the Job.
func (c *Controllers) jobDeadline(w, k int32) {
	in := c.ctrls[w].instances[k]
	if in.done {
		return
	}
	s := &c.ctrls[w].spec
	in.failed, in.done = true, true
	c.stats.JobsFailed++
	c.byWorkload[w].JobsFailed++
	c.failedJobs = append(c.failedJobs, FailedJob{Workload: w, Job: s.Namespace + "/" + in.name, At: c.eng.Now(),
		Reason: fmt.Sprintf("exceeded activeDeadlineSeconds %d with %d of %d completions", int64(s.ActiveDeadline/time.Second), in.succeeded, in.desired)})
	c.deleteJobPods(in)
	c.cronJobEnded(w)
}

// backoffReason says why a Job hit its backoffLimit: the limit, the
// failures, and what deleted the pods ("5 nodeGone, 2 evicted").
func backoffReason(limit int32, in *instance) string {
	var parts []string
	for cause, n := range in.lostBy {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, cluster.DeleteCause(cause)))
		}
	}
	return fmt.Sprintf("exceeded backoffLimit %d after %d pod failures (%s)", limit, in.failures, strings.Join(parts, ", "))
}

// DaemonSets ---------------------------------------------------------------

// daemonSetTolerations are the tolerations the DaemonSet controller adds
// to its pods (k8s daemon/util AddOrUpdateDaemonPodTolerations): they run
// on cordoned and not-ready nodes.
var daemonSetTolerations = []string{
	"node.kubernetes.io/unschedulable", "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
	"node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure", "node.kubernetes.io/pid-pressure",
}

// DaemonSetTolerations appends the DaemonSet controller's tolerations to a
// compiled pod spec's; the scenario uses it when compiling DaemonSets.
func DaemonSetTolerations(syms *cluster.Symbols, tols cluster.Tolerations) cluster.Tolerations {
	out := append(cluster.Tolerations(nil), tols...)
	for _, k := range daemonSetTolerations {
		out = append(out, cluster.Toleration{Key: syms.Intern(k), Op: cluster.TolerateExists, Seconds: cluster.Forever})
	}
	return out
}

func (c *Controllers) daemonSetsOn(n cluster.NodeID) {
	for w, ctl := range c.ctrls {
		if ctl.spec.Kind == DaemonSet && ctl.onNode != nil {
			c.daemonSetOn(int32(w), n)
		}
	}
}

// daemonSetOn creates the DaemonSet's pod on a Ready node it matches.
func (c *Controllers) daemonSetOn(w int32, n cluster.NodeID) {
	ctl := c.ctrls[w]
	node := &c.cl.Nodes[n]
	if node.State != cluster.NodeReady {
		return
	}
	if _, has := ctl.onNode[n]; has {
		return
	}
	if !DaemonSetMatches(c.cl.Syms, ctl.spec.Pod, node) {
		return
	}
	spec := *ctl.spec.Pod
	spec.NodeName = node.Name
	id := c.createNamedPod(w, 0, ctl.instances[0], &spec, ctl.spec.Name+"-"+node.Name)
	ctl.onNode[n] = id
}

// DaemonSetMatches reports whether a DaemonSet's pod would run on a node:
// its taints tolerated and its node affinity matched (resources are not
// checked: the pod is scheduled there anyway, and may have to wait or
// preempt).
func DaemonSetMatches(syms *cluster.Symbols, spec *cluster.PodSpec, n *cluster.Node) bool {
	if _, bad := spec.Tolerations.FirstUntolerated(n.Taints); bad {
		return false
	}
	return cluster.MatchesNodeSelectors(syms, spec, n)
}

// DaemonSetOverhead sums the requests of the DaemonSets that would run a
// pod on a node like n (which need not exist yet): what an autoscaler must
// leave room for on a new node.
func (c *Controllers) DaemonSetOverhead(n *cluster.Node) cluster.Resources {
	var r cluster.Resources
	for _, ctl := range c.ctrls {
		if ctl.spec.Kind == DaemonSet && DaemonSetMatches(c.cl.Syms, ctl.spec.Pod, n) {
			r = r.Add(ctl.spec.Pod.Requests)
		}
	}
	return r
}
