package karpenter

import (
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// nodePools holds the NodePools in force, with what the solver derives
// from them, and their counters.
type nodePools struct {
	schedEnv
	offerings *offerings
	nodes     *nodeIndex
	base      *existingBase
	all       []*pool // by name
	byName    map[string]*pool
	// order: the pools in weight order (ordered), nil when stale.
	order          []*pool
	daemonOverhead daemonOverheadFunc
}

// daemonOverheadFunc returns the requests of the DaemonSet pods that would
// run on a node like template (labels of the pool and the instance type,
// the pool's taints; zone and capacity type not yet known).
type daemonOverheadFunc func(template *cluster.Node) cluster.Resources

// pool is a NodePool in force, with what the solver derives from it.
type pool struct {
	spec *apis.NodePool
	// reqs are the pool's requirements plus its labels (as In) and
	// karpenter.sh/nodepool In [name] (KC NodeClaimTemplate).
	reqs reqSet
	// types are the instance types compatible with the pool's
	// requirements that have some offering the pool allows, in catalogue
	// order.
	types []poolType
	// typeByIdx maps an itype index to its position in types (-1: none).
	typeByIdx []int32
	// tolerate: the pool has a PreferNoSchedule taint (relaxation then
	// adds a toleration for those).
	hasPNS bool
	// newClaim caches, per placeholder number n, the requirements and
	// offering mask of a solve's n-th NodeClaim from this pool before any
	// pod joins (reqs plus its placeholder hostname): every solve starts
	// its NodeClaims alike.
	newClaim []claimStart
}

type claimStart struct {
	reqs reqSet
	mask uint64
}

func (np *nodePools) build(spec *apis.NodePool) *pool {
	p := &pool{spec: spec, hasPNS: spec.HasPreferNoScheduleTaint()}
	p.reqs = np.poolReqs(spec)
	mask := np.offerings.offerMask(p.reqs)
	p.typeByIdx = make([]int32, len(np.offerings.types))
	for i := range p.typeByIdx {
		p.typeByIdx[i] = -1
	}
	for _, t := range np.offerings.types {
		pt, ok := np.poolType(p, t, mask)
		if !ok {
			continue
		}
		p.typeByIdx[t.idx] = int32(len(p.types))
		p.types = append(p.types, pt)
	}
	return p
}

// poolReqs are the requirements of a pool of spec (pool.reqs).
func (np *nodePools) poolReqs(spec *apis.NodePool) reqSet {
	syms := np.cl.Syms
	var rs []rq
	for i := range spec.Requirements {
		r := fromRequirement(&spec.Requirements[i].Requirement)
		r.minValues = spec.Requirements[i].MinValues
		rs = append(rs, r)
	}
	for _, l := range spec.Labels {
		rs = append(rs, single(l.Key, l.Value))
	}
	rs = append(rs, single(np.keyNodePool, syms.Intern(spec.Name)))
	return sortReqs(syms, rs)
}

// poolType is instance type t as pool p launches it (p.reqs set; mask:
// the offerings they allow), false when the pool cannot: t does not meet
// the requirements or has no offering in mask.
func (np *nodePools) poolType(p *pool, t *itype, mask uint64) (poolType, bool) {
	if !np.offerings.typeCompatible(t, p.reqs) {
		return poolType{}, false
	}
	has := false
	base := np.offerings.off.index(t.idx, 0, 0)
	for b := 0; b < np.offerings.off.nZones*numCT; b++ {
		if mask&(1<<uint(b)) != 0 && np.offerings.off.price[base+b] >= 0 {
			has = true
			break
		}
	}
	if !has {
		return poolType{}, false
	}
	pt := poolType{t: t}
	pt.capacity, pt.alloc = np.offerings.nodeResources(t.cat, &p.spec.NodeClass)
	if np.daemonOverhead != nil {
		pt.daemon = np.daemonOverhead(np.templateNode(p, t))
	}
	return pt, true
}

// ordered returns the pools in weight order, kept until a pool
// changes (add, setDaemonOverhead).
func (np *nodePools) ordered() []*pool {
	if np.order == nil {
		np.order = orderPools(np.all)
	}
	return np.order
}

// orderPools sorts pools as KC nodepoolutils.OrderByWeight: weight
// descending, then name descending (upstream compares names with ">").
func orderPools(ps []*pool) []*pool {
	out := append([]*pool(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].spec, out[j].spec
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
func (np *nodePools) templateNode(p *pool, t *itype) *cluster.Node {
	labels := append(cluster.Labels(nil), p.spec.Labels...)
	for i := range p.reqs {
		r := &p.reqs[i]
		if !r.comp && len(r.vals) == 1 {
			labels = labels.With(r.key, r.vals[0])
		}
	}
	for tk, v := range t.lab {
		if v != cluster.NoSym {
			labels = labels.With(np.offerings.typeKey[tk], v)
		}
	}
	return &cluster.Node{Name: p.spec.Name + "-template", Labels: labels, Taints: p.spec.Taints, State: cluster.NodeReady,
		InstanceType: t.name, Owner: cluster.OwnedByKarpenter, OwnerName: p.spec.Name}
}

func (np *nodePools) add(spec apis.NodePool) *pool {
	s := spec
	p := np.build(&s)
	np.order = nil
	np.base.invalidate()
	if old, ok := np.byName[spec.Name]; ok {
		// Replace in place so nodes keep pointing at the pool in force.
		*old = *p
		return old
	}
	np.all = append(np.all, p)
	np.byName[spec.Name] = p
	sort.SliceStable(np.all, func(i, j int) bool { return np.all[i].spec.Name < np.all[j].spec.Name })
	return p
}

// setDaemonOverhead sets the DaemonSet overhead hook and rebuilds the
// pools with it.
func (np *nodePools) setDaemonOverhead(f daemonOverheadFunc) {
	np.daemonOverhead = f
	np.order = nil
	np.base.invalidate()
	for _, p := range np.all {
		*p = *np.build(p.spec)
	}
}
