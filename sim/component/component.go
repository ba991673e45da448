// Package component is the contract between the simulator's house and the
// models that take part in a run, as kube-scheduler's plugin registry is
// between its framework and its plugins, one level up: a component has a
// name, the document kinds it reads, a Scenario settings field, and a
// compile step that turns its documents into a typed configuration plus
// coded warnings; its build step makes the model on a run's engine and
// cluster. Optional interfaces add what only some components have: other
// documents they take (Claimer), overrides across kinds (Replacer), the
// cluster's location (Locator), start nodes they adopt (Adopter), taints
// they warn of on nodes they did not launch (NodeTaintWarner), the nodes
// they may add (NodeBounder), the pool names a market join failure may
// name (PoolNamer), whether it launches instances (Launcher), the
// container whose flags it reads (ContainerReader), what sim explain says
// of a node that never joined (JoinExplainer), the capacity sources of sim lint's placement matrix
// (CapacityLinter, lint.go: each source's row, facts and a judge whose
// reasons the component words).
//
// The scenario loader reads only the Scenario document, includes,
// overrides and the common spec (seed, duration, region, zones, epoch), and
// hands every other document it does not compile itself to the component
// registered for its API group and kind (never the kind alone). The order
// in which components are built is behaviour, and is the one commented
// list in package simulation; registration order fixes only the order the
// loader asks components in (a start node labelled for two components'
// pools goes to the first). Node owners are names (cluster.RegisterOwner;
// the numbers behind them never reach an output).
package component

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Kind is a document kind by API group and kind: "karpenter.sh" and
// NodePool, "eksctl.io" and ClusterConfig, "" and Pod (the core group).
type Kind struct {
	Group string
	Kind  string
}

func (k Kind) String() string {
	if k.Group == "" {
		return k.Kind
	}
	return k.Kind + "." + k.Group
}

// KindOf is a document's kind: the group of its apiVersion (the part
// before the slash; none for the core group's "v1") and its kind.
func KindOf(d *manifest.Document) Kind {
	g, _, ok := strings.Cut(d.APIVersion, "/")
	if !ok {
		g = ""
	}
	return Kind{Group: g, Kind: d.Kind}
}

// Warning is accepted input that may not do what its author expects, or
// (Info) a note on what was done with it. Code names the finding for
// programs (sim lint reads codes, never the prose); Msg and Fix are for
// people.
type Warning struct {
	// Code is a stable, dotted name such as "karpenter.legacy-field";
	// "" for a warning no program needs to tell apart.
	Code string
	File string
	Line int
	// Path is the field path within the document, e.g.
	// spec.ttlSecondsAfterEmpty ("" for the document); Msg includes it.
	Path string
	Msg  string
	Fix  string
	// Info marks a note rather than a problem (sim lint: severity info).
	Info bool
}

func (w Warning) String() string {
	switch {
	case w.File != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	case w.File != "":
		return fmt.Sprintf("%s: %s", w.File, w.Msg)
	}
	return w.Msg
}

// DefaultEpoch is the wall-clock time of simulated time 0 unless the
// Scenario's spec.epoch sets it (Env.Epoch): Monday 2026-01-05 00:00 UTC,
// so that CronJob and budget schedules by weekday read simply from the
// start of a run. A simulator's choice, not an upstream default.
var DefaultEpoch = time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)

// Env is what a compile step gets besides its documents: the scenario's
// common spec as compiled, the symbols and resource names every model
// shares, and the catalogue.
type Env struct {
	Syms      *cluster.Symbols
	Resources *cluster.ResourceNames
	Catalog   *catalog.Catalog
	Region    string
	Zones     []string
	// ComputeTime is spec.computeTime: models take virtual time for their
	// work.
	ComputeTime bool
	// Epoch is the wall-clock time of simulated time 0 (spec.epoch).
	Epoch time.Time
	// Scenario is the Scenario document: settings errors are reported at
	// its lines (SettingsPath within it).
	Scenario *manifest.Document
	// Reservations are the account's capacity reservations
	// (spec.market.reservations).
	Reservations []cloud.Reservation
}

