package scheduling

import (
	"math"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// ReservationSource is what EC2 says of the account's capacity
// reservations (DescribeCapacityReservations); sim/spotmarket's Market
// satisfies it. A cloud without it has no reservations.
type ReservationSource interface {
	Reservations() []cloud.Reservation
	ReservationFree(id string) (int, bool)
}

// reservedPriceDivisor makes a reserved offering all but free while
// keeping the on-demand order between types (KA
// ReservedCapacityResolver: on-demand price / 10,000,000): consolidation
// never replaces a reserved node by a cheaper one, and moves on-demand
// nodes into free reservations.
const reservedPriceDivisor = 10_000_000.0

// CapacityBlockExpiry is how long before its end a Capacity Block counts
// as expiring: no more launches into it, and its nodes are drained (KA
// CapacityReservationFromEC2 capacityReservationExpirationPeriod; the
// expiration controller).
const CapacityBlockExpiry = 40 * time.Minute

// ReservationOffer is a capacity reservation as Karpenter offers it: a
// reserved offering of its type in its zone (KA
// ReservedCapacityResolver).
type ReservationOffer struct {
	Reservation cloud.Reservation
	Type        *InstanceType
	Zone        int
	// Offer is its offering's index in the table.
	Offer int
	// Free is how many instances it takes, as last synced (0 while
	// expiring or outside its window).
	Free int
}

// Expiring reports whether r is a Capacity Block within
// CapacityBlockExpiry of its end at now (KA state expiring).
func Expiring(r *cloud.Reservation, now engine.Time) bool {
	return r.Kind == cloud.ReservationCapacityBlock && r.End > 0 && now >= r.End-CapacityBlockExpiry
}

// setReservations keeps the reservations that some NodePool's
// EC2NodeClass selects, of types and zones the run has (KA: each
// EC2NodeClass's status.capacityReservations), and reprices.
func (o *Offerings) setReservations(src ReservationSource, pools []apis.NodePool) {
	o.reservations = src
	o.Reservations = nil
	if src == nil || !o.settings.ReservedCapacity {
		return
	}
	for _, r := range src.Reservations() {
		t, ok := o.TypeByName[r.InstanceType]
		z := o.zoneIndex(r.Zone)
		if !ok || z < 0 {
			continue
		}
		selected := false
		for i := range pools {
			selected = selected || pools[i].NodeClass.SelectsReservation(&r)
		}
		if selected {
			o.Reservations = append(o.Reservations, ReservationOffer{Reservation: r, Type: t, Zone: z, Offer: o.Offers.Index(t.Index, z, ReservedIndex)})
		}
	}
	if len(o.Reservations) > 0 {
		o.Offers.priced = false
		o.RefreshPrices()
	}
}

// reservedPrice is the price of type t's reserved offering in zone z:
// the on-demand price over reservedPriceDivisor when a reservation of it
// is offered, else -1 (none).
func (o *Offerings) reservedPrice(t *InstanceType, z int, zone string) float64 {
	for i := range o.Reservations {
		if r := &o.Reservations[i]; r.Type == t && r.Zone == z {
			od, ok := o.cloud.Price(cloud.Offering{InstanceType: t.Name, Zone: zone, CapacityType: cluster.OnDemand})
			if !ok || math.IsNaN(od) || od < 0 {
				return 0 // KA: no price still offers the reservation
			}
			return od / reservedPriceDivisor
		}
	}
	return -1
}

// SyncReservations reads the reservations' free counts (KA's
// availability cache, kept exact here) and makes a reserved offering
// unavailable while none of its reservations has room: KA's offering is
// Available only with capacity left and not expiring.
func (o *Offerings) SyncReservations() {
	if len(o.Reservations) == 0 {
		return
	}
	now := o.eng.Now()
	for i := range o.Reservations {
		r := &o.Reservations[i]
		r.Free = 0
		if f, ok := o.reservations.ReservationFree(r.Reservation.ID); ok && !Expiring(&r.Reservation, now) {
			r.Free = f
		}
	}
	changed := false
	for i := range o.Reservations {
		idx := o.Reservations[i].Offer
		free := 0
		for j := range o.Reservations {
			if o.Reservations[j].Offer == idx {
				free += o.Reservations[j].Free
			}
		}
		until := engine.Time(0)
		if free == 0 {
			until = engine.MaxTime
		}
		if o.Offers.UnavailableUntil[idx] != until {
			o.Offers.UnavailableUntil[idx] = until
			changed = true
		}
	}
	if changed {
		o.Offers.version++
	}
}

// reservedBits are the reserved offering bits of type t that class nc
// selects a reservation for.
func (o *Offerings) reservedBits(t *InstanceType, nc *apis.NodeClass) uint64 {
	var m uint64
	for i := range o.Reservations {
		if r := &o.Reservations[i]; r.Type == t && nc.SelectsReservation(&r.Reservation) {
			m |= 1 << uint(r.Zone*NumCapacityTypes+ReservedIndex)
		}
	}
	return m
}

// unreservedBits are every spot and on-demand bit.
func (o *Offerings) unreservedBits() uint64 {
	return o.CapacityTypeBits(OnDemandIndex) | o.CapacityTypeBits(SpotIndex)
}

// OfferBits are the offering bits pool p may use for type t (every bit
// for a nil pool or a type it does not launch).
func (p *Pool) OfferBits(t *InstanceType) uint64 {
	if p == nil {
		return math.MaxUint64
	}
	if pos := p.TypePositions[t.Index]; pos >= 0 {
		return p.Types[pos].Offer
	}
	return math.MaxUint64
}

// ReservedOfferings are the reservations pool p may launch type t into
// in zone z that have room now, as launch offerings, in the order EC2
// lists them (by id).
func (o *Offerings) ReservedOfferings(p *Pool, t *InstanceType, z int, out []cloud.Offering) []cloud.Offering {
	for i := range o.Reservations {
		r := &o.Reservations[i]
		if r.Type != t || r.Zone != z || r.Free <= 0 || !p.Spec.NodeClass.SelectsReservation(&r.Reservation) {
			continue
		}
		out = append(out, cloud.Offering{InstanceType: t.Name, Zone: o.Zones[z], CapacityType: cluster.Reserved, Reservation: r.Reservation.ID})
	}
	return out
}

// Reservation returns the offered reservation called id.
func (o *Offerings) Reservation(id string) (*ReservationOffer, bool) {
	for i := range o.Reservations {
		if o.Reservations[i].Reservation.ID == id {
			return &o.Reservations[i], true
		}
	}
	return nil, false
}

// reservationsOK applies KC NodeClaim.offeringsToReserve to claim c with
// its options in s.scratch and offering mask: the reservations it would
// hold are left in s.resScratch. Strict (provisioning): a pod may not
// join when a compatible reservation has room but every slot is held by
// other claims of the solve (KC defers it to the next loop), nor when
// joining would leave a claim that holds reservations without any.
func (s *Solver) reservationsOK(c *Claim, mask uint64) bool {
	o := s.Shared.offerings
	if s.resHeld == nil {
		s.resHeld = make([]int, len(o.Reservations))
	}
	s.resScratch = s.resScratch[:0]
	withRoom := false
	for _, ri := range c.Pool.reservations {
		r := &o.Reservations[ri]
		bit := uint64(1) << uint(r.Zone*NumCapacityTypes+ReservedIndex)
		if r.Free <= 0 || mask&bit == 0 || s.Available[r.Type.Index]&bit == 0 {
			continue
		}
		pos := c.Pool.TypePositions[r.Type.Index]
		found := false
		for _, p := range s.scratch {
			if p == pos {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		withRoom = true
		if slices.Contains(c.reserved, ri) || s.resHeld[ri] < r.Free {
			s.resScratch = append(s.resScratch, ri)
		}
	}
	if s.reservedFallback {
		return true
	}
	if withRoom && len(s.resScratch) == 0 {
		// KC ReservedOfferingError: the pod waits for the next loop,
		// without trying lower-weight pools or relaxing.
		s.resDeferred = true
		return false
	}
	return len(c.reserved) == 0 || len(s.resScratch) > 0
}

// Reserved are the reservations (indices in Offerings.Reservations) the
// claim holds slots of: a launch goes into one of them only (KC
// FinalizeScheduling tightens its requirements to reserved and their
// ids).
func (c *Claim) Reserved() []int { return c.reserved }

// heldCheapest is the cheapest price of the reservations c holds.
func (o *Offerings) heldCheapest(c *Claim) float64 {
	best := math.Inf(1)
	for _, ri := range c.reserved {
		best = min(best, c.Pool.Price(o, o.Reservations[ri].Offer))
	}
	return best
}

// holdReservations makes claim c hold the reservations reservationsOK
// found (s.resScratch) and release the others (KC Reserve, Release).
func (s *Solver) holdReservations(c *Claim) {
	for _, ri := range c.reserved {
		if !slices.Contains(s.resScratch, ri) {
			s.resHeld[ri]--
		}
	}
	for _, ri := range s.resScratch {
		if !slices.Contains(c.reserved, ri) {
			s.resHeld[ri]++
		}
	}
	c.reserved = append(c.reserved[:0], s.resScratch...)
}
