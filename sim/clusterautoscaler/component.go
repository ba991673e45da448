package clusterautoscaler

import (
	"fmt"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/provreq"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/manifest"
)

// This file is the Cluster Autoscaler as a component of the house
// (sim/component): eksctl's ClusterConfig, the documents it claims (its
// own Deployment, whose flags configure it; the priority expander's
// ConfigMap), spec.clusterAutoscaler, the compile step (package config)
// and the build step (New).

// ownedByCA is the owner of the node groups' nodes.
var ownedByCA = cluster.RegisterOwner(Owner)

// Component is the Cluster Autoscaler as sim/component sees it; cmd/sim's
// registration (sim/component/builtin) registers it.
var Component component.Component = caComponent{}

type caComponent struct{}

func (caComponent) Name() string { return Owner }

// Kinds: eksctl's ClusterConfig (its node groups) and ProvisioningRequests.
func (caComponent) Kinds() []component.Kind {
	return []component.Kind{{Group: "eksctl.io", Kind: "ClusterConfig"}, {Group: provreq.Group, Kind: provreq.Kind}}
}

func (caComponent) Settings() (string, any) { return "clusterAutoscaler", new(config.SettingsSpec) }

// Claims the Deployment that runs the Cluster Autoscaler (its
// configuration, not a workload) and the priority expander's ConfigMap.
func (caComponent) Claims(d *manifest.Document) bool {
	if isPriorityConfigMap(d) {
		return true
	}
	_, ok := config.FindDeployment(d)
	return ok
}

// NotAWorkload: the Deployment configures the Cluster Autoscaler.
func (caComponent) NotAWorkload(d *manifest.Document) (string, string) {
	return fmt.Sprintf("runs the Cluster Autoscaler (%s:%d): it configures the simulated Cluster Autoscaler and is not simulated as a workload", d.File, d.Line),
		"remove this entry; the Cluster Autoscaler's settings go in spec.clusterAutoscaler"
}

// ReadsContainer: the Deployment's cluster-autoscaler container, whose
// flags configure the simulated Cluster Autoscaler.
func (caComponent) ReadsContainer(d *manifest.Document) (int, bool) {
	dep, ok := config.FindDeployment(d)
	if !ok {
		return 0, false
	}
	i := 0
	if _, err := fmt.Sscanf(dep.Path, "spec.template.spec.containers[%d]", &i); err != nil {
		return 0, false
	}
	return i, true
}

func isPriorityConfigMap(d *manifest.Document) bool {
	return d.Kind == "ConfigMap" && d.Name == config.PriorityConfigMapName
}

// Replaces: a ClusterConfig of the same name, the priority ConfigMap, any
// Deployment running the Cluster Autoscaler.
func (caComponent) Replaces(prev, next *manifest.Document) (string, bool) {
	_, prevDep := config.FindDeployment(prev)
	_, nextDep := config.FindDeployment(next)
	switch {
	case prevDep && nextDep:
		return fmt.Sprintf("%s replaces the Cluster Autoscaler Deployment at %s:%d", next.Ref(), prev.File, prev.Line), true
	case isPriorityConfigMap(prev) && isPriorityConfigMap(next),
		prev.Kind == "ClusterConfig" && next.Kind == "ClusterConfig" && prev.Name == next.Name:
		return fmt.Sprintf("%s/%s replaces the one at %s:%d", next.Kind, next.Name, prev.File, prev.Line), true
	}
	return "", false
}

// Location: the first ClusterConfig's metadata.region and
// availabilityZones.
func (caComponent) Location(docs []*manifest.Document) (component.Location, bool) {
	for _, d := range docs {
		if d.Kind == "ClusterConfig" {
			r, zs := config.Location(d)
			return component.Location{Region: r, Zones: zs, Doc: d, RegionPath: "metadata.region", ZonesPath: "availabilityZones"}, true
		}
	}
	return component.Location{}, false
}

// Compile reads the eksctl node groups, the priority expander's
// ConfigMap, the Cluster Autoscaler's Deployment and
// spec.clusterAutoscaler. No node group: the Cluster Autoscaler does not
// run (nil config).
func (caComponent) Compile(env component.Env, in component.Input) (component.Config, []component.Warning, error) {
	c := &caCompiler{env: env, in: in}
	spec, _ := in.Settings.(*config.SettingsSpec)
	cfg := c.compile(spec)
	return cfg, c.warns, c.errs.Err()
}

