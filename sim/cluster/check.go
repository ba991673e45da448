package cluster

import (
	"fmt"
	"slices"
)

// CheckIndexes recomputes the cluster's derived copies of its own facts
// from the records they derive from and returns an error naming the
// first copy that drifted, where, and both values (nil: all agree). It is
// what sim run --check verifies every few thousand events. It changes
// nothing a model or a report reads; it only keeps, for the epoch check,
// what each node looked like at the previous call.
//
//   - live: the count of nodes not Gone.
//   - Node.Pods and Pod.nodeSlot: every pod on a node (Bound or Running)
//     is listed once, at its slot, on the node it names; every listed pod
//     is on that node; gone nodes list none.
//   - Node.PodRefs: the same length and order as Node.Pods, each the
//     listed pod's spec, creation time, namespace and terminating flag.
//   - Node.Requested and Node.ScoreRequested: the sums over the listed
//     pods.
//   - node epochs (nodeepoch.go): one per node; an epoch never goes back,
//     and a node whose name, labels, taints, cordon, state, zone or
//     allocatable changed since the previous call has a new epoch (an
//     epoch cannot be recomputed from scratch, only held to its contract
//     between two looks).
//   - the tracked PodDisruptionBudgets' counts and each pod's recorded
//     share (TrackPDBs).
//   - storage (volumes.go): the claim and volume name indexes, the
//     claim-volume bindings both ways, each claim's users, each volume's
//     node, pod count and waiting pods, each node's attached count, and
//     each pending pod's spec variant for its claims' pin.
func (c *Cluster) CheckIndexes() error {
	if err := c.checkNodes(); err != nil {
		return err
	}
	if err := c.checkEpochs(); err != nil {
		return err
	}
	if err := c.checkBudgets(); err != nil {
		return err
	}
	return c.checkVolumes()
}

func (c *Cluster) nodeName(id NodeID) string {
	return fmt.Sprintf("node %q (%d)", c.Nodes[id].Name, id)
}

func (c *Cluster) podName(id PodID) string {
	return fmt.Sprintf("pod %q (%d)", c.Pods[id].Name, id)
}

// checkNodes checks live, the nodes' pod lists, PodRefs and sums.
func (c *Cluster) checkNodes() error {
	live := 0
	for i := range c.Nodes {
		if c.Nodes[i].State != NodeGone {
			live++
		}
	}
	if live != c.live {
		return fmt.Errorf("cluster: live node count: have %d, want %d", c.live, live)
	}
	for i := range c.Nodes {
		id, n := NodeID(i), &c.Nodes[i]
		if n.State == NodeGone && len(n.Pods) > 0 {
			return fmt.Errorf("cluster: Node.Pods: %s is gone but lists %d pods", c.nodeName(id), len(n.Pods))
		}
		if len(n.PodRefs) != len(n.Pods) {
			return fmt.Errorf("cluster: Node.PodRefs: %s: have %d refs, want %d (one per pod in Pods)", c.nodeName(id), len(n.PodRefs), len(n.Pods))
		}
		var req Resources
		var score [2]int64
		for slot, pid := range n.Pods {
			if int(pid) < 0 || int(pid) >= len(c.Pods) {
				return fmt.Errorf("cluster: Node.Pods: %s slot %d: pod %d does not exist", c.nodeName(id), slot, pid)
			}
			p := &c.Pods[pid]
			if !p.Phase.OnNode() || p.Node != id {
				return fmt.Errorf("cluster: Node.Pods: %s slot %d lists %s, which is %s on node %d", c.nodeName(id), slot, c.podName(pid), p.Phase, p.Node)
			}
			if int(p.nodeSlot) != slot {
				return fmt.Errorf("cluster: Pod.nodeSlot: %s: have %d, want %d (its index in %s's Pods)", c.podName(pid), p.nodeSlot, slot, c.nodeName(id))
			}
			want := PodRef{Spec: p.Spec, Created: p.Created, UIDRank: p.UIDRank, Namespace: p.Namespace, Terminating: p.Terminating}
			if n.PodRefs[slot] != want {
				return fmt.Errorf("cluster: Node.PodRefs: %s slot %d (%s): have %+v, want %+v", c.nodeName(id), slot, c.podName(pid), n.PodRefs[slot], want)
			}
			req = req.Add(p.Spec.Requests)
			score[CPU] += p.Spec.ScoreCPU
			score[Memory] += p.Spec.ScoreMemory
		}
		if req != n.Requested {
			return fmt.Errorf("cluster: Node.Requested: %s: have %v, want %v (the sum over its pods)", c.nodeName(id), n.Requested, req)
		}
		if score != n.ScoreRequested {
			return fmt.Errorf("cluster: Node.ScoreRequested: %s: have %v, want %v (the sum over its pods)", c.nodeName(id), n.ScoreRequested, score)
		}
	}
	for i := range c.Pods {
		pid, p := PodID(i), &c.Pods[i]
		if !p.Phase.OnNode() {
			if p.nodeSlot != -1 {
				return fmt.Errorf("cluster: Pod.nodeSlot: %s is %s: have slot %d, want -1", c.podName(pid), p.Phase, p.nodeSlot)
			}
			continue
		}
		if p.Node < 0 || int(p.Node) >= len(c.Nodes) {
			return fmt.Errorf("cluster: Pod.Node: %s is %s on node %d, which does not exist", c.podName(pid), p.Phase, p.Node)
		}
		n := &c.Nodes[p.Node]
		if int(p.nodeSlot) >= len(n.Pods) || p.nodeSlot < 0 || n.Pods[p.nodeSlot] != pid {
			return fmt.Errorf("cluster: Node.Pods: %s is %s on %s but not listed at its slot %d", c.podName(pid), p.Phase, c.nodeName(p.Node), p.nodeSlot)
		}
	}
	return nil
}

