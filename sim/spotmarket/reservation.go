package spotmarket

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// Reservation is an EC2 capacity reservation (see [cloud.Reservation]).
type Reservation = cloud.Reservation

// reservation is a Reservation's state in the market: the pool its
// instances run in (one per reservation: the offering names it) and the
// count left after interruptions.
type reservation struct {
	cfg   Reservation
	pool  int32 // -1 until the first launch
	count int
	// counts are (time, count) steps: the count from each time on, for
	// the reserved instance-hours.
	steps []countStep
}

type countStep struct {
	at    engine.Time
	count int
}

var (
	reservationIDPattern = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	ownerIDPattern       = regexp.MustCompile(`^[0-9]{12}$`)
)

// validateReservations checks the reservations' own fields (names
// against the catalogue and zones are New's).
func validateReservations(rs []Reservation, bad func(path, format string, args ...any)) {
	seen := map[string]bool{}
	for i := range rs {
		r := &rs[i]
		p := fmt.Sprintf("reservations[%d].", i)
		if !reservationIDPattern.MatchString(r.ID) {
			bad(p+"id", "%q is not a capacity reservation id (cr- then lower-case letters and digits, e.g. cr-0123456789abcdef0)", r.ID)
		}
		if seen[r.ID] {
			bad(p+"id", "%q is listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.Count < 1 {
			bad(p+"count", "must be at least 1, got %d", r.Count)
		}
		if r.MatchCriteria != "open" && r.MatchCriteria != "targeted" {
			bad(p+"instanceMatchCriteria", "use open or targeted, got %q", r.MatchCriteria)
		}
		if r.OwnerID != "" && !ownerIDPattern.MatchString(r.OwnerID) {
			bad(p+"ownerID", "%q is not an AWS account id (12 digits)", r.OwnerID)
		}
		if r.Start < 0 {
			bad(p+"start", "must be >= 0, got %s", r.Start)
		}
		if r.End != 0 && r.End <= r.Start {
			bad(p+"end", "must be after start (%s), got %s", r.Start, r.End)
		}
		if r.Kind == cloud.ReservationCapacityBlock {
			if r.End == 0 {
				bad(p+"end", "a capacity block has an end time")
			}
			if r.Interruptible {
				bad(p+"interruptible", "capacity blocks are not interruptible; only on-demand capacity reservations (type default) are")
			}
		}
		if r.PriceUSDPerHour < 0 {
			bad(p+"priceUSDPerHour", "must be >= 0, got %g", r.PriceUSDPerHour)
		}
		if len(r.Interruptions) > 0 && !r.Interruptible {
			bad(p+"interruptions", "only an interruptible reservation is interrupted; set interruptible: true")
		}
		for j, in := range r.Interruptions {
			q := fmt.Sprintf("%sinterruptions[%d].", p, j)
			if in.Count < 1 {
				bad(q+"count", "must be at least 1, got %d", in.Count)
			}
			if in.At < r.Start || (r.End > 0 && in.At >= r.End) {
				bad(q+"at", "must be within the reservation's window, got %s", in.At)
			}
		}
	}
}

// checkReservations checks the reservations' instance types and zones.
func (m *Market) checkReservations() error {
	var errs []error
	for i := range m.cfg.Reservations {
		r := &m.cfg.Reservations[i]
		p := fmt.Sprintf("market.reservations[%d].", i)
		if _, ok := m.cat.Lookup(r.InstanceType); !ok {
			errs = append(errs, fmt.Errorf("%sinstanceType: unknown instance type %q", p, r.InstanceType))
		} else if _, _, ok := m.cat.OnDemandPrice(m.region, r.InstanceType); !ok {
			errs = append(errs, fmt.Errorf("%sinstanceType: %s is not sold in %s", p, r.InstanceType, m.region))
		}
		if !slices.Contains(m.zones, r.Zone) {
			errs = append(errs, fmt.Errorf("%szone: %q is not one of the market's zones %v", p, r.Zone, m.zones))
		}
	}
	return joinErrs(errs)
}

// initReservations builds the reservations' state and schedules their
// interruptions and Capacity Block reclaims.
func (m *Market) initReservations() {
	m.resIdx = map[string]int32{}
	for i := range m.cfg.Reservations {
		r := m.cfg.Reservations[i]
		r.Tags = cloneTags(r.Tags)
		r.Interruptions = slices.Clone(r.Interruptions)
		m.res = append(m.res, reservation{cfg: r, pool: -1, count: r.Count, steps: []countStep{{r.Start, r.Count}}})
		m.resIdx[r.ID] = int32(i)
	}
	for i := range m.res {
		r := &m.res[i].cfg
		if r.Kind == cloud.ReservationCapacityBlock {
			m.eng.Schedule(r.UsableUntil(), engine.Event{Handler: m.id, Kind: evBlockReclaim, Obj: int32(i)})
		}
		for j := range r.Interruptions {
			m.resInterrupts = append(m.resInterrupts, resInterrupt{res: int32(i), at: j})
			m.eng.Schedule(r.Interruptions[j].At, engine.Event{Handler: m.id, Kind: evResInterrupt, Obj: int32(len(m.resInterrupts) - 1)})
		}
	}
}

type resInterrupt struct {
	res int32
	at  int
}

func cloneTags(t map[string]string) map[string]string {
	if t == nil {
		return nil
	}
	out := make(map[string]string, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}

// Reservations returns the capacity reservations, as EC2's
// DescribeCapacityReservations lists them (tags copied).
func (m *Market) Reservations() []Reservation {
	out := make([]Reservation, len(m.res))
	for i := range m.res {
		out[i] = m.res[i].cfg
		out[i].Tags = cloneTags(out[i].Tags)
		out[i].Count = m.res[i].count
	}
	return out
}

// ReservationFree is how many more instances reservation id takes now: 0
// outside its usable window or when full; false for an unknown id.
func (m *Market) ReservationFree(id string) (int, bool) {
	i, ok := m.resIdx[id]
	if !ok {
		return 0, false
	}
	return m.resFree(&m.res[i]), true
}

func (m *Market) resFree(r *reservation) int {
	now := m.eng.Now()
	if now < r.cfg.Start || (r.cfg.End > 0 && now >= r.cfg.UsableUntil()) {
		return 0
	}
	used := 0
	if r.pool >= 0 {
		used = int(m.pools[r.pool].running)
	}
	return max(r.count-used, 0)
}

// reservationOf is the reservation a reserved offering names, or nil
// (not a reservation, or an unknown one).
func (m *Market) reservationOf(o Offering) *reservation {
	if o.CapacityType != cluster.Reserved || o.Reservation == "" {
		return nil
	}
	if i, ok := m.resIdx[o.Reservation]; ok {
		return &m.res[i]
	}
	return nil
}

// reservedPool sets up the pool of a reservation's instances: free while
// the reservation lasts (the reservation is billed on its own,
// ReservationStats), on-demand after an ODCR's end (its instances keep
// running as on-demand instances).
func (m *Market) reservedPool(p *pool, r *reservation, pi int32) {
	p.base = 0
	p.pts = append(p.pts[:0], pricePoint{0, 0})
	if r.cfg.Kind == cloud.ReservationDefault && r.cfg.End > 0 {
		p.pts = append(p.pts, pricePoint{r.cfg.End, 0}, pricePoint{r.cfg.End, p.od})
	}
	r.pool = pi
}

// blockReclaim ends a Capacity Block's instances: EC2 terminates what is
// still running CapacityBlockReclaimLead before the block's end.
func (m *Market) blockReclaim(ri int32) {
	r := &m.res[ri]
	if r.pool < 0 {
		return
	}
	var ids []InstanceID
	for id := InstanceID(1); int(id) < len(m.inst); id++ {
		if in := &m.inst[id]; in.pool == r.pool && in.state < stTerminated {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		in := &m.inst[id]
		m.eng.Cancel(in.notice)
		m.eng.Cancel(in.reclaim)
		m.eng.Cancel(in.rebal)
		if in.state == stLive {
			m.removeLive(id)
		}
		m.end(id, stReclaimed)
		m.stats.ReservationReclaims++
		m.signal(Terminated, id, 0)
	}
}

// resInterrupt applies an interruption of an interruptible reservation:
// the reservation shrinks and as many of its running instances (chosen
// at random) get an interruption notice, reclaimed NoticeLead later.
func (m *Market) resInterrupt(k int32) {
	ri := m.resInterrupts[k]
	r := &m.res[ri.res]
	n := min(r.cfg.Interruptions[ri.at].Count, r.count)
	r.count -= n
	r.steps = append(r.steps, countStep{m.eng.Now(), r.count})
	if r.pool < 0 {
		return
	}
	p := &m.pools[r.pool]
	for ; n > 0 && len(p.live) > 0; n-- {
		m.doom(p.live[p.rng.IntN(len(p.live))], 0, rebalanceNone)
		m.stats.ReservationInterruptions++
	}
}

// ReservationStat is one reservation's books up to a time.
type ReservationStat struct {
	Reservation Reservation
	// ReservedHours are instance-hours reserved (billed), UsedHours those
	// instances ran in the reservation.
	ReservedHours, UsedHours float64
	// CostUSD is ReservedHours at the reservation's price.
	CostUSD float64
}

// ReservationStats returns each reservation's books from its start until
// until (or its end, if earlier).
func (m *Market) ReservationStats(until engine.Time) []ReservationStat {
	out := make([]ReservationStat, len(m.res))
	for i := range m.res {
		r := &m.res[i]
		end := until
		if r.cfg.End > 0 {
			end = min(end, r.cfg.End)
		}
		st := ReservationStat{Reservation: r.cfg}
		st.Reservation.Tags = cloneTags(r.cfg.Tags)
		for j, s := range r.steps {
			to := end
			if j+1 < len(r.steps) {
				to = min(to, r.steps[j+1].at)
			}
			if to > s.at {
				st.ReservedHours += float64(s.count) * (to - s.at).Hours()
			}
		}
		if r.pool >= 0 {
			usedEnd := end
			if u := r.cfg.UsableUntil(); u > 0 {
				usedEnd = min(usedEnd, u)
			}
			for id := 1; id < len(m.inst); id++ {
				in := &m.inst[id]
				if in.pool != r.pool {
					continue
				}
				to := usedEnd
				if in.state >= stTerminated {
					to = min(to, in.ended)
				}
				if from := max(in.launched, r.cfg.Start); to > from {
					st.UsedHours += (to - from).Hours()
				}
			}
		}
		price := r.cfg.PriceUSDPerHour
		if price == 0 {
			price, _, _ = m.cat.OnDemandPrice(m.region, r.cfg.InstanceType)
		}
		st.CostUSD = st.ReservedHours * price
		out[i] = st
	}
	return out
}
