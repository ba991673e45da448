package karpenter

import (
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
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
	// antiBound counts bound pods with required anti-affinity.
	antiBound int
}