// epochView is what a node's epoch stands for: everything of the node a
// cached per-node answer reads other than its pods and room.
type epochView struct {
	name          string
	nameSym       Sym
	labels        Labels
	taints        []Taint
	unschedulable bool
	state         NodeState
	zone          Sym
	allocatable   Resources
}

func epochViewOf(n *Node) epochView {
	return epochView{n.Name, n.NameSym, slices.Clone(n.Labels), slices.Clone(n.Taints), n.Unschedulable, n.State, n.Zone, n.Allocatable}
}

// diff names the first field of the view that differs from o ("" when
// none does).
func (v *epochView) diff(o *epochView) string {
	switch {
	case v.name != o.name || v.nameSym != o.nameSym:
		return "name"
	case !slices.Equal(v.labels, o.labels):
		return "labels"
	case !slices.Equal(v.taints, o.taints):
		return "taints"
	case v.unschedulable != o.unschedulable:
		return "cordon"
	case v.state != o.state:
		return "state"
	case v.zone != o.zone:
		return "zone"
	case v.allocatable != o.allocatable:
		return "allocatable"
	}
	return ""
}

// epochSeen is each node's epoch and view at the previous CheckIndexes.
type epochSeen struct {
	epoch uint32
	view  epochView
}

// checkEpochs holds each node's epoch to its contract since the previous
// call, then remembers the nodes as they are.
func (c *Cluster) checkEpochs() error {
	if len(c.epochs) != len(c.Nodes) {
		return fmt.Errorf("cluster: node epochs: have %d, want one per node (%d)", len(c.epochs), len(c.Nodes))
	}
	for i := range c.Nodes {
		if i >= len(c.seen) {
			break
		}
		id, s := NodeID(i), &c.seen[i]
		ep := c.epochs[i]
		if ep < s.epoch {
			return fmt.Errorf("cluster: node epochs: %s: went back from %d to %d", c.nodeName(id), s.epoch, ep)
		}
		if ep == s.epoch {
			view := epochViewOf(&c.Nodes[i])
			if f := view.diff(&s.view); f != "" {
				return fmt.Errorf("cluster: node epochs: %s: its %s changed (have %+v, was %+v) but its epoch stayed %d", c.nodeName(id), f, view, s.view, ep)
			}
		}
	}
	for i := range c.Nodes {
		if i < len(c.seen) && c.seen[i].epoch == c.epochs[i] {
			continue
		}
		s := epochSeen{epoch: c.epochs[i], view: epochViewOf(&c.Nodes[i])}
		if i < len(c.seen) {
			c.seen[i] = s
		} else {
			c.seen = append(c.seen, s)
		}
	}
	return nil
}

