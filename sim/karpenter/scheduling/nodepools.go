package scheduling

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// nodePools holds the NodePools in force, with what the solver derives
// from them, and their counters.
type NodePools struct {
	Env
	Offerings *Offerings
	Nodes     *NodeIndex
	Base      *ExistingBase
	All       []*Pool // by name
	ByName    map[string]*Pool
	// order: the pools in weight order (ordered), nil when stale.
	Order          []*Pool
	DaemonOverhead DaemonOverheadFunc
}

// daemonOverheadFunc returns the requests of the DaemonSet pods that would
// run on a node like template (labels of the pool and the instance type,
// the pool's taints; zone and capacity type not yet known).
type DaemonOverheadFunc func(template *cluster.Node) cluster.Resources

// pool is a NodePool in force, with what the solver derives from it.
type Pool struct {
	Spec *apis.NodePool
	// reqs are the pool's requirements plus its labels (as In) and
	// karpenter.sh/nodepool In [name] (KC NodeClaimTemplate).
	Reqs Requirements
	// types are the instance types compatible with the pool's
	// requirements that have some offering the pool allows, in catalogue
	// order.
	Types []PoolType
	// typeByIdx maps an itype index to its position in types (-1: none).
	TypeByIdx []int32
	// tolerate: the pool has a PreferNoSchedule taint (relaxation then
	// adds a toleration for those).
	HasPNS bool
	// newClaim caches, per placeholder number n, the requirements and
	// offering mask of a solve's n-th NodeClaim from this pool before any
	// pod joins (reqs plus its placeholder hostname): every solve starts
	// its NodeClaims alike.
	NewClaim []claimStart
}

type claimStart struct {
	Reqs Requirements
	Mask uint64
}

func (np *NodePools) build(spec *apis.NodePool) *Pool {
	p := &Pool{Spec: spec, HasPNS: spec.HasPreferNoScheduleTaint()}
	p.Reqs = np.PoolReqs(spec)
	mask := np.Offerings.OfferMask(p.Reqs)
	p.TypeByIdx = make([]int32, len(np.Offerings.Types))
	for i := range p.TypeByIdx {
		p.TypeByIdx[i] = -1
	}
	for _, t := range np.Offerings.Types {
		pt, ok := np.PoolType(p, t, mask)
		if !ok {
			continue
		}
		p.TypeByIdx[t.Idx] = int32(len(p.Types))
		p.Types = append(p.Types, pt)
	}
	return p
}

// poolReqs are the requirements of a pool of spec (pool.reqs).
func (np *NodePools) PoolReqs(spec *apis.NodePool) Requirements {
	syms := np.Cl.Syms
	var rs []Requirement
	for i := range spec.Requirements {
		r := fromRequirement(&spec.Requirements[i].Requirement)
		r.MinValues = spec.Requirements[i].MinValues
		rs = append(rs, r)
	}
	for _, l := range spec.Labels {
		rs = append(rs, Single(l.Key, l.Value))
	}
	rs = append(rs, Single(np.KeyNodePool, syms.Intern(spec.Name)))
	return SortReqs(syms, rs)
}

// poolType is instance type t as pool p launches it (p.reqs set; mask:
// the offerings they allow), false when the pool cannot: t does not meet
// the requirements or has no offering in mask.
func (np *NodePools) PoolType(p *Pool, t *InstanceType, mask uint64) (PoolType, bool) {
	if !np.Offerings.TypeCompatible(t, p.Reqs) {
		return PoolType{}, false
	}
	has := false
	base := np.Offerings.Off.Index(t.Idx, 0, 0)
	for b := 0; b < np.Offerings.Off.NZones*NumCT; b++ {
		if mask&(1<<uint(b)) != 0 && np.Offerings.Off.Price[base+b] >= 0 {
			has = true
			break
		}
	}
	if !has {
		return PoolType{}, false
	}
	pt := PoolType{Type: t}
	pt.Capacity, pt.Alloc = np.Offerings.NodeResources(t.Cat, &p.Spec.NodeClass)
	if np.DaemonOverhead != nil {
		pt.Daemon = np.DaemonOverhead(np.templateNode(p, t))
	}
	return pt, true
}

// ordered returns the pools in weight order, kept until a pool
// changes (add, setDaemonOverhead).
func (np *NodePools) Ordered() []*Pool {
	if np.Order == nil {
		np.Order = OrderPools(np.All)
	}
	return np.Order
}

// orderPools sorts pools as KC nodepoolutils.OrderByWeight: weight
// descending, then name descending (upstream compares names with ">").
func OrderPools(ps []*Pool) []*Pool {
	out := append([]*Pool(nil), ps...)
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
	for i := range p.Reqs {
		r := &p.Reqs[i]
		if !r.Comp && len(r.Vals) == 1 {
			labels = labels.With(r.Key, r.Vals[0])
		}
	}
	for tk, v := range t.Lab {
		if v != cluster.NoSym {
			labels = labels.With(np.Offerings.TypeKey[tk], v)
		}
	}
	return &cluster.Node{Name: p.Spec.Name + "-template", Labels: labels, Taints: p.Spec.Taints, State: cluster.NodeReady,
		InstanceType: t.Name, Owner: Owner, OwnerName: p.Spec.Name}
}

func (np *NodePools) Add(spec apis.NodePool) *Pool {
	s := spec
	p := np.build(&s)
	np.Order = nil
	np.Base.Invalidate()
	if old, ok := np.ByName[spec.Name]; ok {
		// Replace in place so nodes keep pointing at the pool in force.
		*old = *p
		return old
	}
	np.All = append(np.All, p)
	np.ByName[spec.Name] = p
	sort.SliceStable(np.All, func(i, j int) bool { return np.All[i].Spec.Name < np.All[j].Spec.Name })
	return p
}

// setDaemonOverhead sets the DaemonSet overhead hook and rebuilds the
// pools with it.
func (np *NodePools) SetDaemonOverhead(f DaemonOverheadFunc) {
	np.DaemonOverhead = f
	np.Order = nil
	np.Base.Invalidate()
	for _, p := range np.All {
		*p = *np.build(p.Spec)
	}
}
