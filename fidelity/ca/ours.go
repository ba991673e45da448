package ca

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cloud/cloudtest"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
)

// noEvictor is the eviction API of our side: a scale-up decision evicts
// nothing.
type noEvictor struct{}

func (noEvictor) Evict(cluster.PodID, cluster.DeleteCause) bool { return false }
func (noEvictor) Blocked(cluster.PodID) bool                    { return false }

// Ours is a case set up for our Cluster Autoscaler: its groups' nodes
// launched and Ready, each holding one filler pod that takes all its
// room, and the case's pods pending and marked unschedulable.
type Ours struct {
	CA      *clusterautoscaler.Autoscaler
	Cluster *cluster.Cluster
	Names   map[cluster.PodID]string
}

// NodeGroups returns the case's groups as our compiled node groups:
// on-demand ASGs whose node-template tags carry the labels and taints (as
// a group scaled from zero needs, and as the template is built from).
func NodeGroups(cat *catalog.Catalog, c *Case) ([]config.NodeGroup, error) {
	var out []config.NodeGroup
	for _, g := range c.Groups {
		it, ok := cat.Lookup(g.InstanceType)
		if !ok {
			return nil, fmt.Errorf("%s: unknown instance type %s", c.Name, g.InstanceType)
		}
		tags := map[string]string{}
		var taints []config.Taint
		for k, v := range g.Labels {
			tags[config.TagPrefixLabel+k] = v
		}
		for _, t := range g.Taints {
			tags[config.TagPrefixTaint+t.Key] = t.Value + ":NoSchedule"
			taints = append(taints, config.Taint{Key: t.Key, Value: t.Value, Effect: "NoSchedule"})
		}
		tpl, _ := config.BuildTemplate(it, Region, g.Zones, tags, nil, nil)
		out = append(out, config.NodeGroup{
			Name: g.Name, ASGName: g.Name, InstanceTypes: []string{g.InstanceType},
			Zones: append([]string(nil), g.Zones...), MinSize: g.Min, MaxSize: g.Max, DesiredCapacity: g.Size,
			OnDemandPercent: 100, OnDemandStrategy: cloud.Prioritized, SpotStrategy: cloud.PriceCapacityOptimized,
			Labels: g.Labels, Taints: taints, Tags: tags, Template: tpl,
			File: c.Name, Line: 1, Path: "groups",
		})
	}
	return out, nil
}

// Settings are the Cluster Autoscaler's defaults with the case's expander
// chain and priorities.
func Settings(c *Case) (config.Settings, error) {
	s := config.DefaultSettings()
	s.Expanders = append([]string(nil), c.Expanders...)
	// Every group is the Cluster Autoscaler's, as in upstream's test
	// provider: --nodes=<min>:<max>:<name> each.
	for _, g := range c.Groups {
		s.Nodes = append(s.Nodes, config.NodesSpec{Min: g.Min, Max: g.Max, Name: g.Name})
	}
	if c.Priorities != nil {
		p := &config.Priorities{File: c.Name, Line: 1}
		var prios []int
		for k := range c.Priorities {
			prios = append(prios, k)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(prios)))
		for _, k := range prios {
			r := config.PriorityRule{Priority: k}
			for _, re := range c.Priorities[k] {
				rx, err := regexp.Compile(re)
				if err != nil {
					return s, fmt.Errorf("%s: priority regex %q: %w", c.Name, re, err)
				}
				r.Regexes = append(r.Regexes, rx)
				r.Lines = append(r.Lines, 1)
			}
			p.Rules = append(p.Rules, r)
		}
		s.Priorities = p
	}
	return s, nil
}

// BuildOurs sets a case up for sim/clusterautoscaler.
func BuildOurs(cat *catalog.Catalog, c *Case) (*Ours, error) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	groups, err := NodeGroups(cat, c)
	if err != nil {
		return nil, err
	}
	settings, err := Settings(c)
	if err != nil {
		return nil, err
	}
	fc := cloudtest.New(eng, cloudtest.FlatPrice(0.1))
	fc.ReadyAfter = time.Second
	a, err := clusterautoscaler.New(clusterautoscaler.Deps{Engine: eng, Cluster: cl, Catalog: cat, Cloud: fc, Evictor: noEvictor{}},
		clusterautoscaler.Config{Region: Region, Zones: Zones, NodeGroups: groups, Settings: settings})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	eng.Run(engine.Time(5 * time.Second))
	ns := cl.Syms.Intern("default")
	// Fill every node: one pod requesting its whole allocatable, so no
	// pending pod fits an existing node on either side.
	for i := range cl.Nodes {
		nd := &cl.Nodes[i]
		if nd.State != cluster.NodeReady {
			return nil, fmt.Errorf("%s: node %s is not Ready after 5s", c.Name, nd.Name)
		}
		spec := &cluster.PodSpec{}
		spec.Requests[cluster.CPU] = nd.Allocatable[cluster.CPU]
		spec.Requests[cluster.Memory] = nd.Allocatable[cluster.Memory]
		id := cl.CreatePod(cluster.Pod{Name: "filler-" + nd.Name, Namespace: ns, Spec: spec, Workload: -1})
		cl.Bind(id, cluster.NodeID(i))
	}
	o := &Ours{CA: a, Cluster: cl, Names: map[cluster.PodID]string{}}
	specs := map[string]*cluster.PodSpec{}
	for _, p := range c.Pods {
		key := specKey(p)
		spec, ok := specs[key]
		if !ok {
			cs, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Namespace: p.Namespace, Labels: p.Labels, Spec: &p.Spec})
			if err != nil {
				return nil, fmt.Errorf("%s: pod %s: %w", c.Name, p.Name, err)
			}
			spec, specs[key] = cs, cs
		}
		id := cl.CreatePod(cluster.Pod{Name: p.Name, Namespace: ns, Spec: spec, Workload: -1})
		cl.MarkUnschedulable(id)
		o.Names[id] = p.Name
	}
	return o, nil
}

// specKey identifies pods that share a template (same labels and spec).
func specKey(p *corev1.Pod) string {
	b, _ := json.Marshal(struct {
		L map[string]string
		S corev1.PodSpec
	}{p.Labels, p.Spec})
	return string(b)
}

// Run decides one scale-up and converts it.
func (o *Ours) Run() Decision {
	return o.convert(o.CA.DecideScaleUp())
}

func (o *Ours) convert(d clusterautoscaler.ScaleUpDecision) Decision {
	var out Decision
	for _, opt := range d.Options {
		x := Option{Group: opt.Group, Nodes: opt.Nodes}
		for _, id := range opt.Pods {
			x.Pods = append(x.Pods, o.Names[id])
		}
		sort.Strings(x.Pods)
		out.Options = append(out.Options, x)
	}
	for _, i := range d.Best {
		out.Best = append(out.Best, d.Options[i].Group)
	}
	sort.Strings(out.Best)
	return out
}

// Decision is one side's scale-up decision in neutral terms.
type Decision struct {
	// Options are the groups the estimate found room in, by group name.
	Options []Option
	// Best names the options the expander chain kept (ties: the chain's
	// random fallback picks among them), sorted.
	Best []string
}

// Option is one group's estimate: nodes and the pods they take (sorted
// names).
type Option struct {
	Group string
	Nodes int
	Pods  []string
}

// option returns the option of group g.
func (d Decision) option(g string) (Option, bool) {
	for _, o := range d.Options {
		if o.Group == g {
			return o, true
		}
	}
	return Option{}, false
}
