package spotmarket

import (
	"testing"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/stretchr/testify/require"
)

// With the defaults, launches never join at DefaultJoinFailureShare and
// join late at DefaultSlowJoinShare of the rest (100,000 launches; the
// bounds are 4 standard deviations of a binomial count). A slow join is a
// launch whose latency is longer than the same launch's without join
// outcomes (same seed: the pool's draws are the same).
func TestJoinOutcomesAtTheDocumentedRates(t *testing.T) {
	const n = 100_000
	run := func(cfg Config) ([]LaunchResult, Stats) {
		cfg.Model = ModelOff
		_, m := newTestMarket(t, 7, cfg)
		od := Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: cluster.OnDemand}
		out := make([]LaunchResult, 0, n)
		for range n {
			res, err := m.Launch(LaunchRequest{Owner: "karpenter", Offerings: []Offering{od}, Latency: FleetLaunch})
			require.NoError(t, err)
			out = append(out, res)
			m.Terminate(res.Instance)
		}
		return out, m.Stats()
	}
	quiet := DefaultConfig()
	quiet.Join = JoinConfig{}
	base, _ := run(quiet)
	with, st := run(DefaultConfig())
	never, slow, over := 0, 0, 0
	for i := range with {
		switch {
		case with[i].NeverJoins:
			never++
		case with[i].ReadyAfter > base[i].ReadyAfter:
			slow++
			if with[i].ReadyAfter > 15*time.Minute {
				over++
			}
		default:
			require.Equal(t, base[i].ReadyAfter, with[i].ReadyAfter)
		}
	}
	require.InDelta(t, DefaultJoinFailureShare*n, float64(never), 4*14.1, "never joined")
	require.InDelta(t, DefaultSlowJoinShare*n, float64(slow), 4*31.5, "slow joins")
	// P(extra > 14 min 15 s) = 2.1% of slow joins: 21 expected.
	require.InDelta(t, 21, float64(over), 4*4.6, "slow joins past a 15-minute timeout: about 1 in 5,000 launches")
	require.EqualValues(t, never, st.JoinFailures)
	require.EqualValues(t, slow, st.SlowJoins)
}

// Join outcomes take their own stream: switching them off changes no
// other draw, so the launches that join at the usual latency get the
// same latency either way.
func TestJoinDrawsLeaveTheLatenciesAlone(t *testing.T) {
	lat := func(share, slow float64) ([]time.Duration, []bool) {
		cfg := DefaultConfig()
		cfg.Model = ModelOff
		cfg.Join.FailureShare, cfg.Join.SlowShare = share, slow
		_, m := newTestMarket(t, 3, cfg)
		o := Offering{InstanceType: "c5.large", Zone: "us-east-1b", CapacityType: cluster.OnDemand}
		var out []time.Duration
		var odd []bool
		for range 2000 {
			res, err := m.Launch(LaunchRequest{Offerings: []Offering{o}, Latency: ASGLaunch})
			require.NoError(t, err)
			out = append(out, res.ReadyAfter)
			odd = append(odd, res.NeverJoins)
		}
		return out, odd
	}
	base, _ := lat(0, 0)
	with, odd := lat(0.05, 0.05)
	differ := 0
	for i := range base {
		if odd[i] {
			continue
		}
		if with[i] != base[i] {
			require.Greater(t, with[i], base[i], "a slow join only adds time")
			differ++
		}
	}
	require.InDelta(t, 0.05*0.95*2000, float64(differ), 40)
}

