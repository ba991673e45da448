package clusterautoscaler

import (
	"fmt"
	"maps"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
)

// CheckIndexes recomputes the Cluster Autoscaler's incremental structures
// (its copies of cluster facts, cache.go and replay.go) from the cluster
// as it is and returns an error naming the first that drifted, the node,
// pod or group, and both values (nil: all agree). sim run --check calls
// it every few thousand events and at the end. It changes nothing the
// model reads: what it recomputes it keeps to itself.
//
// The recomputations read the cluster's records (nodes, pods, their
// pods' specs) and, for a node's requested room, Node.Requested, which
// Cluster.CheckIndexes holds against its pods (sim run --check runs the
// cluster's check first); the node room table is recomputed from the
// pods themselves.
//
// A structure that may legitimately hold stale entries is checked only
// where the model would use them, by the rule the model reads it with:
//
//   - node flags and StaticFit verdicts are stamped with the node's epoch
//     and read only at that epoch: entries at another epoch are skipped;
//   - the destination list is checked as destIDs would return it, its
//     notified nodes looked at again;
//   - the findUnneeded scan may leave out only nodes that have nothing
//     to do (quiet), and only while its GPU index is current;
//   - a group's cached template is checked for the nodes the next loop
//     may copy it from (Ready, schedulable, not being deleted) for which
//     the loop keeps it instead of copying the node again; with no such
//     node it is the last one copied, by design;
//   - replayed removal simulations are checked for the calls the next
//     pass would replay if its candidates came in the last pass's order
//     (canReplay): each must equal a fresh first-fit simulation of that
//     node's removal on the current cluster, after the fresh simulations
//     of the calls before it;
//   - per-loop scratch (the destination sets' jump tables, the
//     estimator, spreads) is rebuilt by every loop and not checked.
func (a *Autoscaler) CheckIndexes() error {
	for _, check := range []func() error{
		a.checkLive, a.checkGroups, a.checkMirror, a.checkVerdicts, a.checkDests,
		a.checkScan, a.checkLists, a.checkPending, a.checkTemplates, a.checkReplays,
	} {
		if err := check(); err != nil {
			return fmt.Errorf("clusterautoscaler: %w", err)
		}
	}
	return nil
}

func (a *Autoscaler) nodeName(id cluster.NodeID) string {
	if int(id) < 0 || int(id) >= len(a.cl.Nodes) {
		return fmt.Sprintf("node %d (none)", id)
	}
	return fmt.Sprintf("node %q (%d)", a.cl.Nodes[id].Name, id)
}

func (a *Autoscaler) podName(id cluster.PodID) string {
	return fmt.Sprintf("pod %q (%d)", a.cl.Pods[id].Name, id)
}

// checkLive: the live list is the nodes not gone, by ID.
func (a *Autoscaler) checkLive() error {
	var want []cluster.NodeID
	for i := range a.cl.Nodes {
		if a.cl.Nodes[i].State != cluster.NodeGone {
			want = append(want, cluster.NodeID(i))
		}
	}
	if !slices.Equal(a.cache.live, want) {
		return fmt.Errorf("live nodes: have %v, want %v", a.cache.live, want)
	}
	return nil
}

