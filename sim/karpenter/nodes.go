package karpenter

import (
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// nodeTracker keeps Karpenter's records of its nodes (its NodeClaims), as
// upstream's cluster state does.
type nodeTracker struct {
	env
	// byID has Karpenter's nodes by NodeID (nil for others).
	byID       []*knode
	live       []*knode // the non-nil entries of byID, by ID
	byInstance map[cloud.InstanceID]cluster.NodeID
	nodeSeq    int // NodeClaims created, for their names
	// adopted holds the names of adopted nodes (Adopt), which new
	// NodeClaims' names skip.
	adopted map[string]bool
	// idx is the same nodes as solves read them.
	idx *scheduling.NodeIndex
}

// knode is one of Karpenter's nodes (its NodeClaim).
type knode struct {
	scheduling.Node
	instance cloud.InstanceID
	// set: its reschedulable pods prepared for consolidation solves
	// (pass.go), while they stay the same.
	set *scheduling.PodSet
	// scan is what the disruption passes read of its pods, kept until a
	// pod is bound, leaves or starts terminating (scanValid).
	scan      podScan
	scanValid bool
	// podEventSet: lastPodEvent is a recorded pod event (notePodEvent),
	// not the time the node was initialized.
	podEventSet    bool
	consolidatable bool
	// poolHash and classHash are the pool's template and node class
	// hashes at launch, for drift.
	poolHash, classHash uint64
	driftedAt           engine.Time
	drifted             bool
	// exportDrift: an adopted node's NodeClaim was Drifted in the export
	// since exportDriftAt (before the start, so negative): the drift
	// order goes on from it.
	exportDrift   bool
	exportDriftAt engine.Time
	// doNotDisrupt: the node itself carries karpenter.sh/do-not-disrupt:
	// "true" (an imported node annotated by hand; a NodePool's template
	// annotation is its Spec.DoNotDisrupt).
	doNotDisrupt bool
	// repairBlocked: repair left the node for the 20% rule (counted once).
	repairBlocked  bool
	driftChecked   *apis.NodePool
	nominatedUntil engine.Time
	tgpDeadline    engine.Time
	// bufferPods: virtual CapacityBuffer pods the last provisioning solve
	// placed here (buffers.go).
	bufferPods int32
	// deletingSince is when its deletion started (the drain's minimum
	// time counts from it); instanceEnded: drained, its instance
	// terminated, the node waits for the termination to be seen.
	deletingSince   engine.Time
	instanceEnded   bool
	instanceEndedAt engine.Time
	// cmd is the disruption command the node is a candidate of, waiting
	// for its replacements (schedNode.inCommand says whether there is one).
	cmd *command
	// replacementOf is the command this node replaces nodes for.
	replacementOf *command
	drainTimer    engine.Timer
	drainBackoff  time.Duration
	regTimer      engine.Timer
	expireTimer   engine.Timer
	// expiresAt is when its NodeClaim expires, if expires (its own
	// expireAfter from its creation).
	expiresAt engine.Time
	expires   bool
}

func (nt *nodeTracker) get(id cluster.NodeID) *knode {
	if int(id) < len(nt.byID) {
		return nt.byID[id]
	}
	return nil
}

func (nt *nodeTracker) podOnDeletingNode(id cluster.PodID) bool { return nt.idx.PodOnDeletingNode(id) }

// add records a new node.
func (nt *nodeTracker) add(kn *knode) {
	for int(kn.ID) >= len(nt.byID) {
		nt.byID = append(nt.byID, nil)
	}
	nt.byID[kn.ID] = kn
	nt.live = append(nt.live, kn) // IDs only grow: live stays sorted
	nt.byInstance[kn.instance] = kn.ID
	nt.idx.Add(&kn.Node)
}

// remove forgets a node.
func (nt *nodeTracker) remove(kn *knode) {
	delete(nt.byInstance, kn.instance)
	nt.idx.Remove(&kn.Node)
	nt.byID[kn.ID] = nil
	for i, o := range nt.live {
		if o == kn {
			nt.live = append(nt.live[:i], nt.live[i+1:]...)
			break
		}
	}
}

// newName names a new NodeClaim of the pool: the pool's name and a
// sequence number in the NodeClaim name alphabet, skipping the names of
// adopted nodes (an imported cluster's NodeClaims are named so too).
func (nt *nodeTracker) newName(pool string) string {
	for {
		nt.nodeSeq++
		if name := pool + "-" + scheduling.NodeNameSuffix(nt.nodeSeq); !nt.adopted[name] {
			return name
		}
	}
}

// podEventDedupe is KC podevents' dedupeTimeout: a pod event less than
// this after the recorded one is not recorded.
const podEventDedupe = 10 * time.Second

// notePodEvent records a pod event on the node (KC nodeclaim podevents
// controller: a pod bound to it, gone terminal, or terminating; DaemonSet
// pods do not count), unless one was recorded less than podEventDedupe
// ago.
func (kn *knode) notePodEvent(now engine.Time) {
	if kn.podEventSet && now-kn.LastPodEvent < podEventDedupe {
		return
	}
	kn.LastPodEvent, kn.podEventSet = now, true
}
