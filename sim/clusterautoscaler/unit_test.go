package clusterautoscaler

import (
	"math/rand/v2"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud/cloudtest"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
)

// bareState is a cluster state with the default settings and groups,
// for tests of its bookkeeping alone.
func bareState(eng *engine.Engine, groups ...*group) *clusterState {
	s := config.DefaultSettings()
	return &clusterState{env: env{eng: eng, s: &s}, groups: groups}
}

// bareExpander is an expander with the default settings.
func bareExpander(rng *rand.Rand) *expander {
	s := config.DefaultSettings()
	return &expander{env: env{s: &s, rng: rng}}
}

func TestBackoffDoublingAndReset(t *testing.T) {
	g := &group{}
	a := bareState(nil, g)
	m := time.Minute
	steps := []struct {
		at   time.Duration // failure time
		want time.Duration // back-off duration after it
	}{
		{0, 5 * m},
		{6 * m, 10 * m},   // after the first ended: doubles
		{17 * m, 20 * m},  // doubles
		{38 * m, 30 * m},  // capped at 30 min
		{69 * m, 30 * m},  // stays at the cap
		{70 * m, 30 * m},  // while backed off: keeps the duration, from now
		{101 * m, 30 * m}, // after: doubles, capped
	}
	for _, s := range steps {
		a.backoffGroup(g, s.at)
		require.Equal(t, s.want, g.bo.duration, "failure at %s", s.at)
		require.Equal(t, s.at+s.want, g.bo.until)
		require.True(t, a.backedOff(g, s.at))
		require.False(t, a.backedOff(g, s.at+s.want))
	}
	// 3 h after the last failure the back-off is forgotten: the next one
	// starts at the initial duration again.
	a.cleanBackoffs(101*m + 3*time.Hour - time.Second)
	require.True(t, g.bo.known)
	a.cleanBackoffs(101*m + 3*time.Hour + time.Second)
	require.False(t, g.bo.known)
	a.backoffGroup(g, 101*m+3*time.Hour+time.Minute)
	require.Equal(t, 5*m, g.bo.duration)
}

// A failure during a doubled back-off keeps the doubled duration (it does
// not fall back to the initial 5 min).
func TestBackoffFailureWhileBackedOffKeepsDuration(t *testing.T) {
	g := &group{}
	a := bareState(nil, g)
	m := time.Minute
	a.backoffGroup(g, 0)   // 5m
	a.backoffGroup(g, 6*m) // doubles: 10m, until 16m
	a.backoffGroup(g, 8*m) // still backed off: keeps 10m, until 18m
	require.Equal(t, 10*m, g.bo.duration)
	require.Equal(t, 18*m, g.bo.until)
}

// A scale-up that completes while its group is backed off (some of its
// nodes came, another launch failed) leaves the back-off in place.
func TestBackoffSurvivesCompletedScaleUp(t *testing.T) {
	g := &group{}
	a := bareState(engine.New(1), g)
	a.backoffGroup(g, 0)
	g.req = scaleUpRequest{active: true, expected: 15 * time.Minute}
	a.updateScaleRequests(time.Minute)
	require.False(t, g.req.active, "the scale-up completed")
	require.True(t, a.backedOff(g, time.Minute), "its back-off still holds")
	require.False(t, a.backedOff(g, 5*time.Minute))
}

func TestBackoffAccounting(t *testing.T) {
	a := bareState(nil)
	g := &group{}
	m := time.Minute
	a.backoffGroup(g, 0) // [0, 5m)
	require.Equal(t, 60.0, g.bo.seconds(m))
	a.backoffGroup(g, 2*m) // restarts: [0, 7m)
	require.Equal(t, 420.0, g.bo.seconds(time.Hour))
	a.backoffGroup(g, 10*m) // after it ended: doubles to 10m: [10m, 20m)
	require.True(t, a.backedOff(g, 12*m))
	require.Equal(t, 420.0+600, g.bo.seconds(time.Hour))
}

