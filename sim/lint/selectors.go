package lint

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
)

// checkSelectors flags the workload's required pod affinity and
// anti-affinity terms and DoNotSchedule spread constraints whose
// labelSelector selects no pod any workload of the scenario creates, its
// own included (KindSelectsNothing). The scheduler then counts no pod for
// them: anti-affinity and spread keep nothing apart, and affinity holds
// for no node (upstream lets the first pod of a term that selects itself
// through; one that does not select itself never schedules).
func (c *checker) checkSelectors(r *row) {
	wl := &c.sc.Workloads[r.w]
	spec := wl.Pod
	if spec == nil {
		return
	}
	own, _ := c.sc.Syms.Lookup(wl.Namespace)
	base := c.workloadFinding(r.w, Warning, KindSelectsNothing, "", "", nil).Path
	terms := func(kind, field string, ts []cluster.AffinityTerm, sev Severity, effect string) {
		for i := range ts {
			t := &ts[i]
			if c.selectsAny(t.Selector, func(ns cluster.Sym) bool { return termNamespace(c.sc.Syms, t, own, ns) }) {
				continue
			}
			f := c.workloadFinding(r.w, sev, KindSelectsNothing,
				fmt.Sprintf("%s term %d (topologyKey %s) %s: %s", kind, i, c.sc.Syms.Name(t.TopologyKey),
					c.nothingText(t.Selector, spec.Labels), effect),
				"make the labelSelector match the labels of the pods it means"+c.ownLabelsHint(spec.Labels), nil)
			f.Path = fmt.Sprintf("%s.affinity.%s.requiredDuringSchedulingIgnoredDuringExecution[%d].labelSelector", base, field, i)
			c.add(f)
		}
	}
	terms("pod anti-affinity", "podAntiAffinity", spec.PodAntiAffinity, Warning,
		"it keeps nothing apart, so the pods may share a node (or zone)")
	terms("pod affinity", "podAffinity", spec.PodAffinity, Error,
		"no node satisfies it, so the pods never schedule")
	for i := range spec.Spread {
		sc := &spec.Spread[i]
		if !sc.Hard || c.selectsAny(sc.Selector, func(ns cluster.Sym) bool { return ns == own }) {
			continue
		}
		f := c.workloadFinding(r.w, Warning, KindSelectsNothing,
			fmt.Sprintf("topology spread constraint %d (topologyKey %s, DoNotSchedule) %s: it counts no pod, so it spreads nothing",
				i, c.sc.Syms.Name(sc.TopologyKey), c.nothingText(sc.Selector, spec.Labels)),
			"make the labelSelector match the pods' own labels"+c.ownLabelsHint(spec.Labels), nil)
		f.Path = fmt.Sprintf("%s.topologySpreadConstraints[%d].labelSelector", base, i)
		c.add(f)
	}
}

// selectsAny reports whether sel matches the pods of some workload of the
// scenario in a namespace inNS accepts.
func (c *checker) selectsAny(sel cluster.LabelSelector, inNS func(cluster.Sym) bool) bool {
	if sel.Nothing {
		return false
	}
	for i := range c.sc.Workloads {
		w := &c.sc.Workloads[i]
		if w.Pod == nil {
			continue
		}
		ns, _ := c.sc.Syms.Lookup(w.Namespace)
		if inNS(ns) && sel.Matches(c.sc.Syms, w.Pod.Labels) {
			return true
		}
	}
	return false
}

// termNamespace is the scheduler's namespace rule for an affinity term of
// a pod in ownNS (Topology.termNamespace), except that a
// namespaceSelector counts every namespace: lint has no Namespace labels.
func termNamespace(syms *cluster.Symbols, t *cluster.AffinityTerm, ownNS, ns cluster.Sym) bool {
	if t.NamespaceSelector != nil {
		return true
	}
	if len(t.Namespaces) == 0 {
		return ns == ownNS
	}
	for _, n := range t.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// nothingText says what the selector asks for and that no pod has it.
func (c *checker) nothingText(sel cluster.LabelSelector, own cluster.Labels) string {
	if sel.Nothing {
		return "has no labelSelector, which selects no pod"
	}
	reqs := make([]string, len(sel.Reqs))
	for i := range sel.Reqs {
		reqs[i] = c.sc.Syms.Name(sel.Reqs[i].Key) + " " + fmtOp(c.sc.Syms, &sel.Reqs[i])
	}
	return fmt.Sprintf("selects no pod in this scenario (%s), not even its own (%s)",
		strings.Join(reqs, ", "), c.labelsText(own))
}

func (c *checker) ownLabelsHint(own cluster.Labels) string {
	if len(own) == 0 {
		return ""
	}
	return " (its own pods carry " + c.labelsText(own) + ")"
}

func (c *checker) labelsText(ls cluster.Labels) string {
	if len(ls) == 0 {
		return "no labels"
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = c.sc.Syms.Name(l.Key) + "=" + c.sc.Syms.Name(l.Value)
	}
	return strings.Join(parts, ", ")
}
