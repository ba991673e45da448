package spotmarket

import (
	"math/rand/v2"
	"slices"
)

// LaunchGroup names what launches are for: an owner (LaunchRequest.Owner,
// "karpenter" or "cluster-autoscaler") and a group within it
// (LaunchRequest.Group: a NodePool, a node group).
type LaunchGroup struct {
	Owner, Name string
}

// joinState is what the market keeps to decide whether a launched
// instance's node joins the cluster, and when.
type joinState struct {
	rng *rand.Rand // "spotmarket/join": one draw per launch, two for a slow one
	// active are the scripted events whose JoinFailure is in force.
	active []int32
}

// joinMatches reports whether scripted event s's join failure covers a
// launch into pool p for req: every non-empty selector matches, and the
// capacity types are any unless the event names them.
func (s *script) joinMatches(p *pool, req *LaunchRequest) bool {
	e := &s.ev
	if len(e.CapacityTypes) > 0 && !slices.Contains(e.CapacityTypes, p.off.CapacityType) {
		return false
	}
	if len(e.Zones) > 0 && !slices.Contains(e.Zones, p.off.Zone) {
		return false
	}
	if len(e.InstanceTypes) > 0 && !slices.Contains(e.InstanceTypes, p.off.InstanceType) {
		return false
	}
	if len(e.Families) > 0 && !slices.Contains(e.Families, p.it.Family) {
		return false
	}
	return len(e.Groups) == 0 || slices.Contains(e.Groups, LaunchGroup{Owner: req.Owner, Name: req.Group})
}

// join decides, for a launch that got an instance in pool p, whether its
// node never joins (the configured share, or the highest share of the
// scripted join failures in force that cover it; that event's
// JoinNotReady makes the node register and never become Ready instead)
// and, if it joins, whether
// it is slow (SlowShare of them become Ready SlowExtra later). Every launch
// takes one draw from the join stream, a slow one two more, so the
// launches' other draws (the pool's stream) are the same with or without
// join failures.
func (m *Market) joinOutcome(res *LaunchResult, p *pool, req *LaunchRequest) {
	jc := &m.cfg.Join
	share, notReady := jc.FailureShare, false
	for _, i := range m.joins.active {
		if s := &m.scripts[i]; s.ev.JoinFailure > share && s.joinMatches(p, req) {
			share, notReady = s.ev.JoinFailure, s.ev.JoinNotReady
		}
	}
	if share <= 0 && jc.SlowShare <= 0 {
		return
	}
	u := m.joins.rng.Float64()
	switch {
	case u < share && notReady:
		// It registers when it would have been Ready.
		res.NeverReady = true
		m.stats.NotReadyJoins++
	case u < share:
		res.NeverJoins = true
		m.stats.JoinFailures++
	case jc.SlowShare > 0 && jc.SlowExtra != nil && (u-share) < jc.SlowShare*(1-share):
		res.ReadyAfter += jc.SlowExtra.Sample(m.joins.rng)
		m.stats.SlowJoins++
	}
}

// startJoinFailure puts scripted event i's join failure in force.
func (m *Market) startJoinFailure(i int32) {
	if m.scripts[i].ev.JoinFailure > 0 {
		m.joins.active = append(m.joins.active, i)
	}
}

// endJoinFailure ends it.
func (m *Market) endJoinFailure(i int32) {
	if k := slices.Index(m.joins.active, i); k >= 0 {
		m.joins.active = slices.Delete(m.joins.active, k, k+1)
	}
}

// joinOnly reports whether a scripted event acts on joins alone (no
// regime, no notices): starting and ending it touches no pool.
func (e *ScriptedEvent) joinOnly() bool {
	return e.State == RegimeUnset && e.InterruptFraction == 0 && e.RebalanceFraction == 0
}
