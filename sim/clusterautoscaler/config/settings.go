package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Defaults of the Cluster Autoscaler's behaviour that are constants
// upstream rather than flags; SettingsSpec may override them.
const (
	// DefaultASGRefreshInterval: the AWS provider refreshes its ASG cache
	// (and with it the failed scaling activities that reveal placeholder
	// instances) at most this often (cloudprovider/aws/aws_manager.go
	// refreshInterval).
	DefaultASGRefreshInterval = time.Minute
	// DefaultPodTimeBuffer: a loop whose unschedulable pods are all younger
	// than this skips the scale-up, waiting for more pods
	// (core/static_autoscaler.go unschedulablePodTimeBuffer).
	DefaultPodTimeBuffer = 2 * time.Second
	// DefaultGPUPodTimeBuffer is the same for pods that request GPUs
	// (unschedulablePodWithGpuTimeBuffer).
	DefaultGPUPodTimeBuffer = 30 * time.Second
	// DefaultEvictionRetryTime: a drain retries refused evictions this
	// often until --max-pod-eviction-time (utils/drain EvictionRetryTime).
	DefaultEvictionRetryTime = 10 * time.Second
	// DefaultLoopDuration is how long one loop takes in virtual time: the
	// next loop starts this much after a productive one, and
	// --scan-interval after the end of an idle one (the loop trigger's
	// timer starts when RunOnce returns; cluster-autoscaler/main.go,
	// loop/trigger.go). Not an upstream constant: our estimate for a small
	// to medium cluster (the main loop's
	// cluster_autoscaler_function_duration_seconds is commonly 0.1-2 s);
	// it also keeps bursts of triggers from running a loop per pod.
	DefaultLoopDuration = time.Second
)

// SettingsSpec is the Cluster Autoscaler's configuration as a scenario
// writes it (spec.clusterAutoscaler): its command-line flags as pasted from
// the Deployment, and optionally the priority expander's priorities (else
// the cluster-autoscaler-priority-expander ConfigMap).
type SettingsSpec struct {
	// Args are the container's args, e.g. ["--expander=priority,least-waste",
	// "--scan-interval=10s"].
	Args []string `json:"args,omitempty"`
	// Priorities maps a priority (higher wins) to regexes on ASG names,
	// as data.priorities of the priority expander's ConfigMap.
	Priorities map[string][]string `json:"priorities,omitempty"`
	// Constants of the model (Go durations); see the Default* constants.
	ASGRefreshInterval string `json:"asgRefreshInterval,omitempty"`
	PodTimeBuffer      string `json:"podTimeBuffer,omitempty"`
	GPUPodTimeBuffer   string `json:"gpuPodTimeBuffer,omitempty"`
	EvictionRetryTime  string `json:"evictionRetryTime,omitempty"`
	LoopDuration       string `json:"loopDuration,omitempty"`
	// NodeTerminationHandler says whether and how aws-node-termination-handler
	// runs: none, imds or queue. Unset: as the manifests say (a DaemonSet or
	// Deployment running its image), else none.
	NodeTerminationHandler string `json:"nodeTerminationHandler,omitempty"`
}

