package scenarios_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/")

type run struct {
	rep     *report.Report
	json    []byte
	events  []trace.Entry
	cluster *cluster.Cluster
}

func runScenario(t *testing.T, name string) run {
	t.Helper()
	file, ok := scenarios.File(name)
	require.True(t, ok, name)
	sc, err := scenario.LoadFS(scenarios.FS, file)
	require.NoError(t, err, name)
	var r run
	r.rep, err = simulation.Run(sc, simulation.Options{
		Trace:   func(e trace.Entry) { r.events = append(r.events, e) },
		Inspect: func(cl *cluster.Cluster) { r.cluster = cl },
		Check:   true, // the invariants after every event
	})
	require.NoError(t, err, name)
	var buf bytes.Buffer
	require.NoError(t, r.rep.WriteJSON(&buf))
	r.json = buf.Bytes()
	return r
}

// TestEveryScenario runs every embedded scenario: its report matches the
// golden file (regenerate with go test ./scenarios -update and read the
// diff), a second run gives the same bytes, and spot costs less than the
// same node-seconds on demand.
func TestEveryScenario(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			r := runScenario(t, name)
			golden := filepath.Join("testdata", name+".json")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(golden, r.json, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), string(r.json))

			// Same scenario and seed: the same bytes, the same timeline, on
			// any number of cores.
			prev := runtime.GOMAXPROCS(1)
			again := runScenario(t, name)
			runtime.GOMAXPROCS(prev)
			require.Equal(t, string(r.json), string(again.json), "same scenario and seed, same bytes")
			require.Equal(t, r.events, again.events, "and the same event log")

			c := r.rep.Cost
			if c.SpotUSD > 0 {
				spotOnDemand := c.OnDemandEquivalentUSD - c.OnDemandUSD
				require.Less(t, c.SpotUSD, spotOnDemand, "spot costs less than its on-demand equivalent")
			}
			require.True(t, json.Valid(r.json))
			checkTimeline(t, r)
		})
	}
}

// checkTimeline holds the timeline against the report's own figures: its
// events are the launches, signals and disruptions the report counts, and
// its last sample is the state at the end.
func checkTimeline(t *testing.T, r run) {
	t.Helper()
	tl := r.rep.Timeline
	require.NotNil(t, tl)
	n := len(tl.T)
	require.Equal(t, int(r.rep.DurationSeconds/tl.IntervalSeconds)+1, n)
	require.LessOrEqual(t, n, report.MaxTimelineSamples+1)
	for _, s := range [][]int32{tl.PendingPods, tl.StrandedPods, tl.StartingPods, tl.RunningPods, tl.SpotNodes, tl.OnDemandNodes, tl.ReservedNodes} {
		require.Len(t, s, n)
	}
	peak := int32(0)
	for i := range n {
		require.LessOrEqual(t, tl.StrandedPods[i], tl.PendingPods[i])
		require.GreaterOrEqual(t, tl.StrandedPods[i], int32(0))
		peak = max(peak, tl.SpotNodes[i]+tl.OnDemandNodes[i]+tl.ReservedNodes[i])
	}
	require.LessOrEqual(t, int(peak), r.rep.Nodes.Peak)
	if r.rep.DurationSeconds == tl.T[n-1] {
		require.Equal(t, r.rep.Pods.PendingAtEnd, int(tl.PendingPods[n-1]))
		require.Equal(t, r.rep.Nodes.AtEnd, int(tl.SpotNodes[n-1]+tl.OnDemandNodes[n-1]+tl.ReservedNodes[n-1]))
		// The report bills each instance's billed seconds (from its
		// launch, rounded up, at least a minute), the timeline each
		// node's lifetime: close, not equal.
		require.InDelta(t, r.rep.Cost.OnDemandEquivalentUSD, tl.OnDemandEquivalentUSD[n-1], 2e-3*r.rep.Cost.OnDemandEquivalentUSD+1e-5)
	}
	launched, byPool := 0, 0
	for _, p := range tl.Pools {
		byPool += int(p.Launched[n-1])
	}
	count := map[string]int{}
	disruptions := 0
	for i, e := range tl.Events {
		if i > 0 {
			require.GreaterOrEqual(t, e.T, tl.Events[i-1].T, "in time order")
		}
		count[e.Kind] += e.Count
		if e.Kind == "instanceLaunched" {
			launched += e.Count
		}
		if e.Kind == "nodeDeletion" && e.Owner == "karpenter" {
			disruptions += e.Count
		}
	}
	require.Equal(t, int(r.rep.Provisioning.Launches), launched)
	require.Equal(t, r.rep.Nodes.Launched, byPool, "every launched node's pool")
	require.Equal(t, int(r.rep.Spot.Interruptions), count["interruptionNotice"])
	require.Equal(t, int(r.rep.Spot.Reclaims), count["instanceReclaimed"])
	require.Equal(t, int(r.rep.Provisioning.LaunchFailures), count["launchFailed"])
	if f, ok := r.rep.Figures("karpenter"); ok {
		d := f.(karpenter.Stats).Disruptions
		require.Equal(t, int(d.Total()), disruptions)
	}
}

