package scenario

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
)

// spec.epoch is the wall clock of simulated time 0 for CronJobs and
// Karpenter's budgets; spec.karpenter.startTime, its older spelling,
// still sets both when spec.epoch is not given, and only Karpenter's when
// it is.
func TestEpoch(t *testing.T) {
	const pool = `---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
`
	load := func(spec string) (*Scenario, error) {
		doc := "apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: e}\nspec:\n  duration: 1h\n" + spec + pool
		return LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
	}
	monday := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	friday := time.Date(2026, 3, 6, 18, 0, 0, 0, time.UTC)

	sc, err := load("")
	require.NoError(t, err)
	require.Equal(t, DefaultEpoch, sc.Epoch)
	require.Equal(t, DefaultEpoch, kpConfig(sc).Settings.Epoch)

	sc, err = load("  epoch: 2026-03-02T00:00:00Z\n")
	require.NoError(t, err)
	require.Equal(t, monday, sc.Epoch)
	require.Equal(t, monday, kpConfig(sc).Settings.Epoch, "Karpenter's budgets read the scenario's clock")

	sc, err = load("  karpenter: {startTime: \"2026-03-06T18:00:00Z\"}\n")
	require.NoError(t, err)
	require.Equal(t, friday, sc.Epoch, "the older spelling sets the scenario's clock")
	require.Equal(t, friday, kpConfig(sc).Settings.Epoch)

	sc, err = load("  epoch: 2026-03-02T00:00:00Z\n  karpenter: {startTime: \"2026-03-06T18:00:00Z\"}\n")
	require.NoError(t, err)
	require.Equal(t, monday, sc.Epoch)
	require.Equal(t, friday, kpConfig(sc).Settings.Epoch)

	// An imported cluster's clock goes on from its export: a budget
	// schedule of the live cluster holds at the same wall-clock times.
	sc, err = load("  importedAt: \"2026-03-06T18:00:00Z\"\n")
	require.NoError(t, err)
	require.Equal(t, friday, sc.Epoch)
	require.Equal(t, friday, kpConfig(sc).Settings.Epoch)
	sc, err = load("  epoch: 2026-03-02T00:00:00Z\n  importedAt: \"2026-03-06T18:00:00Z\"\n")
	require.NoError(t, err)
	require.Equal(t, monday, sc.Epoch, "spec.epoch, when given, wins")

	_, err = load("  epoch: next monday\n")
	require.ErrorContains(t, err, `s.yaml:6: spec.epoch: "next monday" is not a time`)
}