type caCompiler struct {
	env   component.Env
	in    component.Input
	errs  manifest.Errors
	warns []component.Warning
	// dep is the Deployment that runs the Cluster Autoscaler, priority the
	// priority expander's ConfigMap.
	dep         *config.Deployment
	priority    *manifest.Document
	configs     []*manifest.Document
	provReqDocs []*manifest.Document
}

func (c *caCompiler) info(d *manifest.Document, code, msg string) {
	c.warns = append(c.warns, component.Warning{Code: code, File: d.File, Line: d.Line, Info: true, Msg: msg})
}

func (c *caCompiler) warn(d *manifest.Document, path, code, msg string) {
	w := component.Warning{Code: code, File: d.File, Line: d.LineOf(path), Path: path, Msg: msg}
	if path != "" {
		w.Msg = path + ": " + msg
	}
	c.warns = append(c.warns, w)
}

// configWarnings adds package config's warnings, each ending with its fix.
func (c *caCompiler) configWarnings(ws []*manifest.Error) {
	for _, w := range ws {
		msg := w.Msg
		if w.Path != "" {
			msg = w.Path + ": " + msg
		}
		if w.Hint != "" {
			msg += "; " + w.Hint
		}
		fix := w.Hint
		if fix == "" {
			fix = w.Fix
		}
		c.warns = append(c.warns, component.Warning{Code: w.Code, File: w.File, Line: w.Line, Path: w.Path, Msg: msg, Fix: fix})
	}
}

// sort takes the documents apart: ClusterConfigs, the one priority
// ConfigMap (a second is an error), the one Deployment (a second is
// ignored with a warning).
func (c *caCompiler) sort() {
	for _, d := range c.in.Docs {
		switch {
		case d.Kind == "ClusterConfig":
			c.configs = append(c.configs, d)
		case d.Kind == provreq.Kind:
			c.provReqDocs = append(c.provReqDocs, d)
		case isPriorityConfigMap(d):
			if c.priority != nil {
				c.errs = append(c.errs, d.Errorf("metadata.name", "keep one", "a second %s (the first is at %s:%d)", d.Name, c.priority.File, c.priority.Line))
				continue
			}
			c.priority = d
		default:
			dep, ok := config.FindDeployment(d)
			if !ok {
				continue
			}
			if prev := c.dep; prev != nil {
				c.warn(d, "", "ca.second-deployment", fmt.Sprintf("a second Deployment running the Cluster Autoscaler (the first is %s at %s:%d): its flags are ignored, and it is not simulated as a workload",
					prev.Doc.Ref(), prev.Doc.File, prev.Doc.Line))
				continue
			}
			c.dep = dep
		}
	}
}

func (c *caCompiler) compile(spec *config.SettingsSpec) component.Config {
	c.sort()
	env := c.env
	settings, err := spec.Compile(env.Scenario, c.in.SettingsPath)
	if err != nil {
		c.errs = c.errs.Add(err)
	}
	c.configWarnings(settings.Warnings)
	c.deploymentFlags(spec, &settings)
	var groups []config.NodeGroup
	cenv := config.Env{Catalog: env.Catalog, Region: env.Region, Zones: env.Zones}
	for _, d := range c.configs {
		gs, warns, err := config.CompileClusterConfig(d, cenv)
		c.configWarnings(warns)
		if err != nil {
			c.errs = c.errs.Add(err)
			continue
		}
		groups = append(groups, gs...)
	}
	if d := c.priority; d != nil {
		p, err := config.ParsePriorityConfigMap(d)
		switch {
		case err != nil:
			c.errs = c.errs.Add(err)
		case settings.Priorities != nil:
			c.errs = append(c.errs, d.Errorf("data.priorities", "keep one: this ConfigMap or spec.clusterAutoscaler.priorities", "priorities are given twice"))
		default:
			settings.Priorities = &p
		}
	}
	c.running(spec, &settings)
	why := "no eksctl ClusterConfig node groups"
	if len(groups) > 0 && !settings.Running {
		why = settings.RunningSource
	}
	reqs := c.compileProvReqs(c.provReqDocs, &provreqOptions{running: len(groups) > 0 && settings.Running, why: why, enabled: settings.ProvReq.Enabled, instance: settings.ProvReq.ProcessorInstance})
	if len(groups) == 0 {
		if d := c.dep; d != nil {
			c.info(d.Doc, "ca.not-running", "no eksctl ClusterConfig node groups in the scenario: the Cluster Autoscaler this Deployment runs has nothing to scale and is not simulated")
		}
		if spec != nil {
			c.warn(env.Scenario, c.in.SettingsPath, "ca.not-running", "no eksctl ClusterConfig node groups in the scenario: the Cluster Autoscaler does not run")
		}
		return nil
	}
	c.terminationHandler(&settings)
	warns, err := config.CrossCheck(groups, &settings)
	c.configWarnings(warns)
	if err != nil {
		c.errs = c.errs.Add(err)
		return nil
	}
	c.runningInfo(groups, &settings)
	settings.ComputeTime = env.ComputeTime
	bufs := c.capacityBuffers(&settings.Options)
	return &Config{Region: env.Region, Zones: env.Zones, NodeGroups: groups, Settings: settings, CapacityBuffers: bufs, ProvisioningRequests: reqs}
}

