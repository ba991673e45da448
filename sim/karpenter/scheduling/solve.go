package scheduling

import (
	"time"

	"slices"
	"sort"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// The solver is Karpenter's scheduling simulation (KC
// pkg/controllers/provisioning/scheduling/scheduler.go Solve): pods in
// order of cpu, then memory, descending (then creation time, then id), each
// placed on the first of: an existing node (every live node, whoever owns
// it; initialized first, then by name), a NodeClaim of this solve (fewest
// pods first, ties as KC's unstable sort leaves them), a new NodeClaim
// from the NodePools in weight order. A pod that fails is relaxed one
// preference at a time and tried again; a pod that still fails goes to
// the back of the queue, and the solve stops when a whole pass of the
// queue places nothing.

// Claim is a NodeClaim being built by a solve.
type Claim struct {
	// Sequence numbers the solve's claims in creation order.
	Sequence int
	// Pool is the NodePool the claim launches from.
	Pool     *Pool
	ppos     int // position of pool in the solve's template order
	hostname cluster.Sym
	// Requirements are the claim's requirements (the pool's and its pods').
	Requirements Requirements
	OfferingMask uint64 // offering bits allowed by reqs
	requests     cluster.Resources
	Options      []int32 // positions in pool.types
	// Pods are the pods placed on the claim, in order.
	Pods []cluster.PodID
	// reserved are the reservations (indices in Offerings.Reservations)
	// the claim holds a slot of (KC ReservationManager).
	reserved []int
}

// Solver is one solve: its pods' data, the existing nodes as it changes them,
// its NodeClaims.
type Solver struct {
	Shared *Solvers // the solvers part that made it: what solves share
	Pools  []*Pool  // templates, weight order
	// Topology is the solve's topology spread and pod (anti-)affinity groups.
	Topology *topology
	pds      []*PodData // by podStatic.idx
	// lastKey and lastPD memoize the last podData lookup.
	lastKey   PodKey
	lastPD    *PodData
	Sets      []*PodSet // solveOpts.sets
	Available []uint64  // per itype: available offering bits
	// Existing are the existing nodes the solve placed pods on, in base
	// order (filled when the solve ends).
	Existing []*ExistingNode
	// Snapshot and base are the shared snapshot of existing nodes; stamp marks
	// this solve's overlay entries; touched are its copies of the nodes
	// it changed.
	Snapshot *exCache
	Base     []ExistingNode
	stamp    uint32
	touched  []*ExistingNode
	// Claims are the solve's NodeClaims, in creation order.
	Claims []*Claim
	Order  []*Claim // claims in KC's try order (see add)
	// Unsorted: order is not sorted by pod count (add sorts it first).
	Unsorted bool
	// Remaining resources per pool position (limits), has: limits set.
	Remaining []cluster.Resources
	hasLimit  [][cluster.MaxResources]bool
	// NodesLeft is per pool position its node limit minus its existing
	// nodes (0: no new NodeClaim; < 0: no node limit). The solve's own
	// NodeClaims do not count: KC's subtractMax subtracts instance-type
	// capacity, which has no "nodes" entry, so one batch may overshoot a
	// node limit (Karpenter checks usage > limit only when it creates
	// the NodeClaims, against the usage before the batch: launchAllowed).
	NodesLeft  []int64
	consolidat bool
	// resHeld counts, per offered reservation, the slots the solve's
	// claims hold; resScratch is reservationsOK's answer;
	// reservedFallback is SolveOpts.ReservedFallback.
	resHeld          []int
	resScratch       []int
	reservedFallback bool
	// resDeferred: the last new claim failed because every compatible
	// reservation's slots are held (KC ReservedOfferingError).
	resDeferred bool
	// Failed are the pods placed nowhere.
	Failed []cluster.PodID
	// Unsolved are the pods a solve out of budget never tried (KC's
	// timed-out Solve leaves them out of its results: they wait for the
	// next batch); TimedOut says the budget ran out.
	Unsolved []cluster.PodID
	TimedOut bool
	budget   time.Duration
	cost     func(cluster.PodID) time.Duration
	retry    []QueueKey // the solve's failed pods, in order
	scratch  []int32
	newOpts  []int32 // addNew's options before a claim keeps them
	checks   []typeCheck
	lchecks  []typeCheck
	seq      int
	anyPNS   bool
	// Now is the time of the solve.
	Now engine.Time
	// A consolidation what-if may stop as soon as its answer is
	// known to be "no" (decided): stopAtTwo once it has two NodeClaims,
	// stopAtSpot once its first NodeClaim can launch spot (see
	// Karpenter.earlyNo).
	StopAtTwo, StopAtSpot bool
	// SpotBits are the spot offerings' bits (StopAtSpot); Decided: the what-if
	// stopped early with the answer no.
	SpotBits uint64
	Decided  bool
}

// SolveOpts are a solve's options; the zero value is a provisioning batch.
type SolveOpts struct {
	// Exclude are nodes that must not receive pods (consolidation
	// candidates).
	Exclude []cluster.NodeID
	// Consolidation: a what-if for disruption (pods being moved may not
	// land on nodes under consolidateAfter).
	Consolidation bool
	// Sets, if any, are the solve's pods (in order) prepared in runs that
	// many solves share (a disruption pass's candidates and provisionable
	// pods).
	Sets []*PodSet
	// Universe, if set, is the pools' domains (domainUniverse) that a
	// disruption pass shares.
	Universe map[cluster.Sym][]cluster.Sym
	// Budget, when positive, is how long the solve may run (KC's
	// provisioner gives Solve one minute); Cost is what one try of a pod
	// takes. The pods not tried when it runs out are Unsolved.
	Budget time.Duration
	Cost   func(cluster.PodID) time.Duration
	// ReservedFallback lets a pod join a NodeClaim although that removes
	// all its reserved offerings (KC ReservedOfferingModeFallback, the
	// disruption what-ifs); provisioning is strict (KC
	// DisableReservedCapacityFallback).
	ReservedFallback bool
}

func (s *Solver) addExistingInverse(n *cluster.Node) {
	cl := s.Shared.cl
	for _, pid := range n.Pods {
		p := &cl.Pods[pid]
		if len(p.Spec.PodAntiAffinity) == 0 || p.Terminating || s.moves(pid) {
			continue
		}
		for _, g := range s.Topology.addInverse(p.Spec, p.Namespace) {
			if d, ok := domainOf(cl, n, g.Key); ok {
				g.record(d)
			}
		}
	}
}

// moves reports whether the solve reschedules the pod.
func (s *Solver) moves(id cluster.PodID) bool {
	if IsVirtual(id) {
		i := int(id - VirtualBase)
		return i < len(s.Shared.virtualMark) && s.Shared.virtualMark[i] == s.stamp
	}
	return int(id) < len(s.Shared.podMark) && s.Shared.podMark[id] == s.stamp
}

// Pending reports whether a pod of the solve is pending (not bound).
func (s *Solver) Pending(id cluster.PodID) bool {
	return s.moves(id) && s.Shared.pod(id).Phase == cluster.Pending
}

func withoutTaints(taints, drop []cluster.Taint) []cluster.Taint {
	var out []cluster.Taint
	for _, t := range taints {
		keep := true
		for _, d := range drop {
			if t.Key == d.Key && t.Effect == d.Effect {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, t)
		}
	}
	return out
}

// QueueKey is a pod's place in KC's Queue order: cpu desc, memory desc,
// creation time, then id (for the uid). Kept beside pod lists so sorting
// and merging read no pod records.
type QueueKey struct {
	// CPU (millicores) and Memory (bytes) are the pod's requests, sorted
	// descending.
	CPU, Memory int64
	// Created is the pod's creation time; the queue compares whole
	// seconds, as creationTimestamp keeps them.
	Created engine.Time
	// UIDRank is the pod's uid order (cluster.PodUIDRank), the tie-break
	// within a second; ID the last one.
	UIDRank uint64
	ID      cluster.PodID
	// What placing the pod reads, so a solve does not touch pod records
	// (random reads over every pod ever created): its template, and
	// whether it is pending, on a deleting node, or neither (origin).
	Namespace cluster.Sym
	Origin    PodOrigin
	Spec      *cluster.PodSpec
}

// PodOrigin says where a pod of a solve comes from; it decides which
// existing nodes may take it.
type PodOrigin uint8

const (
	FromCandidate PodOrigin = iota // bound, moved by a disruption
	fromPending
	fromDeleting // bound on a node being deleted
)

// OriginOf is the origin of a pod of a solve.
func (sv *Solvers) OriginOf(id cluster.PodID) PodOrigin {
	switch {
	case IsVirtual(id) || sv.cl.Pods[id].Phase == cluster.Pending:
		return fromPending
	case sv.nodes.PodOnDeletingNode(id):
		return fromDeleting
	}
	return FromCandidate
}

func (a *QueueKey) before(b *QueueKey) bool {
	if a.CPU != b.CPU {
		return a.CPU > b.CPU
	}
	if a.Memory != b.Memory {
		return a.Memory > b.Memory
	}
	// KC byCPUAndMemoryDescending: creationTimestamp (1 s resolution),
	// then uid.
	if as, bs := wholeSeconds(a.Created), wholeSeconds(b.Created); as != bs {
		return as < bs
	}
	if a.UIDRank != b.UIDRank {
		return a.UIDRank < b.UIDRank
	}
	return a.ID < b.ID
}

// wholeSeconds is t rounded down to the second (creationTimestamp's
// resolution; the run's clock starts on a whole second).
func wholeSeconds(t engine.Time) int64 {
	s := int64(t / time.Second)
	if t < 0 && t%time.Second != 0 {
		s--
	}
	return s
}

// CompareQueueKeys orders queue keys as the queue does (-1, 0, 1).
func CompareQueueKeys(a, b QueueKey) int {
	switch {
	case a.before(&b):
		return -1
	case b.before(&a):
		return 1
	}
	return 0
}

// queueKey is a pod's queue key.
func (sv *Solvers) queueKey(id cluster.PodID, p *cluster.Pod) QueueKey {
	return QueueKey{CPU: p.Spec.Requests[cluster.CPU], Memory: p.Spec.Requests[cluster.Memory], Created: p.Created, UIDRank: p.UIDRank, ID: id,
		Namespace: p.Namespace, Origin: sv.OriginOf(id), Spec: p.Spec}
}

// queueKeys returns the pods' keys in queue order.
func (sv *Solvers) queueKeys(pods []cluster.PodID) []QueueKey {
	keys := make([]QueueKey, len(pods))
	for i, id := range pods {
		keys[i] = sv.queueKey(id, sv.pod(id))
	}
	// The order is total (ids differ): any sort gives the same result.
	slices.SortFunc(keys, CompareQueueKeys)
	return keys
}

// podQueue yields the pods in queue order. Prepared sets are sorted
// already and only merged, lazily (most what-ifs stop early: earlyNo):
// two runs head to head, more through a heap of runs ordered by their
// first pod. The order is total, so the result is the one a full sort
// gives.
type podQueue struct {
	a, b []QueueKey   // two runs left to merge
	runs [][]QueueKey // more: the runs, and a heap of their indices
	heap []int32
	n    int // pods left
}

// Queue is the solve's pods in queue order (merged from the prepared sets when
// there are some).
func (s *Solver) Queue(pods []cluster.PodID) podQueue {
	if s.Sets == nil {
		keys := s.Shared.queueKeys(pods)
		return podQueue{a: keys, n: len(keys)}
	}
	var q podQueue
	runs := make([][]QueueKey, 0, len(s.Sets))
	for _, ps := range s.Sets {
		if len(ps.QueueKeys) > 0 {
			runs = append(runs, ps.queueOrder())
			q.n += len(ps.QueueKeys)
		}
	}
	switch len(runs) {
	case 0:
	case 1:
		q.a = runs[0]
	case 2:
		q.a, q.b = runs[0], runs[1]
	default:
		q.runs = runs
		q.heap = make([]int32, len(runs))
		for i := range q.heap {
			q.heap[i] = int32(i)
		}
		for i := len(q.heap)/2 - 1; i >= 0; i-- {
			q.down(i)
		}
	}
	return q
}

// Len is the number of pods left.
func (q *podQueue) Len() int { return q.n }

// less orders heap entries by their runs' first pods.
func (q *podQueue) less(i, j int) bool {
	return q.runs[q.heap[i]][0].before(&q.runs[q.heap[j]][0])
}

func (q *podQueue) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(q.heap) {
			return
		}
		m := l
		if r := l + 1; r < len(q.heap) && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q.heap[i], q.heap[m] = q.heap[m], q.heap[i]
		i = m
	}
}

