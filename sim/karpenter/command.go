package karpenter

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// Commands: a method's decision, started at once (drift) or after
// validation. Without replacements the candidates are deleted at once;
// with them the candidates are tainted and wait (running) until the
// replacements are initialized, then deleted, or released when a
// replacement fails or ReplacementTimeout passes (KC orchestration
// queue).

// command is one disruption decision.
type command struct {
	method       method
	cands        []*candidate
	replacements []*scheduling.Claim
	replNodes    []cluster.NodeID
	// optTypes: the replacement's instance types, for re-validation.
	optTypes []int32
	deadline engine.Time
	// told: what the disruptionCommand entries say of the command that
	// does not change with its phase, set at the decision when someone
	// listens (commandevents.go).
	told *component.DisruptionCommand
	// scores are its Balanced pools' scores (approve), for its events.
	scores []poolScore
	// siblings are the other commands its method decided in the same
	// pass (staticDrift: one per candidate), started with it.
	siblings []*command
}

// start executes a command.
func (d *disrupter) start(cmd *command) {
	reason := cmd.method.stat()
	if len(cmd.replacements) == 0 {
		if d.onCommand != nil {
			d.tell(cmd, phaseStarted, "")
		}
		for _, c := range cmd.cands {
			d.term.startDeletion(c.kn, reason)
		}
		return
	}
	// The replacements are created before the candidates are marked for
	// deletion, so the candidates count against the limits (limits.go).
	usage := d.pools.Usages()
	for _, c := range cmd.cands {
		c.kn.cmd, c.kn.InCommand = cmd, true
		d.base.NodeDirty(c.kn.ID)
		d.cl.AddTaint(c.kn.ID, cluster.Taint{Key: d.keyDisrupted, Effect: cluster.EffectNoSchedule})
	}
	for _, r := range cmd.replacements {
		id := cluster.NoNode
		if scheduling.LaunchAllowed(r.Pool, usage) {
			id = d.prov.launchClaim(r, cmd)
		}
		if id == cluster.NoNode {
			if d.onCommand != nil {
				d.tell(cmd, phaseAborted, launchFailedWords(r))
			}
			d.abort(cmd)
			return
		}
		cmd.replNodes = append(cmd.replNodes, id)
	}
	if d.onCommand != nil {
		d.tell(cmd, phaseStarted, "")
	}
	cmd.deadline = d.eng.Now() + d.settings.ReplacementTimeout
	d.running = append(d.running, cmd)
	d.eng.Schedule(cmd.deadline, engine.Event{Handler: d.id, Kind: evCommandCheck})
}

// checkCommands deletes the candidates of commands whose replacements are
// all initialized, and abandons those past their deadline or whose
// replacement is gone.
func (d *disrupter) checkCommands() {
	now := d.eng.Now()
	var keep []*command
	for _, cmd := range d.running {
		ready, gone := true, false
		for _, id := range cmd.replNodes {
			kn := d.nodes.get(id)
			if kn == nil {
				gone = true
				break
			}
			ready = ready && kn.Initialized
		}
		switch {
		case gone || (!ready && now >= cmd.deadline):
			if d.onCommand != nil {
				d.tell(cmd, phaseAborted, d.abortWords(gone))
			}
			d.release(cmd)
		case ready:
			if d.onCommand != nil {
				d.tell(cmd, phaseCompleted, "")
			}
			for _, c := range cmd.cands {
				if c.kn.cmd == cmd {
					d.term.startDeletion(c.kn, cmd.method.stat())
				}
			}
		default:
			keep = append(keep, cmd)
		}
	}
	d.running = keep
}

// release untaints the candidates that are still waiting.
func (d *disrupter) release(cmd *command) {
	for _, c := range cmd.cands {
		if c.kn.cmd == cmd && !c.kn.Deleting {
			c.kn.cmd, c.kn.InCommand = nil, false
			d.base.NodeDirty(c.kn.ID)
			if d.cl.Nodes[c.kn.ID].State != cluster.NodeGone {
				d.cl.RemoveTaint(c.kn.ID, d.keyDisrupted, cluster.EffectNoSchedule)
			}
		}
	}
}

// abort releases a command and drops it from the running list.
func (d *disrupter) abort(cmd *command) {
	d.release(cmd)
	var keep []*command
	for _, c := range d.running {
		if c != cmd {
			keep = append(keep, c)
		}
	}
	d.running = keep
}
