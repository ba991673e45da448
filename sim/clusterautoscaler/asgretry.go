package clusterautoscaler

import (
	"time"

	"github.com/clustersim/clustersim/sim/engine"
)

// The ASG's own retries. An ASG asked for N more instances launches what
// EC2 gives and keeps retrying the rest on its own until its desired
// capacity is met or lowered (AWS re:Post, "EKS insufficient capacity
// errors": "If EC2 Auto Scaling is unable to provision an instance due to
// insufficient capacity, it will retry until an instance becomes
// available"). Here a failed launch leaves a placeholder (the desired
// capacity it did not meet) and the group retries its placeholders after
// asgRetryFirst, then at doubling intervals up to asgRetryMax, each retry
// one launch per placeholder. The Cluster Autoscaler lowers the desired
// capacity when its next ASG refresh reveals the placeholders as failed
// (handleCreationErrors); the retries stop then. The intervals are an
// assumption: AWS does not publish them.
const (
	asgRetryFirst = 10 * time.Second
	asgRetryMax   = 5 * time.Minute
)

// asgRetryLater schedules the group's next retry unless one is pending.
func (cs *clusterState) asgRetryLater(g *group) {
	if cs.eng.Pending(g.retry) {
		return
	}
	if g.retryEvery == 0 {
		g.retryEvery = asgRetryFirst
	}
	g.retry = cs.eng.After(g.retryEvery, engine.Event{Handler: cs.id, Kind: evASGRetry, Obj: int32(g.idx)})
}

// asgRetry is the ASG retrying the launches it owes: one launch per
// placeholder still unrevealed. A launch that fails again leaves its
// placeholder and the next retry waits twice as long.
func (cs *clusterState) asgRetry(g *group) {
	g.retry = engine.Timer{}
	n := len(g.placeholders)
	if n == 0 {
		g.retryEvery = 0 // met or lowered
		return
	}
	g.retryEvery = min(2*g.retryEvery, asgRetryMax)
	for range n {
		g.placeholders = g.placeholders[1:]
		cs.stats.asgRetries++
		g.stats.ASGRetries++
		cs.launch(g, launchScaleUp, nil) // on failure it leaves a placeholder and reschedules
	}
	if len(g.placeholders) == 0 {
		g.retryEvery = 0
	}
}
