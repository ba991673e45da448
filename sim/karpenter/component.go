package karpenter

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
	"github.com/clustersim/clustersim/sim/manifest"
)

// This file is Karpenter as a component of the house (sim/component):
// the kinds it reads, spec.karpenter, the compile step (package apis) and
// the build step (New), and what the loader asks of it besides.

// ownedByKarpenter is the owner of the nodes Karpenter launches and
// adopts.
var ownedByKarpenter = scheduling.Owner

// Component is Karpenter as sim/component sees it; cmd/sim's registration
// (sim/component/builtin) registers it.
var Component component.Component = karpenterComponent{}

type karpenterComponent struct{}

// Kinds: Karpenter's NodePool (v1, v1beta1) and legacy Provisioner in
// group karpenter.sh, the AWS provider's node classes in
// karpenter.k8s.aws. The version is checked by apis.Compile, with a
// precise error.
func (karpenterComponent) Kinds() []component.Kind {
	return []component.Kind{
		{Group: apis.GroupKarpenter, Kind: apis.KindNodePool},
		{Group: apis.GroupKarpenter, Kind: apis.KindProvisioner},
		{Group: apis.GroupAWS, Kind: apis.KindEC2NodeClass},
		{Group: apis.GroupAWS, Kind: apis.KindAWSNodeTemplate},
		{Group: apis.GroupKarpenter, Kind: apis.KindNodeOverlay},
		{Group: apis.GroupAutoscaling, Kind: apis.KindCapacityBuffer},
		{Group: apis.GroupEKS, Kind: apis.KindNodeClass},
	}
}

func (karpenterComponent) Name() string { return OwnerName }

func (karpenterComponent) Settings() (string, any) { return "karpenter", new(apis.SettingsSpec) }

// Claims the Deployment that runs Karpenter's controller: its
// environment and flags are Karpenter's settings, not a workload.
func (karpenterComponent) Claims(d *manifest.Document) bool {
	_, ok := apis.FindDeployment(d)
	return ok
}

// NotAWorkload: the Deployment configures the simulated Karpenter.
func (karpenterComponent) NotAWorkload(d *manifest.Document) (string, string) {
	return fmt.Sprintf("runs Karpenter's controller (%s:%d): its settings configure the simulated Karpenter and it is not simulated as a workload", d.File, d.Line),
		"remove this entry; Karpenter's settings go in spec.karpenter"
}

// ReadsEnv: the controller container's variables that are Karpenter's
// settings (sim sweep --emit-job keeps those and drops the rest).
func (karpenterComponent) ReadsEnv(d *manifest.Document) (int, []string, bool) {
	dep, ok := apis.FindDeployment(d)
	if !ok {
		return 0, nil, false
	}
	i := 0
	if _, err := fmt.Sscanf(dep.Path, "spec.template.spec.containers[%d]", &i); err != nil {
		return 0, nil, false
	}
	return i, apis.EnvNames(), true
}