// launchedByCA reports whether the Cluster Autoscaler launched a node for
// any pod whose name starts with prefix.
func launchedByCA(cl *cluster.Cluster, prefix string) bool {
	for i := range cl.Pods {
		if !strings.HasPrefix(cl.Pods[i].Name, prefix) {
			continue
		}
		for _, n := range cl.LaunchedFor(cluster.PodID(i)) {
			if cl.Nodes[n].Owner == cluster.RegisterOwner("cluster-autoscaler") {
				return true
			}
		}
	}
	return false
}

func TestHybridNaiveStrandsBatch(t *testing.T) {
	r := runScenario(t, "hybrid-naive")
	require.Greater(t, r.rep.Pods.Stranded, 0)
	var batch report.Workload
	for _, w := range r.rep.Workloads {
		if w.Ref == "Job/batch/render" {
			batch = w
		}
	}
	require.Equal(t, r.rep.Pods.Stranded, batch.Stranded, "the stranded pods are the spot-only batch pods")
	require.Contains(t, batch.StrandedReason, "node(s) had untolerated taint(s)", "the CA group's taint keeps them off")
	require.False(t, launchedByCA(r.cluster, "render"), "the Cluster Autoscaler adds no node for the batch pods")
	require.Greater(t, r.rep.Provisioning.InsufficientCapacityErrors, uint64(0), "Karpenter keeps retrying the dry pools")
}

func TestHybridNaiveLegacyWarns(t *testing.T) {
	file, _ := scenarios.File("hybrid-naive-legacy")
	sc, err := scenario.LoadFS(scenarios.FS, file)
	require.NoError(t, err)
	var all []string
	for _, w := range sc.Warnings {
		all = append(all, w.String())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"there is no karpenter.sh/v1beta1 Provisioner", "consolidationPolicy is not a Provisioner field",
		"ttlSecondsAfterEmpty: 30 next to consolidationPolicy: WhenEmpty", "NO_SCHEDULE", "karpenter.sh/provisioner-name"} {
		require.Contains(t, joined, want)
	}
}

func TestFallbacksAvoidStranding(t *testing.T) {
	for _, name := range []string{"hybrid-isolated", "karpenter-mixed", "diversified-spot"} {
		r := runScenario(t, name)
		require.Equal(t, 0, r.rep.Pods.Stranded, name)
	}
	iso := runScenario(t, "hybrid-isolated")
	require.Greater(t, iso.rep.Controllers.Resubmissions, uint64(0), "the job-queue controller moved waiting pods")
	require.True(t, launchedByCA(iso.cluster, "render"), "and the Cluster Autoscaler scaled up for them")
}

// TestGPURepair: the GPU faults of gpu-repair are replaced by Karpenter's
// node repair (none blocked: no fault takes more than 20% of the pool),
// and the failed nodes spend a fraction of the unhealthy node-hours they
// spend with the gate off (gpu/repair-off.yaml), where they stay until
// consolidation takes them, and the loader names the gate.
func TestGPURepair(t *testing.T) {
	r := runScenario(t, "gpu-repair")
	figures, _ := r.rep.Figures(karpenter.ReportKey)
	st := figures.(karpenter.Stats)
	require.Greater(t, r.rep.Nodes.Failed, 2)
	// Nearly all are repaired; one may fail too late, or consolidation
	// take it first at night.
	require.LessOrEqual(t, st.Disruptions.Unhealthy+countUnhealthyAtEnd(r.cluster), int64(r.rep.Nodes.Failed))
	require.GreaterOrEqual(t, st.Disruptions.Unhealthy, int64(r.rep.Nodes.Failed*3/4))
	require.Zero(t, st.RepairsBlocked)

	file, _ := scenarios.File("gpu-repair")
	sc, err := scenario.LoadFSOverrides(scenarios.FS, file, "gpu/repair-off.yaml")
	require.NoError(t, err)
	var gateOff []string
	for _, w := range sc.Warnings {
		if w.Code == "karpenter.gate-off" {
			gateOff = append(gateOff, w.Msg)
		}
	}
	require.Len(t, gateOff, 1)
	require.Contains(t, gateOff[0], "NodeRepair feature gate is off")
	off, err := simulation.Run(sc, simulation.Options{})
	require.NoError(t, err)
	offFigures, _ := off.Figures(karpenter.ReportKey)
	require.Zero(t, offFigures.(karpenter.Stats).Disruptions.Unhealthy)
	require.Greater(t, off.Nodes.UnhealthyHours, 5*r.rep.Nodes.UnhealthyHours)
}

