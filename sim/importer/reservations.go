package importer

import (
	"regexp"
	"slices"
	"sort"
)

// reservationEntry is one of spec.market.reservations as the import
// writes it.
type reservationEntry struct {
	ID            string `json:"id"`
	InstanceType  string `json:"instanceType"`
	Zone          string `json:"zone"`
	Count         int    `json:"count"`
	Interruptible bool   `json:"interruptible,omitempty"`
	block         bool
}

type marketEntry struct {
	Reservations []reservationEntry `json:"reservations,omitempty"`
}

var reservationID = regexp.MustCompile(`^cr-[0-9a-z]+$`)

// labelReservationID names a reserved node's capacity reservation.
const labelReservationID = "karpenter.k8s.aws/capacity-reservation-id"

// inferReservations lists the capacity reservations the export's
// reserved nodes run in (karpenter.k8s.aws/capacity-reservation-id and
// its type and interruptible labels), each as large as the nodes in it:
// a cluster export has no reservation's size, end or tags, so a notice
// asks for them. Without the entry the loader could not adopt the nodes
// as Karpenter's.
func (im *Importer) inferReservations() []reservationEntry {
	byID := map[string]*reservationEntry{}
	classes := map[string][]string{} // EC2NodeClass -> reservation ids its nodes run in
	var at map[string]where
	names := make([]string, 0, len(im.nodes))
	for name := range im.nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := im.nodes[name]
		md, _ := n.out["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]string)
		id := labels[labelReservationID]
		if labels["karpenter.sh/capacity-type"] != "reserved" || id == "" {
			continue
		}
		if !reservationID.MatchString(id) {
			im.notice(n.where, "Node/"+name, "capacity reservation id %q is not an EC2 id (redacted?): the node stays static; list its reservation in spec.market.reservations", id)
			continue
		}
		e := byID[id]
		if e == nil {
			e = &reservationEntry{ID: id, InstanceType: labels["node.kubernetes.io/instance-type"], Zone: labels["topology.kubernetes.io/zone"]}
			// A Capacity Block's end is not in the export (a block needs
			// one): written as an ODCR, the notice says what it is.
			e.block = labels["karpenter.k8s.aws/capacity-reservation-type"] == "capacity-block"
			e.Interruptible = labels["karpenter.k8s.aws/capacity-reservation-interruptible"] == "true"
			byID[id] = e
			if at == nil {
				at = map[string]where{}
			}
			at[id] = n.where
		}
		e.Count++
		if nc := labels["karpenter.k8s.aws/ec2nodeclass"]; nc != "" && !slices.Contains(classes[nc], id) {
			classes[nc] = append(classes[nc], id)
		}
	}
	im.finishReservationTerms(classes)
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]reservationEntry, 0, len(ids))
	for _, id := range ids {
		e := byID[id]
		if e.block {
			im.notice(at[id], "CapacityReservation/"+id, "a Capacity Block: written as an ODCR without an end, as its end is not in a cluster export; give type: capacity-block and its end (spec.market.reservations, an +override file) for its nodes to be drained before it ends")
		}
		im.notice(at[id], "CapacityReservation/"+id, "%d reserved node(s) run in it: written to spec.market.reservations with count %d; its real size, end time, tags and owner are not in a cluster export, so set them (an +override file) for Karpenter to launch into it as it does",
			e.Count, e.Count)
		out = append(out, *e)
	}
	return out
}

// finishReservationTerms gives each EC2NodeClass whose nodes run in
// reservations the ids of those reservations as its
// capacityReservationSelectorTerms: the export's terms were dropped
// (reservationTerms), as the reservations' tags and owners are not in it.
func (im *Importer) finishReservationTerms(classes map[string][]string) {
	for _, o := range im.passthru {
		if o["kind"] != "EC2NodeClass" {
			continue
		}
		md, _ := o["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		ids := classes[name]
		if len(ids) == 0 {
			continue
		}
		sort.Strings(ids)
		terms := make([]any, 0, len(ids))
		for _, id := range ids {
			terms = append(terms, map[string]any{"id": id})
		}
		spec, _ := o["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			o["spec"] = spec
		}
		spec["capacityReservationSelectorTerms"] = terms
	}
	if im.sawReservationTerms {
		im.notice(where{}, "EC2NodeClass", "capacityReservationSelectorTerms are not kept (they select by the account's tags and owners): each EC2NodeClass selects by id the reservations its nodes run in; add other reservations to spec.market.reservations and to the terms (an +override file)")
	}
}
