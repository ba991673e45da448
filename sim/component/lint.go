package component

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
)

// CapacityLinter is a component that adds capacity sources to sim lint's
// placement matrix: the pools of its compiled configuration, each able to
// say whether it would add a node for a pod and, if not, why, worded by
// the component. sim lint keeps the findings across sources (races,
// spot-only workloads, overlaps, flexibility, volume zones); the sources
// give the facts they need.
type CapacityLinter interface {
	// LintName names the component in lint's messages: "Karpenter",
	// "the Cluster Autoscaler".
	LintName() string
	// LintSources lists cfg's capacity sources in matrix order. An error
	// says what could not be checked ("the Karpenter NodePools: ...").
	LintSources(cfg Config, env *LintEnv) ([]LintSource, error)
}

// PriceFunc is an offering's price in USD/hour; false when EC2 does not
// sell it (sim/spotmarket's Market.Price).
type PriceFunc func(o cloud.Offering) (float64, bool)

// LintEnv is what a CapacityLinter gets besides its configuration, and
// the wording its reasons share with lint's own (static pools).
type LintEnv struct {
	// Syms is a clone of the scenario's symbols, interned into: the
	// scenario can still be run.
	Syms      *cluster.Symbols
	Resources *cluster.ResourceNames
	Catalog   *catalog.Catalog
	Region    string
	Zones     []string
	// Prices returns the market's prices (built on first use), or why
	// EC2's offerings cannot be had.
	Prices func() (PriceFunc, error)
	// DaemonSetOverhead is the requests of the scenario's DaemonSet pods
	// on a node like template; nil without DaemonSets.
	DaemonSetOverhead func(template *cluster.Node) cluster.Resources
	// Reservations are the account's capacity reservations.
	Reservations []cloud.Reservation
}

// LintSource is one capacity source: its row of the matrix, the facts
// lint's findings read, and its judge.
type LintSource struct {
	// ID names it in cells and messages: "NodePool/burst-spot (spot)",
	// "NodeGroup/core-on-demand".
	ID   string
	Kind string // NodePool, NodeGroup
	Name string
	// CapacityType is spot, on-demand or mixed (a node group with both).
	CapacityType string
	File         string
	Line         int
	// Path is the field path findings about it point at.
	Path string
	// Spot: every node it adds is spot.
	Spot bool
	// Taints its nodes carry (every node of a source carries the same).
	Taints []cluster.Taint
	// Labels are user labels that identify it (key=value), for fix
	// suggestions.
	Labels []string
	// Pool is what findings name when they mean the pool rather than one
	// of its capacity types ("NodePool/burst-spot"); "" for ID.
	Pool string
	// Zones are the zones it adds nodes in, for volumes that pin pods to
	// zones; AnyZone instead when it adds a node in whichever zone it
	// allows a pinned pod needs (judged per zone).
	Zones   []string
	AnyZone bool
	// TemplateZone is the zone of the node it simulates scale-ups with
	// ("another zone" when unknown), for a source whose template decides
	// where it adds nodes; "" for none.
	TemplateZone string
	// FlexibilityFix and FlexibilityPath are the fix and field path of a
	// spot-flexibility finding about it.
	FlexibilityFix, FlexibilityPath string
	// Fixed: nothing resizes it (a node group no Cluster Autoscaler
	// manages): its nodes are static capacity, it races with nobody.
	Fixed bool
	// OnDemandFix, when set, is how to let it take a spot-only
	// workload's pods on on-demand capacity too.
	OnDemandFix string
	// Judge answers for a pod spec (with its volume pin, if any).
	Judge func(spec *cluster.PodSpec) LintVerdict
	// Unfit words the finding for pods it would add a node for that
	// cannot run on that node (LintVerdict.Unfit): who are the pods,
	// why the verdict's reason.
	Unfit func(who, why string) (msg, fix string)
	// SpotToSpot words, for a spot source, a finding about a workload
	// (by reference) that can use only types of its instance types, when
	// that is too few for the component (ok false otherwise); nil for
	// none.
	SpotToSpot func(workload string, types int) (msg, fix string, ok bool)
}

