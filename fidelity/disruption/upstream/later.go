package upstream

import (
	"fmt"
	"os"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	df "github.com/clustersim/clustersim/fidelity/disruption"
)

// Round is what upstream decides a later decision on: the state our run
// reached just before that decision's instant, when upstream's clock
// reads At, with InFlight the nodes of our earlier commands started by
// then (upstream's orchestration queue holds them).
type Round struct {
	State    *df.Case
	At       time.Duration
	InFlight []string
}

// LaterRound prepares decision round (0 is the first, on the export) of
// case c after our run or; ok is false when there is nothing to compare
// (ours decided nothing before, the decision before never started, or it
// falls past the horizon). A later round's state is dumped by `sim run
// --dump-state` just before its instant (a command that starts at once,
// drift, would show in a dump at its own time), read back as kubectl
// lists it, with the case's NodePools (a dump writes budgets without
// their schedules and no hash annotations: the pools did not change
// during the run) and PodDisruptionBudget status as the disruption
// controller would keep it (a dump writes none); the nodes of earlier
// commands started by then are in flight, and those of earlier
// expirations deleting.
func LaterRound(c *df.Case, ours *df.Ours, or *df.OursResult, round int, horizon time.Duration) (Round, bool, error) {
	if round == 0 {
		return Round{State: c}, true, nil
	}
	var at time.Duration
	switch {
	case round-1 >= len(or.Decisions):
		return Round{}, false, nil // ours decided nothing before
	case round < len(or.Decisions):
		at = or.Decisions[round].At
	case or.Started[round-1] >= 0:
		at = or.Started[round-1]
	default:
		return Round{}, false, nil // the previous one never started
	}
	if at >= horizon {
		return Round{}, false, nil
	}
	dumpAt := max(at-time.Microsecond, 0)
	path, err := ours.DumpAt(or.Scenario, dumpAt, fmt.Sprintf("%s-%d", c.Name, round+1))
	if err != nil {
		return Round{}, false, fmt.Errorf("%s: %w", c.Name, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Round{}, false, err
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return Round{}, false, fmt.Errorf("%s: reading %s: %w", c.Name, path, err)
	}
	state, err := FromList(c, js)
	if err != nil {
		return Round{}, false, err
	}
	state.Pools = c.Pools
	df.FillPDBStatus(state)
	inFlight := or.InFlightBefore(round, dumpAt, at)
	// An expiration started by then deleted its NodeClaim (it does not go
	// through the queue): the dump, just before, cannot show it.
	expiring := map[string]metav1.Time{}
	for i, d := range or.Decisions[:round] {
		if d.Method == df.MethodExpiration && or.Started[i] >= 0 && or.Started[i] <= at {
			for _, n := range d.Candidates {
				expiring[n] = metav1.NewTime(df.ExportTime.Add(or.Started[i]))
			}
		}
	}
	for _, nc := range state.NodeClaims {
		if t, ok := expiring[nc.Status.NodeName]; ok && nc.DeletionTimestamp == nil {
			nc.DeletionTimestamp = &t
		}
	}
	inFlight = slices.DeleteFunc(inFlight, func(n string) bool { _, ok := expiring[n]; return ok })
	return Round{State: state, At: at, InFlight: inFlight}, true, nil
}

// Decide runs upstream once on the round: its first decision within the
// horizon, on the round's clock.
func (r Round) Decide(horizon time.Duration) (df.Decision, *Harness, error) {
	h, err := NewAt(r.State, df.ExportTime.Add(r.At))
	if err != nil {
		return df.Decision{}, nil, err
	}
	h.MarkInFlight(r.State, r.InFlight)
	d, err := h.First(horizon - r.At)
	if err != nil {
		return df.Decision{}, nil, err
	}
	d.At += r.At
	return d, h, nil
}
