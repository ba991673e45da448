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

// A launched node records the pods it was launched for (sim explain reads
// it), under the instance Karpenter knows it by. The node's labels, price
// and the other provisioning rules are in testdata/provisioning.txt.
func TestLaunchRecordsItsPods(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("500m", "512Mi", nil), time.Duration(0), 2)
	h.start(h.pools(poolWith("p", odM5, "")), apis.DefaultSettings())
	h.run(5 * time.Minute)
	nodes := h.karpenterNodes()
	require.Len(t, nodes, 1)
	id := h.k.nodes.byInstance[cloud.InstanceID(nodes[0].Instance)]
	require.Equal(t, []cluster.NodeID{id}, h.cl.LaunchedFor(0), "NoteLaunchFor records the pods a node was launched for")
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