// fromB reports whether the next pod comes from run b.
func (q *podQueue) fromB() bool {
	return len(q.b) > 0 && (len(q.a) == 0 || q.b[0].before(&q.a[0]))
}

// Peek returns the next pod; next drops it. Both need len() > 0.
func (q *podQueue) Peek() *QueueKey {
	if q.heap != nil {
		return &q.runs[q.heap[0]][0]
	}
	if q.fromB() {
		return &q.b[0]
	}
	return &q.a[0]
}

// Next drops the first pod (Peek).
func (q *podQueue) Next() {
	q.n--
	if q.heap != nil {
		r := q.heap[0]
		if q.runs[r] = q.runs[r][1:]; len(q.runs[r]) == 0 {
			last := len(q.heap) - 1
			q.heap[0] = q.heap[last]
			q.heap = q.heap[:last]
		}
		q.down(0)
		return
	}
	if q.fromB() {
		q.b = q.b[1:]
		return
	}
	q.a = q.a[1:]
}

// Solve places the pods; those it could not place are left in s.failed.
// The queue is the pods in queue order followed by the pods that failed,
// in the order they failed; the solve stops when a pod comes round again
// with no pod placed since it failed (a full pass without progress).
func (s *Solver) Solve(pods []cluster.PodID) {
	q := s.Queue(pods)
	retry := s.retry[:0]
	rhead := 0
	s.Unsolved, s.TimedOut = s.Unsolved[:0], false
	var spent time.Duration
	// lastLen: per failed pod, the queue length left when it failed.
	var lastLen map[cluster.PodID]int
	for {
		live := q.Len() + len(retry) - rhead
		if live == 0 {
			break
		}
		var e QueueKey
		if q.Len() > 0 {
			e = *q.Peek()
		} else {
			e = retry[rhead]
		}
		id := e.ID
		if n, ok := lastLen[id]; ok && n == live {
			break
		}
		if s.budget > 0 {
			// KC Scheduler.Solve: a try that starts after the deadline
			// ends the solve; the pods never tried are in no result.
			if spent += s.cost(id); spent > s.budget {
				s.TimedOut = true
				for q.Len() > 0 {
					s.Unsolved = append(s.Unsolved, q.Peek().ID)
					q.Next()
				}
				break
			}
		}
		if q.Len() > 0 {
			q.Next()
		} else {
			rhead++
		}
		if s.trySchedule(&e) {
			if s.settled() {
				s.Decided = true
				s.retry = retry
				return
			}
			continue
		}
		retry = append(retry, e)
		if lastLen == nil {
			lastLen = map[cluster.PodID]int{}
		}
		lastLen[id] = q.Len() + len(retry) - rhead
	}
	// A break happens on a retried pod, after the whole queue, or when
	// the budget runs out.
	s.Failed = s.Failed[:0]
	for _, e := range retry[rhead:] {
		s.Failed = append(s.Failed, e.ID)
	}
	s.retry = retry
	s.finishExisting()
}

