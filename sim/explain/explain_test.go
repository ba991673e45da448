package explain

import (
	"context"
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	caconfig "github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/trace"
)

func load(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenarios.Load(name)
	require.NoError(t, err)
	return sc
}

// The story is a value: its fields are what Write renders, and Write
// writes String.
func TestPodStory(t *testing.T) {
	sc := load(t, "static-burst")
	s, err := Pod(sc, Options{}, "render-12")
	require.NoError(t, err)
	require.Equal(t, "batch/render-12", s.Pod)
	require.Equal(t, "Job/batch/render", s.Workload)
	require.Equal(t, sc.Seed, s.Seed)
	require.Equal(t, "podCreated", s.Timeline[0].Kind)
	require.Equal(t, "created", s.Timeline[0].Text)
	require.Empty(t, s.ProvisionedFor)
	var b strings.Builder
	require.NoError(t, s.Write(&b))
	require.Equal(t, s.String(), b.String())
	require.True(t, strings.HasPrefix(b.String(), "Pod batch/render-12 (Job/batch/render), scenario static-burst, seed 1\n\n"), b.String())
	require.Contains(t, b.String(), "\nNo autoscaler launched a node for it.\n")

	seed := uint64(7)
	s, err = Pod(sc, Options{Seed: &seed}, "batch/render-12")
	require.NoError(t, err)
	require.Equal(t, seed, s.Seed)
}

func TestPodErrors(t *testing.T) {
	sc := load(t, "static-burst")
	_, err := Pod(sc, Options{}, "nope")
	require.ErrorContains(t, err, `no pod "nope" in this run (seed 1); pods are named like `)
	_, err = Pod(sc, Options{}, "")
	require.Error(t, err)
}

// A run stopped before its end tells no story. (The run looks at its
// context every so many events: static-burst may end before the first
// look, web-steady, some 29,000 events, does not.)
func TestPodStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Pod(load(t, "web-steady"), Options{Context: ctx}, "web-1")
	require.ErrorIs(t, err, ErrStopped)
}

func TestFmtTime(t *testing.T) {
	for s, want := range map[float64]string{0: "0.0s", 12.54: "12.5s", 60: "1m00s", 187: "3m07s", 3723: "1h02m03s"} {
		require.Equal(t, want, fmtTime(s), "%v", s)
	}
}

// joinNote asks the autoscaler that owns a node how long it waits for a
// join and what it does then.
func TestJoinNote(t *testing.T) {
	kp, ca := &karpenter.Config{}, &clusterautoscaler.Config{}
	kp.Settings.RegistrationTimeout = 15 * time.Minute
	ca.Settings.MaxNodeProvisionTime = 10 * time.Minute
	sc := &scenario.Scenario{Components: component.Configs{{Name: karpenter.OwnerName, Config: kp}, {Name: clusterautoscaler.Owner, Config: ca}}}
	never := []trace.Entry{{Kind: "nodeLaunched", Node: "n", Message: trace.NeverJoins}}
	for _, c := range []struct {
		name    string
		node    cluster.Node
		entries []trace.Entry
		want    string
	}{
		{"joined", cluster.Node{Name: "n", State: cluster.NodeReady, Launched: time.Second, Ready: time.Minute}, nil, ""},
		{"slow", cluster.Node{Name: "n", State: cluster.NodeReady, Launched: time.Second, Ready: 7 * time.Minute}, nil,
			"; it joined only 6m59s later (a slow bootstrap)"},
		{"karpenter", cluster.Node{Name: "n", Owner: cluster.RegisterOwner("karpenter"), State: cluster.NodeGone, Launched: time.Second, Deleted: 15*time.Minute + time.Second}, never,
			"; it never joined the cluster (its bootstrap failed: the kubelet never registered), and Karpenter deleted its NodeClaim at 15m01s, after the 15m00s registration timeout, and provisioned again"},
		{"ca", cluster.Node{Name: "n", Owner: cluster.RegisterOwner("cluster-autoscaler"), OwnerName: "ng", State: cluster.NodeGone, Launched: time.Second, Deleted: 11 * time.Minute}, never,
			"; it never joined the cluster (its bootstrap failed: the kubelet never registered), and the Cluster Autoscaler removed it at 11m00s as unregistered for longer than --max-node-provision-time (10m00s; a scale-up still waiting for it timed out then and backed node group ng off)"},
		{"ca kept", cluster.Node{Name: "n", Owner: cluster.RegisterOwner("cluster-autoscaler"), State: cluster.NodeLaunching, Launched: time.Second}, never,
			"; it never joined the cluster (its bootstrap failed: the kubelet never registered) and was still unregistered at the end (the Cluster Autoscaler does not remove unregistered nodes below a node group's minimum size)"},
		{"reclaimed early", cluster.Node{Name: "n", Owner: cluster.RegisterOwner("karpenter"), State: cluster.NodeGone, Launched: time.Second, Deleted: time.Minute}, never,
			"; it never joined the cluster (its bootstrap failed: the kubelet never registered), and was removed at 1m00s"},
	} {
		require.Equal(t, c.want, joinNote(sc, &c.node, c.entries), c.name)
	}
}

