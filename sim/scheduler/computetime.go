package scheduler

import (
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
)

// The compute-time model of a scheduling cycle (Config.ComputeTime),
// calibrated on upstream's scheduler_perf benchmark at 5,000 nodes
// (perf-dash.k8s.io, job scheduler-perf-benchmark, metric
// SchedulingThroughput): SchedulingBasic at 5,000 nodes places 680-810
// pods/s (the CI thresholds of its 10,000- and 50,000-pod workloads in
// kubernetes/kubernetes test/integration/scheduler_perf/misc/
// performance-config.yaml), SchedulingPodAffinity 35-60 pods/s (threshold
// 35 for 5,000 pods, affinity/performance-config.yaml). A cycle costs
//
//	CycleBase + CyclePerNode x nodes evaluated
//	          + CycleInterPodAffinityPerNode x nodes   (pods with inter-pod (anti-)affinity)
//
// where the nodes evaluated are those upstream's filter scan visits: the
// adaptive numFeasibleNodesToFind of a cycle that finds enough feasible
// nodes (500 of 5,000 nodes), every node for one that finds too few or
// none, one for a DaemonSet's pod (its node affinity names one node; a
// pod that names its node never reaches the scheduler and costs nothing).
// At 5,000 nodes a basic cycle is
// 0.5 ms + 500 x 1.7 us = 1.35 ms (741 pods/s, inside 680-810); one with
// pod affinity adds 5,000 x 4 us = 20 ms (47 pods/s, inside 35-60):
// InterPodAffinity's PreFilter and PreScore walk every node's pods.
// docs/models.md ("Controllers that take time") has the derivation.
// Cross-check on this machine (the upstream scheduler harness of issue 23,
// fidelity/scheduler): upstream's SchedulePod at 5,000 nodes took 1.55 ms
// of CPU per basic pod and 12.4 ms with zone pod affinity
// (docs/performance.md); the constants stay on the published figures.
const (
	// CycleBase is a cycle's fixed cost: popping the pod, the cycle
	// state, snapshot update, assume, handing the binding off.
	CycleBase = 500 * time.Microsecond
	// CyclePerNode is the filter and score cost per node evaluated.
	CyclePerNode = 1700 * time.Nanosecond
	// CycleInterPodAffinityPerNode is the extra per node in the cluster
	// for a pod with required or preferred pod affinity or anti-affinity.
	CycleInterPodAffinityPerNode = 4 * time.Microsecond
)

// evaluated is how many nodes upstream's filter scan visits in a cycle
// that found a node: until it has numFeasibleNodesToFind feasible ones,
// or all of them when fewer are feasible (one for a pod naming its node).
func (s *Scheduler) evaluated(fw *framework, spec *cluster.PodSpec) int {
	all := len(s.nodes)
	if spec.NodeName != "" && fw.nameFi >= 0 {
		return 1
	}
	want := numFeasibleNodesToFind(fw.profile.PercentageOfNodesToScore, all)
	if len(s.feasible) >= want {
		return want
	}
	return all
}

// cycleCost is the virtual time of a cycle that evaluated that many nodes
// (-1: it ran none). A pod naming its node that is not a DaemonSet's
// never reaches upstream's scheduler (the kubelet admits it): it costs
// nothing.
func (s *Scheduler) cycleCost(spec *cluster.PodSpec, evaluated int) time.Duration {
	if evaluated < 0 || spec.NodeName != "" && !spec.DaemonSet {
		return 0
	}
	d := CycleBase + time.Duration(evaluated)*CyclePerNode
	if len(spec.PodAffinity)+len(spec.PodAntiAffinity)+len(spec.PreferredPodAffinity)+len(spec.PreferredPodAntiAffinity) > 0 {
		d += time.Duration(len(s.nodes)) * CycleInterPodAffinityPerNode
	}
	return d
}