// checkGroups: the groups' node lists, the node table, the instance
// index, the groups' capacity-type and zone counts and the deletion
// counts.
func (a *Autoscaler) checkGroups() error {
	listed, inFlight, drains := 0, 0, 0
	for _, g := range a.groups {
		deleting, spot, onDemand := 0, 0, 0
		zones := map[string]int{}
		for i, id := range g.nodes {
			if i > 0 && g.nodes[i-1] >= id {
				return fmt.Errorf("group nodes: group %s: have %v, want IDs ascending", g.cfg.Name, g.nodes)
			}
			n := a.nodes.get(id)
			if n == nil || n.group != g {
				return fmt.Errorf("node table: group %s lists %s, whose record is %v", g.cfg.Name, a.nodeName(id), describeRecord(n))
			}
			nd := &a.cl.Nodes[id]
			if nd.Owner != ownedByCA || nd.OwnerName != g.cfg.Name {
				return fmt.Errorf("group nodes: group %s lists %s, owned by %s %q", g.cfg.Name, a.nodeName(id), nd.Owner, nd.OwnerName)
			}
			if !a.goneSeen && nd.State == cluster.NodeGone {
				return fmt.Errorf("group nodes: group %s lists %s, gone unseen (goneSeen false)", g.cfg.Name, a.nodeName(id))
			}
			if got, ok := a.byInstance[n.instance]; !ok || got != id || nd.Instance != int32(n.instance) {
				return fmt.Errorf("instance index: %s (instance %d, the node says %d): have node %d (found %v), want %d", a.nodeName(id), n.instance, nd.Instance, got, ok, id)
			}
			listed++
			if n.deleting {
				deleting++
				if n.drain.kind == deleteScaleDown {
					inFlight++
				}
			}
			if n.drain.active && !n.drain.empty && n.drain.kind == deleteScaleDown {
				drains++
			}
			if nd.CapacityType == cluster.Spot {
				spot++
			} else {
				onDemand++
			}
			zones[a.cl.Syms.Name(nd.Zone)]++
		}
		if deleting != g.deleting {
			return fmt.Errorf("group deletion count: group %s: have %d, want %d", g.cfg.Name, g.deleting, deleting)
		}
		if spot != g.spot || onDemand != g.onDemand {
			return fmt.Errorf("group capacity-type counts: group %s: have %d spot %d on-demand, want %d and %d", g.cfg.Name, g.spot, g.onDemand, spot, onDemand)
		}
		have := maps.Clone(g.zoneCount)
		maps.DeleteFunc(have, func(_ string, n int) bool { return n == 0 })
		if !maps.Equal(have, zones) {
			return fmt.Errorf("group zone counts: group %s: have %v, want %v", g.cfg.Name, have, zones)
		}
	}
	records := 0
	for _, n := range a.nodes {
		if n != nil {
			records++
		}
	}
	if records != listed {
		return fmt.Errorf("node table: have %d records, want %d (one per node the groups list)", records, listed)
	}
	if len(a.byInstance) != listed {
		return fmt.Errorf("instance index: have %d instances, want %d (one per node the groups list)", len(a.byInstance), listed)
	}
	if inFlight != a.act.scaleDownsInFlight {
		return fmt.Errorf("scale-downs in flight: have %d, want %d", a.act.scaleDownsInFlight, inFlight)
	}
	if drains != a.act.drains {
		return fmt.Errorf("scale-down drains: have %d, want %d", a.act.drains, drains)
	}
	return nil
}

func describeRecord(n *caNode) string {
	if n == nil {
		return "missing"
	}
	return "of group " + n.group.cfg.Name
}

// freshFlags computes a node's flags (nodeState.destOK, sdDisabled,
// ready) from the node.
func (a *Autoscaler) freshFlags(id cluster.NodeID) (destOK, sdDisabled, ready bool) {
	nd := &a.cl.Nodes[id]
	v, ok := nd.Labels.Get(a.symScaleDownDisabled)
	return nd.Schedulable() && !a.hasTaint(nd, a.symToBeDeleted), ok && v == a.symTrue, nd.State == cluster.NodeReady
}

