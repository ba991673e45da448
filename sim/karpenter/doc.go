// Package karpenter models Karpenter v1 (kubernetes-sigs/karpenter "KC"
// and aws/karpenter-provider-aws "KA", v1.14) on the simulator's cluster:
// provisioning, the NodeClaim lifecycle, interruption handling and
// disruption. NodePools and settings are compiled by package apis, which
// also converts the legacy Provisioner and v1beta1 NodePool.
//
// # Wiring
//
// [New] takes the models it talks to ([Deps]) and its configuration
// ([Config]), and registers the controller as an engine handler, a cluster
// watcher and a subscriber of the cloud's signals. It talks to EC2 through
// the small [Cloud] interface (sim/spotmarket's Market implements it) and
// drains through [Evictor] (sim/eviction). [Karpenter.UpdateNodePool]
// changes a NodePool at a given time (for drift); [Karpenter.SetDaemonOverhead]
// plugs in DaemonSet overhead; [Karpenter.Stats] is the report section.
//
// # Structure
//
// [Karpenter] is the thin controller: it owns the parts below, dispatches
// engine events, cluster changes and cloud signals to them, and holds
// nothing else. Every part embeds env (the engine, cluster, catalogue,
// cloud, evictor, settings, handler ID, the report's counters and the
// label keys interned once); the controller, provisioner, disrupter and
// terminator share one set of pointers to all the parts (parts), as
// upstream's controllers share the cluster state.
//
// The solve is its own package, sim/karpenter/scheduling (KC
// pkg/controllers/provisioning/scheduling), which does not know the
// controller: scheduling.New builds its parts from the cluster, the
// catalogue, the price list, the NodePools and the settings, and
// Scheduler.Solve runs a provisioning solve (a test or a harness may call
// it without a controller; lint and explain reach it through this
// package). The controller builds its
// solve through scheduling.New and keeps the parts up to date from the
// cluster's changes; the disruption what-ifs run the same solvers with
// options (nodes excluded, prepared pod sets, consolidateAfter). Its parts:
//
//   - Offerings (offerings.go): the instance types, their offerings per
//     zone and capacity type with prices, and the unavailable-offerings
//     (insufficient-capacity) cache, which the launches here fill.
//   - NodeIndex and Node (existing.go): what solves read of Karpenter's
//     nodes; the controller's record (knode) embeds its Node and adds it
//     to the index.
//   - NodePools (nodepools.go, limits.go): the NodePools in force, what the
//     solver derives from them, their usage against limits.
//   - ExistingBase (existing.go): the existing nodes as solves see them,
//     kept up to date node by node (the controller marks the nodes that
//     change).
//   - Solvers (solvers.go, solve.go, poddata.go, topology.go, reqs.go,
//     podset.go): makes the solvers of batches and what-ifs, and keeps
//     what solves share.
//
// The controller's own parts:
//
//   - nodeTracker (nodes.go): Karpenter's records of its nodes (knode, its
//     NodeClaims) by NodeID and by instance.
//   - provisioner (provisioner.go): pending pods, batch timers, the
//     batch's solve and launches, registration.
//   - disrupter (disrupter.go, pass.go, doomed.go): the disruption loop,
//     its candidates and budgets. Its methods are values of one interface
//     (method.go), one file each: repair.go (its findings in
//     repairwarnings.go), emptiness.go, drift.go, multinode.go,
//     singlenode.go, sharing consolidation.go; command.go starts, checks,
//     releases and aborts commands; validation.go re-checks them after
//     the validation delay; commandevents.go tells each moment of a
//     command (the --events timeline's disruptionCommand entries,
//     OnDisruptionCommand), only when someone listens.
//   - terminator (terminator.go): deletions (taint, drain, grace periods,
//     terminate) and the forceful ones, expiration and interruption, which
//     are not disruption methods.
//
// # Provisioning
//
// Pods the kube-scheduler marked unschedulable (PodScheduled=False, reason
// Unschedulable), unbound and without spec.nodeName, open a batch that
// closes 1 s after the last such pod or 10 s after the first
// (BatchIdleDuration, BatchMaxDuration; KC Batcher). While pods stay
// provisionable a batch is re-triggered every 10 s (KC's pod and node
// controllers requeue). A batch schedules the pending pods plus the pods
// of nodes being deleted (their replacements come up while they drain).
//
// With Settings.ComputeTime (scenarios: spec.computeTime, default true) a
// solve takes virtual time (solvetime.go: per pod, by class, with the
// instance types, the batch's size and the existing nodes; fitted on
// upstream's Solve timed by fidelity/ -timing). The provisioner is a
// singleton, as upstream: the batch's pods are taken when its window
// closes, and its NodeClaims launch when the solve's time is over (the
// solve runs then, on the cluster as it is then, for those of its pods
// still provisionable: a simplification, upstream solves on the state at
// the start). Pods that become unschedulable meanwhile wait: the next
// window opens when the solve ends (upstream's batcher keeps the trigger
// until its next Wait). karpenter.busySeconds sums the solves' time,
// maxWaitSeconds is the longest a batch waited on the computing (for an
// earlier solve, then its own).
//
// The solve follows KC's Scheduler.Solve: pods sorted by cpu, then memory,
// descending, then creation time and id; each goes to the first of (1) an
// existing node, every live node whoever owns it, initialized ones first,
// then by name (a node Karpenter launched by a name drawn as upstream's
// generated NodeClaim names: existing.go orderName), checked with cluster.StaticFit plus the pod-dependent
// rules below; (2) a NodeClaim of this solve, fewest pods first, ties in
// the order KC's unstable sort leaves them (the solve's NodeClaims are
// re-sorted in place before every pod, as KC's add does); (3) a new
// NodeClaim from the NodePools by weight (descending, ties by name
// descending as KC's OrderByWeight). A pod that fits nowhere is relaxed
// one preference at a time (drop the first of several required
// node-affinity terms, the heaviest preferred pod affinity, pod
// anti-affinity and node affinity terms, a ScheduleAnyway spread
// constraint, then tolerate PreferNoSchedule taints if a pool has one) and
// tried again; a pod that still fails is requeued, and the solve stops
// after a pass without progress. Preferred node affinity and preferred pod
// (anti-)affinity count as required until relaxed, as in KC.
//
// A NodeClaim's requirements are the intersection of its pool's
// requirements and labels (plus karpenter.sh/nodepool) with its pods'
// nodeSelector, required node-affinity term in force and preferred term
// in force, the zones of their volumes (a bound volume's zone, an unbound
// WaitForFirstConsumer claim's allowedTopologies: KC volumetopology.go
// adds them to the node requirements, not to the strict ones topology
// spread counts), and the domains its pods' topology allows. Pods with a
// claim nothing can bind are not provisioned for (KC
// ValidatePersistentVolumeClaims). An existing node takes a pod only if
// its attach limit holds the pod's EBS volumes besides those attached and
// those of the pods the solve put there (KC ExistingNode's VolumeUsage);
// new NodeClaims count no volume limit, as in KC. A pod may require a
// label the pool does not define only if it is a well-known label
// (zone, region, instance type, arch, os, capacity type, nodepool and the
// karpenter.k8s.aws/instance-* labels) or its requirement is NotIn or
// DoesNotExist. The NodeClaim keeps every instance type that meets the
// requirements on the instance labels (instance-type, arch, os, region and
// every karpenter.k8s.aws/instance-* label of the catalogue: family,
// category, generation, size, cpu, memory, hypervisor, local-nvme,
// gpu-*, accelerator-*, cpu-manufacturer, ...; a type without a label
// meets only NotIn and DoesNotExist on it, as upstream's DoesNotExist
// requirement), fits the summed
// requests plus DaemonSet overhead in its allocatable, and has an
// available offering in an allowed zone and capacity type; minValues is
// enforced (MinValuesPolicy Strict by default). Pool taints must be
// tolerated, PreferNoSchedule included; startupTaints need not be.
// Limits are enforced as KC does (limits.go): the solve starts from the
// limit minus the capacity and the count of the pool's nodes that are not
// being deleted; a pool with no node left under its node limit gets no
// new NodeClaim, instance types whose capacity exceeds what is left of a
// resource limit are filtered out, and each new NodeClaim subtracts the
// largest capacity among its options (KC subtractMax). Instance types have
// no "nodes" capacity, so a solve's own NodeClaims never lower what is
// left of a node limit: one batch may overshoot it. When the NodeClaims
// are created (KC Provisioner.Create) a pool whose usage before the batch
// exceeds a limit (usage > limit) creates none; disruption replacements
// are checked the same way, with their candidates still counted.
//
// Topology follows KC's topology groups: topologySpreadConstraints on any
// key (zone, hostname and capacity-type in practice) with maxSkew,
// minDomains, nodeAffinityPolicy and nodeTaintsPolicy; required and
// preferred pod affinity and anti-affinity; and the inverse anti-affinity
// of pods already running. Only a pod's own constraints count: not the
// kube-scheduler's system default spreading. Hostname domains are always
// available (a new node has count 0). Spread picks the least-loaded
// allowed domain; ties go to the first in registration order (zones in
// the scenario's order) in which the NodeClaim could launch (an instance
// type it keeps fits the pod and has an available offering there), else
// the first. KC picks one in map order, afresh for every NodeClaim it
// tries and every pass of its queue, so it nearly always ends up in a
// domain where it can launch. The first pod of a zone affinity picks its
// domain the same way.
//
// # Launch
//
// A NodeClaim's instance types are ordered by their cheapest available
// offering and cut to 600 (KC MaxInstanceTypes); the launch (KA instance
// provider) drops exotic types (GPUs, Neuron and Gaudi accelerators,
// metal) unless nothing else is left,
// drops spot offerings dearer than the cheapest on-demand one when both
// are allowed, keeps the cheapest 60 types, and picks the capacity type:
// reserved when a reservation the NodePool's EC2NodeClass selects has room
// for one of its types (then only those reservations are asked, lowest
// price, the types in on-demand price order), else spot when an allowed
// spot offering is left, else on-demand. One request goes to the cloud with every
// remaining offering of that capacity type, price-capacity-optimized for
// spot and lowest-price for on-demand and reserved. Offerings that fail with
// InsufficientInstanceCapacity, MaxSpotInstanceCountExceeded,
// UnfulfillableCapacity or InsufficientFreeAddressesInSubnet (a zone whose
// subnets are out of addresses, spec.network) are skipped for 3 minutes (KA
// UnavailableOfferings); the NodeClaims of one batch all see the offerings
// as they were before any failed, as their parallel launches do upstream.
// A NodeClaim whose every offering failed is deleted and its pods wait
// for the next batch; a spot-only pool whose offerings are exhausted thus
// tries again only when the cache entries expire.
//
// A node of the start state (an imported cluster's node labelled for a
// NodePool) is adopted (Adopt, adopt.go), as Karpenter rebuilds its state
// from the NodeClaims and Nodes it finds after a restart: added Ready and
// initialized with its own labels, taints and allocatable, its instance
// registered with the cloud beforehand (billed from time 0 at the
// offering's price), its capacity the pool's for its type, and its
// template and node class hashes the pool's, so it drifts only when its
// labels stop meeting the pool's requirements or the pool changes (or
// its exported hash annotations differ from the pool's). It expires when
// its NodeClaim does: creationTimestamp plus the NodeClaim's own
// expireAfter (Node.ExpiresIn), else the pool's expireAfter from the
// node's creation (Node.AgeAtStart).
//
// A launched node is added Launching with the pool's labels, the
// single-valued requirements, the instance's labels (instance-type,
// arch, os, zone, region, capacity-type, nodepool,
// karpenter.k8s.aws/instance-*, and the deprecated beta labels), the
// pool's taints and startup taints, Owner OwnedByKarpenter, OwnerName the
// pool, Instance the cloud instance, and the launch price; it becomes
// Ready after the cloud's ReadyAfter, when its startup taints are removed
// (the DaemonSets that would remove them are not modelled). A node not
// Ready within RegistrationTimeout (15 min from the launch; KC nodeclaim
// lifecycle liveness) is terminated, counted as a launch failure and a
// registration timeout (in total and per NodePool), and its pods are
// provisioned for again: a node whose instance never joins (the cloud's
// LaunchResult.NeverJoins) gets no Ready event and always ends so, a slow
// one when it is slower than the timeout. A node that registers and
// never becomes Ready (LaunchResult.NeverReady) is Registered at the
// cloud's ReadyAfter (Ready=False, tainted not-ready), past the timeout's
// reach and never Initialized: the solves count it as in-flight capacity
// (its not-ready taint aside), consolidation and drift skip it, and only
// repair (the NodeRepair gate, outside the budgets) or expiry removes it. Allocatable follows KA's overhead rules (package
// catalog) with the node class's kubelet settings (maxPods, podsPerCore,
// kubeReserved, systemReserved, evictionHard and evictionSoft thresholds)
// and root volume size, or with instanceStorePolicy: RAID0 the NVMe
// instance stores' size as ephemeral storage; the type's extended
// resources (nvidia.com/gpu, amd.com/gpu, aws.amazon.com/neuron,
// neuroncore, vpc.amazonaws.com/efa, pod-eni) are capacity and
// allocatable when some pod requests them (the cluster has a slot).
//
// # Static NodePools
//
// With the StaticCapacity feature gate, a NodePool with spec.replicas
// keeps that many nodes whatever the pods (static.go: KC
// pkg/controllers/static): missing NodeClaims are created, of the pool's
// requirements only (scheduling.StaticClaim), within limits.nodes;
// surplus ones deleted, empty first. Solves never make NodeClaims from a
// static pool (scheduling.NodePools.Ordered); consolidation and emptiness
// skip its nodes, and drift of them is the staticDrift method
// (staticdrift.go), one launched-first replacement per drifted node.
//
// # NodeOverlays
//
// With the NodeOverlay feature gate, karpenter.sh/v1alpha1 NodeOverlays
// change each pool's view of its instance types (package overlay works
// out which overlay sets what; scheduling.NodePools.SetOverlays applies
// it): Pool.Price is an offering's price as the pool's solves, launches
// and disruption decisions see it, and overlaid extended resources are
// in the pool's types' capacity and allocatable. A NodeClaim with an
// overlaid price launches with EC2 Fleet priorities (prioritized,
// capacity-optimized for spot, offerings in overlaid-price order). The
// cloud bills its own prices.
//
// # CapacityBuffers
//
// With the CapacityBuffer feature gate, the buffer controller
// (buffers.go; KC controllers/capacitybuffer, state/virtualpods)
// reconciles every 30 s: it resolves each buffer's pod (a workload's or a
// PodTemplate's, through cluster.ScaleOf), computes its chunks
// (apis.CapacityBuffer.Chunks) and hands that many virtual pods to the
// solvers (scheduling.Solvers.SetVirtual: PodIDs from
// scheduling.VirtualBase, records outside the cluster). provisionable
// appends them, so provisioning batches and every disruption what-if
// place them with the pending pods (KC GetPendingPods); they never bind,
// nominate no node, and a node the last provisioning solve put one on is
// not empty (KC HasBufferPods). The gate off leaves buffers unread but
// for one info line. Simplified: a buffer follows its workload at the
// reconcile only; its status conditions are not reported.
//
// # EKS Auto Mode
//
// A pool of an eks.amazonaws.com NodeClass (apis, automode.go) is EKS
// Auto Mode's: its nodes carry eks.amazonaws.com/instance-* labels
// instead of karpenter.k8s.aws ones (scheduling.Offerings.AutoModeKey),
// hold at most 110 pods, and its solves know the eks.amazonaws.com
// labels as well known (wellKnownIn), so pods may select them; other
// pools do not. Auto Mode is on with spec.karpenter.autoMode or an
// eksctl ClusterConfig's autoModeConfig (autoModeOf, read from the
// other components' documents); an info line says the management fee
// is not in the prices (automode.go).
//
// # Disruption
//
// The disruption loop (KC disruption controller) runs 10 s after a pass
// that found nothing, at once after an action, and tries in order: repair
// (with the NodeRepair gate; repair.go says how it picks and replaces
// unhealthy nodes), emptiness,
// static drift, drift, multi-node consolidation (budget-filtered candidates sorted by
// price per unit of eviction cost, at most 100, binary search on the
// prefix), single-node consolidation (candidates interleaved by pool).
// Candidates are Karpenter's initialized nodes that are not being deleted,
// not in a running command, not nominated (a node that received pending
// pods is protected for max(2 x BatchMaxDuration, 10 s)), whose pool does
// not carry karpenter.sh/do-not-disrupt, with no active pod carrying it
// ("true", or a duration the pod has not yet run: cluster.Pod.DoNotDisruptActive)
// and no pod a PodDisruptionBudget keeps from eviction (drift with a
// terminationGracePeriod ignores the pod checks). Emptiness and
// consolidation need consolidateAfter since the node's last pod event
// (Never disables both); WhenEmpty pools are never consolidated while
// pods run. Consolidation simulates the candidates' pods (with the
// pending pods and the pods of nodes marked for deletion: deleting, or
// candidates of a started command waiting for its replacements, which
// upstream's orchestration queue marks) on the other nodes: delete
// when they all fit, replace when exactly one new NodeClaim whose worst
// launch price is below the candidates' total price would do; a
// replacement for a pool allowing spot and on-demand is spot only; all-spot
// candidates need the SpotToSpotConsolidation feature gate, and a single
// one at least 15 cheaper types, of which the 15 cheapest are kept; a
// multi-node replacement is dropped when it is no cheaper than the
// cheapest candidate of the same type. Budgets (default 10%, rounded up;
// reasons Empty, Underutilized, Drifted, Unhealthy; cron schedules in UTC from
// Settings.Epoch, active for their duration) limit the nodes of a pool
// disrupting at once, counting those already deleting and, for every
// reason but Unhealthy, those NotReady (KC NodePoolStatsFromNodes). A pass takes the
// controller's computing time: every pod its what-ifs place costs
// 1/Settings.SolverPodsPerSecond (default 1,000 pods/s, Karpenter's own
// scheduling benchmark), and its decision, or the next pass, comes that
// much later; the validation's what-if is paced the same way. At scale
// this, not the 10 s period, sets how often the controller looks (each
// single-node candidate re-simulates the pending pods too), and
// consolidation stops at its timeouts (single-node 3 min, multi-node
// 1 min of computing; multi-node keeps its best command so far; after a
// single-node timeout the pools it never reached go first in later
// passes), counted as karpenter.consolidationTimeouts.
// Emptiness and
// consolidation decisions are re-validated 15 s later and dropped if
// anything changed. Drift: the pool's template hash (labels, annotations,
// taints, startup taints, expireAfter, terminationGracePeriod,
// nodeClassRef) or node class hash changed, or the node's labels no longer
// meet the pool's requirements; weight, limits and disruption settings do
// not drift. Commands with replacements taint their candidates, launch the
// replacements and delete the candidates once those are initialized, or
// give up after 10 min.
//
// Expiration (expireAfter) and interruption are separate controllers that
// ignore budgets and do-not-disrupt. Deleting a node taints it
// karpenter.sh/disrupted:NoSchedule and drains it through the eviction API:
// PodDisruptionBudgets are honoured and do-not-disrupt pods are waited for
// until terminationGracePeriod, when pods are deleted early enough to get
// their own grace period and the instance is terminated regardless.
// Mirror pods (owned by their Node) and pods tolerating the disrupted taint
// are not evicted (KC pod.IsWaitingEviction); DaemonSet pods are not
// either (upstream evicts them last): they end with the node. Every other
// pod is drained, however it came to the node (spec.nodeName is set on
// every bound pod). Once it is empty, and at least 5 s after the drain
// began (KC MinDrainTime), the instance is terminated; the node is removed
// 5 s later, when the termination controller's requeue finds the instance
// gone (KC awaitInstanceTermination). It counts against its pool's
// budgets while it drains, not once its instance is terminating (KC
// NodePoolStatsFromNodes).
//
// Interruption (with Settings.InterruptionQueue, an SQS queue configured):
// a spot interruption notice deletes the node as above (its replacement is
// provisioned while it drains) and marks its offering unavailable for 3
// minutes; a rebalance recommendation is counted, nothing more. Without
// the queue nobody reads the notice. Either way, when EC2 reclaims the
// instance the node is removed at once and its pods die with it.
//
// Karpenter never disrupts nodes it did not launch; its consolidation may
// move pods onto room on other nodes.
//
// # Speed
//
// What the disruption controller computes is what upstream computes, but
// not always the way upstream computes it, for speed at scale; none of
// this changes a decision (tests run whole what-ifs against the shortcuts):
//
//   - a consolidation what-if stops as soon as its answer is no: at a
//     second NodeClaim, or, for spot candidates with spot-to-spot off, at
//     a first NodeClaim that may launch spot (earlyNo);
//   - what-ifs whose answer is no by counting alone are skipped (doomed.go:
//     the candidates hold more pods of a template than the other nodes
//     have room for);
//   - the existing nodes' snapshot is kept up to date node by node
//     (existing.go), nodes keep their pod scans and prepared pod sets
//     (pass.go), and a what-if's pods carry their sort keys, template and
//     origin so it reads no pod records;
//   - skipped and cut-short what-ifs count as computed in full for the
//     pass's computing time, as upstream computes them in full.
//
// # Simplifications
//
//   - Launches answer at once (the market models only their outcome), so
//     LaunchTimeout never fires; ReadyAfter comes from the cloud.
//   - Registration and initialization are one step (Ready, startup taints
//     removed), but for a node that registers and never becomes Ready
//     (LaunchResult.NeverReady: registerNotReady); the registration
//     timeout counts from the launch. The
//     NodePool's NodeRegistrationHealthy condition, which repeated
//     registration timeouts set upstream, is not kept and changes nothing
//     here.
//   - Capacity reservations are (reservations.go, scheduling's
//     reservations.go), simplified: Karpenter reads a reservation's free
//     count exactly when it solves (KA's availability cache, synced every
//     minute, can be a launch behind); a reserved offering of a type in a
//     zone stands for all the reservations of it that some EC2NodeClass
//     selects, so two classes selecting different reservations of one type
//     and zone see each other's room (a launch then fails and the offering
//     is skipped); the consolidation what-ifs do not credit a candidate's
//     slot back (KC CreditReservationCapacity, the TerminateFirst pass);
//     NodePool and pod requirements on the capacity-reservation-id,
//     -type and -interruptible labels narrow nothing (a warning says so);
//     an ODCR's nodes become on-demand at its end (upstream within a
//     minute). Volumes and their topology, host ports and DRA are not
//     modelled. The Balanced
//     policy's scoring is (balanced.go); static NodePools are (static.go,
//     staticdrift.go), without TerminateFirstDrift, and with launches
//     answering at once a scale-down never finds an unlaunched NodeClaim.
//   - A provisioning solve's 1 min timeout is not applied (with
//     ComputeTime a solve may take longer); without ComputeTime solves take
//     no time. Disruption what-ifs are paced by SolverPodsPerSecond (see
//     Disruption) whatever ComputeTime says.
//   - Prices are read from the cloud every PriceRefreshInterval (12 h).
//   - A pod's eviction cost uses its priority and its
//     karpenter.sh/disruption-cost (else
//     controller.kubernetes.io/pod-deletion-cost) annotation, as v1.15
//     does with PodDeletionCostManagement off (its default); with the
//     gate on Karpenter writes deletion costs itself, which is not
//     modelled.
//   - Drains evict all evictable pods at once (KC evicts non-critical pods
//     first) and retry refused evictions after 1 s, doubling to 10 s (KC's
//     eviction queue backs off per pod from 100 ms).
//   - Ties in spread domains go to the first domain in registration order
//     where the NodeClaim can launch (KC: map order).
//   - Disruption reasons counted: empty, underutilized, drifted, expired,
//     interrupted (reclaims without the queue count as instancesReclaimed),
//     unhealthy (repair).
//   - Node repair reads the AWS provider's policies as fixed (one
//     toleration per condition, all replace, no drain bound, one
//     priority); reboot policies, reason regexes, the do-not-repair
//     annotation and --legacy-node-repair are not modelled. Drains of a
//     NotReady node evict as on any node (upstream's kubelet would not
//     confirm them; the pods were evicted by the taint manager first).
package karpenter