// Compile reads the NodePools, node classes and legacy Provisioners,
// Karpenter's own Deployment and spec.karpenter (which wins over the
// Deployment's settings). No NodePool: Karpenter does not run (nil
// config).
func (karpenterComponent) Compile(env component.Env, in component.Input) (component.Config, []component.Warning, error) {
	spec, _ := in.Settings.(*apis.SettingsSpec)
	var errs manifest.Errors
	var warns []component.Warning
	warn := func(code, path, msg string) {
		warns = append(warns, component.Warning{Code: code, File: env.Scenario.File, Line: env.Scenario.LineOf(path),
			Path: path, Msg: path + ": " + msg})
	}
	var dep *apis.Deployment
	var docs []*manifest.Document
	for _, d := range in.Docs {
		found, ok := apis.FindDeployment(d)
		switch {
		case !ok:
			docs = append(docs, d)
		case dep != nil:
			warns = append(warns, component.Warning{Code: "karpenter.second-deployment", File: d.File, Line: d.Line,
				Msg: fmt.Sprintf("a second Deployment running Karpenter's controller (the first is %s at %s:%d): its settings are ignored, and it is not simulated as a workload", dep.Doc.Ref(), dep.Doc.File, dep.Doc.Line)})
		default:
			dep = found
		}
	}
	in.Docs = docs
	if dep != nil {
		errs = append(errs, dep.Errs...)
		for _, w := range dep.Warnings {
			warns = append(warns, component.Warning{Code: w.Code, File: w.File, Line: w.Line, Path: w.Path, Msg: w.Path + ": " + w.Msg})
		}
		var used []string
		spec, used = dep.Under(spec)
		fields := make([]string, 0, len(dep.Given))
		for field := range dep.Given {
			fields = append(fields, field)
		}
		slices.Sort(fields)
		var from, over []string
		for _, field := range fields {
			if slices.Contains(used, field) {
				from = append(from, field+" ("+dep.Given[field]+")")
			} else {
				over = append(over, field+" ("+dep.Given[field]+")")
			}
		}
		msg := fmt.Sprintf("%s runs Karpenter's controller: it is not simulated as a workload", dep.Doc.Ref())
		if len(from) > 0 {
			msg += "; these settings come from it: " + strings.Join(from, ", ") + " (spec.karpenter overrides any of them)"
		}
		if len(over) > 0 {
			msg += "; spec.karpenter overrides its " + strings.Join(over, ", ")
		}
		warns = append(warns, component.Warning{Code: "karpenter.deployment-settings", File: dep.Doc.File, Line: dep.Doc.Line, Info: true, Msg: msg})
		if len(docs) == 0 {
			warns = append(warns, component.Warning{Code: "karpenter.not-running", File: dep.Doc.File, Line: dep.Doc.Line,
				Msg: fmt.Sprintf("%s runs Karpenter's controller, but the scenario has no NodePool or Provisioner: Karpenter does not run (add the cluster's NodePools)", dep.Doc.Ref())})
			return nil, warns, errs.Err()
		}
	}
	settings, err := spec.Compile(env.Scenario, in.SettingsPath)
	if err != nil {
		errs = errs.Add(err)
	}
	settings.ComputeTime = env.ComputeTime
	if spec == nil || spec.StartTime == "" {
		settings.Epoch = env.Epoch
	}
	if spec != nil && spec.LaunchTimeout != "" {
		warn("karpenter.setting-inert", in.SettingsPath+".launchTimeout", "launches answer at once in the simulation, so the launch timeout never fires: this setting changes nothing")
	}
	am, err := autoModeOf(env, in, spec)
	if err != nil {
		errs = errs.Add(err)
	}
	if buf, ok := onlyBuffers(in.Docs); ok && (am == nil || len(am.NodePools) == 0) {
		// With eksctl node groups the Cluster Autoscaler reads the
		// buffers (package capacitybuffer) and says what it does.
		if !hasKind(in.Peers, "ClusterConfig") {
			warns = append(warns, component.Warning{Code: "karpenter.buffer-no-karpenter", File: buf.File, Line: buf.Line,
				Msg: fmt.Sprintf("%s: CapacityBuffers are read by Karpenter and the Cluster Autoscaler, and the scenario has neither a NodePool nor an eksctl node group: no spare capacity is kept", buf.Ref()),
				Fix: "add Karpenter NodePools with the CapacityBuffer gate on, or eksctl node groups for the Cluster Autoscaler (--capacity-buffer-controller-enabled, --capacity-buffer-pod-injection-enabled), or drop the buffer"})
		}
		in.Docs = nil
	}
	if len(in.Docs) == 0 && (am == nil || len(am.NodePools) == 0) {
		if spec != nil {
			warn("karpenter.not-running", in.SettingsPath, "no NodePool or Provisioner in the scenario: Karpenter does not run")
		}
		return nil, warns, errs.Err()
	}
	res, err := apis.Compile(in.Docs, apis.Env{Syms: env.Syms, Resources: env.Resources, Catalog: env.Catalog, Zones: env.Zones, AutoMode: am})
	if err != nil {
		return nil, warns, errs.Add(err).Err()
	}
	for _, w := range res.Warnings {
		warns = append(warns, component.Warning{Code: w.Code, File: w.File, Line: w.Line, Path: w.Path, Msg: w.Message(), Fix: w.Fix})
	}
	warns = append(warns, autoModeWarnings(res.NodePools, am)...)
	warns = append(warns, autoModeStorageWarnings(res.NodePools, in.Others, in.Peers)...)
	warns = append(warns, staticWarnings(res.NodePools, settings)...)
	warns = append(warns, overlayWarnings(env, res.NodePools, res.NodeOverlays, settings)...)
	warns = append(warns, reservationWarnings(env, res.NodePools, settings)...)
	warns = append(warns, repairWarnings(env, res.NodePools, settings)...)
	warns = append(warns, bufferWarnings(res.CapacityBuffers, settings, in.Others)...)
	scale, err := spec.CompileScale(env.Scenario, in.SettingsPath, res.NodePools)
	if err != nil {
		errs = errs.Add(err)
	}
	for i, sc := range scale {
		for _, p := range res.NodePools {
			if p.Name == sc.NodePool && p.Limits.Nodes >= 0 && sc.Replicas > p.Limits.Nodes {
				warn("ineffective.static-node-limit", fmt.Sprintf("%s.scale[%d].replicas", in.SettingsPath, i),
					fmt.Sprintf("%d is more than NodePool/%s's limits.nodes %d (%s:%d): it grows to %d nodes only", sc.Replicas, p.Name, p.Limits.Nodes, p.File, p.Line, p.Limits.Nodes))
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, warns, err
	}
	return &Config{Region: env.Region, Zones: env.Zones, NodePools: res.NodePools, NodeOverlays: res.NodeOverlays, CapacityBuffers: res.CapacityBuffers, Settings: settings, Scale: scale}, warns, nil
}

// staticWarnings are the findings on static NodePools: the gate that
// leaves them off, and a node limit that keeps a pool from its replicas
// or its drifted nodes from being replaced.
func staticWarnings(pools []NodePool, st Settings) []component.Warning {
	var out []component.Warning
	for i := range pools {
		p := &pools[i]
		if !p.Static {
			continue
		}
		at := component.Warning{File: p.File, Line: p.Line, Path: "spec.replicas"}
		if !st.StaticCapacity {
			w := at
			w.Code, w.Info = "karpenter.gate-off", true
			w.Msg = fmt.Sprintf("spec.replicas: %s is a static NodePool, but the StaticCapacity feature gate is off (its default in v1.15): Karpenter keeps none of its %d nodes and launches nothing from it for pods either",
				p, p.Replicas)
			w.Fix = "turn the gate on: FEATURE_GATES=StaticCapacity=true on Karpenter's controller (Helm: settings.featureGates.staticCapacity=true), or spec.karpenter.featureGates.staticCapacity: true"
			out = append(out, w)
			continue
		}
		switch l := p.Limits.Nodes; {
		case l >= 0 && l < p.Replicas:
			w := at
			w.Code = "ineffective.static-node-limit"
			w.Msg = fmt.Sprintf("spec.replicas: %s keeps %d nodes but limits.nodes is %d: it never has more than %d", p, p.Replicas, l, l)
			w.Fix = fmt.Sprintf("raise limits.nodes above %d (one more per node drift may replace at once)", p.Replicas)
			out = append(out, w)
		case l >= 0 && l == p.Replicas && p.Replicas > 0 && !st.TerminateFirstDrift:
			w := at
			w.Code = "ineffective.static-node-limit"
			w.Msg = fmt.Sprintf("spec.replicas: %s keeps %d nodes and limits.nodes is %d too: a drifted node is never replaced (drift launches its replacement first and the limit leaves no room), and an expired or interrupted node is refilled only once it is gone",
				p, p.Replicas, l)
			w.Fix = fmt.Sprintf("set limits.nodes above %d, e.g. %d, or turn on the TerminateFirstDrift gate (FEATURE_GATES=TerminateFirstDrift=true, or spec.karpenter.featureGates.terminateFirstDrift: true) to delete drifted nodes first, the pool one node short until each refill is up", p.Replicas, p.Replicas+max(1, p.Replicas/10))
			out = append(out, w)
		}
	}
	return out
}

// Epoch is spec.karpenter.startTime when set: the wall clock of the
// scenario unless spec.epoch sets it (the loader decides).
func (karpenterComponent) Epoch(settings any) (time.Time, bool) {
	spec, _ := settings.(*apis.SettingsSpec)
	if spec == nil || spec.StartTime == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, spec.StartTime)
	return t.UTC(), err == nil
}

// LaunchesInstances: an autoscaler.
func (karpenterComponent) LaunchesInstances() bool { return true }

// Build makes the controller.
func (karpenterComponent) Build(deps component.Deps, cfg component.Config) (component.Model, error) {
	c, ok := deps.Cloud.(Cloud)
	if !ok {
		return nil, fmt.Errorf("karpenter: the run's cloud (%T) cannot launch for Karpenter", deps.Cloud)
	}
	ev, ok := deps.Evictor.(Evictor)
	if !ok {
		return nil, fmt.Errorf("karpenter: the run's evictor (%T) cannot drain for Karpenter", deps.Evictor)
	}
	return New(Deps{Engine: deps.Engine, Cluster: deps.Cluster, Catalog: deps.Catalog, Cloud: c, Evictor: ev}, *cfg.(*Config))
}

// Replaces: a NodePool or Provisioner replaced by an override of the
// same name and either kind (a migration compared: sim compare base.yaml
// base.yaml+v1-nodepool.yaml), a node class by one of its kind and name.
func (karpenterComponent) Replaces(prev, next *manifest.Document) (string, bool) {
	pool := func(k string) bool { return k == apis.KindNodePool || k == apis.KindProvisioner }
	if prev.Name != next.Name || prev.Kind != next.Kind && !(pool(prev.Kind) && pool(next.Kind)) {
		return "", false
	}
	what := "the one"
	if prev.Kind != next.Kind {
		what = fmt.Sprintf("the %s %s", prev.APIVersion, prev.Kind)
	}
	return fmt.Sprintf("%s/%s replaces %s at %s:%d", next.Kind, next.Name, what, prev.File, prev.Line), true
}

// Adopts: a start node labelled karpenter.sh/nodepool (or the legacy
// karpenter.sh/provisioner-name, a Provisioner being compiled as a
// NodePool of its name) with a NodePool of that name.
func (karpenterComponent) Adopts(cfg component.Config, labels map[string]string) string {
	name := labels[apis.LabelNodePool]
	if name == "" {
		name = labels["karpenter.sh/provisioner-name"]
	}
	for _, p := range cfg.(*Config).NodePools {
		if name != "" && p.Name == name {
			return name
		}
	}
	return ""
}

func (karpenterComponent) AdoptNote() (string, string) {
	return "NodePool", "as its NodeClaims (%s): Karpenter may consolidate, expire and drift them, and they count toward its limits"
}

// NodeTaintWarning: apis.NodeTaintWarning.
func (karpenterComponent) NodeTaintWarning(key string) string { return apis.NodeTaintWarning(key) }

// NodeBound: Karpenter launches for pending pods, without a fixed bound.
func (karpenterComponent) NodeBound(component.Config) (int64, bool) { return 0, true }

// PoolNames: the NodePools spec.market.joinFailures[].nodePools names.
func (karpenterComponent) PoolNames(cfg component.Config) (string, []string) {
	var names []string
	for _, p := range cfg.(*Config).NodePools {
		names = append(names, p.Name)
	}
	return "nodePools", names
}

// Wire connects the controller to the run's observers: node deletions for
// the report's timeline, and pods it launched nothing for and its
// disruption commands (the --events timeline's karpenterNoLaunch and
// disruptionCommand entries) when one is recorded.
func (k *Karpenter) Wire(o component.Observers) {
	k.OnDisruption(o.NodeDeletion)
	if o.Disruption != nil {
		k.OnDisruptionCommand(o.Disruption)
	}
	if o.NoCapacity != nil {
		k.OnNoLaunch(func(pods []cluster.PodID, class, message string) {
			o.NoCapacity("karpenterNoLaunch", pods, class, message)
		})
	}
}

// Adopt takes a start node the loader gave Karpenter, as the real
// controller finds its NodeClaims after a restart; res is its instance in
// the market.
func (k *Karpenter) AdoptStart(n cluster.Node, res cloud.LaunchResult) error {
	_, err := k.Adopt(n, res)
	return err
}

// Late gives the controller what exists only once the workload
// controllers do: the DaemonSets' pods on the nodes it plans, and the
// namespaces' labels its affinity terms read.
func (k *Karpenter) Late(l component.Late) {
	k.SetDaemonOverhead(l.DaemonSetOverhead)
	k.SetNamespaceLabels(l.NamespaceLabels)
}

// ConfigIn is Karpenter's configuration among a scenario's compiled
// components, or nil when Karpenter does not run.
func ConfigIn(cs component.Configs) *Config {
	c, _ := cs.Get(OwnerName)
	cfg, _ := c.(*Config)
	return cfg
}

// JoinTimeout: Karpenter deletes a NodeClaim whose node has not
// registered after the registration timeout.
func (karpenterComponent) JoinTimeout(cfg component.Config) time.Duration {
	return cfg.(*Config).Settings.RegistrationTimeout
}

func (c karpenterComponent) GaveUp(cfg component.Config, n *cluster.Node, why string, at func(float64) string) string {
	return fmt.Sprintf("%s, and Karpenter deleted its NodeClaim at %s, after the %s registration timeout, and provisioned again",
		why, at(n.Deleted.Seconds()), at(c.JoinTimeout(cfg).Seconds()))
}

func (karpenterComponent) KeptUnregistered(*cluster.Node) string { return "" }

// hasKind reports whether docs hold a document of the kind.
func hasKind(docs []*manifest.Document, kind string) bool {
	for _, d := range docs {
		if d.Kind == kind {
			return true
		}
	}
	return false
}

// Unready (explain.UnreadyExplainer): a NodeClaim that registered is past
// the registration timeout's reach and, never Initialized, is no
// consolidation candidate: repair (the NodeRepair gate) or expiry removes
// it, and until then the solve counts it as capacity for the pod.
func (karpenterComponent) Unready(cfg component.Config, n *cluster.Node, why string, at func(float64) string) string {
	why += "; its NodeClaim was Registered, so the registration timeout no longer applied, and never Initialized"
	if n.State == cluster.NodeGone {
		how := "deleted"
		if cfg.(*Config).Settings.NodeRepair {
			how = "repaired (NodeRepair: Ready=False past its 30-minute toleration) or deleted"
		}
		return fmt.Sprintf("%s, and Karpenter %s it at %s", why, how, at(n.Deleted.Seconds()))
	}
	if !cfg.(*Config).Settings.NodeRepair {
		return why + ": Karpenter kept it to the end as in-flight capacity the pod would land on (without the NodeRepair feature gate only its expireAfter removes it)"
	}
	return why + ": Karpenter kept it to the end as in-flight capacity the pod would land on"
}