// checkMirror: the per-node mirror (nodeState: pods in the node's order,
// counts, allocatable, epoch-stamped flags), the room table, the
// anti-affinity counts and the bound pod count.
func (a *Autoscaler) checkMirror() error {
	c := &a.cache
	if len(c.nodes) < len(a.cl.Nodes) || len(c.free) != len(c.nodes) {
		return fmt.Errorf("node mirror: have %d records and %d rooms, want one each per node (%d)", len(c.nodes), len(c.free), len(a.cl.Nodes))
	}
	bound := 0
	// The last spec's podConstraints and fit ID (a node's pods often
	// share specs).
	var last struct {
		spec       *cluster.PodSpec
		has, known bool
		fit        int32
	}
	for i := range a.cl.Nodes {
		id, nd, st := cluster.NodeID(i), &a.cl.Nodes[i], &c.nodes[i]
		if len(st.pods) != len(nd.Pods) {
			return fmt.Errorf("node mirror: %s: have %d pods, want %d", a.nodeName(id), len(st.pods), len(nd.Pods))
		}
		var movable, daemons, anti int32
		var req cluster.Resources
		for slot, pid := range nd.Pods {
			p := &a.cl.Pods[pid]
			if p.Spec != last.spec {
				last.spec = p.Spec
				last.has, _ = podConstraints(p.Spec, a.symHostname)
				last.fit, last.known = c.fitOf[p.Spec]
			}
			has, fit, known := last.has, last.fit, last.known
			req = req.Add(p.Spec.Requests)
			want := podRef{spec: p.Spec, id: pid, ns: p.Namespace, workload: p.Workload, fit: fit, term: p.Terminating, daemon: p.Spec.DaemonSet, has: has}
			if !known || st.pods[slot] != want {
				return fmt.Errorf("node mirror: %s slot %d (%s): have %+v, want %+v (fit ID known %v)", a.nodeName(id), slot, a.podName(pid), st.pods[slot], want, known)
			}
			switch {
			case p.Spec.DaemonSet:
				daemons++
			case !p.Terminating:
				movable++
			}
			if len(p.Spec.PodAntiAffinity) > 0 {
				anti++
			}
		}
		bound += len(nd.Pods)
		if st.movable != movable || st.daemons != daemons {
			return fmt.Errorf("node mirror: %s: have %d movable %d DaemonSet pods, want %d and %d", a.nodeName(id), st.movable, st.daemons, movable, daemons)
		}
		if st.alloc != nd.Allocatable {
			return fmt.Errorf("node mirror: %s: allocatable: have %v, want %v", a.nodeName(id), st.alloc, nd.Allocatable)
		}
		if free := nd.Allocatable.Sub(req); c.free[i] != free {
			return fmt.Errorf("node room: %s: have %v, want %v", a.nodeName(id), c.free[i], free)
		}
		if st.destEp == a.cl.NodeEpoch(id)+1 {
			destOK, sd, ready := a.freshFlags(id)
			if st.destOK != destOK || st.sdDisabled != sd || st.ready != ready {
				return fmt.Errorf("node flags: %s at epoch %d: have destOK %v sdDisabled %v ready %v, want %v %v %v",
					a.nodeName(id), st.destEp-1, st.destOK, st.sdDisabled, st.ready, destOK, sd, ready)
			}
		}
		have := int32(0)
		if i < len(c.antiPods) {
			have = c.antiPods[i]
		}
		if have != anti {
			return fmt.Errorf("anti-affinity counts: %s: have %d, want %d", a.nodeName(id), have, anti)
		}
	}
	for i := len(a.cl.Nodes); i < len(c.nodes); i++ {
		if len(c.nodes[i].pods) > 0 {
			return fmt.Errorf("node mirror: node %d does not exist but has %d pods", i, len(c.nodes[i].pods))
		}
	}
	if bound != a.boundPods {
		return fmt.Errorf("bound pod count: have %d, want %d", a.boundPods, bound)
	}
	return nil
}

