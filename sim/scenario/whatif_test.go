package scenario_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/spotmarket"
	"github.com/clustersim/clustersim/sim/workload"
)

// ScaleWorkloads multiplies replica counts (rounded, never to 0 from
// above 0), curves and Poisson rates, and the width of Jobs that do not
// arrive by Poisson; a twin follows its driver; DaemonSets stay.
func TestScaleWorkloads(t *testing.T) {
	steps := []workload.Step{{At: 0, Count: 0}, {At: time.Minute, Count: 1}, {At: time.Hour, Count: 3}}
	sc := &scenario.Scenario{EstimatedPods: 100, Workloads: []workload.Spec{
		{Kind: workload.Deployment, Name: "web", TwinOf: -1, Replicas: workload.ReplicaPlan{Steps: steps}},
		{Kind: workload.Deployment, Name: "daily", TwinOf: -1, Replicas: workload.ReplicaPlan{Daily: &workload.Daily{Min: 2, Max: 10}}},
		{Kind: workload.Deployment, Name: "hpa", TwinOf: -1, Replicas: workload.ReplicaPlan{HPA: &workload.HPA{Min: 1, Max: 5, Load: workload.Daily{Min: 1, Max: 4}}}},
		{Kind: workload.Job, Name: "poisson", TwinOf: -1, Parallelism: 4, Completions: 8, Arrivals: workload.Arrivals{Poisson: &workload.Poisson{RatePerHour: 6}},
			Split: &workload.Split{Twin: 4, Share: 0.5}},
		{Kind: workload.Job, Name: "poisson-twin", TwinOf: 3, Parallelism: 4, Completions: 8},
		{Kind: workload.Job, Name: "burst", TwinOf: -1, Parallelism: 3, Completions: 5, Arrivals: workload.Arrivals{Times: []time.Duration{0, time.Hour}}},
		{Kind: workload.DaemonSet, Name: "agent", TwinOf: -1},
		{Kind: workload.BarePod, Name: "one", TwinOf: -1},
	}}
	require.NoError(t, sc.ScaleWorkloads(1.5))
	ws := sc.Workloads
	require.Equal(t, []workload.Step{{At: 0, Count: 0}, {At: time.Minute, Count: 2}, {At: time.Hour, Count: 5}}, ws[0].Replicas.Steps,
		"0 stays 0, 1.5 rounds to 2, 4.5 to 5")
	require.Equal(t, int32(1), steps[1].Count, "the steps are copied, not changed under other users")
	require.Equal(t, workload.Daily{Min: 3, Max: 15}, *ws[1].Replicas.Daily)
	h := ws[2].Replicas.HPA
	require.Equal(t, [2]int32{2, 8}, [2]int32{h.Min, h.Max}, "1.5 -> 2, 7.5 -> 8")
	require.Equal(t, workload.Daily{Min: 1.5, Max: 6}, h.Load)
	require.Equal(t, 9.0, ws[3].Arrivals.Poisson.RatePerHour)
	require.Equal(t, [2]int32{4, 8}, [2]int32{ws[3].Parallelism, ws[3].Completions}, "Poisson Jobs scale by arrivals only")
	require.Equal(t, [2]int32{4, 8}, [2]int32{ws[4].Parallelism, ws[4].Completions}, "so does the twin they drive")
	require.Equal(t, [2]int32{5, 8}, [2]int32{ws[5].Parallelism, ws[5].Completions}, "4.5 -> 5, 7.5 -> 8")
	require.Equal(t, workload.Spec{Kind: workload.DaemonSet, Name: "agent", TwinOf: -1}, ws[6])
	require.Equal(t, int64(150), sc.EstimatedPods)

	require.NoError(t, sc.ScaleWorkloads(0.1))
	require.Equal(t, int32(1), ws[0].Replicas.Steps[1].Count, "a running workload never scales to 0")

	for _, f := range []float64{0, -1, 1001} {
		err := sc.ScaleWorkloads(f)
		require.ErrorContains(t, err, "use a number above 0 and at most 1000")
	}
}

