package scheduling

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
type env struct {
	eng      *engine.Engine
	cl       *cluster.Cluster
	cat      *catalog.Catalog
	cloud    Prices
	settings apis.Settings

	keyNodePool  cluster.Sym
	wellKnownSet map[cluster.Sym]bool
	// autoModeKnown are the eks.amazonaws.com instance labels, well
	// known to EKS Auto Mode's Karpenter only (pools of its NodeClass).
	autoModeKnown map[cluster.Sym]bool
	normalized    map[cluster.Sym]cluster.Sym
}

// Prices is the price list of EC2's offerings (sim/spotmarket's Market
// and Karpenter's Cloud satisfy it).
type Prices interface {
	// Price is an offering's current price in USD/hour; false when the
	// offering is not sold.
	Price(o cloud.Offering) (float64, bool)
}

func (e *env) wellKnown(key cluster.Sym) bool { return e.wellKnownSet[key] }

func (e *env) wellKnownAuto(key cluster.Sym) bool { return e.wellKnownSet[key] || e.autoModeKnown[key] }

// wellKnownIn is the well-known test of pool p: Auto Mode's Karpenter
// also knows its eks.amazonaws.com instance labels.
func (e *env) wellKnownIn(p *Pool) func(cluster.Sym) bool {
	if p.Spec.NodeClass.AutoMode {
		return e.wellKnownAuto
	}
	return e.wellKnown
}

func (e *env) normalize(key cluster.Sym) cluster.Sym {
	if n, ok := e.normalized[key]; ok {
		return n
	}
	return key
}

// Solvers makes the solvers of provisioning batches and disruption
// what-ifs (KC provisioner.NewScheduler), and keeps what solves share:
// pod templates, the pod-independent filters' answers, free lists.
type Solvers struct {
	env
	offerings *Offerings
	nodes     *NodeIndex
	pools     *NodePools
	base      *ExistingBase

	// NamespaceLabels are the namespaces' labels, for affinity terms with
	// namespace selectors.
	NamespaceLabels map[cluster.Sym]cluster.Labels
	solveSeq        uint32
	podMark         []uint32 // per PodID: stamp of the last solve that moved it
	// virtual are the CapacityBuffers' virtual pods (virtual.go) and
	// virtualMark their stamps.
	virtual     []cluster.Pod
	virtualMark []uint32
	// Free lists of what-ifs' pod data, node copies and solvers (recycle).
	pdFree     []*PodData
	pdsFree    []*PodData
	exFree     []*ExistingNode
	solverFree []*Solver
	// PodStatics caches the templates' static data at PodStaticsAt.
	PodStatics map[PodKey]*podStatic
	// Placeholders are the interned placeholder hostnames by number.
	Placeholders []cluster.Sym
	podStaticsAt engine.Time
	// specClasses numbers pod specs by content (podStatic.Class).
	specClasses cluster.SpecClasses
	// Verdicts caches static fit verdicts of existing nodes, per spec class
	// and relaxation.
	Verdicts map[verdictKey]*cluster.NodeVerdicts
}

