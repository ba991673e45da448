package fidelity

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
)

// Our NodeOverlay evaluation against upstream's controller and store
// (KC v1.15.0 pkg/controllers/nodeoverlay), offering by offering, on the
// overlay set: the same overlays refused, every pool's every offering at
// the same overlaid price, and every type a pool can launch with the same
// count of the overlaid resource.
func TestOverlaysAsUpstreamApplies(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	cases, err := GenerateOverlays(cat, 1, 60)
	require.NoError(t, err)
	refusedCases, pricedOfferings, resourceTypes := 0, 0, 0
	for _, c := range cases {
		ours, err := BuildOurs(cat, c)
		require.NoError(t, err)
		up, err := BuildUpstream(c, ours)
		require.NoError(t, err)

		sc := ours.Scheduler
		var refused []string
		names := sc.Pools.OverlayNames()
		for i, st := range sc.Pools.OverlayStatus() {
			if st.ConflictWith >= 0 {
				refused = append(refused, names[i]+" (Conflict)")
			}
		}
		require.ElementsMatch(t, up.refusedOverlays, refused, c.Name)
		if len(refused) > 0 {
			refusedCases++
		}

		slot, hasSlot := ours.cl.Resources.Lookup(overlayResource)
		for _, np := range up.pools {
			p := sc.Pools.ByName[np.Name]
			for _, it := range up.its[np.Name] {
				typ := sc.Offerings.TypeByName[it.Name]
				for _, of := range it.Offerings {
					ct, _ := cluster.ParseCapacityType(of.CapacityType())
					got, _ := sc.Offerings.PoolOfferingPrice(p, cloud.Offering{InstanceType: it.Name, Zone: of.Zone(), CapacityType: ct})
					require.InDelta(t, of.Price, got, 1e-9, "%s: pool %s %s %s %s", c.Name, np.Name, it.Name, of.Zone(), of.CapacityType())
					if of.IsPriceOverlaid() {
						pricedOfferings++
					}
				}
				pos := p.TypePositions[typ.Index]
				if pos < 0 || !hasSlot {
					continue
				}
				want := it.Capacity[corev1.ResourceName(overlayResource)]
				require.Equal(t, want.Value(), p.Types[pos].Capacity[slot], "%s: pool %s %s", c.Name, np.Name, it.Name)
				if want.Value() > 0 {
					resourceTypes++
				}
			}
		}
	}
	t.Logf("%d cases: %d with a refused overlay, %d overlaid offerings, %d types given %s", len(cases), refusedCases, pricedOfferings, resourceTypes, overlayResource)
	// The set exercises what it claims to.
	require.Greater(t, refusedCases, 3)
	require.Greater(t, pricedOfferings, 1000)
	require.Greater(t, resourceTypes, 50)
}
