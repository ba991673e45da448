package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter"
)

// why is the reason a source cannot host a pod: kind (Cell.ReasonKind),
// the words, and what would change it.
type why struct {
	kind, text, fix string
}

// Label keys the explanations single out.
const (
	keyZone         = "topology.kubernetes.io/zone"
	keyInstanceType = "node.kubernetes.io/instance-type"
)

// onNodes runs the scheduler's pod-independent filters on each node, with
// its allocatable as free room, and returns the instance types of the
// nodes that accept the pod, or why none does.
func (c *checker) onNodes(spec *cluster.PodSpec, nodes []cluster.Node) ([]string, why) {
	if len(nodes) == 0 {
		return nil, why{kind: "no-nodes", text: "has no nodes", fix: "give the pool a count above 0"}
	}
	var fits []string
	furthest := cluster.Fits
	var taint cluster.Taint
	var at []*cluster.Node // nodes that failed at the furthest filter
	for i := range nodes {
		n := &nodes[i]
		m, t := cluster.StaticFit(c.syms, spec, n, &n.Allocatable)
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
		return fits, why{}
	}
	return nil, c.mismatchWhy(spec, at, furthest, taint)
}

// mismatchWhy explains a StaticFit mismatch shared by nodes.
func (c *checker) mismatchWhy(spec *cluster.PodSpec, nodes []*cluster.Node, m cluster.Mismatch, t cluster.Taint) why {
	switch m {
	case cluster.Cordoned:
		return why{kind: "cordoned", text: "its nodes are cordoned", fix: "uncordon them"}
	case cluster.WrongNodeName:
		return why{kind: "node-name", text: "spec.nodeName names another node", fix: "remove spec.nodeName"}
	case cluster.UntoleratedTaint:
		return c.taintWhy(t)
	case cluster.NodeSelectorMismatch:
		return c.selectorWhy(spec, nodes)
	case cluster.VolumeMismatch:
		zones := map[string]bool{}
		for _, n := range nodes {
			zones[c.syms.Name(n.Zone)] = true
		}
		var zs []string
		for z := range zones {
			zs = append(zs, z)
		}
		sort.Strings(zs)
		return why{kind: "zone", text: "its volumes cannot be used in " + strings.Join(zs, ", ") + " (" + spec.Volume.Check(nodes[0].Zone).Message() + ")"}
	case cluster.Insufficient:
		rooms := make([]typeRoom, 0, len(nodes))
		for _, n := range nodes {
			name := n.InstanceType
			if name == "" {
				name = n.Name
			}
			rooms = append(rooms, typeRoom{name: name, room: n.Allocatable})
		}
		return c.tooBigWhy(spec, rooms, "instance type", "")
	}
	return why{kind: "other", text: m.String()}
}

func (c *checker) taintWhy(t cluster.Taint) why {
	return why{kind: "taint", text: "untolerated taint " + fmtTaint(c.syms, t),
		fix: "add the toleration " + tolerationFor(c.syms, t) + " to its pod template"}
}

// typeRoom is an instance type (or a node without one) and its room for
// a pod.
type typeRoom struct {
	name string
	room cluster.Resources
}