// spotCause tells a drain ahead of a reclaim from a reclaim that took the
// pod.
func TestSpotCause(t *testing.T) {
	notice := trace.Entry{T: 60, Kind: "interruptionNotice", Node: "n"}
	reclaim := trace.Entry{T: 180, Kind: "instanceReclaimed", Node: "n"}
	require.Equal(t, " (a drain ahead of the reclaim: n got a spot interruption notice at 1m00s)",
		spotCause([]trace.Entry{notice}, trace.Entry{T: 90, Node: "n", Cause: "evicted"}))
	require.Equal(t, " (its spot instance was reclaimed with the pod still on it; the spot interruption notice came at 1m00s and nothing drained the node)",
		spotCause([]trace.Entry{notice, reclaim}, trace.Entry{T: 180, Node: "n", Cause: "nodeGone"}))
	require.Equal(t, " (its spot instance was reclaimed with the pod still on it)",
		spotCause([]trace.Entry{reclaim}, trace.Entry{T: 180, Node: "n", Cause: "nodeGone"}))
	require.Equal(t, "", spotCause([]trace.Entry{notice}, trace.Entry{T: 90, Cause: "evicted"}))
}

// The story says why a disruption command took a pod's node: the command
// that began the deletion, not one invalidated or aborted.
func TestDisruptedNote(t *testing.T) {
	cand := []trace.CommandNode{{Node: "n", NodePool: "default", InstanceType: "m5.xlarge", CapacityType: "spot", Pods: 3}}
	repl := []trace.CommandReplacement{{NodePool: "default", CapacityType: "spot", InstanceTypes: []string{"c6g.large", "c7g.large"}, Options: 12}}
	bud := []trace.CommandBudget{{NodePool: "default", Nodes: "10%", Allowed: 1}}
	cmd := func(tm float64, phase string, r []trace.CommandReplacement) trace.Entry {
		return trace.Entry{T: tm, Kind: "disruptionCommand", Phase: phase, Method: "single-node consolidation", Reason: "underutilized", Candidates: cand, Replacements: r, Budgets: bud}
	}
	del := trace.Entry{T: 100, Kind: "podDeleted", Node: "n", Cause: "evicted"}
	want := "; node n was removed by Karpenter's single-node consolidation (underutilized): its pods fit on a cheaper replacement c6g.large (spot, or one of 11 more types) from NodePool default; allowed by NodePool default's budget 10%, which let 1 more of its nodes be disrupted then"
	require.Equal(t, want, disruptedNote([]trace.Entry{cmd(10, "decided", repl), cmd(25, "started", repl), cmd(60, "completed", repl)}, del))
	// Started but not completed: the replacement is not up, the deletion
	// did not begin; aborted: the node was released.
	require.Equal(t, "", disruptedNote([]trace.Entry{cmd(10, "decided", repl), cmd(25, "started", repl)}, del))
	require.Equal(t, "", disruptedNote([]trace.Entry{cmd(25, "started", repl), cmd(60, "completed", repl), cmd(70, "aborted", repl)}, del))
	require.Equal(t, "", disruptedNote([]trace.Entry{cmd(10, "decided", nil), cmd(25, "invalidated", nil)}, del))
	// Without replacements the deletion begins when the command starts.
	require.Equal(t, "; node n was removed by Karpenter's single-node consolidation (underutilized): its pods fit on the rest of the cluster; allowed by NodePool default's budget 10%, which let 1 more of its nodes be disrupted then",
		disruptedNote([]trace.Entry{cmd(25, "started", nil)}, del))
	// A scale-down is not the node's story; a command after it is not either.
	require.Equal(t, "", disruptedNote([]trace.Entry{cmd(25, "started", nil)}, trace.Entry{T: 100, Node: "n", Cause: "scaleDown"}))
	require.Equal(t, "", disruptedNote([]trace.Entry{cmd(125, "started", nil)}, del))

	empty := trace.Entry{Kind: "disruptionCommand", Phase: "started", Method: "emptiness", Reason: "empty",
		Candidates: []trace.CommandNode{{Node: "a", NodePool: "p"}, {Node: "b", NodePool: "q"}},
		Budgets:    []trace.CommandBudget{{NodePool: "p", Nodes: "2", Reasons: []string{"Empty"}, Allowed: 2}, {NodePool: "q", Allowed: -1}}}
	require.Equal(t, "node b was removed by Karpenter's emptiness (empty): it had no pods to move; no budget of NodePool q limits reason empty", karpenterDisruption(empty, "b"))
	require.Equal(t, "node a was removed by Karpenter's emptiness (empty): it had no pods to move; allowed by NodePool p's budget 2 for Empty, which let 2 more of its nodes be disrupted then", karpenterDisruption(empty, "a"))

	// A Balanced pool's score is said; -1 stands for +Inf.
	scored := cmd(25, "started", nil)
	scored.Scores = []trace.CommandScore{{NodePool: "default", Score: 1.25, Threshold: 0.5, SavingsPct: 50, DisruptionPct: 40}}
	require.Equal(t, "node n was removed by Karpenter's single-node consolidation (underutilized): its pods fit on the rest of the cluster; allowed by NodePool default's budget 10%, which let 1 more of its nodes be disrupted then; NodePool default is Balanced: the move saves 50.0% of its cost for 40.0% of its disruption cost, a score of 1.25 (at least 0.50 approves it)",
		karpenterDisruption(scored, "n"))
	scored.Scores[0].Score = -1
	require.Contains(t, karpenterDisruption(scored, "n"), "a score of infinite")

	// Node repair says why the node went, and calls its replacement none
	// the cheaper.
	repaired := trace.Entry{Kind: "disruptionCommand", Phase: "started", Method: "repair", Reason: "unhealthy",
		Candidates:   []trace.CommandNode{{Node: "g", NodePool: "gpu", Pods: 1}},
		Replacements: []trace.CommandReplacement{{NodePool: "gpu", CapacityType: "on-demand", InstanceTypes: []string{"g5.xlarge"}, Options: 1}}}
	require.Equal(t, "node g was removed by Karpenter's repair (unhealthy): its condition stayed unhealthy past its toleration; its pods went to replacement g5.xlarge (on-demand) from NodePool gpu",
		karpenterDisruption(repaired, "g"))
	repaired.Replacements = nil
	require.Equal(t, "node g was removed by Karpenter's repair (unhealthy): its condition stayed unhealthy past its toleration, and its pods fit on the rest of the cluster",
		karpenterDisruption(repaired, "g"))

	gone := cluster.Node{Name: "n", State: cluster.NodeGone, Deleted: 100 * time.Second}
	require.Equal(t, "; at 1m00s"+want[1:], goneNote(&gone, []trace.Entry{cmd(60, "completed", repl)}))
}