// A scripted join failure (a bad AMI rollout) covers the launches of the
// groups it names, of any capacity type, while it holds.
func TestScriptedJoinFailure(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Join = JoinConfig{}
	cfg.Events = []ScriptedEvent{{At: time.Hour, For: 30 * time.Minute, JoinFailure: 1,
		Groups: []LaunchGroup{{Owner: "karpenter", Name: "batch"}, {Owner: "cluster-autoscaler", Name: "ng-1"}}}}
	eng, m := newTestMarket(t, 1, cfg)
	launch := func(owner, group string, ct cluster.CapacityType) bool {
		res, err := m.Launch(LaunchRequest{Owner: owner, Group: group,
			Offerings: []Offering{{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: ct}}})
		require.NoError(t, err)
		return res.NeverJoins
	}
	at := func(d time.Duration) { eng.Run(engine.Time(d)) }
	require.False(t, launch("karpenter", "batch", cluster.Spot), "before the event")
	at(time.Hour + time.Minute)
	require.True(t, launch("karpenter", "batch", cluster.Spot))
	require.True(t, launch("karpenter", "batch", cluster.OnDemand), "any capacity type")
	require.True(t, launch("cluster-autoscaler", "ng-1", cluster.OnDemand))
	require.False(t, launch("karpenter", "web", cluster.Spot), "another NodePool")
	require.False(t, launch("cluster-autoscaler", "batch", cluster.Spot), "a node group of a NodePool's name")
	at(time.Hour + 31*time.Minute)
	require.False(t, launch("karpenter", "batch", cluster.Spot), "after the event")
	require.EqualValues(t, 3, m.Stats().JoinFailures)
}

// A join failure with JoinNotReady makes the covered launches' nodes
// register (at the launch latency) and never become Ready, instead of
// never registering; the stochastic never-join share stays never-join.
func TestScriptedNotReadyJoin(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Model = ModelOff
	cfg.Join = JoinConfig{}
	cfg.Latency.Fleet = dist.Fixed{D: 40 * time.Second}
	cfg.Events = []ScriptedEvent{{At: 0, For: time.Hour, JoinFailure: 1, JoinNotReady: true,
		Groups: []LaunchGroup{{Owner: "karpenter", Name: "p"}}}}
	eng, m := newTestMarket(t, 1, cfg)
	eng.Run(engine.Time(time.Minute))
	launch := func(group string) LaunchResult {
		res, err := m.Launch(LaunchRequest{Owner: "karpenter", Group: group, Latency: FleetLaunch,
			Offerings: []Offering{{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: cluster.OnDemand}}})
		require.NoError(t, err)
		return res
	}
	res := launch("p")
	require.True(t, res.NeverReady)
	require.False(t, res.NeverJoins)
	require.Equal(t, 40*time.Second, res.ReadyAfter, "it registers when it would have been Ready")
	res = launch("q")
	require.False(t, res.NeverReady || res.NeverJoins, "another NodePool")
	st := m.Stats()
	require.EqualValues(t, 1, st.NotReadyJoins)
	require.EqualValues(t, 0, st.JoinFailures)

	cfg.Events = []ScriptedEvent{{At: 0, JoinNotReady: true, State: RegimeExhausted}}
	require.EqualError(t, cfg.Validate(), "market.events[0].joinNotReady: only says how a join failure fails; set joinFailure")
}

// Validation: shares are probabilities, a slow share needs its
// distribution, groups need a join failure, a join failure may hold for
// a while without a state.
func TestJoinValidation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Join = JoinConfig{FailureShare: 1.5, SlowShare: 0.1}
	cfg.Events = []ScriptedEvent{
		{At: time.Minute, For: time.Hour, JoinFailure: 0.5},
		{At: time.Minute, Groups: []LaunchGroup{{Owner: "karpenter", Name: "p"}}, InterruptFraction: 0.1},
	}
	err := cfg.Validate()
	require.Error(t, err)
	require.Equal(t, "market.join.failureShare: must be between 0 and 1, got 1.5\n"+
		"market.join.slowExtra: is required when slowShare > 0 (a duration distribution)\n"+
		"market.events[1].groups: only narrow a join failure; set joinFailure", err.Error())
	cfg.Join = JoinConfig{SlowShare: 0.1, SlowExtra: dist.Fixed{D: time.Minute}}
	cfg.Events = cfg.Events[:1]
	require.NoError(t, cfg.Validate())
}
