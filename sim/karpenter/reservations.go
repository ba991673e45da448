package karpenter

import (
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// reasonReservationExpiring: a Capacity Block's nodes deleted before EC2
// reclaims them (KA capacityreservation.expiration).
const reasonReservationExpiring = "capacity-block-expiring"

// scheduleReservations schedules the end of each offered reservation
// that has one, as Karpenter sees it: a Capacity Block's expiry
// (scheduling.CapacityBlockExpiry before its end: its NodeClaims are
// deleted, KA capacityreservation.expiration), an ODCR's end (its nodes
// become on-demand nodes, KA capacityreservation.capacitytype, which
// polls every minute: here at the end itself).
func (k *Karpenter) scheduleReservations() {
	now := k.eng.Now()
	for i := range k.offerings.Reservations {
		r := &k.offerings.Reservations[i].Reservation
		if r.End <= 0 {
			continue
		}
		at := r.End
		if r.Kind == cloud.ReservationCapacityBlock {
			at = r.End - scheduling.CapacityBlockExpiry
		}
		k.eng.Schedule(max(at, now), engine.Event{Handler: k.id, Kind: evReservation, Obj: int32(i)})
	}
}

// reservationEvent ends reservation i for its nodes.
func (k *Karpenter) reservationEvent(i int) {
	ro := &k.offerings.Reservations[i]
	r := &ro.Reservation
	k.offerings.SyncReservations()
	for _, kn := range append([]*knode(nil), k.nodes.live...) {
		if kn.Offering.Reservation != r.ID || k.cl.Nodes[kn.ID].State == cluster.NodeGone {
			continue
		}
		if r.Kind == cloud.ReservationCapacityBlock {
			if kn.Deleting {
				continue
			}
			if kn.cmd != nil {
				k.dis.abort(kn.cmd)
			}
			k.term.startDeletion(kn, reasonReservationExpiring)
			continue
		}
		k.demote(kn)
	}
	k.dis.stateChanged()
	k.prov.trigger()
}

// demote makes a node whose reservation ended an on-demand node (KA
// syncCapacityType): capacity type on-demand, the reservation labels
// gone. Its NodeClaim asked for reserved, so it drifts where its
// NodePool does not allow on-demand.
func (k *Karpenter) demote(kn *knode) {
	syms := k.cl.Syms
	n := &k.cl.Nodes[kn.ID]
	labels := n.Labels.Without(syms.Intern(apis.LabelCapacityReservationID), syms.Intern(apis.LabelCapacityReservationType),
		syms.Intern(apis.LabelCapacityReservationInterruptible)).With(k.cl.KeyCapacityType, syms.Intern(cluster.OnDemand.String()))
	kn.Offering.CapacityType, kn.Offering.Reservation = cluster.OnDemand, ""
	price, ok := k.cloud.Price(kn.Offering)
	if !ok {
		price = n.PriceUSDPerHour
	}
	k.cl.SetCapacityType(kn.ID, cluster.OnDemand, labels, price)
	kn.driftChecked = nil
	k.stats.ReservationsDemoted++
}
