package simulation_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/importer"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// Checking the models' structures changes nothing: an embedded scenario
// in which Karpenter consolidates underutilized nodes gives the same
// report, byte for byte, with its structures checked every few events
// (sim run --check, far more often than by default) as without.
func TestCheckedKarpenterRunIsIdentical(t *testing.T) {
	report := func(opts simulation.Options) []byte {
		sc, err := scenarios.Load("karpenter-mixed")
		require.NoError(t, err)
		r, err := simulation.Run(sc, opts)
		require.NoError(t, err)
		figures, ok := r.Figures(karpenter.ReportKey)
		require.True(t, ok)
		require.Positive(t, figures.(karpenter.Stats).Disruptions.Underutilized, "the run consolidates")
		js, err := r.JSON()
		require.NoError(t, err)
		return js
	}
	plain := report(simulation.Options{})
	checked := report(simulation.Options{Check: true, CheckEvery: 25})
	require.Equal(t, string(plain), string(checked))
}

// An imported cluster's start pods on adopted nodes are no new pod events
// (their NodeClaims' imported lastPodEventTime counts them): the check of
// the last pod event knows it, every event of the import path's run.
func TestCheckedImportedStart(t *testing.T) {
	im := importer.New(importer.Options{Name: "imported", Duration: "30m"}, nil)
	require.NoError(t, im.Add("cluster.yaml", strings.NewReader(clusterExport("2026-12-01T09:51:00Z"))))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	path := filepath.Join(t.TempDir(), "imported.yaml")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	sc, err := scenario.LoadFile(path)
	require.NoError(t, err)
	_, err = simulation.Run(sc, simulation.Options{Check: true, CheckEvery: 1})
	require.NoError(t, err)
}
