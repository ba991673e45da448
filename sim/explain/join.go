package explain

import (
	"fmt"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/trace"
)

// slowJoin is how long a join takes before the story calls it slow: past
// the launch latencies' tails (docs/models.md "Spot market": Ready in
// 30 s to 4 min).
const slowJoin = 5 * 60.0

// joinNote says what became of a node launched for the pod when it did not
// simply join: it never joined and who removed it after which timeout, it
// was still joining when removed, or it joined late.
func joinNote(sc *scenario.Scenario, n *cluster.Node, entries []trace.Entry) string {
	never := false
	for _, e := range entries {
		if e.Kind == "nodeLaunched" && e.Node == n.Name {
			never = e.Message == trace.NeverJoins
			if e.Message == trace.NeverReady {
				return notReadyNote(sc, n)
			}
			break
		}
	}
	launched := n.Launched.Seconds()
	joined := n.State == cluster.NodeReady || (n.State == cluster.NodeGone && n.Ready > 0)
	if joined {
		if took := n.Ready.Seconds() - launched; took > slowJoin {
			return fmt.Sprintf("; it joined only %s later (a slow bootstrap)", fmtTime(took))
		}
		return ""
	}
	why := "; it never joined the cluster (its bootstrap failed: the kubelet never registered)"
	if !never {
		why = "; it had not joined yet (a slow bootstrap)"
	}
	if n.State != cluster.NodeGone {
		if never {
			return why + " and was still unregistered at the end" + keptNote(sc, n)
		}
		return ""
	}
	// A node removed while joining for another reason (a spot reclaim)
	// before the timeout is not a join story.
	je, cfg := joinExplainer(sc, n)
	var timeout time.Duration
	if je != nil {
		timeout = je.JoinTimeout(cfg)
	}
	if (n.Deleted - n.Launched) < timeout {
		if never {
			return why + fmt.Sprintf(", and was removed at %s", fmtTime(n.Deleted.Seconds()))
		}
		return ""
	}
	if je != nil {
		return je.GaveUp(cfg, n, why, fmtTime)
	}
	return fmt.Sprintf("%s, and was removed at %s", why, fmtTime(n.Deleted.Seconds()))
}

// keptNote says why an unregistered node of the Cluster Autoscaler stayed.
func keptNote(sc *scenario.Scenario, n *cluster.Node) string {
	if je, _ := joinExplainer(sc, n); je != nil {
		return je.KeptUnregistered(n)
	}
	return ""
}

// commandThatTook is the disruption command (disruptionCommand entry) that
// began node's deletion by t: the last of its commands to start deleting
// (a command without replacements when it starts, one with them when it
// completes), unless a later one of them was aborted; ok false if none.
func commandThatTook(entries []trace.Entry, node string, t float64) (trace.Entry, bool) {
	var last trace.Entry
	found := false
	for _, e := range entries {
		if e.T > t {
			break
		}
		if e.Kind != "disruptionCommand" || !hasCandidate(e, node) {
			continue
		}
		switch {
		case e.Phase == "completed", e.Phase == "started" && len(e.Replacements) == 0:
			last, found = e, true
		case e.Phase == "aborted":
			found = false
		}
	}
	return last, found
}

func hasCandidate(e trace.Entry, node string) bool {
	for _, c := range e.Candidates {
		if c.Node == node {
			return true
		}
	}
	return false
}

// disruptedNote says why the pod's node went, when a disruption command
// took it (a pod deleted with it, drained or gone).
func disruptedNote(entries []trace.Entry, del trace.Entry) string {
	if del.Node == "" || del.Cause != "evicted" && del.Cause != "nodeGone" && del.Cause != "taintEvicted" {
		return ""
	}
	if e, ok := commandThatTook(entries, del.Node, del.T); ok {
		return "; " + karpenterDisruption(e, del.Node)
	}
	return ""
}

// goneNote says why a node launched for the pod went, when a disruption
// command took it.
func goneNote(n *cluster.Node, entries []trace.Entry) string {
	if n.State != cluster.NodeGone {
		return ""
	}
	if e, ok := commandThatTook(entries, n.Name, n.Deleted.Seconds()); ok {
		return fmt.Sprintf("; at %s %s", fmtTime(e.T), karpenterDisruption(e, n.Name))
	}
	return ""
}

// UnreadyExplainer is a component that says what it does with a node that
// registered and never became Ready (its own timeouts and deletions).
type UnreadyExplainer interface {
	// Unready completes why with what became of node: removed (by whom,
	// after which timeout) or kept to the end, and why.
	Unready(cfg component.Config, node *cluster.Node, why string, at func(seconds float64) string) string
}

// notReadyNote is the story of a node launched for the pod that
// registered but never became Ready.
func notReadyNote(sc *scenario.Scenario, n *cluster.Node) string {
	why := fmt.Sprintf("; it registered at %s but never became Ready (Ready=False, tainted %s: no pod can land there)",
		fmtTime(n.ConditionSince.Seconds()), cluster.TaintNotReady)
	name := n.Owner.String()
	c, ok := component.Lookup(name)
	cfg, runs := sc.Components.Get(name)
	if ue, is := c.(UnreadyExplainer); ok && runs && is {
		return ue.Unready(cfg, n, why, fmtTime)
	}
	if n.State == cluster.NodeGone {
		return why + fmt.Sprintf(", and was removed at %s", fmtTime(n.Deleted.Seconds()))
	}
	return why + " and was still NotReady at the end"
}
