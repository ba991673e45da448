package karpenter

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// Linter answers sim lint's question about Karpenter without running a
// simulation: could this NodePool ever launch a node, of this capacity
// type, that a pod with this spec fits? The verdict comes from the
// provisioning solver itself, run on an empty cluster for a single pod, so
// lint and the simulation share one implementation of the matching rules
// (taints, requirements and well-known labels, instance types, offerings,
// limits, minValues, DaemonSet overhead). When the solver finds no node,
// Check walks the same steps, with the same functions, to say which one
// failed.
//
// Pod-to-pod constraints (topology spread, pod affinity and anti-affinity)
// and preferences are left out: they depend on where other pods are, not
// on the NodePool.
type Linter struct {
	k  *Karpenter
	cl *cluster.Cluster
	// static are the static pools' nodes: their pools are built as
	// dynamic ones here, so the solver judges a pod on exactly the nodes
	// the static controller would launch.
	static map[string]staticNodes
}

// staticNodes are what a static pool launches: the instance types its
// launch may answer with per capacity type (on-demand: the cheapest;
// spot: any the request lists, as price-capacity-optimized may pick),
// spot when offered, on-demand when the pool allows it and spot runs dry.
type staticNodes struct {
	types    map[cluster.CapacityType][]string
	replicas int64
	// gateOff: the StaticCapacity gate is off, the pool keeps nothing.
	gateOff bool
}

// PriceFunc is an offering's price in USD/hour; false when EC2 does not
// sell it (sim/spotmarket's Market.Price).
type PriceFunc func(o cloud.Offering) (float64, bool)

// NewLinter builds a Karpenter controller for the pools on a cluster of its
// own, at time 0, with every offering that prices knows available, and
// the NodeOverlays in force as in a run (with the gate on). syms is
// interned into (give a clone of the scenario's); daemon, when set, is the
// DaemonSet overhead of a new node, as in a run.
func NewLinter(syms *cluster.Symbols, res *cluster.ResourceNames, cat *catalog.Catalog, prices PriceFunc,
	region string, zones []string, pools []NodePool, overlays []apis.NodeOverlay, settings Settings, daemon DaemonOverheadFunc,
	reservations ...cloud.Reservation) (*Linter, error) {
	eng := engine.New(0)
	cl := cluster.New(eng, syms, res)
	dynamic := make([]NodePool, len(pools))
	for i, p := range pools {
		dynamic[i] = p
		dynamic[i].Static = false
	}
	var lc Cloud = priceCloud(prices)
	if len(reservations) > 0 {
		lc = reservedCloud{priceCloud(prices), reservations}
	}
	k, err := New(Deps{Engine: eng, Cluster: cl, Catalog: cat, Cloud: lc, Evictor: noEvictions{}},
		Config{Region: region, Zones: zones, NodePools: dynamic, NodeOverlays: overlays, Settings: settings})
	if err != nil {
		return nil, err
	}
	if daemon != nil {
		k.SetDaemonOverhead(daemon)
	}
	l := &Linter{k: k, cl: cl, static: map[string]staticNodes{}}
	for _, p := range pools {
		if p.Static {
			st := l.staticNodes(k.pools.ByName[p.Name], p.Replicas)
			st.gateOff = !settings.StaticCapacity
			l.static[p.Name] = st
		}
	}
	return l, nil
}

// staticNodes is what the launch of a static NodeClaim of p asks for,
// for each capacity type the pool allows.
func (l *Linter) staticNodes(p *scheduling.Pool, replicas int64) staticNodes {
	out := staticNodes{types: map[cluster.CapacityType][]string{}, replicas: replicas}
	for _, cti := range []int{scheduling.SpotIndex, scheduling.OnDemandIndex} {
		c := l.k.pools.StaticClaim(p)
		c.OfferingMask &= l.k.offerings.CapacityTypeBits(cti)
		if c.OfferingMask == 0 {
			continue
		}
		offerings, ct := l.k.prov.launchChoice(c)
		if len(offerings) == 0 || ct != cti {
			continue
		}
		var types []string
		if ct == scheduling.SpotIndex {
			for _, o := range offerings {
				if !slices.Contains(types, o.InstanceType) {
					types = append(types, o.InstanceType)
				}
			}
			sort.Strings(types)
		} else if l.k.prov.priceOverlaid(c) {
			// Prioritized by the overlaid prices: the first offering.
			l.k.prov.byOverlaidPrice(p, offerings)
			types = []string{offerings[0].InstanceType}
		} else {
			// Lowest-price: the cheapest offering, the first of equals.
			cheapest, best := math.Inf(1), ""
			for _, o := range offerings {
				if pr, ok := l.k.cloud.Price(o); ok && pr < cheapest {
					cheapest, best = pr, o.InstanceType
				}
			}
			if best != "" {
				types = []string{best}
			}
		}
		out.types[scheduling.CapacityTypeOf(ct)] = types
	}
	return out
}

