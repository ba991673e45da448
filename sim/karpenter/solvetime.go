package karpenter

import (
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// The solve-time model of the provisioner (Settings.ComputeTime),
// fitted on upstream Karpenter's own Scheduler.Solve (sigs.k8s.io/karpenter
// v1.14.1, 5 workers) timed on this project's machine class by the
// fidelity harness (cd fidelity && go run ./cmd/fidelity -timing, then
// -fit; the grid, the figures and the fit's error are in
// docs/performance.md, "Controllers that take time"). A solve of P pods
// takes, summed over its pods,
//
//	PerPod + PerPodType x T + PerPodPair x P + PerPodNode x E   (of the pod's class)
//
// where T is the instance types the NodePools allow (summed over pools),
// E the live nodes of the cluster (each pod tries every existing node
// before new NodeClaims) and the P term the NodeClaims of the batch each
// pod tries, which grow with the batch. The class is pod affinity or
// anti-affinity if the pod has either, else topology spread if it has
// spread constraints, else plain; the per-node cost of spread and
// affinity pods is one figure (the grid times it for spread pods only).
// The fit's error: 21% (rms) on plain pods, 48% with zone spread, 59%
// with hostname anti-affinity.
const (
	SolvePlainPerPod     = 24 * time.Microsecond
	SolvePlainPerPodType = 255 * time.Nanosecond
	SolvePlainPerPodPair = 36 * time.Nanosecond

	SolveSpreadPerPod     = 55 * time.Microsecond
	SolveSpreadPerPodType = 966 * time.Nanosecond
	SolveSpreadPerPodPair = 98 * time.Nanosecond

	SolveAffinityPerPod     = 0
	SolveAffinityPerPodType = 7347 * time.Nanosecond
	SolveAffinityPerPodPair = 434 * time.Nanosecond

	SolvePerPodNode            = 801 * time.Nanosecond
	SolveConstrainedPerPodNode = 1014 * time.Nanosecond
)

// solveTime is the virtual time upstream's solve of these pods takes.
func (pr *provisioner) solveTime(pods []cluster.PodID) time.Duration {
	total, _ := pr.solveCosts(pods)
	return total
}

// solveCosts is solveTime and what one try of each class of pod takes
// in that solve (perPod, by solveClass).
func (pr *provisioner) solveCosts(pods []cluster.PodID) (total time.Duration, perPod [3]time.Duration) {
	types := 0
	for _, p := range pr.pools.Ordered() {
		types += len(p.Types)
	}
	var n [3]int // pods by class: plain, spread, affinity
	for _, id := range pods {
		n[solveClass(pr.podRec(id).Spec)]++
	}
	t, p, e := time.Duration(types), time.Duration(len(pods)), time.Duration(pr.cl.LiveNodes())
	perPod = [3]time.Duration{
		SolvePlainPerPod + t*SolvePlainPerPodType + p*SolvePlainPerPodPair + e*SolvePerPodNode,
		SolveSpreadPerPod + t*SolveSpreadPerPodType + p*SolveSpreadPerPodPair + e*SolveConstrainedPerPodNode,
		SolveAffinityPerPod + t*SolveAffinityPerPodType + p*SolveAffinityPerPodPair + e*SolveConstrainedPerPodNode,
	}
	for c, k := range n {
		total += time.Duration(k) * perPod[c]
	}
	return total, perPod
}

// SolveTimeout is how long the provisioner lets a solve run (KC
// Provisioner.Schedule: Solve under a one-minute context timeout since
// v1.4); what it placed by then launches, the pods it never tried wait
// for the next batch.
const SolveTimeout = time.Minute

// solveBudget is a batch's solve under the timeout: its per-pod costs
// when it would run longer than SolveTimeout, zero otherwise.
type solveBudget struct {
	over   bool
	perPod [3]time.Duration
}

// opts are the solve options of a batch under budget b.
func (pr *provisioner) budgetOpts(b solveBudget) scheduling.SolveOpts {
	if !b.over {
		return scheduling.SolveOpts{}
	}
	return scheduling.SolveOpts{Budget: SolveTimeout, Cost: func(id cluster.PodID) time.Duration {
		return b.perPod[solveClass(pr.podRec(id).Spec)]
	}}
}

// solveClass is the model's class of a pod: 2 with pod affinity or
// anti-affinity, 1 with topology spread, else 0.
func solveClass(s *cluster.PodSpec) int {
	switch {
	case len(s.PodAffinity)+len(s.PodAntiAffinity)+len(s.PreferredPodAffinity)+len(s.PreferredPodAntiAffinity) > 0:
		return 2
	case len(s.Spread) > 0:
		return 1
	}
	return 0
}

// stillProvisionable keeps the pods of a batch that are still
// provisionable when its solve ends (never nil).
func (pr *provisioner) stillProvisionable(pods []cluster.PodID) []cluster.PodID {
	now := pr.provisionable()
	in := make(map[cluster.PodID]bool, len(now))
	for _, id := range now {
		in[id] = true
	}
	out := make([]cluster.PodID, 0, len(pods))
	for _, id := range pods {
		if in[id] {
			out = append(out, id)
		}
	}
	return out
}
