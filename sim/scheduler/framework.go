package scheduler

import (
	"fmt"
	"maps"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
)

// MaxNodeScore is the score a plugin gives its best node after normalizing
// (k8s framework.MaxNodeScore).
const MaxNodeScore = 100

// Reason identifies why a node was filtered out, as the user reads it in
// `kubectl describe pod` ("Insufficient cpu"). Reasons are interned per
// scheduler because some name a taint. 0 means the node passed.
type Reason int32

// Pass is the Reason of a node that passed a filter.
const Pass Reason = 0

// Event is a set of cluster events, for queueing hints: a pod rejected by
// a plugin goes back to the active queue only on an event that plugin
// registered (k8s EventsToRegister / QueueingHint, in short).
type Event uint8

// Cluster events the queue reacts to.
const (
	EvNodeAdd       Event = 1 << iota // a node became Ready
	EvNodeUpdate                      // labels, taints or cordon changed
	EvNodeRemove                      // a node went away
	EvPodAssigned                     // a pod was bound
	EvPodUnassigned                   // a bound pod was deleted or finished
	EvAll           Event = 1<<iota - 1
)

// CycleState is one scheduling attempt of one pod. Plugins keep their own
// per-cycle scratch data in their own fields (the scheduler is single
// threaded), computed in PreFilter or PreScore.
type CycleState struct {
	Pod  cluster.PodID
	Spec *cluster.PodSpec
	// Namespace of the pod.
	Namespace cluster.Sym
}

// Resolvability says whether preemption can fix a failure: room taken by
// lower-priority pods can be freed (upstream's Unschedulable); a taint or a
// label cannot change (UnschedulableAndUnresolvable).
type Resolvability bool

const (
	Resolvable   Resolvability = false
	Unresolvable Resolvability = true
)

// Handle is what plugins see of the scheduler.
type Handle interface {
	Cluster() *cluster.Cluster
	// Reason interns a failure message and whether preemption can fix it.
	Reason(msg string, r Resolvability) Reason
	// Nodes lists the Ready nodes the scheduler knows, in scan order.
	Nodes() []cluster.NodeID
	// Topology is the shared index of pod counts per node.
	Topology() *Topology
}

// Plugin is a named scheduling plugin.
type Plugin interface {
	Name() string
}

// PreFilterPlugin prepares per-pod data before any Filter call. skip means
// the plugin has nothing to check for this pod: Filter is not called.
type PreFilterPlugin interface {
	Plugin
	PreFilter(cs *CycleState) (skip bool)
}

// FilterPlugin rejects nodes a pod cannot run on. It returns Pass or the
// reason; a plugin may add more reasons for the same node through extra.
type FilterPlugin interface {
	Plugin
	Filter(cs *CycleState, id cluster.NodeID, node *cluster.Node, extra *[]Reason) Reason
	// Events that can make a pod this plugin rejected schedulable.
	Events() Event
}

// PreScorePlugin prepares per-pod data before scoring the feasible nodes.
// skip means the plugin gives every node the same score for this pod.
type PreScorePlugin interface {
	Plugin
	PreScore(cs *CycleState, feasible []cluster.NodeID) (skip bool)
}

// ScorePlugin ranks feasible nodes with a raw score.
type ScorePlugin interface {
	Plugin
	Score(cs *CycleState, id cluster.NodeID, node *cluster.Node) int64
}

// batchScorer is a ScorePlugin that scores every feasible node in one call:
// out[i] is what Score gives feasible[i], with Score's calls in order. It
// saves a dynamic call per node, and lets a plugin hoist per-pod work.
type batchScorer interface {
	scoreAll(cs *CycleState, nodes []cluster.Node, feasible []cluster.NodeID, out []int64)
}

// ScoreNormalizer maps the raw scores of all feasible nodes to
// 0..MaxNodeScore in place.
type ScoreNormalizer interface {
	NormalizeScore(cs *CycleState, scores []int64)
}

// normalizedScorer is a ScorePlugin that scores in batch and normalizes its
// raw scores, as NodeAffinity, TaintToleration, InterPodAffinity and
// PodTopologySpread do.
type normalizedScorer interface {
	ScorePlugin
	ScoreNormalizer
	batchScorer
}

// PluginFactory builds a plugin for one profile.
type PluginFactory func(h Handle, args PluginArgs) (Plugin, error)

