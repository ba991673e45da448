package simulation

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
)

func runYAML(t *testing.T, doc string) *report.Report {
	t.Helper()
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
	require.NoError(t, err)
	r, err := Run(sc, Options{})
	require.NoError(t, err)
	return r
}

const header = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 2h
  podStartDelay: 0s
`

func TestCostOfAStaticNode(t *testing.T) {
	r := runYAML(t, header+`  staticNodes: [{name: a, instanceType: m5.large, count: 2}]
`)
	// 2 nodes x 2 h x $0.096/h, the list price in the embedded data.
	require.InDelta(t, 0.384, r.Cost.TotalUSD, 1e-9)
	require.InDelta(t, 0.384, r.Cost.OnDemandUSD, 1e-9)
	require.Equal(t, 0.0, r.Cost.SpotUSD)
	require.Equal(t, 2, r.Nodes.Initial)
	require.Equal(t, 0, r.Nodes.Launched)
	require.Equal(t, 2, r.Nodes.Peak)
	require.Equal(t, 7200.0, r.DurationSeconds, "the run lasts the scenario's duration even when nothing happens")
	require.InDelta(t, 0.384, r.Cost.OnDemandEquivalentUSD, 1e-9)
	require.Equal(t, 0.0, r.Cost.SavingsPct)
	require.InDelta(t, 0.384, r.Cost.IdleUSD, 1e-9, "empty nodes are all idle")
}

func TestSpotSavingsAndIdleCost(t *testing.T) {
	// One spot m5.large (advisor savings 66% in the embedded data) runs a
	// pod asking for half its allocatable CPU for the whole run.
	r := runYAML(t, header+`  staticNodes: [{name: a, instanceType: m5.large, count: 1, capacityType: spot}]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 965m, memory: 100Mi}}}]
`)
	require.InDelta(t, 0.192, r.Cost.OnDemandEquivalentUSD, 1e-9)
	require.InDelta(t, 100*(1-r.Cost.TotalUSD/0.192), r.Cost.SavingsPct, 1e-3)
	require.Greater(t, r.Cost.SavingsPct, 30.0)
	require.InDelta(t, r.Cost.TotalUSD/2, r.Cost.IdleUSD, 1e-6, "half the CPU requested: half the cost idle")
	require.InDelta(t, 2.0, r.Cost.PodHours, 1e-9)
	require.InDelta(t, r.Cost.TotalUSD/2, r.Cost.PerPodHourUSD, 1e-6)
}

const job = `---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: %d
  completions: %d
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`

func TestJobRunsToCompletionInWaves(t *testing.T) {
	// One c5.xlarge holds 3 one-CPU pods. 6 completions, parallelism 6, 10
	// minutes each: two waves; the second wave waits 10 minutes.
	r := runYAML(t, header+`  strandedAfter: 9m
  staticNodes: [{name: a, instanceType: c5.xlarge, count: 1}]
  workloads: [{ref: Job/j, runtime: {fixed: 10m}}]
`+sprintf(job, 6, 6))
	require.Equal(t, 6, r.Pods.Total)
	require.Equal(t, 6, r.Pods.Succeeded)
	require.Equal(t, 3, r.Pods.Stranded, "the second wave waited 10m > 9m")
	// Waits include the scheduler's cycles (about a millisecond each).
	require.InDelta(t, 600.0, r.Pods.PendingSeconds.Max, 0.01)
	require.InDelta(t, 0.0, r.Pods.PendingSeconds.P50, 0.01)
	require.InDelta(t, 600.0, r.Pods.PendingSeconds.P99, 0.01)
}

func TestJobParallelismLimitsActivePods(t *testing.T) {
	// Room for many, but parallelism 2 over 6 completions: three rounds of
	// 10 minutes, nobody waits on the scheduler.
	r := runYAML(t, header+`  staticNodes: [{name: a, instanceType: m5.4xlarge, count: 1}]
  workloads: [{ref: Job/j, runtime: {fixed: 10m}}]
`+sprintf(job, 2, 6))
	require.Equal(t, 6, r.Pods.Total)
	require.Equal(t, 6, r.Pods.Succeeded)
	require.InDelta(t, 0.0, r.Pods.PendingSeconds.Max, 0.01, "only the scheduler's cycles")
}

func TestPendingAtEndAndStranded(t *testing.T) {
	// No nodes at all: the pods wait the whole run, counted as stranded
	// once each, with their wait so far as a lower bound.
	r := runYAML(t, header+`  workloads: [{ref: Job/j, arrivals: {at: 30m}, runtime: {fixed: 1m}}]
