package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/statedump"
	"github.com/clustersim/clustersim/sim/workload"
)

// SchemaVersion of Result's JSON form: bumped on any rename or change of
// meaning; keys are otherwise only added.
const SchemaVersion = 1

// AWSMinSpotTypes is how many instance types AWS advises a spot workload
// to be able to use, so that one capacity pool running dry does not stop
// it (EC2 Spot best practices; docs/models.md "Spot market").
const AWSMinSpotTypes = 10

// Result is what Check finds.
type Result struct {
	SchemaVersion int    `json:"schemaVersion"`
	Scenario      string `json:"scenario"`
	// Sources are the capacity sources, in matrix order: NodePools by name
	// (spot, then on-demand), node groups, static pools, Node manifests.
	Sources []Source `json:"sources"`
	// Placements has one row per workload (and one per resubmit
	// fallback), in manifest order, with one cell per source.
	Placements []Placement `json:"placements"`
	Findings   []Finding   `json:"findings"`
	Summary    Summary     `json:"summary"`
}

// Source is one capacity source.
type Source struct {
	// ID names it in cells and messages: "NodePool/burst-spot (spot)",
	// "NodeGroup/core-on-demand", "StaticPool/core", "Node/worker-1".
	ID   string `json:"id"`
	Kind string `json:"kind"` // NodePool, NodeGroup, StaticPool or Node
	Name string `json:"name"`
	// Autoscaler is karpenter, cluster-autoscaler, or "" for static
	// capacity.
	Autoscaler string `json:"autoscaler,omitempty"`
	// CapacityType is spot, on-demand, mixed (a node group with both) or
	// none (a pool without nodes).
	CapacityType string `json:"capacityType"`
	File         string `json:"file,omitempty"`
	Line         int    `json:"line,omitempty"`
}

// Placement is one row of the matrix.
type Placement struct {
	Workload string `json:"workload"` // Kind/namespace/name
	// Variant is "" for the workload as written, "resubmit after 5m" for
	// its resubmit fallback's spec.
	Variant string `json:"variant,omitempty"`
	Cells   []Cell `json:"cells"`
}

