package explain

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/trace"
)

// waited reports whether the pod's story has a wait: the scheduler marked
// it unschedulable, and it was not bound at once (report.AtOnce: its fit
// error held it back no time, as for a pod tried before the first nodes
// came that bound with them).
func waited(story []trace.Entry) bool {
	if !slices.ContainsFunc(story, func(e trace.Entry) bool { return e.Kind == "podUnschedulable" }) {
		return false
	}
	created := 0.0
	for _, e := range story {
		switch e.Kind {
		case "podCreated":
			created = e.T
		case "podBound":
			return e.T-created >= report.AtOnce.Seconds()
		}
	}
	return true
}

// whyNothingCame explains a wait no autoscaler launched a node for: what
// each capacity source answers for the pod's workload (lint's matrix, the
// static part), what the autoscalers said during the run (the
// karpenterNoLaunch and caNoScaleUp entries of the story), and the launch
// failures, with their EC2 codes, while the pod waited.
func whyNothingCame(b *strings.Builder, sc *scenario.Scenario, story, all []trace.Entry) {
	if !component.Launching(sc.Components) {
		b.WriteString("The scenario has no autoscaler (no NodePool, no Cluster Autoscaler node group): only its static nodes take pods.\n")
		return
	}
	// The wait: from the first unschedulable mark to the bind, or the end.
	from, to := -1.0, -1.0
	told := 0
	for _, e := range story {
		switch e.Kind {
		case "podUnschedulable":
			if from < 0 {
				from = e.T
			}
		case "podBound", "podDeleted", "podFinished":
			if from >= 0 && to < 0 {
				to = e.T
			}
		case "karpenterNoLaunch", "caNoScaleUp":
			told++
		}
	}
	// The static part: every capacity source against the workload's pod
	// template.
	workload := story[0].Workload
	fmt.Fprintf(b, "\nWhy no node came:\n  What each capacity source can do for %s (as sim lint sees it):\n", workload)
	for _, p := range capacityFor(sc, workload) {
		variant := ""
		if p.Variant != "" {
			variant = " (" + p.Variant + ")"
		}
		for _, c := range p.Cells {
			var line string
			switch {
			case c.Provisions:
				line = fmt.Sprintf("can launch %s for it%s", strings.Join(sample(c.InstanceTypes, 6), ", ")+more(len(c.InstanceTypes), 6), variant)
			case c.CanLand:
				line = "its nodes take it" + variant + ", but nothing adds nodes to it for it"
			default:
				line = "never" + variant + ": " + c.Reason
			}
			fmt.Fprintf(b, "    - %s: %s\n", c.Source, line)
		}
	}
	// Launch failures while the pod waited, by owner and code.
	type agg struct {
		n    int
		offs map[string]bool
	}
	fails := map[string]*agg{}
	var keys []string
	failed := map[string]int{}
	for _, e := range all {
		if e.T < from || (to >= 0 && e.T > to) {
			continue
		}
		switch e.Kind {
		case "launchError":
			k := e.Owner + "\x00" + e.Cause
			if e.Message != "" {
				k += " (" + e.Message + ")"
			}
			a := fails[k]
			if a == nil {
				a = &agg{offs: map[string]bool{}}
				fails[k] = a
				keys = append(keys, k)
			}
			a.n++
			a.offs[e.InstanceType+"/"+e.Zone+"/"+e.CapacityType] = true
		case "launchFailed":
			failed[e.Owner]++
		}
	}
	sort.Strings(keys)
	end := "the end"
	if to >= 0 {
		end = fmtTime(to)
	}
	fmt.Fprintf(b, "  While it waited (%s to %s):\n", fmtTime(from), end)
	if told > 0 {
		fmt.Fprintf(b, "    - the autoscalers said why they launched nothing: %d reason(s), in the story above\n", told)
	} else {
		b.WriteString("    - no autoscaler gave a reason: none turned it down (it fitted on a node already on its way, or waited too briefly)\n")
	}
	if len(keys) == 0 {
		b.WriteString("    - no launch failed\n")
	}
	for _, k := range keys {
		owner, code, _ := strings.Cut(k, "\x00")
		a := fails[k]
		offs := make([]string, 0, len(a.offs))
		for o := range a.offs {
			offs = append(offs, o)
		}
		sort.Strings(offs)
		fmt.Fprintf(b, "    - %s's launches failed %d x %s on %s\n", owner, a.n, code, strings.Join(sample(offs, 8), ", ")+more(len(offs), 8))
	}
	for _, owner := range []string{"karpenter", "cluster-autoscaler"} {
		if n := failed[owner]; n > 0 {
			fmt.Fprintf(b, "    - %d launch request(s) of %s got no instance at all\n", n, owner)
		}
	}
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf(" and %d more", n-shown)
	}
	return ""
}

func zoneIn(zone string) string {
	if zone == "" {
		return " (not zonal)"
	}
	return " in " + zone
}

// whyVolumes explains a wait the pod's volumes caused: when its last fit
// error names a volume reason, which claims pin it to which zone (from
// the volumeProvisioned entries of its story, the volumes of earlier pods
// of the same name included: a StatefulSet's replica keeps its claims),
// and what each capacity source can do for it in that zone.
func whyVolumes(b *strings.Builder, sc *scenario.Scenario, story []trace.Entry) {
	last := ""
	for _, e := range story {
		if e.Kind == "podUnschedulable" {
			last = e.Message
		}
	}
	reason := ""
	for _, m := range []string{cluster.MsgVolumeConflict, cluster.MsgVolumeNoBind, cluster.MsgVolumeZone, cluster.MsgVolumeUnbound, cluster.MsgVolumeLimit} {
		if strings.Contains(last, m) {
			reason = m
			break
		}
	}
	if reason == "" {
		return
	}
	b.WriteString("\nIts volumes:\n")
	zones := map[string]bool{}
	for _, e := range story {
		if e.Kind != "volumeProvisioned" || e.Zone == "" {
			continue
		}
		on := ""
		if e.Node != "" {
			on = ", where its pod first landed on " + e.Node
		}
		fmt.Fprintf(b, "  - %s was provisioned in %s at %s%s: the pod can run only in %s\n", e.Message, e.Zone, fmtTime(e.T), on, e.Zone)
		zones[e.Zone] = true
	}
	fmt.Fprintf(b, "  - the scheduler rejects the other nodes: %s\n", reason)
	if len(zones) != 1 || story[0].Workload == "" {
		return
	}
	var zone string
	for z := range zones {
		zone = z
	}
	fmt.Fprintf(b, "  What each capacity source can do for it in %s (as sim lint sees it):\n", zone)
	for _, c := range capacityInZone(sc, story[0].Workload, zone) {
		var line string
		switch {
		case c.Provisions:
			line = "can launch " + strings.Join(sample(c.InstanceTypes, 6), ", ") + more(len(c.InstanceTypes), 6) + " there for it"
		case c.CanLand && c.Reason != "":
			line = "its nodes there take it, but it " + c.Reason
		case c.CanLand:
			line = "its nodes there take it"
		default:
			line = "never: " + c.Reason
		}
		fmt.Fprintf(b, "    - %s: %s\n", c.Source, line)
	}
}
