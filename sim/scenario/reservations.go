package scenario

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/spotmarket"
)

// reservationSpec is one of spec.market.reservations: an EC2 capacity
// reservation the account holds (docs/scenario.md "Capacity
// reservations").
type reservationSpec struct {
	ID           string `json:"id"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	Count        int    `json:"count"`
	// Type: default (an On-Demand Capacity Reservation) or capacity-block.
	Type          string `json:"type,omitempty"`
	Interruptible bool   `json:"interruptible,omitempty"`
	// InstanceMatchCriteria: open (EC2's default) or targeted.
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	Tags                  map[string]string `json:"tags,omitempty"`
	// Start and End are simulated times (durations from the start).
	Start           string   `json:"start,omitempty"`
	End             string   `json:"end,omitempty"`
	PriceUSDPerHour *float64 `json:"priceUSDPerHour,omitempty"`
	Interruptions   []struct {
		At    string `json:"at"`
		Count int    `json:"count"`
	} `json:"interruptions,omitempty"`
}

// compileReservations adds spec.market.reservations to the market's
// config; the market's Validate checks the values.
func (l *loader) compileReservations(ms *marketSpec, cfg *spotmarket.Config) {
	if ms == nil {
		return
	}
	d := l.scenarioDoc
	for i, rs := range ms.Reservations {
		path := fmt.Sprintf("spec.market.reservations[%d]", i)
		r := cloud.Reservation{ID: rs.ID, InstanceType: rs.InstanceType, Zone: rs.Zone, Count: rs.Count,
			Interruptible: rs.Interruptible, MatchCriteria: rs.InstanceMatchCriteria, OwnerID: rs.OwnerID, Tags: rs.Tags,
			Start: l.dur(path+".start", rs.Start, 0), End: l.dur(path+".end", rs.End, 0)}
		if r.MatchCriteria == "" {
			r.MatchCriteria = "open"
		}
		if rs.Type != "" {
			k, ok := cloud.ParseReservationKind(rs.Type)
			if !ok {
				l.fail(d.Errorf(path+".type", "use default (an On-Demand Capacity Reservation) or capacity-block", "unknown reservation type %q", rs.Type))
			}
			r.Kind = k
		}
		if rs.PriceUSDPerHour != nil {
			r.PriceUSDPerHour = *rs.PriceUSDPerHour
		}
		if rs.InstanceType != "" {
			if _, ok := l.cat.Lookup(rs.InstanceType); !ok {
				l.fail(d.Errorf(path+".instanceType", "", "unknown instance type %q", rs.InstanceType))
			}
		} else {
			l.fail(d.Errorf(path+".instanceType", "give the reserved instance type, e.g. instanceType: m5.large", "missing instanceType"))
		}
		if !l.hasZone(rs.Zone) {
			l.fail(d.Errorf(path+".zone", "use one of spec.zones: "+strings.Join(l.out.Zones, ", "), "zone %q is not in the scenario", rs.Zone))
		}
		for j, in := range rs.Interruptions {
			q := fmt.Sprintf("%s.interruptions[%d]", path, j)
			if in.At == "" {
				l.fail(d.Errorf(q+".at", "give the time of the interruption, e.g. at: 2h", "missing at"))
			}
			r.Interruptions = append(r.Interruptions, cloud.ReservationInterruption{At: l.dur(q+".at", in.At, 0), Count: in.Count})
		}
		cfg.Reservations = append(cfg.Reservations, r)
	}
}
