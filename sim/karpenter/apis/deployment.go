package apis

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Deployment is Karpenter's own Deployment among a cluster's manifests
// (the Helm chart's rendering, oci://public.ecr.aws/karpenter/karpenter):
// the controller container's environment and flags are Karpenter's
// settings (KC pkg/operator/options, KA pkg/operator/options), so they
// configure the simulated controller, and the Deployment is not a
// workload.
type Deployment struct {
	Doc *manifest.Document
	// Path is the container's field path, e.g. spec.template.spec.containers[0].
	Path string
	// Spec holds the settings the Deployment gives, each checked.
	Spec SettingsSpec
	// Given names, by SettingsSpec field (json name), where each setting
	// came from ("BATCH_MAX_DURATION, line 57").
	Given map[string]string
	// Warnings are findings about its settings: values that cannot be
	// read (from a ConfigMap or Secret), gates and settings not modelled.
	Warnings []*manifest.Error
	// Errs are settings that are wrong (a duration that does not parse):
	// Karpenter would not start with them.
	Errs manifest.Errors
}

// FindDeployment reports whether d is a Deployment that runs Karpenter's
// controller: a container whose image is .../karpenter/controller (any
// registry, tag or digest, as the Helm chart and the ECR public gallery
// name it). The first such container is the one read.
func FindDeployment(d *manifest.Document) (*Deployment, bool) {
	if d.Kind != "Deployment" {
		return nil, false
	}
	containers := manifest.Lookup(d.Node, "spec", "template", "spec", "containers")
	if containers == nil || containers.Kind != yaml.SequenceNode {
		return nil, false
	}
	for i, c := range containers.Content {
		if !isControllerImage(manifest.Scalar(manifest.Lookup(c, "image"))) {
			continue
		}
		dep := &Deployment{Doc: d, Path: fmt.Sprintf("spec.template.spec.containers[%d]", i), Given: map[string]string{}}
		dep.read(c)
		return dep, true
	}
	return nil, false
}

// isControllerImage: the image's repository ends in karpenter/controller
// (public.ecr.aws/karpenter/controller:1.15.0@sha256:...).
func isControllerImage(image string) bool {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return path.Base(image) == "controller" && path.Base(path.Dir(image)) == "karpenter"
}

// setting is one of Karpenter's options the simulation reads: its
// environment variable, its flag and the spec.karpenter field it sets.
type setting struct {
	env, flag, field string
	set              func(dep *Deployment, value, at string)
}

// settings are the options read; inert are those that change nothing
// simulated (ports, logging, identity, the cluster's endpoint), read
// silently. Any other variable is the user's own and is ignored.
var settings = []setting{
	{"BATCH_MAX_DURATION", "batch-max-duration", "batchMaxDuration", func(dep *Deployment, v, at string) {
		if dep.duration(v, at) {
			dep.Spec.BatchMaxDuration = v
		}
	}},
	{"BATCH_IDLE_DURATION", "batch-idle-duration", "batchIdleDuration", func(dep *Deployment, v, at string) {
		if dep.duration(v, at) {
			dep.Spec.BatchIdleDuration = v
		}
	}},
	{"FEATURE_GATES", "feature-gates", "featureGates", (*Deployment).featureGates},
	{"PREFERENCE_POLICY", "preference-policy", "preferencePolicy", func(dep *Deployment, v, at string) {
		if dep.oneOf(v, at, "Respect", "Ignore") {
			dep.Spec.PreferencePolicy = v
		}
	}},
	{"MIN_VALUES_POLICY", "min-values-policy", "minValuesPolicy", func(dep *Deployment, v, at string) {
		if dep.oneOf(v, at, "Strict", "BestEffort") {
			dep.Spec.MinValuesPolicy = v
		}
	}},
	// KA: a queue's name turns on interruption handling; "" leaves it off.
	{"INTERRUPTION_QUEUE", "interruption-queue", "interruptionQueue", func(dep *Deployment, v, _ string) {
		on := v != ""
		dep.Spec.InterruptionQueue = &on
	}},
	{"VM_MEMORY_OVERHEAD_PERCENT", "vm-memory-overhead-percent", "vmMemoryOverheadPercent", func(dep *Deployment, v, at string) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f >= 1 {
			dep.Errs = append(dep.Errs, dep.Doc.Errorf(at, "give a fraction such as 0.075 (7.5%)", "VM_MEMORY_OVERHEAD_PERCENT %q is not a number in [0, 1)", v))
			return
		}
		dep.Spec.VMMemoryOverheadPercent = &f
	}},
	{"RESERVED_ENIS", "reserved-enis", "", func(dep *Deployment, v, at string) {
		if v != "" && v != "0" {
			dep.warn(at, "karpenter.setting-not-modelled", "RESERVED_ENIS=%s lowers each node's pod limit upstream (fewer ENIs for pods); the simulation keeps the full limit", v)
		}
	}},
	{"SCHEDULER_CONFIG", "scheduler-config", "", func(dep *Deployment, v, at string) {
		if v != "" {
			dep.warn(at, "karpenter.setting-not-modelled", "SCHEDULER_CONFIG (default topology spread constraints Karpenter mirrors) is not read; spread the pods with their own topologySpreadConstraints")
		}
	}},
}