// TestNodeGroupFailure: web-steady's Cluster Autoscaler group with two
// nodes whose kubelet fails (Ready=False) at 10h: their pods are evicted
// after the admission default of 300 s and run elsewhere, and the CA,
// which repairs nothing, scales the emptied nodes down as unneeded.
func TestNodeGroupFailure(t *testing.T) {
	base, err := fs.ReadFile(scenarios.FS, "web-steady.yaml")
	require.NoError(t, err)
	doc := strings.Replace(string(base), "  workloads:\n",
		"  nodeFailures: [{at: 10h, condition: Ready=False, count: 2, nodeGroups: [core-on-demand]}]\n  workloads:\n", 1)
	fsys := fstest.MapFS{"web-steady.yaml": {Data: []byte(doc)}}
	for _, f := range []string{"hybrid/eksctl-cluster.yaml", "web/web.yaml"} {
		b, err := fs.ReadFile(scenarios.FS, f)
		require.NoError(t, err)
		fsys[f] = &fstest.MapFile{Data: b}
	}
	sc, err := scenario.LoadFS(fsys, "web-steady.yaml")
	require.NoError(t, err)
	var failed []cluster.Node
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		for i := range cl.Nodes {
			if cl.Nodes[i].Condition != cluster.Healthy {
				failed = append(failed, cl.Nodes[i])
			}
		}
	}})
	require.NoError(t, err)
	require.Equal(t, 2, rep.Nodes.Failed)
	require.Len(t, failed, 2)
	for _, n := range failed {
		require.Equal(t, "core-on-demand", n.OwnerName)
		require.Equal(t, cluster.NodeGone, n.State, "scaled down once empty")
		require.Greater(t, n.Deleted-n.ConditionSince, 5*time.Minute, "its pods left after 300 s, then it was unneeded")
	}
	require.Equal(t, 0, rep.Pods.PendingAtEnd)
	require.Zero(t, rep.Pods.Stranded)
}

// TestBadCNI: web-bad-cni's nodes register and never become Ready. The
// Cluster Autoscaler removes its own as unready nodes (none is left at the
// end, none counts as unregistered) after its scale-ups time out; Karpenter
// never times one out (Registered), repairs the first and then, past 20% of
// the pool unhealthy, blocks repair: the rest stay to the end, NotReady, and
// pods wait hours for them.
func TestBadCNI(t *testing.T) {
	r := runScenario(t, "web-bad-cni")
	kf, _ := r.rep.Figures(karpenter.ReportKey)
	ks := kf.(karpenter.Stats)
	cf, _ := r.rep.Figures(clusterautoscaler.ReportKey)
	cs := cf.(clusterautoscaler.Stats)
	require.Positive(t, cs.UnreadyNodesRemoved)
	require.Positive(t, cs.ScaleUpTimeouts)
	require.Zero(t, cs.UnregisteredNodesRemoved)
	require.Zero(t, cs.UnreadyAtEnd)
	require.Positive(t, ks.NeverReadyNodes)
	require.Zero(t, ks.RegistrationTimeouts)
	require.Positive(t, ks.RepairsBlocked)
	left := 0
	for i := range r.cluster.Nodes {
		if n := &r.cluster.Nodes[i]; n.RegisteredNotReady() {
			require.Equal(t, "burst-spot", n.OwnerName, "only Karpenter's stay")
			left++
		}
	}
	require.EqualValues(t, ks.NeverReadyNodes-ks.Disruptions.Unhealthy, left)
	require.Greater(t, r.rep.Pods.PendingSeconds.P99, 4*3600.0, "pods wait hours for the NotReady NodeClaims")
}

// countUnhealthyAtEnd counts the nodes still unhealthy and alive at the end.
func countUnhealthyAtEnd(cl *cluster.Cluster) int64 {
	var n int64
	for i := range cl.Nodes {
		if cl.Nodes[i].Condition != cluster.Healthy && cl.Nodes[i].State != cluster.NodeGone {
			n++
		}
	}
	return n
}

func TestCAPriorityFallbackDelay(t *testing.T) {
	r := runScenario(t, "ca-priority-fallback")
	// The fallback delay: from the spot group's first failed launch to the
	// first on-demand batch node Ready.
	var failed, ready float64 = -1, -1
	for _, e := range r.events {
		if failed < 0 && e.Kind == "launchError" && e.Owner == "cluster-autoscaler" && e.CapacityType == "spot" {
			failed = e.T
		}
		if failed >= 0 && ready < 0 && e.Kind == "nodeReady" && e.OwnerName == "batch-on-demand" {
			ready = e.T
		}
	}
	require.GreaterOrEqual(t, failed, 0.0, "the spot group's launches fail in the cascade")
	require.Greater(t, ready, failed, "the on-demand group takes over")
	delay := ready - failed
	require.Greater(t, delay, 60.0, "the failure surfaces at an ASG refresh, then an ASG launch")
	require.GreaterOrEqual(t, r.rep.Pods.PendingSeconds.P99, delay)
	figures, _ := r.rep.Figures(clusterautoscaler.ReportKey)
	st, ok := figures.(clusterautoscaler.Stats)
	require.True(t, ok)
	require.GreaterOrEqual(t, st.FailedScaleUps, 1, "the spot group's scale-up failed and backed off")
	require.Greater(t, st.BackoffSeconds, 0.0)
}