// settled reports whether the what-if's answer is known to be "no" (see
// solver.decided). A NodeClaim's offerings only narrow as pods join it,
// and a spot offering is lost only to a capacity-type requirement, which
// stopAtSpot rules out.
func (s *Solver) settled() bool {
	switch n := len(s.Claims); {
	case n == 0:
		return false
	case n >= 2:
		return s.StopAtTwo
	}
	return s.StopAtSpot && s.Claims[0].OfferingMask&s.SpotBits != 0
}

func (s *Solver) trySchedule(e *QueueKey) bool {
	var r Relaxation
	for {
		pd := s.PodData(e.Spec, e.Namespace, r)
		s.resolveInverse(pd)
		if s.add(e.ID, e.Origin, pd) {
			return true
		}
		if s.resDeferred {
			return false // KC trySchedule: no relaxation for a reserved offering error
		}
		next, ok := s.Shared.nextRelax(e.Spec, r, s.anyPNS)
		if !ok {
			return false
		}
		r = next
	}
}

func (s *Solver) add(id cluster.PodID, origin PodOrigin, pd *PodData) bool {
	if s.addExisting(id, origin, pd) {
		return true
	}
	for i, c := range s.TryOrder() {
		if reqs, mask, ok := s.canAdd(c, pd, c.Requirements, c.OfferingMask); ok {
			s.commit(c, id, pd, reqs, mask)
			s.Joined(i)
			return true
		}
	}
	return s.addNew(id, pd)
}

