package karpenter

import (
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// staticDrift replaces the drifted nodes of static NodePools (KC
// StaticDrift, v1.15.0): per pool, once the pool is not over its replicas
// (active and pending-disruption nodes), as many as its Drifted budget
// and limits.nodes allow, each by one new NodeClaim of the pool launched
// first (scheduling.StaticClaim: no pods are simulated, the pool keeps
// its count). A pool at its node limit cannot stage a replacement: its
// drifted nodes wait, or, with the TerminateFirstDrift gate, as many as
// the budget allows are deleted first (delete-only commands, KC
// unreplaceableCommands) and the static controller refills the pool once
// each is gone. Its commands start at once, without validation, one per
// candidate, all those of a pass together.
type staticDrift struct{ d *disrupter }

func (sd *staticDrift) shouldDisrupt(kn *knode, _ bool) bool {
	return kn.Pool.Spec.Static && (&drift{d: sd.d}).drifted(kn)
}

func (sd *staticDrift) computeCommand(budget map[*scheduling.Pool]int, cs []*candidate) *command {
	d := sd.d
	var first *command
	for _, p := range d.pools.All { // by name (upstream: map order)
		var cands []*candidate
		for _, c := range cs {
			if c.kn.Pool == p {
				cands = append(cands, c)
			}
		}
		if len(cands) == 0 || budget[p] == 0 {
			continue
		}
		n := d.static.counts(p)
		if n.active+n.pending > p.Spec.Replicas {
			continue // a scale-down is still under way
		}
		maxDrifts := min(int64(budget[p]), int64(len(cands)))
		room := nodeLimit(p) - (n.active + n.deleting + n.pending)
		terminateFirst := room <= 0 && d.settings.TerminateFirstDrift
		take := min(maxDrifts, room)
		if terminateFirst {
			take = maxDrifts
		}
		for _, c := range cands[:max(take, 0)] {
			cmd := &command{method: sd, cands: []*candidate{c}}
			if !terminateFirst {
				cmd.replacements = []*scheduling.Claim{d.pools.StaticClaim(p)}
			}
			if first == nil {
				first = cmd
			} else {
				first.siblings = append(first.siblings, cmd)
			}
		}
	}
	return first
}

func (sd *staticDrift) reason() apis.Reason                { return apis.ReasonDrifted }
func (sd *staticDrift) stat() string                       { return reasonDrifted }
func (sd *staticDrift) name() string                       { return "static drift" }
func (sd *staticDrift) class() disruptionClass             { return eventual }
func (sd *staticDrift) consolidationState() *consolidation { return nil }

// validate is never asked: its commands start at once.
func (sd *staticDrift) validate(*command, []*candidate) bool { return true }
