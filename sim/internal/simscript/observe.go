package simscript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/testscript"
	"github.com/clustersim/clustersim/sim/trace"
)

// workloadName names a pod's workload (its pod name when it has none).
func (s *Sim) workloadName(p *cluster.Pod) string {
	if p.Workload >= 0 && int(p.Workload) < len(s.sc.Workloads) {
		return s.sc.Workloads[p.Workload].Name
	}
	return p.Name
}

// counts prints name=count pairs in name order.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// nodes lists the live nodes in creation order.
func (s *Sim) nodes(b *testscript.Block) (string, error) {
	cl := s.run.Cluster()
	labels := b.List("labels")
	taints := b.Flag("taints")
	price := b.Flag("price")
	live := 0
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	header := []string{"NAME", "TYPE", "ZONE", "CAPACITY", "OWNER", "STATE"}
	for _, l := range labels {
		header = append(header, l)
	}
	if taints {
		header = append(header, "TAINTS")
	}
	if price {
		header = append(header, "USD/HOUR")
	}
	header = append(header, "PODS")
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for i := range cl.Nodes {
		n := &cl.Nodes[i]
		if n.State == cluster.NodeGone {
			continue
		}
		live++
		state := strings.ToLower(n.State.String())
		if n.RegisteredNotReady() {
			state += ",registered,Ready=False"
		}
		if n.Unschedulable {
			state += ",cordoned"
		}
		row := []string{n.Name, n.InstanceType, cl.Syms.Name(n.Zone), n.CapacityType.String(),
			n.Owner.String() + "/" + n.OwnerName, state}
		for _, l := range labels {
			v := "-"
			if sym, ok := n.Labels.Get(cl.Syms.Intern(l)); ok {
				v = cl.Syms.Name(sym)
			}
			row = append(row, v)
		}
		if taints {
			var ts []string
			for _, t := range n.Taints {
				ts = append(ts, taintString(cl, t))
			}
			row = append(row, orDash(strings.Join(ts, ",")))
		}
		if price {
			row = append(row, fmt.Sprintf("%.4f", n.PriceUSDPerHour))
		}
		pods := map[string]int{}
		for _, id := range n.Pods {
			pods[s.workloadName(&cl.Pods[id])]++
		}
		row = append(row, orDash(counts(pods)))
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
	if live == 0 {
		return "no nodes", nil
	}
	return buf.String(), nil
}

func taintString(cl *cluster.Cluster, t cluster.Taint) string {
	s := cl.Syms.Name(t.Key)
	if t.Value != cluster.NoSym {
		s += "=" + cl.Syms.Name(t.Value)
	}
	return s + ":" + t.Effect.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pods counts each workload's pods by phase.
func (s *Sim) pods(b *testscript.Block) (string, error) {
	cl := s.run.Cluster()
	all := b.Flag("all")
	zones := b.Flag("zones")
	type tally struct {
		phases map[cluster.Phase]int
		zones  map[string]int
	}
	byWorkload := map[string]*tally{}
	var order []string
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if p.Phase.Terminal() && !all {
			continue
		}
		name := cl.Syms.Name(p.Namespace) + "/" + s.workloadName(p)
		t := byWorkload[name]
		if t == nil {
			t = &tally{phases: map[cluster.Phase]int{}, zones: map[string]int{}}
			byWorkload[name] = t
			order = append(order, name)
		}
		t.phases[p.Phase]++
		if p.Phase == cluster.Running {
			t.zones[cl.Syms.Name(cl.Nodes[p.Node].Zone)]++
		}
	}
	var sb strings.Builder
	for _, name := range order {
		t := byWorkload[name]
		var parts []string
		for ph := cluster.Pending; ph <= cluster.Deleted; ph++ {
			if t.phases[ph] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", t.phases[ph], strings.ToLower(ph.String())))
			}
		}
		line := name + ": " + strings.Join(parts, ", ")
		if zones && len(t.zones) > 0 {
			line += "; running in " + counts(t.zones)
		}
		sb.WriteString(line + "\n")
	}
	if len(order) == 0 {
		return "no pods", nil
	}
	return sb.String(), nil
}

// events prints the timeline entries since the last events command.
func (s *Sim) events(b *testscript.Block) (string, error) {
	kinds := b.List("kinds")
	var sb strings.Builder
	for _, e := range s.timeline[s.shown:] {
		if kinds != nil && !slices.Contains(kinds, e.Kind) {
			continue
		}
		sb.WriteString(entryLine(e) + "\n")
	}
	s.shown = len(s.timeline)
	return sb.String(), nil
}