// TryOrder returns the solve's NodeClaims in the order KC's add tries
// them. KC re-sorts its one slice of NodeClaims by pod count, in place,
// with sort.Slice before every pod it tries on them, appends new ones, and
// takes the first that fits. sort.Slice is not stable (pdqsort): ties keep
// the previous sort's order up to 12 NodeClaims (insertion sort) and move
// in a deterministic way beyond. sort.Sort runs the same algorithm (sort's
// zsortfunc.go and zsortinterface.go are generated from one template), so
// sorting s.order the same way gives KC's order exactly, without
// sort.Slice's allocations. On a slice already in order pdqsort moves
// nothing (insertion sort up to 12 elements; beyond, no sampled pair is
// out of order, so its first partial insertion sort finds the slice
// sorted), so the sort runs only when the last pod put the slice out of
// order (joined, appendClaim).
func (s *Solver) TryOrder() []*Claim {
	if s.Unsorted {
		sort.Sort((*claimsByPods)(&s.Order))
		s.Unsorted = false
	}
	return s.Order
}

// Joined notes that a pod joined s.order[i].
func (s *Solver) Joined(i int) {
	if i+1 < len(s.Order) && len(s.Order[i+1].Pods) < len(s.Order[i].Pods) {
		s.Unsorted = true
	}
}

