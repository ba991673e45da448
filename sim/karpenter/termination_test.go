package karpenter

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// A deleted node holds a slot of its pool's budget while it drains (at
// least MinDrainTime), none once its instance is terminating (KC
// NodePoolStatsFromNodes skips InstanceTerminating), and is removed
// InstanceTerminationPoll after the termination call.
func TestTerminatingNodeFreesItsBudget(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("1500m", "512Mi", nil), time.Duration(0), 3, 10*time.Minute, 0)
	h.start(poolWith("p", odLarge, "  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 0s\n    budgets: [{nodes: \"1\"}]"))
	allowed := func() int {
		for p, n := range h.k.dis.budgets(apis.ReasonEmpty) {
			if p.Spec.Name == "p" {
				return n
			}
		}
		t.Fatal("no pool p")
		return 0
	}
	h.run(10 * time.Minute)
	require.Len(t, h.karpenterNodes(), 3)
	require.Equal(t, 1, allowed())

	// The first empty node's command starts at 10m15s (decided at 10m,
	// 15 s of validation): tainted and draining, it takes the one slot.
	h.run(10*time.Minute + 17*time.Second)
	require.Len(t, h.karpenterNodes(), 3)
	require.Equal(t, 0, allowed(), "a draining node takes its slot")

	// Its drain ends at 10m20s (MinDrainTime) and its instance is
	// terminated: the slot is free, the node still there until 10m25s.
	h.run(10*time.Minute + 22*time.Second)
	require.Len(t, h.karpenterNodes(), 3)
	require.Equal(t, 1, allowed(), "a terminating instance takes no slot")
	h.run(10*time.Minute + 25*time.Second - time.Millisecond)
	require.Len(t, h.karpenterNodes(), 3)
	h.run(10*time.Minute + 25*time.Second)
	require.Len(t, h.karpenterNodes(), 2)
}

// The pods of a started command's candidates (tainted, waiting for their
// replacement) are rescheduled with the pending pods in every solve, as
// those of deleting nodes are: upstream's orchestration queue marks the
// candidates for deletion (KC Cluster.DeletingNodes).
func TestCommandCandidatesPodsAreRescheduled(t *testing.T) {
	h := newHarness(t)
	h.deploy("web", h.podSpec("1500m", "512Mi", nil), time.Duration(0), 2)
	h.start(poolWith("p", odLarge, "  disruption:\n    consolidateAfter: Never"))
	h.run(5 * time.Minute)
	require.Len(t, h.karpenterNodes(), 2)
	require.Empty(t, h.k.prov.provisionable())
	kn := h.k.nodes.live[0]
	kn.InCommand = true // as start() marks a command's candidates
	got := h.k.prov.provisionable()
	require.NotEmpty(t, got)
	require.Equal(t, h.cl.Nodes[kn.ID].Pods, got, "the candidate's pods join the solve")
	require.True(t, h.k.nodes.idx.PodOnDeletingNode(got[0]), "and may land on an uninitialized replacement")
	kn.InCommand = false
}

// A pod the scheduler nominated to a node it preempted pods on is not
// provisionable (KC IsProvisionable: !IsPreempting): the room is being
// made. Once the nomination is cleared it is again.
func TestPreemptingPodIsNotProvisionable(t *testing.T) {
	h := newHarness(t)
	h.deploy("huge", h.podSpec("500", "512Mi", nil), time.Duration(0), 1) // fits no instance type
	h.start(poolWith("p", odLarge, ""))
	h.run(time.Minute)
	got := h.k.prov.provisionable()
	require.Len(t, got, 1, "pending, unschedulable")
	require.True(t, h.k.prov.hasProvisionable())
	h.cl.SetPreempting(got[0], true)
	require.Empty(t, h.k.prov.provisionable())
	require.False(t, h.k.prov.hasProvisionable())
	h.cl.SetPreempting(got[0], false)
	require.Equal(t, got, h.k.prov.provisionable())
}

// The pods of a deleting node that provisioning and the what-ifs plan
// room for are those currently reschedulable (KC
// GetCurrentlyReschedulablePods): not a pod with an active
// karpenter.sh/do-not-disrupt (its node's drain waits for it), nor one a
// budget blocks for good (maxUnavailable 0), unless that one tolerates
// karpenter.sh/disrupted (never evicted). case-017's third decision in
// fidelity-disruption: ours planned a second replacement for two
// do-not-disrupt pods of draining nodes.
func TestDeletingNodesPodsThatCannotLeaveGetNoRoom(t *testing.T) {
	h := newHarness(t)
	sel, err := cluster.CompileLabelSelector(h.cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "guarded"}})
	require.NoError(t, err)
	h.pdbs = []cluster.PDB{{Namespace: h.cl.Syms.Intern("default"), Name: "guarded", Selector: sel, MaxUnavailable: &cluster.IntOrPercent{Value: 0}}}
	h.deploy("web", h.podSpec("200m", "128Mi", map[string]string{"app": "web"}), time.Duration(0), 2)
	h.deploy("pinned", h.podSpec("200m", "128Mi", map[string]string{"app": "pinned"}, withDoNotDisrupt()), time.Duration(0), 1)
	h.deploy("guarded", h.podSpec("200m", "128Mi", map[string]string{"app": "guarded"}), time.Duration(0), 1)
	h.deploy("tolerant", h.podSpec("200m", "128Mi", map[string]string{"app": "guarded"}, withToleration("karpenter.sh/disrupted")), time.Duration(0), 1)
	h.start(poolWith("p", odLarge, "  disruption:\n    consolidateAfter: Never"))
	h.run(5 * time.Minute)
	require.Empty(t, h.k.prov.provisionable())
	want := map[string]bool{}
	for _, kn := range h.k.nodes.live {
		kn.InCommand = true
		for _, pid := range h.cl.Nodes[kn.ID].Pods {
			if p := &h.cl.Pods[pid]; !p.Spec.DaemonSet {
				want[p.Name] = true
			}
		}
	}
	require.Len(t, want, 5, "every pod is on a node of the command")
	var got []string
	for _, pid := range h.k.prov.provisionable() {
		got = append(got, h.cl.Pods[pid].Name)
	}
	require.Len(t, got, 3, "%v", got)
	for _, name := range got {
		require.NotContains(t, name, "pinned")
		require.False(t, strings.HasPrefix(name, "guarded"), name)
	}
	for _, kn := range h.k.nodes.live {
		kn.InCommand = false
	}
}