// entryLine prints an entry on one line: time, kind, then the fields it
// has.
func entryLine(e trace.Entry) string {
	fields := []string{clock(time.Duration(e.T * float64(time.Second))), e.Kind}
	add := func(v string) {
		if v != "" {
			fields = append(fields, v)
		}
	}
	add(e.Pod)
	add(e.Node)
	add(e.InstanceType)
	add(e.Zone)
	add(e.CapacityType)
	if e.OwnerName != "" {
		add(e.Owner + "/" + e.OwnerName)
	} else {
		add(e.Owner)
	}
	if e.Cause != "" {
		add("cause=" + e.Cause)
	}
	if e.Kind == "disruptionCommand" {
		add(e.Phase)
		add(fmt.Sprintf("%q", e.Method))
		add("reason=" + e.Reason)
		var cands []string
		for _, c := range e.Candidates {
			cands = append(cands, fmt.Sprintf("%s(%s,%s,%s,pods=%d)", c.Node, c.NodePool, c.InstanceType, c.CapacityType, c.Pods))
		}
		add("candidates=" + strings.Join(cands, ","))
		for _, r := range e.Replacements {
			add(fmt.Sprintf("replacement=%s/%s/%s(of %d)", r.NodePool, r.CapacityType, strings.Join(r.InstanceTypes, ","), r.Options))
		}
		for _, b := range e.Budgets {
			bs := fmt.Sprintf("budget=%s:%s", b.NodePool, b.Nodes)
			if len(b.Reasons) > 0 {
				bs += "[" + strings.Join(b.Reasons, ",") + "]"
			}
			if b.Schedule != "" {
				bs += "@" + b.Schedule
			}
			add(fmt.Sprintf("%s,allowed=%d", bs, b.Allowed))
		}
		for _, sc := range e.Scores {
			add(fmt.Sprintf("score=%s:%g(savings=%g%%,disruption=%g%%,threshold=%g)", sc.NodePool, sc.Score, sc.SavingsPct, sc.DisruptionPct, sc.Threshold))
		}
	}
	if e.Kind == "provisioningRequest" {
		add(e.Request)
		add(e.Condition + "=" + e.Status)
		add("reason=" + e.Reason)
	}
	if e.Message != "" {
		add("(" + e.Message + ")")
	}
	return strings.Join(fields, " ")
}

// report prints figures of the report as of now by JSON path.
func (s *Sim) report(b *testscript.Block) (string, error) {
	keys := b.List("key")
	if keys == nil {
		return "", fmt.Errorf("give the figures: key=karpenter.disruptions,nodes.launched")
	}
	data, err := json.Marshal(s.run.Report())
	if err != nil {
		return "", err
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, key := range keys {
		v, err := lookup(root, key)
		if err != nil {
			return "", err
		}
		printLeaves(&sb, key, v)
	}
	return sb.String(), nil
}

// lookup follows a dotted path; an array element is chosen by index or by
// its "name" field.
func lookup(v any, path string) (any, error) {
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, fmt.Errorf("report has no %s (at %q; it has %s)", path, seg, strings.Join(slices.Sorted(maps.Keys(x)), ", "))
			}
			v = next
		case []any:
			found := false
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(x) {
				v, found = x[i], true
			}
			for _, el := range x {
				if m, ok := el.(map[string]any); ok && !found && m["name"] == seg {
					v, found = el, true
				}
			}
			if !found {
				return nil, fmt.Errorf("report has no %s (no element %q)", path, seg)
			}
		default:
			return nil, fmt.Errorf("report has no %s (%q is inside a value)", path, seg)
		}
	}
	return v, nil
}

// printLeaves prints a value, or every value under an object, one
// "path = value" a line in key order.
func printLeaves(sb *strings.Builder, path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			printLeaves(sb, path+"."+k, x[k])
		}
	default:
		out, _ := json.Marshal(x)
		fmt.Fprintf(sb, "%s = %s\n", path, out)
	}
}

// node describes one node: what it is, its times, price, labels, taints
// and pods.
func (s *Sim) node(b *testscript.Block) (string, error) {
	cl := s.run.Cluster()
	name, ok := b.Lookup("name")
	if !ok {
		return "", fmt.Errorf("give the node's name=")
	}
	for i := range cl.Nodes {
		n := &cl.Nodes[i]
		if n.Name != name {
			continue
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s: %s %s %s, %s/%s, %s\n", n.Name, n.InstanceType, cl.Syms.Name(n.Zone), n.CapacityType,
			n.Owner, n.OwnerName, strings.ToLower(n.State.String()))
		fmt.Fprintf(&sb, "instance %d, %.4f USD/hour, launched %s", n.Instance, n.PriceUSDPerHour, clock(n.Launched))
		if n.State != cluster.NodeLaunching {
			fmt.Fprintf(&sb, ", ready %s", clock(n.Ready))
		}
		if n.State == cluster.NodeGone {
			fmt.Fprintf(&sb, ", gone %s", clock(n.Deleted))
		}
		sb.WriteString("\nlabels:\n")
		labels := n.Labels.Map(cl.Syms)
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			fmt.Fprintf(&sb, "  %s=%s\n", k, labels[k])
		}
		var ts []string
		for _, t := range n.Taints {
			ts = append(ts, taintString(cl, t))
		}
		fmt.Fprintf(&sb, "taints: %s\n", orDash(strings.Join(ts, ", ")))
		pods := map[string]int{}
		for _, id := range n.Pods {
			pods[s.workloadName(&cl.Pods[id])]++
		}
		fmt.Fprintf(&sb, "pods: %s\n", orDash(counts(pods)))
		return sb.String(), nil
	}
	return "", fmt.Errorf("no node named %s", name)
}
