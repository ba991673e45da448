package simulation

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/trace"
)

// The report's timeline: the collector samples the cluster; the events
// come from a cloud-only trace recorder (launches, their errors, spot
// signals), the autoscalers' deletions and the market's script.

// startTimeline turns the collector's timeline on (buildCollector).
func (s *Sim) startTimeline() {
	if s.opts.NoTimeline {
		return
	}
	sc := s.sc
	s.collector.StartTimeline(report.TimelineConfig{
		Interval: report.TimelineInterval(sc.Duration),
		OnDemandPrice: func(typ string) (float64, bool) {
			p, _, ok := sc.Catalog.OnDemandPrice(sc.Region, typ)
			return p, ok
		},
		Scripted: scriptedEvents(sc.Market.Events),
	})
}

// timelineEntry turns a cloud-only trace entry into a timeline event.
func (s *Sim) timelineEntry(e trace.Entry) {
	ev := report.TimelineEvent{Kind: e.Kind, Owner: e.Owner, Cause: e.Cause, Message: e.Message}
	if e.InstanceType != "" {
		ev.Pool = e.InstanceType + "/" + e.Zone + "/" + e.CapacityType
	}
	s.collector.Happened(ev)
}

// nodeDeletion records an autoscaler's deletion of a node.
func (s *Sim) nodeDeletion(owner string) func(cluster.NodeID, string) {
	return func(id cluster.NodeID, reason string) {
		s.collector.Happened(report.TimelineEvent{Kind: "nodeDeletion", Owner: owner, Pool: s.cl.Nodes[id].OwnerName, Cause: reason})
	}
}

// scriptedEvents are the market script's events, and their ends, in time
// order.
func scriptedEvents(events []spotmarket.ScriptedEvent) []report.TimelineEvent {
	var out []report.TimelineEvent
	for _, e := range events {
		what := describeScripted(e)
		out = append(out, report.TimelineEvent{T: e.At.Seconds(), Kind: "marketEvent", Count: 1, Owner: "market", Message: what})
		if e.For > 0 {
			out = append(out, report.TimelineEvent{T: (e.At + e.For).Seconds(), Kind: "marketEventEnd", Count: 1, Owner: "market", Message: what})
		}
	}
	// Stable: events at one time keep the script's order.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].T < out[j-1].T; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// describeScripted says what a scripted event does, in the scenario's
// words: "zones us-east-1a,us-east-1b spot: exhausted for 1h30m0s, 80%
// get a notice".
func describeScripted(e spotmarket.ScriptedEvent) string {
	var sel []string
	if len(e.InstanceTypes) > 0 {
		sel = append(sel, "types "+strings.Join(e.InstanceTypes, ","))
	}
	if len(e.Families) > 0 {
		sel = append(sel, "families "+strings.Join(e.Families, ","))
	}
	if len(e.Zones) > 0 {
		sel = append(sel, "zones "+strings.Join(e.Zones, ","))
	}
	if len(e.CapacityTypes) > 0 {
		var cts []string
		for _, c := range e.CapacityTypes {
			cts = append(cts, c.String())
		}
		sel = append(sel, strings.Join(cts, ","))
	}
	for _, g := range e.Groups {
		sel = append(sel, g.Owner+" "+g.Name)
	}
	if len(sel) == 0 {
		sel = append(sel, "every pool")
	}
	var what []string
	if e.State != spotmarket.RegimeUnset {
		w := e.State.String()
		if e.For > 0 {
			w += " for " + e.For.String()
		}
		what = append(what, w)
	}
	if e.InterruptFraction > 0 {
		what = append(what, fmt.Sprintf("%g%% of spot instances get an interruption notice", 100*e.InterruptFraction))
	}
	if e.RebalanceFraction > 0 {
		what = append(what, fmt.Sprintf("%g%% get a rebalance recommendation", 100*e.RebalanceFraction))
	}
	if e.JoinFailure > 0 {
		w := fmt.Sprintf("%g%% of launches never join", 100*e.JoinFailure)
		if e.JoinNotReady {
			w = fmt.Sprintf("%g%% of launches register but never become Ready", 100*e.JoinFailure)
		}
		if e.For > 0 {
			w += " for " + e.For.String()
		}
		what = append(what, w)
	}
	return strings.Join(sel, " ") + ": " + strings.Join(what, ", ")
}
