package karpenter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// The disruption commands as the --events timeline tells them
// (disruptionCommand entries): each moment of a command, with its method,
// candidates, replacements and the budgets that allowed it. Nothing here
// runs unless someone listens (disrupter.onCommand), and nothing here
// changes a command.

// OnDisruptionCommand makes Karpenter tell each moment of its disruption
// commands: decided (disrupter.disruptionPass), invalidated
// (validatePending), started and aborted (start), completed and aborted
// (checkCommands). Off (nil) by default.
func (k *Karpenter) OnDisruptionCommand(f func(component.DisruptionCommand)) { k.dis.onCommand = f }

// The phases of a command.
const (
	phaseDecided     = "decided"
	phaseStarted     = "started"
	phaseInvalidated = "invalidated"
	phaseAborted     = "aborted"
	phaseCompleted   = "completed"
)

// tell reports a moment of cmd to onCommand (set).
func (d *disrupter) tell(cmd *command, phase, why string) {
	if cmd.told == nil {
		d.describe(cmd)
	}
	e := *cmd.told
	e.Phase, e.Why = phase, why
	e.Candidates = make([]component.DisruptionNode, 0, len(cmd.cands))
	for _, c := range cmd.cands {
		e.Candidates = append(e.Candidates, component.DisruptionNode{
			Node: d.cl.Nodes[c.kn.ID].Name, Pool: c.kn.Pool.Spec.Name,
			InstanceType: c.kn.Offering.InstanceType, CapacityType: c.kn.Offering.CapacityType.String(),
			Pods: len(c.pods),
		})
	}
	d.onCommand(e)
}

// describe sets what the entries say of cmd whatever the phase: its
// method, reason, replacements and budgets.
func (d *disrupter) describe(cmd *command) {
	cmd.told = &component.DisruptionCommand{Method: cmd.method.name(), Reason: cmd.method.stat()}
	for _, r := range cmd.replacements {
		cmd.told.Replacements = append(cmd.told.Replacements, d.replacementOf(r))
	}
	d.decideBudgets(cmd)
	for _, sc := range cmd.scores {
		cmd.told.Scores = append(cmd.told.Scores, component.DisruptionScore{Pool: sc.pool.Spec.Name, Score: sc.score(),
			Threshold: 1.0 / apis.BalancedK, SavingsPct: 100 * sc.savings, DisruptionPct: 100 * sc.disruption})
	}
}

// replacementOf describes a replacement NodeClaim: its pool, capacity
// types and instance types, cheapest first (SortedOptions' order, on a
// copy: the claim is left as it is).
func (d *disrupter) replacementOf(c *scheduling.Claim) component.DisruptionReplacement {
	var cts []string
	for _, ct := range []int{scheduling.SpotIndex, scheduling.OnDemandIndex} {
		if c.OfferingMask&d.offerings.CapacityTypeBits(ct) != 0 {
			cts = append(cts, scheduling.CapacityTypeOf(ct).String())
		}
	}
	type opt struct {
		name  string
		price float64
	}
	opts := make([]opt, len(c.Options))
	for i, pos := range c.Options {
		t := c.Pool.Types[pos].Type
		opts[i] = opt{t.Name, d.offerings.Cheapest(c.Pool, t, c.OfferingMask)}
	}
	sort.Slice(opts, func(i, j int) bool {
		if opts[i].price != opts[j].price {
			return opts[i].price < opts[j].price
		}
		return opts[i].name < opts[j].name
	})
	r := component.DisruptionReplacement{Pool: c.Pool.Spec.Name, CapacityType: strings.Join(cts, ","), Options: len(opts)}
	for _, o := range opts[:min(len(opts), component.MaxReplacementTypes)] {
		r.InstanceTypes = append(r.InstanceTypes, o.name)
	}
	return r
}

