// Package scheduling is Karpenter's provisioning solve (KC
// pkg/controllers/provisioning/scheduling Scheduler.Solve, with KA's
// instance types and offerings): pods sorted by cpu and memory, each
// placed on an existing node, a NodeClaim of the solve, or a new
// NodeClaim from the NodePools by weight, relaxing preferences when it
// fits nowhere; topology spread and pod (anti-)affinity, requirements,
// limits and minValues as package karpenter's doc describes (Provisioning).
//
// [New] builds the parts from [Inputs] (cluster, catalogue, prices,
// NodePools, settings, DaemonSet overhead and namespace labels), and
// [Scheduler.Solve] returns a [Result]: new NodeClaims (pool, pods,
// instance types cheapest first, zones, capacity types), pods on
// existing nodes, pods placed nowhere. Package karpenter builds its solve
// through New and keeps the parts up to date from the cluster's changes
// (ExistingBase.NodeDirty, NodeIndex, NodePools.Add); its disruption
// what-ifs run Solvers.NewSolver with SolveOpts (nodes excluded, prepared
// pod sets, consolidateAfter).
//
// The package does not know the controller: what it needs of it comes in
// as values (Node, the part of a NodeClaim record the solve reads;
// DaemonOverheadFunc; namespace labels; the Prices interface, read only
// when prices are refreshed).
package scheduling
