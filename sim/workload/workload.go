// Package workload models the controllers that own pods: Deployments and
// StatefulSets keep a replica count that the scenario changes over time;
// Jobs run pods to completion, arriving once or many times; bare Pods are
// created once and never replaced.
//
// Simplifications (see the README's Fidelity section): controllers react at
// once (no reconcile latency); a Deployment's rollout strategy is not
// modelled (replicas are replaced one for one); scale-down deletes pending
// pods first, then the newest bound ones, which is the gist of the
// ReplicaSet controller's ranking; a Job's evicted pod is replaced and its
// progress is lost, with no backoffLimit accounting; StatefulSets create and
// delete pods in ordinal order without waiting for readiness.
package workload

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/engine"
)

// Kind is the owner kind.
type Kind uint8

// Workload kinds.
const (
	Deployment Kind = iota
	StatefulSet
	Job
	BarePod
)

var kindNames = [...]string{"Deployment", "StatefulSet", "Job", "Pod"}

func (k Kind) String() string { return kindNames[k] }

// Step sets the desired replica count from At on.
type Step struct {
	At    time.Duration
	Count int32
}

// Poisson arrivals at RatePerHour between From and Until.
type Poisson struct {
	RatePerHour float64
	From, Until time.Duration
}

// Arrivals say when a workload is created: at each of Times, plus Poisson
// arrivals. Empty means once, at 0.
type Arrivals struct {
	Times   []time.Duration
	Poisson *Poisson
}

// Spec is one compiled workload.
type Spec struct {
	Kind      Kind
	Namespace string
	Name      string
	Pod       *cluster.PodSpec
	// Replicas for Deployments and StatefulSets, sorted by At; the first
	// step is at 0.
	Replicas []Step
	Arrivals Arrivals
	// Runtime of each pod once Running (Jobs; optional for bare Pods);
	// nil runs until the end.
	Runtime dist.Duration
	// Parallelism and Completions of a Job.
	Parallelism, Completions int32
}

// Ref is "Kind/namespace/name".
func (s *Spec) Ref() string { return fmt.Sprintf("%s/%s/%s", s.Kind, s.Namespace, s.Name) }

// Event kinds of the controllers' handler.
const (
	evArrive    uint16 = iota // Obj = workload, Arg = instance (Job arrivals)
	evStep                    // Obj = workload, Arg = step index
	evReconcile               // Obj = workload
	evPoisson                 // Obj = workload: the next Poisson arrival
)

// instance is one created copy of a workload: one Deployment, or one
// arrival of a Job.
type instance struct {
	name      string
	desired   int32
	succeeded int32
	created   int32 // pods made so far, for names and StatefulSet ordinals
	live      []cluster.PodID
	done      bool
}

type controller struct {
	spec      Spec
	ns        cluster.Sym
	instances []*instance
	runtime   *rand.Rand
	arrivals  *rand.Rand
	pending   bool // a reconcile event is scheduled
	stepIdx   int
}

// Controllers runs every workload of a scenario.
type Controllers struct {
	eng   *engine.Engine
	cl    *cluster.Cluster
	id    engine.HandlerID
	ctrls []*controller
	// owner maps a PodID to its instance; grows with the cluster's pods.
	owner []ownerRef
	stats Stats
}

type ownerRef struct {
	ctrl, inst int32
}

// Stats count controller actions.
type Stats struct {
	PodsCreated  uint64
	PodsReplaced uint64 // created to replace a pod lost to eviction or node loss
	JobsArrived  uint64
	JobsComplete uint64
}