func TestExpanders(t *testing.T) {
	mk := func(name string, nodes int, pods int, cpu, mem int64, capCPU, capMem int64) *option {
		g := &group{cfg: &config.NodeGroup{Name: name, ASGName: "eks-" + name + "-1"}}
		o := &option{g: g, tpl: &template{capCPU: capCPU, capMem: capMem}}
		o.est.nodes = nodes
		o.est.pods = make([]cluster.PodID, pods)
		o.est.cpu, o.est.mem = cpu, mem
		return o
	}
	big := mk("big", 1, 4, 3000, 6<<30, 8000, 32<<30)    // waste 0.625+0.8125
	small := mk("small", 2, 4, 3000, 6<<30, 2000, 8<<30) // waste 0.25+0.625
	tight := mk("tight", 3, 3, 3000, 6<<30, 1000, 2<<30) // waste 0+0
	opts := []*option{big, small, tight}
	prios := &config.Priorities{Rules: []config.PriorityRule{
		{Priority: 10, Regexes: mustRegexps("small|big")},
		{Priority: 1, Regexes: mustRegexps(".*")},
	}}
	cases := []struct {
		chain []string
		want  string
	}{
		{[]string{"least-waste"}, "tight"},
		{[]string{"most-pods"}, ""}, // big and small tie; then random
		{[]string{"least-nodes"}, "big"},
		{[]string{"priority"}, ""}, // big and small tie
		{[]string{"priority", "least-waste"}, "small"},
		{[]string{"priority", "least-nodes"}, "big"},
		{[]string{"most-pods", "least-waste"}, "small"},
	}
	for _, c := range cases {
		a := bareExpander(engine.New(1).Stream("x"))
		a.s.Expanders = c.chain
		a.s.Priorities = prios
		got := a.expand(append([]*option(nil), opts...))
		require.NotNil(t, got)
		if c.want != "" {
			require.Equal(t, c.want, got.g.cfg.Name, "%v", c.chain)
		} else {
			require.Contains(t, []string{"big", "small"}, got.g.cfg.Name, "%v", c.chain)
		}
	}
	// Priority: options no regex matches are dropped; if none matches,
	// all stay.
	a := bareExpander(nil)
	a.s.Priorities = &config.Priorities{Rules: []config.PriorityRule{{Priority: 5, Regexes: mustRegexps("^eks-tight-")}}}
	require.Equal(t, []*option{tight}, a.byPriority(opts))
	a.s.Priorities = &config.Priorities{Rules: []config.PriorityRule{{Priority: 5, Regexes: mustRegexps("nothing")}}}
	require.Equal(t, opts, a.byPriority(opts))
}

func TestPriceExpanderPrefersCheaperPerPod(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(oneGroup), []string{"--expander=price"}, nil)
	mk := func(price float64, nodes int, capCPU int64) *option {
		o := &option{g: h.ca.groups[0], tpl: &template{capCPU: capCPU, capMem: 8 << 30}}
		o.tpl.node.InstanceType, o.tpl.node.Zone = "m5.large", h.cl.Syms.Intern("us-east-1a")
		o.est.nodes, o.est.cpu, o.est.mem = nodes, 4000, 8<<30
		h.cloud.SetPrices(cloudtest.FlatPrice(price))
		return o
	}
	cheap := mk(0.1, 2, 2000)
	s1 := h.ca.exp.priceScore(cheap)
	dear := mk(0.4, 2, 2000)
	s2 := h.ca.exp.priceScore(dear)
	require.Less(t, s1, s2)
}

func TestEstimator(t *testing.T) {
	h := newHarness(t)
	syms := h.cl.Syms
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 4000, 16<<30, 110
	group := func(n int, cpu, mem string, opts ...podOpt) *podGroup {
		spec, _ := h.spec(cpu, mem, opts...)
		pg := &podGroup{spec: spec, ns: syms.Intern("default")}
		pg.podLevel, pg.hostOnly = podConstraints(spec, h.cl.KeyHostname)
		for i := 0; i < n; i++ {
			pg.pods = append(pg.pods, cluster.PodID(i))
		}
		return pg
	}
	e := &estimator{syms: syms, hostname: h.cl.KeyHostname}
	var out estimate
	cases := []struct {
		name      string
		groups    []*podGroup
		max       int
		wantNodes int
		wantPods  int
	}{
		{"one shape", []*podGroup{group(10, "1", "1Gi")}, 100, 3, 10},
		{"memory bound", []*podGroup{group(10, "100m", "6Gi")}, 100, 5, 10},
		{"two shapes, big first", []*podGroup{group(6, "500m", "1Gi"), group(3, "3", "1Gi")}, 100, 3, 9},
		{"limit", []*podGroup{group(10, "1", "1Gi")}, 2, 2, 8},
		{"too big", []*podGroup{group(2, "5", "1Gi")}, 100, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fits := make([]bool, len(c.groups))
			for i := range fits {
				fits[i] = true
			}
			e.run(c.groups, fits, &cluster.Node{Allocatable: alloc}, c.max, &out)
			require.Equal(t, c.wantNodes, out.nodes)
			require.Len(t, out.pods, c.wantPods)
		})
	}
	// Required hostname anti-affinity among replicas: one per node.
	spec, _ := h.spec("100m", "128Mi", withLabels(map[string]string{"app": "x"}))
	anti := *spec
	sel, err := cluster.CompileLabelSelector(syms, labelSelector("app", "x"))
	require.NoError(t, err)
	anti.PodAntiAffinity = []cluster.AffinityTerm{{Selector: sel, TopologyKey: h.cl.KeyHostname}}
	pg := &podGroup{spec: &anti, ns: syms.Intern("default"), pods: []cluster.PodID{0, 1, 2, 3}}
	pg.podLevel, pg.hostOnly = podConstraints(&anti, h.cl.KeyHostname)
	require.True(t, pg.podLevel && pg.hostOnly)
	e.run([]*podGroup{pg}, []bool{true}, &cluster.Node{Allocatable: alloc}, 100, &out)
	require.Equal(t, 4, out.nodes)
}