// Input is a component's share of a scenario.
type Input struct {
	// Docs are the documents of its kinds and those it claimed, in the
	// order read, identical copies dropped.
	Docs []*manifest.Document
	// Settings is the decoded settings field (the pointer Settings
	// returned, filled), or nil when the scenario does not set it.
	Settings any
	// SettingsPath is the settings field's path, e.g. spec.karpenter.
	SettingsPath string
	// Others are the scenario's other objects (workloads and the rest the
	// loader compiles), read-only: a component may find its helpers
	// among them (a termination handler's DaemonSet).
	Others []*manifest.Document
	// Peers are the other components' documents, read-only: Karpenter
	// reads whether an eksctl ClusterConfig turns EKS Auto Mode on.
	Peers []*manifest.Document
}

// Config is a component's compiled configuration; its own type, which
// only the component reads.
type Config any

// Deps are the parts of a run a component's model is built on.
type Deps struct {
	Engine  *engine.Engine
	Cluster *cluster.Cluster
	Catalog *catalog.Catalog
	// Cloud is EC2 as the autoscalers see it (the market, traced): each
	// model asserts the interface it declares.
	Cloud any
	// Evictor is the eviction API drains use (sim/eviction), likewise.
	Evictor any
}

// Component is one model as the house sees it.
type Component interface {
	// Name is the component's registered name; it is also the owner name
	// of the nodes it launches (cluster.RegisterOwner).
	Name() string
	// Kinds are the document kinds it reads.
	Kinds() []Kind
	// Settings returns the Scenario spec field it reads ("karpenter" for
	// spec.karpenter) and a new pointer to decode it into; "" for none.
	Settings() (field string, spec any)
	// Compile turns the component's documents and settings into its
	// configuration, with warnings. It checks each document's apiVersion:
	// the loader also hands it its kinds under an API group that is a
	// mistake for its own (none, or a letter or two off), so that the
	// error names the served versions. A nil Config means the component
	// does not run in this scenario (no NodePool, no node group).
	Compile(env Env, in Input) (Config, []Warning, error)
	// Build makes the model for a run.
	Build(deps Deps, cfg Config) (Model, error)
}

// Model is a built component. What a run asks of it beyond being built
// it asks through optional interfaces: Wirer, StartAdopter, Later, and
// those of other packages (report.Section for its report section,
// CheckIndexes for --check).
type Model any

// Observers are the run's recorders a model reports to.
type Observers struct {
	// NodeDeletion hears of each node deletion the model starts, with its
	// reason (the report's timeline).
	NodeDeletion func(node cluster.NodeID, reason string)
	// NoCapacity, set when the run records a timeline, hears why pods got
	// no node: kind is the timeline entry's kind (karpenterNoLaunch).
	NoCapacity func(kind string, pods []cluster.PodID, class, message string)
	// Disruption, set when the run records a timeline, hears of each
	// moment of a disruption command (the --events timeline's
	// disruptionCommand entries). A model builds the value only when it
	// is set: runs without a timeline pay nothing.
	Disruption func(DisruptionCommand)
	// ProvReqCondition, set when the run records a timeline, hears each
	// change of a ProvisioningRequest's condition.
	ProvReqCondition func(ProvReqCondition)
}

// ProvReqCondition is a change of a ProvisioningRequest's condition
// (autoscaling.x-k8s.io/v1 status.conditions).
type ProvReqCondition struct {
	// Request is namespace/name; Class its provisioningClassName.
	Request, Class string
	// Type is Accepted, Provisioned, Failed or BookingExpired; Status
	// "True" or "False".
	Type, Status, Reason, Message string
}