// Settings is the compiled configuration the model runs with.
type Settings struct {
	Options
	// Running says a Cluster Autoscaler runs: the scenario sets
	// spec.clusterAutoscaler or the manifests hold its Deployment. When
	// false the node groups are plain Auto Scaling groups: each keeps its
	// desired capacity, replacing reclaimed and failed instances, and
	// nothing resizes it for pods. [DefaultSettings] has it true.
	Running bool
	// RunningSource says why Running is what it is, for the info line:
	// the scenario's field or the Deployment, or why none runs.
	RunningSource string
	// Priorities of the priority expander; nil when none are configured.
	Priorities         *Priorities
	ASGRefreshInterval time.Duration
	PodTimeBuffer      time.Duration
	GPUPodTimeBuffer   time.Duration
	EvictionRetryTime  time.Duration
	LoopDuration       time.Duration
	// LoopDurationSet says the scenario gave loopDuration: it then holds
	// even with ComputeTime.
	LoopDurationSet bool
	// ComputeTime makes a loop take the time package clusterautoscaler's
	// loop-time model gives for the work it does, instead of
	// LoopDuration (unless LoopDurationSet). False (the zero value): the
	// fixed LoopDuration; scenarios turn it on unless spec.computeTime is
	// false.
	ComputeTime bool
	// TerminationHandler is aws-node-termination-handler's setup (Mode
	// NTHNone when it does not run); TerminationHandlerSet says the
	// scenario gave it, so the manifests' does not apply.
	TerminationHandler    TerminationHandler
	TerminationHandlerSet bool

	// Doc and Path locate the settings for messages (Doc may be nil).
	Doc  *manifest.Document
	Path string
	// ArgsPath and ArgPaths locate the flags when they come from the
	// Cluster Autoscaler's Deployment ([Settings.UseDeployment]): the
	// container, and each flag's command or args entry. Empty: Path.args.
	ArgsPath string
	ArgPaths []string
}

// UseDeployment takes the flags (Options) from the Cluster Autoscaler's
// Deployment, whose container then locates messages about them.
func (s *Settings) UseDeployment(dep *Deployment, o Options) {
	s.Options = o
	s.Doc, s.ArgsPath, s.ArgPaths = dep.Doc, dep.Path, dep.ArgPaths
}

// argsPath is the field path of the flags as a whole.
func (s *Settings) argsPath() string {
	if s.ArgsPath != "" {
		return s.ArgsPath
	}
	return join(s.Path, "args")
}

// argPath is the field path of flag i.
func (s *Settings) argPath(i int) string {
	if s.ArgPaths != nil && i < len(s.ArgPaths) {
		return s.ArgPaths[i]
	}
	return fmt.Sprintf("%s[%d]", join(s.Path, "args"), i)
}

// DefaultSettings returns the upstream defaults: no flags, no priorities.
func DefaultSettings() Settings {
	return Settings{
		Options:            DefaultOptions(),
		Running:            true,
		ASGRefreshInterval: DefaultASGRefreshInterval,
		PodTimeBuffer:      DefaultPodTimeBuffer,
		GPUPodTimeBuffer:   DefaultGPUPodTimeBuffer,
		EvictionRetryTime:  DefaultEvictionRetryTime,
		LoopDuration:       DefaultLoopDuration,
	}
}