func mustRegexps(exprs ...string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, e := range exprs {
		out = append(out, regexp.MustCompile(e))
	}
	return out
}

func TestPodLevelOK(t *testing.T) {
	h := newHarness(t)
	syms := h.cl.Syms
	host := h.cl.KeyHostname
	ns := syms.Intern("default")
	other := syms.Intern("other")
	sel := func(v string) cluster.LabelSelector {
		s, err := cluster.CompileLabelSelector(syms, labelSelector("app", v))
		require.NoError(t, err)
		return s
	}
	spec := func(app string, mut func(s *cluster.PodSpec)) *cluster.PodSpec {
		s, _ := h.spec("100m", "64Mi", withLabels(map[string]string{"app": app}))
		c := *s
		if mut != nil {
			mut(&c)
		}
		return &c
	}
	plain := spec("web", nil)
	db := spec("db", nil)
	antiWeb := spec("web", func(s *cluster.PodSpec) {
		s.PodAntiAffinity = []cluster.AffinityTerm{{Selector: sel("web"), TopologyKey: host}}
	})
	antiWebZone := spec("web", func(s *cluster.PodSpec) {
		s.PodAntiAffinity = []cluster.AffinityTerm{{Selector: sel("web"), TopologyKey: h.cl.KeyZone}}
	})
	withDB := spec("api", func(s *cluster.PodSpec) {
		s.PodAffinity = []cluster.AffinityTerm{{Selector: sel("db"), TopologyKey: host}}
	})
	selfAffine := spec("web", func(s *cluster.PodSpec) {
		s.PodAffinity = []cluster.AffinityTerm{{Selector: sel("web"), TopologyKey: host}}
	})
	spread2 := spec("web", func(s *cluster.PodSpec) {
		s.Spread = []cluster.SpreadConstraint{{MaxSkew: 2, TopologyKey: host, Hard: true, Selector: sel("web")}}
	})
	otherNS := []cluster.Sym{other}
	antiOtherNS := spec("web", func(s *cluster.PodSpec) {
		s.PodAntiAffinity = []cluster.AffinityTerm{{Selector: sel("web"), TopologyKey: host, Namespaces: otherNS}}
	})
	p := func(s *cluster.PodSpec, n cluster.Sym) placedPod { return placedPod{s, n} }
	cases := []struct {
		name   string
		spec   *cluster.PodSpec
		placed []placedPod
		want   bool
	}{
		{"no constraints", plain, []placedPod{p(plain, ns)}, true},
		{"anti-affinity hits", antiWeb, []placedPod{p(plain, ns)}, false},
		{"anti-affinity other app", antiWeb, []placedPod{p(db, ns)}, true},
		{"anti-affinity other namespace", antiWeb, []placedPod{p(plain, other)}, true},
		{"anti-affinity listed namespace", antiOtherNS, []placedPod{p(plain, other)}, false},
		{"symmetric: placed pod refuses", plain, []placedPod{p(antiWeb, ns)}, false},
		{"zone anti-affinity not checked", antiWebZone, []placedPod{p(plain, ns)}, true},
		{"affinity met", withDB, []placedPod{p(db, ns)}, true},
		{"affinity unmet", withDB, []placedPod{p(plain, ns)}, false},
		{"self affinity, first pod", selfAffine, nil, true},
		{"spread under skew", spread2, []placedPod{p(plain, ns)}, true},
		{"spread at skew", spread2, []placedPod{p(plain, ns), p(plain, ns)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, podLevelOK(syms, host, c.spec, ns, c.placed))
		})
	}
	has, hostOnly := podConstraints(antiWebZone, host)
	require.True(t, has)
	require.False(t, hostOnly)
	has, _ = podConstraints(plain, host)
	require.False(t, has)
}

