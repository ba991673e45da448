package scenario

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/spotmarket"
)

// joinSpec is spec.market.join: how launched instances join the cluster.
type joinSpec struct {
	// FailureShare of launched instances never join (default
	// spotmarket.DefaultJoinFailureShare in the stochastic model, 0 in
	// replay and off).
	FailureShare *float64 `json:"failureShare,omitempty"`
	// SlowShare of the others join SlowExtra late.
	SlowShare *float64      `json:"slowShare,omitempty"`
	SlowExtra *durationDist `json:"slowExtra,omitempty"`
}

// joinFailureSpec is a market event's joinFailure: while the event holds,
// a share of the launches it covers never join (a bad AMI rollout).
type joinFailureSpec struct {
	// Share of the covered launches that never join (default 1).
	Share *float64 `json:"share,omitempty"`
	// Mode is how they fail: neverRegisters (default: the kubelet never
	// registers) or registersNotReady (the node registers and its Ready
	// condition never turns True).
	Mode string `json:"mode,omitempty"`
	// NodePools and NodeGroups narrow the event to launches for them
	// (Karpenter NodePools, eksctl node groups); both empty: every launch.
	NodePools  []string `json:"nodePools,omitempty"`
	NodeGroups []string `json:"nodeGroups,omitempty"`
}

// joinRef is a NodePool or node group a join failure names, checked once
// the NodePools and node groups are compiled.
type joinRef struct {
	path, owner, name string
}

// compileJoin applies spec.market.join to cfg. In the replay and off
// models nothing random happens to joins unless the scenario says so.
func (l *loader) compileJoin(ms *marketSpec, cfg *spotmarket.Config) {
	if cfg.Model != spotmarket.ModelStochastic {
		cfg.Join.FailureShare, cfg.Join.SlowShare = 0, 0
	}
	if ms == nil || ms.Join == nil {
		return
	}
	j := ms.Join
	if j.FailureShare != nil {
		cfg.Join.FailureShare = *j.FailureShare
	}
	if j.SlowShare != nil {
		cfg.Join.SlowShare = *j.SlowShare
	}
	if j.SlowExtra != nil {
		if dd := l.distribution("spec.market.join.slowExtra", j.SlowExtra); dd != nil {
			cfg.Join.SlowExtra = dd
		}
	}
}

// joinFailure compiles a market event's joinFailure into out. Without
// pools.capacityType a join failure covers launches of any capacity type.
func (l *loader) joinFailure(path string, e *marketEvent, out *spotmarket.ScriptedEvent) {
	jf := e.JoinFailure
	if jf == nil {
		return
	}
	out.JoinFailure = 1
	if jf.Share != nil {
		out.JoinFailure = *jf.Share
		if *jf.Share == 0 {
			l.fail(l.scenarioDoc.Errorf(path+".joinFailure.share", "give the share of launches that never join, e.g. share: 1 (a bad AMI)", "a join failure of share 0 changes nothing"))
		}
	}
	switch jf.Mode {
	case "", joinNeverRegisters:
	case joinRegistersNotReady:
		out.JoinNotReady = true
	default:
		hint := "use " + joinNeverRegisters + " (the kubelet never registers) or " + joinRegistersNotReady + " (the node registers and never becomes Ready)"
		if s := closest(jf.Mode, []string{joinNeverRegisters, joinRegistersNotReady}); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		l.fail(l.scenarioDoc.Errorf(path+".joinFailure.mode", hint, "unknown join failure mode %q", jf.Mode))
	}
	add := func(list []string, field, owner string) {
		for i, n := range list {
			out.Groups = append(out.Groups, spotmarket.LaunchGroup{Owner: owner, Name: n})
			l.joinRefs = append(l.joinRefs, joinRef{path: fmt.Sprintf("%s.joinFailure.%s[%d]", path, field, i), owner: owner, name: n})
		}
	}
	add(jf.NodePools, "nodePools", joinOwners[0].owner)
	add(jf.NodeGroups, "nodeGroups", joinOwners[1].owner)
}

// The join failure modes (joinFailure.mode).
const (
	joinNeverRegisters    = "neverRegisters"
	joinRegistersNotReady = "registersNotReady"
)

// joinOwners are the launchers a join failure's fields name, in the
// market's vocabulary: the field, the owner its launch requests carry and
// what its pools are called.
var joinOwners = [...]struct{ field, owner, what string }{
	{"nodePools", "karpenter", "NodePool"},
	{"nodeGroups", "cluster-autoscaler", "node group"},
}

// checkJoinRefs checks the NodePools and node groups join failures name.
func (l *loader) checkJoinRefs() {
	if len(l.joinRefs) == 0 {
		return
	}
	for _, r := range l.joinRefs {
		var known []string
		what := "pool"
		for _, o := range joinOwners {
			if o.owner == r.owner {
				what = o.what
				known = l.poolNames(o.field)
			}
		}
		if containsString(known, r.name) {
			continue
		}
		hint := "the scenario has no " + what
		if len(known) > 0 {
			hint = "use one of: " + strings.Join(known, ", ")
			if s := closest(r.name, known); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
		}
		l.fail(l.scenarioDoc.Errorf(r.path, hint, "no %s %q", what, r.name))
	}
}

// poolNames are the pools of the running component that names them under
// the market's field (component.PoolNamer).
func (l *loader) poolNames(field string) []string {
	for _, cc := range l.out.Components {
		c, _ := component.Lookup(cc.Name)
		if pn, ok := c.(component.PoolNamer); ok {
			if f, names := pn.PoolNames(cc.Config); f == field {
				return names
			}
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// joinField maps the market's field path of an event's join failure share
// to the scenario's (joinFailure.share).
func joinField(field string) string {
	if strings.HasSuffix(field, ".joinFailure") {
		return field + ".share"
	}
	return field
}