// New registers the controllers and schedules every workload's arrivals.
func New(eng *engine.Engine, cl *cluster.Cluster, specs []Spec) *Controllers {
	c := &Controllers{eng: eng, cl: cl}
	c.id = eng.Register(c)
	cl.Watch(c)
	for i, s := range specs {
		ref := s.Ref()
		ctl := &controller{
			spec:     s,
			ns:       cl.Syms.Intern(s.Namespace),
			runtime:  eng.Stream("workload/" + ref + "/runtime"),
			arrivals: eng.Stream("workload/" + ref + "/arrivals"),
		}
		c.ctrls = append(c.ctrls, ctl)
		times := s.Arrivals.Times
		if len(times) == 0 && s.Arrivals.Poisson == nil {
			times = []time.Duration{0}
		}
		for k, at := range times {
			eng.Schedule(at, engine.Event{Handler: c.id, Kind: evArrive, Obj: int32(i), Arg: int64(k)})
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

func (c *Controllers) schedulePoisson(w int32, after time.Duration) {
	ctl := c.ctrls[w]
	p := ctl.spec.Arrivals.Poisson
	gap := time.Duration(ctl.arrivals.ExpFloat64() / p.RatePerHour * float64(time.Hour))
	at := after + gap
	if at > p.Until {
		return
	}
	c.eng.Schedule(at, engine.Event{Handler: c.id, Kind: evPoisson, Obj: w})
}

// HandleEvent implements engine.Handler.
func (c *Controllers) HandleEvent(ev engine.Event) {
	w := ev.Obj
	ctl := c.ctrls[w]
	switch ev.Kind {
	case evArrive:
		c.arrive(w)
	case evPoisson:
		c.arrive(w)
		c.schedulePoisson(w, c.eng.Now())
	case evStep:
		ctl.stepIdx = int(ev.Arg)
		desired := ctl.spec.Replicas[ev.Arg].Count
		for _, in := range ctl.instances {
			in.desired = desired
		}
		c.reconcile(w)
	case evReconcile:
		ctl.pending = false
		c.reconcile(w)
	}
}

func (c *Controllers) arrive(w int32) {
	ctl := c.ctrls[w]
	s := &ctl.spec
	in := &instance{name: s.Name}
	n := len(ctl.instances)
	if n > 0 || len(s.Arrivals.Times) > 1 || s.Arrivals.Poisson != nil {
		in.name = fmt.Sprintf("%s-%d", s.Name, n+1)
	}
	switch s.Kind {
	case Deployment, StatefulSet:
		in.desired = s.Replicas[0].Count
		if n == 0 {
			// Replica steps are relative to the scenario clock; apply the
			// ones already past and schedule the rest.
			now := c.eng.Now()
			for k := range s.Replicas {
				if s.Replicas[k].At <= now {
					in.desired = s.Replicas[k].Count
					ctl.stepIdx = k
					continue
				}
				c.eng.Schedule(s.Replicas[k].At, engine.Event{Handler: c.id, Kind: evStep, Obj: w, Arg: int64(k)})
			}
		}
	case Job:
		in.desired = s.Completions
		c.stats.JobsArrived++
	case BarePod:
		in.desired = 1
	}
	ctl.instances = append(ctl.instances, in)
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
		case Deployment, StatefulSet:
			c.reconcileReplicas(w, int32(k), in)
		case Job:
			c.reconcileJob(w, int32(k), in)
		case BarePod:
			if in.created == 0 {
				c.createPod(w, int32(k), in)
			}
		}
	}
}

func (c *Controllers) reconcileReplicas(w, k int32, in *instance) {
	for int32(len(in.live)) < in.desired {
		c.createPod(w, k, in)
	}
	if excess := int32(len(in.live)) - in.desired; excess > 0 {
		for _, id := range c.scaleDownOrder(in, excess) {
			c.cl.DeletePod(id, cluster.CauseScaleDown)
		}
	}
}

// scaleDownOrder picks n pods to delete: pending before bound, newer before
// older (ReplicaSet's ranking in short); StatefulSets remove the highest
// ordinals, which are also the newest.
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
	remaining := in.desired - in.succeeded
	want := min(s.Parallelism, remaining)
	for int32(len(in.live)) < want {
		c.createPod(w, k, in)
	}
	if in.succeeded >= in.desired && len(in.live) == 0 {
		in.done = true
		c.stats.JobsComplete++
	}
}

func (c *Controllers) createPod(w, k int32, in *instance) {
	ctl := c.ctrls[w]
	s := &ctl.spec
	var name string
	switch s.Kind {
	case StatefulSet:
		name = fmt.Sprintf("%s-%d", in.name, in.created)
	case BarePod:
		name = in.name
	default:
		name = fmt.Sprintf("%s-%d", in.name, in.created+1)
	}
	in.created++
	p := cluster.Pod{Name: name, Namespace: ctl.ns, Spec: s.Pod, Workload: w}
	if s.Runtime != nil {
		p.RunFor = s.Runtime.Sample(ctl.runtime)
	}
	id := c.cl.CreatePod(p)
	c.stats.PodsCreated++
	c.setOwner(id, ownerRef{ctrl: w, inst: k})
	in.live = append(in.live, id)
}

func (c *Controllers) setOwner(id cluster.PodID, o ownerRef) {
	for int(id) >= len(c.owner) {
		c.owner = append(c.owner, ownerRef{ctrl: -1})
	}
	c.owner[id] = o
}

// OnChange implements cluster.Watcher: a controller learns that one of its
// pods ended, and reconciles in an event of its own.
func (c *Controllers) OnChange(ch cluster.Change) {
	if ch.Kind != cluster.PodFinished && ch.Kind != cluster.PodDeleted {
		return
	}
	if int(ch.Pod) >= len(c.owner) || c.owner[ch.Pod].ctrl < 0 {
		return
	}
	o := c.owner[ch.Pod]
	ctl := c.ctrls[o.ctrl]
	in := ctl.instances[o.inst]
	for i, id := range in.live {
		if id == ch.Pod {
			in.live = append(in.live[:i], in.live[i+1:]...)
			break
		}
	}
	p := &c.cl.Pods[ch.Pod]
	if p.Phase == cluster.Succeeded {
		in.succeeded++
	}
	if p.Phase == cluster.Deleted && p.Cause != cluster.CauseScaleDown && ctl.spec.Kind != BarePod {
		c.stats.PodsReplaced++
	}
	if ctl.spec.Kind == BarePod {
		in.done = true
		return
	}
	if !ctl.pending {
		ctl.pending = true
		c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evReconcile, Obj: o.ctrl})
	}
}