// PluginArgs carries a profile's plugin settings.
type PluginArgs struct {
	// Scoring strategy of NodeResourcesFit: LeastAllocated (default),
	// MostAllocated or RequestedToCapacityRatio, over Resources (default
	// cpu and memory, weight 1 each).
	ScoringStrategy string
	Resources       []ResourceWeight
	// Shape of RequestedToCapacityRatio: utilization (0-100) to score
	// (0-10) points, increasing utilization.
	Shape []ShapePoint
	// DefaultingType of PodTopologySpread: "System" (default) applies the
	// system default constraints to pods without their own; "List" applies
	// DefaultConstraints.
	SpreadDefaulting   string
	DefaultConstraints []cluster.SpreadConstraint
	// HardPodAffinityWeight of InterPodAffinity (default 1).
	HardPodAffinityWeight int32
}

// ResourceWeight names a resource NodeResourcesFit scores on.
type ResourceWeight struct {
	Name   string
	Weight int64
}

// ShapePoint is one point of RequestedToCapacityRatio's shape.
type ShapePoint struct {
	Utilization int64
	Score       int64
}

// Registry maps plugin names to factories: a plain map, as in the scheduler
// framework.
type Registry map[string]PluginFactory

// DefaultRegistry holds every plugin this model implements.
func DefaultRegistry() Registry {
	return Registry{
		NameNodeUnschedulable:  newNodeUnschedulable,
		NameNodeName:           newNodeName,
		NameTaintToleration:    newTaintToleration,
		NameNodeAffinity:       newNodeAffinity,
		NameNodeResourcesFit:   newNodeResourcesFit,
		NameBalancedAllocation: newBalancedAllocation,
		NamePodTopologySpread:  newPodTopologySpread,
		NameInterPodAffinity:   newInterPodAffinity,
		NameVolumeBinding:      newVolumeBinding,
		NameVolumeZone:         newVolumeZone,
		NameNodeVolumeLimits:   newNodeVolumeLimits,
	}
}

// KnownPlugins lists the registry's plugin names, sorted.
func KnownPlugins() []string {
	return slices.Sorted(maps.Keys(DefaultRegistry()))
}

// PluginWeight enables a plugin in a profile, with its score weight (0:
// the plugin does not score). NoFilter turns its filter off (a plugin
// disabled at the filter extension point only).
type PluginWeight struct {
	Name     string
	Weight   int64
	NoFilter bool
}

// Profile is one scheduler profile, chosen per pod by schedulerName.
type Profile struct {
	SchedulerName string
	// Plugins in filter order. A plugin that scores does so with its
	// weight when the weight is positive.
	Plugins []PluginWeight
	Args    PluginArgs
	// PercentageOfNodesToScore: 0 = adaptive (50 - nodes/125, at least 5%).
	PercentageOfNodesToScore int32
	// NoPreemption turns DefaultPreemption off.
	NoPreemption bool
}

// DefaultProfile is the default-scheduler profile: upstream's default
// plugins in upstream order and weights (k8s pkg/scheduler/apis/config/v1/
// default_plugins.go), minus VolumeRestrictions and those that concern
// ports and images.
func DefaultProfile() Profile {
	return Profile{
		SchedulerName: "default-scheduler",
		Plugins: []PluginWeight{
			{Name: NameNodeUnschedulable, Weight: 0},
			{Name: NameNodeName, Weight: 0},
			{Name: NameTaintToleration, Weight: 3},
			{Name: NameNodeAffinity, Weight: 2},
			{Name: NameNodeResourcesFit, Weight: 1},
			{Name: NameNodeVolumeLimits, Weight: 0},
			{Name: NameVolumeBinding, Weight: 0},
			{Name: NameVolumeZone, Weight: 0},
			{Name: NamePodTopologySpread, Weight: 2},
			{Name: NameInterPodAffinity, Weight: 2},
			{Name: NameBalancedAllocation, Weight: 1},
		},
		Args: PluginArgs{ScoringStrategy: LeastAllocated},
	}
}

