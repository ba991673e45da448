package schedfidelity

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/scheduler"
)

// Ours is a case loaded into sim/scheduler: a cluster with the case's
// nodes (added in the case's order) and existing pods bound, and the
// scheduler with its default profile watching it. Nothing runs the
// engine: the harness calls Evaluate for one cycle at a time.
type Ours struct {
	cl    *cluster.Cluster
	s     *scheduler.Scheduler
	nodes map[string]cluster.NodeID
	specs map[string]*cluster.PodSpec
	// Detail asks Evaluate for every plugin's scores (for -only).
	Detail bool
	// Elapsed sums the CPU time spent in Evaluate.
	Elapsed time.Duration
}

func priority(class string) (int32, bool, bool) {
	v, ok := PriorityClasses[class]
	return v, false, ok
}

// NewOurs builds our side of a case.
func NewOurs(c *Case) (*Ours, error) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	cfg := scheduler.Config{}
	if c.Percentage != 0 {
		p := scheduler.DefaultProfile()
		p.PercentageOfNodesToScore = c.Percentage
		cfg.Profiles = []scheduler.Profile{p}
	}
	s, err := scheduler.New(eng, cl, cfg)
	if err != nil {
		return nil, err
	}
	o := &Ours{cl: cl, s: s, nodes: map[string]cluster.NodeID{}, specs: map[string]*cluster.PodSpec{}}
	for _, n := range c.Nodes {
		alloc, err := cl.Resources.FromList(n.Status.Allocatable)
		if err != nil {
			return nil, fmt.Errorf("%s: node %s: %w", c.Name, n.Name, err)
		}
		cn := cluster.Node{Name: n.Name, Labels: cluster.CompileLabels(cl.Syms, n.Labels), Allocatable: alloc,
			Unschedulable: n.Spec.Unschedulable, State: cluster.NodeReady}
		if z := n.Labels[LabelZone]; z != "" {
			cn.Zone = cl.Syms.Intern(z)
		}
		for _, t := range n.Spec.Taints {
			ct, err := cluster.CompileTaint(cl.Syms, t)
			if err != nil {
				return nil, fmt.Errorf("%s: node %s: %w", c.Name, n.Name, err)
			}
			cn.Taints = append(cn.Taints, ct)
		}
		o.nodes[n.Name] = cl.AddNode(cn)
	}
	for _, p := range c.Existing {
		id, err := o.create(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		o.cl.Bind(id, o.nodes[p.Spec.NodeName])
	}
	return o, nil
}

// create adds a pending pod; a pod naming its node is created without the
// name (the harness binds it itself).
func (o *Ours) create(p *corev1.Pod) (cluster.PodID, error) {
	spec := p.Spec.DeepCopy()
	spec.NodeName = ""
	// Replicas of a template share one compiled spec, as the simulator's
	// workloads do.
	b, err := json.Marshal(struct {
		L map[string]string
		S *corev1.PodSpec
	}{p.Labels, spec})
	if err != nil {
		return 0, err
	}
	cs, ok := o.specs[string(b)]
	if !ok {
		if cs, _, err = cluster.CompilePodSpec(o.cl.Syms, o.cl.Resources, cluster.PodSpecInput{Namespace: p.Namespace, Labels: p.Labels, Spec: spec, Priority: priority}); err != nil {
			return 0, fmt.Errorf("pod %s: %w", p.Name, err)
		}
		o.specs[string(b)] = cs
	}
	return o.cl.CreatePod(cluster.Pod{Name: p.Name, Namespace: o.cl.Syms.Intern(p.Namespace), Spec: cs, Workload: -1}), nil
}

// Pending is a pod created on our side, waiting for Evaluate.
type Pending = cluster.PodID

// Create adds the pod as pending.
func (o *Ours) Create(p *corev1.Pod) (Pending, error) { return o.create(p) }

// Evaluate runs one of our cycles for the pod.
func (o *Ours) Evaluate(id Pending) (Answer, error) {
	start := threadCPU()
	ev, err := o.s.Evaluate(id, o.Detail)
	o.Elapsed += threadCPU() - start
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Message: ev.Message}
	name := func(n cluster.NodeID) string { return o.cl.Nodes[n].Name }
	if ev.Chosen != cluster.NoNode {
		a.Chosen = name(ev.Chosen)
	}
	for _, n := range ev.Feasible {
		a.Feasible = append(a.Feasible, name(n))
	}
	if len(ev.Scores) > 0 {
		a.Scores = map[string]int64{}
		a.Plugins = map[string]map[string]int64{}
		for pl, vs := range ev.PluginScores {
			a.Plugins[pl] = map[string]int64{}
			for i, v := range vs {
				a.Plugins[pl][name(ev.Feasible[i])] = v
			}
		}
		best := ev.Scores[0]
		for _, v := range ev.Scores {
			best = max(best, v)
		}
		for i, n := range ev.Feasible {
			a.Scores[name(n)] = ev.Scores[i]
			if ev.Scores[i] == best {
				a.Top = append(a.Top, name(n))
			}
		}
	} else {
		a.Top = a.Feasible
	}
	sort.Strings(a.Feasible)
	sort.Strings(a.Top)
	return a, nil
}

// Bind places the pending pod on the named node.
func (o *Ours) Bind(id Pending, node string) { o.cl.Bind(id, o.nodes[node]) }
