// Package scheduler is the kube-scheduler model: a plugin pipeline in the
// spirit of the scheduler framework (PreFilter, Filter, PreScore, Score,
// NormalizeScore; a registry by name; profiles chosen by schedulerName),
// the scheduling queue, and DefaultPreemption. Behaviour and defaults
// follow upstream kube-scheduler (kubernetes pkg/scheduler);
// docs/models.md "Scheduler" lists them in full, with their sources.
//
// Default profile, in upstream order and weights: NodeUnschedulable,
// NodeName, TaintToleration (3), NodeAffinity (2), NodeResourcesFit (1;
// LeastAllocated, MostAllocated or RequestedToCapacityRatio),
// NodeVolumeLimits, VolumeBinding, VolumeZone (plugins_volume.go: the
// pod's cluster.VolumePin against the node's zone and attached volumes;
// VolumeBinding's PreBind provisions WaitForFirstConsumer claims in the
// chosen node's zone), PodTopologySpread (2; with the system default
// constraints),
// InterPodAffinity (2) and NodeResourcesBalancedAllocation (1). Ties are
// broken by a seeded reservoir sample; percentageOfNodesToScore has the
// adaptive default and a rotating start that stops at the first feasible
// node past the quota; nodes are scanned in upstream's node-tree order,
// zone by zone in turn (nodetree.go). A pod naming its node (DaemonSet
// pods) is evaluated on that node only, as upstream's PreFilter result
// narrows the scan. The first four filters match through sim/cluster's
// matchers, as cluster.StaticFit does (which checks the volume pin too):
// the question the autoscalers and
// lint ask of nodes that do not exist yet gets the scheduler's answer.
//
// Queue: priority, then queue time; back-off 1 s doubling to 10 s; an
// unschedulable pod moves back on the cluster events the plugins that
// rejected it registered (upstream's queueing hints, by plugin rather than
// by hint function), and at the latest after 5 minutes. With no active
// pod, the backoff queue's head is tried at once (SchedulerPopFromBackoffQ).
// Pods carry the PodScheduled=False/Unschedulable condition the
// autoscalers read. Evaluate runs one cycle without binding, for the
// fidelity harness (fidelity/scheduler) that compares whole cycles with
// upstream's framework.
//
// Speed (none of it changes an answer): static filter verdicts cached per
// spec class and node until the node's cluster.NodeEpoch moves
// (staticcache.go), a fit index of nodes per spec class and requests
// (fitindex.go), per-node pod counts for spread and affinity kept up to
// date on every bind and filled, when new, from a table of the bound pods
// rather than every pod ever created (topology.go), every node's value of
// each topology key in a column (labelcols.go), spread domain sums kept
// per template and grouped by node inclusion so a node change decides its
// domain once, spread state prepared once per spec and namespace, scores
// computed a plugin at a time over all feasible nodes, resource scores
// cached per node until its room changes (scorecache.go), and equivalence
// classes for pods that failed.
//
// Simplifications:
//   - Cycles take virtual time only with Config.ComputeTime (scenarios:
//     spec.computeTime, default true): one cycle at a time, each costing
//     CycleBase + CyclePerNode per node upstream's filter scan would
//     visit + CycleInterPodAffinityPerNode per node for pods with pod
//     (anti-)affinity (computetime.go; scheduler_perf at 5,000 nodes:
//     680-810 pods/s, 35-60 with pod affinity). A cycle's decision and
//     binding take effect at its start; the next pod waits for its end.
//     Binding itself (async upstream) adds nothing. Without it the
//     scheduler is infinitely fast.
//   - Preemption re-evaluates only resource fit with victims removed, so
//     room made for topology spread or anti-affinity is not found; the
//     nominated node is not reserved against other pods. The nomination
//     is on the pod too (cluster.Pod.Preempting), for the autoscalers.
//   - Upstream checks the unschedulable queue every 30 s for pods due to
//     leave it after 5 minutes; here they leave at exactly 5 minutes.
//     Backoff expiries are not rounded to upstream's one-second windows.
//   - A node joins the scan order when it turns Ready; upstream's cache
//     holds it from registration.
//   - OpportunisticBatching (reusing an identical pod's scores) is not
//     modelled; the fit error carries no "preemption: ..." suffix.
//   - VolumeRestrictions (ReadWriteOncePod, disk conflicts), host ports,
//     images, DRA, scheduling gates, extenders and
//     Services' part in the default spreading selector are not modelled.
//     Pods naming a scheduler no profile serves stay Pending.
package scheduler
