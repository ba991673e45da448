package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/spotmarket"
)

// spec.market.depth sets the market's pool depth; fields left out keep
// their defaults.
func TestMarketDepth(t *testing.T) {
	sc, err := loadString(t, minimal+"  market:\n    depth: {spot: 40, onDemand: 500, refill: 10m, constrained: 0.2}\n---\n"+barePod)
	require.NoError(t, err)
	want := spotmarket.DefaultDepth()
	want.Spot, want.OnDemand, want.Refill, want.Constrained = 40, 500, 10*time.Minute, 0.2
	assert.Equal(t, want, sc.Market.Depth)

	sc, err = loadString(t, minimal+"  market:\n    depth: {unlimited: true}\n---\n"+barePod)
	require.NoError(t, err)
	assert.True(t, sc.Market.Depth.Unlimited)

	sc, err = loadString(t, minimal+"---\n"+barePod)
	require.NoError(t, err)
	assert.Equal(t, spotmarket.DefaultDepth(), sc.Market.Depth, "defaults without a depth block")

	_, err = loadString(t, minimal+"  market:\n    depth: {spto: 40}\n---\n"+barePod)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spto")
}