// AppendClaim adds a new NodeClaim after the others, as KC appends it to
// its sorted slice.
func (s *Solver) AppendClaim(c *Claim) {
	s.Order = append(s.Order, c)
	if n := len(s.Order); n > 1 && len(s.Order[n-2].Pods) > len(c.Pods) {
		s.Unsorted = true
	}
}

// claimsByPods orders NodeClaims by pod count (KC's add comparator).
type claimsByPods []*Claim

func (c *claimsByPods) Len() int           { return len(*c) }
func (c *claimsByPods) Less(i, j int) bool { return len((*c)[i].Pods) < len((*c)[j].Pods) }
func (c *claimsByPods) Swap(i, j int)      { (*c)[i], (*c)[j] = (*c)[j], (*c)[i] }

func (s *Solver) addExisting(id cluster.PodID, origin PodOrigin, pd *PodData) bool {
	pending := origin == fromPending
	ci := int(origin)
	// Nodes under consolidateAfter take no pods a consolidation moves.
	uca := s.consolidat && origin == FromCandidate
	jt := pd.JumpTables[boolToInt(uca)]
	if jt == nil {
		jt = s.Snapshot.JumpTable(FitClass{SpecClass: pd.Class, Relaxation: pd.Relaxation, UnderConsolidateAfter: uca})
		pd.JumpTables[boolToInt(uca)] = jt
	}
	n := len(s.Base)
	start := 0
	if !pd.topo() {
		start = pd.exCursor[ci]
	}
	for i := start; i < n; i++ {
		i = s.NextBaseFit(jt, pd, uca, i)
		if i >= n {
			break
		}
		if sl := s.slot(i); sl != nil {
			if sl.excluded || (sl.touched >= 0 && !pd.Requests.Fits(s.touched[sl.touched].Free)) {
				continue
			}
		}
		ex := &s.Base[i]
		if vp := pd.spec.Volume; vp != nil && vp.Attach > 0 && !s.attachFits(i, ex, vp.Attach) {
			continue
		}
		v := nodeView{node: ex.View}
		if pd.topo() {
			if _, ok := s.Topology.addRequirements(pd, &v); !ok {
				continue
			}
		} else {
			pd.exCursor[ci] = i
		}
		if len(s.Topology.groups) > 0 || len(pd.inverseOwn) > 0 {
			s.Topology.record(pd, &v)
		}
		t := s.touch(i)
		t.Free = t.Free.Sub(pd.Requests)
		t.Placed = append(t.Placed, id)
		if IsVirtual(id) {
			// A virtual pod nominates nothing (KC Results.Record
			// nominates for real pods only).
			t.PlacedVirtual++
		} else {
			t.PlacedPending = t.PlacedPending || pending
		}
		return true
	}
	if !pd.topo() {
		pd.exCursor[ci] = n
	}
	return false
}

// attachFits reports whether an existing node can attach n more EBS
// volumes after those of the pods this solve put there (KC ExistingNode's
// VolumeUsage check against the node's CSINode limit). New NodeClaims
// count no volume limits, as in KC.
func (s *Solver) attachFits(pos int, ex *ExistingNode, n int32) bool {
	cl := s.Shared.cl
	used := cl.AttachedVolumes(ex.ID)
	if sl := s.slot(pos); sl != nil && sl.touched >= 0 {
		for _, id := range s.touched[sl.touched].Placed {
			if v := s.Shared.pod(id).Spec.Volume; v != nil {
				used += v.Attach
			}
		}
	}
	return used+n <= cl.AttachLimit(ex.node)
}