// Compile checks the spec; d and path (e.g. "spec.clusterAutoscaler")
// locate it for messages. Warnings are in Settings.Warnings.
func (s *SettingsSpec) Compile(d *manifest.Document, path string) (Settings, error) {
	out := DefaultSettings()
	out.Doc, out.Path = d, path
	var errs manifest.Errors
	add := func(err error) {
		if err == nil {
			return
		}
		if es, ok := err.(manifest.Errors); ok {
			errs = append(errs, es...)
			return
		}
		errs = append(errs, errorAt(d, path, "", "%v", err))
	}
	if s == nil {
		return out, nil
	}
	o, err := ParseFlags(s.Args, d, join(path, "args"))
	add(err)
	out.Options = o
	if len(s.Priorities) > 0 {
		p, err := compileSpecPriorities(d, join(path, "priorities"), s.Priorities)
		add(err)
		out.Priorities = &p
	}
	for _, f := range []struct {
		v    string
		name string
		dst  *time.Duration
		min  time.Duration
	}{
		{s.ASGRefreshInterval, "asgRefreshInterval", &out.ASGRefreshInterval, 0},
		{s.PodTimeBuffer, "podTimeBuffer", &out.PodTimeBuffer, 0},
		{s.GPUPodTimeBuffer, "gpuPodTimeBuffer", &out.GPUPodTimeBuffer, 0},
		{s.EvictionRetryTime, "evictionRetryTime", &out.EvictionRetryTime, time.Second},
		{s.LoopDuration, "loopDuration", &out.LoopDuration, 0},
	} {
		if f.v == "" {
			continue
		}
		v, err := time.ParseDuration(f.v)
		switch {
		case err != nil:
			errs = append(errs, errorAt(d, join(path, f.name), "use Go syntax such as 10s or 1m", "cannot parse %q as a duration", f.v))
		case v < f.min:
			errs = append(errs, errorAt(d, join(path, f.name), "", "must be at least %s, got %s", f.min, f.v))
		default:
			*f.dst = duration.Cap(v)
			if f.name == "loopDuration" {
				out.LoopDurationSet = true
			}
		}
	}
	if v := s.NodeTerminationHandler; v != "" {
		h, err := ParseTerminationHandlerMode(v)
		if err != nil {
			errs = append(errs, errorAt(d, join(path, "nodeTerminationHandler"), "use none, imds (the DaemonSet) or queue (the Deployment with an SQS queue)", "%v", err))
		}
		h.Source = join(path, "nodeTerminationHandler")
		out.TerminationHandler, out.TerminationHandlerSet = h, true
	}
	return out, errs.Err()
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// Selected says how the Cluster Autoscaler treats one node group.
type Selected struct {
	// Autoscaled is false for a group the Cluster Autoscaler does not
	// discover: its ASG keeps its desired capacity and nothing resizes it.
	Autoscaled bool
	// Min and Max bound the group's size (--nodes overrides the ASG's).
	Min, Max int
}

// Select decides which groups are autoscaled. Without a running Cluster
// Autoscaler, none: each ASG keeps its desired capacity. A running one
// autoscales the groups its flags find, as the AWS provider discovers
// them: with --nodes, the named ones; with --node-group-auto-discovery,
// those whose ASG carries every tag of a spec; with neither flag, none
// (cloudprovider/aws/aws_manager.go: no explicit groups and no
// discovery specs leave the ASG cache empty).
func Select(groups []NodeGroup, s *Settings) []Selected {
	out := make([]Selected, len(groups))
	o := &s.Options
	for i := range groups {
		g := &groups[i]
		out[i] = Selected{Min: g.MinSize, Max: g.MaxSize}
		if !s.Running {
			continue
		}
		for _, spec := range o.AutoDiscovery {
			if hasTags(g.Tags, spec) {
				out[i].Autoscaled = true
			}
		}
		for _, n := range o.Nodes {
			if n.Name == g.ASGName || n.Name == g.Name {
				out[i] = Selected{Autoscaled: true, Min: n.Min, Max: n.Max}
			}
		}
	}
	return out
}

// discoveryFlagFor is the auto-discovery flag that finds groups tagged as
// eksctl tags them, with the cluster name their tags give when one does.
func discoveryFlagFor(groups []NodeGroup) string {
	cluster := "<cluster name>"
	for i := range groups {
		for k := range groups[i].Tags {
			if name, ok := strings.CutPrefix(k, "k8s.io/cluster-autoscaler/"); ok && name != "enabled" && !strings.Contains(name, "/") {
				if cluster == "<cluster name>" || name < cluster {
					cluster = name
				}
			}
		}
	}
	return "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/" + cluster
}

func hasTags(tags, want map[string]string) bool {
	for k, v := range want {
		have, ok := tags[k]
		if !ok || (v != "" && have != v) {
			return false
		}
	}
	return true
}

// CrossCheck checks the settings against the node groups: the priority
// expander needs priorities, --nodes must name a group, and it warns about
// groups no flag selects, priorities that match no group and unused
// priorities.
func CrossCheck(groups []NodeGroup, s *Settings) ([]*manifest.Error, error) {
	var warns []*manifest.Error
	var errs manifest.Errors
	d, path := s.Doc, s.Path
	argsPath := s.argsPath()
	usesPriority := false
	for _, e := range s.Expanders {
		usesPriority = usesPriority || e == ExpanderPriority
	}
	switch {
	case usesPriority && s.Priorities.Empty():
		errs = append(errs, errorAt(d, argsPath, fmt.Sprintf("add the %s ConfigMap (data.priorities) or %s", PriorityConfigMapName, join(path, "priorities")),
			"--expander uses priority but no priorities are configured: the real Cluster Autoscaler would then scale up nothing"))
	case !usesPriority && !s.Priorities.Empty():
		warns = append(warns, &manifest.Error{File: s.Priorities.File, Line: s.Priorities.Line, Msg: "priorities are configured but --expander does not use priority: they are ignored"})
	}
	if usesPriority && !s.Priorities.Empty() {
		for _, r := range s.Priorities.Rules {
			for i, re := range r.Regexes {
				matched := false
				for j := range groups {
					matched = matched || re.FindStringIndex(groups[j].ASGName) != nil
				}
				if !matched && len(groups) > 0 {
					var names []string
					for j := range groups {
						names = append(names, groups[j].ASGName)
					}
					warns = append(warns, &manifest.Error{File: s.Priorities.File, Line: r.Lines[i],
						Msg: fmt.Sprintf("priority %d: regex %q matches no node group; regexes match ASG names: %s", r.Priority, re.String(), strings.Join(names, ", "))})
				}
			}
		}
	}
	for _, n := range s.Nodes {
		found := false
		for i := range groups {
			found = found || n.Name == groups[i].ASGName || n.Name == groups[i].Name
		}
		if !found {
			hint := "name a node group or its ASG: " + strings.Join(GroupNames(groups), ", ")
			if sug := closestName(n.Name, GroupNames(groups)); sug != "" {
				hint = fmt.Sprintf("did you mean %s?", sug)
			}
			errs = append(errs, errorAt(d, s.argPath(n.Arg), hint, "--nodes names no node group %q", n.Name))
		}
	}
	seen := map[string]*NodeGroup{}
	for i := range groups {
		g := &groups[i]
		if prev, ok := seen[g.Name]; ok {
			errs = append(errs, &manifest.Error{File: g.File, Line: g.Line, Path: g.Path,
				Msg: fmt.Sprintf("node group %q is also defined at %s:%d", g.Name, prev.File, prev.Line), Hint: "node group names must be unique"})
			continue
		}
		seen[g.Name] = g
	}
	sel := Select(groups, s)
	if !s.Running {
		// Plain ASGs: the component's info line says so.
		return warns, errs.Err()
	}
	explicit := len(s.Nodes) > 0 || len(s.AutoDiscovery) > 0
	if !explicit && len(groups) > 0 {
		warns = append(warns, errorAt(d, argsPath, "add "+discoveryFlagFor(groups)+" (the tags eksctl gives a node group with iam.withAddonPolicies.autoScaler: true), or --nodes=<min>:<max>:<ASG name> per group",
			"neither --nodes nor --node-group-auto-discovery is given: the Cluster Autoscaler finds no node group and autoscales none (the AWS provider discovers Auto Scaling groups only through these flags)"))
	}
	for i := range groups {
		g := &groups[i]
		if explicit && !sel[i].Autoscaled {
			warns = append(warns, &manifest.Error{File: g.File, Line: g.Line, Path: g.Path,
				Msg: fmt.Sprintf("node group %s is not autoscaled: no --nodes names it and its ASG lacks the tags --node-group-auto-discovery looks for (for eksctl nodeGroups set iam.withAddonPolicies.autoScaler: true)", g.Name)})
		}
		if sel[i].Autoscaled && g.DesiredCapacity > sel[i].Max {
			warns = append(warns, &manifest.Error{File: g.File, Line: g.Line, Path: g.Path,
				Msg: fmt.Sprintf("desired capacity %d is above the maximum %d given by --nodes", g.DesiredCapacity, sel[i].Max)})
		}
	}
	return warns, errs.Err()
}
