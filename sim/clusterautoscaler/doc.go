// Package clusterautoscaler models the Kubernetes Cluster Autoscaler
// (kubernetes-sigs/cluster-autoscaler 1.37, formerly kubernetes/autoscaler
// cluster-autoscaler) on AWS: node groups that
// are Auto Scaling groups, most often built by eksctl (managed and
// self-managed node groups), scaled up for pods the scheduler cannot place
// and down when their nodes are underused. Package config compiles its
// inputs: eksctl ClusterConfig documents, the ASGs' node-template tags, the
// Cluster Autoscaler's command-line flags and the priority expander's
// ConfigMap.
//
// # Structure
//
// [Autoscaler] is the thin controller, upstream's StaticAutoscaler: it
// owns the parts below, dispatches engine events, cluster changes and
// cloud signals to them and runs the main loop (RunOnce). Every part
// embeds env (the engine, cluster, catalogue, cloud, evictor, settings,
// handler ID, random streams, the report's counters and the well-known
// symbols); the controller, orchestrator, planner and actuator share one
// set of pointers to all the parts (parts), whose cluster state is
// embedded, the others point at the little they read. No struct of the
// package has more than 40 fields (structsize_test.go).
//
//   - clusterState (autoscaler.go, group.go, cache.go, asgretry.go,
//     adopt.go): the cluster state registry and the AWS provider's ASGs:
//     the node groups, their nodes' records by NodeID and instance, the
//     scale-up requests and back-offs, the templates, the pending pods,
//     the last scale times, launches, and the incremental snapshot of
//     the cluster the what-ifs read (caches).
//   - orchestrator (scaleup.go, spread.go, explain.go, and balancing in
//     expander.go): the scale-up orchestrator (core/scaleup/orchestrator):
//     equivalence groups, the pods that fit existing and upcoming nodes,
//     one option per group from the estimator, the expander's pick, caps,
//     balancing over similar groups, the increases.
//   - estimator (estimate.go): the binpacking estimator.
//   - expander (expander.go): the --expander strategies, chained.
//   - planner (scaledown.go, replay.go, plan.go): the scale-down planner
//     (core/scaledown/planner): eligibility, the removal simulation,
//     unneeded nodes and their soft taints, the nodes to delete, why
//     nodes are kept; PlanScaleDown runs it without acting.
//   - provReqs (provreqs.go, provreqcompile.go): the ProvisioningRequest
//     support (pkg/provisioningrequest, processors/provreq): conditions,
//     the injected pods, bookings, the check-capacity and
//     best-effort-atomic classes; package provreq decodes the API.
//   - actuator (actuator.go, spotdrain.go): the scale-down actuator
//     (core/scaledown/actuation): taints, cordons, drains through the
//     eviction API, retries, deletions; and the drains of spot nodes.
//   - buffers (buffers.go, bufferwarnings.go), on the cluster state, nil
//     unless both --capacity-buffer-* flags are on: the CapacityBuffer
//     controller and pod list processor (pkg/capacitybuffer,
//     processors/capacitybuffer): each loop's fake pods for the
//     orchestrator, the room they take for the planner.
//
// DecideScaleUp and PlanScaleDown are the entry points of the upstream
// comparison (fidelity/ca): the orchestrator's decision and the planner's
// plan on the cluster as it is, with nothing acted on.
//
// # What is modelled
//
// A group's nodes at the start are its desiredCapacity, launched Ready at
// time 0, or, for an imported cluster, the start nodes labelled with the
// group's name (Adopt, adopt.go), as the Cluster Autoscaler finds an
// ASG's instances when it starts: they keep their own labels, taints and
// allocatable, are billed from time 0 at their offering's price, count in
// the group's size (desiredCapacity launches only what they leave
// missing) and toward maxSize, and are scaled in, drained for spot and
// replaced like any of its nodes.
//
// The main loop runs --scan-interval (10 s) after the previous one ended,
// and as soon as a pod becomes unschedulable or after a loop that scaled
// (--frequent-loops-enabled, the loop trigger of
// cluster-autoscaler/loop/trigger.go). A loop:
//
//   - refreshes the ASGs at most once per minute (AWS provider
//     refreshInterval), and at the next loop after deleting instances; a
//     launch EC2 could not fill shows up then as a failed placeholder
//     instance;
//   - updates the scale-up requests: one whose nodes are all Ready is
//     done (the group's back-off, if any, runs on); one past --max-node-provision-time (15 min) fails;
//     failed placeholders fail the scale-up and lower the ASG's desired
//     capacity; nodes still not Ready --max-node-provision-time after their
//     launch (long-unregistered: the cloud's NeverJoins, or a slow join)
//     fail the scale-up waiting for them (Stats.ScaleUpTimeouts, back-off)
//     and are deleted (removeOldUnregisteredNodes;
//     Stats.UnregisteredNodesRemoved), but not below the group's minimum
//     size, where the AWS provider's DeleteNodes refuses (they stay,
//     billed: Stats.LongUnregisteredAtEnd), and not in groups the Cluster
//     Autoscaler does not autoscale; a long-unregistered node is no longer
//     an upcoming node for the scale-up simulation (GetUpcomingNodes);
//   - nodes that registered and never became Ready (the cloud's
//     NeverReady; unready.go) are upcoming for --max-node-startup-time
//     after registering, then Unready; the unready scale-down removes
//     them after --scale-down-unready-time (20 min) once no scale-up
//     expects them (Stats.UnreadyNodesRemoved), unless
//     --scale-down-unready-enabled=false; with more than
//     --ok-total-unready-count Unready nodes, over
//     --max-total-unready-percentage of the registered nodes, the cluster
//     is unhealthy and the loop does nothing more (Stats.UnhealthyLoops);
//     a group missing more Ready nodes than both allow of its registered
//     nodes is not ready for scale-up (IsNodeGroupHealthy);
//   - scale-up: the pods marked unschedulable, unbound, not below
//     --expendable-pods-priority-cutoff (-10), older than
//     --new-pod-scale-up-delay (0 s), skipping the loop while all of them
//     are younger than 2 s (30 s with GPUs); minus those that fit on Ready
//     nodes or on the nodes being launched and the placeholders (simulated
//     from templates); then per group, unless backed off or at its maximum,
//     a binpacking estimate of the nodes the pods need on the group's
//     template (pods grouped by spec, groups sorted by cpu+memory share of
//     the template, first-fit on the last node added, at most
//     --max-nodes-per-scaleup and the room to the group's maximum); the
//     --expander chain picks (least-waste by default; random, most-pods,
//     least-nodes, price, priority; chains such as priority,least-waste);
//     --max-nodes-total, --cores-total and --memory-total cap it;
//     --balance-similar-node-groups spreads it over similar groups; the
//     ASG's desired capacity rises and each new instance is one launch
//     request (ASG latency profile) over the group's instance types in its
//     zones, least-used zones first, by the group's allocation strategy
//     (on-demand: prioritized; spot: capacity-optimized for managed groups,
//     the instances distribution's for others, lowest-price by default);
//     on-demand base and percentage of an instances distribution decide each
//     instance's capacity type; with --salvo-scale-up (1.36+) further
//     scale-ups follow in the same loop for the pods left, each seeing the
//     nodes of those before as upcoming, within --salvo-scale-up-budget
//     (1 min) of virtual time (scaleup.go salvo);
//   - scale-down: nodes of autoscaled groups whose requests are below
//     --scale-down-utilization-threshold (0.5; GPUs for GPU nodes) of
//     allocatable and whose pods all move elsewhere (blockers below, and a
//     fit on another Ready node in a what-if pass where later candidates
//     see earlier ones' pods) are unneeded and get the soft taint
//     DeletionCandidateOfClusterAutoscaler; after --scale-down-unneeded-time
//     (10 min) they are removed, never below a group's minimum, empty nodes
//     in bulk (--max-scale-down-parallelism) after a 5 s delay, others
//     drained one at a time (--max-drain-parallelism): tainted
//     ToBeDeletedByClusterAutoscaler and cordoned, pods evicted through the
//     eviction API (refused evictions retried every 10 s until
//     --max-pod-eviction-time, 2 min, then the scale-down fails), the node
//     removed when its pods are gone or after the longest grace period plus
//     30 s, its instance terminated and the ASG's desired capacity lowered.
//     Nothing is removed within --scale-down-delay-after-add (10 min) of a
//     scale-up (and of the start), --scale-down-delay-after-delete (0) of a
//     removal, --scale-down-delay-after-failure (3 min) of a failed one.
//     A node the what-if pass finds unremovable (a blocker, or no room
//     for its pods) is not simulated again for
//     --unremovable-node-recheck-timeout (5 min), even if room appears
//     sooner (planner: unremovable nodes with a recheck timeout).
//     Blockers: a pod without a controller, a kube-system pod without a PDB
//     (--skip-nodes-with-system-pods) until it is
//     --blocking-system-pod-distruption-timeout old (1 h; CA 1.33+),
//     safe-to-evict: "false", a PDB that allows no disruption, a node labelled
//     cluster-autoscaler.kubernetes.io/scale-down-disabled: "true";
//     safe-to-evict: "true" lifts the pod blockers. Nodes outside the
//     groups (static, Karpenter's) are never touched.
//
// Back-off (utils/backoff): 5 min after a failure, doubling for each
// failure after the previous back-off ended, at most 30 min, forgotten 3 h
// after the last failure; a failure while backed off keeps the current
// duration, counted from the new failure; a completed scale-up does not
// end it (since Cluster Autoscaler 1.30, clusterstate no longer calls
// RemoveBackoff).
//
// Spot: the Cluster Autoscaler has no interruption handler. When EC2
// reclaims an instance the node goes and the ASG launches a replacement to
// keep its desired capacity (which may fail like any launch); the evicted
// pods go through normal scale-up. Groups with capacity rebalancing (spot
// managed node groups) launch the replacement on the rebalance
// recommendation or interruption notice. Who drains the at-risk node
// (spotdrain.go): EKS for managed groups, when the replacement is Ready or
// at once on the interruption notice; aws-node-termination-handler for
// self-managed groups when it runs (config.TerminationHandler: IMDS mode
// drains on the notice and cordons on a recommendation, queue mode drains
// on both and on the ASG's termination of a rebalanced instance);
// otherwise nobody, and a self-managed group's capacity rebalance
// terminates the old instance undrained once the replacement is Ready.
// These drains go through the eviction API, are retried until the
// instance goes, and never terminate it themselves (EC2 or the ASG does).
//
// Templates: a group's template is a copy of one of its Ready nodes (a
// random one each loop: upstream takes the first good node in its node
// lister's order, which is map order), else the last one copied, else
// built from the ASG as the AWS provider does:
// the first instance type's nominal vCPUs and memory as allocatable, 110
// pods, GPUs, the ASG's first zone, the node-template label, taint (value
// of the form value:Effect) and resources tags, eks:<k> tags as labels, and
// for managed node groups the labels and taints of EKS's DescribeNodegroup
// (with eks.amazonaws.com/capacityType). So a group scaled from zero is
// sized without kubelet overhead, knows no ephemeral storage unless a
// resources tag says so, and knows an eksctl node group's labels only with
// propagateASGTags (and its taints not even then, since eksctl writes
// taint tags without the effect): pods that need a label no template has,
// or do not tolerate a taint a template has, are never scaled for.
//
// Zones: a template sits in one zone (its node's, or the ASG's first), and
// the scale-up simulation puts the upcoming nodes and the estimator's
// template copies there with it, as upstream's cluster snapshot does, while
// the ASG launches in the zone it balances to. A pod pinned to another
// zone does not fit the template; hard topology spread on the zone (or
// any key but the hostname) is checked on the simulated nodes
// (spread.go) against the matching pods per domain of the Ready nodes,
// the upcoming nodes' and the estimate's own, so a zone-spread workload
// gets about maxSkew pods per scale-up from a multi-zone group.
//
// Hostname spread: the estimator allows maxSkew matching pods per
// simulated node while some node the constraint counts has none of them
// (a Ready node, one being launched or an upcoming one); when none has,
// as in a cluster without a node the pods may go to, the skew is measured
// against the fewest over those nodes and the simulated ones, as
// upstream's snapshot does, so the first new node takes pods until its
// room runs out (spread.go prepareHostSpreads). A new node that a pod
// does not fit for a pod-level reason (a zone spread) stays in the
// estimate empty, as in upstream's snapshot, and the next pod group's
// first pod goes there if it fits: upstream places later pods round-robin
// over the simulated nodes, from after its plugin runner's last match
// (state that persists across simulations; trying the empty node first is
// our approximation, which agrees on 1,199 of 1,200 generated cases).
//
// Karpenter side by side: every pod a scale-up was for is recorded with
// cluster.NoteLaunchFor; a node launched for a pod another autoscaler
// already launched for counts in Stats.RaceNodes.
//
// # Defaults and their sources
//
// Flag defaults are those of Cluster Autoscaler 1.37
// (pkg/config/flags/flags.go; config/testdata/upstream-flags.txt), listed in
// docs/models.md "Cluster Autoscaler" under "Defaults and sources";
// package config names each one. Constants
// that are not flags upstream (ASG refresh 1 min, the 2 s and 30 s new-pod
// buffers, the 10 s eviction retry) can be overridden through
// config.SettingsSpec.
//
// # Simplifications
//
//   - A loop's work happens at its start; the loop then takes its time
//     before the next one can start, so loops come every scan interval
//     plus that: with Settings.ComputeTime (scenarios: spec.computeTime,
//     default true) the loop-time model's figure for the nodes, bound and
//     pending pods and node groups it sees (looptime.go, against the
//     published scalability test), else config.DefaultLoopDuration (1 s);
//     an explicit loopDuration always wins. clusterAutoscaler.busySeconds
//     sums the loops' time, maxWaitSeconds is the longest a pod that
//     became unschedulable during a loop waited for it to end.
//   - The fit test is cluster.StaticFit (cordon, nodeName, taints, node
//     affinity, resources), as the scheduler's filters; of pod-level
//     constraints those keyed on kubernetes.io/hostname (required pod
//     affinity and anti-affinity, hard spread; a pod with several hard
//     hostname spreads assumes an emptier node exists, and so do the
//     pending pods put on upcoming nodes) and hard spread on other keys
//     are checked on simulated
//     nodes; zone-keyed affinity and anti-affinity count as met. A pod
//     with affinity or anti-affinity on other keys is never considered to
//     fit an existing node: the scheduler's verdict stands.
//   - A launch is one request that fails or succeeds at once; a failed one
//     is known to the ASG at that moment and to the Cluster Autoscaler at
//     the next refresh. Until then the ASG retries it on its own
//     (asgretry.go: after 10 s, doubling up to 5 min, an assumption), and
//     a retry that succeeds fills the desired capacity without a failed
//     scale-up; the refresh lowers the desired capacity by what is still
//     unfilled, which ends the retries.
//   - A node that never registers and is not Ready
//     --max-node-provision-time after its launch is deleted at once; a
//     slow join counts as unregistered until it is Ready (upstream it
//     registers first, and would be a NotStarted node from then).
//   - Local storage (hostPath, emptyDir on disk), all that upstream's
//     LocalStorage drainability rule looks at, is not modelled, so
//     --skip-nodes-with-local-storage never blocks a scale-down. EBS
//     volumes are, and never count as local storage (upstream neither):
//     they pin pods to zones through the scheduler's volume filters,
//     which the template-node what-ifs run too.
//   - The PDB blocker asks the Evictor about each pod alone (upstream
//     tracks the disruptions a pass has used across nodes).
//   - Node annotations are not modelled: the scale-down-disabled annotation
//     is read as a node label.
//   - DaemonSet pods are skipped by the removal simulation (drainability
//     rule daemonset), do not make a node non-empty, and are left on a
//     drained node to end with it (upstream evicts them best-effort,
//     --daemonset-eviction-for-occupied-nodes).
//   - aws-node-termination-handler covers every node of the self-managed
//     groups (where its DaemonSet's pods run is not checked); a node it
//     drained for a rebalance recommendation that is never reclaimed
//     stays cordoned and is not scaled down.
//   - Unready nodes skip the removal simulation and the soft taints (they
//     have no pods); a Ready node made NotReady by spec.nodeFailures is
//     scaled down as a Ready one. ProvisioningRequests are modelled
//     (provreqs.go), simplified as docs/models.md says.
//   - --force-delete-unregistered-nodes is accepted and changes nothing:
//     long-unregistered nodes are always kept at a group's minimum, as the
//     AWS provider's DeleteNodes does (whether a forced deletion reaches
//     AWS depends on the provider's ForceDeleteNodes, not modelled). An
//     unregistered node is dated from its launch, not from the first ASG
//     refresh that lists it.
package clusterautoscaler
