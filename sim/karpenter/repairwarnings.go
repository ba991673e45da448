package karpenter

import (
	"fmt"
	"strconv"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/manifest"
	"go.yaml.in/yaml/v3"
)

// repairWarnings are the findings on node repair: with the NodeRepair gate
// off, one info line naming it when the scenario makes nodes fail
// (spec.nodeFailures) or a budget names the Unhealthy reason (it paces
// nothing then); with it on, a static pool at its node limit without
// TerminateFirstRepair, an Unhealthy budget of 0 nodes that stops repair
// for its pool, and a scripted failure of more than 20% of a NodePool's
// nodes, which the 20% rule leaves unrepaired.
func repairWarnings(env component.Env, pools []NodePool, st Settings) []component.Warning {
	var failures *yaml.Node
	if env.Scenario != nil {
		failures = manifest.Lookup(env.Scenario.Node, "spec", "nodeFailures")
	}
	var out []component.Warning
	if !st.NodeRepair {
		w := component.Warning{Code: "karpenter.gate-off", Info: true,
			Fix: "turn the gate on: FEATURE_GATES=NodeRepair=true on Karpenter's controller (Helm: settings.featureGates.nodeRepair=true), or spec.karpenter.featureGates.nodeRepair: true"}
		switch p, b := unhealthyBudget(pools); {
		case hitsKarpenter(failures) >= 0:
			i := hitsKarpenter(failures)
			w.File, w.Line, w.Path = env.Scenario.File, failures.Content[i].Line, fmt.Sprintf("spec.nodeFailures[%d]", i)
			w.Msg = "spec.nodeFailures make nodes unhealthy, but the NodeRepair feature gate is off (its default in v1.15): Karpenter replaces none of its unhealthy nodes (they stay, billed; a NotReady one takes from its pool's other disruption budgets)"
		case notReadyJoin(env) >= 0:
			i := notReadyJoin(env)
			e := manifest.Lookup(env.Scenario.Node, "spec", "market", "events").Content[i]
			w.File, w.Line, w.Path = env.Scenario.File, manifest.Lookup(e, "joinFailure", "mode").Line, fmt.Sprintf("spec.market.events[%d].joinFailure.mode", i)
			w.Msg = "this join failure makes Karpenter's nodes register and never become Ready, but the NodeRepair feature gate is off (its default in v1.15): their NodeClaims are Registered, so the registration timeout does not remove them, and nothing replaces them before their expireAfter; the pods Karpenter placed on them wait"
		case p != nil:
			w.File, w.Line, w.Path = p.File, p.Line, "spec.disruption.budgets"
			w.Msg = fmt.Sprintf("%s's budget %q paces node repair (reason Unhealthy), but the NodeRepair feature gate is off (its default in v1.15): it limits nothing", p, b.Text)
		default:
			return nil
		}
		return append(out, w)
	}
	for i := range pools {
		p := &pools[i]
		if p.Static && st.StaticCapacity && p.Replicas > 0 && p.Limits.Nodes == p.Replicas && !st.TerminateFirstRepair {
			out = append(out, component.Warning{Code: "ineffective.static-node-limit", File: p.File, Line: p.Line, Path: "spec.limits.nodes",
				Msg: fmt.Sprintf("%s keeps %d nodes and limits.nodes is %d too: node repair never replaces an unhealthy node of it (repair launches the replacement first and the limit leaves no room)", p, p.Replicas, p.Limits.Nodes),
				Fix: fmt.Sprintf("set limits.nodes above %d, or turn on the TerminateFirstRepair gate (FEATURE_GATES=TerminateFirstRepair=true, or spec.karpenter.featureGates.terminateFirstRepair: true) to delete unhealthy nodes first", p.Replicas)})
		}
		for j := range p.Disruption.Budgets {
			b := &p.Disruption.Budgets[j]
			if b.Schedule == nil && !b.Nodes.Percent && b.Nodes.Value == 0 && b.Applies(apis.ReasonUnhealthy) {
				out = append(out, component.Warning{Code: "ineffective.repair-budget", File: p.File, Line: p.Line,
					Path: fmt.Sprintf("spec.disruption.budgets[%d]", j),
					Msg:  fmt.Sprintf("%s's budget %q allows no disruption for reason Unhealthy at any time: node repair never replaces its nodes", p, b.Text),
					Fix:  "give the Unhealthy reason a budget of at least one node (e.g. nodes: \"10%\", reasons: [Unhealthy]), or a schedule when repair may run"})
				break
			}
		}
	}
	if failures == nil || failures.Kind != yaml.SequenceNode {
		return out
	}
	for i, f := range failures.Content {
		share, err := strconv.ParseFloat(manifest.Scalar(manifest.Lookup(f, "share")), 64)
		if err != nil || share*100 <= repairUnhealthyPercent {
			continue
		}
		if !failureHitsKarpenter(f) {
			continue
		}
		names, _ := manifest.Scalars(manifest.Lookup(f, "nodePools"))
		what := "every NodePool's nodes"
		if len(names) > 0 {
			what = fmt.Sprintf("the nodes of NodePool %v", names)
		}
		out = append(out, component.Warning{Code: "ineffective.repair-threshold", File: env.Scenario.File, Line: f.Line,
			Path: fmt.Sprintf("spec.nodeFailures[%d].share", i),
			Msg: fmt.Sprintf("share %v fails more than 20%% of %s at once: node repair stops for a NodePool with more than 20%% of its nodes unhealthy (KC repairUnhealthyThreshold, against correlated failures), so it replaces none of them while they stay more than 20%% (nodes launched for pods evicted from NotReady ones count towards the pool too)",
				share, what),
			Fix: "this is upstream's safety rule: expect the failed nodes to stay until fewer than 20% of the pool is unhealthy; a share of 0.2 or less is repaired"})
	}
	return out
}