// framework is one built profile: its plugins, split by extension point.
type framework struct {
	profile Profile
	// filters in filter order; filterPre[i] is the PreFilter of
	// filters[i]'s plugin, or nil. A PreFilter runs only with its plugin's
	// Filter: a plugin whose filter is off in the profile (NoFilter, e.g.
	// PodTopologySpread disabled at the filter extension point) or that has
	// no Filter gets no PreFilter call, so its scoring must not rely on
	// PreFilter's data (PreScore prepares its own).
	filters   []FilterPlugin
	filterPre []PreFilterPlugin

	scorers  []ScorePlugin
	batch    []batchScorer // parallel to scorers; nil entries allowed
	scorePre []PreScorePlugin
	weights  []int64
	normals  []ScoreNormalizer // parallel to scorers; nil entries allowed
	scoreBuf [][]int64         // per scorer, per feasible node

	// Per cycle: indexes of the filters and scorers not skipped.
	activeFilters []int
	activeScorers []int
	// static are the indexes of the static filters (see staticcache.go),
	// in order; isStatic marks them.
	static   []int
	isStatic []bool
	// dynamic are the active filters that are not static, per cycle.
	dynamic []int
	// resFi is the index of NodeResourcesFit among the filters (-1: none).
	resFi int
	// nameFi is the index of NodeName among the filters (-1: none).
	nameFi int
}

func buildFramework(h Handle, reg Registry, p Profile) (*framework, error) {
	f := &framework{profile: p}
	seen := map[string]bool{}
	for _, pw := range p.Plugins {
		if seen[pw.Name] {
			return nil, fmt.Errorf("profile %q: plugin %s listed twice", p.SchedulerName, pw.Name)
		}
		seen[pw.Name] = true
		factory, ok := reg[pw.Name]
		if !ok {
			return nil, fmt.Errorf("profile %q: unknown plugin %q (known: %s)", p.SchedulerName, pw.Name, reg.names())
		}
		if pw.Weight < 0 || pw.Weight > 100 {
			return nil, fmt.Errorf("profile %q: plugin %s: weight %d is not in 0..100", p.SchedulerName, pw.Name, pw.Weight)
		}
		pl, err := factory(h, p.Args)
		if err != nil {
			return nil, fmt.Errorf("profile %q: plugin %s: %w", p.SchedulerName, pw.Name, err)
		}
		if fp, ok := pl.(FilterPlugin); ok && !pw.NoFilter {
			pre, _ := pl.(PreFilterPlugin)
			f.filters = append(f.filters, fp)
			f.filterPre = append(f.filterPre, pre)
		}
		if sp, ok := pl.(ScorePlugin); ok && pw.Weight > 0 {
			pre, _ := pl.(PreScorePlugin)
			norm, _ := pl.(ScoreNormalizer)
			batch, _ := pl.(batchScorer)
			f.scorers = append(f.scorers, sp)
			f.batch = append(f.batch, batch)
			f.scorePre = append(f.scorePre, pre)
			f.weights = append(f.weights, pw.Weight)
			f.normals = append(f.normals, norm)
		}
	}
	f.resFi, f.nameFi = -1, -1
	for i, fp := range f.filters {
		if _, ok := fp.(*nodeResourcesFit); ok {
			f.resFi = i
		}
		if _, ok := fp.(*nodeName); ok {
			f.nameFi = i
		}
		_, st := fp.(staticFilter)
		f.isStatic = append(f.isStatic, st)
		if st {
			f.static = append(f.static, i)
		}
	}
	if len(f.filters) > 32 {
		return nil, fmt.Errorf("profile %q: more than 32 filter plugins", p.SchedulerName)
	}
	f.scoreBuf = make([][]int64, len(f.scorers))
	return f, nil
}

// preFilter runs the PreFilters and records which filters apply.
func (f *framework) preFilter(cs *CycleState) {
	f.activeFilters = f.activeFilters[:0]
	f.dynamic = f.dynamic[:0]
	for i, pre := range f.filterPre {
		if pre != nil && pre.PreFilter(cs) {
			continue
		}
		f.activeFilters = append(f.activeFilters, i)
		if !f.isStatic[i] {
			f.dynamic = append(f.dynamic, i)
		}
	}
}

// staticActive reports whether every static filter runs this cycle (so
// the cache answers for them).
func (f *framework) staticActive() bool {
	return len(f.activeFilters)-len(f.dynamic) == len(f.static)
}

// preScore runs the PreScores and records which scorers apply.
func (f *framework) preScore(cs *CycleState, feasible []cluster.NodeID) {
	f.activeScorers = f.activeScorers[:0]
	for i, pre := range f.scorePre {
		if pre != nil && pre.PreScore(cs, feasible) {
			continue
		}
		f.activeScorers = append(f.activeScorers, i)
	}
}

func (r Registry) names() string {
	return fmt.Sprint(slices.Sorted(maps.Keys(r)))
}