// Static says whether pool is a static pool, its node count, and whether
// the StaticCapacity gate leaves it off.
func (l *Linter) Static(pool string) (replicas int64, gateOff, ok bool) {
	s, ok := l.static[pool]
	return s.replicas, s.gateOff, ok
}

// priceCloud is a Cloud that only knows prices: the linter never launches.
type priceCloud PriceFunc

func (c priceCloud) Launch(cloud.LaunchRequest) (cloud.LaunchResult, error) {
	return cloud.LaunchResult{}, fmt.Errorf("karpenter: the linter does not launch")
}
func (c priceCloud) Terminate(cloud.InstanceID) {}
func (c priceCloud) Subscribe(cloud.Subscriber) {}

// reservedCloud is priceCloud with the scenario's capacity reservations,
// each with all its instances free (what lint asks: could a pod land).
type reservedCloud struct {
	priceCloud
	rs []cloud.Reservation
}

func (c reservedCloud) Reservations() []cloud.Reservation { return c.rs }
func (c reservedCloud) ReservationFree(id string) (int, bool) {
	for _, r := range c.rs {
		if r.ID == id {
			return r.Count, true
		}
	}
	return 0, false
}
func (c priceCloud) Price(o cloud.Offering) (float64, bool) { return c(o) }

// CapacityTypes returns the capacity types the pool's requirements allow
// in the scenario's zones, spot first, then on-demand, then reserved when
// its EC2NodeClass selects a reservation of one of its types.
func (l *Linter) CapacityTypes(pool string) []cluster.CapacityType {
	p := l.k.pools.ByName[pool]
	if p == nil {
		return nil
	}
	if s, ok := l.static[pool]; ok {
		var out []cluster.CapacityType
		for _, ct := range []cluster.CapacityType{cluster.Spot, cluster.OnDemand} {
			if len(s.types[ct]) > 0 {
				out = append(out, ct)
			}
		}
		return out
	}
	mask := l.k.offerings.OfferingMask(p.Requirements)
	var out []cluster.CapacityType
	for _, ct := range []int{scheduling.SpotIndex, scheduling.OnDemandIndex} {
		if mask&l.k.offerings.CapacityTypeBits(ct) != 0 {
			out = append(out, scheduling.CapacityTypeOf(ct))
		}
	}
	rbits := mask & l.k.offerings.CapacityTypeBits(scheduling.ReservedIndex)
	for i := range p.Types {
		if p.Types[i].Offer&rbits != 0 {
			out = append(out, cluster.Reserved)
			break
		}
	}
	return out
}

// Failure is the step of provisioning at which a pod gets no node from a
// NodePool, in the order Karpenter checks them.
type Failure uint8

// Failures.
const (
	FailNone Failure = iota
	// FailCapacityType: the pool (or the pod) does not allow the capacity
	// type.
	FailCapacityType
	// FailTaint: the pod does not tolerate Taint, a template taint.
	FailTaint
	// FailLabel: the pod requires Requirement on a label the pool does
	// not define and that is not well known.
	FailLabel
	// FailRequirement: the pool's values for the key (PoolSide) exclude
	// the pod's (Requirement).
	FailRequirement
	// FailZone: no zone of the scenario is allowed by both.
	FailZone
	// FailInstanceType: no instance type meets the requirements with an
	// offering they allow.
	FailInstanceType
	// FailTooBig: no instance type that meets them has room for the
	// pod's requests plus DaemonSet overhead (Largest is the biggest).
	FailTooBig
	// FailLimit: every instance type that fits would break the pool's
	// spec.limits.
	FailLimit
	// FailMinValues: a requirement's minValues (PodSide, on Key) cannot be
	// met by the instance types left.
	FailMinValues
	// FailOther: the solver finds no node for a reason the walk does not
	// pin down.
	FailOther
)

