package karpenter

// terminator deletes Karpenter's nodes (KC termination controller): taint,
// drain through the eviction API within the grace period, terminate. It
// also runs the forceful deletions, expiration and interruption, that go
// around the disruption controller and its budgets.
type terminator struct {
	env
	offerings *offerings
	nodes     *nodeTracker
	base      *existingBase
	prov      *provisioner
	dis       *disrupter
}
