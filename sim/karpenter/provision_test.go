package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

func poolWith(name, reqs, extra string) string {
	return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: ` + name + `}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
` + reqs + extra + "\n"
}

const odM5 = "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5]}\n"

// Table tests of provisioning rules: each runs a short scenario and checks
// what was launched.
func TestProvisioningRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pools []string
		pod   func(h *harness) *cluster.PodSpec
		check func(t *testing.T, h *harness)
	}{
		{"requirement intersection: pod selects a family", []string{poolWith("p", odM5, "")},
			func(h *harness) *cluster.PodSpec {
				return h.podSpec("500m", "512Mi", nil, withNodeSelector("karpenter.k8s.aws/instance-family", "c5"))
			},
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()
				require.Len(t, n, 1)
				require.Equal(t, "c5", h.label(n[0], "karpenter.k8s.aws/instance-family"))
			}},
		{"a custom label the pool does not define is never launched", []string{poolWith("p", odM5, "")},
			func(h *harness) *cluster.PodSpec {
				return h.podSpec("500m", "512Mi", nil, withNodeSelector("team", "a"))
			},
			func(t *testing.T, h *harness) {
				require.Empty(t, h.karpenterNodes())
				require.Equal(t, 2, h.podsIn(cluster.Pending))
			}},
		{"a pool label satisfies a pod's node selector", []string{`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    metadata: {labels: {team: a}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
` + odM5},
			func(h *harness) *cluster.PodSpec {
				return h.podSpec("500m", "512Mi", nil, withNodeSelector("team", "a"))
			},
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()
				require.Len(t, n, 1)
				require.Equal(t, "a", h.label(n[0], "team"))
				require.Equal(t, 2, h.podsIn(cluster.Running))
			}},
		{"weight: the heavier pool is tried first", []string{
			poolWith("light", odM5, "  weight: 10"),
			poolWith("heavy", "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [r5]}\n", "  weight: 50")},
			func(h *harness) *cluster.PodSpec { return h.podSpec("500m", "512Mi", nil) },
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()
				require.Len(t, n, 1)
				require.Equal(t, "heavy", n[0].OwnerName)
				require.Equal(t, "r5", h.label(n[0], "karpenter.k8s.aws/instance-family"))
			}},
		{"taints the pod does not tolerate launch nothing", []string{poolWith("p", odM5, "      taints: [{key: gpu, effect: NoSchedule}]")},
			func(h *harness) *cluster.PodSpec { return h.podSpec("500m", "512Mi", nil) },
			func(t *testing.T, h *harness) {
				require.Empty(t, h.karpenterNodes())
			}},
		{"startup taints need no toleration and go when Ready", []string{poolWith("p", odM5, "      startupTaints: [{key: node.cilium.io/agent-not-ready, value: \"true\", effect: NoSchedule}]")},
			func(h *harness) *cluster.PodSpec { return h.podSpec("500m", "512Mi", nil) },
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()
				require.Len(t, n, 1)
				require.Empty(t, n[0].Taints)
				require.Equal(t, 2, h.podsIn(cluster.Running))
			}},
		{"a preferred zone the pool does not allow is relaxed", []string{poolWith("p", odM5+"        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}\n", "")},
			func(h *harness) *cluster.PodSpec {
				return h.podSpec("500m", "512Mi", nil, withPreferredZone("us-east-1c"))
			},
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()
				require.Len(t, n, 1)
				require.Equal(t, "us-east-1a", h.label(n[0], "topology.kubernetes.io/zone"))
			}},
		{"a preferred zone is honoured when possible", []string{poolWith("p", odM5, "")},
			func(h *harness) *cluster.PodSpec {
				return h.podSpec("500m", "512Mi", nil, withPreferredZone("us-east-1c"))
			},
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()
				require.Len(t, n, 1)
				require.Equal(t, "us-east-1c", h.label(n[0], "topology.kubernetes.io/zone"))
			}},
		{"limits: a cpu limit caps the pool", []string{poolWith("p", "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}\n", "  limits: {cpu: \"2\"}")},
			func(h *harness) *cluster.PodSpec { return h.podSpec("1500m", "512Mi", nil) },
			func(t *testing.T, h *harness) {
				require.Len(t, h.karpenterNodes(), 1)
				require.Equal(t, 1, h.podsIn(cluster.Pending))
			}},
		{"labels: well-known, pool and karpenter labels", []string{poolWith("p", odM5, "")},
			func(h *harness) *cluster.PodSpec { return h.podSpec("500m", "512Mi", nil) },
			func(t *testing.T, h *harness) {
				n := h.karpenterNodes()[0]
				require.Equal(t, "p", h.label(n, "karpenter.sh/nodepool"))
				require.Equal(t, "on-demand", h.label(n, "karpenter.sh/capacity-type"))
				require.Equal(t, n.InstanceType, h.label(n, "node.kubernetes.io/instance-type"))
				require.Equal(t, "amd64", h.label(n, "kubernetes.io/arch"))
				require.Equal(t, "linux", h.label(n, "kubernetes.io/os"))
				require.Equal(t, "us-east-1", h.label(n, "topology.kubernetes.io/region"))
				require.Equal(t, n.Name, h.label(n, "kubernetes.io/hostname"))
				require.NotEmpty(t, h.label(n, "topology.kubernetes.io/zone"))
				require.Equal(t, cluster.OwnedByKarpenter, n.Owner)
				require.Equal(t, "p", n.OwnerName)
				require.NotZero(t, n.Instance)
				require.Positive(t, n.PriceUSDPerHour)
				id := h.k.nodes.byInstance[cloud.InstanceID(n.Instance)]
				require.Equal(t, []cluster.NodeID{id}, h.cl.LaunchedFor(0), "NoteLaunchFor records the pods a node was launched for")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.deploy("web", tc.pod(h), time.Duration(0), 2)
			var pools []NodePool
			for _, p := range tc.pools {
				pools = append(pools, h.pools(p)...)
			}
			h.start(pools, apis.DefaultSettings())
			h.run(5 * time.Minute)
			tc.check(t, h)
		})
	}
}

// Topology: zone spread puts NodeClaims in every zone; hostname
// anti-affinity gives each pod its own node.
func TestTopologyProvisioning(t *testing.T) {
	h := newHarness(t)
	h.deploy("spread", h.podSpec("500m", "512Mi", map[string]string{"app": "spread"}, withZoneSpread("spread")), time.Duration(0), 3)
	h.deploy("anti", h.podSpec("250m", "256Mi", map[string]string{"app": "anti"}, withHostAntiAffinity("anti")), time.Duration(0), 4)
	h.start(h.pools(poolWith("p", odM5, "")), apis.DefaultSettings())
	h.run(5 * time.Minute)
	require.Equal(t, 7, h.podsIn(cluster.Running))
	zones := map[string]int{}
	antiPerNode := map[cluster.NodeID]int{}
	for i := range h.cl.Pods {
		p := &h.cl.Pods[i]
		if p.Phase != cluster.Running {
			continue
		}
		labels := p.Spec.Labels.Map(h.cl.Syms)
		switch labels["app"] {
		case "spread":
			zones[h.label(&h.cl.Nodes[p.Node], "topology.kubernetes.io/zone")]++
		case "anti":
			antiPerNode[p.Node]++
		}
	}
	require.Len(t, zones, 3)
	require.Len(t, antiPerNode, 4)
}

// Interruption with the queue: the node is tainted and drained, a
// replacement comes up, and the offering is avoided for 3 minutes.
func TestInterruptionQueue(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 2)
	s := apis.DefaultSettings()
	s.InterruptionQueue = true
	h.start(h.pools(poolWith("p", "        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5]}\n", "")), s)
	h.run(5 * time.Minute)
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 1)
	inst := cloud.InstanceID(nodes[0].Instance)
	id := h.k.nodes.byInstance[inst]
	offering := h.cloud.live[inst]
	h.cloud.signal(cloud.RebalanceRecommendation, inst, h.eng.Now())
	h.cloud.signal(cloud.InterruptionNotice, inst, h.eng.Now())
	h.run(5*time.Minute + time.Second)
	require.True(t, hasTaint(h, &h.cl.Nodes[id], "karpenter.sh/disrupted"))
	h.run(7 * time.Minute)
	h.cloud.signal(cloud.Terminated, inst, h.eng.Now())
	h.run(8 * time.Minute)
	live := h.karpenterNodes()
	require.Len(t, live, 1)
	require.NotEqual(t, offering, h.cloud.live[cloud.InstanceID(live[0].Instance)], "the interrupted offering is avoided")
	require.Equal(t, 2, h.podsIn(cluster.Running))
	st := h.k.Stats()
	require.Equal(t, int64(1), st.Disruptions.Interrupted)
	require.Equal(t, int64(1), st.RebalanceRecommendations)
	require.Equal(t, int64(2), st.PodsEvicted)
}

// Without the queue, the notice goes unread: pods die when EC2 reclaims
// the instance, and the replacement is provisioned afterwards.
func TestInterruptionNoQueue(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 2)
	h.start(h.pools(poolWith("p", "        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5]}\n", "")), apis.DefaultSettings())
	h.run(5 * time.Minute)
	nodes := h.karpenterNodes()
	inst := cloud.InstanceID(nodes[0].Instance)
	id := h.k.nodes.byInstance[inst]
	h.cloud.signal(cloud.InterruptionNotice, inst, h.eng.Now())
	h.run(7 * time.Minute)
	require.False(t, hasTaint(h, &h.cl.Nodes[id], "karpenter.sh/disrupted"))
	require.Equal(t, 2, h.podsIn(cluster.Running))
	h.cloud.signal(cloud.Terminated, inst, h.eng.Now())
	h.run(10 * time.Minute)
	require.Len(t, h.karpenterNodes(), 1)
	require.Equal(t, 2, h.podsIn(cluster.Running))
	st := h.k.Stats()
	require.Zero(t, st.Disruptions.Interrupted)
	require.Equal(t, int64(1), st.InstancesReclaimed)
	require.Zero(t, st.PodsEvicted)
}

// A node that never becomes Ready is removed after the registration
// timeout and its pods retried.
func TestRegistrationTimeout(t *testing.T) {
	h := newHarness(t)
	h.cloud.readyAfter = 20 * time.Minute
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 2)
	h.start(h.pools(poolWith("p", odM5, "")), apis.DefaultSettings())
	h.run(15*time.Minute + 30*time.Second)
	st := h.k.Stats()
	require.Equal(t, int64(1), st.RegistrationTimeouts)
	require.Equal(t, int64(1), st.LaunchFailures)
	require.Equal(t, int64(2), st.NodeClaimsLaunched, "a new NodeClaim replaces it")
	require.Len(t, h.cloud.terminated, 1)
}

// Nomination: a node that just received pending pods is not a disruption
// candidate for max(2 x batchMaxDuration, 10s).
func TestNominationProtects(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 1)
	h.start(h.pools(poolWith("p", odM5, "  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 0s}")), apis.DefaultSettings())
	h.run(5 * time.Minute)
	kn := h.k.nodes.byID[0]
	require.NotNil(t, kn)
	kn.nominatedUntil = h.eng.Now() + 20*time.Second
	h.cl.DeletePod(0, cluster.CauseScaleDown) // the deployment recreates it...
	require.Empty(t, h.k.dis.candidates(methodOf[*emptiness](h.k.dis)), "nominated")
	kn.nominatedUntil = h.eng.Now()
	for _, c := range h.k.dis.candidates(methodOf[*singleNode](h.k.dis)) {
		require.Equal(t, kn, c.kn)
	}
}

func hasTaint(h *harness, n *cluster.Node, key string) bool {
	k := h.cl.Syms.Intern(key)
	for _, t := range n.Taints {
		if t.Key == k {
			return true
		}
	}
	return false
}

// The DaemonSet overhead hook reserves room on every new node.
func TestDaemonOverhead(t *testing.T) {
	for _, tc := range []struct {
		overhead string
		nodes    int
	}{{"", 1}, {"500m", 2}} {
		h := newHarness(t)
		h.deploy("web", h.podSpec("900m", "512Mi", nil), time.Duration(0), 2)
		h.start(h.pools(poolWith("p", "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}\n", "")), apis.DefaultSettings())
		if tc.overhead != "" {
			h.k.SetDaemonOverhead(func(n *cluster.Node) cluster.Resources {
				var r cluster.Resources
				r[cluster.CPU] = 500
				require.Equal(t, "m5.large", n.InstanceType)
				return r
			})
		}
		h.run(30 * time.Second)
		require.Equal(t, int64(tc.nodes), h.k.Stats().NodeClaimsLaunched, tc.overhead)
	}
}

// A nodes limit counts only the pool's existing nodes: one batch may
// create more NodeClaims than it allows (KC subtractMax never lowers
// "nodes"; NodeClaim creation refuses only usage > limit), later batches
// none while the pool is over it.
func TestNodeLimitOvershootWithinABatch(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", map[string]string{"app": "web"}, withHostAntiAffinity("web")), time.Duration(0), 3, 3*time.Minute, 5)
	h.start(h.pools(poolWith("p", odM5, "  limits: {nodes: \"2\"}")), apis.DefaultSettings())
	h.run(2 * time.Minute)
	require.Len(t, h.karpenterNodes(), 3, "the first batch overshoots the limit of 2")
	h.run(10 * time.Minute)
	require.Len(t, h.karpenterNodes(), 3, "no NodeClaim while the pool is over its limit")
	require.Equal(t, 2, h.podsIn(cluster.Pending))
}

// The launch-time check (KC Provisioner.Create): a pool whose usage
// exceeds a limit creates no NodeClaim, whatever the solve decided.
func TestLaunchAllowed(t *testing.T) {
	p := &pool{spec: &apis.NodePool{Limits: apis.Limits{Nodes: 2}}}
	p.spec.Limits.Max[cluster.CPU], p.spec.Limits.Has[cluster.CPU] = 8000, true
	var at, over cluster.Resources
	at[cluster.CPU], over[cluster.CPU] = 8000, 8001
	require.True(t, launchAllowed(p, map[*pool]poolUsage{}))
	require.True(t, launchAllowed(p, map[*pool]poolUsage{p: {capacity: at, nodes: 2}}), "usage equal to the limit is not exceeded")
	require.False(t, launchAllowed(p, map[*pool]poolUsage{p: {capacity: at, nodes: 3}}))
	require.False(t, launchAllowed(p, map[*pool]poolUsage{p: {capacity: over, nodes: 1}}))
}