// LaunchCheck is Linter.Check's answer.
type LaunchCheck struct {
	// Fits: the solver put the pod on a new NodeClaim of the pool.
	Fits bool
	// InstanceTypes are the types that NodeClaim keeps (they meet the
	// requirements, have an allowed offering and room for the pod), by
	// name.
	InstanceTypes []string

	// Fail says why not, with the details below.
	Fail  Failure
	Taint cluster.Taint
	// Term is the pod's required node-affinity term the failure concerns
	// (-1: its nodeSelector, or the pod has no term).
	Term int
	// Key, PodSide and PoolSide describe the requirement that failed:
	// the label key, what the pod asks ("In [a, b]", "Exists", "Gt 4")
	// and what the pool allows ("" when it does not define the key).
	Key, PodSide, PoolSide string
	// Largest is the biggest candidate instance type (FailTooBig) and
	// LargestAllocatable its room for pods.
	Largest            string
	LargestAllocatable cluster.Resources
	// Rooms are the candidate instance types and their room for pods
	// (allocatable less DaemonSet overhead), by name (FailTooBig): what
	// lint needs to say which resource no type has enough of.
	Rooms []TypeRoom
	// Candidates counts the instance types left before the failing step
	// (FailTooBig, FailLimit, FailMinValues).
	Candidates int
}

// TypeRoom is an instance type and its room for a pod.
type TypeRoom struct {
	Name string
	Room cluster.Resources
}

// Check asks whether pool could launch a node of capacity type ct for a
// pod with spec.
func (l *Linter) Check(pool string, spec *cluster.PodSpec, ct cluster.CapacityType) LaunchCheck {
	k := l.k
	p := k.pools.ByName[pool]
	if p == nil {
		return LaunchCheck{Fail: FailOther, Term: -1}
	}
	syms := k.cl.Syms
	ctSym := k.offerings.CapacityTypeSyms[ctIndex(ct)]
	lintSpec := *spec
	lintSpec.Spread, lintSpec.PodAffinity, lintSpec.PodAntiAffinity = nil, nil, nil
	lintSpec.PreferredPodAffinity, lintSpec.PreferredPodAntiAffinity, lintSpec.Preferred = nil, nil, nil
	lintSpec.NodeName = ""
	lintSpec.Claims = nil // the pin (Volume) says where its volumes are
	// Restrict the solver to this pool and capacity type through the
	// well-known labels every NodeClaim of the pool carries.
	lintSpec.NodeSelector = append(append([]cluster.Requirement(nil), spec.NodeSelector...),
		cluster.Requirement{Key: k.keyNodePool, Op: cluster.OpIn, Values: []cluster.Sym{syms.Intern(pool)}},
		cluster.Requirement{Key: k.cl.KeyCapacityType, Op: cluster.OpIn, Values: []cluster.Sym{ctSym}})
	if st, ok := l.static[pool]; ok {
		// A static pool's nodes are of the types its launch takes.
		r := cluster.Requirement{Key: k.cl.KeyInstanceType, Op: cluster.OpIn}
		for _, t := range st.types[ct] {
			r.Values = append(r.Values, syms.Intern(t))
		}
		lintSpec.NodeSelector = append(lintSpec.NodeSelector, r)
		spec = &lintSpec
	}
	id := l.cl.CreatePod(cluster.Pod{Name: fmt.Sprintf("lint-%d", len(l.cl.Pods)), Spec: &lintSpec, Workload: -1})
	s := k.solvers.NewSolver([]cluster.PodID{id}, scheduling.SolveOpts{})
	s.Solve([]cluster.PodID{id})
	if len(s.Claims) > 0 {
		c := s.Claims[0]
		out := LaunchCheck{Fits: true, Term: -1}
		for _, pos := range c.Options {
			out.InstanceTypes = append(out.InstanceTypes, p.Types[pos].Type.Name)
		}
		sort.Strings(out.InstanceTypes)
		return out
	}
	return l.why(p, spec, ct)
}

func ctIndex(ct cluster.CapacityType) int {
	switch ct {
	case cluster.Spot:
		return scheduling.SpotIndex
	case cluster.Reserved:
		return scheduling.ReservedIndex
	}
	return scheduling.OnDemandIndex
}

