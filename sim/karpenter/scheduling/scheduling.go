package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// Inputs are what a Scheduler is built from: the engine (its clock and
// seed; nothing is scheduled on it), the cluster holding the pods and the
// existing nodes, the catalogue, the price list, the region and zones,
// the compiled NodePools and the settings, and what the controller knows
// besides (DaemonSet overhead, namespace labels), nil for none.
type Inputs struct {
	// Engine gives the clock and the seed.
	Engine *engine.Engine
	// Cluster holds the pods and the existing nodes.
	Cluster *cluster.Cluster
	// Catalog is the instance-type catalogue.
	Catalog *catalog.Catalog
	// Prices prices the offerings.
	Prices Prices
	// Region and Zones are where nodes launch.
	Region string
	Zones  []string
	// NodePools are the compiled NodePools.
	NodePools []apis.NodePool
	// NodeOverlays are the compiled NodeOverlays in the order they apply;
	// they are in force only with Settings.NodeOverlay.
	NodeOverlays []apis.NodeOverlay
	// Settings are Karpenter's settings.
	Settings apis.Settings
	// DaemonOverhead, if set, says what DaemonSet pods would run on a new
	// node.
	DaemonOverhead DaemonOverheadFunc
	// NamespaceLabels are the namespaces' labels, for pod affinity terms
	// with namespace selectors.
	NamespaceLabels map[cluster.Sym]cluster.Labels
}

// Scheduler is the solve's parts (KC provisioner.NewScheduler's inputs as
// they are kept between solves): the offerings, Karpenter's nodes as
// solves read them, the NodePools, the existing nodes' snapshot and the
// solvers. The controller (package karpenter) keeps them up to date from
// the cluster's changes; a standalone Scheduler solves the cluster as it
// is when New builds it (existing nodes added later are not seen).
type Scheduler struct {
	env env
	// Offerings are the instance types and offerings with prices.
	Offerings *Offerings
	// Nodes are Karpenter's nodes as solves read them.
	Nodes *NodeIndex
	// Pools are the NodePools in force.
	Pools *NodePools
	// Base is the existing nodes' snapshot.
	Base *ExistingBase
	// Solvers make the solvers of batches and what-ifs.
	Solvers *Solvers
}

