package karpenter

import (
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

// claim is a NodeClaim being built by a solve.
type claim struct {
	seq      int
	pool     *pool
	ppos     int // position of pool in the solve's template order
	hostname cluster.Sym
	reqs     reqSet
	mask     uint64 // offering bits allowed by reqs
	requests cluster.Resources
	opts     []int32 // positions in pool.types
	pods     []cluster.PodID
}

type solver struct {
	k     *solvers // the solvers part that made it: what solves share
	pools []*pool  // templates, weight order
	topo  *topology
	pds   []*podData // by podStatic.idx
	// lastKey and lastPD memoize the last podData lookup.
	lastKey pdKey
	lastPD  *podData
	sets    []*podSet // solveOpts.sets
	avail   []uint64  // per itype: available offering bits
	// exists are the existing nodes the solve placed pods on, in base
	// order (filled when the solve ends).
	exists []*exNode
	// ec and base are the shared snapshot of existing nodes; stamp marks
	// this solve's overlay entries; touched are its copies of the nodes
	// it changed.
	ec      *exCache
	base    []exNode
	stamp   uint32
	touched []*exNode
	claims  []*claim
	order   []*claim // claims in KC's try order (see add)
	// unsorted: order is not sorted by pod count (add sorts it first).
	unsorted bool
	// remaining resources per pool position (limits), has: limits set.
	remaining []cluster.Resources
	hasLimit  [][cluster.MaxResources]bool
	// nodesLeft is per pool position its node limit minus its existing
	// nodes (0: no new NodeClaim; < 0: no node limit). The solve's own
	// NodeClaims do not count: KC's subtractMax subtracts instance-type
	// capacity, which has no "nodes" entry, so one batch may overshoot a
	// node limit (Karpenter checks usage > limit only when it creates
	// the NodeClaims, against the usage before the batch: launchAllowed).
	nodesLeft  []int64
	consolidat bool
	failed     []cluster.PodID
	retry      []qkey // the solve's failed pods, in order
	scratch    []int32
	newOpts    []int32 // addNew's options before a claim keeps them
	checks     []typeCheck
	lchecks    []typeCheck
	seq        int
	anyPNS     bool
	now        engine.Time
	// A consolidation what-if may stop as soon as its answer is
	// known to be "no" (decided): stopAtTwo once it has two NodeClaims,
	// stopAtSpot once its first NodeClaim can launch spot (see
	// Karpenter.earlyNo).
	stopAtTwo, stopAtSpot bool
	spotBits              uint64
	decided               bool
}

type solveOpts struct {
	// exclude are nodes that must not receive pods (consolidation
	// candidates).
	exclude []cluster.NodeID
	// consolidation: a what-if for disruption (pods being moved may not
	// land on nodes under consolidateAfter).
	consolidation bool
	// sets, if any, are the solve's pods (in order) prepared in runs that
	// many solves share (a disruption pass's candidates and provisionable
	// pods).
	sets []*podSet
	// universe, if set, is the pools' domains (domainUniverse) that a
	// disruption pass shares.
	universe map[cluster.Sym][]cluster.Sym
}

func (s *solver) addExistingInverse(n *cluster.Node) {
	cl := s.k.cl
	for _, pid := range n.Pods {
		p := &cl.Pods[pid]
		if len(p.Spec.PodAntiAffinity) == 0 || p.Terminating || s.moves(pid) {
			continue
		}
		for _, g := range s.topo.addInverse(p.Spec, p.Namespace) {
			if d, ok := domainOf(cl, n, g.key); ok {
				g.record(d)
			}
		}
	}
}

// moves reports whether the solve reschedules the pod.
func (s *solver) moves(id cluster.PodID) bool {
	return int(id) < len(s.k.podMark) && s.k.podMark[id] == s.stamp
}

// pending reports whether a pod of the solve is pending (not bound).
func (s *solver) pending(id cluster.PodID) bool {
	return s.moves(id) && s.k.cl.Pods[id].Phase == cluster.Pending
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

// qkey is a pod's place in KC's Queue order: cpu desc, memory desc,
// creation time, then id (for the uid). Kept beside pod lists so sorting
// and merging read no pod records.
type qkey struct {
	cpu, mem int64
	created  engine.Time
	id       cluster.PodID
	// What placing the pod reads, so a solve does not touch pod records
	// (random reads over every pod ever created): its template, and
	// whether it is pending, on a deleting node, or neither (origin).
	ns     cluster.Sym
	origin podOrigin
	spec   *cluster.PodSpec
}

// podOrigin says where a pod of a solve comes from; it decides which
// existing nodes may take it.
type podOrigin uint8

const (
	fromCandidate podOrigin = iota // bound, moved by a disruption
	fromPending
	fromDeleting // bound on a node being deleted
)

// originOf is the origin of a pod of a solve.
func (sv *solvers) originOf(id cluster.PodID) podOrigin {
	switch {
	case sv.cl.Pods[id].Phase == cluster.Pending:
		return fromPending
	case sv.nodes.podOnDeletingNode(id):
		return fromDeleting
	}
	return fromCandidate
}

func (a *qkey) before(b *qkey) bool {
	if a.cpu != b.cpu {
		return a.cpu > b.cpu
	}
	if a.mem != b.mem {
		return a.mem > b.mem
	}
	if a.created != b.created {
		return a.created < b.created
	}
	return a.id < b.id
}

func compareQ(a, b qkey) int {
	switch {
	case a.before(&b):
		return -1
	case b.before(&a):
		return 1
	}
	return 0
}

// queueKey is a pod's queue key.
func (sv *solvers) queueKey(id cluster.PodID, p *cluster.Pod) qkey {
	return qkey{cpu: p.Spec.Requests[cluster.CPU], mem: p.Spec.Requests[cluster.Memory], created: p.Created, id: id,
		ns: p.Namespace, origin: sv.originOf(id), spec: p.Spec}
}

// queueKeys returns the pods' keys in queue order.
func (sv *solvers) queueKeys(pods []cluster.PodID) []qkey {
	keys := make([]qkey, len(pods))
	for i, id := range pods {
		keys[i] = sv.queueKey(id, &sv.cl.Pods[id])
	}
	// The order is total (ids differ): any sort gives the same result.
	slices.SortFunc(keys, compareQ)
	return keys
}

// podQueue yields the pods in queue order. Prepared sets are sorted
// already and only merged, lazily (most what-ifs stop early: earlyNo):
// two runs head to head, more through a heap of runs ordered by their
// first pod. The order is total, so the result is the one a full sort
// gives.
type podQueue struct {
	a, b []qkey   // two runs left to merge
	runs [][]qkey // more: the runs, and a heap of their indices
	heap []int32
	n    int // pods left
}

func (s *solver) queue(pods []cluster.PodID) podQueue {
	if s.sets == nil {
		keys := s.k.queueKeys(pods)
		return podQueue{a: keys, n: len(keys)}
	}
	var q podQueue
	runs := make([][]qkey, 0, len(s.sets))
	for _, ps := range s.sets {
		if len(ps.qkeys) > 0 {
			runs = append(runs, ps.queueOrder())
			q.n += len(ps.qkeys)
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

func (q *podQueue) len() int { return q.n }

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

// peek returns the next pod; next drops it. Both need len() > 0.
func (q *podQueue) peek() *qkey {
	if q.heap != nil {
		return &q.runs[q.heap[0]][0]
	}
	if q.fromB() {
		return &q.b[0]
	}
	return &q.a[0]
}

func (q *podQueue) next() {
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

// solve places the pods; those it could not place are left in s.failed.
// The queue is the pods in queue order followed by the pods that failed,
// in the order they failed; the solve stops when a pod comes round again
// with no pod placed since it failed (a full pass without progress).
func (s *solver) solve(pods []cluster.PodID) {
	q := s.queue(pods)
	retry := s.retry[:0]
	rhead := 0
	// lastLen: per failed pod, the queue length left when it failed.
	var lastLen map[cluster.PodID]int
	for {
		live := q.len() + len(retry) - rhead
		if live == 0 {
			break
		}
		var e qkey
		if q.len() > 0 {
			e = *q.peek()
		} else {
			e = retry[rhead]
		}
		id := e.id
		if n, ok := lastLen[id]; ok && n == live {
			break
		}
		if q.len() > 0 {
			q.next()
		} else {
			rhead++
		}
		if s.trySchedule(&e) {
			if s.settled() {
				s.decided = true
				s.retry = retry
				return
			}
			continue
		}
		retry = append(retry, e)
		if lastLen == nil {
			lastLen = map[cluster.PodID]int{}
		}
		lastLen[id] = q.len() + len(retry) - rhead
	}
	// A break happens only on a retried pod, after the whole queue.
	s.failed = s.failed[:0]
	for _, e := range retry[rhead:] {
		s.failed = append(s.failed, e.id)
	}
	s.retry = retry
	s.finishExisting()
}

// settled reports whether the what-if's answer is known to be "no" (see
// solver.decided). A NodeClaim's offerings only narrow as pods join it,
// and a spot offering is lost only to a capacity-type requirement, which
// stopAtSpot rules out.
func (s *solver) settled() bool {
	switch n := len(s.claims); {
	case n == 0:
		return false
	case n >= 2:
		return s.stopAtTwo
	}
	return s.stopAtSpot && s.claims[0].mask&s.spotBits != 0
}

func (s *solver) trySchedule(e *qkey) bool {
	var r relax
	for {
		pd := s.podData(e.spec, e.ns, r)
		s.resolveInverse(pd)
		if s.add(e.id, e.origin, pd) {
			return true
		}
		next, ok := s.k.nextRelax(e.spec, r, s.anyPNS)
		if !ok {
			return false
		}
		r = next
	}
}

func (s *solver) add(id cluster.PodID, origin podOrigin, pd *podData) bool {
	if s.addExisting(id, origin, pd) {
		return true
	}
	for i, c := range s.tryOrder() {
		if reqs, mask, ok := s.canAdd(c, pd, c.reqs, c.mask); ok {
			s.commit(c, id, pd, reqs, mask)
			s.joined(i)
			return true
		}
	}
	return s.addNew(id, pd)
}

// tryOrder returns the solve's NodeClaims in the order KC's add tries
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
func (s *solver) tryOrder() []*claim {
	if s.unsorted {
		sort.Sort((*claimsByPods)(&s.order))
		s.unsorted = false
	}
	return s.order
}

// joined notes that a pod joined s.order[i].
func (s *solver) joined(i int) {
	if i+1 < len(s.order) && len(s.order[i+1].pods) < len(s.order[i].pods) {
		s.unsorted = true
	}
}

// appendClaim adds a new NodeClaim after the others, as KC appends it to
// its sorted slice.
func (s *solver) appendClaim(c *claim) {
	s.order = append(s.order, c)
	if n := len(s.order); n > 1 && len(s.order[n-2].pods) > len(c.pods) {
		s.unsorted = true
	}
}

// claimsByPods orders NodeClaims by pod count (KC's add comparator).
type claimsByPods []*claim

func (c *claimsByPods) Len() int           { return len(*c) }
func (c *claimsByPods) Less(i, j int) bool { return len((*c)[i].pods) < len((*c)[j].pods) }
func (c *claimsByPods) Swap(i, j int)      { (*c)[i], (*c)[j] = (*c)[j], (*c)[i] }

func (s *solver) addExisting(id cluster.PodID, origin podOrigin, pd *podData) bool {
	pending := origin == fromPending
	ci := int(origin)
	// Nodes under consolidateAfter take no pods a consolidation moves.
	uca := s.consolidat && origin == fromCandidate
	jt := pd.jts[b2i(uca)]
	if jt == nil {
		jt = s.ec.jump(fitClass{spec: pd.class, relax: pd.relax, uca: uca})
		pd.jts[b2i(uca)] = jt
	}
	n := len(s.base)
	start := 0
	if !pd.topo() {
		start = pd.exCursor[ci]
	}
	for i := start; i < n; i++ {
		i = s.nextBaseFit(jt, pd, uca, i)
		if i >= n {
			break
		}
		if sl := s.slot(i); sl != nil {
			if sl.excluded || (sl.touched >= 0 && !pd.requests.Fits(s.touched[sl.touched].free)) {
				continue
			}
		}
		ex := &s.base[i]
		if vp := pd.spec.Volume; vp != nil && vp.Attach > 0 && !s.attachFits(i, ex, vp.Attach) {
			continue
		}
		v := nodeView{node: ex.view}
		if pd.topo() {
			if _, ok := s.topo.addRequirements(pd, &v); !ok {
				continue
			}
		} else {
			pd.exCursor[ci] = i
		}
		if len(s.topo.groups) > 0 || len(pd.inverseOwn) > 0 {
			s.topo.record(pd, &v)
		}
		t := s.touch(i)
		t.free = t.free.Sub(pd.requests)
		t.got = append(t.got, id)
		t.gotPending = t.gotPending || pending
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
func (s *solver) attachFits(pos int, ex *exNode, n int32) bool {
	cl := s.k.cl
	used := cl.AttachedVolumes(ex.id)
	if sl := s.slot(pos); sl != nil && sl.touched >= 0 {
		for _, id := range s.touched[sl.touched].got {
			if v := cl.Pods[id].Spec.Volume; v != nil {
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
func (s *solver) canAdd(c *claim, pd *podData, base reqSet, baseMask uint64) (reqSet, uint64, bool) {
	k := s.k
	syms := k.cl.Syms
	switch pd.tmplTol[c.ppos] {
	case 0:
		if tolerates(pd.spec.Tolerations, c.pool.spec.Taints, pd.tolPNS) {
			pd.tmplTol[c.ppos] = 1
		} else {
			pd.tmplTol[c.ppos] = 2
			return nil, 0, false
		}
	case 2:
		return nil, 0, false
	}
	reqs := base
	if len(pd.reqs) > 0 {
		if !compatible(syms, base, pd.reqs, k.wellKnown) {
			return nil, 0, false
		}
		if !absorbs(base, pd.reqs) {
			reqs = merge(syms, base, pd.reqs)
		}
	}
	if pd.topo() {
		v := nodeView{reqs: reqs, taints: c.pool.spec.Taints, claim: c}
		tr, ok := s.topo.addRequirements(pd, &v)
		if !ok {
			return nil, 0, false
		}
		if len(tr) > 0 {
			trs := sortReqs(syms, tr)
			if !compatible(syms, reqs, trs, k.wellKnown) {
				return nil, 0, false
			}
			reqs = merge(syms, reqs, trs)
		}
	}
	// Instance types: requirements (only keys that changed), resources
	// and an available offering the requirements allow.
	mask := baseMask
	var checks []typeCheck
	if len(reqs) != len(base) || (len(reqs) > 0 && &reqs[0] != &base[0]) {
		mask = k.offerings.offerMask(reqs)
		s.checks = k.offerings.typeChecks(base, reqs, s.checks)
		checks = s.checks
	}
	total := c.requests.Add(pd.requests)
	s.scratch = s.scratch[:0]
	for _, pos := range c.opts {
		pt := &c.pool.types[pos]
		if !fitsWith(&total, &pt.daemon, &pt.alloc) {
			continue
		}
		if s.avail[pt.t.idx]&mask == 0 {
			continue
		}
		if len(checks) > 0 && !k.offerings.typeMeets(pt.t, checks) {
			continue
		}
		s.scratch = append(s.scratch, pos)
	}
	if len(s.scratch) == 0 {
		return nil, 0, false
	}
	if !s.minValuesOK(c.pool, reqs, s.scratch) {
		return nil, 0, false
	}
	return reqs, mask, true
}

// launchBits returns the offering bits (zone x capacity type) in which
// claim c could launch with the pod: those reqs allow that are available
// for an instance type c keeps that fits the pod and meets reqs. It
// breaks ties between topology domains (topology.launchable).
func (s *solver) launchBits(c *claim, pd *podData, reqs reqSet) uint64 {
	k := s.k
	mask := k.offerings.offerMask(reqs)
	s.lchecks = k.offerings.typeChecks(c.reqs, reqs, s.lchecks)
	total := c.requests.Add(pd.requests)
	var u uint64
	for _, pos := range c.opts {
		pt := &c.pool.types[pos]
		if u == mask {
			break // every allowed bit is launchable already
		}
		if !fitsWith(&total, &pt.daemon, &pt.alloc) {
			continue
		}
		if len(s.lchecks) > 0 && !k.offerings.typeMeets(pt.t, s.lchecks) {
			continue
		}
		u |= s.avail[pt.t.idx] & mask
	}
	return u
}

// minValuesOK checks minValues requirements against the instance types
// left (KC InstanceTypes.SatisfiesMinValues), unless the policy is
// BestEffort.
func (s *solver) minValuesOK(p *pool, reqs reqSet, opts []int32) bool {
	k := s.k
	if k.settings.MinValuesBestEffort {
		return true
	}
	for i := range reqs {
		r := &reqs[i]
		if r.minValues == 0 {
			continue
		}
		tk, ok := k.offerings.typeKeyIndex(r.key)
		if !ok {
			continue
		}
		seen := map[cluster.Sym]bool{}
		for _, pos := range opts {
			if v := p.types[pos].t.lab[tk]; v != cluster.NoSym {
				seen[v] = true
			}
		}
		if len(seen) < int(r.minValues) {
			return false
		}
	}
	return true
}

func (s *solver) commit(c *claim, id cluster.PodID, pd *podData, reqs reqSet, mask uint64) {
	c.reqs, c.mask = reqs, mask
	c.opts = append(c.opts[:0], s.scratch...)
	c.requests = c.requests.Add(pd.requests)
	c.pods = append(c.pods, id)
	if len(s.topo.groups) > 0 || len(pd.inverseOwn) > 0 {
		v := nodeView{reqs: c.reqs, taints: c.pool.spec.Taints}
		s.topo.record(pd, &v)
	}
}

// addNew tries a new NodeClaim from each pool in weight order.
func (s *solver) addNew(id cluster.PodID, pd *podData) bool {
	c, i, reqs, mask, ok := s.startClaim(pd)
	if !ok {
		return false
	}
	p := c.pool
	s.seq++
	s.topo.registerHost(c.hostname)
	c.opts = nil // commit gives the claim its own options list
	s.commit(c, id, pd, reqs, mask)
	s.claims = append(s.claims, c)
	s.appendClaim(c)
	// Assume the largest instance type will launch (KC subtractMax).
	var maxCap cluster.Resources
	for _, pos := range c.opts {
		for r, v := range p.types[pos].capacity {
			maxCap[r] = max(maxCap[r], v)
		}
	}
	s.remaining[i] = s.remaining[i].Sub(maxCap)
	return true
}

// startClaim finds the first pool, in weight order, that would start a
// new NodeClaim for the pod, without keeping it: the claim (its options
// are scratch), the pool's position, and the requirements and offering
// mask with the pod (its instance types left in s.scratch).
func (s *solver) startClaim(pd *podData) (c *claim, i int, reqs reqSet, mask uint64, ok bool) {
	k := s.k
	for i, p := range s.pools {
		if len(p.types) == 0 || s.nodesLeft[i] == 0 {
			continue
		}
		// The options list is scratch until the claim is kept.
		opts := s.newOpts[:0]
		for pos := range p.types {
			pt := &p.types[pos]
			if !s.withinLimits(i, pt) {
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
		c := &claim{seq: s.seq + 1, pool: p, ppos: i, hostname: h, opts: opts}
		st := k.claimStart(p, s.seq+1, h)
		c.reqs, c.mask = st.reqs, st.mask
		if reqs, mask, ok := s.canAdd(c, pd, c.reqs, c.mask); ok {
			return c, i, reqs, mask, true
		}
	}
	return nil, 0, nil, 0, false
}

func (s *solver) withinLimits(i int, pt *poolType) bool {
	for r, has := range s.hasLimit[i] {
		if has && pt.capacity[r] > s.remaining[i][r] {
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