// TestRunsParallelismIsDeterministic: --runs gives the same reports on one
// worker as on several, for every embedded scenario.
func TestRunsParallelismIsDeterministic(t *testing.T) {
	for _, name := range scenarios.Names() {
		file, _ := scenarios.File(name)
		sc, err := scenario.LoadFS(scenarios.FS, file)
		require.NoError(t, err)
		seeds := experiment.Seeds(sc.Seed, 3)
		one, err := experiment.RunMany(sc, seeds, 1, nil, nil)
		require.NoError(t, err)
		many, err := experiment.RunMany(sc, seeds, 3, nil, nil)
		require.NoError(t, err)
		require.Equal(t, one, many, name)
	}
}

// Load finds a scenario with or without .yaml and names a scenario that
// is not embedded.
func TestLoad(t *testing.T) {
	for _, name := range []string{"hybrid-naive", "hybrid-naive.yaml"} {
		sc, err := scenarios.Load(name)
		require.NoError(t, err)
		require.Equal(t, "hybrid-naive", sc.Name)
	}
	p, ok := scenarios.File("hybrid-naive")
	require.True(t, ok)
	require.Equal(t, "hybrid-naive.yaml", p)
	_, ok = scenarios.File("sweeps/hybrid-frontier")
	require.False(t, ok, "a sweep is not a scenario")
	_, err := scenarios.Load("../hybrid-naive")
	require.EqualError(t, err, `no embedded scenario "../hybrid-naive"`)
	_, err = scenarios.Load("nope")
	require.EqualError(t, err, `no embedded scenario "nope"`)
}

// TestStatefulZone: the replica in us-east-1c keeps its volume there when
// its node goes at 40m. On node groups spanning three zones (template
// node in us-east-1a) the Cluster Autoscaler never scales up for it and it
// strands with the scheduler's volume message; one group per zone, or a
// NodePool over every zone, brings it back in us-east-1c on on-demand.
func TestStatefulZone(t *testing.T) {
	// victim is the replica first bound in us-east-1c; backIn where it
	// was bound again after the reclaim.
	victim := func(r run) string {
		for _, e := range r.events {
			if e.Kind == "podBound" && e.Zone == "us-east-1c" {
				return e.Pod
			}
		}
		return ""
	}
	backIn := func(r run) (zone, capacity string) {
		pod := victim(r)
		require.NotEmpty(t, pod, "a replica ran in us-east-1c")
		for _, e := range r.events {
			if e.Kind == "podBound" && e.Pod == pod && e.T >= 2400 {
				return e.Zone, e.CapacityType
			}
		}
		return "", ""
	}
	ca := runScenario(t, "stateful-zone-ca")
	require.Equal(t, 1, ca.rep.Pods.Stranded)
	var stranded []string
	for _, u := range ca.rep.UnschedulablePods {
		if u.Stranded {
			stranded = append(stranded, u.Pod+": "+u.Message)
		}
	}
	require.Len(t, stranded, 1)
	require.Contains(t, stranded[0], victim(ca)+": ")
	require.Contains(t, stranded[0], "node(s) had volume node affinity conflict")
	zone, _ := backIn(ca)
	require.Empty(t, zone, "never back")
	for _, name := range []string{"stateful-zone-ca-per-az", "stateful-zone-karpenter"} {
		r := runScenario(t, name)
		require.Zero(t, r.rep.Pods.Stranded, name)
		zone, ct := backIn(r)
		require.Equal(t, "us-east-1c", zone, name)
		require.Equal(t, "on-demand", ct, name)
	}
}

// Embedded sweeps are found by name under sweeps/, apart from the
// scenarios.
func TestSweeps(t *testing.T) {
	require.Equal(t, []string{"hybrid-frontier"}, scenarios.Sweeps())
	p, ok := scenarios.Sweep("hybrid-frontier")
	require.True(t, ok)
	require.Equal(t, "sweeps/hybrid-frontier.yaml", p)
	_, ok = scenarios.Sweep("hybrid-frontier.yaml")
	require.True(t, ok)
	_, ok = scenarios.Sweep("hybrid-naive")
	require.False(t, ok, "a scenario is not a sweep")
	require.NotContains(t, scenarios.Names(), "hybrid-frontier")
}