// checkVerdicts: the spec classes, the StaticFit verdicts at the nodes'
// current epochs, the fit IDs and the last-lookup memos.
func (a *Autoscaler) checkVerdicts() error {
	c := &a.cache
	if err := c.specs.Check(); err != nil {
		return err
	}
	if len(c.fits) != c.specs.Len() {
		return fmt.Errorf("StaticFit verdicts: have %d tables, want one per spec class (%d)", len(c.fits), c.specs.Len())
	}
	// StaticFit interns the cordon taint's key for a cordoned node: a
	// check must not add a symbol (symbols order labels).
	_, cordonKnown := a.cl.Syms.Lookup("node.kubernetes.io/unschedulable")
	for _, cs := range c.specs.Specs() {
		fc := c.fits[cs.Class]
		for i := range a.cl.Nodes {
			id := cluster.NodeID(i)
			yes, known := fc.Get(id, a.cl.NodeEpoch(id))
			if !known || a.cl.Nodes[i].Unschedulable && !cordonKnown {
				continue
			}
			m, _ := cluster.StaticFitAnyNode(a.cl.Syms, cs.Spec, &a.cl.Nodes[i], nil) // as staticFits
			if yes != (m == cluster.Fits) {
				return fmt.Errorf("StaticFit verdicts: spec class %d (labels %v) on %s at epoch %d: have fits %v, want %v (%s)",
					cs.Class, cs.Spec.Labels, a.nodeName(id), a.cl.NodeEpoch(id), yes, m == cluster.Fits, m)
			}
		}
	}
	if c.lastSpec != nil {
		if class, ok := c.specs.Lookup(c.lastSpec); !ok || c.fits[class] != c.lastCache {
			return fmt.Errorf("StaticFit verdicts: the last spec looked up (class %d, known %v) has another class's table", class, ok)
		}
	}
	ids := map[int32]bool{}
	for key, f := range c.fitIDs {
		if f < 0 || int(f) >= len(c.fitIDs) || ids[f] {
			return fmt.Errorf("fit IDs: class %d requests %v: ID %d out of 0..%d or given twice", key.class, key.req, f, len(c.fitIDs)-1)
		}
		ids[f] = true
	}
	for spec, f := range c.fitOf {
		class, ok := c.specs.Lookup(spec)
		if want, known := c.fitIDs[jumpKey{class, spec.Requests}]; !ok || !known || want != f {
			return fmt.Errorf("fit IDs: a spec (labels %v, class %d known %v): have %d, want %d (known %v)", spec.Labels, class, ok, f, want, known)
		}
	}
	if c.lastFitSpec != nil && c.fitOf[c.lastFitSpec] != c.lastFit {
		return fmt.Errorf("fit IDs: the last spec looked up: have %d, want %d", c.lastFit, c.fitOf[c.lastFitSpec])
	}
	return nil
}

// freshDests lists the live nodes pods may move to, by ID.
func (a *Autoscaler) freshDests() []cluster.NodeID {
	var out []cluster.NodeID
	for i := range a.cl.Nodes {
		if destOK, _, _ := a.freshFlags(cluster.NodeID(i)); destOK {
			out = append(out, cluster.NodeID(i))
		}
	}
	return out
}

// checkDests: the destination list as destIDs would return it, its
// positions, and its bookkeeping.
func (a *Autoscaler) checkDests() error {
	c := &a.cache
	n := len(a.cl.Nodes)
	if len(c.destMarked) < n || len(c.isDest) != len(c.destMarked) || len(c.destPos) != len(c.destMarked) {
		return fmt.Errorf("destination list: have %d marks, %d flags, %d positions, want one each per node (%d)", len(c.destMarked), len(c.isDest), len(c.destPos), n)
	}
	dirty := make([]bool, len(c.destMarked))
	for _, id := range c.destDirty {
		if dirty[id] {
			return fmt.Errorf("destination list: %s is listed twice as notified", a.nodeName(id))
		}
		dirty[id] = true
	}
	if !slices.Equal(dirty, c.destMarked) {
		return fmt.Errorf("destination list: the notified nodes' marks differ from the list %v", c.destDirty)
	}
	for id, pos := range c.destPos {
		if pos >= 0 && (int(pos) >= len(c.destList) || c.destList[pos] != cluster.NodeID(id)) || pos < 0 && slices.Contains(c.destList, cluster.NodeID(id)) {
			return fmt.Errorf("destination positions: %s: have %d, want its index in %v", a.nodeName(cluster.NodeID(id)), pos, c.destList)
		}
		// isDest changes only in destIDs, which then rebuilds the list.
		if c.isDest[id] != (pos >= 0) {
			return fmt.Errorf("destination flags: %s: have %v, want %v (it is in the list: %v)", a.nodeName(cluster.NodeID(id)), c.isDest[id], pos >= 0, pos >= 0)
		}
	}
	// What destIDs would return: the notified nodes looked at again (their
	// flags as nodeFlags gives them, checked in checkMirror), the list
	// rebuilt from the live nodes when one changed.
	isDest := slices.Clone(c.isDest)
	changed := false
	for _, id := range c.destDirty {
		want := false
		if a.cl.Nodes[id].State != cluster.NodeGone {
			want, _, _ = a.freshFlags(id)
		}
		changed = changed || want != isDest[id]
		isDest[id] = want
	}
	use := c.destList
	if changed {
		use = nil
		for _, id := range c.live {
			if isDest[id] {
				use = append(use, id)
			}
		}
	}
	if want := a.freshDests(); !slices.Equal(use, want) {
		return fmt.Errorf("destination list: have %v, want %v", use, want)
	}
	return nil
}