func pnsOnly(ts []cluster.Taint) []cluster.Taint {
	var out []cluster.Taint
	for _, t := range ts {
		if t.Effect == cluster.EffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}

// canAdd checks a pod against a NodeClaim (KC NodeClaim.CanAdd) and
// returns the NodeClaim's requirements with the pod; the surviving
// instance types are left in s.scratch.
func (s *Solver) canAdd(c *Claim, pd *PodData, base Requirements, baseMask uint64) (Requirements, uint64, bool) {
	k := s.Shared
	syms := k.cl.Syms
	switch pd.tmplTol[c.ppos] {
	case 0:
		if tolerates(pd.spec.Tolerations, c.Pool.Spec.Taints, pd.toleratesPreferNoSchedule) {
			pd.tmplTol[c.ppos] = 1
		} else {
			pd.tmplTol[c.ppos] = 2
			return nil, 0, false
		}
	case 2:
		return nil, 0, false
	}
	reqs := base
	if len(pd.requirements) > 0 {
		if !RequirementsCompatible(syms, base, pd.requirements, k.wellKnownIn(c.Pool)) {
			return nil, 0, false
		}
		if !absorbs(base, pd.requirements) {
			reqs = MergeRequirements(syms, base, pd.requirements)
		}
	}
	if pd.topo() {
		v := nodeView{reqs: reqs, taints: c.Pool.Spec.Taints, claim: c}
		tr, ok := s.Topology.addRequirements(pd, &v)
		if !ok {
			return nil, 0, false
		}
		if len(tr) > 0 {
			trs := SortRequirements(syms, tr)
			if !RequirementsCompatible(syms, reqs, trs, k.wellKnownIn(c.Pool)) {
				return nil, 0, false
			}
			reqs = MergeRequirements(syms, reqs, trs)
		}
	}
	// Instance types: requirements (only keys that changed), resources
	// and an available offering the requirements allow.
	mask := baseMask
	var checks []typeCheck
	if len(reqs) != len(base) || (len(reqs) > 0 && &reqs[0] != &base[0]) {
		mask = k.offerings.OfferingMask(reqs)
		s.checks = k.offerings.typeChecks(base, reqs, s.checks)
		checks = s.checks
	}
	total := c.requests.Add(pd.Requests)
	s.scratch = s.scratch[:0]
	for _, pos := range c.Options {
		pt := &c.Pool.Types[pos]
		if !fitsWith(&total, &pt.DaemonOverhead, &pt.Allocatable) {
			continue
		}
		if s.Available[pt.Type.Index]&pt.Offer&mask == 0 {
			continue
		}
		if len(checks) > 0 && !k.offerings.typeMeets(pt.Type, checks) {
			continue
		}
		s.scratch = append(s.scratch, pos)
	}
	if len(s.scratch) == 0 {
		return nil, 0, false
	}
	if !s.MinValuesOK(c.Pool, reqs, s.scratch) {
		return nil, 0, false
	}
	if len(c.Pool.reservations) > 0 && !s.reservationsOK(c, mask) {
		return nil, 0, false
	}
	return reqs, mask, true
}

// launchBits returns the offering bits (zone x capacity type) in which
// claim c could launch with the pod: those reqs allow that are available
// for an instance type c keeps that fits the pod and meets reqs. It
// breaks ties between topology domains (topology.launchable).
func (s *Solver) launchBits(c *Claim, pd *PodData, reqs Requirements) uint64 {
	k := s.Shared
	mask := k.offerings.OfferingMask(reqs)
	s.lchecks = k.offerings.typeChecks(c.Requirements, reqs, s.lchecks)
	total := c.requests.Add(pd.Requests)
	var u uint64
	for _, pos := range c.Options {
		pt := &c.Pool.Types[pos]
		if u == mask {
			break // every allowed bit is launchable already
		}
		if !fitsWith(&total, &pt.DaemonOverhead, &pt.Allocatable) {
			continue
		}
		if len(s.lchecks) > 0 && !k.offerings.typeMeets(pt.Type, s.lchecks) {
			continue
		}
		u |= s.Available[pt.Type.Index] & pt.Offer & mask
	}
	return u
}

// MinValuesOK checks minValues requirements against the instance types
// left (KC InstanceTypes.SatisfiesMinValues), unless the policy is
// BestEffort.
func (s *Solver) MinValuesOK(p *Pool, reqs Requirements, opts []int32) bool {
	k := s.Shared
	if k.settings.MinValuesBestEffort {
		return true
	}
	for i := range reqs {
		r := &reqs[i]
		if r.MinValues == 0 {
			continue
		}
		tk, ok := k.offerings.TypeKeyIndex(r.Key)
		if !ok {
			continue
		}
		seen := map[cluster.Sym]bool{}
		for _, pos := range opts {
			if v := p.Types[pos].Type.LabelValues[tk]; v != cluster.NoSym {
				seen[v] = true
			}
		}
		if len(seen) < int(r.MinValues) {
			return false
		}
	}
	return true
}

func (s *Solver) commit(c *Claim, id cluster.PodID, pd *PodData, reqs Requirements, mask uint64) {
	c.Requirements, c.OfferingMask = reqs, mask
	c.Options = append(c.Options[:0], s.scratch...)
	c.requests = c.requests.Add(pd.Requests)
	c.Pods = append(c.Pods, id)
	if len(c.Pool.reservations) > 0 {
		s.holdReservations(c)
	}
	if len(s.Topology.groups) > 0 || len(pd.inverseOwn) > 0 {
		v := nodeView{reqs: c.Requirements, taints: c.Pool.Spec.Taints}
		s.Topology.record(pd, &v)
	}
}

// addNew tries a new NodeClaim from each pool in weight order.
func (s *Solver) addNew(id cluster.PodID, pd *PodData) bool {
	c, i, reqs, mask, ok := s.StartClaim(pd)
	if !ok {
		return false
	}
	p := c.Pool
	s.seq++
	s.Topology.registerHost(c.hostname)
	c.Options = nil // commit gives the claim its own options list
	s.commit(c, id, pd, reqs, mask)
	s.Claims = append(s.Claims, c)
	s.AppendClaim(c)
	// Assume the largest instance type will launch (KC subtractMax).
	var maxCap cluster.Resources
	for _, pos := range c.Options {
		for r, v := range p.Types[pos].Capacity {
			maxCap[r] = max(maxCap[r], v)
		}
	}
	s.Remaining[i] = s.Remaining[i].Sub(maxCap)
	return true
}

// StartClaim finds the first pool, in weight order, that would start a
// new NodeClaim for the pod, without keeping it: the claim (its options
// are scratch), the pool's position, and the requirements and offering
// mask with the pod (its instance types left in s.scratch).
func (s *Solver) StartClaim(pd *PodData) (c *Claim, i int, reqs Requirements, mask uint64, ok bool) {
	k := s.Shared
	s.resDeferred = false
	for i, p := range s.Pools {
		if len(p.Types) == 0 || s.NodesLeft[i] == 0 {
			continue
		}
		// The options list is scratch until the claim is kept.
		opts := s.newOpts[:0]
		for pos := range p.Types {
			pt := &p.Types[pos]
			if !s.WithinLimits(i, pt) {
				continue
			}
			opts = append(opts, int32(pos))
		}
		s.newOpts = opts
		if len(opts) == 0 {
			continue
		}
		// Placeholder hostnames only need to be unique within a solve.
		h := k.placeholder(s.seq + 1)
		c := &Claim{Sequence: s.seq + 1, Pool: p, ppos: i, hostname: h, Options: opts}
		st := k.claimStart(p, s.seq+1, h)
		c.Requirements, c.OfferingMask = st.requirements, st.OfferingMask
		if reqs, mask, ok := s.canAdd(c, pd, c.Requirements, c.OfferingMask); ok {
			return c, i, reqs, mask, true
		}
		if s.resDeferred {
			break // KC: no fallback to a lower-weight pool
		}
	}
	return nil, 0, nil, 0, false
}

// WithinLimits reports whether a node of pt fits the limits left for the pool
// at position i.
func (s *Solver) WithinLimits(i int, pt *PoolType) bool {
	for r, has := range s.hasLimit[i] {
		if has && pt.Capacity[r] > s.Remaining[i][r] {
			return false
		}
	}
	return true
}

// fitsWith is total.Add(daemon).Fits(alloc) without copying the vectors
// (the claims' instance-type loops are hot).
func fitsWith(total, daemon, alloc *cluster.Resources) bool {
	for i := range total {
		if n := total[i] + daemon[i]; n > 0 && n > alloc[i] {
			return false
		}
	}
	return true
}