// running decides whether a Cluster Autoscaler runs: the scenario sets
// spec.clusterAutoscaler or the manifests hold its Deployment. Without
// one, eksctl's node groups are Auto Scaling groups nothing resizes.
func (c *caCompiler) running(spec *config.SettingsSpec, settings *config.Settings) {
	switch {
	case spec != nil:
		settings.Running, settings.RunningSource = true, c.in.SettingsPath
	case c.dep != nil && c.dep.ScaledToZero:
		settings.Running, settings.RunningSource = false, fmt.Sprintf("%s (%s:%d), which would run it, has spec.replicas 0", c.dep.Doc.Ref(), c.dep.Doc.File, c.dep.Doc.Line)
	case c.dep != nil:
		settings.Running, settings.RunningSource = true, fmt.Sprintf("%s (%s:%d)", c.dep.Doc.Ref(), c.dep.Doc.File, c.dep.Doc.Line)
	default:
		settings.Running, settings.RunningSource = false, "the scenario sets no spec.clusterAutoscaler and the manifests hold no Deployment running it"
	}
}

// runningInfo says on one info line whether a Cluster Autoscaler runs and
// which node groups it autoscales.
func (c *caCompiler) runningInfo(groups []config.NodeGroup, settings *config.Settings) {
	if len(groups) == 0 {
		return
	}
	d := c.configs[0]
	names := config.GroupNames(groups)
	if !settings.Running {
		c.info(d, "ca.absent", fmt.Sprintf("no Cluster Autoscaler runs (%s): node group(s) %s keep their desired capacity; their Auto Scaling groups replace reclaimed and failed instances and never scale for pods; set spec.clusterAutoscaler (with --node-group-auto-discovery) or include its Deployment to autoscale them",
			settings.RunningSource, strings.Join(names, ", ")))
		for i := range groups {
			g := &groups[i]
			if _, tagged := g.Tags[config.TagEnabled]; tagged {
				// The tags (eksctl's iam.withAddonPolicies.autoScaler) only
				// let a Cluster Autoscaler find the group; they scale nothing.
				c.warns = append(c.warns, component.Warning{Code: "ca.tagged-without-autoscaler", File: g.File, Line: g.Line, Path: g.Path,
					Msg: fmt.Sprintf("%s: node group %s carries the Cluster Autoscaler's discovery tags (%s), but no Cluster Autoscaler runs: the tags alone never scale it", g.Path, g.Name, config.TagEnabled),
					Fix: "install the Cluster Autoscaler (its Deployment, or spec.clusterAutoscaler with --node-group-auto-discovery), or size the group by hand"})
			}
		}
		return
	}
	sel := config.Select(groups, settings)
	var on, off []string
	for i := range groups {
		if sel[i].Autoscaled {
			on = append(on, groups[i].Name)
		} else {
			off = append(off, groups[i].Name)
		}
	}
	msg := fmt.Sprintf("a Cluster Autoscaler runs (%s)", settings.RunningSource)
	switch {
	case len(on) == 0:
		msg += ": its flags find no node group, so it autoscales none"
	default:
		msg += ": it autoscales node group(s) " + strings.Join(on, ", ") + " (found by " + findingFlags(&settings.Options) + ")"
	}
	if len(off) > 0 {
		msg += "; " + strings.Join(off, ", ") + " keep(s) its desired capacity"
	}
	c.info(d, "ca.running", msg)
}

// findingFlags names the flags that found the groups.
func findingFlags(o *config.Options) string {
	var f []string
	if len(o.Nodes) > 0 {
		f = append(f, "--nodes")
	}
	if len(o.AutoDiscovery) > 0 {
		f = append(f, "--node-group-auto-discovery")
	}
	return strings.Join(f, " and ")
}

