package clusterautoscaler

import (
	"slices"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
)

// buffers is the Cluster Autoscaler's CapacityBuffer support, built when
// both --capacity-buffer-controller-enabled and
// --capacity-buffer-pod-injection-enabled are on and the scenario has
// buffers:
//
//   - the buffer controller (CA pkg/capacitybuffer/controller, its
//     translators): each buffer's pod (a PodTemplate's, or the referenced
//     Deployment's, StatefulSet's, ReplicaSet's or Job's) and
//     status.replicas (capacitybuffer.ClusterAutoscaler.Replicas), only
//     for buffers of the active-capacity strategy (NewStrategyFilter).
//     Upstream reconciles on the buffer's, the template's and the
//     workload's events; here at every loop, which reads the same.
//   - the pod list processor (CA processors/capacitybuffer
//     pod_list_processor.go): every loop, status.replicas fake pods of
//     each ready buffer join the unschedulable pods, in the fake pods'
//     own equivalence group, after the real pods of their priority. Fake
//     pods that fit existing or upcoming nodes are dropped by
//     filter-out-schedulable, which keeps their room; the rest ask for a
//     scale-up like real pods (they carry no creation time, so they never
//     wait out --new-pod-scale-up-delay nor make the loop wait for newer
//     pods). They are never bound, never pending in the report, and the
//     no-scale-up reasons leave them out (scale_up_status_processor.go).
//   - scale-down: the fake pods filter-out-schedulable put on existing
//     nodes stay there for the loop's scale-down, as they stay in
//     upstream's snapshot: they count in their node's utilization, take
//     room from the removal simulation's destinations, and must move
//     elsewhere for their node to go (their safe-to-evict annotation,
//     forceSafeToEvictFakePods, makes them movable).
//
// Fake pods have PodIDs below fakePodBase, an index into pods.
type buffers struct {
	specs []capacitybuffer.Buffer
	// tmpl caches, per buffer, the workload template last copied and its
	// fake-pod copy, so the loop's equivalence groups keep one spec.
	tmpl []bufferTemplate
	// replicas is each buffer's status.replicas at the last loop (-1:
	// not ready for provisioning, or not this controller's strategy).
	replicas []int32
	// ns are the buffers' namespaces, interned when built.
	ns []cluster.Sym
	// pods are this loop's fake pods (spec and namespace), by
	// fakeIndex; placed are those filter-out-schedulable put on existing
	// nodes, and hosts those nodes, sorted.
	pods   []placedPod
	placed []bufferPlacement
	hosts  []cluster.NodeID
}

type bufferPlacement struct {
	node cluster.NodeID
	spec *cluster.PodSpec
	ns   cluster.Sym
}

type bufferTemplate struct {
	from, fake *cluster.PodSpec
}

// Fake pods, which only the Cluster Autoscaler's simulation sees, have
// PodIDs below cluster.NoPod (-1; real PodIDs are 0 or more): a
// CapacityBuffer's fake pod i is fakePodBase-i, a ProvisioningRequest's
// provReqPodBase-i (provreqs.go fakePod).
const (
	fakePodBase    cluster.PodID = -2
	provReqPodBase cluster.PodID = -(1 << 30)
)

// isFake: a fake pod of either kind, no pod of the cluster.
func isFake(id cluster.PodID) bool { return id <= fakePodBase }

// isBufferPod: a CapacityBuffer's fake pod.
func isBufferPod(id cluster.PodID) bool { return id <= fakePodBase && id > provReqPodBase }

func fakeIndex(id cluster.PodID) int { return int(fakePodBase - id) }

func newBuffers(cl *cluster.Cluster, specs []capacitybuffer.Buffer) *buffers {
	b := &buffers{specs: specs, tmpl: make([]bufferTemplate, len(specs)), replicas: make([]int32, len(specs)), ns: make([]cluster.Sym, len(specs))}
	for i := range specs {
		b.ns[i] = cl.Syms.Intern(specs[i].Namespace)
	}
	return b
}

// resolve is the buffer controller's pass: buffer i's fake pod spec and
// status.replicas (-1: not ready, or another strategy's).
func (b *buffers) resolve(cl *cluster.Cluster, i int) (*cluster.PodSpec, int32) {
	bs := &b.specs[i]
	if bs.Strategy != capacitybuffer.ActiveCapacity || capacitybuffer.ClusterAutoscaler.Unresolvable(bs) != "" {
		return nil, -1
	}
	from, replicas, ok := capacitybuffer.Source(cl, bs)
	if !ok {
		return nil, -1
	}
	t := &b.tmpl[i]
	if t.from != from {
		// makeFakePods: the template's pod, no node name; it keeps its
		// priority (the managed template went through the API server's
		// admission).
		v := *from
		v.NodeName = ""
		t.from, t.fake = from, &v
	}
	n, why := capacitybuffer.ClusterAutoscaler.Replicas(bs, replicas, func(name string) int64 { return capacitybuffer.MilliRequest(cl, t.fake, name) })
	if why != "" {
		return nil, -1
	}
	return t.fake, n
}