`+sprintf(job, 2, 2))
	require.Equal(t, 2, r.Pods.PendingAtEnd)
	require.Equal(t, 2, r.Pods.Stranded)
	require.Equal(t, 5400.0, r.Pods.PendingSeconds.Max)
	require.Equal(t, 0, r.Pods.Scheduled)
	require.Len(t, r.Workloads, 1)
	require.Equal(t, "0/0 nodes are available.", r.Workloads[0].StrandedReason)
}

var deployment = fixtures.WebDeployment(2, "100m", "100Mi")

func TestDeploymentScalesBySteps(t *testing.T) {
	r := runYAML(t, header+`  staticNodes: [{name: a, instanceType: m5.large, count: 1}]
  workloads: [{ref: Deployment/web, replicas: [{at: 30m, count: 5}, {at: 1h, count: 1}]}]
`+deployment)
	// 2 at start, +3 at 30m, -4 at 1h.
	require.Equal(t, 5, r.Pods.Total)
	require.Equal(t, 4, r.Pods.Deleted)
	require.Equal(t, 5, r.Pods.Scheduled)
}

func TestPoissonArrivalsAreSeededAndPlausible(t *testing.T) {
	doc := header + `  staticNodes: [{name: a, instanceType: m5.24xlarge, count: 1}]
  workloads: [{ref: Job/j, arrivals: {poisson: {ratePerHour: 60}}, runtime: {fixed: 1m}}]
` + sprintf(job, 1, 1)
	a := runYAML(t, doc)
	b := runYAML(t, doc)
	require.Equal(t, a, b)
	// 120 expected over 2 h; a Poisson count stays within 4 standard
	// deviations (about 44) of its mean.
	require.InDelta(t, 120, a.Pods.Total, 44)
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

func TestCancelledRunIsPartial(t *testing.T) {
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(`apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: long}
spec:
  duration: 7d
  staticNodes: [{name: a, instanceType: m5.24xlarge, count: 2}]
  workloads: [{ref: Job/j, arrivals: {poisson: {ratePerHour: 600}}, runtime: {fixed: 1m}}]
` + sprintf(job, 1, 1))}}, "s.yaml")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(sc, Options{Context: ctx})
	require.NoError(t, err)
	require.True(t, r.Partial)
	require.Less(t, r.DurationSeconds, 7*24*3600.0)
	require.Greater(t, r.Engine.Events, uint64(0))
}

func TestCheckedRunPasses(t *testing.T) {
	r := runYAML(t, header+`  staticNodes: [{name: a, instanceType: c5.xlarge, count: 1}]
  workloads: [{ref: Job/j, runtime: {fixed: 10m}}]
`+sprintf(job, 6, 12))
	require.Equal(t, 12, r.Pods.Succeeded)
	sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(header + `  staticNodes: [{name: a, instanceType: c5.xlarge, count: 1}]
  workloads: [{ref: Job/j, runtime: {fixed: 10m}}]
` + sprintf(job, 6, 12))}}, "s.yaml")
	require.NoError(t, err)
	checked, err := Run(sc, Options{Check: true})
	require.NoError(t, err)
	require.Equal(t, r, checked, "checks observe; they never change the run")
}

// A run has the parts its scenario and options need, in the list's order.
func TestPartsFollowTheScenario(t *testing.T) {
	names := func(s *Sim) []string {
		var out []string
		for _, p := range s.built {
			out = append(out, p.name)
		}
		return out
	}
	static, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(header + "  staticNodes: [{name: a, instanceType: m5.large, count: 1}]\n")}}, "s.yaml")
	require.NoError(t, err)
	s, err := Start(static, Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"report collector", "kube-scheduler", "kubelet", "taint manager", "eviction API",
		"initial nodes", "workload controllers"}, names(s), "no autoscaler, no EC2")
	s, err = Start(static, Options{Check: true})
	require.NoError(t, err)
	require.Equal(t, "invariant checker", names(s)[0])

	hybrid, err := scenario.LoadFS(scenarios.FS, "hybrid-naive.yaml")
	require.NoError(t, err)
	s, err = Start(hybrid, Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"report collector", "kube-scheduler", "kubelet", "taint manager", "eviction API",
		"EC2 market", "karpenter", "initial nodes", "cluster-autoscaler", "workload controllers",
		"components' late inputs"}, names(s))
}
