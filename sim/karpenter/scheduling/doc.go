// Package scheduling is Karpenter's provisioning solve (KC
// pkg/controllers/provisioning/scheduling Scheduler.Solve, with KA's
// instance types and offerings): pods sorted by cpu and memory, each
// placed on an existing node, a NodeClaim of the solve, or a new
// NodeClaim from the NodePools by weight, relaxing preferences when it
// fits nowhere; topology spread and pod (anti-)affinity, requirements,
// limits and minValues as package karpenter's doc describes (Provisioning).
//
// The package does not know the controller: what it needs of it comes in
// as values (Node, the part of a NodeClaim record the solve reads;
// DaemonOverheadFunc; namespace labels; the Prices interface, read only
// when prices are refreshed).
//
// # API
//
// A caller that only solves (a test, the fidelity harness) uses:
//
//   - [New] builds a [Scheduler] from [Inputs] (engine, cluster,
//     catalogue, [Prices], region and zones, compiled NodePools,
//     settings, DaemonSet overhead, namespace labels).
//   - [Scheduler.Solve] places pods as one provisioning batch would and
//     returns a [Result]: [NewClaim]s (pool, pods, instance types
//     cheapest first, zones, capacity types), [ExistingPlacement]s, pods
//     placed nowhere.
//   - [Scheduler.InstanceTypes] lists the catalogue as a NodePool would
//     launch it ([PoolInstanceType]).
//   - [Owner] and [OwnerName] name the owner of Karpenter's nodes.
//
// Package karpenter, the controller, uses more, because it keeps the
// solve's parts up to date between solves, launches what a solve
// decides, runs the disruption what-ifs on the same solvers, and has the
// parts' caches checked:
//
//   - The parts, as fields of [Scheduler]: [Offerings] (offering table,
//     prices, the insufficient-capacity cache it fills on launches:
//     MarkUnavailable, DeferCapacityErrors, FlushCapacityErrors),
//     [NodeIndex] and [Node] (its node records embed Node), [NodePools]
//     and [Pool] (NodePools.Add, Usages, [LaunchAllowed]), [ExistingBase]
//     (NodeDirty, NodeOrderAdd, OrderName), [Solvers].
//   - What-ifs: [Solvers.NewSolver] with [SolveOpts] (nodes excluded,
//     prepared [PodSet]s, consolidation), then the [Solver]'s fields
//     (Claims, Existing, Failed, Snapshot) and [Scheduler.Result]; the
//     early-stop fields (StopAtTwo, StopAtSpot, SpotBits, Decided).
//   - Requirements ([Requirement], [Requirements], [RequirementIn],
//     [MergeRequirements], [RequirementsCompatible], [Operator]) for
//     drift, lint and explain, which reason about the same sets.
//   - Checks: [Scheduler.CheckIndexes] recomputes the parts' caches and
//     indexes from scratch and compares (the snapshot, jump tables,
//     verdicts, pod statics, node order, pools, offerings), returning
//     [CheckCounts]; [Scheduler.CheckBoundAntiAffinity] and
//     [Scheduler.CheckPodSet] check the node index's count and a prepared
//     [PodSet]. The controller's CheckIndexes (checkindexes.go) calls
//     them between its own records' checks.
//   - A few caches' fields stay exported for the doomed-pod test
//     (doomed.go), which reads the jump tables, and for the controller's
//     tests, which corrupt them to see the checks fire (indexes_test.go).
package scheduling