// Cell says whether one source can host one row's pods.
type Cell struct {
	Source string `json:"source"`
	// CanLand: the source offers a node the pods can run on (and, for a
	// node group that starts empty, the Cluster Autoscaler would add one).
	CanLand bool `json:"canLand"`
	// Provisions: the source's autoscaler would add a node for a pending
	// pod of the row (Karpenter: its solver; Cluster Autoscaler: its
	// scale-up check against the group's template).
	Provisions bool `json:"provisions"`
	// Reason says why not, in the user's words; ReasonKind classifies it:
	// taint, label, affinity, zone, capacity-type, instance-type, too-big,
	// limit, min-values, cordoned, node-name, no-nodes, not-autoscaled,
	// template, other.
	Reason     string `json:"reason,omitempty"`
	ReasonKind string `json:"reasonKind,omitempty"`
	// InstanceTypes are the instance types of the source that can host
	// the pods, by name.
	InstanceTypes []string `json:"instanceTypes,omitempty"`
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Count returns how many findings are at or above sev.
func (r *Result) Count(sev Severity) int {
	n := 0
	for i := range r.Findings {
		if r.Findings[i].Severity >= sev {
			n++
		}
	}
	return n
}

// source is a Source with what the checks need: a component's
// (component.LintSource) or a static pool's.
type source struct {
	Source
	// lint is the component's view; nil for static capacity.
	lint *component.LintSource
	// by names the component in messages ("Karpenter"); "" for static
	// capacity.
	by   string
	spot bool // every node it adds is spot
	path string
	// taints its nodes carry (every node of a source carries the same).
	taints []cluster.Taint
	// labels: user labels that identify it (for fix suggestions).
	labels []string
	// pool is what findings name for the pool ("NodePool/x").
	pool  string
	nodes []cluster.Node // static nodes
}

// static: the source is static capacity (no autoscaler): static nodes,
// or a component's source nothing resizes (component.LintSource.Fixed).
func (s *source) static() bool { return s.lint == nil || s.lint.Fixed }

// row is a Placement with what the checks need.
type row struct {
	w       int // workload index
	spec    *cluster.PodSpec
	variant string // Placement.Variant
	cells   []cell
}

type cell struct {
	Cell
	why component.LintWhy
	// unfit: the source would add a node for the pods that they cannot
	// run on (component.LintVerdict.Unfit).
	unfit bool
}

// checker holds one Check.
type checker struct {
	sc      *scenario.Scenario
	syms    *cluster.Symbols
	env     *component.LintEnv
	sources []*source
	rows    []*row
	byW     map[int]*row // primary row of each workload
	fbRow   map[int]*row // resubmit row of each workload
	res     Result
	failed  []Finding // internal problems, reported as findings
}

// Check builds the placement matrix of sc and its findings. It never runs
// the simulation; the autoscalers' checks intern names into a copy of the
// scenario's symbols, so sc can still be run.
func Check(sc *scenario.Scenario) Result {
	c := &checker{sc: sc, syms: sc.Syms.Clone(), byW: map[int]*row{}, fbRow: map[int]*row{}}
	c.res = Result{SchemaVersion: SchemaVersion, Scenario: sc.Name, Sources: []Source{}, Placements: []Placement{}, Findings: []Finding{}}
	c.buildSources()
	c.buildRows()
	for _, r := range c.rows {
		spec := c.matrixSpec(r)
		for _, s := range c.sources {
			r.cells = append(r.cells, c.judge(spec, s))
		}
	}
	for _, s := range c.sources {
		c.res.Sources = append(c.res.Sources, s.Source)
	}
	for _, r := range c.rows {
		p := Placement{Workload: c.sc.Workloads[r.w].Ref(), Variant: r.variant, Cells: make([]Cell, len(r.cells))}
		for i := range r.cells {
			p.Cells[i] = r.cells[i].Cell
		}
		c.res.Placements = append(c.res.Placements, p)
	}
	c.findings()
	return c.res
}

// buildSources lists the capacity sources in matrix order: the
// components' (CapacityLinter) in registration order, then static pools
// and Node manifests.
func (c *checker) buildSources() {
	sc := c.sc
	c.env = c.lintEnv()
	for _, comp := range sc.Components {
		reg, ok := component.Lookup(comp.Name)
		if !ok {
			continue
		}
		cl, ok := reg.(component.CapacityLinter)
		if !ok {
			continue
		}
		srcs, err := cl.LintSources(comp.Config, c.env)
		if err != nil {
			c.internal(err)
		}
		for i := range srcs {
			ls := &srcs[i]
			pool := ls.Pool
			if pool == "" {
				pool = ls.ID
			}
			c.sources = append(c.sources, &source{Source: Source{ID: ls.ID, Kind: ls.Kind, Name: ls.Name, Autoscaler: comp.Name,
				CapacityType: ls.CapacityType, File: ls.File, Line: ls.Line}, lint: ls, by: cl.LintName(), spot: ls.Spot,
				path: ls.Path, taints: ls.Taints, labels: ls.Labels, pool: pool})
		}
	}
	host := c.syms.Intern("kubernetes.io/hostname")
	static := func(id, kind, name, file string, line int, path, owner string) {
		s := &source{Source: Source{ID: id, Kind: kind, Name: name, File: file, Line: line}, path: path, pool: id}
		spot, od := 0, 0
		for i := range sc.Nodes {
			n := sc.Nodes[i]
			if n.Owner != cluster.OwnedByStatic || n.OwnerName != owner {
				continue
			}
			n.SetIdentity(c.syms, host) // as cluster.AddNode does
			s.nodes = append(s.nodes, n)
			if n.CapacityType == cluster.Spot {
				spot++
			} else {
				od++
			}
		}
		switch {
		case spot > 0 && od == 0:
			s.CapacityType, s.spot = "spot", true
		case spot == 0 && od > 0:
			s.CapacityType = "on-demand"
		case spot > 0:
			s.CapacityType = "mixed"
		default:
			s.CapacityType = "none"
		}
		if len(s.nodes) > 0 {
			s.taints = s.nodes[0].Taints
		}
		c.sources = append(c.sources, s)
	}
	for _, p := range sc.StaticPools {
		static("StaticPool/"+p.Name, "StaticPool", p.Name, p.File, p.Line, p.Path, p.Name)
	}
	seen := map[string]bool{}
	for i := range sc.Nodes {
		n := &sc.Nodes[i]
		if n.Owner == cluster.OwnedByStatic && strings.HasPrefix(n.OwnerName, "Node/") && !seen[n.OwnerName] {
			seen[n.OwnerName] = true
			static(n.OwnerName, "Node", strings.TrimPrefix(n.OwnerName, "Node/"), "", 0, "", n.OwnerName)
		}
	}
}

// lintEnv is what the components' sources are built with: the market's
// prices (built once, when first asked) and the DaemonSet overhead.
func (c *checker) lintEnv() *component.LintEnv {
	sc := c.sc
	var prices component.PriceFunc
	var perr error
	built := false
	return &component.LintEnv{Syms: c.syms, Resources: sc.Resources, Catalog: sc.Catalog, Region: sc.Region, Zones: sc.Zones, Reservations: sc.Market.Reservations,
		Prices: func() (component.PriceFunc, error) {
			if !built {
				built = true
				market, err := spotmarket.New(engine.New(sc.Seed), sc.Catalog, sc.Region, sc.Zones, sc.Market)
				if err != nil {
					perr = err
				} else {
					prices = market.Price
				}
			}
			return prices, perr
		},
		DaemonSetOverhead: c.daemonOverhead()}
}

// daemonOverhead is workload.Controllers.DaemonSetOverhead for the
// scenario's DaemonSets: the requests of those that would run on a node.
func (c *checker) daemonOverhead() func(*cluster.Node) cluster.Resources {
	var ds []*cluster.PodSpec
	for i := range c.sc.Workloads {
		if w := &c.sc.Workloads[i]; w.Kind == workload.DaemonSet {
			ds = append(ds, w.Pod)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	syms := c.syms
	return func(n *cluster.Node) cluster.Resources {
		var r cluster.Resources
		for _, spec := range ds {
			if workload.DaemonSetMatches(syms, spec, n) {
				r = r.Add(spec.Requests)
			}
		}
		return r
	}
}

// buildRows lists the workloads nobody provisions for aside: DaemonSets
// and pods bound by spec.nodeName.
func (c *checker) buildRows() {
	for i := range c.sc.Workloads {
		w := &c.sc.Workloads[i]
		if w.Kind == workload.DaemonSet || w.Pod == nil || w.Pod.NodeName != "" || w.Pod.DaemonSet {
			continue
		}
		r := &row{w: i, spec: w.Pod}
		c.rows = append(c.rows, r)
		c.byW[i] = r
		if fb := w.Fallback; fb != nil && fb.Pod != nil {
			v := "resubmit after " + statedump.Duration(fb.After)
			fr := &row{w: i, spec: fb.Pod, variant: v}
			c.rows = append(c.rows, fr)
			c.fbRow[i] = fr
		}
	}
}

// judge fills one cell.
func (c *checker) judge(spec *cluster.PodSpec, s *source) cell {
	out := cell{Cell: Cell{Source: s.ID}}
	if s.lint != nil {
		v := s.lint.Judge(spec)
		out.CanLand, out.Provisions, out.InstanceTypes, out.unfit = v.CanLand, v.Provisions, v.InstanceTypes, v.Unfit
		if !v.CanLand {
			out.why = v.Why
		}
	} else {
		fits, w := c.env.OnNodes(spec, s.nodes)
		out.InstanceTypes = fits
		out.CanLand = len(fits) > 0
		if !out.CanLand {
			out.why = w
		}
	}
	if !out.CanLand && needsNonLinux(c.syms, spec) {
		// Every simulated node is Linux: the OS is the reason, whatever
		// else the source lacks.
		out.why.Text, out.why.Kind, out.why.Fix = "the pods need Windows nodes (kubernetes.io/os), which are not simulated: every simulated node is Linux (Windows NodePools are skipped)", "label", ""
	}
	if !out.CanLand {
		out.Reason, out.ReasonKind = out.why.Text, out.why.Kind
	} else {
		out.InstanceTypes = uniqueSorted(out.InstanceTypes)
	}
	return out
}

func (c *checker) internal(err error) {
	c.failed = append(c.failed, Finding{Severity: Error, Kind: KindInvalid, Message: fmt.Sprintf("cannot check %v", err),
		Fix: "fix the error above; sim run reports it too"})
}

func uniqueSorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := append([]string(nil), s...)
	sort.Strings(out)
	k := 1
	for i := 1; i < len(out); i++ {
		if out[i] != out[k-1] {
			out[k] = out[i]
			k++
		}
	}
	return out[:k]
}