// injectBufferPods adds this loop's fake pods to groups as their own pod groups,
// each after the real groups of its priority (filter-out-schedulable
// sorts by priority only, and the fake pods come last in the list).
func (o *orchestrator) injectBufferPods(groups []*podGroup) []*podGroup {
	b := o.bufs
	b.pods, b.placed, b.hosts = b.pods[:0], b.placed[:0], b.hosts[:0]
	real := len(groups)
	for i := range b.specs {
		spec, n := b.resolve(o.cl, i)
		b.replicas[i] = n
		if n <= 0 {
			continue
		}
		pg := &podGroup{spec: spec, ns: b.ns[i], oldest: 0, fake: true}
		pg.podLevel, pg.hostOnly = podConstraints(spec, o.symHostname)
		pg.domainSpread = !pg.hostOnly && hasDomainSpread(spec, o.symHostname)
		pg.spreadOnly = pg.domainSpread && onlySpreadBeyondHost(spec, o.symHostname)
		if gi, ok := o.cl.Resources.Lookup(catalog.GPUResourceName); ok {
			pg.gpu = spec.Requests[gi] > 0
		}
		for range n {
			pg.pods = append(pg.pods, fakePodBase-cluster.PodID(len(b.pods)))
			b.pods = append(b.pods, placedPod{spec, b.ns[i]})
		}
		groups = append(groups, pg)
	}
	if len(groups) > real {
		slices.SortStableFunc(groups, func(x, y *podGroup) int { return int(y.spec.Priority) - int(x.spec.Priority) })
	}
	return groups
}

// podOf is a pending pod's spec and namespace, fake (a CapacityBuffer's
// or a ProvisioningRequest's) or real.
func (o *orchestrator) podOf(id cluster.PodID) (*cluster.PodSpec, cluster.Sym) {
	switch {
	case isBufferPod(id):
		p := o.bufs.pods[fakeIndex(id)]
		return p.spec, p.ns
	case isFake(id):
		f := o.prq.fake[int(provReqPodBase-id)]
		return f.spec, f.ns
	}
	p := &o.cl.Pods[id]
	return p.Spec, p.Namespace
}

// notePlaced records a fake pod filter-out-schedulable put on an
// existing node.
func (b *buffers) notePlaced(id cluster.NodeID, spec *cluster.PodSpec, ns cluster.Sym) {
	b.placed = append(b.placed, bufferPlacement{id, spec, ns})
	if i, ok := slices.BinarySearch(b.hosts, id); !ok {
		b.hosts = slices.Insert(b.hosts, i, id)
	}
}

// holdRoom takes the fake pods' room from the scale-down simulation's
// destinations (upstream they stay in the snapshot it runs on), and
// reports whether it took any: the pass then runs for real, as the
// replay does not follow the buffer's room.
func (b *buffers) holdRoom(dests *destSet) bool {
	if b == nil || len(b.placed) == 0 {
		return false
	}
	for _, p := range b.placed {
		if d := dests.get(p.node); d != nil {
			d.free = d.free.Sub(p.spec.Requests)
		}
	}
	return true
}

// placedOn are the fake pods this loop put on node id (a fresh slice;
// none without buffers).
func (b *buffers) placedOn(id cluster.NodeID) []bufferPlacement {
	if !b.keepsBuffer(id) {
		return nil
	}
	var out []bufferPlacement
	for _, p := range b.placed {
		if p.node == id {
			out = append(out, p)
		}
	}
	return out
}

// heldOn sums the requests of the fake pods this loop put on node id.
func (b *buffers) heldOn(id cluster.NodeID) (cluster.Resources, bool) {
	var sum cluster.Resources
	if !b.keepsBuffer(id) {
		return sum, false
	}
	for _, p := range b.placed {
		if p.node == id {
			sum = sum.Add(p.spec.Requests)
		}
	}
	return sum, true
}

// keepsBuffer reports whether this loop put fake pods on node id.
func (b *buffers) keepsBuffer(id cluster.NodeID) bool {
	if b == nil {
		return false
	}
	_, ok := slices.BinarySearch(b.hosts, id)
	return ok
}