// LintVerdict is a source's answer for one pod spec.
type LintVerdict struct {
	// CanLand: it offers a node the pods can run on (and, for a pool
	// that starts empty, its autoscaler would add one).
	CanLand bool
	// Provisions: its autoscaler would add a node for a pending pod.
	Provisions bool
	// Unfit: it would add a node for the pods (Provisions) that they
	// cannot run on; Why says why.
	Unfit bool
	// InstanceTypes are its instance types that can host the pods.
	InstanceTypes []string
	// Why says why it cannot host them (when not CanLand).
	Why LintWhy
}

// LintWhy is why a source cannot host a pod: Kind (lint's
// Cell.ReasonKind: taint, label, affinity, zone, capacity-type,
// instance-type, too-big, limit, min-values, cordoned, node-name,
// no-nodes, not-autoscaled, template, other), the words and what would
// change it.
type LintWhy struct {
	Kind, Text, Fix string
}

// Label keys the explanations single out.
const (
	keyZone         = "topology.kubernetes.io/zone"
	keyInstanceType = "node.kubernetes.io/instance-type"
)

// OnNodes runs the scheduler's pod-independent filters on each node, with
// its allocatable as free room, and returns the instance types of the
// nodes that accept the pod, or why none does.
func (e *LintEnv) OnNodes(spec *cluster.PodSpec, nodes []cluster.Node) ([]string, LintWhy) {
	if len(nodes) == 0 {
		return nil, LintWhy{Kind: "no-nodes", Text: "has no nodes", Fix: "give the pool a count above 0"}
	}
	var fits []string
	furthest := cluster.Fits
	var taint cluster.Taint
	var at []*cluster.Node // nodes that failed at the furthest filter
	for i := range nodes {
		n := &nodes[i]
		m, t := cluster.StaticFit(e.Syms, spec, n, &n.Allocatable)
		if m == cluster.Fits {
			fits = append(fits, n.InstanceType)
			continue
		}
		switch {
		case len(at) == 0 || m > furthest:
			furthest, taint, at = m, t, []*cluster.Node{n}
		case m == furthest:
			at = append(at, n)
		}
	}
	if len(fits) > 0 {
		return fits, LintWhy{}
	}
	return nil, e.MismatchWhy(spec, at, furthest, taint)
}

// MismatchWhy explains a StaticFit mismatch shared by nodes.
func (e *LintEnv) MismatchWhy(spec *cluster.PodSpec, nodes []*cluster.Node, m cluster.Mismatch, t cluster.Taint) LintWhy {
	switch m {
	case cluster.Cordoned:
		return LintWhy{Kind: "cordoned", Text: "its nodes are cordoned", Fix: "uncordon them"}
	case cluster.WrongNodeName:
		return LintWhy{Kind: "node-name", Text: "spec.nodeName names another node", Fix: "remove spec.nodeName"}
	case cluster.UntoleratedTaint:
		return e.TaintWhy(t)
	case cluster.NodeSelectorMismatch:
		return e.selectorWhy(spec, nodes)
	case cluster.VolumeMismatch:
		zones := map[string]bool{}
		for _, n := range nodes {
			zones[e.Syms.Name(n.Zone)] = true
		}
		var zs []string
		for z := range zones {
			zs = append(zs, z)
		}
		sort.Strings(zs)
		return LintWhy{Kind: "zone", Text: "its volumes cannot be used in " + strings.Join(zs, ", ") + " (" + spec.Volume.Check(nodes[0].Zone).Message() + ")"}
	case cluster.Insufficient:
		rooms := make([]TypeRoom, 0, len(nodes))
		for _, n := range nodes {
			name := n.InstanceType
			if name == "" {
				name = n.Name
			}
			rooms = append(rooms, TypeRoom{Name: name, Room: n.Allocatable})
		}
		return e.TooBigWhy(spec, rooms, "instance type", "")
	}
	return LintWhy{Kind: "other", Text: m.String()}
}

