package verdict_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	_ "github.com/clustersim/clustersim/sim/component/builtin"
	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/verdict"
)

func verdictOf(t *testing.T, name string) verdict.Verdict {
	t.Helper()
	file, ok := scenarios.File(name)
	require.True(t, ok, name)
	sc, err := scenario.LoadFS(scenarios.FS, file)
	require.NoError(t, err)
	res := lint.Check(sc)
	rep, err := simulation.Run(sc, simulation.Options{})
	require.NoError(t, err)
	return verdict.Of(rep, verdict.Inputs{Scenario: name, StrandedAfter: sc.StrandedAfter, Lint: &res})
}

// The default scenario's verdict says which workload stranded and how
// badly, why (the spot pools that ran dry, and lint's finding that the Job
// tolerates only spot), what it cost, and which pod to explain next.
func TestVerdictOfTheSpotCascade(t *testing.T) {
	v := verdictOf(t, "hybrid-naive")
	require.Regexp(t, `^41 of 113 pods of Job/batch/render stranded \(pending > 10m, up to 1h14m\): `, v.Summary)
	require.Contains(t, v.Summary, "spot ran dry in us-east-1a and us-east-1b (1,940 insufficient-capacity errors)")
	require.Contains(t, v.Summary, "Job/batch/render tolerates only spot and has no on-demand fallback")
	require.Contains(t, v.Summary, "Cost $1.05, 45% below all on-demand ($1.92).")
	require.Regexp(t, `^sim explain hybrid-naive --pod batch/render-\d+$`, v.Next)
	require.NotContains(t, v.Summary, "Insufficient cpu", "the why is not the scheduler's last message")
}

// A zonal volume that strands a replica is named as the cause.
func TestVerdictOfAZonalVolume(t *testing.T) {
	v := verdictOf(t, "stateful-zone-ca")
	require.Contains(t, v.Summary, "1 of 4 pods of StatefulSet/data/db stranded")
	require.Contains(t, v.Summary, "its zonal volumes need a zone no source adds nodes in")
	require.Equal(t, "sim explain stateful-zone-ca --pod data/db-2", v.Next)
}

// A run where nothing strands says so, with its p99 and its cost; an
// all-on-demand run does not claim a saving.
func TestVerdictWhenNothingStrands(t *testing.T) {
	v := verdictOf(t, "web-steady")
	require.Regexp(t, `^No pod stranded: \d+ pods, pending p99 [0-9.]+(s|m)\. Cost \$[0-9.]+ \(all on-demand\)\.$`, v.Summary)
	require.Empty(t, v.Next)
}