// tooBigWhy says which resource the pod needs more of than any of the
// instance types has room for, over every resource the scenario knows
// (cpu, memory, ephemeral-storage, pods and extended resources such as
// nvidia.com/gpu): "needs 1 nvidia.com/gpu, no allowed type has any". When
// each resource alone fits some type but no type has them all, it says so
// and what the type with the most of each lacks. what names the types
// ("allowed type" for a NodePool's), where says where to change them
// (" in NodePool/x's requirements", or "").
func (c *checker) tooBigWhy(spec *cluster.PodSpec, rooms []typeRoom, what, where string) why {
	rooms = uniqueRooms(rooms)
	res := c.sc.Resources
	need := spec.Requests
	// most[i]: the most room any type has for resource i, at[i] the type
	// (the first by name), tied[i] whether another type has as much.
	var most cluster.Resources
	var at [cluster.MaxResources]string
	var tied [cluster.MaxResources]bool
	for i := 0; i < res.Len(); i++ {
		for j, r := range rooms {
			switch {
			case j == 0 || r.room[i] > most[i]:
				most[i], at[i], tied[i] = r.room[i], r.name, false
			case r.room[i] == most[i]:
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
		n := fmt.Sprintf("needs %s", c.amount(i, need[i]))
		switch {
		case most[i] <= 0 && len(rooms) == 1:
			n += fmt.Sprintf(", %s has none", at[i])
		case most[i] <= 0:
			n += fmt.Sprintf(", no %s has any", what)
		case len(rooms) == 1:
			n += fmt.Sprintf(", %s has %s", at[i], c.qty(i, most[i]))
		case tied[i]:
			n += fmt.Sprintf(", the %ss have at most %s", what, c.qty(i, most[i]))
		default:
			n += fmt.Sprintf(", the largest %s (%s) has %s", what, at[i], c.qty(i, most[i]))
		}
		if most[i] <= 0 && i != cluster.Pods {
			missing = append(missing, c.resName(i))
		}
		short = append(short, n)
	}
	w := why{kind: "too-big", fix: "lower its requests or allow larger instance types" + where}
	if len(short) == 1 && need[cluster.Ephemeral] > most[cluster.Ephemeral] && most[cluster.Ephemeral] > 0 {
		// Ephemeral storage is the node's disk, not the instance type's
		// size: a larger type does not help, a larger volume does.
		w.fix = "lower its ephemeral-storage request or give the nodes a larger volume"
		if where != "" {
			w.fix = "lower its ephemeral-storage request, or give the NodePool's EC2NodeClass a larger root volume (spec.blockDeviceMappings) or instanceStorePolicy: RAID0 with instance types that have NVMe instance stores"
		}
	}
	if len(missing) > 0 {
		w.fix = fmt.Sprintf("allow instance types that have %s%s, or take it out of the pod's requests and limits", strings.Join(missing, " and "), where)
	}
	if len(short) > 0 {
		w.text = "too big for every instance type: " + strings.Join(short, "; ")
		return w
	}
	// Each resource fits some type, but none has room for all at once.
	var asks, lacks []string
	seen := map[string]bool{}
	for i := 0; i < res.Len(); i++ {
		if need[i] <= 0 || i == cluster.Pods {
			continue
		}
		asks = append(asks, c.amount(i, need[i]))
		if seen[at[i]] {
			continue
		}
		seen[at[i]] = true
		for _, r := range rooms {
			if r.name != at[i] {
				continue
			}
			for k := 0; k < res.Len(); k++ {
				if need[k] > r.room[k] {
					lacks = append(lacks, fmt.Sprintf("%s, with the most %s, has %s", r.name, c.resName(i), c.amount(k, r.room[k])))
					break
				}
			}
			break
		}
	}
	w.text = fmt.Sprintf("too big for every instance type: no %s has room for %s at once", what, strings.Join(asks, " and "))
	if len(lacks) > 0 {
		w.text += " (" + strings.Join(lacks, "; ") + ")"
	}
	return w
}

// uniqueRooms drops repeats (nodes of one type) and sorts by name.
func uniqueRooms(rooms []typeRoom) []typeRoom {
	out := make([]typeRoom, 0, len(rooms))
	for _, r := range rooms {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b typeRoom) int { return strings.Compare(a.name, b.name) })
	return out
}

// resName is a resource's name in messages; the pods count is "pod slot".
func (c *checker) resName(i int) string {
	if i == cluster.Pods {
		return "pod slot"
	}
	return string(c.sc.Resources.Name(i))
}

// amount renders a quantity with its resource: "4 cpu", "200Gi
// ephemeral-storage", "1 nvidia.com/gpu".
func (c *checker) amount(i int, v int64) string {
	return c.qty(i, v) + " " + c.resName(i)
}

// qty renders a quantity of resource i: cpu in cores or millicores, byte
// sizes (memory, ephemeral-storage, hugepages) with a binary suffix, the
// rest as counts.
func (c *checker) qty(i int, v int64) string {
	switch {
	case i == cluster.CPU:
		return fmtCPU(v)
	case i == cluster.Memory || i == cluster.Ephemeral || strings.HasPrefix(string(c.sc.Resources.Name(i)), "hugepages-"):
		return cluster.FormatBytes(v)
	}
	return fmt.Sprint(v)
}

// selectorWhy finds the requirement of the pod's nodeSelector or required
// node affinity that none of the nodes meets.
func (c *checker) selectorWhy(spec *cluster.PodSpec, nodes []*cluster.Node) why {
	for i := range spec.NodeSelector {
		r := &spec.NodeSelector[i]
		if !anyMatches(c.syms, r, nodes) {
			return c.reqWhy(r, -1, nodes)
		}
	}
	if spec.Affinity == nil {
		return why{kind: "other", text: "node affinity/selector does not match"}
	}
	if len(spec.Affinity.Terms) == 0 {
		return why{kind: "affinity", text: "its required node affinity has only empty terms, which match no node",
			fix: "give the term matchExpressions, or remove it"}
	}
	var parts []why
	for ti := range spec.Affinity.Terms {
		t := &spec.Affinity.Terms[ti]
		found := false
		for i := range t.Reqs {
			if !anyMatches(c.syms, &t.Reqs[i], nodes) {
				parts = append(parts, c.reqWhy(&t.Reqs[i], ti, nodes))
				found = true
				break
			}
		}
		if !found {
			parts = append(parts, why{kind: "affinity", text: fmt.Sprintf("affinity term %d matches none of its nodes", ti),
				fix: "relax the term's expressions"})
		}
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out.text += "; " + p.text
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
func (c *checker) reqWhy(r *cluster.Requirement, term int, nodes []*cluster.Node) why {
	key := c.syms.Name(r.Key)
	var have []string
	for _, n := range nodes {
		if v, ok := n.Labels.Get(r.Key); ok {
			have = append(have, c.syms.Name(v))
		}
	}
	have = uniqueSorted(have)
	pod := fmtOp(c.syms, r)
	switch key {
	case keyZone:
		return why{kind: "zone", text: fmt.Sprintf("no zone in common (the pod needs %s %s; its nodes are in %s)", key, pod, strings.Join(have, ", ")),
			fix: "allow a zone both have"}
	case keyInstanceType:
		return why{kind: "instance-type", text: fmt.Sprintf("no instance type satisfies the requirements (the pod needs %s %s; it has %s)", key, pod, strings.Join(have, ", ")),
			fix: "widen the instance-type requirement or the source's instance types"}
	}
	if term >= 0 {
		text := fmt.Sprintf("affinity term %d needs %s %s", term, key, pod)
		if len(have) > 0 {
			text += fmt.Sprintf(" (its nodes have %s=%s)", key, strings.Join(have, ","))
		}
		return why{kind: "affinity", text: text, fix: fmt.Sprintf("drop or relax the affinity expression on %s, or label the nodes to match", key)}
	}
	want := key
	if r.Op == cluster.OpIn && len(r.Values) == 1 {
		want = key + "=" + c.syms.Name(r.Values[0])
	}
	if len(have) == 0 {
		return why{kind: "label", text: "missing label " + want, fix: fmt.Sprintf("drop nodeSelector %s, or label the nodes %s", key, want)}
	}
	return why{kind: "label", text: fmt.Sprintf("needs label %s; its nodes have %s=%s", want, key, strings.Join(have, ",")),
		fix: fmt.Sprintf("select a value of %s the nodes carry", key)}
}

// karpenterWhy words a karpenter.LaunchCheck failure.
func (c *checker) karpenterWhy(chk karpenter.LaunchCheck, s *source, spec *cluster.PodSpec) why {
	pool := "NodePool/" + s.pool
	where := func(base string) string {
		if chk.Term >= 0 {
			return fmt.Sprintf("affinity term %d needs %s %s", chk.Term, chk.Key, chk.PodSide)
		}
		return base
	}
	switch chk.Fail {
	case karpenter.FailCapacityType:
		if chk.Term < 0 && chk.PodSide == "In ["+s.ct.String()+"]" {
			return why{kind: "capacity-type", text: fmt.Sprintf("%s does not allow %s", pool, s.ct)}
		}
		return why{kind: "capacity-type", text: where(fmt.Sprintf("the pod needs %s %s", chk.Key, chk.PodSide)),
			fix: "allow the capacity type the pod needs"}
	case karpenter.FailTaint:
		return c.taintWhy(chk.Taint)
	case karpenter.FailLabel:
		text := where("missing label " + labelWant(chk.Key, chk.PodSide))
		return why{kind: kindOfTerm(chk.Term, "label"), text: text,
			fix: fmt.Sprintf("add %s to %s's spec.template.metadata.labels (or requirements), or drop the pod's requirement", labelWant(chk.Key, chk.PodSide), pool)}
	case karpenter.FailRequirement:
		text := where(fmt.Sprintf("needs label %s", labelWant(chk.Key, chk.PodSide))) + fmt.Sprintf("; %s has %s %s", pool, chk.Key, chk.PoolSide)
		return why{kind: kindOfTerm(chk.Term, "label"), text: text, fix: fmt.Sprintf("make the pod's and %s's values of %s meet", pool, chk.Key)}
	case karpenter.FailZone:
		text := "no zone in common"
		switch {
		case chk.PodSide != "" && chk.PoolSide != "":
			text += fmt.Sprintf(" (the pod needs %s; %s allows %s)", chk.PodSide, pool, chk.PoolSide)
		case chk.PoolSide != "":
			text += fmt.Sprintf(" (%s allows %s; the scenario's zones are %s)", pool, chk.PoolSide, strings.Join(c.sc.Zones, ", "))
		}
		return why{kind: "zone", text: text, fix: "allow a zone both have"}
	case karpenter.FailInstanceType:
		text := "no instance type satisfies the requirements"
		if chk.Key != "" {
			text += fmt.Sprintf(" (the pod needs %s %s; %s has %s)", chk.Key, chk.PodSide, pool, orAny(chk.PoolSide))
		}
		return why{kind: "instance-type", text: text, fix: fmt.Sprintf("widen %s's instance requirements or the pod's", pool)}
	case karpenter.FailTooBig:
		rooms := make([]typeRoom, len(chk.Rooms))
		for i, r := range chk.Rooms {
			rooms[i] = typeRoom{name: r.Name, room: r.Room}
		}
		return c.tooBigWhy(spec, rooms, "allowed type", " in "+pool+"'s requirements")
	case karpenter.FailLimit:
		return why{kind: "limit", text: fmt.Sprintf("NodePool limit: %s's spec.limits leave room for none of the %d instance types that fit", pool, chk.Candidates),
			fix: fmt.Sprintf("raise %s's spec.limits", pool)}
	case karpenter.FailMinValues:
		return why{kind: "min-values", text: fmt.Sprintf("minValues not met: the %d instance types left have fewer than %s values of %s", chk.Candidates, chk.PodSide, chk.Key),
			fix: "lower minValues or widen the requirements"}
	}
	return why{kind: "other", text: "Karpenter's scheduling simulation finds no node for it"}
}

func kindOfTerm(term int, def string) string {
	if term >= 0 {
		return "affinity"
	}
	return def
}

func orAny(s string) string {
	if s == "" {
		return "no requirement on it"
	}
	return s
}

// labelWant renders key and "In [v]" as key=v, else "key (In [a, b])".
func labelWant(key, side string) string {
	if strings.HasPrefix(side, "In [") && !strings.Contains(side, ",") {
		return key + "=" + strings.TrimSuffix(strings.TrimPrefix(side, "In ["), "]")
	}
	if side == "Exists" || side == "" {
		return key
	}
	return key + " (" + side + ")"
}

// fmtTaint renders key=value:Effect (key:Effect without a value).
func fmtTaint(syms *cluster.Symbols, t cluster.Taint) string {
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

// fmtOp renders a requirement's operator and values: "In [a, b]".
func fmtOp(syms *cluster.Symbols, r *cluster.Requirement) string {
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