// TaintWhy is the reason for an untolerated taint.
func (e *LintEnv) TaintWhy(t cluster.Taint) LintWhy {
	return LintWhy{Kind: "taint", Text: "untolerated taint " + FormatTaint(e.Syms, t),
		Fix: "add the toleration " + tolerationFor(e.Syms, t) + " to its pod template"}
}

// TypeRoom is an instance type (or a node without one) and its room for
// a pod.
type TypeRoom struct {
	Name string
	Room cluster.Resources
}

// TooBigWhy says which resource the pod needs more of than any of the
// instance types has room for, over every resource the scenario knows
// (cpu, memory, ephemeral-storage, pods and extended resources such as
// nvidia.com/gpu): "needs 1 nvidia.com/gpu, no allowed type has any". When
// each resource alone fits some type but no type has them all, it says so
// and what the type with the most of each lacks. what names the types
// ("allowed type" for a NodePool's), where says where to change them
// (" in NodePool/x's requirements", or "").
func (e *LintEnv) TooBigWhy(spec *cluster.PodSpec, rooms []TypeRoom, what, where string) LintWhy {
	rooms = uniqueRooms(rooms)
	res := e.Resources
	need := spec.Requests
	// most[i]: the most room any type has for resource i, at[i] the type
	// (the first by name), tied[i] whether another type has as much.
	var most cluster.Resources
	var at [cluster.MaxResources]string
	var tied [cluster.MaxResources]bool
	for i := 0; i < res.Len(); i++ {
		for j, r := range rooms {
			switch {
			case j == 0 || r.Room[i] > most[i]:
				most[i], at[i], tied[i] = r.Room[i], r.Name, false
			case r.Room[i] == most[i]:
				tied[i] = true
			}
		}
	}
	var short []string
	var missing []string // resources no type has at all
	for i := 0; i < res.Len(); i++ {
		if need[i] <= 0 || need[i] <= most[i] {
			continue
		}
		n := fmt.Sprintf("needs %s", e.amount(i, need[i]))
		switch {
		case most[i] <= 0 && len(rooms) == 1:
			n += fmt.Sprintf(", %s has none", at[i])
		case most[i] <= 0:
			n += fmt.Sprintf(", no %s has any", what)
		case len(rooms) == 1:
			n += fmt.Sprintf(", %s has %s", at[i], e.qty(i, most[i]))
		case tied[i]:
			n += fmt.Sprintf(", the %ss have at most %s", what, e.qty(i, most[i]))
		default:
			n += fmt.Sprintf(", the largest %s (%s) has %s", what, at[i], e.qty(i, most[i]))
		}
		if most[i] <= 0 && i != cluster.Pods {
			missing = append(missing, e.resName(i))
		}
		short = append(short, n)
	}
	w := LintWhy{Kind: "too-big", Fix: "lower its requests or allow larger instance types" + where}
	if len(short) == 1 && need[cluster.Ephemeral] > most[cluster.Ephemeral] && most[cluster.Ephemeral] > 0 {
		// Ephemeral storage is the node's disk, not the instance type's
		// size: a larger type does not help, a larger volume does.
		w.Fix = "lower its ephemeral-storage request or give the nodes a larger volume"
		if where != "" {
			w.Fix = "lower its ephemeral-storage request, or give the NodePool's EC2NodeClass a larger root volume (spec.blockDeviceMappings) or instanceStorePolicy: RAID0 with instance types that have NVMe instance stores"
		}
	}
	if len(missing) > 0 {
		w.Fix = fmt.Sprintf("allow instance types that have %s%s, or take it out of the pod's requests and limits", strings.Join(missing, " and "), where)
	}
	if len(short) > 0 {
		w.Text = "too big for every instance type: " + strings.Join(short, "; ")
		return w
	}
	// Each resource fits some type, but none has room for all at once.
	var asks, lacks []string
	seen := map[string]bool{}
	for i := 0; i < res.Len(); i++ {
		if need[i] <= 0 || i == cluster.Pods {
			continue
		}
		asks = append(asks, e.amount(i, need[i]))
		if seen[at[i]] {
			continue
		}
		seen[at[i]] = true
		for _, r := range rooms {
			if r.Name != at[i] {
				continue
			}
			for k := 0; k < res.Len(); k++ {
				if need[k] > r.Room[k] {
					lacks = append(lacks, fmt.Sprintf("%s, with the most %s, has %s", r.Name, e.resName(i), e.amount(k, r.Room[k])))
					break
				}
			}
			break
		}
	}
	w.Text = fmt.Sprintf("too big for every instance type: no %s has room for %s at once", what, strings.Join(asks, " and "))
	if len(lacks) > 0 {
		w.Text += " (" + strings.Join(lacks, "; ") + ")"
	}
	return w
}

