package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scheduler"
)

// schedulerConfigAPIVersion is the served version of the kube-scheduler's
// configuration file.
const schedulerConfigAPIVersion = "kubescheduler.config.k8s.io/v1"

// schedulerConfiguration is the part of a KubeSchedulerConfiguration the
// model reads. Fields about the process (client connection, leader
// election, profiling) are accepted and have no effect.
type schedulerConfiguration struct {
	APIVersion                string            `json:"apiVersion"`
	Kind                      string            `json:"kind"`
	Parallelism               *int32            `json:"parallelism,omitempty"`
	LeaderElection            json.RawMessage   `json:"leaderElection,omitempty"`
	ClientConnection          json.RawMessage   `json:"clientConnection,omitempty"`
	EnableProfiling           *bool             `json:"enableProfiling,omitempty"`
	EnableContentionProfiling *bool             `json:"enableContentionProfiling,omitempty"`
	DelayCacheUntilActive     bool              `json:"delayCacheUntilActive,omitempty"`
	PercentageOfNodesToScore  *int32            `json:"percentageOfNodesToScore,omitempty"`
	PodInitialBackoffSeconds  *int64            `json:"podInitialBackoffSeconds,omitempty"`
	PodMaxBackoffSeconds      *int64            `json:"podMaxBackoffSeconds,omitempty"`
	Profiles                  []profileConfig   `json:"profiles,omitempty"`
	Extenders                 []json.RawMessage `json:"extenders,omitempty"`
}

