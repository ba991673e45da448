package clusterautoscaler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// NoScaleUpFunc receives why the Cluster Autoscaler added no node for
// pending pods, as its NotTriggerScaleUp event says it ("pod didn't
// trigger scale-up: 1 max node group size reached, 2 node(s) had
// untolerated taint {k: v}"), with the node groups named. class
// identifies the reasons for deduplication (group and reason, the
// back-off's end included); the pods are those the loop could not help.
type NoScaleUpFunc func(pods []cluster.PodID, class, message string)

// OnNoScaleUp makes the Cluster Autoscaler say, after each loop's
// scale-up, why no node group can help the pods it leaves pending (the
// timeline's caNoScaleUp entries). Off (nil) by default: the reasons
// cost a template check per pod group and node group, done only when
// someone listens.
func (a *Autoscaler) OnNoScaleUp(f NoScaleUpFunc) { a.orch.noScaleUp = f }

// OnDelete makes the Cluster Autoscaler say when it starts deleting a node
// of a group, and why: scaleDown (an unneeded node), scaleDownUnready (a
// registered node that never became Ready), rebalance (the ASG's
// capacity rebalancing retires an at-risk spot node) or interruption (a
// spot node drained ahead of its reclaim). The report's timeline shows
// them. It only listens.
func (a *Autoscaler) OnDelete(f func(node cluster.NodeID, reason string)) { a.act.onDelete = f }

// deleteReasons name the deleteKinds for OnDelete.
var deleteReasons = [...]string{deleteScaleDown: "scaleDown", deleteRebalance: "rebalance", deleteInterrupt: "interruption"}

// explainNoScaleUp: for each pod group that no node group can help, why
// each node group cannot (the scale-up orchestrator's skipped and
// rejected node groups): back-off, max size, scale-up from zero off, then
// the template's predicate failure. Groups the Cluster Autoscaler does
// not manage are not part of its answer.
func (o *orchestrator) explainNoScaleUp(groups []*podGroup, now engine.Time) {
	for _, pg := range groups {
		if pg.fake {
			continue // FakePodsScaleUpStatusProcessor: no pod's story
		}
		type reason struct {
			text   string
			groups []string
		}
		var reasons []*reason
		byText := map[string]*reason{}
		helped := false
		var classes []string
		for _, g := range o.groups {
			if !g.sel.Autoscaled {
				continue
			}
			var text string
			detail := g.cfg.Name
			skipped := o.backedOff(g, now) || g.target >= g.sel.Max || (g.target == 0 && !o.s.ScaleUpFromZero)
			switch {
			case skipped && o.s.ScaleUpSimulationForSkippedNodeGroups && g.tpl != nil && o.rejects(pg, g.tpl) != "":
				// --scaleup-simulation-for-skipped-node-groups-enabled:
				// a skipped group whose template rejects the pod is named
				// for the rejection (orchestrator.go
				// getRemainingPodsConsideringSkippedNodeGroups).
				text = o.rejects(pg, g.tpl)
			case o.backedOff(g, now):
				text = "in backoff after failed scale-up"
				detail += " until " + fmtAt(g.bo.until)
			case !o.groupHealthy(g, now):
				text = "not ready for scale-up"
			case g.target >= g.sel.Max:
				text = "max node group size reached"
				detail += fmt.Sprintf(" at %d", g.sel.Max)
			case g.target == 0 && !o.s.ScaleUpFromZero:
				text = "scale-up from zero is disabled"
			case g.tpl == nil:
				text = "no node template"
			default:
				text = o.rejects(pg, g.tpl)
			}
			if text == "" {
				helped = true
				break
			}
			r := byText[text]
			if r == nil {
				r = &reason{text: text}
				byText[text] = r
				reasons = append(reasons, r)
			}
			r.groups = append(r.groups, detail)
			classes = append(classes, detail+": "+text)
		}
		if helped || len(reasons) == 0 {
			continue
		}
		sort.Slice(reasons, func(i, j int) bool { return reasons[i].text < reasons[j].text })
		parts := make([]string, len(reasons))
		for i, r := range reasons {
			parts[i] = fmt.Sprintf("%d %s (%s)", len(r.groups), r.text, strings.Join(r.groups, ", "))
		}
		sort.Strings(classes)
		o.noScaleUp(pg.pods, strings.Join(classes, "; "), "pod didn't trigger scale-up: "+strings.Join(parts, ", "))
	}
}

// rejects is the scheduler's reason for a group's template not taking a
// pod group's pods ("" when it takes them).
func (o *orchestrator) rejects(pg *podGroup, tpl *template) string {
	m, t := cluster.StaticFit(o.cl.Syms, pg.spec, &tpl.node, &tpl.node.Allocatable)
	text := o.mismatchText(m, t, pg.spec, &tpl.node)
	if text == "" && !o.templateTakes(pg.spec, pg, tpl) {
		text = "node(s) didn't match pod topology spread constraints"
	}
	return text
}

// mismatchText is the scheduler's reason for a template node that does
// not take the pod ("" when it does).
func (o *orchestrator) mismatchText(m cluster.Mismatch, t cluster.Taint, spec *cluster.PodSpec, tpl *cluster.Node) string {
	alloc := &tpl.Allocatable
	switch m {
	case cluster.Fits:
		return ""
	case cluster.Cordoned:
		return "node(s) were unschedulable"
	case cluster.WrongNodeName:
		return "node(s) didn't match the requested node name"
	case cluster.UntoleratedTaint:
		return "node(s) had untolerated taint " + t.String(o.cl.Syms)
	case cluster.NodeSelectorMismatch:
		return "node(s) didn't match Pod's node affinity/selector"
	case cluster.VolumeMismatch:
		// The template node sits in one zone of its group: a pod whose
		// volume is in another zone does not fit it.
		return spec.Volume.Check(tpl.Zone).Message()
	}
	var short []string
	for i := range min(len(spec.Requests), o.cl.Resources.Len()) {
		if spec.Requests[i] > 0 && spec.Requests[i] > alloc[i] {
			short = append(short, "Insufficient "+string(o.cl.Resources.Name(i)))
		}
	}
	if len(short) == 0 {
		return m.String()
	}
	return strings.Join(short, ", ")
}

// fmtAt renders a virtual time as the timeline does: 1h02m03s.
func fmtAt(t engine.Time) string {
	s := int64(t) / 1e9
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, (s%3600)/60, s%60)
}