// NewSolver snapshots the cluster for one solve.
func (sv *Solvers) NewSolver(pods []cluster.PodID, o SolveOpts) *Solver {
	sv.offerings.RefreshPrices()
	cl := sv.cl
	s := sv.freshSolver(o.Consolidation)
	s.budget, s.cost = o.Budget, o.Cost
	s.reservedFallback = o.ReservedFallback
	s.Available = sv.offerings.AvailableMasks()
	s.Now = sv.eng.Now()
	s.Pools = sv.pools.Ordered()
	for _, p := range s.Pools {
		s.anyPNS = s.anyPNS || p.HasPreferNoSchedule
	}
	// The pods this solve moves carry its stamp (a slice by PodID instead
	// of a map per solve: the what-ifs of a disruption pass are many).
	sv.solveSeq++
	s.stamp = sv.solveSeq
	if n := len(cl.Pods); len(sv.podMark) < n {
		sv.podMark = append(sv.podMark, make([]uint32, n-len(sv.podMark))...)
	}
	for _, id := range pods {
		*sv.mark(id) = s.stamp
	}
	if pods == nil {
		for _, ps := range o.Sets {
			for _, id := range ps.Pods {
				*sv.mark(id) = s.stamp
			}
		}
	}
	universe := o.Universe
	if universe == nil {
		universe = sv.DomainUniverse(s.Pools)
	}
	s.Topology = &topology{k: sv, universe: universe}

	// Existing nodes: every live node not being deleted, initialized
	// first, then by name. The snapshot is shared while nothing changes
	// (the what-ifs of one disruption pass share it); the solve keeps its
	// changes in an overlay.
	s.Snapshot = sv.base.Current()
	s.Base = s.Snapshot.Nodes
	for _, id := range o.Exclude {
		if pos := s.BasePosition(id); pos >= 0 {
			s.Snapshot.slots[pos] = exSlot{stamp: s.stamp, excluded: true, touched: -1}
		}
	}
	s.Topology.s = s

	// Limits: what each pool's active nodes already use.
	n := len(s.Pools)
	s.Remaining = slices.Grow(s.Remaining[:0], n)[:n]
	s.hasLimit = slices.Grow(s.hasLimit[:0], n)[:n]
	s.NodesLeft = slices.Grow(s.NodesLeft[:0], n)[:n]
	for i, p := range s.Pools {
		l := p.Spec.Limits
		used, n := s.Snapshot.PoolCapacity[p], s.Snapshot.PoolNodes[p]
		for _, id := range o.Exclude {
			if pos := s.BasePosition(id); pos >= 0 {
				if kn := sv.nodes.get(id); kn != nil && kn.Pool == p {
					used = used.Sub(kn.Capacity)
					n--
				}
			}
		}
		s.Remaining[i] = l.Max.Sub(used)
		s.hasLimit[i] = l.Has
		s.NodesLeft[i] = l.Nodes
		if l.Nodes > 0 {
			s.NodesLeft[i] = max(l.Nodes-n, 0)
		}
	}

	// Inverse anti-affinity of pods already running.
	if sv.nodes.BoundAntiAffinityPods > 0 {
		for i := range s.Base {
			if !s.excludedPos(i) {
				s.addExistingInverse(s.Base[i].node)
			}
		}
		for _, kn := range sv.nodes.live {
			if kn.Deleting || kn.InCommand {
				s.addExistingInverse(&cl.Nodes[kn.ID])
			}
		}
	}
	// Register every pod's own groups before scheduling (KC NewTopology
	// calls Update for each pod first), in order of first appearance.
	if s.Sets = o.Sets; s.Sets != nil {
		for _, ps := range s.Sets {
			if !ps.HasTopology {
				continue // no groups: its podData can wait until used
			}
			for _, key := range ps.Templates {
				s.PodData(key.Spec, key.Namespace, Relaxation{})
			}
		}
		return s
	}
	for _, id := range pods {
		p := sv.pod(id)
		s.PodData(p.Spec, p.Namespace, Relaxation{})
	}
	return s
}

// freshSolver returns an empty solver, reusing the buffers of one a
// finished what-if gave back (recycle).
func (sv *Solvers) freshSolver(consolidation bool) *Solver {
	n := len(sv.solverFree)
	if n == 0 {
		return &Solver{Shared: sv, consolidat: consolidation}
	}
	s := sv.solverFree[n-1]
	sv.solverFree = sv.solverFree[:n-1]
	*s = Solver{Shared: sv, consolidat: consolidation,
		Remaining: s.Remaining, hasLimit: s.hasLimit, NodesLeft: s.NodesLeft,
		scratch: s.scratch[:0], newOpts: s.newOpts[:0], checks: s.checks[:0], lchecks: s.lchecks[:0],
		retry: s.retry[:0], Failed: s.Failed[:0], touched: s.touched[:0]}
	return s
}

// Recycle takes back the pod data and node copies of a what-if whose
// solver is done with (only its NodeClaims may still be used).
func (sv *Solvers) Recycle(s *Solver) {
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
	s.touched, s.Existing, s.pds = s.touched[:0], nil, nil
	s.lastPD = nil
	// Its NodeClaims (and the slice listing them) may live on in a
	// command: never reused.
	s.Claims, s.Order = nil, nil
	sv.solverFree = append(sv.solverFree, s)
}

