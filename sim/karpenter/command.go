package karpenter

import (
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
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
	replacements []*claim
	replNodes    []cluster.NodeID
	// optTypes: the replacement's instance types, for re-validation.
	optTypes []int32
	deadline engine.Time
}

// start executes a command.
func (d *disrupter) start(cmd *command) {
	reason := cmd.method.stat()
	if len(cmd.replacements) == 0 {
		for _, c := range cmd.cands {
			d.term.startDeletion(c.kn, reason)
		}
		return
	}
	// The replacements are created before the candidates are marked for
	// deletion, so the candidates count against the limits (limits.go).
	usage := d.pools.usages()
	for _, c := range cmd.cands {
		c.kn.cmd, c.kn.inCommand = cmd, true
		d.base.nodeDirty(c.kn.id)
		d.cl.AddTaint(c.kn.id, cluster.Taint{Key: d.keyDisrupted, Effect: cluster.EffectNoSchedule})
	}
	for _, r := range cmd.replacements {
		id := cluster.NoNode
		if launchAllowed(r.pool, usage) {
			id = d.prov.launchClaim(r, cmd)
		}
		if id == cluster.NoNode {
			d.abort(cmd)
			return
		}
		cmd.replNodes = append(cmd.replNodes, id)
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
			ready = ready && kn.initialized
		}
		switch {
		case gone || (!ready && now >= cmd.deadline):
			d.release(cmd)
		case ready:
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
		if c.kn.cmd == cmd && !c.kn.deleting {
			c.kn.cmd, c.kn.inCommand = nil, false
			d.base.nodeDirty(c.kn.id)
			if d.cl.Nodes[c.kn.id].State != cluster.NodeGone {
				d.cl.RemoveTaint(c.kn.id, d.keyDisrupted, cluster.EffectNoSchedule)
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