// why walks provisioning's steps for one pod and pool and returns the
// first that fails. With several required node-affinity terms (Karpenter
// tries them in turn) it returns the term that got furthest.
func (l *Linter) why(p *scheduling.Pool, spec *cluster.PodSpec, ct cluster.CapacityType) LaunchCheck {
	k := l.k
	syms := k.cl.Syms
	cti := ctIndex(ct)
	if k.offerings.OfferingMask(p.Requirements)&k.offerings.CapacityTypeBits(cti) == 0 {
		return LaunchCheck{Fail: FailCapacityType, Term: -1, Key: k.cl.Syms.Name(k.cl.KeyCapacityType),
			PodSide: "In [" + ct.String() + "]", PoolSide: describeReq(syms, p.Requirements.Get(k.cl.KeyCapacityType))}
	}
	for _, t := range p.Spec.Taints {
		if t.Effect != cluster.EffectPreferNoSchedule && !spec.Tolerations.Tolerate(t) {
			return LaunchCheck{Fail: FailTaint, Taint: t, Term: -1}
		}
	}
	base := p.Requirements.With(syms, scheduling.RequirementIn(k.cl.KeyCapacityType, k.offerings.CapacityTypeSyms[cti]))
	type part struct {
		rs   []scheduling.Requirement
		term int
	}
	sel := k.solvers.SelectorRequirements(spec)
	if v := spec.Volume; v != nil {
		if zones, ok := v.Zones(); ok {
			sel = append(sel, scheduling.Requirement{Key: k.cl.KeyZone, Values: zones})
		}
	}
	var parts []part
	if spec.Affinity != nil && len(spec.Affinity.Terms) > 0 {
		for i := range spec.Affinity.Terms {
			parts = append(parts, part{term: i, rs: k.solvers.TermRequirements(&spec.Affinity.Terms[i])})
		}
	} else {
		parts = []part{{term: -1}}
	}
	var best LaunchCheck
	for i, pt := range parts {
		c := l.walk(p, spec, base, sel, pt.rs, pt.term)
		if i == 0 || c.Fail > best.Fail {
			best = c
		}
	}
	return best
}

// walk checks one combination of the pod's nodeSelector and one required
// term against the pool's requirements, then its instance types.
func (l *Linter) walk(p *scheduling.Pool, spec *cluster.PodSpec, base scheduling.Requirements, sel, term []scheduling.Requirement, termIdx int) LaunchCheck {
	k := l.k
	syms := k.cl.Syms
	// Requirements one at a time, in the order written, as
	// compatible() would judge each.
	for i, r := range append(append([]scheduling.Requirement(nil), sel...), term...) {
		ti := -1
		if i >= len(sel) {
			ti = termIdx
		}
		if c, bad := l.reqFailure(p, base, &r, ti); bad {
			return c
		}
	}
	podReqs := scheduling.SortRequirements(syms, append(append([]scheduling.Requirement(nil), sel...), term...))
	if !scheduling.RequirementsCompatible(syms, base, podReqs, k.wellKnownIn(p)) {
		// Each requirement alone is fine but not together (two on one key).
		for i := range podReqs {
			if c, bad := l.reqFailure(p, base, &podReqs[i], termIdx); bad {
				return c
			}
		}
		return LaunchCheck{Fail: FailOther, Term: termIdx}
	}
	reqs := scheduling.MergeRequirements(syms, base, podReqs)
	mask := k.offerings.OfferingMask(reqs)
	if mask == 0 {
		zr := reqs.Get(k.cl.KeyZone)
		return LaunchCheck{Fail: FailZone, Term: termIdx, Key: syms.Name(k.cl.KeyZone),
			PodSide: describeReq(syms, podReqs.Get(k.cl.KeyZone)), PoolSide: describeReq(syms, zr)}
	}
	var cands []*scheduling.PoolType
	for pos := range p.Types {
		pt := &p.Types[pos]
		if !k.offerings.TypeCompatible(pt.Type, reqs) {
			continue
		}
		base := k.offerings.Offers.Index(pt.Type.Index, 0, 0)
		has := false
		for b := 0; b < k.offerings.Offers.NumZones*scheduling.NumCapacityTypes; b++ {
			if mask&(1<<uint(b)) != 0 && k.offerings.Offers.Price[base+b] >= 0 {
				has = true
				break
			}
		}
		if has {
			cands = append(cands, pt)
		}
	}
	if len(cands) == 0 {
		return LaunchCheck{Fail: FailInstanceType, Term: termIdx}
	}
	var fit []*scheduling.PoolType
	largest := cands[0]
	for _, pt := range cands {
		if pt.Allocatable[cluster.CPU] > largest.Allocatable[cluster.CPU] ||
			(pt.Allocatable[cluster.CPU] == largest.Allocatable[cluster.CPU] && pt.Allocatable[cluster.Memory] > largest.Allocatable[cluster.Memory]) {
			largest = pt
		}
		if spec.Requests.Add(pt.DaemonOverhead).Fits(pt.Allocatable) {
			fit = append(fit, pt)
		}
	}
	if len(fit) == 0 {
		rooms := make([]TypeRoom, len(cands))
		for i, pt := range cands {
			rooms[i] = TypeRoom{Name: pt.Type.Name, Room: pt.Allocatable.Sub(pt.DaemonOverhead)}
		}
		sort.Slice(rooms, func(i, j int) bool { return rooms[i].Name < rooms[j].Name })
		return LaunchCheck{Fail: FailTooBig, Term: termIdx, Candidates: len(cands), Largest: largest.Type.Name,
			LargestAllocatable: largest.Allocatable.Sub(largest.DaemonOverhead), Rooms: rooms}
	}
	lim := p.Spec.Limits
	var within []int32
	for _, pt := range fit {
		ok := lim.Nodes != 0
		for r, has := range lim.Has {
			if has && pt.Capacity[r] > lim.Max[r] {
				ok = false
			}
		}
		if ok {
			within = append(within, int32(p.TypePositions[pt.Type.Index]))
		}
	}
	if len(within) == 0 {
		return LaunchCheck{Fail: FailLimit, Term: termIdx, Candidates: len(fit)}
	}
	s := &scheduling.Solver{Shared: k.solvers}
	if !s.MinValuesOK(p, reqs, within) {
		for i := range reqs {
			if reqs[i].MinValues > 0 {
				return LaunchCheck{Fail: FailMinValues, Term: termIdx, Candidates: len(within), Key: syms.Name(reqs[i].Key),
					PodSide: fmt.Sprint(reqs[i].MinValues)}
			}
		}
		return LaunchCheck{Fail: FailMinValues, Term: termIdx, Candidates: len(within)}
	}
	return LaunchCheck{Fail: FailOther, Term: termIdx}
}

