package cloudtest

import (
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
)

// Prices gives an offering's price in USD per hour; ok is false when the
// offering is not sold.
type Prices func(o cloud.Offering) (usdPerHour float64, ok bool)

// CatalogPrices prices offerings as the market prices them before any
// drift: on-demand and reserved at the catalogue's on-demand list price in
// region, spot at the catalogue's spot estimate (not sold without Spot
// Advisor data). Types the catalogue does not know are not sold.
func CatalogPrices(cat *catalog.Catalog, region string) Prices {
	return func(o cloud.Offering) (float64, bool) {
		if _, ok := cat.Lookup(o.InstanceType); !ok {
			return 0, false
		}
		if o.CapacityType == cluster.Spot {
			return cat.SpotPriceEstimate(region, o.InstanceType)
		}
		p, _, ok := cat.OnDemandPrice(region, o.InstanceType)
		return p, ok
	}
}

// FlatPrice sells every offering at usdPerHour.
func FlatPrice(usdPerHour float64) Prices {
	return func(cloud.Offering) (float64, bool) { return usdPerHour, true }
}
