package karpenter

// methodOf returns the disrupter's method of type M.
func methodOf[M method](d *disrupter) M {
	for _, m := range d.methods {
		if mm, ok := m.(M); ok {
			return mm
		}
	}
	panic("karpenter: no such disruption method")
}
