package fidelity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
)

// The reservation set: cases of the first generator's kind with capacity
// reservations (ODCRs) of some of the case's types, which every pool's
// EC2NodeClass selects by id, and pools that allow the reserved capacity
// type (with on-demand, spot or both to fall back to, or alone). Upstream
// gets the reserved offerings KA's ReservedCapacityResolver makes (price
// on-demand / 10,000,000, ReservationCapacity the count, the type's
// capacity-type and reservation-id requirements as KA's
// computeRequirements) and solves strict, as its provisioner does
// (DisableReservedCapacityFallback).

// Reservation is a capacity reservation of a case.
type Reservation struct {
	ID           string
	InstanceType string
	Zone         string
	Count        int
}

// reservedPriceDivisor is KA's: a reserved offering costs the on-demand
// price over it.
const reservedPriceDivisor = 10_000_000.0

// GenerateReservations returns n reservation cases derived from seed;
// the same seed gives the same cases.
func GenerateReservations(cat *catalog.Catalog, seed uint64, n int) ([]*Case, error) {
	return generateN(cat, seed, n, generateReservationsOne)
}

func generateReservationsOne(cat *catalog.Catalog, seed uint64, idx int) (*Case, error) {
	c, err := generateOne(cat, seed^0x7e5e, idx)
	if err != nil {
		return nil, err
	}
	c.Name = fmt.Sprintf("reserved-%03d", idx)
	rng := rand.New(rand.NewPCG(seed^0x7e5e, uint64(idx)*0x9e3779b97f4a7c15+29))
	// Reservations of types with an on-demand offering, in one of its zones.
	var candidates []int
	for i, t := range c.Types {
		for _, o := range t.Offerings {
			if o.CapacityType == karpv1.CapacityTypeOnDemand {
				candidates = append(candidates, i)
				break
			}
		}
	}
	if len(candidates) == 0 {
		return c, nil
	}
	nres := 1 + rng.IntN(3)
	for k := 0; k < nres; k++ {
		t := c.Types[candidates[rng.IntN(len(candidates))]]
		var zones []string
		for _, o := range t.Offerings {
			if o.CapacityType == karpv1.CapacityTypeOnDemand {
				zones = append(zones, o.Zone)
			}
		}
		c.Reservations = append(c.Reservations, Reservation{ID: fmt.Sprintf("cr-%016x", rng.Uint64()), InstanceType: t.Name,
			Zone: zones[rng.IntN(len(zones))], Count: 1 + rng.IntN(4)})
	}
	shape := []string{"reserved"}
	for _, np := range c.Pools {
		var others []string
		reqs := np.Spec.Template.Spec.Requirements[:0]
		for _, r := range np.Spec.Template.Spec.Requirements {
			if r.Key == karpv1.CapacityTypeLabelKey {
				others = append(others, r.Values...)
				continue
			}
			reqs = append(reqs, r)
		}
		np.Spec.Template.Spec.Requirements = reqs
		if len(others) == 0 {
			others = []string{karpv1.CapacityTypeOnDemand} // KC's default requirement
		}
		if rng.IntN(4) == 0 {
			others = nil
			shape = append(shape, "pool-reserved-only")
		}
		addReq(np, karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, append([]string{karpv1.CapacityTypeReserved}, others...)...)
	}
	c.Shape = strings.Join(uniq(append(strings.Split(c.Shape, ","), shape...)), ",")
	return c, nil
}

// reservationsOf are the case's reservations of type name.
func (c *Case) reservationsOf(name string) []Reservation {
	var out []Reservation
	for _, r := range c.Reservations {
		if r.InstanceType == name {
			out = append(out, r)
		}
	}
	return out
}

// onDemandPrice is type t's on-demand price in zone (false: none).
func (t *InstanceType) onDemandPrice(zone string) (float64, bool) {
	for _, o := range t.Offerings {
		if o.CapacityType == karpv1.CapacityTypeOnDemand && o.Zone == zone {
			return o.Price, true
		}
	}
	return 0, false
}

// reservationTermsYAML selects every reservation of the case by id.
func (c *Case) reservationTermsYAML() string {
	if len(c.Reservations) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("  capacityReservationSelectorTerms:\n")
	for _, r := range c.Reservations {
		fmt.Fprintf(&b, "    - id: %s\n", r.ID)
	}
	return b.String()
}

// cloudReservations are the case's reservations as the market lists
// them, every instance free.
func (c *Case) cloudReservations() []cloud.Reservation {
	out := make([]cloud.Reservation, 0, len(c.Reservations))
	for _, r := range c.Reservations {
		out = append(out, cloud.Reservation{ID: r.ID, InstanceType: r.InstanceType, Zone: r.Zone, Count: r.Count, MatchCriteria: "targeted"})
	}
	return out
}

// ReservationFree is every instance of a reservation (priceCloud).
func (p *priceCloud) ReservationFree(id string) (int, bool) {
	i := slices.IndexFunc(p.reservations, func(r cloud.Reservation) bool { return r.ID == id })
	if i < 0 {
		return 0, false
	}
	return p.reservations[i].Count, true
}

// Reservations lists the case's reservations (priceCloud).
func (p *priceCloud) Reservations() []cloud.Reservation { return p.reservations }