// deploymentFlags reads the flags of the Cluster Autoscaler's Deployment,
// if the manifests hold one, into settings, unless the scenario sets
// spec.clusterAutoscaler.args: those win. Either way the Deployment is the
// autoscaler itself, not a workload, and an info line says what was done.
func (c *caCompiler) deploymentFlags(spec *config.SettingsSpec, settings *config.Settings) {
	dep := c.dep
	if dep == nil {
		return
	}
	if dep.ScaledToZero && (spec == nil || len(spec.Args) == 0) {
		return // no Cluster Autoscaler runs: the ca.absent line says why
	}
	d := dep.Doc
	info := func(format string, args ...any) {
		c.info(d, "ca.deployment-flags", fmt.Sprintf("%s runs the Cluster Autoscaler (image %s): it is not simulated as a workload; ", d.Ref(), dep.Image)+fmt.Sprintf(format, args...))
	}
	switch {
	case spec != nil && len(spec.Args) > 0:
		info("its flags are not read, because the scenario's spec.clusterAutoscaler.args sets them")
	case dep.OtherCommand != "":
		info("its flags cannot be read from %s.command (%s), so the upstream defaults apply; set spec.clusterAutoscaler.args", dep.Path, dep.OtherCommand)
	default:
		o, err := dep.Options()
		if err != nil {
			c.errs = c.errs.Add(err)
			return
		}
		settings.UseDeployment(dep, o)
		c.configWarnings(o.Warnings)
		if len(dep.Args) == 0 {
			info("it gives no flags, so the upstream defaults apply")
			return
		}
		info("its %d flag(s) configure the simulated Cluster Autoscaler (the scenario does not set spec.clusterAutoscaler.args)", len(dep.Args))
	}
}

// terminationHandler finds aws-node-termination-handler among the
// scenario's other objects (a DaemonSet or Deployment running its image)
// unless spec.clusterAutoscaler.nodeTerminationHandler sets it; an info
// line says what was found. It stays a workload: its pods are real pods.
func (c *caCompiler) terminationHandler(settings *config.Settings) {
	if settings.TerminationHandlerSet {
		return
	}
	for _, d := range c.in.Others {
		h, ok := config.FindTerminationHandler(d)
		if !ok {
			continue
		}
		if settings.TerminationHandler.Mode != config.NTHNone {
			c.warn(d, "", "ca.second-termination-handler", fmt.Sprintf("a second aws-node-termination-handler (the first is %s): ignored", settings.TerminationHandler.Source))
			continue
		}
		settings.TerminationHandler = h
		what := "drains a self-managed node group's spot nodes on their interruption notice"
		if h.Mode == config.NTHQueue {
			what = "drains a self-managed node group's spot nodes on interruption notices, rebalance recommendations and the ASG's terminations (queue processor)"
		}
		c.info(d, "ca.termination-handler", fmt.Sprintf("%s runs aws-node-termination-handler (%s mode): it %s; set spec.clusterAutoscaler.nodeTerminationHandler to override", d.Ref(), h.Mode, what))
	}
}

// LaunchesInstances: an autoscaler.
func (caComponent) LaunchesInstances() bool { return true }

// Build makes the Cluster Autoscaler.
func (caComponent) Build(deps component.Deps, cfg component.Config) (component.Model, error) {
	c, ok := deps.Cloud.(Cloud)
	if !ok {
		return nil, fmt.Errorf("clusterautoscaler: the run's cloud (%T) cannot launch for the Cluster Autoscaler", deps.Cloud)
	}
	ev, ok := deps.Evictor.(Evictor)
	if !ok {
		return nil, fmt.Errorf("clusterautoscaler: the run's evictor (%T) cannot drain for the Cluster Autoscaler", deps.Evictor)
	}
	return New(Deps{Engine: deps.Engine, Cluster: deps.Cluster, Catalog: deps.Catalog, Cloud: c, Evictor: ev}, *cfg.(*Config))
}

// Adopts: a start node labelled eks.amazonaws.com/nodegroup (a managed
// node group) or alpha.eksctl.io/nodegroup-name (eksctl's) with a node
// group of that name.
func (caComponent) Adopts(cfg component.Config, labels map[string]string) string {
	name := labels["eks.amazonaws.com/nodegroup"]
	if name == "" {
		name = labels["alpha.eksctl.io/nodegroup-name"]
	}
	for _, g := range cfg.(*Config).NodeGroups {
		if name != "" && g.Name == name {
			return name
		}
	}
	return ""
}

