package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/scenario"
)

// TestDiversifiedSpotBurst: an 800-pod burst (about 200 xlarge nodes at
// once) into diversified-spot's NodePool (20 types, three zones) is served
// in every seed, while the same burst into a one-type, one-zone variant of
// it runs the pool dry: its depth refuses launches and pods strand, more
// than they would with unlimited pools (the model before pool depth).
func TestDiversifiedSpotBurst(t *testing.T) {
	const dir = "testdata/burst/"
	seeds := experiment.Seeds(1, 6)
	stranded := func(unlimited bool, overrides ...string) (total, withDepthRefusals int) {
		sc, err := scenario.LoadFile(dir+"diversified-burst.yaml", overrides...)
		require.NoError(t, err)
		sc.Market.Depth.Unlimited = unlimited
		reps, err := experiment.RunMany(sc, seeds, 2, nil, nil)
		require.NoError(t, err)
		for _, r := range reps {
			total += r.Pods.Stranded
			if r.Provisioning.DepthRefusals > 0 {
				withDepthRefusals++
			}
		}
		return total, withDepthRefusals
	}
	div, _ := stranded(false, dir+"job-burst.yaml")
	one, oneDry := stranded(false, dir+"job-burst.yaml", dir+"nodepool-one-type.yaml")
	oneUnlimited, _ := stranded(true, dir+"job-burst.yaml", dir+"nodepool-one-type.yaml")
	t.Logf("stranded over %d seeds: diversified %d, one type %d (unlimited pools: %d); one-type runs with depth refusals: %d",
		len(seeds), div, one, oneUnlimited, oneDry)
	require.Less(t, div, one, "diversified-spot strands fewer pods than its one-type variant")
	require.Greater(t, one, oneUnlimited, "pool depth strands pods that unlimited pools would have served")
	require.GreaterOrEqual(t, oneDry, len(seeds)/2, "the one pool runs dry in most seeds")
}
