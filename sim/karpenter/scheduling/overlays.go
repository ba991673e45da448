package scheduling

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/overlay"
)

// NodeOverlays (feature gate NodeOverlay) change the instance types a
// pool's solves, launches and disruption decisions see (KC
// cloudprovider/overlay decorating GetInstanceTypes): a price overlay the
// price of each offering it matches, a capacity overlay the extended
// resources of the type. The cloud bills its own prices whatever the
// overlays say.

// SetOverlays puts the NodeOverlays in force (in apis.OrderOverlays
// order; nil: none) and rebuilds the pools they change.
func (np *NodePools) SetOverlays(ovs []apis.NodeOverlay) {
	np.overlays = ovs
	np.evaluateOverlays()
}

// OverlayStatus is what became of each overlay in force, in their order
// (OverlayNames).
func (np *NodePools) OverlayStatus() []overlay.Status { return np.overlayStatus }

// OverlayNames are the names of the overlays in force, in the order they
// apply.
func (np *NodePools) OverlayNames() []string {
	out := make([]string, len(np.overlays))
	for i := range np.overlays {
		out[i] = np.overlays[i].Name
	}
	return out
}

// evaluateOverlays works out the overlays' updates over every pool and
// rebuilds the pools whose updates changed.
func (np *NodePools) evaluateOverlays() {
	if len(np.overlays) == 0 && len(np.overlayByPool) == 0 {
		return
	}
	pools := make([]overlay.Pool, len(np.All))
	for i, p := range np.All {
		pools[i] = overlay.Pool{Name: p.Spec.Name, Labels: p.Spec.Labels.With(np.keyNodePool, np.cl.Syms.Intern(p.Spec.Name))}
	}
	view := np.offerings.overlayView()
	res := overlay.Evaluate(np.cl.Syms, overlay.Keys{Zone: np.cl.KeyZone, CapacityType: np.cl.KeyCapacityType}, np.overlays, pools, view)
	np.overlayStatus = res.Status
	if np.overlayByPool == nil {
		np.overlayByPool = map[string]*poolOverlay{}
	}
	for i, p := range np.All {
		po := np.poolOverlay(res.Updates[i], view)
		if reflect.DeepEqual(po, np.overlayByPool[p.Spec.Name]) {
			continue
		}
		np.overlayByPool[p.Spec.Name] = po
		*p = *np.build(p.Spec)
	}
	np.weightOrder = nil
	np.base.Invalidate()
}

// poolOverlay is what the overlays do to one pool: per instance type
// (index), the extended resources given; per offering (table index), the
// price change.
type poolOverlay struct {
	capacity map[int32][]apis.ExtendedResource
	prices   []*apis.PriceChange
	// priced marks the types with an overlaid price on some offering.
	priced map[int32]bool
}

func (np *NodePools) poolOverlay(ups map[int]*overlay.Update, view *overlayView) *poolOverlay {
	if len(ups) == 0 {
		return nil
	}
	po := &poolOverlay{}
	for t, u := range ups {
		if len(u.Capacity) > 0 {
			if po.capacity == nil {
				po.capacity = map[int32][]apis.ExtendedResource{}
			}
			po.capacity[int32(t)] = u.Capacity
		}
		for k, oi := range u.Price {
			if oi < 0 {
				continue
			}
			if po.prices == nil {
				po.prices = make([]*apis.PriceChange, len(np.offerings.Offers.Price))
				po.priced = map[int32]bool{}
			}
			po.prices[view.offers[t][k]] = np.overlays[oi].Price
			po.priced[int32(t)] = true
		}
	}
	return po
}

// overlayCapacity gives pt the extended resources the pool's overlays
// give its type (a resource no pod asks for has no slot and is left out).
func (np *NodePools) overlayCapacity(po *poolOverlay, pt *PoolType) {
	if po == nil {
		return
	}
	for _, r := range po.capacity[pt.Type.Index] {
		if slot, ok := np.cl.Resources.Lookup(corev1.ResourceName(r.Name)); ok {
			pt.Capacity[slot], pt.Allocatable[slot] = r.Count, r.Count
		}
	}
}

// Price is offering i's price (USD/hour) as the pool's solves and
// disruption decisions see it: the cloud's, changed by an overlay
// (negative: no such offering).
func (p *Pool) Price(o *Offerings, i int) float64 {
	pr := o.Offers.Price[i]
	if p != nil && p.overlay != nil && p.overlay.prices != nil && pr >= 0 {
		if c := p.overlay.prices[i]; c != nil {
			return c.Apply(pr)
		}
	}
	return pr
}

// PoolOfferingPrice is offering of's price as pool p sees it (negative:
// not sold), and whether an overlay changed it.
func (o *Offerings) PoolOfferingPrice(p *Pool, of cloud.Offering) (float64, bool) {
	v, overlaid, _ := o.poolOfferingPrice(p, of)
	return v, overlaid
}

// poolOfferingPrice is PoolOfferingPrice; ok is false when the offering
// is not in the table (a type or zone the run does not have).
func (o *Offerings) poolOfferingPrice(p *Pool, of cloud.Offering) (price float64, overlaid, ok bool) {
	t, known := o.TypeByName[of.InstanceType]
	z := o.zoneIndex(of.Zone)
	if !known || z < 0 {
		return -1, false, false
	}
	ct := OnDemandIndex
	switch of.CapacityType {
	case cluster.Spot:
		ct = SpotIndex
	case cluster.Reserved:
		ct = ReservedIndex
	}
	i := o.Offers.Index(t.Index, z, ct)
	overlaid = p != nil && p.overlay != nil && p.overlay.prices != nil && p.overlay.prices[i] != nil && o.Offers.Price[i] >= 0
	return p.Price(o, i), overlaid, true
}

// PriceOverlaid reports whether an overlay changes the price of some
// offering of type t in the pool (KC InstanceType.IsPricingOverlayApplied).
func (p *Pool) PriceOverlaid(t *InstanceType) bool {
	return p != nil && p.overlay != nil && p.overlay.priced[t.Index]
}

// overlayView is the offering table as package overlay reads it.
type overlayView struct {
	o *Offerings
	// offers are per type the table indexes of its offerings that exist;
	// of the same offerings as symbols.
	offers [][]int
	of     [][]overlay.Offering
}

func (o *Offerings) overlayView() *overlayView {
	v := &overlayView{o: o, offers: make([][]int, len(o.types)), of: make([][]overlay.Offering, len(o.types))}
	for _, t := range o.types {
		for z := range o.Zones {
			for ct := 0; ct < NumCapacityTypes; ct++ {
				i := o.Offers.Index(t.Index, z, ct)
				if o.Offers.Price[i] < 0 {
					continue
				}
				v.offers[t.Index] = append(v.offers[t.Index], i)
				v.of[t.Index] = append(v.of[t.Index], overlay.Offering{Zone: o.zoneSyms[z], CapacityType: o.CapacityTypeSyms[ct]})
			}
		}
	}
	return v
}

func (v *overlayView) Len() int { return len(v.o.types) }

func (v *overlayView) Name(t int) string { return v.o.types[t].Name }

func (v *overlayView) Label(t int, key cluster.Sym) (cluster.Sym, bool) {
	tk, ok := v.o.TypeKeyIndex(key)
	if !ok {
		return cluster.NoSym, false
	}
	val := v.o.types[t].LabelValues[tk]
	return val, val != cluster.NoSym
}

func (v *overlayView) Offerings(t int) []overlay.Offering { return v.of[t] }
