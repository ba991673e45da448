package overlay

import (
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// CatalogTypes are the catalogue's instance types in region with their
// labels as Karpenter's nodes carry them and an offering per zone and
// capacity type where the catalogue prices one (on-demand: a list price;
// spot: a Spot Advisor row): what the loader evaluates overlays on before
// a run has a market (its warnings).
func CatalogTypes(syms *cluster.Symbols, cat *catalog.Catalog, region string, zones []string) Types {
	ct := &catalogTypes{}
	od, spot := syms.Intern("on-demand"), syms.Intern("spot")
	fixed := []cluster.Sym{syms.Intern(apis.LabelInstanceType), syms.Intern(apis.LabelArch), syms.Intern(apis.LabelOS), syms.Intern(apis.LabelRegion)}
	for _, it := range cat.Types() {
		ls := cluster.Labels{}.With(fixed[0], syms.Intern(it.Name)).With(fixed[1], syms.Intern(it.Arch)).
			With(fixed[2], syms.Intern("linux")).With(fixed[3], syms.Intern(region))
		for _, l := range it.Labels {
			if l.Key != apis.LabelArch && l.Key != apis.LabelOS {
				ls = ls.With(syms.Intern(l.Key), syms.Intern(l.Value))
			}
		}
		var offers []Offering
		_, _, hasOD := cat.OnDemandPrice(region, it.Name)
		_, hasSpot := cat.SpotAdvice(region, it.Name)
		for _, z := range zones {
			zs := syms.Intern(z)
			if hasOD {
				offers = append(offers, Offering{Zone: zs, CapacityType: od})
			}
			if hasSpot {
				offers = append(offers, Offering{Zone: zs, CapacityType: spot})
			}
		}
		ct.names = append(ct.names, it.Name)
		ct.labels = append(ct.labels, ls)
		ct.offers = append(ct.offers, offers)
	}
	return ct
}

type catalogTypes struct {
	names  []string
	labels []cluster.Labels
	offers [][]Offering
}

func (c *catalogTypes) Len() int { return len(c.names) }

func (c *catalogTypes) Label(t int, key cluster.Sym) (cluster.Sym, bool) { return c.labels[t].Get(key) }

func (c *catalogTypes) Offerings(t int) []Offering { return c.offers[t] }

func (c *catalogTypes) Name(t int) string { return c.names[t] }