// decideBudgets sets cmd's budgets as they are now, before its
// candidates count as disrupting: per pool of its candidates, in their
// order, the budget that sets the pool's allowance for the method's
// reason, and that allowance.
func (d *disrupter) decideBudgets(cmd *command) {
	if cmd.told == nil {
		d.describe(cmd)
		return
	}
	reason := cmd.method.reason()
	left := d.budgets(reason)
	num := map[*scheduling.Pool]int{}
	for _, kn := range d.nodes.live {
		if kn.Initialized {
			num[kn.Pool]++
		}
	}
	wall := d.wall(d.eng.Now())
	cmd.told.Budgets = nil
	seen := map[*scheduling.Pool]bool{}
	for _, c := range cmd.cands {
		p := c.kn.Pool
		if seen[p] {
			continue
		}
		seen[p] = true
		b := component.DisruptionBudget{Pool: p.Spec.Name, Allowed: -1}
		if bb := p.Spec.Disruption.Binding(wall, num[p], reason); bb != nil {
			b.Nodes = budgetNodes(bb.Nodes)
			for _, r := range bb.Reasons {
				b.Reasons = append(b.Reasons, r.String())
			}
			if bb.Schedule != nil {
				b.Schedule = bb.Schedule.String() + " for " + bb.Duration.String()
			}
			b.Allowed = left[p]
		}
		cmd.told.Budgets = append(cmd.told.Budgets, b)
	}
}

// budgetNodes writes a budget's nodes as NodePools do: "10%", "1".
func budgetNodes(v cluster.IntOrPercent) string {
	if v.Percent {
		return fmt.Sprintf("%d%%", v.Value)
	}
	return fmt.Sprint(v.Value)
}

// invalidation is what turned a command down at validation.
type invalidation struct {
	what invalidReason
	kn   *knode // the candidate concerned, if one is
}

type invalidReason uint8

const (
	valid invalidReason = iota
	notCandidate
	noBudget
	methodDisagrees
)

// words says why, for the invalidated entry.
func (v invalidation) words(d *disrupter, cmd *command) string {
	var node, pool string
	if v.kn != nil {
		node, pool = d.cl.Nodes[v.kn.ID].Name, v.kn.Pool.Spec.Name
	}
	switch v.what {
	case notCandidate:
		return fmt.Sprintf("node %s is no longer a candidate of %s: %s", node, cmd.method.name(), d.whyNotCandidate(v.kn))
	case noBudget:
		return fmt.Sprintf("NodePool %s's disruption budgets leave no room for reason %s", pool, cmd.method.reason())
	case methodDisagrees:
		if len(cmd.replacements) > 0 {
			return "the consolidation no longer holds: the candidates' pods no longer fit on the same replacement"
		}
		return "the consolidation no longer holds: the candidates' pods no longer fit on the rest of the cluster without a replacement"
	}
	return ""
}

// whyNotCandidate guesses, from what the node's record says (reading
// only), why a candidate no longer is one.
func (d *disrupter) whyNotCandidate(kn *knode) string {
	pa := kn.Pool.Spec.Disruption
	switch {
	case d.nodes.get(kn.ID) == nil:
		return "it is gone"
	case kn.Deleting:
		return "it is being deleted"
	case kn.Pool.Spec.DoNotDisrupt:
		return "its NodePool no longer lets Karpenter disrupt it"
	case kn.doNotDisrupt:
		return "it carries karpenter.sh/do-not-disrupt"
	case !pa.ConsolidateNever && d.eng.Now()-kn.LastPodEvent < pa.ConsolidateAfter:
		return fmt.Sprintf("a pod event at %s restarted its consolidateAfter (%s)", fmtSecs(kn.LastPodEvent), pa.ConsolidateAfter)
	}
	return "its pods changed, or a do-not-disrupt pod or a PodDisruptionBudget blocks it"
}

// launchFailedWords: a replacement got no node (its pool's limits, or the
// launch failed).
func launchFailedWords(r *scheduling.Claim) string {
	return fmt.Sprintf("the replacement from NodePool %s could not launch (its limits, or no offering launched)", r.Pool.Spec.Name)
}

// abortWords: a running command was given up.
func (d *disrupter) abortWords(gone bool) string {
	if gone {
		return "a replacement node went away before it was initialized"
	}
	return fmt.Sprintf("the replacements were not initialized within %s (replacement timeout)", d.settings.ReplacementTimeout)
}