// DisruptionCommand is one moment of an autoscaler's disruption command
// (Karpenter's disruption controller): a decision to delete or replace
// nodes, what it would launch, and the budget that let it.
type DisruptionCommand struct {
	// Phase is the moment: decided (a method found the command), started
	// (its replacements launched and its candidates tainted, or its
	// candidates' deletion begun when it has none), invalidated (the
	// re-check after the validation delay turned it down), aborted (a
	// replacement did not launch, went away or did not initialize in
	// time: the candidates stay), completed (the replacements are
	// initialized and the candidates' deletion begins).
	Phase string
	// Why says why a command was invalidated or aborted.
	Why string
	// Method is the disruption method, as the autoscaler names it
	// ("emptiness", "static drift", "drift", "multi-node consolidation", "single-node
	// consolidation"); Reason the disruption reason in upstream's words
	// ("empty", "underutilized", "drifted").
	Method, Reason string
	// Candidates are the nodes the command disrupts.
	Candidates []DisruptionNode
	// Replacements are the nodes it launches in their place (none: the
	// candidates' pods fit on the rest of the cluster).
	Replacements []DisruptionReplacement
	// Budgets are the disruption budgets that allowed it, one per pool of
	// the candidates.
	Budgets []DisruptionBudget
	// Scores are a consolidation move's scores in the Balanced pools of
	// its candidates (none under other policies).
	Scores []DisruptionScore
}

// DisruptionScore is a Balanced pool's score of a consolidation move: the
// move's savings and disruption as percentages of the pool's cost and
// disruption cost, their ratio, and the threshold it had to reach.
type DisruptionScore struct {
	Pool                      string
	Score, Threshold          float64
	SavingsPct, DisruptionPct float64
}

// DisruptionNode is a candidate of a disruption command.
type DisruptionNode struct {
	Node, Pool, InstanceType, CapacityType string
	// Pods is how many of its pods must move.
	Pods int
}

// DisruptionReplacement is a node a disruption command launches.
type DisruptionReplacement struct {
	Pool string
	// CapacityType is what the replacement may launch as ("spot",
	// "on-demand", or "spot,on-demand" when both are allowed).
	CapacityType string
	// InstanceTypes are its instance types, cheapest first, at most
	// MaxReplacementTypes of them; Options is how many it has in all.
	InstanceTypes []string
	Options       int
}

// MaxReplacementTypes is how many of a replacement's instance types a
// DisruptionReplacement names.
const MaxReplacementTypes = 10

// DisruptionBudget is the budget of one pool that allowed a command: the
// one that sets the pool's allowance for the command's reason.
type DisruptionBudget struct {
	Pool string
	// Nodes is the budget's value as written ("10%", "1"); "" when no
	// budget applies to the reason.
	Nodes string
	// Reasons are the reasons the budget names (none: all of them).
	Reasons []string
	// Schedule is the budget's schedule and duration, "" when always
	// active.
	Schedule string
	// Allowed is how many more of the pool's nodes it let be disrupted
	// when the command was decided, -1 when no budget applies.
	Allowed int
}

// Wirer is a model that reports to the run's observers.
type Wirer interface{ Wire(Observers) }

// StartAdopter is a model that takes the start nodes the loader gave it
// (Node.Owner is the component's owner); res is the node's instance, which
// the market adopted first.
type StartAdopter interface {
	AdoptStart(n cluster.Node, res cloud.LaunchResult) error
}

// Late is what exists only once the workload controllers do.
type Late struct {
	// DaemonSetOverhead is the DaemonSets' pods' requests on a node like
	// template.
	DaemonSetOverhead func(template *cluster.Node) cluster.Resources
	// NamespaceLabels are the Namespace manifests' labels.
	NamespaceLabels map[cluster.Sym]cluster.Labels
}

// Later is a model that needs Late, given before the first event.
type Later interface{ Late(Late) }

// Launcher is a component whose model launches instances through the
// cloud (an autoscaler): a run builds the EC2 market when one runs, and
// sim explain tells a scenario without one that only static nodes take
// pods.
type Launcher interface{ LaunchesInstances() bool }