// quietFresh is quiet from the cluster: findUnneeded has nothing to do
// for the node until its pods or node change.
func (a *Autoscaler) quietFresh(id cluster.NodeID, gi int) bool {
	n := a.nodes.get(id)
	if n == nil || !n.group.sel.Autoscaled {
		return true
	}
	if n.unneededSince != never {
		return false
	}
	if _, sd, _ := a.freshFlags(id); sd && !a.plan.blocked[BlockScaleDownDisabled][id] {
		return false
	}
	nd := &a.cl.Nodes[id]
	alloc, used := nd.Allocatable, nd.Requested
	var u float64
	thr := a.s.ScaleDownUtilizationThreshold
	if gi >= 0 && alloc[gi] > 0 {
		u, thr = float64(used[gi])/float64(alloc[gi]), a.s.ScaleDownGPUUtilizationThreshold
	} else {
		for _, r := range [2]int{cluster.CPU, cluster.Memory} {
			if alloc[r] > 0 {
				u = max(u, float64(used[r])/float64(alloc[r]))
			}
		}
	}
	return u >= thr
}

// checkScan: findUnneeded's list and marks agree, and a node of the
// groups left out of it is quiet (while the list's GPU index is current).
func (a *Autoscaler) checkScan() error {
	c := &a.cache
	in := make([]bool, len(c.inScan))
	for _, id := range c.scan {
		if int(id) >= len(in) || in[id] {
			return fmt.Errorf("scan list: %s is listed twice or unmarked", a.nodeName(id))
		}
		in[id] = true
	}
	if !slices.Equal(in, c.inScan) {
		return fmt.Errorf("scan list: the marks differ from the list %v", c.scan)
	}
	gi := a.gpuIndex()
	if gi != c.scanGI {
		return nil // the next findUnneeded looks at every node again
	}
	for _, g := range a.groups {
		for _, id := range g.nodes {
			if (int(id) >= len(in) || !in[id]) && !a.quietFresh(id, gi) {
				return fmt.Errorf("scan list: %s of group %s is left out but has something to do (unneeded since %s)", a.nodeName(id), g.cfg.Name, a.nodes.get(id).unneededSince)
			}
		}
	}
	return nil
}

