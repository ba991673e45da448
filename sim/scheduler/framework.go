package scheduler

import (
	"fmt"
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
)

// MaxNodeScore is the score a plugin gives its best node after normalizing
// (k8s framework.MaxNodeScore).
const MaxNodeScore = 100

// Reason identifies why a node was filtered out, as the user would read it
// in `kubectl describe pod` ("Insufficient cpu"). 0 means the node passed.
// Reasons are interned per scheduler (they may name a taint).
type Reason int32

// Pass is the Reason of a node that passed a filter.
const Pass Reason = 0

// CycleState is the scratchpad of one scheduling attempt of one pod.
// Plugins that precompute per pod (PreFilter) keep their data here.
type CycleState struct {
	Pod   cluster.PodID
	Spec  *cluster.PodSpec
	Total int // nodes considered in this cycle
}

// Handle is what plugins see of the scheduler: the cluster state and the
// reason table.
type Handle interface {
	Cluster() *cluster.Cluster
	// Reason interns a failure message.
	Reason(msg string) Reason
}

// Plugin is a named scheduling plugin.
type Plugin interface {
	Name() string
}

// FilterPlugin rejects nodes a pod cannot run on. It returns Pass or the
// reason; a plugin may report several reasons for one node through extra.
type FilterPlugin interface {
	Plugin
	Filter(cs *CycleState, node *cluster.Node, extra *[]Reason) Reason
}

// ScorePlugin ranks feasible nodes. Score returns a raw score; the plugin's
// NormalizeScore (if any) maps the raw scores of all feasible nodes to
// 0..MaxNodeScore in place.
type ScorePlugin interface {
	Plugin
	Score(cs *CycleState, node *cluster.Node) int64
}

// ScoreNormalizer is an optional extension of a ScorePlugin.
type ScoreNormalizer interface {
	NormalizeScore(cs *CycleState, scores []int64)
}

// PluginFactory builds a plugin for one profile.
type PluginFactory func(h Handle, args PluginArgs) (Plugin, error)

// PluginArgs carries per-profile plugin settings.
type PluginArgs struct {
	// ScoringStrategy of NodeResourcesFit: LeastAllocated (default) or
	// MostAllocated.
	ScoringStrategy string
}

// Registry maps plugin names to factories: a plain map, as in the
// scheduler framework.
type Registry map[string]PluginFactory

// DefaultRegistry holds every plugin this model implements.
func DefaultRegistry() Registry {
	return Registry{
		NameNodeUnschedulable: newNodeUnschedulable,
		NameNodeName:          newNodeName,
		NameTaintToleration:   newTaintToleration,
		NameNodeAffinity:      newNodeAffinity,
		NameNodeResourcesFit:  newNodeResourcesFit,
	}
}

// PluginWeight enables a plugin in a profile, with its score weight (0 for
// filter-only plugins).
type PluginWeight struct {
	Name   string
	Weight int64
}

// Profile is one scheduler profile, chosen per pod by schedulerName.
type Profile struct {
	SchedulerName string
	// Plugins in filter order. A plugin that implements ScorePlugin scores
	// with its weight when the weight is positive.
	Plugins []PluginWeight
	Args    PluginArgs
	// PercentageOfNodesToScore: 0 = adaptive (50 - nodes/125, at least 5%).
	PercentageOfNodesToScore int32
}

// DefaultProfile is the default-scheduler profile with the plugins this
// model implements, in the upstream order and with upstream weights
// (k8s pkg/scheduler/apis/config/v1/default_plugins.go).
func DefaultProfile() Profile {
	return Profile{
		SchedulerName: "default-scheduler",
		Plugins: []PluginWeight{
			{NameNodeUnschedulable, 0},
			{NameNodeName, 0},
			{NameTaintToleration, 3},
			{NameNodeAffinity, 2},
			{NameNodeResourcesFit, 1},
		},
		Args: PluginArgs{ScoringStrategy: LeastAllocated},
	}
}

// framework is one built profile.
type framework struct {
	profile  Profile
	filters  []FilterPlugin
	scorers  []ScorePlugin
	weights  []int64
	normals  []ScoreNormalizer // parallel to scorers; nil entries allowed
	scoreBuf [][]int64         // per scorer, per feasible node
}

func buildFramework(h Handle, reg Registry, p Profile) (*framework, error) {
	f := &framework{profile: p}
	for _, pw := range p.Plugins {
		factory, ok := reg[pw.Name]
		if !ok {
			return nil, fmt.Errorf("profile %q: unknown plugin %q (known: %s)", p.SchedulerName, pw.Name, reg.names())
		}
		pl, err := factory(h, p.Args)
		if err != nil {
			return nil, fmt.Errorf("profile %q: plugin %s: %w", p.SchedulerName, pw.Name, err)
		}
		if fp, ok := pl.(FilterPlugin); ok {
			f.filters = append(f.filters, fp)
		}
		if sp, ok := pl.(ScorePlugin); ok && pw.Weight > 0 {
			f.scorers = append(f.scorers, sp)
			f.weights = append(f.weights, pw.Weight)
			n, _ := pl.(ScoreNormalizer)
			f.normals = append(f.normals, n)
		}
	}
	f.scoreBuf = make([][]int64, len(f.scorers))
	return f, nil
}

func (r Registry) names() string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprint(names)
}
