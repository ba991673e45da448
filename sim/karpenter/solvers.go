package karpenter

import (
	"slices"
	"sort"
	"strconv"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// schedEnv is what every part of the solve reads: the engine, the
// cluster, the catalogue, the price list, the settings and the label keys
// interned once.
type schedEnv struct {
	eng      *engine.Engine
	cl       *cluster.Cluster
	cat      *catalog.Catalog
	cloud    prices
	settings apis.Settings

	keyNodePool  cluster.Sym
	wellKnownSet map[cluster.Sym]bool
	normalized   map[cluster.Sym]cluster.Sym
}

// prices is the price list of EC2's offerings.
type prices interface {
	// Price is an offering's current price in USD/hour; false when the
	// offering is not sold.
	Price(o cloud.Offering) (float64, bool)
}

func (e *schedEnv) wellKnown(key cluster.Sym) bool { return e.wellKnownSet[key] }

func (e *schedEnv) normalize(key cluster.Sym) cluster.Sym {
	if n, ok := e.normalized[key]; ok {
		return n
	}
	return key
}

// solvers makes the solvers of provisioning batches and disruption
// what-ifs (KC provisioner.NewScheduler), and keeps what solves share:
// pod templates, the pod-independent filters' answers, free lists.
type solvers struct {
	schedEnv
	offerings *offerings
	nodes     *nodeIndex
	pools     *nodePools
	base      *existingBase

	nsLabels map[cluster.Sym]cluster.Labels
	solveSeq uint32
	podMark  []uint32 // per PodID: stamp of the last solve that moved it
	// Free lists of what-ifs' pod data, node copies and solvers (recycle).
	pdFree     []*podData
	pdsFree    []*podData
	exFree     []*exNode
	solverFree []*solver
	podStatics map[pdKey]*podStatic
	// placeholders are the interned placeholder hostnames by number.
	placeholders []cluster.Sym
	staticsAt    engine.Time
	specs        cluster.SpecClasses
	statics      map[staticKey]*cluster.NodeVerdicts
}

// newSolver snapshots the cluster for one solve.
func (sv *solvers) newSolver(pods []cluster.PodID, o solveOpts) *solver {
	sv.offerings.refreshPrices()
	cl := sv.cl
	s := sv.freshSolver(o.consolidation)
	s.avail = sv.offerings.availMasks()
	s.now = sv.eng.Now()
	s.pools = sv.pools.ordered()
	for _, p := range s.pools {
		s.anyPNS = s.anyPNS || p.hasPNS
	}
	// The pods this solve moves carry its stamp (a slice by PodID instead
	// of a map per solve: the what-ifs of a disruption pass are many).
	sv.solveSeq++
	s.stamp = sv.solveSeq
	if n := len(cl.Pods); len(sv.podMark) < n {
		sv.podMark = append(sv.podMark, make([]uint32, n-len(sv.podMark))...)
	}
	for _, id := range pods {
		sv.podMark[id] = s.stamp
	}
	if pods == nil {
		for _, ps := range o.sets {
			for _, id := range ps.pods {
				sv.podMark[id] = s.stamp
			}
		}
	}
	universe := o.universe
	if universe == nil {
		universe = sv.domainUniverse(s.pools)
	}
	s.topo = &topology{k: sv, universe: universe}

	// Existing nodes: every live node not being deleted, initialized
	// first, then by name. The snapshot is shared while nothing changes
	// (the what-ifs of one disruption pass share it); the solve keeps its
	// changes in an overlay.
	s.ec = sv.base.current()
	s.base = s.ec.list
	for _, id := range o.exclude {
		if pos := s.basePos(id); pos >= 0 {
			s.ec.slots[pos] = exSlot{stamp: s.stamp, excluded: true, touched: -1}
		}
	}
	s.topo.s = s

	// Limits: what each pool's active nodes already use.
	n := len(s.pools)
	s.remaining = slices.Grow(s.remaining[:0], n)[:n]
	s.hasLimit = slices.Grow(s.hasLimit[:0], n)[:n]
	s.nodesLeft = slices.Grow(s.nodesLeft[:0], n)[:n]
	for i, p := range s.pools {
		l := p.spec.Limits
		used, n := s.ec.poolCap[p], s.ec.poolNodes[p]
		for _, id := range o.exclude {
			if pos := s.basePos(id); pos >= 0 {
				if kn := sv.nodes.get(id); kn != nil && kn.pool == p {
					used = used.Sub(kn.capacity)
					n--
				}
			}
		}
		s.remaining[i] = l.Max.Sub(used)
		s.hasLimit[i] = l.Has
		s.nodesLeft[i] = l.Nodes
		if l.Nodes > 0 {
			s.nodesLeft[i] = max(l.Nodes-n, 0)
		}
	}

	// Inverse anti-affinity of pods already running.
	if sv.nodes.antiBound > 0 {
		for i := range s.base {
			if !s.excludedPos(i) {
				s.addExistingInverse(s.base[i].node)
			}
		}
		for _, kn := range sv.nodes.live {
			if kn.deleting || kn.inCommand {
				s.addExistingInverse(&cl.Nodes[kn.id])
			}
		}
	}
	// Register every pod's own groups before scheduling (KC NewTopology
	// calls Update for each pod first), in order of first appearance.
	if s.sets = o.sets; s.sets != nil {
		for _, ps := range s.sets {
			if !ps.topology {
				continue // no groups: its podData can wait until used
			}
			for _, key := range ps.keys {
				s.podData(key.spec, key.ns, relax{})
			}
		}
		return s
	}
	for _, id := range pods {
		p := &cl.Pods[id]
		s.podData(p.Spec, p.Namespace, relax{})
	}
	return s
}

// freshSolver returns an empty solver, reusing the buffers of one a
// finished what-if gave back (recycle).
func (sv *solvers) freshSolver(consolidation bool) *solver {
	n := len(sv.solverFree)
	if n == 0 {
		return &solver{k: sv, consolidat: consolidation}
	}
	s := sv.solverFree[n-1]
	sv.solverFree = sv.solverFree[:n-1]
	*s = solver{k: sv, consolidat: consolidation,
		remaining: s.remaining, hasLimit: s.hasLimit, nodesLeft: s.nodesLeft,
		scratch: s.scratch[:0], newOpts: s.newOpts[:0], checks: s.checks[:0], lchecks: s.lchecks[:0],
		retry: s.retry[:0], failed: s.failed[:0], touched: s.touched[:0]}
	return s
}

// recycle takes back the pod data and node copies of a what-if whose
// solver is done with (only its NodeClaims may still be used).
func (sv *solvers) recycle(s *solver) {
	for _, ex := range s.touched {
		sv.exFree = append(sv.exFree, ex)
	}
	for i, pd := range s.pds {
		if pd != nil {
			sv.pdFree = append(sv.pdFree, pd)
			s.pds[i] = nil
		}
	}
	sv.pdsFree = s.pds[:0]
	s.touched, s.exists, s.pds = s.touched[:0], nil, nil
	s.lastPD = nil
	// Its NodeClaims (and the slice listing them) may live on in a
	// command: never reused.
	s.claims, s.order = nil, nil
	sv.solverFree = append(sv.solverFree, s)
}

// domainUniverse lists, per topology key, the domains the pools could
// launch into: zones and capacity types from the offerings they allow, and
// the values of In requirements for other keys.
func (sv *solvers) domainUniverse(pools []*pool) map[cluster.Sym][]cluster.Sym {
	u := map[cluster.Sym][]cluster.Sym{}
	add := func(key, v cluster.Sym) {
		for _, have := range u[key] {
			if have == v {
				return
			}
		}
		u[key] = append(u[key], v)
	}
	for _, p := range pools {
		m := sv.offerings.offerMask(p.reqs)
		for z, zs := range sv.offerings.zoneSyms {
			for ct := 0; ct < numCT; ct++ {
				if m&(1<<uint(z*numCT+ct)) != 0 {
					add(sv.cl.KeyZone, zs)
					add(sv.cl.KeyCapacityType, sv.offerings.ctSyms[ct])
				}
			}
		}
		for i := range p.reqs {
			r := &p.reqs[i]
			if r.key == sv.cl.KeyZone || r.key == sv.cl.KeyCapacityType || r.comp {
				continue
			}
			for _, v := range r.vals {
				add(r.key, v)
			}
		}
	}
	return u
}

// claimStart returns the requirements and offering mask of a solve's
// n-th NodeClaim from pool p, whose placeholder hostname is h.
func (sv *solvers) claimStart(p *pool, n int, h cluster.Sym) claimStart {
	for len(p.newClaim) <= n {
		p.newClaim = append(p.newClaim, claimStart{})
	}
	if st := p.newClaim[n]; st.reqs != nil {
		return st
	}
	reqs := p.reqs.with(sv.cl.Syms, single(sv.cl.KeyHostname, h))
	p.newClaim[n] = claimStart{reqs: reqs, mask: sv.offerings.offerMask(reqs)}
	return p.newClaim[n]
}

// placeholder returns the placeholder hostname of a solve's n-th
// NodeClaim (n >= 1), interned once, when first needed (symbol numbers
// must not change).
func (sv *solvers) placeholder(n int) cluster.Sym {
	if len(sv.placeholders) == 0 {
		sv.placeholders = append(sv.placeholders, cluster.NoSym) // no 0th
	}
	for len(sv.placeholders) <= n {
		sv.placeholders = append(sv.placeholders, sv.cl.Syms.Intern("hostname-placeholder-"+strconv.Itoa(len(sv.placeholders))))
	}
	return sv.placeholders[n]
}

// sortedOptions orders a claim's instance types by their cheapest
// available offering the claim allows (KC InstanceTypes.OrderByPrice),
// then by name.
func (sv *solvers) sortedOptions(c *claim) {
	type opt struct {
		pos   int32
		price float64
	}
	opts := make([]opt, len(c.opts))
	for i, pos := range c.opts {
		opts[i] = opt{pos, sv.offerings.cheapest(c.pool.types[pos].t, c.mask)}
	}
	sort.Slice(opts, func(i, j int) bool {
		if opts[i].price != opts[j].price {
			return opts[i].price < opts[j].price
		}
		return c.pool.types[opts[i].pos].t.name < c.pool.types[opts[j].pos].t.name
	})
	for i := range opts {
		c.opts[i] = opts[i].pos
	}
}

func (sv *solvers) newPodSet(pods []cluster.PodID) *podSet {
	b := setBuilder{ps: &podSet{pods: pods, qkeys: make([]qkey, 0, len(pods))}}
	for _, id := range pods {
		b.add(sv, sv.queueKey(id, &sv.cl.Pods[id]))
	}
	return b.ps
}

// specClass numbers pod specs by the content the existing-node filters
// read: tolerations, node name, node selector and affinity, preferred
// node affinity and requests. Specs with equal content share a class.
func (sv *solvers) specClass(spec *cluster.PodSpec) int32 {
	id, _ := sv.specs.Of(spec)
	return id
}
