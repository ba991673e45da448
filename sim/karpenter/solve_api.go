package karpenter

import (
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// This file exports the provisioning solve for callers that run it on
// given inputs without an engine run: the fidelity harness (module
// fidelity/) compares it with upstream Karpenter's Scheduler.Solve.

// SolveInput is what a standalone solve needs: an engine and a cluster
// holding the pods (and any existing nodes), the catalogue, a cloud that
// prices offerings (Launch is never called), the region and zones, the
// compiled NodePools and the settings.
type SolveInput struct {
	Engine    *engine.Engine
	Cluster   *cluster.Cluster
	Catalog   *catalog.Catalog
	Cloud     Cloud
	Region    string
	Zones     []string
	NodePools []NodePool
	// NodeOverlays apply with Settings.NodeOverlay.
	NodeOverlays []apis.NodeOverlay
	Settings     Settings
}

// Solver runs provisioning solves on a fixed configuration.
type Solver struct{ k *Karpenter }

// NewSolver builds the controller for standalone solves. It registers
// with the engine and the cluster like New, but nothing runs unless the
// caller runs the engine.
func NewSolver(in SolveInput) (*Solver, error) {
	k, err := New(Deps{Engine: in.Engine, Cluster: in.Cluster, Catalog: in.Catalog, Cloud: in.Cloud, Evictor: noEvictions{}},
		Config{Region: in.Region, Zones: in.Zones, NodePools: in.NodePools, NodeOverlays: in.NodeOverlays, Settings: in.Settings})
	if err != nil {
		return nil, err
	}
	return &Solver{k: k}, nil
}

// SolvedNodeClaim is one new NodeClaim of a solve.
type SolvedNodeClaim = scheduling.NewClaim

// SolvedExisting is an existing node that received pods.
type SolvedExisting = scheduling.ExistingPlacement

// SolveResult is the outcome of one solve.
type SolveResult = scheduling.Result

// Solve places the pods as one provisioning batch would, without
// launching anything.
func (s *Solver) Solve(pods []cluster.PodID) SolveResult { return s.k.sc.Solve(pods) }

// SolveAndLaunch runs one provisioning batch as the provisioner does
// (provision): the solve, then a launch through the cloud of each of its
// NodeClaims the pool's limits allow, each launched node added to the
// cluster as Karpenter adds it (launching, not Ready; its pods are not
// bound). It returns the solve and the nodes launched, in NodeClaim order
// (cluster.NoNode where a launch failed or a limit refused it). The
// engine is not run: the nodes stay in flight.
func (s *Solver) SolveAndLaunch(pods []cluster.PodID) (SolveResult, []cluster.NodeID) {
	k := s.k
	sv := k.solvers.NewSolver(pods, scheduling.SolveOpts{})
	sv.Solve(pods)
	res := s.result(sv)
	pr := k.prov
	pr.offerings.DeferCapacityErrors = true
	usage := pr.pools.Usages()
	nodes := make([]cluster.NodeID, len(sv.Claims))
	for i, c := range sv.Claims {
		nodes[i] = cluster.NoNode
		if scheduling.LaunchAllowed(c.Pool, usage) {
			nodes[i] = pr.launchClaim(c, nil)
		}
	}
	pr.offerings.FlushCapacityErrors()
	return res, nodes
}

// OrderName is the name by which a solve orders existing node id among
// the existing nodes (KC sortExistingNodes: initialized first, then by
// name): the node's name, or for a node Karpenter launched the generated
// name upstream's NodeClaim would have (<pool>-<5 characters>, drawn
// from the seed). A reference solver given NodeClaims of these names
// tries them in our order.
func (s *Solver) OrderName(id cluster.NodeID) string { return s.k.base.OrderName(id) }

func (s *Solver) result(sv *scheduling.Solver) SolveResult {
	return s.k.sc.Result(sv)
}

// noEvictions is the Evictor of standalone solves and of the linter:
// nothing is drained.
type noEvictions struct{}

func (noEvictions) Evict(cluster.PodID, cluster.DeleteCause) bool { return false }
func (noEvictions) Blocked(cluster.PodID) bool                    { return true }
func (noEvictions) HasBudgets() bool                              { return true }
func (noEvictions) FullyBlocked(cluster.PodID) bool               { return false }

// PoolInstanceType is an instance type as a NodePool would launch it.
type PoolInstanceType = scheduling.PoolInstanceType

// InstanceTypes lists every instance type of the catalogue as the
// NodePool's node class would launch it (Scheduler.InstanceTypes).
func (s *Solver) InstanceTypes(pool string) []PoolInstanceType { return s.k.sc.InstanceTypes(pool) }