// gates are Karpenter v1.15.0's feature gates (KC options.go
// KarpenterFeatureGates) and what the simulation does with each when on.
var gates = map[string]string{
	"SpotToSpotConsolidation":   "",
	"ReservedCapacity":          "",
	"NodeRepair":                "",
	"NodeOverlay":               "",
	"StaticCapacity":            "",
	"CapacityBuffer":            "",
	"TerminateFirstDrift":       "",
	"TerminateFirstRepair":      "",
	"PodDeletionCostManagement": "Karpenter's management of pod-deletion-cost is not simulated (eviction costs read the annotation as with the gate off)",
}

func (dep *Deployment) warn(at, code, format string, a ...any) {
	w := dep.Doc.Errorf(at, "", format, a...)
	w.Code = code
	dep.Warnings = append(dep.Warnings, w)
}

func (dep *Deployment) duration(v, at string) bool {
	d, err := duration.Parse(v)
	if err == nil && d <= 0 {
		err = fmt.Errorf("must be more than 0")
	}
	if err != nil {
		dep.Errs = append(dep.Errs, dep.Doc.Errorf(at, "write a duration like 1s, 10s or 1m", "%q: %v", v, err))
		return false
	}
	return true
}

func (dep *Deployment) oneOf(v, at string, values ...string) bool {
	for _, ok := range values {
		if v == ok {
			return true
		}
	}
	dep.Errs = append(dep.Errs, dep.Doc.Errorf(at, "use "+strings.Join(values, " or "), "unknown value %q", v))
	return false
}

// featureGates reads "Name=true,Other=false" as upstream's
// ParseFeatureGates: SpotToSpotConsolidation, StaticCapacity, NodeOverlay, CapacityBuffer,
// TerminateFirstDrift, ReservedCapacity, NodeRepair and TerminateFirstRepair are
// modelled; another gate turned on that the simulation does not model
// gets a warning; an unknown name is ignored upstream, and named here.
func (dep *Deployment) featureGates(v, at string) {
	for _, kv := range strings.Split(v, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		on, err := strconv.ParseBool(strings.TrimSpace(val))
		name = strings.TrimSpace(name)
		if !ok || err != nil {
			dep.Errs = append(dep.Errs, dep.Doc.Errorf(at, "write Name=true or Name=false, separated by commas", "feature gate %q is not Name=bool", kv))
			continue
		}
		why, known := gates[name]
		switch {
		case !known:
			dep.warn(at, "karpenter.unknown-feature-gate", "unknown feature gate %q: Karpenter v1.15 ignores it", name)
		case name == "SpotToSpotConsolidation" || name == "StaticCapacity" || name == "NodeOverlay" || name == "TerminateFirstDrift" ||
			name == "ReservedCapacity" || name == "NodeRepair" || name == "TerminateFirstRepair" || name == "CapacityBuffer":
			if dep.Spec.FeatureGates == nil {
				dep.Spec.FeatureGates = &FeatureGatesSpec{}
			}
			switch name {
			case "StaticCapacity":
				dep.Spec.FeatureGates.StaticCapacity = &on
			case "NodeOverlay":
				dep.Spec.FeatureGates.NodeOverlay = &on
			case "TerminateFirstDrift":
				dep.Spec.FeatureGates.TerminateFirstDrift = &on
			case "ReservedCapacity":
				dep.Spec.FeatureGates.ReservedCapacity = &on
			case "NodeRepair":
				dep.Spec.FeatureGates.NodeRepair = &on
			case "TerminateFirstRepair":
				dep.Spec.FeatureGates.TerminateFirstRepair = &on
			case "CapacityBuffer":
				dep.Spec.FeatureGates.CapacityBuffer = &on
			default:
				dep.Spec.FeatureGates.SpotToSpotConsolidation = &on
			}
		case on && why != "":
			dep.warn(at, "karpenter.gate-not-modelled", "feature gate %s=true: %s", name, why)
		}
	}
}

