package scengen

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/scenario"
)

// A seed gives one case, byte for byte; about half the cases go through
// sim import; every case loads.
func TestGenerate(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	imported := 0
	for seed := uint64(1); seed <= 40; seed++ {
		c, err := Generate(seed, cat)
		require.NoError(t, err)
		again, err := Generate(seed, cat)
		require.NoError(t, err)
		require.True(t, bytes.Equal(c.Scenario, again.Scenario), "seed %d: two different scenarios", seed)
		if c.Imported {
			imported++
			require.Contains(t, c.Exports, "cluster.yaml")
			require.Contains(t, string(c.Scenario), "# Written by sim import")
		}
		sc, err := scenario.LoadManifests("gen.yaml", c.Scenario, nil)
		require.NoError(t, err, "seed %d:\n%s", seed, c.Scenario)
		require.Equal(t, seed, sc.Seed)
		require.NotEmpty(t, sc.Nodes, "seed %d: start nodes", seed)
	}
	require.InDelta(t, 20, imported, 10)
}

// Adopted start nodes are adopted, and pinned pods are pinned, on both
// paths.
func TestGenerateAdopts(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	paths := map[bool]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		c, err := Generate(seed, cat)
		require.NoError(t, err)
		if !containsAll(c.Features, "adopted:karpenter", "startOn") {
			continue
		}
		sc, err := scenario.LoadManifests("gen.yaml", c.Scenario, nil)
		require.NoError(t, err)
		adopted, pinned := 0, 0
		for _, n := range sc.Nodes {
			if n.Owner.String() == "karpenter" {
				adopted++
			}
		}
		for _, w := range sc.Workloads {
			pinned += len(w.StartOn)
		}
		require.Positive(t, adopted, "seed %d", seed)
		require.Positive(t, pinned, "seed %d", seed)
		paths[c.Imported] = true
	}
	require.Len(t, paths, 2, "both the direct and the imported path")
}

func containsAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}