// uniqueRooms drops repeats (nodes of one type) and sorts by name.
func uniqueRooms(rooms []TypeRoom) []TypeRoom {
	out := make([]TypeRoom, 0, len(rooms))
	for _, r := range rooms {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b TypeRoom) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// resName is a resource's name in messages; the pods count is "pod slot".
func (e *LintEnv) resName(i int) string {
	if i == cluster.Pods {
		return "pod slot"
	}
	return string(e.Resources.Name(i))
}

// amount renders a quantity with its resource: "4 cpu", "200Gi
// ephemeral-storage", "1 nvidia.com/gpu".
func (e *LintEnv) amount(i int, v int64) string {
	return e.qty(i, v) + " " + e.resName(i)
}

// qty renders a quantity of resource i: cpu in cores or millicores, byte
// sizes (memory, ephemeral-storage, hugepages) with a binary suffix, the
// rest as counts.
func (e *LintEnv) qty(i int, v int64) string {
	switch {
	case i == cluster.CPU:
		return fmtCPU(v)
	case i == cluster.Memory || i == cluster.Ephemeral || strings.HasPrefix(string(e.Resources.Name(i)), "hugepages-"):
		return cluster.FormatBytes(v)
	}
	return fmt.Sprint(v)
}

// selectorWhy finds the requirement of the pod's nodeSelector or required
// node affinity that none of the nodes meets.
func (e *LintEnv) selectorWhy(spec *cluster.PodSpec, nodes []*cluster.Node) LintWhy {
	for i := range spec.NodeSelector {
		r := &spec.NodeSelector[i]
		if !anyMatches(e.Syms, r, nodes) {
			return e.reqWhy(r, -1, nodes)
		}
	}
	if spec.Affinity == nil {
		return LintWhy{Kind: "other", Text: "node affinity/selector does not match"}
	}
	if len(spec.Affinity.Terms) == 0 {
		return LintWhy{Kind: "affinity", Text: "its required node affinity has only empty terms, which match no node",
			Fix: "give the term matchExpressions, or remove it"}
	}
	var parts []LintWhy
	for ti := range spec.Affinity.Terms {
		t := &spec.Affinity.Terms[ti]
		found := false
		for i := range t.Reqs {
			if !anyMatches(e.Syms, &t.Reqs[i], nodes) {
				parts = append(parts, e.reqWhy(&t.Reqs[i], ti, nodes))
				found = true
				break
			}
		}
		if !found {
			parts = append(parts, LintWhy{Kind: "affinity", Text: fmt.Sprintf("affinity term %d matches none of its nodes", ti),
				Fix: "relax the term's expressions"})
		}
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out.Text += "; " + p.Text
	}
	return out
}

func anyMatches(syms *cluster.Symbols, r *cluster.Requirement, nodes []*cluster.Node) bool {
	for _, n := range nodes {
		t := cluster.Term{Reqs: []cluster.Requirement{*r}}
		if t.Matches(syms, n.Labels, n.NameSym) {
			return true
		}
	}
	return false
}

// reqWhy words a requirement no node meets; term is -1 for the
// nodeSelector.
func (e *LintEnv) reqWhy(r *cluster.Requirement, term int, nodes []*cluster.Node) LintWhy {
	key := e.Syms.Name(r.Key)
	var have []string
	for _, n := range nodes {
		if v, ok := n.Labels.Get(r.Key); ok {
			have = append(have, e.Syms.Name(v))
		}
	}
	slices.Sort(have)
	have = slices.Compact(have)
	pod := FormatOp(e.Syms, r)
	switch key {
	case keyZone:
		return LintWhy{Kind: "zone", Text: fmt.Sprintf("no zone in common (the pod needs %s %s; its nodes are in %s)", key, pod, strings.Join(have, ", ")),
			Fix: "allow a zone both have"}
	case keyInstanceType:
		return LintWhy{Kind: "instance-type", Text: fmt.Sprintf("no instance type satisfies the requirements (the pod needs %s %s; it has %s)", key, pod, strings.Join(have, ", ")),
			Fix: "widen the instance-type requirement or the source's instance types"}
	}
	if term >= 0 {
		text := fmt.Sprintf("affinity term %d needs %s %s", term, key, pod)
		if len(have) > 0 {
			text += fmt.Sprintf(" (its nodes have %s=%s)", key, strings.Join(have, ","))
		}
		return LintWhy{Kind: "affinity", Text: text, Fix: fmt.Sprintf("drop or relax the affinity expression on %s, or label the nodes to match", key)}
	}
	want := key
	if r.Op == cluster.OpIn && len(r.Values) == 1 {
		want = key + "=" + e.Syms.Name(r.Values[0])
	}
	if len(have) == 0 {
		return LintWhy{Kind: "label", Text: "missing label " + want, Fix: fmt.Sprintf("drop nodeSelector %s, or label the nodes %s", key, want)}
	}
	return LintWhy{Kind: "label", Text: fmt.Sprintf("needs label %s; its nodes have %s=%s", want, key, strings.Join(have, ",")),
		Fix: fmt.Sprintf("select a value of %s the nodes carry", key)}
}

// FormatTaint renders key=value:Effect (key:Effect without a value).
func FormatTaint(syms *cluster.Symbols, t cluster.Taint) string {
	if t.Value == cluster.NoSym {
		return syms.Name(t.Key) + ":" + t.Effect.String()
	}
	return syms.Name(t.Key) + "=" + syms.Name(t.Value) + ":" + t.Effect.String()
}

// tolerationFor is the toleration of t as users write it.
func tolerationFor(syms *cluster.Symbols, t cluster.Taint) string {
	if t.Value == cluster.NoSym {
		return fmt.Sprintf("{key: %s, operator: Exists, effect: %s}", syms.Name(t.Key), t.Effect)
	}
	return fmt.Sprintf("{key: %s, operator: Equal, value: %s, effect: %s}", syms.Name(t.Key), syms.Name(t.Value), t.Effect)
}

// FormatOp renders a requirement's operator and values: "In [a, b]".
func FormatOp(syms *cluster.Symbols, r *cluster.Requirement) string {
	switch r.Op {
	case cluster.OpIn, cluster.OpNotIn:
		vs := make([]string, len(r.Values))
		for i, v := range r.Values {
			vs[i] = syms.Name(v)
		}
		sort.Strings(vs)
		return fmt.Sprintf("%s [%s]", r.Op, strings.Join(vs, ", "))
	case cluster.OpGt, cluster.OpLt:
		return fmt.Sprintf("%s %d", r.Op, r.Num)
	}
	return r.Op.String()
}

func fmtCPU(m int64) string {
	if m%1000 == 0 {
		return fmt.Sprintf("%d", m/1000)
	}
	return fmt.Sprintf("%dm", m)
}