// End to end: a pod drained off a node Karpenter consolidated says so.
func TestPodOfConsolidatedNode(t *testing.T) {
	s, err := Pod(load(t, "karpenter-mixed"), Options{}, "batch/render-94")
	require.NoError(t, err)
	last := s.Timeline[len(s.Timeline)-1]
	require.Equal(t, "podDeleted", last.Kind)
	require.Contains(t, last.Text, "deleted: evicted; node batch-mixed-bbbbg was removed by Karpenter's single-node consolidation (underutilized): its pods fit on the rest of the cluster; allowed by NodePool batch-mixed's budget 10%")
}

// notReadyNote asks the owner of a node that registered and never became
// Ready what it did with it: removed, or kept and why.
func TestNotReadyNote(t *testing.T) {
	kp, ca := &karpenter.Config{}, &clusterautoscaler.Config{}
	kp.Settings.NodeRepair = true
	ca.Settings.Options = caconfig.DefaultOptions()
	ca.Settings.ScaleDownUnreadyEnabled = false
	sc := &scenario.Scenario{Components: component.Configs{{Name: karpenter.OwnerName, Config: kp}, {Name: clusterautoscaler.Owner, Config: ca}}}
	notReady := []trace.Entry{{Kind: "nodeLaunched", Node: "n", Message: trace.NeverReady}}
	registered := "; it registered at 1m00s but never became Ready (Ready=False, tainted node.kubernetes.io/not-ready: no pod can land there)"
	for _, c := range []struct {
		name string
		node cluster.Node
		want string
	}{
		{"ca kept", cluster.Node{Name: "n", Owner: cluster.RegisterOwner("cluster-autoscaler"), State: cluster.NodeLaunching, Condition: cluster.ReadyFalse, ConditionSince: time.Minute},
			registered + ", and was still there at the end: --scale-down-unready-enabled=false keeps unready nodes"},
		{"karpenter repaired", cluster.Node{Name: "n", Owner: cluster.RegisterOwner("karpenter"), State: cluster.NodeGone, Condition: cluster.ReadyFalse, ConditionSince: time.Minute, Deleted: 31 * time.Minute},
			registered + "; its NodeClaim was Registered, so the registration timeout no longer applied, and never Initialized, and Karpenter repaired (NodeRepair: Ready=False past its 30-minute toleration) or deleted it at 31m00s"},
	} {
		require.Equal(t, c.want, joinNote(sc, &c.node, notReady), c.name)
	}
}
