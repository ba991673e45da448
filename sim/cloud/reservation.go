package cloud

import (
	"fmt"
	"time"
)

// ReservationKind is an EC2 capacity reservation's type.
type ReservationKind uint8

// Reservation kinds (EC2 CapacityReservationType; KA
// CapacityReservationType).
const (
	// ReservationDefault is an On-Demand Capacity Reservation (ODCR):
	// billed at the on-demand rate while active, used or not. An
	// instance still running when it ends stays, billed on demand.
	ReservationDefault ReservationKind = iota
	// ReservationCapacityBlock is a Capacity Block for ML: paid up front
	// for a fixed window; EC2 reclaims its instances
	// CapacityBlockReclaimLead before the end.
	ReservationCapacityBlock
)

// CapacityBlockReclaimLead is how long before a Capacity Block's end EC2
// starts terminating its instances (EC2 user guide, Capacity Blocks: "EC2
// begins terminating instances 30 minutes before the end time"; KA's
// expiration controller drains 10 minutes before that).
const CapacityBlockReclaimLead = 30 * time.Minute

var reservationKindNames = [...]string{"default", "capacity-block"}

func (k ReservationKind) String() string {
	if int(k) < len(reservationKindNames) {
		return reservationKindNames[k]
	}
	return fmt.Sprintf("ReservationKind(%d)", k)
}

// ParseReservationKind reads "default" or "capacity-block".
func ParseReservationKind(s string) (ReservationKind, bool) {
	for i, n := range reservationKindNames {
		if n == s {
			return ReservationKind(i), true
		}
	}
	return ReservationDefault, false
}

// Reservation is one EC2 capacity reservation: Count instances of one
// type in one zone, from Start to End (simulated time).
type Reservation struct {
	// ID is EC2's id, cr- and lower-case hex.
	ID           string
	InstanceType string
	Zone         string
	// Count is the number of instances reserved (>= 1).
	Count int
	Kind  ReservationKind
	// Interruptible: the owner may take capacity back with a two-minute
	// notice (interruptible ODCRs); Interruptions script when.
	Interruptible bool
	// MatchCriteria is "targeted" (only launches naming the reservation
	// use it) or "open".
	MatchCriteria string
	// OwnerID (12 digits) and Tags are what EC2NodeClass selector terms
	// match.
	OwnerID string
	Tags    map[string]string
	// Start and End bound the reservation's active window; End 0: it
	// never ends.
	Start, End time.Duration
	// PriceUSDPerHour is what one reserved instance-hour costs, used or
	// not; 0 means the type's on-demand price.
	PriceUSDPerHour float64
	// Interruptions take capacity back (interruptible reservations
	// only).
	Interruptions []ReservationInterruption
}

// ReservationInterruption is the owner of an interruptible reservation
// taking Count instances back at At: the reservation shrinks by Count and
// as many of its running instances get a two-minute interruption notice.
type ReservationInterruption struct {
	At    time.Duration
	Count int
}

// UsableUntil is the end of the window in which instances can run in the
// reservation (0: no end): End, or for a Capacity Block End minus
// CapacityBlockReclaimLead.
func (r *Reservation) UsableUntil() time.Duration {
	if r.End > 0 && r.Kind == ReservationCapacityBlock {
		return max(r.End-CapacityBlockReclaimLead, r.Start)
	}
	return r.End
}