// checkLists: the soft-tainted and launching lists, the flags that
// mirror the Cluster Autoscaler's taints, and the scratch marks that
// must be clear between loops.
func (a *Autoscaler) checkLists() error {
	soft := map[cluster.NodeID]bool{}
	for _, id := range a.cache.soft {
		soft[id] = true
	}
	launching := map[cluster.NodeID]bool{}
	for _, id := range a.cache.launching {
		launching[id] = true
	}
	for _, g := range a.groups {
		for _, id := range g.nodes {
			n, nd := a.nodes.get(id), &a.cl.Nodes[id]
			if n.softTainted && !soft[id] {
				return fmt.Errorf("soft-tainted list: %s is soft-tainted but not listed", a.nodeName(id))
			}
			if nd.State == cluster.NodeLaunching && !launching[id] {
				return fmt.Errorf("launching list: %s is launching but not listed", a.nodeName(id))
			}
			if nd.State == cluster.NodeGone {
				continue
			}
			if has := a.hasTaintEffect(nd, a.symDeletionCandidate, cluster.EffectPreferNoSchedule); has != n.softTainted {
				return fmt.Errorf("soft taint flag: %s: have %v, want %v (the node's %s taint)", a.nodeName(id), n.softTainted, has, TaintDeletionCandidate)
			}
			if has := a.hasTaintEffect(nd, a.symToBeDeleted, cluster.EffectNoSchedule); has != n.deleting {
				return fmt.Errorf("deletion flag: %s: have %v, want %v (the node's %s taint)", a.nodeName(id), n.deleting, has, TaintToBeDeleted)
			}
		}
	}
	if i := slices.Index(a.plan.scratch.unneeded, true); i >= 0 {
		return fmt.Errorf("unneeded marks: %s is still marked between loops", a.nodeName(cluster.NodeID(i)))
	}
	return nil
}

func (a *Autoscaler) hasTaintEffect(nd *cluster.Node, key cluster.Sym, e cluster.Effect) bool {
	for _, t := range nd.Taints {
		if t.Key == key && t.Effect == e {
			return true
		}
	}
	return false
}

// checkPending: the pending list and its marks agree, and every pod the
// scheduler marked unschedulable that is still pending is listed.
func (a *Autoscaler) checkPending() error {
	in := make([]bool, len(a.inPending))
	for _, id := range a.pending {
		if int(id) >= len(in) || in[id] {
			return fmt.Errorf("pending list: %s is listed twice or unmarked", a.podName(id))
		}
		in[id] = true
	}
	if !slices.Equal(in, a.inPending) {
		return fmt.Errorf("pending list: the marks differ from the list %v", a.pending)
	}
	for i := range a.cl.Pods {
		if p := &a.cl.Pods[i]; p.Phase == cluster.Pending && p.Unschedulable && (i >= len(in) || !in[i]) {
			return fmt.Errorf("pending list: %s is pending and unschedulable but not listed", a.podName(cluster.PodID(i)))
		}
	}
	return nil
}

// checkTemplates: a group's cached template, for each node the next
// loop may copy it from and keep it for, is what copying that node
// gives.
func (a *Autoscaler) checkTemplates() error {
	for _, g := range a.groups {
		t := g.cached
		if t == nil {
			continue
		}
		for _, id := range g.nodes {
			n, nd := a.nodes.get(id), &a.cl.Nodes[id]
			if nd.State != cluster.NodeReady || nd.Unschedulable || n.deleting || !a.keepsTemplate(g, id) {
				continue
			}
			if what := a.templateDiff(g, t, id); what != "" {
				return fmt.Errorf("template: group %s keeps its template (copied from %s) for %s, whose %s differ", g.cfg.Name, a.nodeName(t.src), a.nodeName(id), what)
			}
		}
	}
	return nil
}