type profileConfig struct {
	SchedulerName            string              `json:"schedulerName,omitempty"`
	PercentageOfNodesToScore *int32              `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  *pluginsConfig      `json:"plugins,omitempty"`
	PluginConfig             []pluginConfigEntry `json:"pluginConfig,omitempty"`
}

type pluginsConfig struct {
	PreEnqueue *pluginSet `json:"preEnqueue,omitempty"`
	QueueSort  *pluginSet `json:"queueSort,omitempty"`
	PreFilter  *pluginSet `json:"preFilter,omitempty"`
	Filter     *pluginSet `json:"filter,omitempty"`
	PostFilter *pluginSet `json:"postFilter,omitempty"`
	PreScore   *pluginSet `json:"preScore,omitempty"`
	Score      *pluginSet `json:"score,omitempty"`
	Reserve    *pluginSet `json:"reserve,omitempty"`
	Permit     *pluginSet `json:"permit,omitempty"`
	PreBind    *pluginSet `json:"preBind,omitempty"`
	Bind       *pluginSet `json:"bind,omitempty"`
	PostBind   *pluginSet `json:"postBind,omitempty"`
	MultiPoint *pluginSet `json:"multiPoint,omitempty"`
}

type pluginSet struct {
	Enabled  []pluginRef `json:"enabled,omitempty"`
	Disabled []pluginRef `json:"disabled,omitempty"`
}

type pluginRef struct {
	Name   string `json:"name"`
	Weight *int32 `json:"weight,omitempty"`
}

type pluginConfigEntry struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// Plugin args the model reads, as in kubescheduler.config.k8s.io/v1.
type nodeResourcesFitArgs struct {
	Kind                  string           `json:"kind,omitempty"`
	APIVersion            string           `json:"apiVersion,omitempty"`
	IgnoredResources      []string         `json:"ignoredResources,omitempty"`
	IgnoredResourceGroups []string         `json:"ignoredResourceGroups,omitempty"`
	ScoringStrategy       *scoringStrategy `json:"scoringStrategy,omitempty"`
}

type scoringStrategy struct {
	Type                     string         `json:"type,omitempty"`
	Resources                []resourceSpec `json:"resources,omitempty"`
	RequestedToCapacityRatio *rtcrParam     `json:"requestedToCapacityRatio,omitempty"`
}

type resourceSpec struct {
	Name   string `json:"name"`
	Weight int64  `json:"weight,omitempty"`
}

type rtcrParam struct {
	Shape []struct {
		Utilization int64 `json:"utilization"`
		Score       int64 `json:"score"`
	} `json:"shape,omitempty"`
}

type podTopologySpreadArgs struct {
	Kind               string                            `json:"kind,omitempty"`
	APIVersion         string                            `json:"apiVersion,omitempty"`
	DefaultConstraints []corev1.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	DefaultingType     string                            `json:"defaultingType,omitempty"`
}

type interPodAffinityArgs struct {
	Kind                               string `json:"kind,omitempty"`
	APIVersion                         string `json:"apiVersion,omitempty"`
	HardPodAffinityWeight              *int32 `json:"hardPodAffinityWeight,omitempty"`
	IgnorePreferredTermsOfExistingPods bool   `json:"ignorePreferredTermsOfExistingPods,omitempty"`
}

type balancedAllocationArgs struct {
	Kind       string         `json:"kind,omitempty"`
	APIVersion string         `json:"apiVersion,omitempty"`
	Resources  []resourceSpec `json:"resources,omitempty"`
}

type defaultPreemptionArgs struct {
	Kind                        string `json:"kind,omitempty"`
	APIVersion                  string `json:"apiVersion,omitempty"`
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	MinCandidateNodesAbsolute   *int32 `json:"minCandidateNodesAbsolute,omitempty"`
}

// upstreamPlugins are the in-tree plugins that have no effect in the model
// (volumes, ports, images, binding, queue sort, gates): enabling them is
// accepted with a warning; anything else unknown is an error.
var upstreamPlugins = map[string]string{
	"PrioritySort":         "the queue always sorts by priority",
	"DefaultBinder":        "binding is instant",
	"NodePorts":            "host ports are not modelled",
	"VolumeRestrictions":   "ReadWriteOncePod and volume conflicts are not checked",
	"ImageLocality":        "images are not modelled",
	"SchedulingGates":      "scheduling gates are not modelled",
	"DynamicResources":     "DRA is not modelled",
	"NodeDeclaredFeatures": "node features are not modelled",
	"GangScheduling":       "gang scheduling is not modelled",
}

const namePreemption = "DefaultPreemption"

// compileSchedulerConfigs reads KubeSchedulerConfiguration documents into
// scheduler profiles. With none, the default profile applies.
func (l *loader) compileSchedulerConfigs() {
	docs := l.docsOf("KubeSchedulerConfiguration")
	if len(docs) > 1 {
		l.fail(docs[1].Errorf("kind", "merge the profiles into one configuration", "a second KubeSchedulerConfiguration (the first is at %s:%d)", docs[0].File, docs[0].Line))
		return
	}
	if len(docs) == 0 {
		return
	}
	d := docs[0]
	cfg, ok := decode[schedulerConfiguration](l, d)
	if !ok {
		return
	}
	if len(cfg.Extenders) > 0 {
		l.fail(d.Errorf("extenders", "remove the extenders: the simulator cannot call them", "scheduler extenders are not modelled"))
	}
	if v := cfg.PodInitialBackoffSeconds; v != nil {
		if *v < 1 {
			l.fail(d.Errorf("podInitialBackoffSeconds", "", "must be at least 1"))
		}
		l.out.SchedulerBackoff[0] = time.Duration(*v) * time.Second
	}
	if v := cfg.PodMaxBackoffSeconds; v != nil {
		if *v < 1 || (cfg.PodInitialBackoffSeconds != nil && *v < *cfg.PodInitialBackoffSeconds) {
			l.fail(d.Errorf("podMaxBackoffSeconds", "", "must be at least 1 and at least podInitialBackoffSeconds"))
		}
		l.out.SchedulerBackoff[1] = time.Duration(*v) * time.Second
	}
	if len(cfg.Profiles) == 0 {
		cfg.Profiles = []profileConfig{{}}
	}
	names := map[string]bool{}
	for i, pc := range cfg.Profiles {
		path := fmt.Sprintf("profiles[%d]", i)
		prof := l.compileProfile(d, path, pc, cfg.PercentageOfNodesToScore)
		if names[prof.SchedulerName] {
			l.fail(d.Errorf(path+".schedulerName", "give each profile its own schedulerName", "duplicate schedulerName %q", prof.SchedulerName))
			continue
		}
		names[prof.SchedulerName] = true
		l.out.SchedulerProfiles = append(l.out.SchedulerProfiles, prof)
	}
}

// pluginRoles are the roles of a plugin that an extension point's
// enabled/disabled lists switch on or off: filtering, scoring, both or
// neither (postFilter only switches preemption).
type pluginRoles uint8

const (
	roleFilter pluginRoles = 1 << iota
	roleScore
)

func (l *loader) compileProfile(d *manifest.Document, path string, pc profileConfig, globalPct *int32) scheduler.Profile {
	def := scheduler.DefaultProfile()
	prof := scheduler.Profile{SchedulerName: pc.SchedulerName, Args: def.Args}
	if prof.SchedulerName == "" {
		prof.SchedulerName = corev1.DefaultSchedulerName
	}
	pct := globalPct
	if pc.PercentageOfNodesToScore != nil {
		pct = pc.PercentageOfNodesToScore
	}
	if pct != nil {
		if *pct < 0 || *pct > 100 {
			l.fail(d.Errorf(path+".percentageOfNodesToScore", "use 0 (adaptive) to 100", "%d is out of range", *pct))
		}
		prof.PercentageOfNodesToScore = *pct
	}

	// Start from the defaults, then apply the extension points users set.
	type state struct {
		filter, score bool
		weight        int64
	}
	plugins := map[string]*state{}
	var order []string
	for _, pw := range def.Plugins {
		plugins[pw.Name] = &state{filter: true, score: pw.Weight > 0, weight: pw.Weight}
		order = append(order, pw.Name)
	}
	preemption := true
	known := func(p, name string) bool {
		if name == "*" || name == namePreemption {
			return true
		}
		if _, ok := plugins[name]; ok {
			return true
		}
		for _, n := range scheduler.KnownPlugins() {
			if n == name {
				return true
			}
		}
		if why, ok := upstreamPlugins[name]; ok {
			l.warnc(d, CodeSchedulerPlugin, p, "plugin %s has no effect in the simulator: %s", name, why)
			return false
		}
		l.fail(d.Errorf(p, "the simulator models the in-tree plugins: "+strings.Join(scheduler.KnownPlugins(), ", "), "unknown or out-of-tree plugin %q", name))
		return false
	}
	apply := func(point string, set *pluginSet, roles pluginRoles) {
		if set == nil {
			return
		}
		filter, score := roles&roleFilter != 0, roles&roleScore != 0
		base := path + ".plugins." + point
		for j, r := range set.Disabled {
			p := fmt.Sprintf("%s.disabled[%d].name", base, j)
			if !known(p, r.Name) {
				continue
			}
			for name, st := range plugins {
				if r.Name == "*" || r.Name == name {
					if filter {
						st.filter = false
					}
					if score {
						st.score = false
					}
				}
			}
			if (r.Name == "*" || r.Name == namePreemption) && (point == "postFilter" || point == "multiPoint") {
				preemption = false
			}
		}
		for j, r := range set.Enabled {
			p := fmt.Sprintf("%s.enabled[%d]", base, j)
			if r.Name == namePreemption {
				preemption = true
				continue
			}
			if !known(p+".name", r.Name) || r.Name == "*" {
				continue
			}
			st, ok := plugins[r.Name]
			if !ok {
				st = &state{}
				plugins[r.Name] = st
				order = append(order, r.Name)
			}
			if filter {
				st.filter = true
			}
			if score {
				st.score = true
				if st.weight == 0 {
					st.weight = 1
				}
			}
			if r.Weight != nil {
				if *r.Weight < 0 || *r.Weight > 100 {
					l.fail(d.Errorf(p+".weight", "use 1 to 100", "weight %d is out of range", *r.Weight))
				}
				st.weight = int64(*r.Weight)
			}
		}
	}
	if ps := pc.Plugins; ps != nil {
		apply("multiPoint", ps.MultiPoint, roleFilter|roleScore)
		apply("preFilter", ps.PreFilter, roleFilter)
		apply("filter", ps.Filter, roleFilter)
		apply("postFilter", ps.PostFilter, 0)
		apply("preScore", ps.PreScore, roleScore)
		apply("score", ps.Score, roleScore)
		for _, x := range []struct {
			name string
			set  *pluginSet
		}{{"preEnqueue", ps.PreEnqueue}, {"queueSort", ps.QueueSort}, {"reserve", ps.Reserve},
			{"permit", ps.Permit}, {"preBind", ps.PreBind}, {"bind", ps.Bind}, {"postBind", ps.PostBind}} {
			if x.set != nil && len(x.set.Enabled) > 0 {
				l.warnc(d, CodeSchedulerPlugin, path+".plugins."+x.name, "extension point %s has no effect in the simulator", x.name)
			}
		}
	}
	for _, name := range order {
		st := plugins[name]
		if !st.filter && !st.score {
			continue
		}
		w := int64(0)
		if st.score {
			w = st.weight
		}
		prof.Plugins = append(prof.Plugins, scheduler.PluginWeight{Name: name, Weight: w, NoFilter: !st.filter})
	}
	prof.NoPreemption = !preemption

	for j, e := range pc.PluginConfig {
		l.pluginArgs(d, fmt.Sprintf("%s.pluginConfig[%d]", path, j), e, &prof.Args)
	}
	return prof
}

// pluginArgs decodes one pluginConfig entry strictly into its plugin's
// args.
func (l *loader) pluginArgs(d *manifest.Document, path string, e pluginConfigEntry, args *scheduler.PluginArgs) {
	decode := func(into any) bool {
		if len(e.Args) == 0 {
			return false
		}
		dec := json.NewDecoder(bytes.NewReader(e.Args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(into); err != nil {
			l.fail(d.Errorf(path+".args", "see the kube-scheduler configuration reference (kubescheduler.config.k8s.io/v1)", "%v", err))
			return false
		}
		return true
	}
	switch e.Name {
	case scheduler.NameNodeResourcesFit:
		var a nodeResourcesFitArgs
		if !decode(&a) || a.ScoringStrategy == nil {
			return
		}
		ss := a.ScoringStrategy
		switch ss.Type {
		case "", scheduler.LeastAllocated, scheduler.MostAllocated, scheduler.RequestedToCapacityRatio:
		default:
			l.fail(d.Errorf(path+".args.scoringStrategy.type", "use LeastAllocated, MostAllocated or RequestedToCapacityRatio", "unknown type %q", ss.Type))
			return
		}
		args.ScoringStrategy = ss.Type
		args.Resources = nil
		for _, r := range ss.Resources {
			l.out.Resources.Index(corev1.ResourceName(r.Name)) //nolint:errcheck // a full table surfaces elsewhere
			args.Resources = append(args.Resources, scheduler.ResourceWeight{Name: r.Name, Weight: r.Weight})
		}
		if ss.RequestedToCapacityRatio != nil {
			for _, pt := range ss.RequestedToCapacityRatio.Shape {
				args.Shape = append(args.Shape, scheduler.ShapePoint{Utilization: pt.Utilization, Score: pt.Score})
			}
		}
		if ss.Type == scheduler.RequestedToCapacityRatio && len(args.Shape) == 0 {
			l.fail(d.Errorf(path+".args.scoringStrategy.requestedToCapacityRatio.shape", "give points such as [{utilization: 0, score: 0}, {utilization: 100, score: 10}]", "RequestedToCapacityRatio needs a shape"))
		}
	case scheduler.NamePodTopologySpread:
		var a podTopologySpreadArgs
		if !decode(&a) {
			return
		}
		switch a.DefaultingType {
		case "", scheduler.SpreadDefaultingSystem, scheduler.SpreadDefaultingList:
		default:
			l.fail(d.Errorf(path+".args.defaultingType", "use System or List", "unknown defaultingType %q", a.DefaultingType))
			return
		}
		args.SpreadDefaulting = a.DefaultingType
		if a.DefaultingType == "" && len(a.DefaultConstraints) > 0 {
			args.SpreadDefaulting = scheduler.SpreadDefaultingList
		}
		for k, c := range a.DefaultConstraints {
			if c.LabelSelector != nil {
				l.fail(d.Errorf(fmt.Sprintf("%s.args.defaultConstraints[%d].labelSelector", path, k), "default constraints take the selector of the pod's controller", "must not be set"))
				continue
			}
			c.LabelSelector = nil
			spec, _, err := cluster.CompilePodSpec(l.out.Syms, l.out.Resources, cluster.PodSpecInput{Spec: &corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{c}}})
			if err != nil {
				l.fail(d.Errorf(fmt.Sprintf("%s.args.defaultConstraints[%d]", path, k), "", "%v", err))
				continue
			}
			args.DefaultConstraints = append(args.DefaultConstraints, spec.Spread[0])
		}
	case scheduler.NameInterPodAffinity:
		var a interPodAffinityArgs
		if decode(&a) && a.HardPodAffinityWeight != nil {
			if *a.HardPodAffinityWeight < 0 || *a.HardPodAffinityWeight > 100 {
				l.fail(d.Errorf(path+".args.hardPodAffinityWeight", "use 0 to 100", "out of range"))
			}
			args.HardPodAffinityWeight = *a.HardPodAffinityWeight
		}
	case scheduler.NameBalancedAllocation:
		var a balancedAllocationArgs
		if decode(&a) {
			for _, r := range a.Resources {
				args.Resources = append(args.Resources, scheduler.ResourceWeight{Name: r.Name, Weight: r.Weight})
			}
		}
	case namePreemption:
		var a defaultPreemptionArgs
		if decode(&a) {
			l.warn(d, path+".args", "DefaultPreemption evaluates every candidate node in the simulator; the candidate limits have no effect")
		}
	default:
		names := append(scheduler.KnownPlugins(), namePreemption)
		sort.Strings(names)
		l.fail(d.Errorf(path+".name", "plugins with args: "+strings.Join(names, ", "), "no args are modelled for %q", e.Name))
	}
}