// New builds the solve's parts. Symbols are interned in a fixed order
// (zones, capacity types, the nodepool key, the disrupted taint's key,
// the well-known and normalized labels, then the instance types'
// labels): a caller that interned the same names before (the controller)
// keeps its numbering.
func New(in Inputs) (*Scheduler, error) {
	if len(in.Zones) == 0 {
		return nil, fmt.Errorf("karpenter: no zones")
	}
	if len(in.Zones)*NumCapacityTypes > 64 {
		return nil, fmt.Errorf("karpenter: %d zones; at most %d are supported", len(in.Zones), 64/NumCapacityTypes)
	}
	cl := in.Cluster
	syms := cl.Syms
	var zoneSyms []cluster.Sym
	for _, z := range in.Zones {
		zoneSyms = append(zoneSyms, syms.Intern(z))
	}
	var ctSyms [NumCapacityTypes]cluster.Sym
	ctSyms[OnDemandIndex] = syms.Intern("on-demand")
	ctSyms[SpotIndex] = syms.Intern("spot")
	ctSyms[ReservedIndex] = syms.Intern("reserved")
	e := env{eng: in.Engine, cl: cl, cat: in.Catalog, cloud: in.Prices, settings: in.Settings,
		keyNodePool: syms.Intern(apis.LabelNodePool), wellKnownSet: map[cluster.Sym]bool{}, autoModeKnown: map[cluster.Sym]bool{}, normalized: map[cluster.Sym]cluster.Sym{}}
	syms.Intern(apis.TaintDisrupted) // the controller's next key
	for _, w := range apis.WellKnownLabels {
		e.wellKnownSet[syms.Intern(w)] = true
	}
	for _, w := range slices.Sorted(maps.Keys(apis.AutoModeLabels)) {
		e.autoModeKnown[syms.Intern(w)] = true
	}
	froms := make([]string, 0, len(apis.NormalizedLabels))
	for from := range apis.NormalizedLabels {
		froms = append(froms, from)
	}
	sort.Strings(froms) // intern in a fixed order: symbols must not depend on map order
	for _, from := range froms {
		e.normalized[syms.Intern(from)] = syms.Intern(apis.NormalizedLabels[from])
	}
	// The beta labels Karpenter puts on its nodes, interned here in the
	// controller's order.
	for _, key := range BetaKeys {
		syms.Intern(key)
	}
	off := newOfferings(e, in.Region, in.Zones, zoneSyms, ctSyms)
	idx := &NodeIndex{cl: cl}
	pools := &NodePools{env: e, offerings: off, nodes: idx, ByName: map[string]*Pool{}, daemonOverhead: in.DaemonOverhead}
	base := &ExistingBase{env: e, nodes: idx, pools: pools}
	pools.base = base
	sv := &Solvers{env: e, offerings: off, nodes: idx, pools: pools, base: base, NamespaceLabels: in.NamespaceLabels,
		specClasses: cluster.SpecClasses{WithScoring: true}, Verdicts: map[verdictKey]*cluster.NodeVerdicts{}}
	sc := &Scheduler{env: e, Offerings: off, Nodes: idx, Pools: pools, Base: base, Solvers: sv}
	if src, ok := in.Prices.(ReservationSource); ok {
		off.setReservations(src, in.NodePools)
	}
	seen := map[string]bool{}
	for i := range in.NodePools {
		if seen[in.NodePools[i].Name] {
			return nil, fmt.Errorf("karpenter: two NodePools named %q", in.NodePools[i].Name)
		}
		seen[in.NodePools[i].Name] = true
		pools.Add(in.NodePools[i])
	}
	if in.Settings.NodeOverlay && len(in.NodeOverlays) > 0 {
		pools.SetOverlays(in.NodeOverlays)
	}
	for i := range cl.Nodes {
		if cl.Nodes[i].State != cluster.NodeGone {
			base.NodeOrderAdd(cluster.NodeID(i))
		}
	}
	return sc, nil
}

// WellKnownLabels are the label keys Karpenter treats as well known
// (apis.WellKnownLabels, interned): requirements on them need not be
// matched by a NodePool's labels.
func (sc *Scheduler) WellKnownLabels() map[cluster.Sym]bool { return sc.env.wellKnownSet }

// AutoModeLabels are the label keys only EKS Auto Mode's Karpenter
// treats as well known (apis.AutoModeLabels, interned): in pools of its
// NodeClass.
func (sc *Scheduler) AutoModeLabels() map[cluster.Sym]bool { return sc.env.autoModeKnown }

// BetaKeys are the deprecated beta labels Karpenter's nodes carry
// (instance type, arch, os, zone, region).
var BetaKeys = [5]string{"beta.kubernetes.io/instance-type", "beta.kubernetes.io/arch", "beta.kubernetes.io/os",
	"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"}

// NewClaim is one new NodeClaim of a solve.
type NewClaim struct {
	// NodePool is the name of the claim's pool.
	NodePool string
	// Pods are the pods placed on it, in placement order.
	Pods []cluster.PodID
	// InstanceTypes are the claim's options, cheapest first (KC
	// InstanceTypes.OrderByPrice), ties by name.
	InstanceTypes []string
	// CheapestUSDPerHour is the price of the cheapest available offering
	// the claim's requirements allow among its options.
	CheapestUSDPerHour float64
	// Zones and CapacityTypes the claim may still launch into.
	Zones, CapacityTypes []string
}

// ExistingPlacement is an existing node that received pods.
type ExistingPlacement struct {
	// Node is the existing node.
	Node cluster.NodeID
	// Pods are the pods placed on it, in placement order.
	Pods []cluster.PodID
}

// Result is the outcome of one solve.
type Result struct {
	// NodeClaims are the new NodeClaims, in creation order.
	NodeClaims []NewClaim
	// Existing are the existing nodes that received pods, in the existing
	// nodes' order.
	Existing []ExistingPlacement
	// Unschedulable are the pods placed nowhere, by id.
	Unschedulable []cluster.PodID
}