func TestPreferredNodeSize(t *testing.T) {
	for _, c := range []struct {
		nodes int
		cpu   float64
	}{{1, 1000}, {5, 2000}, {20, 4000}, {40, 8000}, {100, 16000}, {500, 32000}} {
		require.Equal(t, c.cpu, preferredCPU(c.nodes))
	}
}

// TestDomainSpreadSkew checks the PodTopologySpread arithmetic the
// simulations use for zone spread: count in the node's zone plus the pod,
// minus the smallest count over the domains (0 below minDomains), at most
// maxSkew; a template zone with no real node is a domain of its own.
func TestDomainSpreadSkew(t *testing.T) {
	syms := cluster.NewSymbols()
	a, b, c := syms.Intern("us-east-1a"), syms.Intern("us-east-1b"), syms.Intern("us-east-1c")
	for _, tc := range []struct {
		name       string
		counts     map[cluster.Sym]int32
		maxSkew    int32
		minDomains int32
		zone       cluster.Sym
		added      int32
		want       bool
	}{
		{"even zones", map[cluster.Sym]int32{a: 1, b: 1, c: 1}, 1, 0, a, 0, true},
		{"zone ahead", map[cluster.Sym]int32{a: 2, b: 1, c: 1}, 1, 0, a, 0, false},
		{"zone ahead, skew 2", map[cluster.Sym]int32{a: 2, b: 1, c: 1}, 2, 0, a, 0, true},
		{"estimate's own pods count", map[cluster.Sym]int32{a: 1, b: 1, c: 1}, 1, 0, a, 1, false},
		{"others caught up", map[cluster.Sym]int32{a: 2, b: 2, c: 2}, 1, 0, a, 0, true},
		{"new domain is the minimum", map[cluster.Sym]int32{a: 3, b: 3}, 1, 0, c, 0, true},
		{"only domain", map[cluster.Sym]int32{a: 5}, 1, 0, a, 0, true},
		{"below minDomains the minimum is 0", map[cluster.Sym]int32{a: 1, b: 1}, 1, 3, a, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &domainSpread{c: &cluster.SpreadConstraint{MaxSkew: tc.maxSkew, MinDomains: tc.minDomains, Hard: true},
				self: 1, counts: tc.counts, zone: tc.zone, zoneOK: true, added: tc.added}
			require.Equal(t, tc.want, s.ok(tc.zone))
		})
	}
}

// The loop's template is a copy of a random Ready node of the group; a
// node like the current template's keeps it, one in another zone makes a
// new one in its zone.
func TestTemplateCopies(t *testing.T) {
	h := newHarness(t)
	h.start(h.groups(managedNodeGroups("{name: ng, instanceType: m5.large, minSize: 0, maxSize: 9, desiredCapacity: 4}")), nil, nil)
	h.at(5 * time.Minute)
	ids := h.nodesOf("ng")
	require.Len(t, ids, 4)
	zones := map[cluster.Sym][]cluster.NodeID{}
	for _, id := range ids {
		zones[h.cl.Nodes[id].Zone] = append(zones[h.cl.Nodes[id].Zone], id)
	}
	var same []cluster.NodeID
	for _, z := range zones {
		if len(z) == 2 {
			same = z
		}
	}
	require.Len(t, same, 2, "the ASG put two of four nodes in one zone")
	g := h.ca.groups[0]
	tpl := h.ca.templateFromNode(g, same[0])
	require.Equal(t, h.cl.Nodes[same[0]].Zone, tpl.node.Zone)
	require.True(t, h.ca.copies(tpl, same[1]), "same type, zone, labels and taints")
	for _, id := range ids {
		if h.cl.Nodes[id].Zone != tpl.node.Zone {
			require.False(t, h.ca.copies(tpl, id), "another zone")
		}
	}
	// Over many loops every zone's node serves as the template.
	seen := map[cluster.Sym]bool{}
	for range 50 {
		h.ca.refreshTemplates()
		seen[g.tpl.node.Zone] = true
	}
	require.Len(t, seen, 3)
}
