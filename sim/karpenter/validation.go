package karpenter

// Emptiness and consolidation commands are decided, then re-checked
// CommandValidationDelay later, while the disruption loop waits (KC
// Validator): the candidates must still be candidates of the method,
// within budget, and the method must still agree (method.validate).

// validatePending re-checks the pending command after the validation
// delay and starts it if it still holds (KC Validator).
func (d *disrupter) validatePending() {
	cmd := d.pending
	d.pending = nil
	d.work = 0
	if cmd != nil {
		if ok, why := d.stillValid(cmd); ok {
			if d.onCommand != nil {
				d.decideBudgets(cmd) // as the validation found them
			}
			d.start(cmd)
		} else if d.onCommand != nil {
			d.tell(cmd, phaseInvalidated, why.words(d, cmd))
		}
	}
	d.schedulePass(d.passTime(d.work))
}

// stillValid re-checks a command's candidates and budgets, then asks its
// method; why says what turned it down.
func (d *disrupter) stillValid(cmd *command) (ok bool, why invalidation) {
	cur := map[*knode]*candidate{}
	for _, c := range d.candidates(cmd.method) {
		cur[c.kn] = c
	}
	budget := d.budgets(cmd.method.reason())
	var fresh []*candidate
	for _, c := range cmd.cands {
		nc, ok := cur[c.kn]
		if !ok {
			return false, invalidation{notCandidate, c.kn}
		}
		if budget[c.kn.Pool] == 0 {
			return false, invalidation{noBudget, c.kn}
		}
		budget[c.kn.Pool]--
		fresh = append(fresh, nc)
	}
	if !cmd.method.validate(cmd, fresh) {
		return false, invalidation{methodDisagrees, nil}
	}
	return true, invalidation{}
}

// stillConsolidates re-checks a consolidation command: consolidating the
// fresh candidates gives the same kind of command (delete only, or one
// replacement that may still launch every original option); sameType
// applies multi-node's filterOutSameType to the new one first. The
// command then takes the fresh candidates.
func (d *disrupter) stillConsolidates(cmd *command, fresh []*candidate, sameType bool) bool {
	again := d.consolidate(cmd.method, fresh)
	if again == nil {
		return false
	}
	if len(cmd.replacements) == 0 {
		return len(again.replacements) == 0
	}
	if len(again.replacements) != 1 {
		return false
	}
	if sameType && !d.filterOutSameType(again) {
		return false
	}
	// The original options must still all be possible.
	have := map[int32]bool{}
	for _, t := range again.optTypes {
		have[t] = true
	}
	for _, t := range cmd.optTypes {
		if !have[t] {
			return false
		}
	}
	cmd.cands = fresh
	return true
}
