package karpenter

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Existing nodes are tried initialized first, then by name (KC
// sortExistingNodes), and upstream's in-flight NodeClaims have generated
// names (<pool>-<5 random characters>): a batch that finds NodeClaims in
// flight tries them in an order unrelated to their creation. Ours are
// named in sequence, so the solve orders the nodes Karpenter launched by
// a name drawn as upstream's (from the seed): a permutation of creation
// order, the same on every run of one seed.
func TestInFlightNodeClaimsOrderedAsRandomNames(t *testing.T) {
	order := func() (created, tried []string) {
		h := newHarness(t)
		// One 1.5-CPU pod per m5.large: 12 NodeClaims in one batch.
		h.deploy("web", h.podSpec("1500m", "512Mi", nil), time.Duration(0), 12)
		h.start(poolWith("p", odLarge, ""))
		h.run(5 * time.Second) // launched, none Ready (40s)
		for _, n := range h.karpenterNodes() {
			created = append(created, n.Name)
		}
		for _, id := range h.k.base.ByOrderName {
			tried = append(tried, h.cl.Nodes[id].Name)
			require.True(t, strings.HasPrefix(h.k.base.OrderName(id), "p-"), "ordered by a name of pool p")
		}
		return created, tried
	}
	created, tried := order()
	require.Len(t, created, 12)
	require.True(t, sort.StringsAreSorted(created), "our names follow creation: %v", created)
	require.ElementsMatch(t, created, tried)
	require.False(t, slices.Equal(created, tried), "tried in creation order: %v", tried)
	_, again := order()
	require.Equal(t, tried, again, "the order is the seed's")
}