func (caComponent) AdoptNote() (string, string) {
	return "node group", "as its instances (%s): they count in its size and toward maxSize, and the Cluster Autoscaler may scale them in"
}

// NodeBound: the groups' maximum sizes; the Cluster Autoscaler also
// launches for pending pods (within them).
func (caComponent) NodeBound(cfg component.Config) (int64, bool) {
	var n int64
	for _, g := range cfg.(*Config).NodeGroups {
		n += int64(g.MaxSize)
	}
	return n, true
}

// PoolNames: the node groups spec.market.joinFailures[].nodeGroups names.
func (caComponent) PoolNames(cfg component.Config) (string, []string) {
	var names []string
	for _, g := range cfg.(*Config).NodeGroups {
		names = append(names, g.Name)
	}
	return "nodeGroups", names
}

// Wire connects the Cluster Autoscaler to the run's observers.
func (a *Autoscaler) Wire(o component.Observers) {
	a.OnDelete(o.NodeDeletion)
	if a.prq != nil {
		a.prq.observe = o.ProvReqCondition
	}
	if o.NoCapacity != nil {
		a.OnNoScaleUp(func(pods []cluster.PodID, class, message string) {
			o.NoCapacity("caNoScaleUp", pods, class, message)
		})
	}
}

// AdoptStart takes a start node the loader gave a node group; res is its
// instance in the market.
func (a *Autoscaler) AdoptStart(n cluster.Node, res cloud.LaunchResult) error {
	_, err := a.Adopt(n, res)
	return err
}

// ConfigIn is the Cluster Autoscaler's configuration among a scenario's
// compiled components, or nil when it does not run.
func ConfigIn(cs component.Configs) *Config {
	c, _ := cs.Get(Owner)
	cfg, _ := c.(*Config)
	return cfg
}

// JoinTimeout is --max-node-provision-time: how long the Cluster
// Autoscaler waits for a node to register before it removes it.
func (caComponent) JoinTimeout(cfg component.Config) time.Duration {
	return cfg.(*Config).Settings.MaxNodeProvisionTime
}

func (c caComponent) GaveUp(cfg component.Config, n *cluster.Node, why string, at func(float64) string) string {
	return fmt.Sprintf("%s, and the Cluster Autoscaler removed it at %s as unregistered for longer than --max-node-provision-time (%s; a scale-up still waiting for it timed out then and backed node group %s off)",
		why, at(n.Deleted.Seconds()), at(c.JoinTimeout(cfg).Seconds()), n.OwnerName)
}

// Unready (explain.UnreadyExplainer): a registered node that never became
// Ready is removed by the unready scale-down, or kept (scale-down of
// unready nodes off, the group at its minimum, an unhealthy cluster).
func (caComponent) Unready(cfg component.Config, n *cluster.Node, why string, at func(float64) string) string {
	s := cfg.(*Config).Settings
	if n.State == cluster.NodeGone {
		return fmt.Sprintf("%s; the Cluster Autoscaler expected it (NotStarted) for --max-node-startup-time (%s) after it registered, a scale-up waiting for it failing after --max-node-provision-time (%s), and removed it at %s as an unready node unneeded for --scale-down-unready-time (%s)",
			why, at(s.MaxNodeStartupTime.Seconds()), at(s.MaxNodeProvisionTime.Seconds()), at(n.Deleted.Seconds()), at(s.ScaleDownUnreadyTime.Seconds()))
	}
	if !s.ScaleDownUnreadyEnabled {
		return why + ", and was still there at the end: --scale-down-unready-enabled=false keeps unready nodes"
	}
	return why + fmt.Sprintf(", and was still there at the end (the Cluster Autoscaler removes an unready node after --scale-down-unready-time, %s, unless its group is at its minimum size or more than --ok-total-unready-count and --max-total-unready-percentage of the nodes are unready, when it stops altogether)", at(s.ScaleDownUnreadyTime.Seconds()))
}

// KeptUnregistered: the Cluster Autoscaler does not remove unregistered
// nodes below a node group's minimum size.
func (caComponent) KeptUnregistered(*cluster.Node) string {
	return " (the Cluster Autoscaler does not remove unregistered nodes below a node group's minimum size)"
}