// templateDiff names what of template t differs from a copy of node id
// (templateFromNode), "" when nothing does.
func (a *Autoscaler) templateDiff(g *group, t *template, id cluster.NodeID) string {
	nd := &a.cl.Nodes[id]
	var taints []cluster.Taint
	for _, tt := range nd.Taints {
		if tt.Key != a.symToBeDeleted && tt.Key != a.symDeletionCandidate {
			taints = append(taints, tt)
		}
	}
	hostname, _ := t.node.Labels.Get(a.symHostname)
	capCPU, capMem, gpu := nd.Allocatable[cluster.CPU], nd.Allocatable[cluster.Memory], false
	if it, ok := a.cat.Lookup(nd.InstanceType); ok {
		c := it.Capacity(g.cfg.Kubelet)
		capCPU, capMem, gpu = c.CPUMilli, c.MemoryBytes, c.GPU > 0
	}
	switch {
	case !slices.Equal(nd.Labels.With(a.symHostname, hostname), t.node.Labels):
		return fmt.Sprintf("labels (%v, the template's %v)", nd.Labels.Map(a.cl.Syms), t.node.Labels.Map(a.cl.Syms))
	case !slices.Equal(taints, t.node.Taints):
		return fmt.Sprintf("taints (%v, the template's %v)", taints, t.node.Taints)
	case nd.Allocatable != t.node.Allocatable:
		return fmt.Sprintf("allocatable (%v, the template's %v)", nd.Allocatable, t.node.Allocatable)
	case nd.InstanceType != t.node.InstanceType || nd.Zone != t.node.Zone || nd.CapacityType != t.node.CapacityType:
		return "instance type, zone or capacity type"
	case capCPU != t.capCPU || capMem != t.capMem || gpu != t.gpu:
		return fmt.Sprintf("capacity (%d m %d B GPU %v, the template's %d m %d B GPU %v)", capCPU, capMem, gpu, t.capCPU, t.capMem, t.gpu)
	}
	return ""
}

// checkReplays: the calls the next pass would replay (canReplay, with the
// last pass's candidates in its order) give what a fresh simulation of
// the same removals gives on the cluster as it is.
func (a *Autoscaler) checkReplays() error {
	_, err := a.verifyReplays()
	return err
}

// verifyReplays is checkReplays; it also returns how many calls it held
// against a fresh simulation.
func (a *Autoscaler) verifyReplays() (int, error) {
	r := a.replay
	for id, at := range r.changedAt {
		if at == r.pass && cluster.NodeID(id) < r.minChanged {
			return 0, fmt.Errorf("replay: %s changed in pass %d, below the lowest changed ID %d", a.nodeName(cluster.NodeID(id)), at, r.minChanged)
		}
	}
	var sim *freshRemovals
	for k := range r.cur.calls {
		c := &r.cur.calls[k]
		// canReplay at the next pass: its minPrev is minChanged now, and
		// a node changed since it started if it changed in this pass.
		if !c.ok || c.last >= r.minChanged || int(c.id) >= len(r.changedAt) || r.changedAt[c.id] >= r.pass {
			return k, nil
		}
		if int(c.id) >= len(a.cache.nodes) {
			return k, fmt.Errorf("replay: call %d of the last pass is for %s, which has no mirror record", k, a.nodeName(c.id))
		}
		pods := a.cache.nodes[c.id].pods
		for i := range pods {
			if p := &pods[i]; !p.term && !p.daemon && a.plan.blockerRef(p) != "" {
				return k, nil
			}
		}
		if sim == nil {
			sim = a.newFreshRemovals()
		}
		why, moves := sim.remove(c.id)
		if want := r.cur.moveRange(k); why != "" || !slices.Equal(moves, want) {
			return k, fmt.Errorf("replayed removal: call %d of the last pass, %s: the replay would give moves %v, a fresh simulation %q with moves %v", k, a.nodeName(c.id), want, why, moves)
		}
	}
	return len(r.cur.calls), nil
}

// freshRemovals is a removal simulation from the cluster alone: the
// destinations are the live nodes pods may move to, by ID, with their
// room from their pods; each pod goes to the first destination, in ID
// order, that passes StaticFit, has room and passes the hostname-keyed
// pod constraints against every pod there.
type freshRemovals struct {
	a     *Autoscaler
	ids   []cluster.NodeID
	pos   map[cluster.NodeID]int
	free  []cluster.Resources
	extra [][]placedPod
	gone  []bool
	fits  map[*cluster.PodSpec][]int8 // StaticFit by destination: 0 not known, 1 yes, 2 no
}