// Launching reports whether a compiled component launches instances.
func Launching(cs Configs) bool {
	for _, c := range cs {
		if comp, ok := Lookup(c.Name); ok {
			if l, ok := comp.(Launcher); ok && l.LaunchesInstances() {
				return true
			}
		}
	}
	return false
}

// Claimer takes documents of kinds it does not list, before the loader
// looks at their kind: the Deployment that runs the Cluster Autoscaler is
// its configuration, not a workload.
type Claimer interface {
	// Claims reports whether d belongs to the component. Overrides of a
	// claimed document replace the earlier one with a warning.
	Claims(d *manifest.Document) bool
	// NotAWorkload is the error (message and hint) for a spec.workloads
	// entry naming the claimed document d.
	NotAWorkload(d *manifest.Document) (msg, hint string)
}

// ContainerReader reads the command and arguments of one container of a
// document it claims (the Cluster Autoscaler's flags): what sim sweep
// --emit-job must ship of it, while it drops every other container's.
type ContainerReader interface {
	// ReadsContainer returns the index in spec.template.spec.containers
	// of the container whose command and args the component reads.
	ReadsContainer(d *manifest.Document) (index int, ok bool)
}

// EnvReader reads some environment variables of one container of a
// document it claims (Karpenter's settings): what sim sweep --emit-job
// keeps of that container's env, while it drops every other variable
// (the cluster's endpoint, credentials) and every other container's.
type EnvReader interface {
	// ReadsEnv returns the container's index in
	// spec.template.spec.containers and the variables read.
	ReadsEnv(d *manifest.Document) (index int, names []string, ok bool)
}

// ReadEnv is the container of d and the variables of its env a
// registered component reads (EnvReader), if any.
func ReadEnv(d *manifest.Document) (int, []string, bool) {
	for _, c := range Registered() {
		if er, ok := c.(EnvReader); ok {
			if i, names, ok := er.ReadsEnv(d); ok {
				return i, names, true
			}
		}
	}
	return 0, nil, false
}

// Replacer says whether an override document next replaces the earlier
// document prev of the component (one of the same kind and name, a
// NodePool that replaces a legacy Provisioner of its name), and the
// warning that says so. Without it an override replaces a document of
// the same kind, namespace and name.
type Replacer interface {
	Replaces(prev, next *manifest.Document) (msg string, ok bool)
}

// Epocher gives the wall clock of simulated time 0 from the component's
// settings (spec.karpenter.startTime, read before spec.epoch existed),
// used where spec.epoch is not set.
type Epocher interface {
	Epoch(settings any) (time.Time, bool)
}

// Locator gives the cluster's region and zones from the component's
// documents (an eksctl ClusterConfig's metadata.region and
// availabilityZones), where the Scenario does not set them.
type Locator interface {
	Location(docs []*manifest.Document) (Location, bool)
}

// Location is where a component's documents place the cluster, and
// where they say so (for errors).
type Location struct {
	Region string
	Zones  []string
	// Doc holds them, at RegionPath and ZonesPath.
	Doc                   *manifest.Document
	RegionPath, ZonesPath string
}

// Adopter takes start nodes (Node manifests) that belong to it.
type Adopter interface {
	// Adopts returns the name of the pool of cfg that a node with these
	// labels belongs to, or "".
	Adopts(cfg Config, labels map[string]string) string
	// AdoptNote is the info line's wording of what adoption means,
	// with the pool kind: ("NodePool", "as its NodeClaims (%s): ...").
	AdoptNote() (poolKind, what string)
}

// NodeTaintWarner warns of taints its model manages on nodes it did not
// launch (a Node manifest, a static pool, another autoscaler's group):
// taints it does not act on there. The loader gives these warnings
// CodeNodeTaint.
type NodeTaintWarner interface {
	NodeTaintWarning(key string) string
}

// CodeNodeTaint is the code of a NodeTaintWarner's warnings.
const CodeNodeTaint = "ineffective.node-taint"

// NodeBounder bounds the nodes a compiled component may add over a run,
// for the load-time estimate of DaemonSet pods: fixed (the sum of
// maximum sizes) and whether it also launches for pending pods without
// a fixed bound.
type NodeBounder interface {
	NodeBound(cfg Config) (fixed int64, unbounded bool)
}

