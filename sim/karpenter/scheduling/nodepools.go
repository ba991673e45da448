package scheduling

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/overlay"
)

// NodePools holds the NodePools in force, with what the solver derives
// from them, and their counters.
type NodePools struct {
	env
	// offerings are the instance types and offerings the pools draw from.
	offerings *Offerings
	nodes     *NodeIndex
	base      *ExistingBase
	All       []*Pool // by name
	// ByName has the pools by name.
	ByName map[string]*Pool
	// weightOrder: the pools in weight order (ordered), nil when stale.
	weightOrder    []*Pool
	daemonOverhead DaemonOverheadFunc
	// overlays are the NodeOverlays in force (SetOverlays), in the order
	// they apply; overlayByPool what they do to each pool, by name;
	// overlayStatus what became of each.
	overlays      []apis.NodeOverlay
	overlayByPool map[string]*poolOverlay
	overlayStatus []overlay.Status
}

// DaemonOverheadFunc returns the requests of the DaemonSet pods that would
// run on a node like template (labels of the pool and the instance type,
// the pool's taints; zone and capacity type not yet known).
type DaemonOverheadFunc func(template *cluster.Node) cluster.Resources

// Pool is a NodePool in force, with what the solver derives from it.
type Pool struct {
	// Spec is the compiled NodePool.
	Spec *apis.NodePool
	// Requirements are the pool's requirements plus its labels (as In) and
	// karpenter.sh/nodepool In [name] (KC NodeClaimTemplate).
	Requirements Requirements
	// Types are the instance types compatible with the pool's
	// requirements that have some offering the pool allows, in catalogue
	// order.
	Types []PoolType
	// TypePositions maps an itype index to its position in types (-1: none).
	TypePositions []int32
	// tolerate: the pool has a PreferNoSchedule taint (relaxation then
	// adds a toleration for those).
	HasPreferNoSchedule bool
	// ClaimStarts caches, per placeholder number n, the requirements and
	// offering mask of a solve's n-th NodeClaim from this pool before any
	// pod joins (reqs plus its placeholder hostname): every solve starts
	// its NodeClaims alike.
	ClaimStarts []claimStart
	// overlay is what the NodeOverlays do to the pool, nil for nothing.
	overlay *poolOverlay
	// reservations are the indices in Offerings.Reservations of the
	// reservations the pool's node class selects for its types.
	reservations []int
}

type claimStart struct {
	// requirements are the NodeClaim's requirements before any pod joins.
	requirements Requirements
	// OfferingMask is the offering bits those requirements allow.
	OfferingMask uint64
}

func (np *NodePools) build(spec *apis.NodePool) *Pool {
	p := &Pool{Spec: spec, HasPreferNoSchedule: spec.HasPreferNoScheduleTaint(), overlay: np.overlayByPool[spec.Name]}
	p.Requirements = np.poolRequirements(spec)
	mask := np.offerings.OfferingMask(p.Requirements)
	typeReqs := np.offerings.typeRequirements(spec, p.Requirements)
	p.TypePositions = make([]int32, len(np.offerings.types))
	for i := range p.TypePositions {
		p.TypePositions[i] = -1
	}
	for _, t := range np.offerings.types {
		pt, ok := np.poolType(p, t, typeReqs, mask)
		if !ok {
			continue
		}
		p.TypePositions[t.Index] = int32(len(p.Types))
		p.Types = append(p.Types, pt)
	}
	for i := range np.offerings.Reservations {
		r := &np.offerings.Reservations[i]
		if p.TypePositions[r.Type.Index] >= 0 && spec.NodeClass.SelectsReservation(&r.Reservation) {
			p.reservations = append(p.reservations, i)
		}
	}
	return p
}

// poolRequirements are the requirements of a pool of spec (pool.reqs).
func (np *NodePools) poolRequirements(spec *apis.NodePool) Requirements {
	syms := np.cl.Syms
	var rs []Requirement
	for i := range spec.Requirements {
		r := fromRequirement(&spec.Requirements[i].Requirement)
		r.MinValues = spec.Requirements[i].MinValues
		rs = append(rs, r)
	}
	for _, l := range spec.Labels {
		rs = append(rs, RequirementIn(l.Key, l.Value))
	}
	rs = append(rs, RequirementIn(np.keyNodePool, syms.Intern(spec.Name)))
	return SortRequirements(syms, rs)
}