// checkBudgets recounts the tracked budgets and the pods' shares.
func (c *Cluster) checkBudgets() error {
	t := &c.budgets
	if len(t.list) == 0 {
		return nil
	}
	if len(t.share) != len(c.Pods) {
		return fmt.Errorf("cluster: PDB shares: have %d, want one per pod (%d)", len(t.share), len(c.Pods))
	}
	for i := range c.Pods {
		e, h := budgetShare(&c.Pods[i])
		if want := shareBits(e, h); t.share[i] != want {
			return fmt.Errorf("cluster: PDB shares: %s: have %02b, want %02b (bit 0 expected, bit 1 healthy)", c.podName(PodID(i)), t.share[i], want)
		}
	}
	for k := range t.list {
		tb := &t.list[k]
		expected, healthy := 0, 0
		for i := range c.Pods {
			if p := &c.Pods[i]; tb.pdb.Covers(c, p) {
				e, h := budgetShare(p)
				expected += e
				healthy += h
			}
		}
		if tb.expected != expected || tb.healthy != healthy {
			return fmt.Errorf("cluster: PDB counts: budget %s/%s: have expected %d healthy %d, want expected %d healthy %d",
				c.Syms.Name(tb.pdb.Namespace), tb.pdb.Name, tb.expected, tb.healthy, expected, healthy)
		}
	}
	return nil
}