// Solve places the pods as one provisioning batch would (KC
// Scheduler.Solve), without launching anything.
func (sc *Scheduler) Solve(pods []cluster.PodID) Result {
	s := sc.Solvers.NewSolver(pods, SolveOpts{})
	s.Solve(pods)
	return sc.Result(s)
}

// Result describes a finished solve (its NodeClaims' options are sorted
// by price in place).
func (sc *Scheduler) Result(s *Solver) Result {
	var res Result
	for _, c := range s.Claims {
		sc.Solvers.SortedOptions(c)
		nc := NewClaim{NodePool: c.Pool.Spec.Name, Pods: append([]cluster.PodID(nil), c.Pods...)}
		for i, pos := range c.Options {
			t := c.Pool.Types[pos].Type
			nc.InstanceTypes = append(nc.InstanceTypes, t.Name)
			if i == 0 {
				nc.CheapestUSDPerHour = sc.Offerings.Cheapest(c.Pool, t, c.OfferingMask)
			}
		}
		if len(c.reserved) > 0 {
			// KC FinalizeScheduling: reserved, in the held reservations.
			nc.CheapestUSDPerHour = sc.Offerings.heldCheapest(c)
			for _, ri := range c.reserved {
				nc.Zones = appendNew(nc.Zones, sc.Offerings.Zones[sc.Offerings.Reservations[ri].Zone])
			}
			sort.Strings(nc.Zones)
			nc.CapacityTypes = []string{cluster.Reserved.String()}
			res.NodeClaims = append(res.NodeClaims, nc)
			continue
		}
		for z, zone := range sc.Offerings.Zones {
			for ct := 0; ct < NumCapacityTypes; ct++ {
				if c.OfferingMask&(1<<uint(z*NumCapacityTypes+ct)) == 0 {
					continue
				}
				nc.Zones = appendNew(nc.Zones, zone)
				nc.CapacityTypes = appendNew(nc.CapacityTypes, CapacityTypeOf(ct).String())
			}
		}
		sort.Strings(nc.CapacityTypes)
		res.NodeClaims = append(res.NodeClaims, nc)
	}
	for _, ex := range s.Existing {
		if len(ex.Placed) > 0 {
			res.Existing = append(res.Existing, ExistingPlacement{Node: ex.ID, Pods: append([]cluster.PodID(nil), ex.Placed...)})
		}
	}
	res.Unschedulable = append(res.Unschedulable, s.Failed...)
	sort.Slice(res.Unschedulable, func(i, j int) bool { return res.Unschedulable[i] < res.Unschedulable[j] })
	return res
}

// PoolInstanceType is an instance type as a NodePool would launch it.
type PoolInstanceType struct {
	// Name is the instance type's name.
	Name string
	// Labels are the instance type's labels (instance-type, arch, os,
	// region, karpenter.k8s.aws/instance-*), by key.
	Labels map[string]string
	// Capacity and Allocatable under the pool's node class.
	Capacity, Allocatable cluster.Resources
}

// InstanceTypes lists every instance type of the catalogue as the
// NodePool's node class would launch it, in catalogue order, whether or
// not the pool's requirements allow it (a reference solver does its own
// filtering); nil for an unknown pool.
func (sc *Scheduler) InstanceTypes(pool string) []PoolInstanceType {
	p, ok := sc.Pools.ByName[pool]
	if !ok {
		return nil
	}
	syms := sc.env.cl.Syms
	off := sc.Offerings
	out := make([]PoolInstanceType, 0, len(off.types))
	for _, t := range off.types {
		labels := map[string]string{}
		for tk, v := range t.LabelValues {
			if v != cluster.NoSym {
				labels[off.typeKeyLabels[tk]] = syms.Name(v)
			}
		}
		capacity, alloc := off.nodeResources(t.catalogType, &p.Spec.NodeClass)
		out = append(out, PoolInstanceType{Name: t.Name, Labels: labels, Capacity: capacity, Allocatable: alloc})
	}
	return out
}

func appendNew(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// OwnerName is the owner of the nodes Karpenter launches (the component's
// registered name), and Owner its number.
const OwnerName = "karpenter"

// Owner is the cluster owner of Karpenter's nodes.
var Owner = cluster.RegisterOwner(OwnerName)