// unhealthyBudget is the first pool's budget that names the Unhealthy
// reason, if any.
func unhealthyBudget(pools []NodePool) (*NodePool, *apis.Budget) {
	for i := range pools {
		for j := range pools[i].Disruption.Budgets {
			b := &pools[i].Disruption.Budgets[j]
			for _, r := range b.Reasons {
				if r == apis.ReasonUnhealthy {
					return &pools[i], b
				}
			}
		}
	}
	return nil, nil
}

// hitsKarpenter is the index of the first failure that may hit
// Karpenter's nodes, -1 for none (or no list).
func hitsKarpenter(failures *yaml.Node) int {
	if failures == nil || failures.Kind != yaml.SequenceNode {
		return -1
	}
	for i, f := range failures.Content {
		if failureHitsKarpenter(f) {
			return i
		}
	}
	return -1
}

// failureHitsKarpenter: the failure names NodePools, or no node group
// (it may hit any node).
func failureHitsKarpenter(f *yaml.Node) bool {
	pools, _ := manifest.Scalars(manifest.Lookup(f, "nodePools"))
	groups, _ := manifest.Scalars(manifest.Lookup(f, "nodeGroups"))
	return len(pools) > 0 || len(groups) == 0
}

// notReadyJoin is the index of the first market event whose join failure
// makes nodes register and never become Ready (mode registersNotReady)
// and may hit Karpenter's launches, -1 for none.
func notReadyJoin(env component.Env) int {
	if env.Scenario == nil {
		return -1
	}
	events := manifest.Lookup(env.Scenario.Node, "spec", "market", "events")
	if events == nil || events.Kind != yaml.SequenceNode {
		return -1
	}
	for i, e := range events.Content {
		jf := manifest.Lookup(e, "joinFailure")
		if jf != nil && manifest.Scalar(manifest.Lookup(jf, "mode")) == "registersNotReady" && failureHitsKarpenter(jf) {
			return i
		}
	}
	return -1
}