// checkVolumes checks the storage state's indexes and counts.
func (c *Cluster) checkVolumes() error {
	v := c.vol
	if v == nil {
		return nil
	}
	keys := map[string]bool{}
	for i := range v.claims {
		id, cl := ClaimID(i), &v.claims[i]
		key := claimKey(cl.Namespace, cl.Name, c.Syms)
		keys[key] = true
		// A claim recreated under a gone one's name takes the index.
		if got, ok := v.claimIdx[key]; !ok || got < id || got >= ClaimID(len(v.claims)) ||
			claimKey(v.claims[got].Namespace, v.claims[got].Name, c.Syms) != key {
			return fmt.Errorf("cluster: claim index: %s: have %d (found %v), want %d or a later claim of that name", key, got, ok, id)
		}
		if cl.Volume != NoVolume && (int(cl.Volume) >= len(v.vols) || v.vols[cl.Volume].Claim != id) {
			return fmt.Errorf("cluster: claim binding: claim %s is bound to volume %d, which is not bound to it", key, cl.Volume)
		}
	}
	if len(keys) != len(v.claimIdx) {
		return fmt.Errorf("cluster: claim index: have %d names, want %d", len(v.claimIdx), len(keys))
	}
	if len(v.volIdx) != len(v.vols) {
		return fmt.Errorf("cluster: volume index: have %d names, want %d", len(v.volIdx), len(v.vols))
	}
	for i := range v.vols {
		vid, vol := VolumeID(i), &v.vols[i]
		if got, ok := v.volIdx[vol.Name]; !ok || got != vid {
			return fmt.Errorf("cluster: volume index: %s: have %d (found %v), want %d", vol.Name, got, ok, vid)
		}
		if vol.Claim != NoClaim && (int(vol.Claim) >= len(v.claims) || v.claims[vol.Claim].Volume != vid) {
			return fmt.Errorf("cluster: claim binding: volume %s is bound to claim %d, which is not bound to it", vol.Name, vol.Claim)
		}
	}

	// Users, and each attachable volume's pods on a node, with
	// multiplicity (a pod naming a claim twice uses it twice).
	users := make([][]PodID, len(v.claims))
	onVol := make([]map[PodID]int32, len(v.vols)) // pods on a node using it
	for i := range c.Pods {
		pid, p := PodID(i), &c.Pods[i]
		for _, cid := range v.podClaims[pid] {
			if !p.Phase.Terminal() {
				users[cid] = append(users[cid], pid)
			}
			if vid := v.claims[cid].Volume; vid != NoVolume && p.Phase.OnNode() && v.vols[vid].Attach {
				if onVol[vid] == nil {
					onVol[vid] = map[PodID]int32{}
				}
				onVol[vid][pid]++
			}
		}
	}
	for i := range v.claims {
		if cl := &v.claims[i]; !slices.Equal(cl.users, users[i]) {
			return fmt.Errorf("cluster: claim users: claim %s: have %v, want %v (its live pods)", c.ClaimName(ClaimID(i)), cl.users, users[i])
		}
	}
	attached := make([]int32, len(c.Nodes))
	for i := range v.vols {
		vol := &v.vols[i]
		if !vol.Attach {
			if vol.Node != NoNode || vol.pods != 0 || len(vol.waiting) > 0 {
				return fmt.Errorf("cluster: volume attachment: volume %s does not attach but has node %d, %d pods, waiting %v", vol.Name, vol.Node, vol.pods, vol.waiting)
			}
			continue
		}
		if vol.Node != NoNode && !vol.held {
			attached[vol.Node]++
		}
		waiting := map[PodID]int32{}
		for _, pid := range vol.waiting {
			waiting[pid]++
		}
		var here int32
		for _, pid := range sortedPods(onVol[i]) {
			uses, w := onVol[i][pid], waiting[pid]
			p := &c.Pods[pid]
			switch {
			case vol.Node == NoNode:
				return fmt.Errorf("cluster: volume attachment: volume %s is attached nowhere while %s on %s uses it", vol.Name, c.podName(pid), c.nodeName(p.Node))
			case p.Node == vol.Node && w != 0:
				return fmt.Errorf("cluster: volume waiting pods: volume %s: %s waits for it on %s, where it is attached", vol.Name, c.podName(pid), c.nodeName(p.Node))
			case p.Node != vol.Node && w != uses:
				return fmt.Errorf("cluster: volume waiting pods: volume %s, attached to node %d: %s on %s: have %d waits, want %d", vol.Name, vol.Node, c.podName(pid), c.nodeName(p.Node), w, uses)
			case p.Node == vol.Node:
				here += uses
			}
			delete(waiting, pid)
		}
		if len(waiting) > 0 {
			return fmt.Errorf("cluster: volume waiting pods: volume %s: waiting %v lists pods not on a node using it", vol.Name, sortedPods(waiting))
		}
		if vol.pods != here {
			return fmt.Errorf("cluster: volume pod count: volume %s on node %d: have %d, want %d", vol.Name, vol.Node, vol.pods, here)
		}
	}
	for i := range c.Nodes {
		if have := c.AttachedVolumes(NodeID(i)); have != attached[i] {
			return fmt.Errorf("cluster: attached volumes: %s: have %d, want %d", c.nodeName(NodeID(i)), have, attached[i])
		}
	}
	for i := len(c.Nodes); i < len(v.attached); i++ {
		if v.attached[i] != 0 {
			return fmt.Errorf("cluster: attached volumes: node %d does not exist but has %d", i, v.attached[i])
		}
	}

	// Pending pods carry the variant of their claims' pin.
	for variant, base := range v.base {
		m := v.variants[base]
		if variant.Volume == nil || m == nil || m[variant.Volume.key()] != variant {
			return fmt.Errorf("cluster: spec variants: a variant of a spec of pod labels %v is not the variant of its pin", base.Labels)
		}
	}
	for i := range c.Pods {
		pid, p := PodID(i), &c.Pods[i]
		claims, ok := v.podClaims[pid]
		if !ok || p.Phase != Pending {
			continue
		}
		base := c.TemplateSpec(p.Spec)
		pin := v.pinOf(claims)
		want := base
		if !pin.zero() {
			want = v.variants[base][pin.key()]
		}
		if p.Spec != want {
			have := "none"
			if p.Spec.Volume != nil {
				have = p.Spec.Volume.key()
			}
			return fmt.Errorf("cluster: volume pins: pending %s: have pin %s, want %s", c.podName(pid), have, pin.key())
		}
	}
	return nil
}

func sortedPods(m map[PodID]int32) []PodID {
	out := make([]PodID, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