// poolType is instance type t as pool p launches it (p.reqs set; mask:
// the offerings they allow), false when the pool cannot: t does not meet
// the requirements or has no offering in mask.
func (np *NodePools) poolType(p *Pool, t *InstanceType, typeReqs Requirements, mask uint64) (PoolType, bool) {
	if !np.offerings.TypeCompatible(t, typeReqs) {
		return PoolType{}, false
	}
	has := false
	offer := np.offerings.unreservedBits() | np.offerings.reservedBits(t, &p.Spec.NodeClass)
	mask &= offer
	base := np.offerings.Offers.Index(t.Index, 0, 0)
	for b := 0; b < np.offerings.Offers.NumZones*NumCapacityTypes; b++ {
		if mask&(1<<uint(b)) != 0 && np.offerings.Offers.Price[base+b] >= 0 {
			has = true
			break
		}
	}
	if !has {
		return PoolType{}, false
	}
	pt := PoolType{Type: t, Offer: offer}
	pt.Capacity, pt.Allocatable = np.offerings.nodeResources(t.catalogType, &p.Spec.NodeClass)
	np.overlayCapacity(p.overlay, &pt)
	if np.daemonOverhead != nil {
		pt.DaemonOverhead = np.daemonOverhead(np.templateNode(p, t))
	}
	return pt, true
}

// Ordered returns the pools solves make NodeClaims from, in weight
// order, kept until a pool changes (add, setDaemonOverhead). Static pools
// are left out (KC Provisioner.NewScheduler skips IsStatic pools): their
// nodes are existing nodes to a solve, and only the static controller
// launches for them.
func (np *NodePools) Ordered() []*Pool {
	if np.weightOrder == nil {
		np.weightOrder = orderPools(np.All)
	}
	return np.weightOrder
}

// orderPools sorts pools as KC nodepoolutils.OrderByWeight: weight
// descending, then name descending (upstream compares names with ">").
func orderPools(ps []*Pool) []*Pool {
	out := make([]*Pool, 0, len(ps))
	for _, p := range ps {
		if !p.Spec.Static {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Spec, out[j].Spec
		if a.Weight != b.Weight {
			return a.Weight > b.Weight
		}
		return a.Name > b.Name
	})
	return out
}

// tolerates reports whether tolerations (plus a PreferNoSchedule
// toleration when tolPNS) tolerate every taint, PreferNoSchedule included
// (KC scheduling.Taints.Tolerates requires all of them).
func tolerates(tols cluster.Tolerations, taints []cluster.Taint, tolPNS bool) bool {
	for _, t := range taints {
		if tolPNS && t.Effect == cluster.EffectPreferNoSchedule {
			continue
		}
		if !tols.Tolerate(t) {
			return false
		}
	}
	return true
}

// templateNode is a node as the pool would launch it with type t, before
// its zone and capacity type are known: what DaemonSets are matched
// against.
func (np *NodePools) templateNode(p *Pool, t *InstanceType) *cluster.Node {
	labels := append(cluster.Labels(nil), p.Spec.Labels...)
	auto := p.Spec.NodeClass.AutoMode
	set := func(k, v cluster.Sym) {
		if auto {
			var ok bool
			if k, ok = np.offerings.AutoModeKey(k); !ok {
				return
			}
		}
		labels = labels.With(k, v)
	}
	for i := range p.Requirements {
		r := &p.Requirements[i]
		if !r.Complement && len(r.Values) == 1 {
			set(r.Key, r.Values[0])
		}
	}
	for tk, v := range t.LabelValues {
		if v != cluster.NoSym {
			set(np.offerings.TypeKeys[tk], v)
		}
	}
	return &cluster.Node{Name: p.Spec.Name + "-template", Labels: labels, Taints: p.Spec.Taints, State: cluster.NodeReady,
		InstanceType: t.Name, Owner: Owner, OwnerName: p.Spec.Name}
}

// Add compiles a NodePool and puts it in force (replacing one of the same
// name).
func (np *NodePools) Add(spec apis.NodePool) *Pool {
	s := spec
	p := np.build(&s)
	np.weightOrder = nil
	np.base.Invalidate()
	if old, ok := np.ByName[spec.Name]; ok {
		// Replace in place so nodes keep pointing at the pool in force.
		*old = *p
		np.evaluateOverlays()
		return old
	}
	np.All = append(np.All, p)
	np.ByName[spec.Name] = p
	sort.SliceStable(np.All, func(i, j int) bool { return np.All[i].Spec.Name < np.All[j].Spec.Name })
	np.evaluateOverlays()
	return p
}

// SetDaemonOverhead sets the DaemonSet overhead hook and rebuilds the
// pools with it.
func (np *NodePools) SetDaemonOverhead(f DaemonOverheadFunc) {
	np.daemonOverhead = f
	np.weightOrder = nil
	np.base.Invalidate()
	for _, p := range np.All {
		*p = *np.build(p.Spec)
	}
}

// StaticClaim is a NodeClaim of a static pool (KC NewNodeClaimTemplate
// for a pool with replicas): no pods, the pool's requirements only, and
// every instance type the pool allows as its options (KC leaves the
// instance-type requirement out for static NodeClaims; the cloud
// provider's Create then takes every compatible type, and nothing needs
// to fit).
func (np *NodePools) StaticClaim(p *Pool) *Claim {
	c := &Claim{Pool: p, Requirements: p.Requirements, OfferingMask: np.offerings.OfferingMask(p.Requirements)}
	c.Options = make([]int32, len(p.Types))
	for i := range c.Options {
		c.Options[i] = int32(i)
	}
	return c
}