// reqFailure judges one pod requirement against the pool's as compatible()
// does, and says how it fails.
func (l *Linter) reqFailure(p *scheduling.Pool, base scheduling.Requirements, r *scheduling.Requirement, term int) (LaunchCheck, bool) {
	k := l.k
	syms := k.cl.Syms
	n := base.Get(r.Key)
	c := LaunchCheck{Term: term, Key: syms.Name(r.Key), PodSide: describeReq(syms, r), PoolSide: describeReq(syms, n)}
	switch {
	case n == nil:
		if k.wellKnownIn(p)(r.Key) || r.Negative() {
			return c, false
		}
		c.Fail = FailLabel
	case scheduling.HasIntersection(syms, n, r) || (r.Negative() && n.Negative()):
		return c, false
	case r.Key == k.cl.KeyZone:
		c.Fail = FailZone
	case r.Key == k.cl.KeyCapacityType:
		c.Fail = FailCapacityType
	default:
		if _, ok := k.offerings.TypeKeyIndex(r.Key); ok {
			c.Fail = FailInstanceType
		} else {
			c.Fail = FailRequirement
		}
	}
	return c, true
}

// describeReq renders a requirement's set as users write operators: "In [a,
// b]", "NotIn [a]", "Exists", "DoesNotExist", "Gt 4", "Lt 8"; "" for nil.
func describeReq(syms *cluster.Symbols, r *scheduling.Requirement) string {
	if r == nil {
		return ""
	}
	names := func() string {
		vs := make([]string, len(r.Values))
		for i, v := range r.Values {
			vs[i] = syms.Name(v)
		}
		sort.Strings(vs)
		return "[" + strings.Join(vs, ", ") + "]"
	}
	var parts []string
	switch r.Operator() {
	case scheduling.OperatorIn:
		parts = append(parts, "In "+names())
	case scheduling.OperatorNotIn:
		parts = append(parts, "NotIn "+names())
	case scheduling.OperatorDoesNotExist:
		parts = append(parts, "DoesNotExist")
	case scheduling.OperatorExists:
		if !r.HasGreaterThan && !r.HasLessThan {
			parts = append(parts, "Exists")
		}
	}
	if r.HasGreaterThan {
		parts = append(parts, fmt.Sprintf("Gt %d", r.GreaterThan))
	}
	if r.HasLessThan {
		parts = append(parts, fmt.Sprintf("Lt %d", r.LessThan))
	}
	return strings.Join(parts, ", ")
}