// DomainUniverse lists, per topology key, the domains the pools could
// launch into: zones and capacity types from the offerings they allow, and
// the values of In requirements for other keys.
func (sv *Solvers) DomainUniverse(pools []*Pool) map[cluster.Sym][]cluster.Sym {
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
		m := sv.offerings.OfferingMask(p.Requirements)
		for z, zs := range sv.offerings.zoneSyms {
			for ct := 0; ct < NumCapacityTypes; ct++ {
				if m&(1<<uint(z*NumCapacityTypes+ct)) != 0 {
					add(sv.cl.KeyZone, zs)
					add(sv.cl.KeyCapacityType, sv.offerings.CapacityTypeSyms[ct])
				}
			}
		}
		for i := range p.Requirements {
			r := &p.Requirements[i]
			if r.Key == sv.cl.KeyZone || r.Key == sv.cl.KeyCapacityType || r.Complement {
				continue
			}
			for _, v := range r.Values {
				add(r.Key, v)
			}
		}
	}
	return u
}

// claimStart returns the requirements and offering mask of a solve's
// n-th NodeClaim from pool p, whose placeholder hostname is h.
func (sv *Solvers) claimStart(p *Pool, n int, h cluster.Sym) claimStart {
	for len(p.ClaimStarts) <= n {
		p.ClaimStarts = append(p.ClaimStarts, claimStart{})
	}
	if st := p.ClaimStarts[n]; st.requirements != nil {
		return st
	}
	reqs := p.Requirements.With(sv.cl.Syms, RequirementIn(sv.cl.KeyHostname, h))
	p.ClaimStarts[n] = claimStart{requirements: reqs, OfferingMask: sv.offerings.OfferingMask(reqs)}
	return p.ClaimStarts[n]
}

// placeholder returns the placeholder hostname of a solve's n-th
// NodeClaim (n >= 1), interned once, when first needed (symbol numbers
// must not change).
func (sv *Solvers) placeholder(n int) cluster.Sym {
	if len(sv.Placeholders) == 0 {
		sv.Placeholders = append(sv.Placeholders, cluster.NoSym) // no 0th
	}
	for len(sv.Placeholders) <= n {
		sv.Placeholders = append(sv.Placeholders, sv.cl.Syms.Intern("hostname-placeholder-"+strconv.Itoa(len(sv.Placeholders))))
	}
	return sv.Placeholders[n]
}

// SortedOptions orders a claim's instance types by their cheapest
// available offering the claim allows (KC InstanceTypes.OrderByPrice),
// then by name.
func (sv *Solvers) SortedOptions(c *Claim) {
	type opt struct {
		pos   int32
		price float64
	}
	opts := make([]opt, len(c.Options))
	for i, pos := range c.Options {
		opts[i] = opt{pos, sv.offerings.Cheapest(c.Pool, c.Pool.Types[pos].Type, c.OfferingMask)}
	}
	sort.Slice(opts, func(i, j int) bool {
		if opts[i].price != opts[j].price {
			return opts[i].price < opts[j].price
		}
		return c.Pool.Types[opts[i].pos].Type.Name < c.Pool.Types[opts[j].pos].Type.Name
	})
	for i := range opts {
		c.Options[i] = opts[i].pos
	}
}

// NewPodSet prepares pods for solves that share them.
func (sv *Solvers) NewPodSet(pods []cluster.PodID) *PodSet {
	b := SetBuilder{Set: &PodSet{Pods: pods, QueueKeys: make([]QueueKey, 0, len(pods))}}
	for _, id := range pods {
		b.Add(sv, sv.queueKey(id, sv.pod(id)))
	}
	return b.Set
}

// specClass numbers pod specs by the content the existing-node filters
// read: tolerations, node name, node selector and affinity, preferred
// node affinity and requests. Specs with equal content share a class.
func (sv *Solvers) specClass(spec *cluster.PodSpec) int32 {
	id, _ := sv.specClasses.Of(spec)
	return id
}