// PoolNamer lists the pools of a compiled component (NodePools, node
// groups) that spec.market.joinFailures may name, under the market
// field that names them ("nodePools").
type PoolNamer interface {
	PoolNames(cfg Config) (field string, names []string)
}

// JoinExplainer tells sim explain what the component does with a node of
// its own that does not register in time.
type JoinExplainer interface {
	// JoinTimeout is how long it waits for a node to register.
	JoinTimeout(cfg Config) time.Duration
	// GaveUp completes why (what became of the join) with what it did
	// with node when the timeout passed; at formats a time of the run.
	GaveUp(cfg Config, node *cluster.Node, why string, at func(seconds float64) string) string
	// KeptUnregistered is the note on an unregistered node it left in
	// place ("" for none).
	KeptUnregistered(node *cluster.Node) string
}

// Compiled is one component's configuration in a loaded scenario.
type Compiled struct {
	Name   string
	Config Config
}

// Configs are the compiled components of a scenario, in registration
// order; only those that run.
type Configs []Compiled

// Get returns the configuration of the component called name.
func (cs Configs) Get(name string) (Config, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c.Config, true
		}
	}
	return nil, false
}

// Registry is the set of registered components.
type Registry struct {
	mu    sync.RWMutex
	list  []Component
	names map[string]bool
	kinds map[Kind]string
}

var defaultRegistry = &Registry{}

// Register adds c to the registry every loader and run uses. Components
// register from their package's init; registering a name or a kind twice
// panics (a programming error).
func Register(c Component) { defaultRegistry.Register(c) }

// Registered returns the registered components in registration order.
func Registered() []Component { return defaultRegistry.All() }

// Lookup returns the registered component called name.
func Lookup(name string) (Component, bool) { return defaultRegistry.Lookup(name) }

// ForKind returns the registered component that reads kind k.
func ForKind(k Kind) (Component, bool) { return defaultRegistry.ForKind(k) }

// Register adds c.
func (r *Registry) Register(c Component) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names == nil {
		r.names, r.kinds = map[string]bool{}, map[Kind]string{}
	}
	if r.names[c.Name()] {
		panic("component: " + c.Name() + " registered twice")
	}
	for _, k := range c.Kinds() {
		if prev, ok := r.kinds[k]; ok {
			panic(fmt.Sprintf("component: kind %s registered by both %s and %s", k, prev, c.Name()))
		}
	}
	r.names[c.Name()] = true
	for _, k := range c.Kinds() {
		r.kinds[k] = c.Name()
	}
	r.list = append(r.list, c)
	cluster.RegisterOwner(c.Name())
}

// All returns the components in registration order.
func (r *Registry) All() []Component {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.list)
}

// Lookup returns the component called name.
func (r *Registry) Lookup(name string) (Component, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, c := range r.list {
		if c.Name() == name {
			return c, true
		}
	}
	return nil, false
}

// ForKind returns the component that reads kind k.
func (r *Registry) ForKind(k Kind) (Component, bool) {
	r.mu.RLock()
	name, ok := r.kinds[k]
	r.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return r.Lookup(name)
}

// KindNames are the kinds the registered components read, by kind name,
// for "supported kinds" hints and near-miss checks.
func KindNames() []string {
	var names []string
	for _, c := range Registered() {
		for _, k := range c.Kinds() {
			if !slices.Contains(names, k.Kind) {
				names = append(names, k.Kind)
			}
		}
	}
	slices.Sort(names)
	return names
}

// ReadContainer is the container of d whose command and args a
// registered component reads (ContainerReader), if any.
func ReadContainer(d *manifest.Document) (int, bool) {
	for _, c := range Registered() {
		if cr, ok := c.(ContainerReader); ok {
			if i, ok := cr.ReadsContainer(d); ok {
				return i, true
			}
		}
	}
	return 0, false
}
