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

// Covers reports whether the budget selects the pod.
func (b *PDB) Covers(c *Cluster, p *Pod) bool {
	return p.Namespace == b.Namespace && b.Selector.Matches(c.Syms, p.Spec.Labels)
}

// DisruptionsAllowed is how many of the budget's pods may be evicted now:
// healthy pods (Running and not terminating) minus the desired healthy
// count. The expected
// count is the number of the budget's pods that exist and have not
// finished, which stands in for the controllers' scale (the disruption
// controller reads the scale subresource).
func (b *PDB) DisruptionsAllowed(c *Cluster) int {
	healthy, expected := 0, 0
	for i := range c.Pods {
		p := &c.Pods[i]
		if p.Phase.Terminal() || !b.Covers(c, p) {
			continue
		}
		expected++
		if p.Phase == Running && !p.Terminating {
			healthy++
		}
	}
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
