package cluster

// PDB is a compiled PodDisruptionBudget. Exactly one of MinAvailable and
// MaxUnavailable is set.
type PDB struct {
	Namespace      Sym
	Name           string
	Selector       LabelSelector
	MinAvailable   *IntOrPercent
	MaxUnavailable *IntOrPercent
}

// IntOrPercent is a count or a percentage.
type IntOrPercent struct {
	Value   int32
	Percent bool
}

// scaled resolves v against a total: a count as is, a percentage rounded
// up (as the disruption controller does for both fields).
func (v IntOrPercent) scaled(total int) int {
	if !v.Percent {
		return int(v.Value)
	}
	return (int(v.Value)*total + 99) / 100
}

// FullyBlocking reports whether the budget allows no eviction by its spec,
// whatever the pods' health: maxUnavailable 0 or 0%, minAvailable 100%
// (KC pdb newPdb isFullyBlocking; minAvailable as a count is not).
func (b *PDB) FullyBlocking() bool {
	switch {
	case b.MaxUnavailable != nil:
		return b.MaxUnavailable.Value == 0
	case b.MinAvailable != nil:
		return b.MinAvailable.Percent && b.MinAvailable.Value == 100
	}
	return false
}

// Covers reports whether the budget selects the pod.
func (b *PDB) Covers(c *Cluster, p *Pod) bool {
	return p.Namespace == b.Namespace && b.Selector.Matches(c.Syms, p.Spec.Labels)
}

// DisruptionsAllowed is how many of the budget's pods may be evicted now:
// healthy pods (Running and not terminating) minus the desired healthy
// count. The expected count is the controllers' scale for a percentage or
// maxUnavailable (SetPDBScale; the disruption controller reads the scale
// subresource), else the number of the budget's pods that exist and have
// not finished. A budget the
// cluster tracks (TrackPDBs) is read from its counts; another is counted
// over every pod.
func (b *PDB) DisruptionsAllowed(c *Cluster) int {
	if t, ok := c.budgets.find(b); ok {
		return b.allowed(c.expected(b, t.expected), t.healthy)
	}
	healthy, expected := 0, 0
	for i := range c.Pods {
		p := &c.Pods[i]
		if !b.Covers(c, p) {
			continue
		}
		e, h := budgetShare(p)
		expected += e
		healthy += h
	}
	return b.allowed(c.expected(b, expected), healthy)
}

// SetPDBScale gives the cluster its controllers' scale for a budget: the
// desired replicas of the Deployments and StatefulSets whose pods it
// selects (ok false: none). The disruption controller counts a percentage
// or a maxUnavailable against that scale (getExpectedScale), not against
// the pods that exist: a pod a drain just deleted still counts until its
// controller replaces it, so the next eviction in the same instant is
// refused as upstream refuses it.
func (c *Cluster) SetPDBScale(f func(b *PDB) (int, bool)) { c.pdbScale = f }

// expected is a budget's expected count: the controllers' scale where the
// disruption controller reads it (SetPDBScale), else the pods counted. An
// integer minAvailable is counted against the pods (upstream: len(pods)).
func (c *Cluster) expected(b *PDB, counted int) int {
	if c.pdbScale == nil || (b.MaxUnavailable == nil && (b.MinAvailable == nil || !b.MinAvailable.Percent)) {
		return counted
	}
	if s, ok := c.pdbScale(b); ok {
		return s
	}
	return counted
}

// allowed is healthy minus the desired healthy count, at least 0.
func (b *PDB) allowed(expected, healthy int) int {
	var desired int
	switch {
	case b.MinAvailable != nil:
		desired = b.MinAvailable.scaled(expected)
	case b.MaxUnavailable != nil:
		desired = expected - b.MaxUnavailable.scaled(expected)
	}
	if allowed := healthy - desired; allowed > 0 {
		return allowed
	}
	return 0
}

// budgetShare is what a pod adds to its budgets' expected and healthy
// counts.
func budgetShare(p *Pod) (expected, healthy int) {
	if p.Phase.Terminal() {
		return 0, 0
	}
	if p.Phase == Running && !p.Terminating {
		return 1, 1
	}
	return 1, 0
}

// TrackPDBs keeps DisruptionsAllowed's counts for these budgets up to date
// on every pod change, instead of a walk over every pod ever created per
// call. Budgets are told apart by namespace and name; tracking one twice
// is harmless.
func (c *Cluster) TrackPDBs(pdbs []PDB) {
	t := &c.budgets
	for _, b := range pdbs {
		if _, ok := t.find(&b); ok {
			continue
		}
		tb := trackedPDB{pdb: b}
		for i := range c.Pods {
			if p := &c.Pods[i]; b.Covers(c, p) {
				e, h := budgetShare(p)
				tb.expected += e
				tb.healthy += h
			}
		}
		t.list = append(t.list, tb)
	}
	// Each pod's recorded share, so a change can be applied as a difference.
	for len(t.share) < len(c.Pods) {
		id := PodID(len(t.share))
		e, h := budgetShare(&c.Pods[id])
		t.share = append(t.share, shareBits(e, h))
	}
}

type trackedPDB struct {
	pdb               PDB
	expected, healthy int
}

// pdbTracker holds the tracked budgets and, per pod, the share last
// counted (bit 0 expected, bit 1 healthy).
type pdbTracker struct {
	list  []trackedPDB
	share []uint8
}

func shareBits(expected, healthy int) uint8 { return uint8(expected) | uint8(healthy)<<1 }

func (t *pdbTracker) find(b *PDB) (*trackedPDB, bool) {
	for i := range t.list {
		if tb := &t.list[i]; tb.pdb.Namespace == b.Namespace && tb.pdb.Name == b.Name {
			return tb, true
		}
	}
	return nil, false
}

// update applies a pod's change of share to the budgets covering it.
func (t *pdbTracker) update(c *Cluster, id PodID) {
	for int(id) >= len(t.share) {
		t.share = append(t.share, 0) // new pods have counted nothing yet
	}
	e, h := budgetShare(&c.Pods[id])
	now := shareBits(e, h)
	was := t.share[id]
	if now == was {
		return
	}
	t.share[id] = now
	de := int(now&1) - int(was&1)
	dh := int(now>>1) - int(was>>1)
	p := &c.Pods[id]
	for i := range t.list {
		if tb := &t.list[i]; tb.pdb.Covers(c, p) {
			tb.expected += de
			tb.healthy += dh
		}
	}
}

// ScaleSource gives a workload's pod template and its desired replicas
// (a Deployment's, StatefulSet's or ReplicaSet's spec.replicas), by
// namespace, kind and name; ok false when there is none.
type ScaleSource func(namespace, kind, name string) (spec *PodSpec, replicas int32, ok bool)

// SetScaleSource gives the cluster its controllers' workloads, for readers
// that follow a workload by reference (a CapacityBuffer's scalableRef).
func (c *Cluster) SetScaleSource(f ScaleSource) { c.scaleSource = f }

// ScaleOf is the workload's pod template and desired replicas
// (SetScaleSource); ok false without a source or such a workload.
func (c *Cluster) ScaleOf(namespace, kind, name string) (*PodSpec, int32, bool) {
	if c.scaleSource == nil {
		return nil, 0, false
	}
	return c.scaleSource(namespace, kind, name)
}
