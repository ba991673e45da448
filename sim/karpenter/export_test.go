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

// computeWhatIfsWhole sets whether consolidation what-ifs are computed
// whole (no early verdicts) and every provisioning batch is solved until
// the returned func is called. Not for parallel tests (whatIfHooks).
func computeWhatIfsWhole(full bool) (reset func()) {
	whatIfHooks.full = full
	return func() { whatIfHooks.full = false }
}

// verifyDoomedWhatIfs has every what-if doomed skips computed whole and
// its failure reported to f, until the returned func is called. Not for
// parallel tests (whatIfHooks).
func verifyDoomedWhatIfs(f func(failed bool)) (reset func()) {
	whatIfHooks.verifyDoomed = f
	return func() { whatIfHooks.verifyDoomed = nil }
}
