package scenarios_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// reportFigures is a report as JSON with what names the scenario left
// out: its name and the loader's notes.
func reportFigures(t *testing.T, js []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m))
	delete(m, "scenario")
	delete(m, "warnings")
	return m
}

func karpenterCount(t *testing.T, m map[string]any, keys ...string) float64 {
	t.Helper()
	var v any = m["karpenter"]
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	return v.(float64)
}

// hybrid-naive-helm is hybrid-naive with Karpenter's settings in its own
// Helm-rendered Deployment instead of spec.karpenter: the same run, figure
// for figure, and its controller is not a workload. Without
// INTERRUPTION_QUEUE in that Deployment the reclaimed spot nodes are not
// drained on their notice.
func TestHelmDeploymentConfiguresKarpenter(t *testing.T) {
	helm, naive := runScenario(t, "hybrid-naive-helm"), runScenario(t, "hybrid-naive")
	got, want := reportFigures(t, helm.json), reportFigures(t, naive.json)
	require.Equal(t, want, got)
	require.Equal(t, 12.0, karpenterCount(t, got, "disruptions", "interrupted"), "the notices are handled: INTERRUPTION_QUEUE was read")
	for _, w := range helm.rep.Workloads {
		require.NotContains(t, w.Ref, "karpenter", "its controller is not a workload")
	}

	// The same without INTERRUPTION_QUEUE: nothing drained, the instances
	// reclaimed under their pods.
	files := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(scenarios.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(scenarios.FS, p)
		if p == "hybrid/karpenter-helm.yaml" {
			b = []byte(strings.Replace(string(b), "            - name: INTERRUPTION_QUEUE\n              value: \"demo\"\n", "", 1))
			require.NotContains(t, string(b), "INTERRUPTION_QUEUE")
		}
		files[p] = &fstest.MapFile{Data: b}
		return err
	}))
	file, ok := scenarios.File("hybrid-naive-helm")
	require.True(t, ok)
	sc, err := scenario.LoadFS(files, file)
	require.NoError(t, err)
	rep, err := simulation.Run(sc, simulation.Options{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteJSON(&buf))
	noQueue := reportFigures(t, buf.Bytes())
	require.Equal(t, 0.0, karpenterCount(t, noQueue, "disruptions", "interrupted"))
	require.Equal(t, 0.0, karpenterCount(t, noQueue, "podsEvicted"))
	require.Equal(t, 12.0, karpenterCount(t, noQueue, "instancesReclaimed"))
}