func (a *Autoscaler) newFreshRemovals() *freshRemovals {
	s := &freshRemovals{a: a, ids: a.freshDests(), pos: map[cluster.NodeID]int{}, fits: map[*cluster.PodSpec][]int8{}}
	for i, id := range s.ids {
		s.pos[id] = i
		s.free = append(s.free, a.cl.Nodes[id].Free())
	}
	s.extra = make([][]placedPod, len(s.ids))
	s.gone = make([]bool, len(s.ids))
	return s
}

// remove simulates removing node id: "" and the moves when its pods all
// find a place (the moves are then applied and the node is gone from the
// simulation), else why not.
func (s *freshRemovals) remove(id cluster.NodeID) (string, []replayMove) {
	a := s.a
	self, isDest := s.pos[id]
	if isDest {
		s.gone[self] = true
	}
	type placed struct {
		at int
		m  replayMove
	}
	var moves []placed
	undo := func() {
		for _, m := range moves {
			s.free[m.at] = s.free[m.at].Add(m.m.spec.Requests)
			s.extra[m.at] = s.extra[m.at][:len(s.extra[m.at])-1]
		}
		if isDest {
			s.gone[self] = false
		}
	}
	for _, pid := range a.cl.Nodes[id].Pods {
		p := &a.cl.Pods[pid]
		if p.Terminating || p.Spec.DaemonSet {
			continue
		}
		if why := a.plan.blockerRef(&podRef{spec: p.Spec, id: pid, ns: p.Namespace, workload: p.Workload}); why != "" {
			undo()
			return why, nil
		}
		if p.Spec.Priority < a.s.ExpendablePodsPriorityCutoff {
			continue
		}
		at := s.first(p.Spec, p.Namespace)
		if at < 0 {
			undo()
			return BlockNoPlaceToMove, nil
		}
		s.free[at] = s.free[at].Sub(p.Spec.Requests)
		s.extra[at] = append(s.extra[at], placedPod{p.Spec, p.Namespace})
		moves = append(moves, placed{at, replayMove{dest: s.ids[at], spec: p.Spec, ns: p.Namespace}})
	}
	// Then, as canRemove does, a CapacityBuffer's fake pods on the node
	// and the pods earlier removals of the pass moved onto it: they move
	// on with it.
	var more []placedPod
	for _, b := range a.plan.bufs.placedOn(id) {
		more = append(more, placedPod{b.spec, b.ns})
	}
	if isDest {
		more = append(more, s.extra[self]...)
	}
	for _, e := range more {
		at := s.first(e.spec, e.ns)
		if at < 0 {
			undo()
			return BlockNoPlaceToMove, nil
		}
		s.free[at] = s.free[at].Sub(e.spec.Requests)
		s.extra[at] = append(s.extra[at], e)
		moves = append(moves, placed{at, replayMove{dest: s.ids[at], spec: e.spec, ns: e.ns}})
	}
	out := make([]replayMove, len(moves))
	for i, m := range moves {
		out[i] = m.m
	}
	return "", out
}

// first returns the first destination a pod of spec in namespace ns may
// go to, or -1.
func (s *freshRemovals) first(spec *cluster.PodSpec, ns cluster.Sym) int {
	a := s.a
	fits := s.fits[spec]
	if fits == nil {
		fits = make([]int8, len(s.ids))
		s.fits[spec] = fits
	}
	for i, id := range s.ids {
		if s.gone[i] || !spec.Requests.Fits(s.free[i]) {
			continue
		}
		if fits[i] == 0 {
			fits[i] = 2
			if m, _ := cluster.StaticFitAnyNode(a.cl.Syms, spec, &a.cl.Nodes[id], nil); m == cluster.Fits { // as staticFits
				fits[i] = 1
			}
		}
		if fits[i] != 1 {
			continue
		}
		var there []placedPod
		for _, q := range a.cl.Nodes[id].Pods {
			there = append(there, placedPod{a.cl.Pods[q].Spec, a.cl.Pods[q].Namespace})
		}
		if podLevelOK(a.cl.Syms, a.symHostname, spec, ns, append(there, s.extra[i]...)) {
			return i
		}
	}
	return -1
}