// ZoneOut appends an event that exhausts every capacity type of the zone
// from its time on, and refuses a zone or time the scenario does not have.
func TestZoneOut(t *testing.T) {
	mine := spotmarket.ScriptedEvent{At: time.Minute, State: spotmarket.RegimeConstrained}
	cfg := spotmarket.DefaultConfig()
	cfg.Events = []spotmarket.ScriptedEvent{mine}
	sc := &scenario.Scenario{Duration: 2 * time.Hour, Zones: []string{"us-east-1a", "us-east-1b"}, Market: cfg}
	require.NoError(t, sc.ZoneOut("us-east-1b", 30*time.Minute))
	require.Equal(t, []spotmarket.ScriptedEvent{mine, {At: 30 * time.Minute, Zones: []string{"us-east-1b"}, State: spotmarket.RegimeExhausted,
		CapacityTypes: []cluster.CapacityType{cluster.OnDemand, cluster.Spot, cluster.Reserved}}}, sc.Market.Events)
	require.NoError(t, sc.Market.Validate())

	require.EqualError(t, sc.ZoneOut("us-east-1c", 0), `zone "us-east-1c" is not one of the scenario's zones (us-east-1a, us-east-1b)`)
	require.EqualError(t, sc.ZoneOut("us-east-1a", 3*time.Hour), "time 3h0m0s is outside the scenario's duration 2h0m0s")
}

// ScaleHazard multiplies the scenario's own hazard multiplier; a negative
// factor is refused.
func TestScaleHazard(t *testing.T) {
	sc := &scenario.Scenario{Market: spotmarket.Config{HazardMultiplier: 1.5}}
	require.NoError(t, sc.ScaleHazard(2))
	require.Equal(t, 3.0, sc.Market.HazardMultiplier)
	require.ErrorContains(t, sc.ScaleHazard(-1), "use a number from 0 to 1000")
}

// SetFallbackAfter sets every fallback's timeout on a copy (the loaded
// Fallback may be shared), and refuses a scenario without one.
func TestSetFallbackAfter(t *testing.T) {
	fb := &workload.Fallback{After: 5 * time.Minute}
	sc := &scenario.Scenario{Name: "x", Workloads: []workload.Spec{{Name: "a"}, {Name: "b", Fallback: fb}}}
	require.NoError(t, sc.SetFallbackAfter(2*time.Minute))
	require.Nil(t, sc.Workloads[0].Fallback)
	require.Equal(t, 2*time.Minute, sc.Workloads[1].Fallback.After)
	require.Equal(t, 5*time.Minute, fb.After, "copied, not changed under other users")
	require.ErrorContains(t, sc.SetFallbackAfter(0), "use a positive duration")
	sc.Workloads = sc.Workloads[:1]
	require.EqualError(t, sc.SetFallbackAfter(time.Minute), "no workload of x has a fallback (spec.workloads[].resubmit) whose timeout to set")
}

// Files lists every file a scenario was read from: the scenario, its
// includes and the overrides, sorted.
func TestFiles(t *testing.T) {
	sc, err := scenario.LoadFS(os.DirFS("../../scenarios"), "hybrid-isolated.yaml")
	require.NoError(t, err)
	require.Equal(t, []string{"hybrid-isolated.yaml", "hybrid/eksctl-cluster.yaml", "hybrid/nodepool-isolated.yaml", "hybrid/workloads-isolated.yaml"}, sc.Files)
	sc, err = scenario.LoadFSOverrides(os.DirFS("../../scenarios"), "hybrid-isolated.yaml", "hybrid/nodepool-diversified.yaml")
	require.NoError(t, err, "overrides read from the same file system")
	require.Contains(t, sc.Files, "hybrid/nodepool-diversified.yaml")
	sc, err = scenario.LoadFS(os.DirFS("../../scenarios"), "replay-incident.yaml")
	require.NoError(t, err)
	require.Contains(t, sc.Files, "traces/example-incident.csv", "the replay trace")
}