// read takes the container's env, then its flags (a flag given overrides
// the variable: upstream's flags default to the environment).
func (dep *Deployment) read(c *yaml.Node) {
	byEnv := map[string]*setting{}
	for i := range settings {
		byEnv[settings[i].env] = &settings[i]
	}
	if env := manifest.Lookup(c, "env"); env != nil && env.Kind == yaml.SequenceNode {
		for i, e := range env.Content {
			name := manifest.Scalar(manifest.Lookup(e, "name"))
			s, ok := byEnv[name]
			if !ok {
				continue
			}
			at := fmt.Sprintf("%s.env[%d]", dep.Path, i)
			if manifest.Lookup(e, "valueFrom") != nil {
				dep.warn(at+".valueFrom", "karpenter.setting-unreadable", "%s comes from a ConfigMap, Secret or field the simulation cannot read: its default applies (give it in spec.karpenter instead)", name)
				continue
			}
			dep.apply(s, manifest.Scalar(manifest.Lookup(e, "value")), at+".value", name)
		}
	}
	if manifest.Lookup(c, "envFrom") != nil {
		dep.warn(dep.Path+".envFrom", "karpenter.setting-unreadable", "envFrom: variables from a ConfigMap or Secret cannot be read; Karpenter's settings there take their defaults (give them in spec.karpenter instead)")
	}
	args, _ := manifest.Scalars(manifest.Lookup(c, "args"))
	for _, a := range settingArgs(args) {
		dep.apply(a.setting, a.value, fmt.Sprintf("%s.args[%d]", dep.Path, a.index), "--"+a.setting.flag)
	}
}

// settingArg is a flag of a setting in a container's args: the setting,
// its value and the index of the arg that names it.
type settingArg struct {
	setting *setting
	value   string
	index   int
}

// settingArgs reads args as Karpenter's flag parser does (--name=value
// or --name value) and returns the flags of the settings read, in order.
func settingArgs(args []string) []settingArg {
	var out []settingArg
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		k := slices.IndexFunc(settings, func(s setting) bool { return s.flag == name })
		if k < 0 {
			continue
		}
		at := i
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		out = append(out, settingArg{&settings[k], value, at})
	}
	return out
}

func (dep *Deployment) apply(s *setting, value, at, source string) {
	before := len(dep.Errs)
	s.set(dep, value, at)
	if s.field != "" && len(dep.Errs) == before {
		dep.Given[s.field] = fmt.Sprintf("%s, line %d", source, dep.Doc.LineOf(at))
	}
}

// Under fills the settings spec leaves unset with the Deployment's
// (spec.karpenter wins: a scenario's settings are a what-if over the
// cluster's), and returns which fields came from the Deployment, sorted.
func (dep *Deployment) Under(spec *SettingsSpec) (*SettingsSpec, []string) {
	out := SettingsSpec{}
	if spec != nil {
		out = *spec
	}
	var used []string
	take := func(field string, unset bool, set func()) {
		if _, given := dep.Given[field]; given && unset {
			set()
			used = append(used, field)
		}
	}
	d := &dep.Spec
	take("batchMaxDuration", out.BatchMaxDuration == "", func() { out.BatchMaxDuration = d.BatchMaxDuration })
	take("batchIdleDuration", out.BatchIdleDuration == "", func() { out.BatchIdleDuration = d.BatchIdleDuration })
	take("featureGates", out.FeatureGates.anyUnset(),
		func() { out.FeatureGates = out.FeatureGates.merge(d.FeatureGates) })
	take("preferencePolicy", out.PreferencePolicy == "", func() { out.PreferencePolicy = d.PreferencePolicy })
	take("minValuesPolicy", out.MinValuesPolicy == "", func() { out.MinValuesPolicy = d.MinValuesPolicy })
	take("interruptionQueue", out.InterruptionQueue == nil, func() { out.InterruptionQueue = d.InterruptionQueue })
	take("vmMemoryOverheadPercent", out.VMMemoryOverheadPercent == nil, func() { out.VMMemoryOverheadPercent = d.VMMemoryOverheadPercent })
	sort.Strings(used)
	return &out, used
}

// SettingArgs returns, for the flags in a controller's args of the
// settings the simulation reads, the environment variable each stands for
// with its value, in order, and the other args apart (one flag's value
// goes with it).
func SettingArgs(args []string) (env [][2]string, other []string) {
	used := make([]bool, len(args))
	for _, a := range settingArgs(args) {
		env = append(env, [2]string{a.setting.env, a.value})
		used[a.index] = true
		if !strings.Contains(args[a.index], "=") && a.index+1 < len(args) {
			used[a.index+1] = true
		}
	}
	for i, a := range args {
		if !used[i] {
			other = append(other, a)
		}
	}
	return env, other
}

// EnvNames are the environment variables of Karpenter's container the
// simulation reads (what sim sweep --emit-job keeps of it; every other
// variable, the cluster's endpoint and credentials included, is dropped).
func EnvNames() []string {
	var out []string
	for _, s := range settings {
		out = append(out, s.env)
	}
	return out
}
